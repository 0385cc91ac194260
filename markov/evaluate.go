package markov

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"gonum.org/v1/gonum/mat"
)

// Evaluate returns the value V^{x,y} of the stationary policies x (row
// player, over A actions in each state) and y (column player, over B
// actions): the solution of the Bellman equations
//
//	(I − γ P_xy) V = r_xy,
//	r_xy(s) = Σ_{a,b} x(s,a) y(s,b) r(s,a,b),
//	P_xy(s, s') = Σ_{a,b} x(s,a) y(s,b) P(s'|s,a,b),
//
// (in-context-games-omd §3.1, with γ in Q), computed with an LU
// factorisation of I − γP_xy. That matrix is strictly diagonally dominant by
// the margin 1 − γ, so it is never singular and its ∞-norm condition number
// is at most (1+γ)/(1−γ).
//
// It returns an error naming the policy ("row policy x" or "column policy
// y"), and the state and entry, if x or y has the wrong number of states or
// actions or is not on the simplex in some state. The cost is
// O(S²·A·B + S³) time and O(S²) memory for S states.
func (g *Discounted) Evaluate(x, y Stationary) ([]float64, error) {
	if err := g.checkBuilt(); err != nil {
		return nil, err
	}
	if err := x.check("row policy x", g.states, g.rows); err != nil {
		return nil, err
	}
	if err := y.check("column policy y", g.states, g.cols); err != nil {
		return nil, err
	}
	S := g.states
	r := make([]float64, S)
	p := make([]float64, S*S)
	for s := range S {
		prow := p[s*S : (s+1)*S]
		for a, xa := range x[s] {
			if xa == 0 {
				continue
			}
			for b, yb := range y[s] {
				w := xa * yb
				if w == 0 {
					continue
				}
				k := (s*g.rows+a)*g.cols + b
				r[s] += w * g.r[k]
				AddRow(prow, g.kern, s, a*g.cols+b, w)
			}
		}
	}
	v := make([]float64, S)
	var ls bellmanSolver
	if err := ls.solve(v, S, g.gamma, p, r); err != nil {
		return nil, err
	}
	return v, nil
}

// bellmanSolver solves (I − γP)v = r for a row-stochastic S×S matrix P,
// reusing its buffers between calls.
type bellmanSolver struct {
	m  []float64
	lu mat.LU
}

// solve stores in v the solution of (I − γP)v = r, with P the row-major
// S×S matrix p. The error is gonum's mat.Condition error, which cannot occur
// for a stochastic P and γ < 1 unless the inputs are not finite.
func (ls *bellmanSolver) solve(v []float64, S int, gamma float64, p, r []float64) error {
	if cap(ls.m) < S*S {
		ls.m = make([]float64, S*S)
	}
	m := ls.m[:S*S]
	for k, q := range p {
		m[k] = -gamma * q
	}
	for s := range S {
		m[s*S+s] += 1
	}
	ls.lu.Factorize(mat.NewDense(S, S, m))
	dst := mat.NewVecDense(S, v)
	if err := ls.lu.SolveVecTo(dst, false, mat.NewVecDense(S, r)); err != nil {
		return fmt.Errorf("markov: policy evaluation: %w", err)
	}
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: policy evaluation produced a non-finite value", icrl.ErrNotFinite)
		}
	}
	return nil
}

// brMDP is the Markov decision process that one player faces when the
// other plays a fixed stationary policy: K actions per state, rewards
// r[s*K+k] and transitions p[(s*K+k)*S+s'], to be maximised.
type brMDP struct {
	S, K  int
	gamma float64
	r, p  []float64
}

// inducedMDP returns the MDP of the row player against the column policy
// opp (row = true), with rewards r_y(s,a) = Σ_b y(s,b) r(s,a,b), or of the
// column player against the row policy opp (row = false) with negated
// rewards −r_x(s,b), so that both are maximisation problems.
func (g *Discounted) inducedMDP(opp Stationary, row bool) *brMDP {
	S, A, B := g.states, g.rows, g.cols
	K := A
	if !row {
		K = B
	}
	m := &brMDP{S: S, K: K, gamma: g.gamma, r: make([]float64, S*K), p: make([]float64, S*K*S)}
	for s := range S {
		for a := range A {
			for b := range B {
				var w float64
				var k int
				if row {
					w, k = opp[s][b], s*K+a
				} else {
					w, k = -opp[s][a], s*K+b
				}
				if w == 0 {
					continue
				}
				j := (s*A+a)*B + b
				m.r[k] += w * g.r[j]
				if w < 0 {
					w = -w
				}
				AddRow(m.p[k*S:(k+1)*S], g.kern, s, a*B+b, w)
			}
		}
	}
	return m
}

// brMaxPolicyIter bounds policy iteration before [brMDP.solve] falls
// back to value iteration. Policy iteration stops far earlier in practice
// (typically after fewer than ten improvements).
var brMaxPolicyIter = 1000

// brTieTol is the tolerance, relative to the value scale max|r|/(1−γ), within
// which two actions' Q-values count as equal.
const brTieTol = 1e-10

// solve returns the optimal value of the MDP and a deterministic optimal
// policy, by Howard's policy iteration: start from the greedy policy of the
// immediate rewards, evaluate it exactly (an S×S LU solve), switch each
// state to the smallest-index action maximising Q(s,·) whenever that beats
// the current action by more than the tie tolerance, and stop when no state
// switches. Each switch strictly improves the policy, so the loop ends after
// finitely many steps (at most K^S, in practice a handful). If it has not
// ended after brMaxPolicyIter steps (only conceivable through round-off
// cycling), value iteration from the current value takes over until the
// Bellman residual is below the tie tolerance. Finally every state takes the
// smallest action index whose Q-value is within the tie tolerance of the
// maximum, and the returned value is that policy's exact value.
func (m *brMDP) solve() (v []float64, pol []int, err error) {
	S, K := m.S, m.K
	var scale float64
	for _, r := range m.r {
		scale = max(scale, math.Abs(r))
	}
	eps := brTieTol * scale / (1 - m.gamma)
	pol = make([]int, S)
	for s := range S {
		pol[s] = firstMax(m.r[s*K : (s+1)*K])
	}
	v = make([]float64, S)
	q := make([]float64, K)
	var ls bellmanSolver
	pp := make([]float64, S*S)
	rr := make([]float64, S)
	evaluate := func() error {
		for s, k := range pol {
			j := s*K + k
			rr[s] = m.r[j]
			copy(pp[s*S:(s+1)*S], m.p[j*S:(j+1)*S])
		}
		return ls.solve(v, S, m.gamma, pp, rr)
	}
	converged := false
	for range brMaxPolicyIter {
		if err := evaluate(); err != nil {
			return nil, nil, err
		}
		changed := false
		for s := range S {
			m.qInto(q, s, v)
			best := firstMax(q)
			if q[best] > q[pol[s]]+eps {
				pol[s] = best
				changed = true
			}
		}
		if !changed {
			converged = true
			break
		}
	}
	if !converged {
		if err := m.valueIteration(v, eps*(1-m.gamma)); err != nil {
			return nil, nil, err
		}
	}
	// Ties to the smallest index.
	changed := !converged
	for s := range S {
		m.qInto(q, s, v)
		mx := q[firstMax(q)]
		for k, qk := range q {
			if qk >= mx-eps {
				if k != pol[s] {
					pol[s] = k
					changed = true
				}
				break
			}
		}
	}
	if changed {
		if err := evaluate(); err != nil {
			return nil, nil, err
		}
	}
	return v, pol, nil
}

// valueIteration iterates v ← max_k Q(·,k) in place until the sup-norm
// change is at most tol, for at most maxValueIterations sweeps.
func (m *brMDP) valueIteration(v []float64, tol float64) error {
	const maxValueIterations = 1_000_000
	q := make([]float64, m.K)
	next := make([]float64, m.S)
	for range maxValueIterations {
		var diff float64
		for s := range m.S {
			m.qInto(q, s, v)
			next[s] = q[firstMax(q)]
			diff = max(diff, math.Abs(next[s]-v[s]))
		}
		copy(v, next)
		if diff <= tol {
			return nil
		}
	}
	return fmt.Errorf("%w: best response: value iteration did not converge in %d sweeps", ErrNoConvergence, maxValueIterations)
}

// qInto stores in q the Q-values r(s,k) + γ Σ_{s'} p(s'|s,k) v(s').
func (m *brMDP) qInto(q []float64, s int, v []float64) {
	S := m.S
	for k := range q {
		j := s*m.K + k
		q[k] = m.r[j] + m.gamma*seqDot(m.p[j*S:(j+1)*S], v)
	}
}

// firstMax returns the smallest index of a maximal entry of s.
func firstMax(s []float64) int {
	best := 0
	for i, v := range s {
		if v > s[best] {
			best = i
		}
	}
	return best
}

// BestResponse returns the optimal value and a deterministic optimal
// stationary policy of one player against a fixed stationary policy opp of
// the other: for p = game.RowPlayer, the row player's (maximising) best response to
// the column policy opp, value V^{†,y}(s) = max_{x'} V^{x',y}(s); with
// game.ColumnPlayer, the column player's (minimising) best response to the row
// policy opp, value V^{x,†}(s) = min_{y'} V^{x,y'}(s). The values are the
// row player's, in both cases. Against a fixed stationary opponent the
// player faces a Markov decision process, which has a deterministic
// stationary optimal policy that is optimal from every start state at once
// (Puterman 1994, Thm 6.2.10), so policy is one-hot in every state.
//
// The MDP is solved exactly by Howard's policy iteration (value iteration
// would reach the same optimum only in the limit): evaluate the current deterministic policy by an LU solve,
// improve it greedily, stop when no state changes. If policy iteration has
// not stopped after 1000 improvements (which would take round-off cycling),
// value iteration takes over. Actions whose Q-values differ by less than
// 1e-10 of the value scale max|r|/(1−γ) count as tied, and ties go to the
// smallest action index; value is the exact value of the returned policy.
//
// It returns an error naming the policy ("column policy y" for the row player, "row
// policy x" otherwise), and the bad state or entry, if opp has the wrong
// shape or is not on the simplex. Each improvement step costs
// O(S³ + S²·K) for K = A or B actions, after an O(S²·A·B) set-up.
func (g *Discounted) BestResponse(opp Stationary, p game.Player) (value []float64, policy Stationary, err error) {
	if err := g.checkBuilt(); err != nil {
		return nil, nil, err
	}
	if !p.Valid() {
		return nil, nil, fmt.Errorf("%w: BestResponse of invalid player %v", icrl.ErrInvalid, p)
	}
	row := p == game.RowPlayer
	if row {
		err = opp.check("column policy y", g.states, g.cols)
	} else {
		err = opp.check("row policy x", g.states, g.rows)
	}
	if err != nil {
		return nil, nil, err
	}
	m := g.inducedMDP(opp, row)
	v, pol, err := m.solve()
	if err != nil {
		return nil, nil, err
	}
	policy = make(Stationary, g.states)
	for s, k := range pol {
		policy[s] = make([]float64, m.K)
		policy[s][k] = 1
	}
	if !row {
		for s := range v {
			v[s] = -v[s]
		}
	}
	return v, policy, nil
}

// Gap returns the per-state duality gap of the stationary policy pair
// (x, y), the Markov exploitability of in-context-games-omd §3.2,
//
//	Gap^s(x, y) = max_{x'} V^{x',y}(s) − min_{y'} V^{x,y'}(s) = V^{†,y}(s) − V^{x,†}(s),
//
// and its maximum over states, Gap_Markov = max_s Gap^s (the sum of both
// players' best-response gains, not halved). Since V^{†,y} ≥ V^{x,y} ≥ V^{x,†}, the gap is non-negative; it is
// 0 in every state exactly when (x, y) is a Markov perfect Nash equilibrium
// (each policy a best response to the other from every start state), and
// then V^{x,y} = V*. Round-off below zero is clamped to 0.
//
// Both best responses are computed by [Discounted.BestResponse], so the
// error cases (a policy of the wrong shape or off the simplex, named "row
// policy x" or "column policy y") and the cost, two policy iterations of
// O(S³ + S²·(A+B)) per step after O(S²·A·B) set-up, are the same.
func (g *Discounted) Gap(x, y Stationary) (perState []float64, max float64, err error) {
	if err := g.checkBuilt(); err != nil {
		return nil, 0, err
	}
	if err := x.check("row policy x", g.states, g.rows); err != nil {
		return nil, 0, err
	}
	if err := y.check("column policy y", g.states, g.cols); err != nil {
		return nil, 0, err
	}
	vmax, _, err := g.BestResponse(y, game.RowPlayer)
	if err != nil {
		return nil, 0, err
	}
	vmin, _, err := g.BestResponse(x, game.ColumnPlayer)
	if err != nil {
		return nil, 0, err
	}
	perState = make([]float64, g.states)
	for s := range perState {
		perState[s] = math.Max(vmax[s]-vmin[s], 0)
		max = math.Max(max, perState[s])
	}
	return perState, max, nil
}
