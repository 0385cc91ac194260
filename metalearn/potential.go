package metalearn

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/icrl-go/icrl/internal/parallel"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
)

// This file implements the Markov potential game half of
// multi-agent-meta-rl (paper §4, App. C–D; spec §2.3–2.4): independent
// projected Q-ascent (7) in its finite-horizon and discounted forms, the
// softmax policy gradient (45) and Hessian (Lemma 15) of the potential of
// a Markov team, exact Hessian-vector products, MAML (46)–(47), the
// constants of Lemmas 12–14 and Prop. 1, and the task-similarity Δ_Φ (8).

// ---------------------------------------------------------------------------
// Projected Q-ascent (7)

// QAscentConfig configures independent projected Q-ascent ([QAscent],
// [QAscentDiscounted]).
type QAscentConfig struct {
	// Alpha is the step size α > 0. Prop. 1 needs
	// α ≤ (1−γ)⁴/(8κ³N·A_max) ([QAscentMaxAlpha]) in the discounted
	// form; the paper's finite-horizon simulation (App. F.2) uses 0.05.
	Alpha float64
	// T is the number of iterations, T ≥ 0.
	T int
	// Checkpoints lists iterations t (0 ≤ t ≤ T, strictly increasing) at
	// which the run records the gap and the values of the iterate π^t;
	// t = 0 is the initial policy.
	Checkpoints []int
	// Kappa, when positive, asks for the guaranteed regime of Prop. 1:
	// Kappa is (an upper bound on) the distribution mismatch coefficient
	// κ = sup_θ ‖d_ρ^θ/ρ‖_∞ ≥ 1 (spec §1.4; 1/min_s ρ(s) is always an
	// upper bound), and [QAscentDiscounted] returns an error naming α if
	// Alpha exceeds QAscentMaxAlpha(Kappa, N, A_max, γ). Zero means no
	// check. The finite-horizon [QAscent] has no such guarantee and
	// rejects a non-zero Kappa.
	Kappa float64
}

// QAscentCheckpoint is the state of a run of finite-horizon projected
// Q-ascent after iteration T.
type QAscentCheckpoint struct {
	T int
	// Gap is the NE-gap max_i (V^{†,π_{−i}}_{1,i}(s_1) − V^π_{1,i}(s_1))
	// of the iterate (markov.Episodic.NEGap).
	Gap float64
	// CoopGap is the App. F.2 metric ½(V^{†,ν}_1(s_1) + V^{μ,†}_1(s_1)) −
	// V^{μ,ν}_1(s_1) (markov.Episodic.CoopNEGap, spec §1.5) when the game
	// is a two-player team, and NaN otherwise.
	CoopGap float64
	// Values[i] is V^π_{1,i}(s_1), player i's value from the start state.
	Values []float64
}

// QAscentResult is the outcome of [QAscent].
type QAscentResult struct {
	// Last is the last iterate π^T.
	Last markov.Product
	// Checkpoints holds the records requested by QAscentConfig.Checkpoints.
	Checkpoints []QAscentCheckpoint
}

// checkQAscentConfig validates the step size, T and checkpoints.
func checkQAscentConfig(cfg QAscentConfig) error {
	if !(cfg.Alpha > 0) || math.IsInf(cfg.Alpha, 0) {
		return fmt.Errorf("metalearn: step size α = %v must be positive and finite", cfg.Alpha)
	}
	if cfg.T < 0 {
		return fmt.Errorf("metalearn: number of iterations T = %d must be ≥ 0", cfg.T)
	}
	for k, t := range cfg.Checkpoints {
		if t < 0 || t > cfg.T {
			return fmt.Errorf("metalearn: checkpoint %d (t = %d) outside [0, T = %d]", k, t, cfg.T)
		}
		if k > 0 && t <= cfg.Checkpoints[k-1] {
			return fmt.Errorf("metalearn: checkpoints not strictly increasing: t = %d after %d", t, cfg.Checkpoints[k-1])
		}
	}
	return nil
}

// QAscent runs independent projected Q-ascent on the finite-horizon
// N-player game g from the product policy init: the finite-horizon form
// of (7) used by the paper's simulation (App. F.2; spec §2.3, inferred
// there since the paper writes only the discounted form),
//
//	π^t_{h,i}(·|s) ← Proj_Δ(π^{t−1}_{h,i}(·|s) + α Q̄^{π^{t−1}}_{h,i}(s, ·)),
//	Q̄^π_{h,i}(s, a_i) = Σ_{a_{−i}} π_{h,−i}(a_{−i}|s) Q^π_{h,i}(s, (a_i, a_{−i})),
//
// for every step h, state s and player i simultaneously, with the exact
// Q-functions of π^{t−1} (no visitation weighting) and the Euclidean
// projection onto the simplex (game.ProjectSimplex). For a Markov team
// this is the policy iteration of Ding et al. [15] on the potential; the
// paper's step size is α = 0.05 with H = 10 and T = 1000.
//
// Each iteration is one backward pass: at step h, with V_{h+1} of
// π^{t−1} known, it computes Q_{h,i}(s, ·) for all joint actions, then in
// one sweep V_{h,i}(s) (with the old π_h) and Q̄_{h,i}(s, ·) (by prefix and
// suffix products of the other players' probabilities), and only then
// overwrites π_h(·|s). The cost is O(H·S·J·(S+N)) per iteration with no
// allocation in the serial case; games with S·J·(S+N) ≥ 2^16 split the
// states of each step over runtime.GOMAXPROCS(0) goroutines (the result
// does not depend on the split). Checkpoints add an evaluation and N best responses each
// (markov.Episodic.NEGap). Models of up to 2^22 entries are copied into
// local arrays once per call. The F.2 run (2 players, 2 states, 2 actions,
// H = 10, T = 1000) takes about 3.5 ms on one core
// (BenchmarkQAscentF2).
//
// It returns an error if g is nil, init is not a valid product policy (the
// error names the player, step and state), the configuration is invalid
// (α not positive and finite, T < 0, checkpoints out of range or not
// increasing, Kappa non-zero) or a projection input is not finite.
func QAscent(g *markov.Episodic, init markov.Product, cfg QAscentConfig) (*QAscentResult, error) {
	if g == nil {
		return nil, errors.New("metalearn: QAscent: nil game")
	}
	if err := checkQAscentConfig(cfg); err != nil {
		return nil, err
	}
	if cfg.Kappa != 0 {
		return nil, fmt.Errorf("metalearn: QAscent: Kappa = %v: the finite-horizon form has no step-size guarantee (use QAscentDiscounted)", cfg.Kappa)
	}
	if err := g.CheckProduct(init); err != nil {
		return nil, err
	}
	N, H, S, J := g.Players(), g.Horizon(), g.States(), g.NumJoint()
	A := make([]int, N)
	amax := 0
	for i := range N {
		A[i] = g.Actions(i)
		amax = max(amax, A[i])
	}
	act := potActTable(J, N, g.Split)
	// Working policies, each player's in one backing array.
	pol := make(markov.Product, N)
	flat := make([][]float64, N)
	for i := range N {
		flat[i] = make([]float64, H*S*A[i])
		pol[i] = make(markov.Policy, H)
		for h := range H {
			pol[i][h] = make([][]float64, S)
			for s := range S {
				k := (h*S + s) * A[i]
				pol[i][h][s] = flat[i][k : k+A[i] : k+A[i]]
				copy(pol[i][h][s], init[i][h][s])
			}
		}
	}
	// Local copies of the model when it is small (the common case); large
	// games are read through the game's accessors instead.
	var rFlat, pFlat []float64
	pLayers := H
	if g.TimeHomogeneous() {
		pLayers = 1
	}
	if H*S*J*(N+S) <= potCopyLimit {
		rFlat = make([]float64, 0, H*S*J*N)
		pFlat = make([]float64, 0, pLayers*S*J*S)
		for h := range H {
			for s := range S {
				for j := range J {
					for i := range N {
						rFlat = append(rFlat, g.Reward(h, s, j, i))
					}
					if h < pLayers {
						pFlat = append(pFlat, g.Transition(h, s, j)...)
					}
				}
			}
		}
	}
	vNext := make([]float64, N*S)
	vCur := make([]float64, N*S)
	qoff := make([]int, N+1)
	for i := range N {
		qoff[i+1] = qoff[i] + A[i]
	}
	// Large games split the states of each step over the cores, in
	// contiguous chunks with their own scratch; every state writes only
	// its own entries, so the result does not depend on the split.
	workers := 1
	if S*J*(S+N) >= potParallelWork {
		workers = min(runtime.GOMAXPROCS(0), S)
	}
	scratch := make([]qaScratch, workers)
	for w := range scratch {
		scratch[w] = qaScratch{
			q: make([]float64, J*N), qbar: make([]float64, qoff[N]), y: make([]float64, amax),
			p: make([]float64, N), suf: make([]float64, N+1), base: make([]int, N),
		}
	}
	errs := make([]error, workers)

	res := &QAscentResult{Last: pol}
	ck := 0
	record := func(t int) error {
		for ck < len(cfg.Checkpoints) && cfg.Checkpoints[ck] == t {
			c, err := qAscentCheckpoint(g, pol, t)
			if err != nil {
				return err
			}
			res.Checkpoints = append(res.Checkpoints, c)
			ck++
		}
		return nil
	}
	if err := record(0); err != nil {
		return nil, err
	}
	alpha := cfg.Alpha
	// The iteration t, step h and transition layer hp of the current pass,
	// read by state (one closure for the whole run: no allocation per step).
	var t, h, hp int
	// state updates π_h(·|s) and V_h(s) of every player.
	state := func(s int, sc *qaScratch) error {
		q, qbar, y, p, suf, base := sc.q, sc.qbar, sc.y, sc.p, sc.suf, sc.base
		// Q_{h,i}(s, j) of π^{t−1}.
		if rFlat != nil {
			rs := rFlat[(h*S+s)*J*N : (h*S+s+1)*J*N]
			ps := pFlat[(hp*S+s)*J*S : (hp*S+s+1)*J*S]
			for j := range J {
				row := ps[j*S : (j+1)*S]
				for i := range N {
					q[j*N+i] = rs[j*N+i] + potDot(row, vNext[i*S:(i+1)*S])
				}
			}
		} else {
			for j := range J {
				row := g.Transition(h, s, j)
				for i := range N {
					q[j*N+i] = g.Reward(h, s, j, i) + potDot(row, vNext[i*S:(i+1)*S])
				}
			}
		}
		// V_{h,i}(s) and Q̄_{h,i}(s, ·) under the old π_h(·|s).
		clear(qbar)
		for i := range N {
			vCur[i*S+s] = 0
			base[i] = (h*S + s) * A[i]
		}
		for j := range J {
			a := act[j*N : (j+1)*N]
			suf[N] = 1
			for k := N - 1; k >= 0; k-- {
				p[k] = flat[k][base[k]+a[k]]
				suf[k] = suf[k+1] * p[k]
			}
			pre := 1.0
			for i := range N {
				qi := q[j*N+i]
				qbar[qoff[i]+a[i]] += pre * suf[i+1] * qi
				vCur[i*S+s] += suf[0] * qi
				pre *= p[i]
			}
		}
		// The projected ascent step (7).
		for i := range N {
			cur := flat[i][base[i] : base[i]+A[i]]
			qi := qbar[qoff[i]:qoff[i+1]]
			yi := y[:A[i]]
			for a, x := range cur {
				yi[a] = x + alpha*qi[a]
			}
			if err := potProject(cur, yi); err != nil {
				return fmt.Errorf("metalearn: QAscent: iteration %d, step %d, state %d, player %d: %w", t, h, s, i, err)
			}
		}
		return nil
	}
	for t = 1; t <= cfg.T; t++ {
		clear(vNext)
		for h = H - 1; h >= 0; h-- {
			hp = h
			if pLayers == 1 {
				hp = 0
			}
			parallel.Blocks(S, workers, func(w, lo, hi int) {
				errs[w] = nil
				for s := lo; s < hi; s++ {
					if errs[w] = state(s, &scratch[w]); errs[w] != nil {
						return
					}
				}
			})
			for _, err := range errs { // the lowest failing state's error
				if err != nil {
					return nil, err
				}
			}
			vNext, vCur = vCur, vNext
		}
		if err := record(t); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// qaScratch is one worker's scratch space in [QAscent].
type qaScratch struct {
	q, qbar, y, p, suf []float64
	base               []int
}

// potParallelWork is the work per step, S·J·(S+N) multiply-adds, from
// which QAscent splits the states over the cores.
const potParallelWork = 1 << 16

// potCopyLimit is the number of model entries (rewards plus transitions)
// up to which QAscent copies the model into local arrays.
const potCopyLimit = 1 << 22

// potDot returns Σ_k a_k b_k: a plain loop for short vectors, gonum's
// assembly kernel for long ones.
func potDot(a, b []float64) float64 {
	if len(a) >= 16 {
		return floats.Dot(a, b)
	}
	b = b[:len(a)]
	var d float64
	for k, x := range a {
		d += x * b[k]
	}
	return d
}

// potProject stores in dst the Euclidean projection of y onto the simplex:
// the closed form for two actions, game.ProjectSimplex otherwise. It returns
// an error if y is not finite.
func potProject(dst, y []float64) error {
	if len(y) == 2 {
		d := y[0] - y[1]
		switch {
		case math.IsNaN(d) || math.IsInf(d, 0):
			return game.ProjectSimplex(dst, y)
		case d >= 1:
			dst[0], dst[1] = 1, 0
		case d <= -1:
			dst[0], dst[1] = 0, 1
		default:
			dst[0], dst[1] = (1+d)/2, (1-d)/2
		}
		return nil
	}
	return game.ProjectSimplex(dst, y)
}

// potActTable returns act[j*n+i] = a_i of joint action j.
func potActTable(J, N int, split func(int, []int) []int) []int {
	act := make([]int, J*N)
	for j := range J {
		split(j, act[j*N:(j+1)*N])
	}
	return act
}

// qAscentCheckpoint evaluates the iterate pi of a finite-horizon run.
func qAscentCheckpoint(g *markov.Episodic, pi markov.Product, t int) (QAscentCheckpoint, error) {
	gap, _, err := g.NEGap(pi)
	if err != nil {
		return QAscentCheckpoint{}, err
	}
	v, err := g.Values(pi)
	if err != nil {
		return QAscentCheckpoint{}, err
	}
	c := QAscentCheckpoint{T: t, Gap: gap, CoopGap: math.NaN(), Values: make([]float64, g.Players())}
	for i := range c.Values {
		c.Values[i] = v[0][i][g.Start()]
	}
	if g.Players() == 2 && g.Cooperative() {
		if c.CoopGap, err = g.CoopNEGap(pi[0], pi[1]); err != nil {
			return QAscentCheckpoint{}, err
		}
	}
	return c, nil
}

// QAscentDiscountedCheckpoint is the state of a run of discounted
// projected Q-ascent after iteration T.
type QAscentDiscountedCheckpoint struct {
	T int
	// Gap is the NE-gap of App. D.1, max_i (max_{π'_i} V_i^ρ(π'_i, π_{−i})
	// − V_i^ρ(π)) (markov.DiscountedGeneralSum.NEGap).
	Gap float64
	// Potential is Φ(π) = V^ρ(π), the common value, when the game is a
	// Markov team, and NaN otherwise (spec E12).
	Potential float64
	// Values[i] is V_i^ρ(π).
	Values []float64
}

// QAscentDiscountedResult is the outcome of [QAscentDiscounted].
type QAscentDiscountedResult struct {
	// Last is the last iterate π^T, one stationary policy per player.
	Last []markov.Stationary
	// Checkpoints holds the records requested by QAscentConfig.Checkpoints.
	Checkpoints []QAscentDiscountedCheckpoint
}

// QAscentDiscounted runs independent projected Q-ascent (7) of
// multi-agent-meta-rl §4.1 (Ding et al. [15]; spec §2.3) on the discounted
// game g from the stationary policies init:
//
//	π_i^t(·|s) ← Proj_Δ(π_i^{t−1}(·|s) + α Q̄_i^{π^{t−1}}(s, ·)),   for all s, i,
//
// where Q̄_i^π(s, a_i) = Σ_{a_{−i}} π_{−i}(a_{−i}|s) Q_i^π(s, (a_i, a_{−i}))
// is computed exactly: V_i^π = (I − γP_π)^{−1} r_{i,π} by one LU
// factorisation per iteration shared by all players, then
// Q_i = r_i + γPV_i. There is no d_ρ weighting. Prop. 1 bounds the average
// NE-gap of a Markov potential game when α ≤ (1−γ)⁴/(8κ³N·A_max); set
// cfg.Kappa to have that checked.
//
// The cost per iteration is O(S·J·(S·N + N) + S³ + N·S²) time; the
// buffers are reused across iterations. Checkpoints add an evaluation and
// N best responses (markov.DiscountedGeneralSum.NEGap).
//
// It returns an error if g is nil, init is not a valid product of
// stationary policies (the error names the player and state), the
// configuration is invalid (see [QAscentConfig]), α exceeds the Prop. 1
// bound for a positive cfg.Kappa, or a value is not finite.
func QAscentDiscounted(g *markov.DiscountedGeneralSum, init []markov.Stationary, cfg QAscentConfig) (*QAscentDiscountedResult, error) {
	if g == nil {
		return nil, errors.New("metalearn: QAscentDiscounted: nil game")
	}
	if err := checkQAscentConfig(cfg); err != nil {
		return nil, err
	}
	if err := g.CheckPolicies(init); err != nil {
		return nil, err
	}
	N, S, J := g.Players(), g.States(), g.NumJoint()
	A := make([]int, N)
	amax := 0
	for i := range N {
		A[i] = g.Actions(i)
		amax = max(amax, A[i])
	}
	if cfg.Kappa != 0 {
		if err := CheckQAscentStepSize(cfg.Alpha, cfg.Kappa, N, amax, g.Gamma()); err != nil {
			return nil, err
		}
	}
	act := potActTable(J, N, g.Split)
	gamma := g.Gamma()
	pol := make([]markov.Stationary, N)
	for i := range N {
		buf := make([]float64, S*A[i])
		pol[i] = make(markov.Stationary, S)
		for s := range S {
			pol[i][s] = buf[s*A[i] : (s+1)*A[i] : (s+1)*A[i]]
			copy(pol[i][s], init[i][s])
		}
	}
	mdata := make([]float64, S*S)
	rdata := make([]float64, S*N)
	m := mat.NewDense(S, S, mdata)
	rm := mat.NewDense(S, N, rdata)
	var vm mat.Dense
	var lu mat.LU
	v := make([]float64, N*S) // v[i*S+s]
	pj := make([]float64, J)
	q := make([]float64, J*N)
	qbar := make([][]float64, N)
	for i := range N {
		qbar[i] = make([]float64, A[i])
	}
	y := make([]float64, amax)
	p := make([]float64, N)
	suf := make([]float64, N+1)

	res := &QAscentDiscountedResult{Last: pol}
	ck := 0
	record := func(t int) error {
		for ck < len(cfg.Checkpoints) && cfg.Checkpoints[ck] == t {
			c, err := qAscentDiscountedCheckpoint(g, pol, t)
			if err != nil {
				return err
			}
			res.Checkpoints = append(res.Checkpoints, c)
			ck++
		}
		return nil
	}
	if err := record(0); err != nil {
		return nil, err
	}
	for t := 1; t <= cfg.T; t++ {
		// I − γP_π and r_π.
		clear(mdata)
		clear(rdata)
		for s := range S {
			row := mdata[s*S : (s+1)*S]
			for j := range J {
				x := 1.0
				for k := range N {
					x *= pol[k][s][act[j*N+k]]
				}
				pj[j] = x
				if x == 0 {
					continue
				}
				floats.AddScaled(row, -gamma*x, g.Transition(s, j))
				for i := range N {
					rdata[s*N+i] += x * g.Reward(s, j, i)
				}
			}
			row[s] += 1
		}
		lu.Factorize(m)
		if err := lu.SolveTo(&vm, false, rm); err != nil {
			return nil, fmt.Errorf("metalearn: QAscentDiscounted: iteration %d: policy evaluation: %w", t, err)
		}
		for i := range N {
			for s := range S {
				v[i*S+s] = vm.At(s, i)
			}
		}
		for s := range S {
			for j := range J {
				row := g.Transition(s, j)
				for i := range N {
					q[j*N+i] = g.Reward(s, j, i) + gamma*floats.Dot(row, v[i*S:(i+1)*S])
				}
			}
			for i := range N {
				clear(qbar[i])
			}
			for j := range J {
				a := act[j*N : (j+1)*N]
				suf[N] = 1
				for k := N - 1; k >= 0; k-- {
					p[k] = pol[k][s][a[k]]
					suf[k] = suf[k+1] * p[k]
				}
				pre := 1.0
				for i := range N {
					qbar[i][a[i]] += pre * suf[i+1] * q[j*N+i]
					pre *= p[i]
				}
			}
			for i := range N {
				cur := pol[i][s]
				yi := y[:A[i]]
				for a, x := range cur {
					yi[a] = x + cfg.Alpha*qbar[i][a]
				}
				if err := game.ProjectSimplex(cur, yi); err != nil {
					return nil, fmt.Errorf("metalearn: QAscentDiscounted: iteration %d, state %d, player %d: %w", t, s, i, err)
				}
			}
		}
		if err := record(t); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// qAscentDiscountedCheckpoint evaluates the iterate pi of a discounted run.
func qAscentDiscountedCheckpoint(g *markov.DiscountedGeneralSum, pi []markov.Stationary, t int) (QAscentDiscountedCheckpoint, error) {
	gap, _, err := g.NEGap(pi)
	if err != nil {
		return QAscentDiscountedCheckpoint{}, err
	}
	v, err := g.Values(pi)
	if err != nil {
		return QAscentDiscountedCheckpoint{}, err
	}
	rho := g.Initial()
	c := QAscentDiscountedCheckpoint{T: t, Gap: gap, Potential: math.NaN(), Values: make([]float64, g.Players())}
	for i := range c.Values {
		c.Values[i] = floats.Dot(rho, v[i])
	}
	if g.Cooperative() {
		c.Potential = c.Values[0]
	}
	return c, nil
}

// ---------------------------------------------------------------------------
// Δ_Φ (8)

// DeltaPhi returns the task-similarity measure (8) of multi-agent-meta-rl
// for a sequence of episodic Markov teams,
//
//	Δ_Φ = Σ_{k=1}^{K−1} max_π (Φ(π; 𝔾^k) − Φ(π; 𝔾^{k+1})),
//
// with the potential Φ(π; 𝔾) = V^π_1(s_1) of a team (its common value from
// the start state; spec §1.3, §1.8). Because Φ depends on an additive
// constant that is not computable from the rewards of a general Markov
// potential game, DeltaPhi is restricted to teams (spec E12), and to teams
// with identical transitions: then Φ(π; 𝔾^k) − Φ(π; 𝔾^{k+1}) is the value
// of π under the reward r_k − r_{k+1}, and its maximum over product Markov
// policies is the optimum of a single-agent MDP on joint actions, attained
// by a deterministic joint Markov policy, which is a product policy. It is
// computed by backward induction,
//
//	W_h(s) = max_j (r_{k,h}(s, j) − r_{k+1,h}(s, j) + Σ_{s'} P_h(s'|s, j) W_{h+1}(s')),  W_H ≡ 0,
//
// and is 0 for K ≤ 1. Each term is ≥ Φ(π; 𝔾^k) − Φ(π; 𝔾^{k+1}) for any π,
// which is what the warm-start telescoping in the proof of Theorem 3 uses.
//
// It returns an error if a game is nil or not a team, or the games do not
// share players, actions, states, horizon, start state and transitions (the
// error names the game index). The cost is O(K·H·S·J·S).
func DeltaPhi(games []*markov.Episodic) (float64, error) {
	for k, g := range games {
		if g == nil {
			return 0, fmt.Errorf("metalearn: DeltaPhi: games[%d] is nil", k)
		}
		if !g.Cooperative() {
			return 0, fmt.Errorf("metalearn: DeltaPhi: games[%d] is not a Markov team (Δ_Φ needs the potential, spec E12)", k)
		}
		if k > 0 {
			if err := potSameEpisodic(games[0], g, k); err != nil {
				return 0, err
			}
		}
	}
	var delta float64
	for k := 0; k+1 < len(games); k++ {
		a, b := games[k], games[k+1]
		delta += potEpisodicOptimum(a, func(h, s, j int) float64 {
			return a.Reward(h, s, j, 0) - b.Reward(h, s, j, 0)
		})
	}
	return delta, nil
}

// potSameEpisodic returns an error naming games[k] if g differs from g0 in
// its players, actions, states, horizon, start state or transitions.
func potSameEpisodic(g0, g *markov.Episodic, k int) error {
	if g.Players() != g0.Players() || g.States() != g0.States() || g.Horizon() != g0.Horizon() || g.Start() != g0.Start() {
		return fmt.Errorf("metalearn: DeltaPhi: games[%d] has (N, S, H, start) = (%d, %d, %d, %d), games[0] has (%d, %d, %d, %d)",
			k, g.Players(), g.States(), g.Horizon(), g.Start(), g0.Players(), g0.States(), g0.Horizon(), g0.Start())
	}
	for i := range g.Players() {
		if g.Actions(i) != g0.Actions(i) {
			return fmt.Errorf("metalearn: DeltaPhi: games[%d] gives player %d %d actions, games[0] %d", k, i, g.Actions(i), g0.Actions(i))
		}
	}
	for h := range g.Horizon() {
		for s := range g.States() {
			for j := range g.NumJoint() {
				p, p0 := g.Transition(h, s, j), g0.Transition(h, s, j)
				for s2 := range p {
					if p[s2] != p0[s2] {
						return fmt.Errorf("metalearn: DeltaPhi: games[%d] has transition P_%d(%d|%d, joint %d) = %v, games[0] has %v: Δ_Φ needs identical transitions",
							k, h, s2, s, j, p[s2], p0[s2])
					}
				}
			}
		}
	}
	return nil
}

// potEpisodicOptimum returns max over deterministic joint Markov policies
// of the value from g's start state under the reward r(h, s, j) and g's
// transitions, by backward induction in O(H·S·J·S).
func potEpisodicOptimum(g *markov.Episodic, r func(h, s, j int) float64) float64 {
	S := g.States()
	next := make([]float64, S)
	cur := make([]float64, S)
	for h := g.Horizon() - 1; h >= 0; h-- {
		for s := range S {
			best := math.Inf(-1)
			for j := range g.NumJoint() {
				best = max(best, r(h, s, j)+floats.Dot(g.Transition(h, s, j), next))
			}
			cur[s] = best
		}
		next, cur = cur, next
	}
	return next[g.Start()]
}

// ---------------------------------------------------------------------------
// Softmax policy gradient of Markov teams (45), Lemma 15, HVP

// Logits are the softmax policy parameters θ = (θ_0, …, θ_{N−1}) of a
// discounted game (spec §1.4): Logits[i][s·A_i + a] = θ_i(a|s), and
// π_{θ_i}(a|s) = exp θ_i(a|s) / Σ_{a'} exp θ_i(a'|s). Gradients and
// Hessian-vector products are flat vectors: the players' blocks
// concatenated in player order ([Logits.Vector]), P = S·Σ_i A_i entries.
type Logits [][]float64

// ZeroLogits returns the all-zero parameters of g: the uniform policies.
// It panics if g is nil.
func ZeroLogits(g *markov.DiscountedGeneralSum) Logits {
	th := make(Logits, g.Players())
	for i := range th {
		th[i] = make([]float64, g.States()*g.Actions(i))
	}
	return th
}

// Vector returns the players' parameters concatenated in player order.
func (th Logits) Vector() []float64 {
	var n int
	for _, t := range th {
		n += len(t)
	}
	v := make([]float64, 0, n)
	for _, t := range th {
		v = append(v, t...)
	}
	return v
}

// Clone returns a deep copy of th.
func (th Logits) Clone() Logits {
	c := make(Logits, len(th))
	for i, t := range th {
		c[i] = append([]float64(nil), t...)
	}
	return c
}

// LogitsFromVector splits a flat vector of g's parameters (the layout of
// [Logits.Vector]) into per-player logits, copying it. It returns an error
// if the length is not S·Σ_i A_i.
func LogitsFromVector(g *markov.DiscountedGeneralSum, v []float64) (Logits, error) {
	if g == nil {
		return nil, errors.New("metalearn: LogitsFromVector: nil game")
	}
	th := ZeroLogits(g)
	var n int
	for _, t := range th {
		n += len(t)
	}
	if len(v) != n {
		return nil, fmt.Errorf("metalearn: parameter vector has %d entries, want S·Σ_i A_i = %d", len(v), n)
	}
	k := 0
	for _, t := range th {
		k += copy(t, v[k:])
	}
	return th, nil
}

// SoftmaxPolicies returns the stationary policies π_θ of the logits th on
// g (one per player). It returns an error if th does not match g's shape
// or has a non-finite entry.
func SoftmaxPolicies(g *markov.DiscountedGeneralSum, th Logits) ([]markov.Stationary, error) {
	if g == nil {
		return nil, errors.New("metalearn: SoftmaxPolicies: nil game")
	}
	if err := potCheckLogits(g, th, ""); err != nil {
		return nil, err
	}
	S := g.States()
	pi := make([]markov.Stationary, len(th))
	for i, t := range th {
		A := g.Actions(i)
		pi[i] = make(markov.Stationary, S)
		for s := range S {
			pi[i][s] = game.Softmax(nil, t[s*A:(s+1)*A])
		}
	}
	return pi, nil
}

// potCheckLogits returns an error naming the player and entry if th does
// not have g's shape or is not finite. where prefixes the message.
func potCheckLogits(g *markov.DiscountedGeneralSum, th Logits, where string) error {
	if len(th) != g.Players() {
		return fmt.Errorf("metalearn: %slogits for %d players, the game has %d", where, len(th), g.Players())
	}
	for i, t := range th {
		if want := g.States() * g.Actions(i); len(t) != want {
			return fmt.Errorf("metalearn: %slogits of player %d have %d entries, want S·A_%d = %d", where, i, len(t), i, want)
		}
		for k, x := range t {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("metalearn: %slogit θ_%d[%d] (state %d, action %d) = %v is not finite", where, i, k, k/g.Actions(i), k%g.Actions(i), x)
			}
		}
	}
	return nil
}

// potGame holds the constant data of a discounted Markov team for the
// policy-gradient computations, and scratch space for Hessian-vector
// products. It is used by one goroutine at a time.
type potGame struct {
	g        *markov.DiscountedGeneralSum
	S, N, J  int
	P        int   // number of parameters
	A, off   []int // off[i] = offset of player i's block; off[N] = P
	act      []int // act[j*N+i]
	gamma    float64
	rho      []float64
	r        []float64 // r[s*J+j], the shared reward
	pre, suf []float64
	// HVP scratch.
	u, U, Y, Yb   []float64
	c, e, vd, wd  []float64
	cvec, evec    *mat.VecDense
	vdvec, wdvec  *mat.VecDense
	rpi, rhoCopy  []float64
	rpiVec, rhoVc *mat.VecDense
}

// potState is the evaluation of a team at one parameter θ: the policies,
// the LU factorisation of I − γP_π, the value V, the discounted occupancy
// w = ρᵀ(I − γP_π)^{−1} = d_ρ/(1−γ), Q and the averaged Q̄_i.
type potState struct {
	pi     []float64 // pi[off[i]+s*A_i+a] = π_i(a|s)
	pj     []float64 // pj[s*J+j] = π(j|s)
	m      *mat.Dense
	lu     mat.LU
	V, w   []float64
	vV, vw *mat.VecDense // views of V and w
	Q      []float64     // Q[s*J+j]
	Qbar   []float64     // Qbar[off[i]+s*A_i+a]
}

// newPotGame returns the policy-gradient data of g, or an error if g is
// nil or not a Markov team. where prefixes error messages.
func newPotGame(g *markov.DiscountedGeneralSum, where string) (*potGame, error) {
	if g == nil {
		return nil, fmt.Errorf("metalearn: %snil game", where)
	}
	if !g.Cooperative() {
		return nil, fmt.Errorf("metalearn: %sthe game is not a Markov team: the potential Φ is only available for teams (spec E12)", where)
	}
	N, S, J := g.Players(), g.States(), g.NumJoint()
	pg := &potGame{g: g, S: S, N: N, J: J, gamma: g.Gamma(), rho: g.Initial(),
		A: make([]int, N), off: make([]int, N+1)}
	for i := range N {
		pg.A[i] = g.Actions(i)
		pg.off[i+1] = pg.off[i] + S*pg.A[i]
	}
	pg.P = pg.off[N]
	pg.act = potActTable(J, N, g.Split)
	pg.r = make([]float64, S*J)
	for s := range S {
		for j := range J {
			pg.r[s*J+j] = g.Reward(s, j, 0)
		}
	}
	pg.pre = make([]float64, N+1)
	pg.suf = make([]float64, N+1)
	pg.u = make([]float64, pg.P)
	pg.Yb = make([]float64, pg.P)
	pg.U = make([]float64, S*J)
	pg.Y = make([]float64, S*J)
	pg.c, pg.e, pg.vd, pg.wd = make([]float64, S), make([]float64, S), make([]float64, S), make([]float64, S)
	pg.cvec, pg.evec = mat.NewVecDense(S, pg.c), mat.NewVecDense(S, pg.e)
	pg.vdvec, pg.wdvec = mat.NewVecDense(S, pg.vd), mat.NewVecDense(S, pg.wd)
	pg.rpi = make([]float64, S)
	pg.rpiVec = mat.NewVecDense(S, pg.rpi)
	pg.rhoCopy = make([]float64, S)
	pg.rhoVc = mat.NewVecDense(S, pg.rhoCopy)
	return pg, nil
}

// newState allocates an evaluation state.
func (pg *potGame) newState() *potState {
	S := pg.S
	st := &potState{
		pi: make([]float64, pg.P), pj: make([]float64, S*pg.J),
		m: mat.NewDense(S, S, nil),
		V: make([]float64, S), w: make([]float64, S),
		Q: make([]float64, S*pg.J), Qbar: make([]float64, pg.P),
	}
	st.vV, st.vw = mat.NewVecDense(S, st.V), mat.NewVecDense(S, st.w)
	return st
}

// marginals adds to dst[off[i]+s*A_i+a] the contraction
// Σ_{j: a_i(j)=a} x[j] Π_{k≠i} π_k(a_k(j)|s) for every player i, by prefix
// and suffix products in O(J·N).
func (pg *potGame) marginals(st *potState, s int, x, dst []float64) {
	N := pg.N
	pre, suf := pg.pre, pg.suf
	for j, xj := range x {
		a := pg.act[j*N : (j+1)*N]
		suf[N] = 1
		for k := N - 1; k >= 0; k-- {
			suf[k] = suf[k+1] * st.pi[pg.off[k]+s*pg.A[k]+a[k]]
		}
		pre[0] = 1
		for i := range N {
			dst[pg.off[i]+s*pg.A[i]+a[i]] += pre[i] * suf[i+1] * xj
			pre[i+1] = pre[i] * st.pi[pg.off[i]+s*pg.A[i]+a[i]]
		}
	}
}

// eval evaluates the team at the flat parameter th into st: the softmax
// policies, π(j|s), the LU factorisation of I − γP_π, V = (I − γP_π)^{−1}
// r_π, w = (I − γP_π)^{−T} ρ, Q = r + γPV and Q̄_i. The cost is
// O(S·J·(S+N) + S³).
func (pg *potGame) eval(st *potState, th []float64) error {
	S, N, J := pg.S, pg.N, pg.J
	for i := range N {
		A := pg.A[i]
		for s := range S {
			k := pg.off[i] + s*A
			game.Softmax(st.pi[k:k+A], th[k:k+A])
		}
	}
	md := st.m.RawMatrix().Data
	clear(md)
	for s := range S {
		row := md[s*S : (s+1)*S]
		var rs float64
		for j := range J {
			x := 1.0
			for k := range N {
				x *= st.pi[pg.off[k]+s*pg.A[k]+pg.act[j*N+k]]
			}
			st.pj[s*J+j] = x
			if x == 0 {
				continue
			}
			rs += x * pg.r[s*J+j]
			floats.AddScaled(row, -pg.gamma*x, pg.g.Transition(s, j))
		}
		row[s] += 1
		pg.rpi[s] = rs
	}
	st.lu.Factorize(st.m)
	if err := st.lu.SolveVecTo(st.vV, false, pg.rpiVec); err != nil {
		return fmt.Errorf("metalearn: policy evaluation: %w", err)
	}
	copy(pg.rhoCopy, pg.rho)
	if err := st.lu.SolveVecTo(st.vw, true, pg.rhoVc); err != nil {
		return fmt.Errorf("metalearn: visitation: %w", err)
	}
	for s := range S {
		for j := range J {
			st.Q[s*J+j] = pg.r[s*J+j] + pg.gamma*floats.Dot(pg.g.Transition(s, j), st.V)
		}
	}
	clear(st.Qbar)
	for s := range S {
		pg.marginals(st, s, st.Q[s*J:(s+1)*J], st.Qbar)
	}
	for _, x := range st.V {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.New("metalearn: policy evaluation produced a non-finite value")
		}
	}
	return nil
}

// phi returns Φ = ρᵀV.
func (pg *potGame) phi(st *potState) float64 { return floats.Dot(pg.rho, st.V) }

// grad stores ∇Φ in dst: (45), ∂Φ/∂θ_i(a|s) = w(s) π_i(a|s) (Q̄_i(s,a) − V(s)),
// with w = d_ρ/(1−γ).
func (pg *potGame) grad(st *potState, dst []float64) {
	for i := range pg.N {
		A := pg.A[i]
		for s := range pg.S {
			k := pg.off[i] + s*A
			for a := range A {
				dst[k+a] = st.w[s] * st.pi[k+a] * (st.Qbar[k+a] - st.V[s])
			}
		}
	}
}

// hvp stores ∇²Φ(θ)·v in dst (dst must not alias v), as the directional
// derivative of grad along v (see [PotentialHVP]). The cost is
// O(S·J·(S+N) + S²) with the factorisation of st reused.
func (pg *potGame) hvp(st *potState, v, dst []float64) error {
	S, N, J := pg.S, pg.N, pg.J
	// u = centred v: π̇_i(a|s) = π_i(a|s) u_i(s,a).
	for i := range N {
		A := pg.A[i]
		for s := range S {
			k := pg.off[i] + s*A
			mean := floats.Dot(st.pi[k:k+A], v[k:k+A])
			for a := range A {
				pg.u[k+a] = v[k+a] - mean
			}
		}
	}
	// U(s,j) = Σ_i u_i(s, a_i(j)), so π̇(j|s) = π(j|s) U(s,j), and
	// c = Σ_j π̇ Q (= ṙ_π + γṖ_π V).
	for s := range S {
		var cs float64
		for j := range J {
			x := 0.0
			for i := range N {
				x += pg.u[pg.off[i]+s*pg.A[i]+pg.act[j*N+i]]
			}
			pg.U[s*J+j] = x
			cs += st.pj[s*J+j] * x * st.Q[s*J+j]
		}
		pg.c[s] = cs
	}
	// V̇ = (I − γP_π)^{−1} c.
	if err := st.lu.SolveVecTo(pg.vdvec, false, pg.cvec); err != nil {
		return fmt.Errorf("metalearn: Hessian-vector product: %w", err)
	}
	// One pass over the transitions: Y = U·Q + Q̇ with Q̇ = γPV̇, and
	// e = γṖ_πᵀw = γ Σ_{s,j} w(s) π(j|s) U(s,j) P(·|s,j).
	clear(pg.e)
	for s := range S {
		for j := range J {
			row := pg.g.Transition(s, j)
			k := s*J + j
			pg.Y[k] = pg.U[k]*st.Q[k] + pg.gamma*floats.Dot(row, pg.vd)
			if pd := st.pj[k] * pg.U[k]; pd != 0 {
				floats.AddScaled(pg.e, pg.gamma*st.w[s]*pd, row)
			}
		}
	}
	// ẇ = (I − γP_π)^{−T} e; Q̄̇_i = marg_i(Y) − u_i Q̄_i.
	if err := st.lu.SolveVecTo(pg.wdvec, true, pg.evec); err != nil {
		return fmt.Errorf("metalearn: Hessian-vector product: %w", err)
	}
	clear(pg.Yb)
	for s := range S {
		pg.marginals(st, s, pg.Y[s*J:(s+1)*J], pg.Yb)
	}
	for i := range N {
		A := pg.A[i]
		for s := range S {
			k := pg.off[i] + s*A
			for a := range A {
				p, u := st.pi[k+a], pg.u[k+a]
				adv := st.Qbar[k+a] - st.V[s]
				qdot := pg.Yb[k+a] - u*st.Qbar[k+a]
				dst[k+a] = pg.wd[s]*p*adv + st.w[s]*p*u*adv + st.w[s]*p*(qdot-pg.vd[s])
			}
		}
	}
	return nil
}

// potPrepare validates g and th and evaluates the team at th.
func potPrepare(g *markov.DiscountedGeneralSum, th Logits, where string) (*potGame, *potState, []float64, error) {
	pg, err := newPotGame(g, where)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := potCheckLogits(g, th, where); err != nil {
		return nil, nil, nil, err
	}
	x := th.Vector()
	st := pg.newState()
	if err := pg.eval(st, x); err != nil {
		return nil, nil, nil, err
	}
	return pg, st, x, nil
}

// Potential returns the potential Φ(θ) = V^ρ(π_θ) = Σ_s ρ(s) V^{π_θ}(s) of
// the discounted Markov team g under the softmax policies of th (spec
// §1.4; for a team the potential is the common value, spec E12), by an LU
// solve of (I − γP_π)V = r_π.
//
// It returns an error if g is nil or not a Markov team
// (markov.DiscountedGeneralSum.Cooperative), or th does not match g's shape
// or has a non-finite entry (the error names the player and entry). The
// cost is O(S·J·(S+N) + S³).
func Potential(g *markov.DiscountedGeneralSum, th Logits) (float64, error) {
	pg, st, _, err := potPrepare(g, th, "Potential: ")
	if err != nil {
		return 0, err
	}
	return pg.phi(st), nil
}

// PotentialGrad returns the softmax policy gradient ∇Φ(θ) of the Markov
// team g, the players' blocks concatenated (layout of [Logits.Vector]),
// by the multi-agent policy gradient theorem (45) with the averaged
// advantage Ā_i = Q̄_i − V (spec E11):
//
//	∂Φ/∂θ_i(a|s) = ∂V_i^ρ/∂θ_i(a|s) = (1/(1−γ)) d_ρ^θ(s) π_{θ_i}(a|s) (Q̄_i(s, a) − V(s)),
//
// with d_ρ^θ = (1−γ)(I − γP_π)^{−T}ρ from the same LU factorisation as V.
// Lemma 13(i) bounds ‖∇Φ‖ by B_G = √(2N)/(1−γ)² for rewards in [−1, 1].
//
// It returns an error as [Potential] does. The cost is
// O(S·J·(S+N) + S³).
func PotentialGrad(g *markov.DiscountedGeneralSum, th Logits) ([]float64, error) {
	pg, st, _, err := potPrepare(g, th, "PotentialGrad: ")
	if err != nil {
		return nil, err
	}
	dst := make([]float64, pg.P)
	pg.grad(st, dst)
	return dst, nil
}

// PotentialHVP returns the exact Hessian-vector product ∇²Φ(θ)·v of the
// Markov team g without forming the Hessian, as the directional derivative
// of the gradient (45) along v, ∇²Φ·v = d/dε ∇Φ(θ + εv)|_{ε=0}
// (forward-mode differentiation of the gradient computation). With
// M = I − γP_π, w = M^{−T}ρ = d_ρ/(1−γ), and u_i(s, ·) = v_i(s, ·) −
// ⟨π_i(·|s), v_i(s, ·)⟩ (so that π̇_i = π_i u_i), U(s, j) = Σ_i u_i(s, a_i(j))
// (so that π̇(j|s) = π(j|s) U(s, j)):
//
//	V̇ = M^{−1} c,          c(s) = Σ_j π(j|s) U(s,j) Q(s,j)        (= ṙ_π + γṖ_πV),
//	ẇ = M^{−T} e,          e(s') = γ Σ_{s,j} w(s) π(j|s) U(s,j) P(s'|s,j)   (= γṖ_πᵀw),
//	Q̇(s,j) = γ Σ_{s'} P(s'|s,j) V̇(s'),
//	Q̄̇_i(s,a) = Σ_{a_{−i}} π_{−i}(a_{−i}|s) (U(s,(a,a_{−i})) Q + Q̇)(s,(a,a_{−i})) − u_i(s,a) Q̄_i(s,a),
//	(∇²Φ·v)_i(s,a) = ẇ(s) π_i (Q̄_i − V(s)) + w(s) π_i u_i (Q̄_i − V(s)) + w(s) π_i (Q̄̇_i − V̇(s)).
//
// The two extra linear solves reuse the LU factorisation of the gradient
// evaluation. The result agrees with [PotentialHessian] (Lemma 15 with the
// spec's correction E8) times v to round-off; the tests check 1e-9.
//
// It returns an error as [Potential] does, or if len(v) is not the number
// of parameters S·Σ_i A_i or v has a non-finite entry. The cost is
// O(S·J·(S+N) + S³) (the evaluation) and O(S·J·(S+N) + S²) for the
// product itself: linear in the number of parameters, never O(P²).
func PotentialHVP(g *markov.DiscountedGeneralSum, th Logits, v []float64) ([]float64, error) {
	pg, st, _, err := potPrepare(g, th, "PotentialHVP: ")
	if err != nil {
		return nil, err
	}
	if len(v) != pg.P {
		return nil, fmt.Errorf("metalearn: PotentialHVP: vector has %d entries, want %d parameters", len(v), pg.P)
	}
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("metalearn: PotentialHVP: v[%d] = %v is not finite", k, x)
		}
	}
	dst := make([]float64, pg.P)
	if err := pg.hvp(st, v, dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// PotentialHessian returns the policy Hessian ∇²Φ(θ) of the Markov team g
// (P×P, P = S·Σ_i A_i, blocks in the layout of [Logits.Vector]) formed
// directly from Lemma 15 of multi-agent-meta-rl with the fourth term
// corrected as in spec E8: block (i, j) is H_1 + H_2 + H_12 + H_21 with
//
//	H_1  = (1/(1−γ)) Σ_{s,a} d_ρ(s,a) Q(s,a) ∇_{θ_i} log π(a|s) ∇ᵀ_{θ_j} log π(a|s),
//	H_2  = (1/(1−γ)) Σ_{s,a} d_ρ(s,a) Q(s,a) ∇²_{θ_iθ_j} log π(a|s),
//	H_12 = (1/(1−γ)) Σ_{s,a} d_ρ(s,a) ∇_{θ_i} log π(a|s) ∇ᵀ_{θ_j} Q(s,a),
//	H_21 = (1/(1−γ)) Σ_{s,a} d_ρ(s,a) ∇_{θ_i} Q(s,a) ∇ᵀ_{θ_j} log π(a|s)    (E8; the paper prints (H_12)ᵀ),
//
// where d_ρ(s,a) = d_ρ(s)π(a|s), ∇_{θ_i} log π(a|s) is e_{a_i} − π_i(·|s)
// in the s-block of player i, ∇²_{θ_iθ_j} log π = 0 for i ≠ j and
// −(diag π_i(·|s) − π_iπ_iᵀ) in the s-block for i = j, and
// ∇_{θ_j}Q(s,a) = γ Σ_{s'} P(s'|s,a) ∇_{θ_j}V(s') with ∇_{θ_j}V(s') the
// gradient (45) from the start state s' (D.6; rows of (I − γP_π)^{−1}).
// Lemma 13(ii) bounds ‖∇²Φ‖ by L_G = 6N/(1−γ)³.
//
// It is meant for small games and for cross-checking [PotentialHVP]: the
// cost is O(S·J·(S + Σ_i A_i)·P + S³) time and O(P² + S·P) memory. It
// returns an error as [Potential] does.
func PotentialHessian(g *markov.DiscountedGeneralSum, th Logits) (*mat.SymDense, error) {
	pg, st, _, err := potPrepare(g, th, "PotentialHessian: ")
	if err != nil {
		return nil, err
	}
	S, N, J, P := pg.S, pg.N, pg.J, pg.P
	// Minv = (I − γP_π)^{−1}; G[s', k] = ∂V(s')/∂θ_k = Minv[s', s] π (Q̄ − V)(s, ·).
	var minv mat.Dense
	if err := st.lu.SolveTo(&minv, false, potIdentity(S)); err != nil {
		return nil, fmt.Errorf("metalearn: PotentialHessian: %w", err)
	}
	G := mat.NewDense(S, P, nil)
	for i := range N {
		A := pg.A[i]
		for s := range S {
			k := pg.off[i] + s*A
			for a := range A {
				loc := st.pi[k+a] * (st.Qbar[k+a] - st.V[s])
				for s1 := range S {
					G.Set(s1, k+a, minv.At(s1, s)*loc)
				}
			}
		}
	}
	h := make([]float64, P*P)
	z := make([]float64, P)
	gidx := make([]int, 0, P) // nonzero entries of ∇ log π(j|s)
	gval := make([]float64, 0, P)
	for s := range S {
		for j := range J {
			wt := st.w[s] * st.pj[s*J+j]
			if wt == 0 {
				continue
			}
			// ∇ log π(j|s): e_{a_i} − π_i(·|s) in each player's s-block.
			gidx, gval = gidx[:0], gval[:0]
			for i := range N {
				A := pg.A[i]
				k := pg.off[i] + s*A
				for b := range A {
					x := -st.pi[k+b]
					if b == pg.act[j*N+i] {
						x += 1
					}
					gidx = append(gidx, k+b)
					gval = append(gval, x)
				}
			}
			// z = ∇Q(s,j) = γ Σ_{s'} P(s'|s,j) G[s', ·].
			clear(z)
			for s2, p := range pg.g.Transition(s, j) {
				if p != 0 {
					floats.AddScaled(z, pg.gamma*p, G.RawRowView(s2))
				}
			}
			q := st.Q[s*J+j]
			for x, kx := range gidx {
				row := h[kx*P : (kx+1)*P]
				// H_1.
				for y, ky := range gidx {
					row[ky] += wt * q * gval[x] * gval[y]
				}
				// H_12 (row kx) and H_21 (column kx).
				floats.AddScaled(row, wt*gval[x], z)
				for ky := range P {
					h[ky*P+kx] += wt * z[ky] * gval[x]
				}
			}
		}
	}
	// H_2: −w(s) V(s) (diag π_i − π_i π_iᵀ) in each s-block.
	for i := range N {
		A := pg.A[i]
		for s := range S {
			k := pg.off[i] + s*A
			c := st.w[s] * st.V[s]
			for a := range A {
				for b := range A {
					x := -st.pi[k+a] * st.pi[k+b]
					if a == b {
						x += st.pi[k+a]
					}
					h[(k+a)*P+k+b] -= c * x
				}
			}
		}
	}
	hs := mat.NewSymDense(P, nil)
	for a := range P {
		for b := a; b < P; b++ {
			hs.SetSym(a, b, 0.5*(h[a*P+b]+h[b*P+a]))
		}
	}
	return hs, nil
}

// potIdentity returns the n×n identity matrix.
func potIdentity(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for k := range n {
		m.Set(k, k, 1)
	}
	return m
}

// ---------------------------------------------------------------------------
// MAML (46)–(47)

// potCheckMAML validates the games, parameters and inner step and returns
// one policy-gradient handle per game.
func potCheckMAML(games []*markov.DiscountedGeneralSum, th Logits, alpha float64, T int, where string) ([]*potGame, error) {
	if len(games) == 0 {
		return nil, fmt.Errorf("metalearn: %sno game", where)
	}
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) || alpha < 0 {
		return nil, fmt.Errorf("metalearn: %sinner step size α = %v must be finite and ≥ 0", where, alpha)
	}
	if T < 0 {
		return nil, fmt.Errorf("metalearn: %snumber of inner steps T = %d must be ≥ 0", where, T)
	}
	pgs := make([]*potGame, len(games))
	for k, g := range games {
		pg, err := newPotGame(g, fmt.Sprintf("%sgames[%d]: ", where, k))
		if err != nil {
			return nil, err
		}
		if k > 0 {
			g0 := games[0]
			if g.Players() != g0.Players() || g.States() != g0.States() || g.Gamma() != g0.Gamma() {
				return nil, fmt.Errorf("metalearn: %sgames[%d] has (N, S, γ) = (%d, %d, %v), games[0] has (%d, %d, %v): MAML games must share players, states, actions and discount",
					where, k, g.Players(), g.States(), g.Gamma(), g0.Players(), g0.States(), g0.Gamma())
			}
			for i := range g.Players() {
				if g.Actions(i) != g0.Actions(i) {
					return nil, fmt.Errorf("metalearn: %sgames[%d] gives player %d %d actions, games[0] gives %d", where, k, i, g.Actions(i), g0.Actions(i))
				}
			}
		}
		pgs[k] = pg
	}
	if err := potCheckLogits(games[0], th, where); err != nil {
		return nil, err
	}
	return pgs, nil
}

// inner runs T steps of policy gradient ascent (44) θ ← θ + α∇Φ(θ) from
// theta and returns Φ(θ^{(T)}) and, if wantGrad, the meta-gradient
// (Π_{t=0}^{T−1}(I + α∇²Φ(θ^{(t)}))) ∇Φ(θ^{(T)}) by the backward pass of
// spec E9.
func (pg *potGame) inner(theta []float64, alpha float64, T int, wantGrad bool) (float64, []float64, error) {
	x := append([]float64(nil), theta...)
	gbuf := make([]float64, pg.P)
	var states []*potState
	if wantGrad {
		states = make([]*potState, T)
	}
	st := pg.newState()
	for t := range T {
		if err := pg.eval(st, x); err != nil {
			return 0, nil, err
		}
		pg.grad(st, gbuf)
		floats.AddScaled(x, alpha, gbuf)
		if wantGrad {
			states[t] = st
			st = pg.newState()
		}
	}
	for k, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, nil, fmt.Errorf("metalearn: inner policy gradient ascent produced a non-finite parameter %d", k)
		}
	}
	if err := pg.eval(st, x); err != nil {
		return 0, nil, err
	}
	phi := pg.phi(st)
	if !wantGrad {
		return phi, nil, nil
	}
	v := make([]float64, pg.P)
	pg.grad(st, v)
	hv := gbuf
	for t := T - 1; t >= 0; t-- {
		if err := pg.hvp(states[t], v, hv); err != nil {
			return 0, nil, err
		}
		floats.AddScaled(v, alpha, hv)
	}
	return phi, v, nil
}

// potMAML runs inner on every game, the games split over
// runtime.GOMAXPROCS(0) goroutines, and returns the per-game results in
// game order (so sums do not depend on the split). where prefixes error
// messages.
func potMAML(pgs []*potGame, theta []float64, alpha float64, T int, wantGrad bool, where string) ([]float64, [][]float64, error) {
	M := len(pgs)
	phis := make([]float64, M)
	grads := make([][]float64, M)
	err := parallel.For(M, func(k int) error {
		var err error
		phis[k], grads[k], err = pgs[k].inner(theta, alpha, T, wantGrad)
		if err != nil {
			return fmt.Errorf("metalearn: %sgames[%d]: %s", where, k, strings.TrimPrefix(err.Error(), "metalearn: "))
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return phis, grads, nil
}

// MAMLObjective returns the T-step MAML objective (9)/(41) of
// multi-agent-meta-rl §4.2 over the finite task set games with the uniform
// task distribution (as in [66]; spec §2.4),
//
//	F_T(θ) = (1/M) Σ_𝔾 Φ(θ^{(T)}(𝔾); 𝔾),   θ^{(0)} = θ,  θ^{(t+1)} = θ^{(t)} + α∇Φ(θ^{(t)}; 𝔾),
//
// where each inner step is the independent softmax policy gradient ascent
// (44), equal to gradient ascent on the potential of a team. T = 0 gives
// the mean potential.
//
// It returns an error if games is empty, a game is nil or not a Markov
// team, the games differ in players, actions, states or discount (the
// error names the game index), th does not match their shape or is not
// finite, α is negative or not finite, T < 0, or the inner ascent
// produces a non-finite parameter. The cost is (T+1)·M evaluations of
// O(S·J·(S+N) + S³), the games split over runtime.GOMAXPROCS(0)
// goroutines (deterministically).
func MAMLObjective(games []*markov.DiscountedGeneralSum, th Logits, alpha float64, T int) (float64, error) {
	pgs, err := potCheckMAML(games, th, alpha, T, "MAMLObjective: ")
	if err != nil {
		return 0, err
	}
	phis, _, err := potMAML(pgs, th.Vector(), alpha, T, false, "MAMLObjective: ")
	if err != nil {
		return 0, err
	}
	return floats.Sum(phis) / float64(len(phis)), nil
}

// MAMLGrad returns the meta-gradient (10)/(46) of the T-step MAML
// objective [MAMLObjective],
//
//	∇F_T(θ) = (1/M) Σ_𝔾 (Π_{t=0}^{T−1} (I + α∇²Φ(θ^{(t)}(𝔾); 𝔾))) ∇Φ(θ^{(T)}(𝔾); 𝔾),
//
// with the t = 0 factor leftmost (spec E9), computed without forming any
// Hessian by a backward pass of exact Hessian-vector products
// ([PotentialHVP]): v ← ∇Φ(θ^{(T)}), then v ← v + α∇²Φ(θ^{(t)})v for
// t = T−1, …, 0. This is the transposed chain-rule Jacobian of
// θ ↦ θ^{(T)}, which is correct because the Hessians are symmetric. The
// LU factorisations of the forward pass are kept for the backward pass.
//
// It returns an error as [MAMLObjective] does. The cost is M·(T+1)
// evaluations of O(S·J·(S+N) + S³) plus M·T products of O(S·J·(S+N) + S²),
// and O(T·(S² + S·J) + P) memory per game, the games split over
// runtime.GOMAXPROCS(0) goroutines (deterministically).
func MAMLGrad(games []*markov.DiscountedGeneralSum, th Logits, alpha float64, T int) ([]float64, error) {
	pgs, err := potCheckMAML(games, th, alpha, T, "MAMLGrad: ")
	if err != nil {
		return nil, err
	}
	_, grads, err := potMAML(pgs, th.Vector(), alpha, T, true, "MAMLGrad: ")
	if err != nil {
		return nil, err
	}
	out := make([]float64, pgs[0].P)
	for _, gk := range grads {
		floats.Add(out, gk)
	}
	floats.Scale(1/float64(len(grads)), out)
	return out, nil
}

// MAMLStep returns the meta-parameter after one outer MAML step (47),
//
//	θ^{k+1} = θ^k + η ∇F_T(θ^k),
//
// full-batch over games, with the meta-gradient of [MAMLGrad]. Theorem 4
// takes η = 1/L_F and the inner step of Lemma 14; those step sizes are
// impractically small for T > 1 (spec E10), so both are parameters: use
// [CheckMAMLStepSizes] to ask for the guaranteed regime.
//
// It returns an error as [MAMLGrad] does, or if η is not positive and
// finite. The cost is that of [MAMLGrad].
func MAMLStep(games []*markov.DiscountedGeneralSum, th Logits, alpha, eta float64, T int) (Logits, error) {
	if !(eta > 0) || math.IsInf(eta, 0) {
		return nil, fmt.Errorf("metalearn: MAMLStep: outer step size η = %v must be positive and finite", eta)
	}
	grad, err := MAMLGrad(games, th, alpha, T)
	if err != nil {
		return nil, err
	}
	next := th.Clone()
	k := 0
	for _, t := range next {
		for a := range t {
			t[a] += eta * grad[k]
			k++
		}
	}
	return next, nil
}

// ---------------------------------------------------------------------------
// Constants (Lemmas 12–14, Prop. 1)

// Constants are the smoothness constants of the softmax potential and of
// the MAML objective, Lemmas 13 and 14 of multi-agent-meta-rl (spec §2.4),
// for N players, discount γ, at most A_max actions per player and T inner
// steps.
type Constants struct {
	// BG = √(2N)/(1−γ)² bounds ‖∇Φ‖ (Lemma 13(i)).
	BG float64
	// LG = 6N/(1−γ)³ bounds ‖∇²Φ‖ (Lemma 13(ii)).
	LG float64
	// LH = 56N^{3/2}/(1−γ)⁴ is the Lipschitz constant of ∇²Φ
	// (Lemma 13(iii)).
	LH float64
	// InnerAlpha = min((1−γ)³/(2NγA_max), 1/L_G) is the inner step size:
	// Lemma 14's value, capped at the 1/L_G its proof needs (spec E10;
	// for γ = 0 it is 1/L_G).
	InnerAlpha float64
	// LF = (α·T·B_G·L_H + L_G)·2^{2T} at α = InnerAlpha: F_T is
	// L_F-smooth (Lemma 14). It overflows to +Inf for T ≳ 500.
	LF float64
}

// LemmaConstants returns the constants of Lemmas 13 and 14 for players
// agents, discount gamma, maxActions = A_max and T inner steps (see
// [Constants]). The bounds assume rewards in [−1, 1] (spec §1.4). It
// returns all fields NaN if players < 1, gamma is outside [0, 1),
// maxActions < 1 or T < 0.
func LemmaConstants(players int, gamma float64, maxActions, T int) Constants {
	if players < 1 || !(gamma >= 0 && gamma < 1) || maxActions < 1 || T < 0 {
		nan := math.NaN()
		return Constants{nan, nan, nan, nan, nan}
	}
	n := float64(players)
	g := 1 - gamma
	c := Constants{
		BG: math.Sqrt(2*n) / (g * g),
		LG: 6 * n / (g * g * g),
		LH: 56 * math.Pow(n, 1.5) / (g * g * g * g),
	}
	c.InnerAlpha = 1 / c.LG
	if gamma > 0 {
		c.InnerAlpha = min(g*g*g/(2*n*gamma*float64(maxActions)), c.InnerAlpha)
	}
	c.LF = metaSmoothness(c, c.InnerAlpha, T)
	return c
}

// metaSmoothness returns L_F = (αTB_GL_H + L_G)·2^{2T}, valid for
// α ∈ (0, 1/L_G] (Lemma 14's proof).
func metaSmoothness(c Constants, alpha float64, T int) float64 {
	return (alpha*float64(T)*c.BG*c.LH + c.LG) * math.Pow(2, 2*float64(T))
}

// CheckMAMLStepSizes returns nil if the inner step α and the outer step η
// are in the regime where Theorem 4 of multi-agent-meta-rl guarantees
// convergence of MAML to a stationary point of F_T, and otherwise an
// error naming the offending step size and its bound:
//
//	0 < α ≤ min((1−γ)³/(2NγA_max), 1/L_G)   (Lemma 14 with the cap of spec E10),
//	0 < η ≤ 1/L_F(α),  L_F(α) = (αTB_GL_H + L_G)·2^{2T}   (Lemma 14's proof, valid for α ≤ 1/L_G).
//
// It also returns an error if players < 1, gamma is outside [0, 1),
// maxActions < 1 or T < 0. Note that 1/L_F shrinks like 4^{−T}: the
// guaranteed η is impractically small beyond a few inner steps (spec E10).
func CheckMAMLStepSizes(players int, gamma float64, maxActions, T int, alpha, eta float64) error {
	if players < 1 || !(gamma >= 0 && gamma < 1) || maxActions < 1 || T < 0 {
		return fmt.Errorf("metalearn: MAML constants need N ≥ 1, γ ∈ [0, 1), A_max ≥ 1 and T ≥ 0 (got %d, %v, %d, %d)", players, gamma, maxActions, T)
	}
	c := LemmaConstants(players, gamma, maxActions, T)
	if !(alpha > 0 && alpha <= c.InnerAlpha) {
		return fmt.Errorf("metalearn: inner step size α = %v is outside the guaranteed range (0, %v] = (0, min((1−γ)³/(2NγA_max), 1/L_G)] (Lemma 14, spec E10)", alpha, c.InnerAlpha)
	}
	lf := metaSmoothness(c, alpha, T)
	if !(eta > 0 && eta <= 1/lf) {
		return fmt.Errorf("metalearn: outer step size η = %v is outside the guaranteed range (0, 1/L_F] = (0, %v] (Theorem 4, L_F = %v at α = %v, T = %d)", eta, 1/lf, lf, alpha, T)
	}
	return nil
}

// QAscentMaxAlpha returns the largest step size of Prop. 1 (from Ding et
// al. [15]) for projected Q-ascent (7) on a discounted Markov potential
// game, (1−γ)⁴/(8κ³N·A_max), where κ ≥ 1 is the distribution mismatch
// coefficient sup_θ ‖d_ρ^θ/ρ‖_∞ (spec §1.4). Any upper bound on κ (for
// instance 1/min_s ρ(s)) gives a smaller, still admissible, step. It
// returns NaN if kappa < 1 or is not finite, players < 1, maxActions < 1
// or gamma is outside [0, 1).
func QAscentMaxAlpha(kappa float64, players, maxActions int, gamma float64) float64 {
	if !(kappa >= 1) || math.IsInf(kappa, 0) || players < 1 || maxActions < 1 || !(gamma >= 0 && gamma < 1) {
		return math.NaN()
	}
	g := 1 - gamma
	return g * g * g * g / (8 * kappa * kappa * kappa * float64(players) * float64(maxActions))
}

// CheckQAscentStepSize returns nil if α is positive and at most
// [QAscentMaxAlpha](kappa, players, maxActions, gamma), the guaranteed
// regime of Prop. 1, and otherwise an error naming α and the bound (or
// the invalid argument).
func CheckQAscentStepSize(alpha, kappa float64, players, maxActions int, gamma float64) error {
	bound := QAscentMaxAlpha(kappa, players, maxActions, gamma)
	if math.IsNaN(bound) {
		return fmt.Errorf("metalearn: Prop. 1 bound needs κ ≥ 1 finite, N ≥ 1, A_max ≥ 1 and γ ∈ [0, 1) (got κ = %v, N = %d, A_max = %d, γ = %v)", kappa, players, maxActions, gamma)
	}
	if !(alpha > 0 && alpha <= bound) {
		return fmt.Errorf("metalearn: step size α = %v is outside the guaranteed range (0, %v] = (0, (1−γ)⁴/(8κ³N·A_max)] of Prop. 1 (κ = %v, N = %d, A_max = %d, γ = %v)", alpha, bound, kappa, players, maxActions, gamma)
	}
	return nil
}
