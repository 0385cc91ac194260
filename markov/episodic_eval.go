package markov

import (
	"fmt"
	"runtime"

	"github.com/icrl-go/icrl/internal/parallel"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/tensor"
)

// epiParallelWork is the number of floating-point operations per step of a
// backward recursion above which the states are split over goroutines.
const epiParallelWork = 1 << 16

// epiParallel calls f(worker, lo, hi) on contiguous blocks covering [0, n),
// on up to runtime.GOMAXPROCS(0) goroutines if work (the cost of the whole
// range) is at least epiParallelWork, else once on the calling goroutine.
// Each block is computed independently, so results do not depend on the
// split.
func epiParallel(n, workers, work int, f func(worker, lo, hi int)) {
	if workers > n {
		workers = n
	}
	if workers <= 1 || work < epiParallelWork {
		f(0, 0, n)
		return
	}
	parallel.Blocks(n, workers, f)
}

func epiWorkers() int { return max(1, runtime.GOMAXPROCS(0)) }

// newValueTable returns a zeroed [H+1][rows][S] table and its backing
// array, in which layer h is buf[h·rows·S : (h+1)·rows·S].
func newValueTable(layers, rows, states int) ([][][]float64, []float64) {
	buf := make([]float64, layers*rows*states)
	v := make([][][]float64, layers)
	for h := range v {
		v[h] = make([][]float64, rows)
		for i := range v[h] {
			k := (h*rows + i) * states
			v[h][i] = buf[k : k+states : k+states]
		}
	}
	return v, buf
}

// backup returns the expectations of the m value vectors v (length m·S,
// vector c at offset c·S) under the transitions of step h,
// e[c·S·J + s·J + j] = Σ_{s'} P_h(s'|s, j) v[c·S+s'], in buf (reallocated if
// too short).
func (g *Episodic) backup(h int, v []float64, m int, buf []float64) []float64 {
	n := g.states * g.joint * m
	if cap(buf) < n {
		buf = make([]float64, n)
	}
	buf = buf[:n]
	g.kernel(h).Expect(buf, v, m)
	return buf
}

// onPolicy computes, for the distribution w over joint actions at (h, s),
// out[i] = Σ_j w_j (r_{h,i}(s, j) + e[i·S·J + s·J + j]) for every player,
// where e is the backup of the next values (player i in column i).
func (g *Episodic) onPolicy(h, s int, w, e, out []float64) {
	clear(out)
	rk := g.rIndex(h, s, 0)
	N := g.n
	SJ := g.states * g.joint
	eb := e[s*g.joint:]
	for j, wj := range w {
		if wj == 0 {
			continue
		}
		r := g.r[rk+j*N : rk+(j+1)*N]
		for i, v := range r {
			out[i] += wj * (v + eb[i*SJ+j])
		}
	}
}

// deviation computes, for player i at (h, s) against the others' weights ow
// (indexed in mixed radix over the other players, as jointWeights returns),
// q[a] = Σ_o ow_o (r_{h,i}(s, (a, o)) + e[c·S·J + s·J + j]) for every action a
// of player i, where j = (a, o) and column c of the backup e holds the
// expected next values. It returns the first maximiser of q.
func (g *Episodic) deviation(h, s, i int, ow, e []float64, c int, q []float64) int {
	ai, st := g.actions[i], g.stride[i]
	block := ai * st
	clear(q[:ai])
	rk := g.rIndex(h, s, 0) + i
	N := g.n
	eb := e[c*g.states*g.joint+s*g.joint:]
	for o, wo := range ow {
		if wo == 0 {
			continue
		}
		j := (o/st)*block + o%st
		for a := range ai {
			q[a] += wo * (g.r[rk+j*N] + eb[j])
			j += st
		}
	}
	best := 0
	for a := 1; a < ai; a++ {
		if q[a] > q[best] {
			best = a
		}
	}
	return best
}

// maxOthers returns max_i J/A_i, the largest number of joint actions of
// the players other than one, and max_i A_i.
func (g *Episodic) maxOthers() (others, acts int) {
	for _, a := range g.actions {
		others = max(others, g.joint/a)
		acts = max(acts, a)
	}
	return others, acts
}

// Values returns the value functions of the product Markov policy pi as
// an (H+1) × N × S array, V.At(h, i, s) = V^π_{h+1,i}(s) in the paper's 1-based steps (§2),
// computed by the backward recursion
//
//	V[h][i][s] = Σ_j π_h(j|s) (r_{h,i}(s, j) + Σ_{s'} P_h(s'|s, j) V[h+1][i][s']),
//
// with π_h(j|s) = Π_k π_{h,k}(a_k|s) and V[H] ≡ 0 (H+1 layers). Joint
// actions of probability 0 are skipped. It returns an error naming the bad
// player, step or state if pi is not a valid product policy. The cost is
// H backups of N value vectors through the kernel ([Kernel.Expect]:
// O(S·J·S·N) each for a dense table) plus O(H·S·J·N), on
// runtime.GOMAXPROCS(0) goroutines (states are split deterministically),
// and O(H·N·S + S·J·N) memory.
func (g *Episodic) Values(pi Product) (*tensor.Dense[float64], error) {
	_, buf, err := g.values(pi)
	if err != nil {
		return nil, err
	}
	return tensor.FromData(buf, g.horizon+1, g.n, g.states)
}

// values is Values as nested views V[h][i][s] of the flat table buf.
func (g *Episodic) values(pi Product) ([][][]float64, []float64, error) {
	if err := g.CheckProduct(pi); err != nil {
		return nil, nil, err
	}
	V, vbuf := newValueTable(g.horizon+1, g.n, g.states)
	workers := epiWorkers()
	type scratch struct{ w, out []float64 }
	sc := make([]scratch, workers)
	for k := range sc {
		sc[k] = scratch{make([]float64, g.joint), make([]float64, g.n)}
	}
	var e []float64
	N, S := g.n, g.states
	for h := g.horizon - 1; h >= 0; h-- {
		e = g.backup(h, vbuf[(h+1)*N*S:(h+2)*N*S], N, e)
		cur := V[h]
		epiParallel(S, workers, S*g.joint*N, func(k, lo, hi int) {
			t := sc[k]
			for s := lo; s < hi; s++ {
				w := g.jointWeights(t.w, pi, h, s, -1)
				g.onPolicy(h, s, w, e, t.out)
				for i, v := range t.out {
					cur[i][s] = v
				}
			}
		})
	}
	return V, vbuf, nil
}

// BestResponse returns a deterministic Markov best response of player i to
// the other players' Markov policies in pi, and its value
// max_{π_i} V^{π_i, π_{−i}}_{1,i}(s_1) at the start state. Against Markov
// opponents a Markov deterministic policy is optimal among all (history-
// dependent) policies, and backward induction finds it:
//
//	Q_h(s, a) = Σ_{a_{−i}} π_{h,−i}(a_{−i}|s) (r_{h,i}(s, (a, a_{−i})) + Σ_{s'} P_h(s'|s, (a, a_{−i})) V_{h+1}(s')),
//	V_h(s) = max_a Q_h(s, a),  V_H ≡ 0,
//
// where the opponents' product probability π_{h,−i}(a_{−i}|s) is computed
// once per (h, s) and opponent profiles of probability 0 are skipped. The
// policy plays the first maximising action (lowest index) with probability
// 1. pi[i] is not used and may be nil.
//
// It returns an error if i is not a player or another player's policy is
// invalid (the error names it). The cost is H backups of one value vector
// through the kernel (O(S·J·S) each for a dense table) plus O(H·S·J), on
// runtime.GOMAXPROCS(0) goroutines (states are split deterministically;
// the inner loop does not allocate), and O(H·S·A_i + S·J) memory.
func (g *Episodic) BestResponse(pi Product, player game.Player) (*Policy, float64, error) {
	i := int(player)
	if uint(i) >= uint(g.n) {
		return nil, 0, fmt.Errorf("%w: best response of player %d, out of range [0, %d)", icrl.ErrInvalid, i, g.n)
	}
	if len(pi) != g.n {
		return nil, 0, fmt.Errorf("%w: product policy has %d players, want %d", icrl.ErrShape, len(pi), g.n)
	}
	for k, p := range pi {
		if k == i {
			continue
		}
		if err := g.CheckPolicy(k, p); err != nil {
			return nil, 0, err
		}
	}
	br := newPolicy(g.horizon, g.states, g.actions[i], 0)
	next, cur := make([]float64, g.states), make([]float64, g.states)
	workers := epiWorkers()
	others := g.joint / g.actions[i]
	type scratch struct{ w, q []float64 }
	sc := make([]scratch, workers)
	for k := range sc {
		sc[k] = scratch{make([]float64, others), make([]float64, g.actions[i])}
	}
	var e []float64
	for h := g.horizon - 1; h >= 0; h-- {
		e = g.backup(h, next, 1, e)
		epiParallel(g.states, workers, g.states*g.joint, func(k, lo, hi int) {
			t := sc[k]
			for s := lo; s < hi; s++ {
				ow := g.jointWeights(t.w, pi, h, s, i)
				a := g.deviation(h, s, i, ow, e, 0, t.q)
				br.Row(h, s)[a] = 1
				cur[s] = t.q[a]
			}
		})
		next, cur = cur, next
	}
	return br, next[g.start], nil
}

// NEGap returns the NE-gap of the product Markov policy pi,
//
//	max_i (V^{†, π_{−i}}_{1,i}(s_1) − V^π_{1,i}(s_1)),
//
// and each player's term (its best-response improvement). For a product
// policy this is also its CCE-gap (§5); it is 0 exactly at a Nash
// equilibrium. Terms below 0, which only round-off can produce, are
// reported as 0. It returns an error naming the bad player, step or state
// if pi is invalid. The cost is an evaluation and N best responses.
func (g *Episodic) NEGap(pi Product) (gap float64, perPlayer []float64, err error) {
	V, _, err := g.values(pi)
	if err != nil {
		return 0, nil, err
	}
	perPlayer = make([]float64, g.n)
	for i := range perPlayer {
		_, br, err := g.BestResponse(pi, game.Player(i))
		if err != nil {
			return 0, nil, err
		}
		perPlayer[i] = max(0, br-V[0][i][g.start])
		gap = max(gap, perPlayer[i])
	}
	return gap, perPlayer, nil
}

// ZeroSumNEGap returns the NE-gap of the policies mu (player 0, the
// max-player) and nu (player 1, the min-player) of a zero-sum game,
//
//	NE-gap(μ, ν) = V^{†,ν}_1(s_1) − V^{μ,†}_1(s_1) ≥ 0
//
// (the NE-gap of §3, the metric of App. F.1), where V is player 0's value. A
// negative result, which only round-off can produce, is reported as 0. It
// returns an error if the game is not zero-sum ([Episodic.ZeroSum]) or a
// policy is invalid. The cost is two best responses, O(H·S·J·S).
func (g *Episodic) ZeroSumNEGap(mu, nu *Policy) (float64, error) {
	if !g.zeroSum {
		return 0, fmt.Errorf("%w: ZeroSumNEGap of a game that is not two-player zero-sum", icrl.ErrInvalid)
	}
	if err := g.CheckPolicy(0, mu); err != nil {
		return 0, err
	}
	_, up, err := g.BestResponse(Product{nil, nu}, 0)
	if err != nil {
		return 0, err
	}
	_, down, err := g.BestResponse(Product{mu, nil}, 1) // = c·H − V^{μ,†}
	if err != nil {
		return 0, err
	}
	if g.sum != 0 {
		down -= g.sum * float64(g.horizon)
	}
	return max(0, up+down), nil
}

// CoopNEGap returns the NE-gap metric of App. F.2 for the policies mu
// (player 0) and nu (player 1) of a two-player cooperative game (a Markov
// team, [Episodic.Cooperative]):
//
//	½ (V^{†,ν}_1(s_1) + V^{μ,†}_1(s_1)) − V^{μ,ν}_1(s_1) ≥ 0,
//
// where V is the shared value and both best responses maximise it (the
// cooperative setting of App. F.2). A negative result (round-off) is reported as 0. It returns an
// error if the game is not a two-player team or a policy is invalid. The
// cost is three evaluations, O(H·S·J·S).
func (g *Episodic) CoopNEGap(mu, nu *Policy) (float64, error) {
	if g.n != 2 || !g.coop {
		return 0, fmt.Errorf("%w: CoopNEGap of a game that is not a two-player team (%d players, cooperative %v)", icrl.ErrInvalid, g.n, g.coop)
	}
	pi := Product{mu, nu}
	V, _, err := g.values(pi)
	if err != nil {
		return 0, err
	}
	_, b0, err := g.BestResponse(pi, 0)
	if err != nil {
		return 0, err
	}
	_, b1, err := g.BestResponse(pi, 1)
	if err != nil {
		return 0, err
	}
	return max(0, (b0+b1)/2-V[0][0][g.start]), nil
}

// SolveZeroSum computes a Nash equilibrium of a two-player zero-sum game by
// backward induction with an exact stage LP: for h = H−1, …, 0
// and every state s, the stage game
//
//	Q[h][s](a, b) = r_h(s, a, b) + Σ_{s'} P_h(s'|s, a, b) V[h+1][s'],  V[H] ≡ 0,
//
// is solved by game.Solve, which gives V[h][s] = val(Q[h][s]) and the
// stage equilibrium (mu.Row(h, s), nu.Row(h, s)). V has H+1 layers, V[h] being the
// paper's V*_{h+1} for player 0 (the max-player); Q[h][s] is the paper's
// Q*_{h+1}(s, ·, ·). The Markov policies (mu, nu) form a Nash equilibrium
// (ZeroSumNEGap of order 1e-12 times the reward range times H), and V[0][s]
// is the game's value from s.
//
// It returns an error if the game is not zero-sum or a stage LP fails (the
// error names the step and state). The cost is H·S linear programs on A×B
// games plus O(H·S·A·B·S), the states of a step on runtime.GOMAXPROCS(0)
// goroutines (deterministically).
func (g *Episodic) SolveZeroSum() (V [][]float64, Q [][]*game.ZeroSum, mu, nu *Policy, err error) {
	if !g.zeroSum {
		return nil, nil, nil, nil, fmt.Errorf("%w: SolveZeroSum of a game that is not two-player zero-sum", icrl.ErrInvalid)
	}
	A, B := g.actions[0], g.actions[1]
	V = make([][]float64, g.horizon+1)
	for h := range V {
		V[h] = make([]float64, g.states)
	}
	Q = make([][]*game.ZeroSum, g.horizon)
	mu = newPolicy(g.horizon, g.states, A, 0)
	nu = newPolicy(g.horizon, g.states, B, 0)
	workers := epiWorkers()
	qs := make([][]float64, workers)
	for k := range qs {
		qs[k] = make([]float64, g.joint)
	}
	errs := make([]error, g.states)
	var e []float64
	for h := g.horizon - 1; h >= 0; h-- {
		Q[h] = make([]*game.ZeroSum, g.states)
		e = g.backup(h, V[h+1], 1, e)
		// An A×B LP costs roughly 50·A·B·(A+B) operations.
		work := g.states * g.joint * 50 * (A + B)
		epiParallel(g.states, workers, work, func(k, lo, hi int) {
			q := qs[k]
			for s := lo; s < hi; s++ {
				rk := g.rIndex(h, s, 0)
				for j := range q {
					q[j] = g.r[rk+2*j] + e[s*g.joint+j]
				}
				z, err := game.NewZeroSumDense(A, B, q)
				if err != nil {
					errs[s] = err
					continue
				}
				sol, err := game.Solve(z)
				if err != nil {
					errs[s] = err
					continue
				}
				Q[h][s] = z
				copy(mu.Row(h, s), sol.X)
				copy(nu.Row(h, s), sol.Y)
				V[h][s] = sol.Value
			}
		})
		for s, err := range errs {
			if err != nil {
				return nil, nil, nil, nil, fmt.Errorf("markov: stage game at step %d, state %d: %w", h, s, err)
			}
		}
	}
	return V, Q, mu, nu, nil
}

// CCEGap returns the exact best-response gap of the Markov correlated
// policy pi (a CCE-gap, §5) and each player's term: with the
// on-policy values
//
//	V_{h,i}(s) = Σ_j ρ_h(j|s) (r_{h,i}(s, j) + Σ_{s'} P_h(s'|s, j) V_{h+1,i}(s'))
//
// and the deviation values, in which player i replaces its own action but
// the others keep following the correlated recommendation,
//
//	W_{h,i}(s) = max_{a_i} Σ_j ρ_h(j|s) (r_{h,i}(s, (a_i, j_{−i})) + Σ_{s'} P_h(s'|s, (a_i, j_{−i})) W_{h+1,i}(s')),
//
// both ≡ 0 at step H, the gap is max_i (W_{0,i}(s_1) − V_{0,i}(s_1)) (the
// certified gap of Algorithm 3, App. E, for one mixture component). Because the policy is Markov, W is the
// best value a deviating player can get. For a product policy written as a
// correlated policy ([Episodic.Correlate]) it equals [Episodic.NEGap] up to
// round-off.
//
// The terms are reported with their sign, unlike NEGap's. A genuinely
// correlated policy can give a player more than any deviation that ignores
// the recommendation (in Chicken, the "traffic light" that plays (0,1) or
// (1,0) with probability ½ each has terms −0.1): a negative gap means the
// policy is an ε-CCE for every ε ≥ gap, in particular a CCE. For product
// policies the terms are ≥ 0 up to round-off (of order 1e-16 times the
// values). It returns an error naming
// the step and state if pi is not a valid correlated policy. The cost is
// H backups of 2N value vectors through the kernel (O(S·J·S·N) each for a
// dense table) plus O(H·S·J·N), on runtime.GOMAXPROCS(0) goroutines, and
// O(S·J·N) memory.
func (g *Episodic) CCEGap(pi *Correlated) (gap float64, perPlayer []float64, err error) {
	if err := g.CheckCorrelated(pi); err != nil {
		return 0, nil, err
	}
	perPlayer = g.cceTerms(pi)
	gap = perPlayer[0]
	for _, d := range perPlayer[1:] {
		gap = max(gap, d)
	}
	return gap, perPlayer, nil
}

// CertifiedCCEGap returns the certified CCE-gap of the mixture of Markov
// correlated policies components with mixture weights weights (the output
// policy of Algorithm 3, App. E, has one component per stage σ_0):
//
//	max_i Σ_σ w_σ (W^σ_{0,i}(s_1) − V^σ_{0,i}(s_1)),
//
// with V^σ and W^σ the on-policy and deviation values of component σ as in
// [Episodic.CCEGap], and each player's term. It upper-bounds the true
// CCE-gap of the mixture, because the deviator is allowed to know the
// component σ; with one component it equals [Episodic.CCEGap]. As there,
// the terms are signed (a term is an average of the components' signed
// terms, so a component with slack offsets another's violation, exactly as
// in the paper's bound). Components of weight 0 are validated but not
// evaluated.
//
// It returns an error if there is no component, len(weights) differs from
// len(components), the weights are not a probability distribution
// (simplex.CheckDistribution) or a component is invalid (the error names it).
// The cost is that of CCEGap per component of positive weight.
func (g *Episodic) CertifiedCCEGap(components []*Correlated, weights []float64) (gap float64, perPlayer []float64, err error) {
	if len(components) == 0 {
		return 0, nil, fmt.Errorf("%w: certified CCE-gap of no component", icrl.ErrInvalid)
	}
	if len(weights) != len(components) {
		return 0, nil, fmt.Errorf("%w: %d mixture weights for %d components", icrl.ErrShape, len(weights), len(components))
	}
	if err := simplex.CheckDistribution("mixture weights", weights, len(components)); err != nil {
		return 0, nil, fmt.Errorf("markov: %w", err)
	}
	for c, pi := range components {
		if err := checkTable(fmt.Sprintf("correlated component %d", c), pi, g.horizon, g.states, g.joint); err != nil {
			return 0, nil, err
		}
	}
	perPlayer = make([]float64, g.n)
	for c, pi := range components {
		if weights[c] == 0 {
			continue
		}
		for i, d := range g.cceTerms(pi) {
			perPlayer[i] += weights[c] * d
		}
	}
	gap = perPlayer[0]
	for _, d := range perPlayer[1:] {
		gap = max(gap, d)
	}
	return gap, perPlayer, nil
}

// cceTerms returns W_{0,i}(s_1) − V_{0,i}(s_1) for every player i of a
// valid correlated policy.
func (g *Episodic) cceTerms(pi *Correlated) []float64 {
	S, N := g.states, g.n
	// Each table holds the N on-policy values V_i (rows 0..N−1) and the N
	// deviation values W_i (rows N..2N−1) in one backing array, so one
	// backup serves both.
	nt, nbuf := newValueTable(1, 2*N, S)
	ct, cbuf := newValueTable(1, 2*N, S)
	next, cur := nt[0], ct[0]
	workers := epiWorkers()
	others, acts := g.maxOthers()
	type scratch struct{ out, ow, q []float64 }
	sc := make([]scratch, workers)
	for k := range sc {
		sc[k] = scratch{make([]float64, N), make([]float64, others), make([]float64, acts)}
	}
	var e []float64
	for h := g.horizon - 1; h >= 0; h-- {
		e = g.backup(h, nbuf, 2*N, e)
		epiParallel(S, workers, S*g.joint*(N+1), func(k, lo, hi int) {
			t := sc[k]
			for s := lo; s < hi; s++ {
				rho := pi.Row(h, s)
				g.onPolicy(h, s, rho, e, t.out)
				for i, v := range t.out {
					cur[i][s] = v
				}
				for i := range N {
					st, block := g.stride[i], g.stride[i]*g.actions[i]
					ow := t.ow[:g.joint/g.actions[i]]
					clear(ow)
					for j, p := range rho {
						if p != 0 {
							ow[(j/block)*st+j%st] += p
						}
					}
					a := g.deviation(h, s, i, ow, e, N+i, t.q)
					cur[N+i][s] = t.q[a]
				}
			}
		})
		next, cur = cur, next
		nbuf, cbuf = cbuf, nbuf
	}
	d := make([]float64, N)
	for i := range d {
		d[i] = next[N+i][g.start] - next[i][g.start]
	}
	return d
}
