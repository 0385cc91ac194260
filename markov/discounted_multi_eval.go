package markov

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"gonum.org/v1/gonum/mat"
)

// UniformPolicies returns the product of the players' uniform stationary
// policies.
func (g *DiscountedGeneralSum) UniformPolicies() []Stationary {
	pi := make([]Stationary, g.n)
	for i := range pi {
		pi[i] = UniformStationary(g.states, g.actions[i])
	}
	return pi
}

// CheckPolicies returns nil if pi holds one stationary policy per player,
// each a distribution over the player's A_i actions in each of the S
// states (simplex.CheckDistribution). Otherwise the error names the first bad
// player and state.
func (g *DiscountedGeneralSum) CheckPolicies(pi []Stationary) error {
	return g.checkPolicies(pi, -1)
}

// checkPolicies is CheckPolicies that does not look at player skip's
// policy.
func (g *DiscountedGeneralSum) checkPolicies(pi []Stationary, skip int) error {
	if len(pi) != g.n {
		return fmt.Errorf("%w: %d policies for %d players", icrl.ErrShape, len(pi), g.n)
	}
	for i, p := range pi {
		if i == skip {
			continue
		}
		if err := p.check(fmt.Sprintf("policy of player %d", i), g.states, g.actions[i]); err != nil {
			return err
		}
	}
	return nil
}

// jointWeights stores in w (length J) the product probabilities
// π(j|s) = Π_{k≠skip} π_k(a_k|s) of the joint actions in state s, leaving
// player skip out (skip < 0 keeps every player).
func (g *DiscountedGeneralSum) jointWeights(w []float64, pi []Stationary, s, skip int) {
	n := g.n
	for j := range w {
		x := 1.0
		for k := range n {
			if k != skip {
				x *= pi[k][s][g.act[j*n+k]]
			}
		}
		w[j] = x
	}
}

// mix stores in pm (row-major S×S) the state transition matrix
// P_π(s, s') = Σ_j π(j|s) P(s'|s, j) and in rm (row-major S×N) the
// expected rewards r_{i,π}(s) = Σ_j π(j|s) r_i(s, j).
func (g *DiscountedGeneralSum) mix(pi []Stationary, pm, rm []float64) {
	w := make([]float64, g.joint)
	g.mixWeights(pm, rm, func(s int) []float64 {
		g.jointWeights(w, pi, s, -1)
		return w
	})
}

// mixWeights is mix for the distribution over joint actions weights(s)
// in each state s (a product policy's or a correlated one's).
func (g *DiscountedGeneralSum) mixWeights(pm, rm []float64, weights func(s int) []float64) {
	S, J, N := g.states, g.joint, g.n
	clear(pm)
	clear(rm)
	for s := range S {
		w := weights(s)
		prow := pm[s*S : (s+1)*S]
		rrow := rm[s*N : (s+1)*N]
		for j, wj := range w {
			if wj == 0 {
				continue
			}
			k := s*J + j
			for i, v := range g.r[k*N : (k+1)*N] {
				rrow[i] += wj * v
			}
			AddRow(prow, g.kern, s, j, wj)
		}
	}
}

// factor returns the LU factorisation of I − γP for the row-major S×S
// matrix pm (overwritten). I − γP is strictly diagonally dominant by the
// margin 1 − γ for a stochastic P, hence never singular.
func (g *DiscountedGeneralSum) factor(pm []float64) *mat.LU {
	S := g.states
	for k := range pm {
		pm[k] *= -g.gamma
	}
	for s := range S {
		pm[s*S+s] += 1
	}
	var lu mat.LU
	lu.Factorize(mat.NewDense(S, S, pm))
	return &lu
}

// Values returns the players' values of the product of stationary policies
// pi, V[i][s] = V_i^π(s), the solution of the Bellman equations
//
//	(I − γP_π) V_i = r_{i,π},
//	P_π(s, s') = Σ_j π(j|s) P(s'|s, j),  r_{i,π}(s) = Σ_j π(j|s) r_i(s, j),
//
// (the standard tabular formulas), computed with one LU factorisation
// of I − γP_π shared by all players. The matrix is strictly diagonally
// dominant by the margin 1 − γ, so it is never singular and its ∞-norm
// condition number is at most (1+γ)/(1−γ). V_i^ρ(π) = Σ_s ρ(s) V[i][s].
//
// It returns an error naming the bad player and state if pi is not a valid
// product of stationary policies (see [DiscountedGeneralSum.CheckPolicies]).
// The cost is O(S·J·(S+N) + S³ + N·S²) time and O(S² + N·S) memory.
func (g *DiscountedGeneralSum) Values(pi []Stationary) ([][]float64, error) {
	if err := g.CheckPolicies(pi); err != nil {
		return nil, err
	}
	S, N := g.states, g.n
	pm := make([]float64, S*S)
	rm := make([]float64, S*N)
	g.mix(pi, pm, rm)
	return g.solveValues(pm, rm)
}

// solveValues solves (I − γP)V_i = r_i for every player i, given P as the
// row-major S×S matrix pm (overwritten) and the rewards as the row-major
// S×N matrix rm, and returns V[i][s].
func (g *DiscountedGeneralSum) solveValues(pm, rm []float64) ([][]float64, error) {
	S, N := g.states, g.n
	lu := g.factor(pm)
	var x mat.Dense
	if err := lu.SolveTo(&x, false, mat.NewDense(S, N, rm)); err != nil {
		return nil, fmt.Errorf("markov: policy evaluation: %w", err)
	}
	buf := make([]float64, N*S)
	v := make([][]float64, N)
	for i := range v {
		v[i] = buf[i*S : (i+1)*S : (i+1)*S]
		for s := range S {
			x := x.At(s, i)
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%w: policy evaluation produced a non-finite value", icrl.ErrNotFinite)
			}
			v[i][s] = x
		}
	}
	return v, nil
}

// Visitation returns the discounted state visitation distribution of the
// product of stationary policies pi from the initial distribution ρ,
//
//	d_ρ^π(s) = (1−γ) Σ_{t≥0} γ^t P_π(s^t = s | s⁰ ~ ρ),  i.e.  d_ρ^π = (1−γ)(I − γP_π)^{−T} ρ
//
// (App. C), by an LU solve with the transposed matrix. It is a
// probability distribution with d_ρ^π ≥ (1−γ)ρ entrywise. It returns an
// error naming the bad player and state if pi is invalid. The cost is
// O(S·J·(S+N) + S³).
func (g *DiscountedGeneralSum) Visitation(pi []Stationary) ([]float64, error) {
	if err := g.CheckPolicies(pi); err != nil {
		return nil, err
	}
	S, N := g.states, g.n
	pm := make([]float64, S*S)
	rm := make([]float64, S*N)
	g.mix(pi, pm, rm)
	lu := g.factor(pm)
	d := make([]float64, S)
	dv := mat.NewVecDense(S, d)
	if err := lu.SolveVecTo(dv, true, mat.NewVecDense(S, append([]float64(nil), g.rho...))); err != nil {
		return nil, fmt.Errorf("markov: visitation: %w", err)
	}
	for s := range d {
		d[s] *= 1 - g.gamma
	}
	return d, nil
}

// BestResponse returns the optimal values value[s] = max_{π'_i} V_i^{π'_i,
// π_{−i}}(s) of player i against the other players' stationary policies in
// pi, and a deterministic stationary optimal policy (one-hot in every
// state). Against fixed stationary opponents player i faces the Markov
// decision process with K = A_i actions,
//
//	r(s, a) = Σ_{a_{−i}} π_{−i}(a_{−i}|s) r_i(s, (a, a_{−i})),
//	P(s'|s, a) = Σ_{a_{−i}} π_{−i}(a_{−i}|s) P(s'|s, (a, a_{−i})),
//
// whose deterministic stationary optimal policy is optimal from every start
// state at once (Puterman 1994, Thm 6.2.10), so it also maximises
// V_i^ρ for every ρ. The MDP is solved exactly by Howard's policy iteration
// as in [Discounted.BestResponse] (an LU solve per improvement, ties
// within 1e-10 of the value scale max|r|/(1−γ) to the smallest action,
// value iteration as a fallback after 1000 improvements); value is the
// exact value of the returned policy. pi[i] is not used and may be nil.
//
// It returns an error if i is not a player or another player's policy is
// invalid (the error names it). The set-up costs O(S·J·S) and each
// improvement step O(S³ + S²·A_i).
func (g *DiscountedGeneralSum) BestResponse(pi []Stationary, player game.Player) (value []float64, policy Stationary, err error) {
	i := int(player)
	if i < 0 || i >= g.n {
		return nil, nil, fmt.Errorf("%w: player %d out of range [0, %d)", icrl.ErrInvalid, i, g.n)
	}
	if err := g.checkPolicies(pi, i); err != nil {
		return nil, nil, err
	}
	m := g.inducedMDP(pi, i)
	v, pol, err := m.solve()
	if err != nil {
		return nil, nil, err
	}
	policy = make(Stationary, g.states)
	buf := make([]float64, g.states*m.K)
	for s, a := range pol {
		policy[s] = buf[s*m.K : (s+1)*m.K : (s+1)*m.K]
		policy[s][a] = 1
	}
	return v, policy, nil
}

// inducedMDP returns player i's MDP against the other players' policies.
func (g *DiscountedGeneralSum) inducedMDP(pi []Stationary, i int) *brMDP {
	S, J, N := g.states, g.joint, g.n
	K := g.actions[i]
	m := &brMDP{S: S, K: K, gamma: g.gamma, r: make([]float64, S*K), p: make([]float64, S*K*S)}
	w := make([]float64, J)
	for s := range S {
		g.jointWeights(w, pi, s, i)
		for j, wj := range w {
			if wj == 0 {
				continue
			}
			k := s*K + int(g.act[j*N+i])
			jk := s*J + j
			m.r[k] += wj * g.r[jk*N+i]
			AddRow(m.p[k*S:(k+1)*S], g.kern, s, j, wj)
		}
	}
	return m
}

// NEGap returns the NE-gap of the product of stationary policies pi used
// in the Markov potential game proofs of multi-agent-meta-rl (App. D.1),
//
//	max_i (max_{π'_i} V_i^ρ(π'_i, π_{−i}) − V_i^ρ(π)),
//
// and each player's term (its best-response improvement from ρ). It is 0
// at a Nash equilibrium. Definition 1's Markov perfect ε-NE bounds the
// improvement from every start state instead; since the best response is
// optimal from every state, that improvement is at most the gap divided by
// min_s ρ(s). Terms below 0, which only round-off can produce, are reported as
// 0. The best responses are those of [DiscountedGeneralSum.BestResponse].
//
// It returns an error naming the bad player and state if pi is invalid.
// The cost is one evaluation plus N best responses, O(N·S·J·S) set-up and
// O(S³) per policy-iteration step.
func (g *DiscountedGeneralSum) NEGap(pi []Stationary) (gap float64, perPlayer []float64, err error) {
	v, err := g.Values(pi)
	if err != nil {
		return 0, nil, err
	}
	perPlayer = make([]float64, g.n)
	for i := range g.n {
		br, _, err := g.BestResponse(pi, game.Player(i))
		if err != nil {
			return 0, nil, err
		}
		var d float64
		for s, r := range g.rho {
			d += r * (br[s] - v[i][s])
		}
		perPlayer[i] = max(d, 0)
		gap = max(gap, perPlayer[i])
	}
	return gap, perPlayer, nil
}
