package metalearn

import (
	"fmt"
	"math"
	"runtime"

	"github.com/icrl-go/icrl/internal/parallel"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/markov"
)

// This file implements independent projected Q-ascent (7) of
// multi-agent-meta-rl (§4, App. C) for Markov potential games, in its
// finite-horizon and discounted forms.

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
	// κ = sup_θ ‖d_ρ^θ/ρ‖_∞ ≥ 1 (App. C; 1/min_s ρ(s) is always an
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
	// V^{μ,ν}_1(s_1) (markov.Episodic.CoopNEGap, §2) when the game
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
		return fmt.Errorf("%w: step size α = %v must be positive and finite", icrl.ErrInvalid, cfg.Alpha)
	}
	if cfg.T < 0 {
		return fmt.Errorf("%w: number of iterations T = %d must be ≥ 0", icrl.ErrInvalid, cfg.T)
	}
	return checkCheckpoints(cfg.Checkpoints, 0, cfg.T)
}

// QAscent runs independent projected Q-ascent on the finite-horizon
// N-player game m from the product policy init: the finite-horizon form
// of (7) used by the paper's simulation (App. F.2, inferred
// there since the paper writes only the discounted form),
//
//	π^t_{h,i}(·|s) ← Proj_Δ(π^{t−1}_{h,i}(·|s) + α Q̄^{π^{t−1}}_{h,i}(s, ·)),
//	Q̄^π_{h,i}(s, a_i) = Σ_{a_{−i}} π_{h,−i}(a_{−i}|s) Q^π_{h,i}(s, (a_i, a_{−i})),
//
// for every step h, state s and player i simultaneously, with the exact
// Q-functions of π^{t−1} (no visitation weighting) and the Euclidean
// projection onto the simplex (simplex.ProjectSimplex). For a Markov team
// this is the policy iteration of Ding et al. [15] on the potential; the
// paper's step size is α = 0.05 with H = 10 and T = 1000.
//
// Each iteration is one backward pass: at step h, with V_{h+1} of
// π^{t−1} known, it computes Q_{h,i}(s, ·) for all joint actions, then in
// one sweep Q̄_{h,i}(s, ·) (player i's Q-tensor over the joint actions
// contracted with the other players' old π_h(·|s), one player at a time)
// and V_{h,i}(s) = Σ_a π_{h,i}(a|s) Q̄_{h,i}(s, a), and only then
// overwrites π_h(·|s). The Q-functions come from one backup of the N
// next-step value vectors per step through the game's transition kernel
// (markov.Kernel.Expect: O(S·J·S·N) for a dense table, much less for a
// sparse or product kernel such as the tracking game's); the rest costs
// O(S·J·N) per step with no allocation in the serial case, and games with
// S·J·N ≥ 2^14 split the states of each step over runtime.GOMAXPROCS(0)
// goroutines (the result does not depend on the split). Checkpoints add
// an evaluation and N best responses each (markov.Episodic.NEGap). The
// F.2 run (2 players, 2 states, 2 actions, H = 10, T = 1000) takes a few
// milliseconds (BenchmarkQAscentF2).
//
// It returns an error if m is nil, init is not a valid product policy (the
// error names the player, step and state), the configuration is invalid
// (α not positive and finite, T < 0, checkpoints out of range or not
// increasing, Kappa non-zero) or a projection input is not finite.
//
// m is a *markov.Episodic or any markov.EpisodicModel, such as a
// caller's own struct, tabulated once by markov.TabulateEpisodic.
func QAscent(m markov.EpisodicModel, init markov.Product, cfg QAscentConfig) (*QAscentResult, error) {
	g, err := tabulate("QAscent", m)
	if err != nil {
		return nil, err
	}
	if err := checkQAscentConfig(cfg); err != nil {
		return nil, err
	}
	if cfg.Kappa != 0 {
		return nil, fmt.Errorf("%w: QAscent: Kappa = %v: the finite-horizon form has no step-size guarantee (use QAscentDiscounted)", icrl.ErrInvalid, cfg.Kappa)
	}
	if err := g.CheckProduct(init); err != nil {
		return nil, err
	}
	r := newQARun(g, init, cfg)
	if err := r.record(0); err != nil {
		return nil, err
	}
	for r.t = 1; r.t <= cfg.T; r.t++ {
		clear(r.vNext)
		for r.h = r.H - 1; r.h >= 0; r.h-- {
			if err := r.step(); err != nil {
				return nil, err
			}
		}
		if err := r.record(r.t); err != nil {
			return nil, err
		}
	}
	return r.res, nil
}

// qaRun is the state of one run of [QAscent]: the working policies (each
// player's in one backing array), the backups of the current step and the
// per-worker scratch. Large games split the states of each step over the
// cores, in contiguous chunks with their own scratch; every state writes
// only its own entries, so the result does not depend on the split.
type qaRun struct {
	g           *markov.Episodic
	cfg         QAscentConfig
	N, H, S, J  int
	A           []int // actions per player
	qoff        []int // offsets of the players' Q̄ in qaScratch.qbar
	pol         markov.Product
	flat        [][]float64 // flat[i][(h·S+s)·A_i + a] = π_i(a|h, s)
	e           []float64   // e[i·S·J + s·J + j] = Σ_{s'} P_h(s'|s, j) V_{h+1,i}(s')
	vNext, vCur []float64   // V_{h+1} and V_h, [i·S + s]
	scratch     []qaScratch
	errs        []error
	t, h        int // current iteration and step
	ck          int // next checkpoint
	res         *QAscentResult
	sweepThunk  func(w, lo, hi int)
}

// newQARun copies init into the working policies and allocates the run.
func newQARun(g *markov.Episodic, init markov.Product, cfg QAscentConfig) *qaRun {
	N, H, S, J := g.Players(), g.Horizon(), g.States(), g.NumJoint()
	r := &qaRun{g: g, cfg: cfg, N: N, H: H, S: S, J: J, A: make([]int, N), qoff: make([]int, N+1)}
	amax := 0
	for i := range N {
		r.A[i] = g.Actions(game.Player(i))
		amax = max(amax, r.A[i])
		r.qoff[i+1] = r.qoff[i] + r.A[i]
	}
	r.pol, r.flat = make(markov.Product, N), make([][]float64, N)
	for i := range r.A {
		r.pol[i] = init[i].Clone()
		r.flat[i] = r.pol[i].Data()
	}
	r.e, r.vNext, r.vCur = make([]float64, S*J*N), make([]float64, N*S), make([]float64, N*S)
	workers := 1
	if S*J*N >= potParallelWork {
		workers = min(runtime.GOMAXPROCS(0), S)
	}
	r.scratch, r.errs = make([]qaScratch, workers), make([]error, workers)
	for w := range r.scratch {
		r.scratch[w] = qaScratch{
			q: make([]float64, J*N), qbar: make([]float64, r.qoff[N]), y: make([]float64, amax),
			t: make([]float64, J), base: make([]int, N), cur: make([][]float64, N),
		}
	}
	r.res = &QAscentResult{Last: r.pol}
	r.sweepThunk = r.sweep // one method value for the whole run: no allocation per step
	return r
}

// record appends the checkpoints of iteration t.
func (r *qaRun) record(t int) error {
	return recordCheckpoints(r.cfg.Checkpoints, &r.ck, t, &r.res.Checkpoints,
		func() (QAscentCheckpoint, error) { return qAscentCheckpoint(r.g, r.pol, t) })
}

// recordCheckpoints appends eval() to out once for every checkpoint at
// iteration t, advancing *next, the index of the next checkpoint in cps.
func recordCheckpoints[C any](cps []int, next *int, t int, out *[]C, eval func() (C, error)) error {
	for *next < len(cps) && cps[*next] == t {
		c, err := eval()
		if err != nil {
			return err
		}
		*out = append(*out, c)
		*next++
	}
	return nil
}

// step updates every state of step h: the backups through the game's
// transition kernel, then the states in parallel chunks.
func (r *qaRun) step() error {
	r.g.Kernel(r.h).Expect(r.e, r.vNext, r.N)
	parallel.Blocks(r.S, len(r.scratch), r.sweepThunk)
	for _, err := range r.errs { // the lowest failing state's error
		if err != nil {
			return err
		}
	}
	r.vNext, r.vCur = r.vCur, r.vNext
	return nil
}

// sweep updates the states [lo, hi) of step h with worker w's scratch.
func (r *qaRun) sweep(w, lo, hi int) {
	r.errs[w] = nil
	for s := lo; s < hi; s++ {
		if r.errs[w] = r.state(s, &r.scratch[w]); r.errs[w] != nil {
			return
		}
	}
}

// state updates π_h(·|s) and V_h(s) of every player.
func (r *qaRun) state(s int, sc *qaScratch) error {
	N, S, J, h := r.N, r.S, r.J, r.h
	q, base, cur := sc.q, sc.base, sc.cur
	// Q_{h,i}(s, j) of π^{t−1}.
	rs := r.g.Rewards(h, s)
	for i := range N {
		ei := r.e[i*S*J+s*J : i*S*J+(s+1)*J]
		qi := q[i*J : (i+1)*J]
		for j, x := range ei {
			qi[j] = rs[j*N+i] + x
		}
	}
	for i, Ai := range r.A {
		base[i] = (h*S + s) * Ai
		cur[i] = r.flat[i][base[i] : base[i]+Ai]
	}
	// V_{h,i}(s) and Q̄_{h,i}(s, ·) under the old π_h(·|s).
	for i := range N {
		qb := sc.qbar[r.qoff[i]:r.qoff[i+1]]
		copy(qb, r.marginal(i, q[i*J:(i+1)*J], sc.t[:J], cur))
		var vi float64
		for a, w := range cur[i] {
			vi += w * qb[a]
		}
		r.vCur[i*S+s] = vi
	}
	// The projected ascent step (7).
	for i, Ai := range r.A {
		cur := r.flat[i][base[i] : base[i]+Ai]
		qi := sc.qbar[r.qoff[i]:r.qoff[i+1]]
		yi := sc.y[:Ai]
		for a, x := range cur {
			yi[a] = x + r.cfg.Alpha*qi[a]
		}
		if err := potProject(cur, yi); err != nil {
			return fmt.Errorf("metalearn: QAscent: iteration %d, step %d, state %d, player %d: %w", r.t, h, s, i, err)
		}
	}
	return nil
}

// marginal returns Q̄_i(s, ·): player i's Q-tensor t (axes a_0 … a_{N−1},
// a_0 most significant) contracted with the other players' policies cur,
// the leading axes first, then the trailing ones. t and u (of the same
// length) are overwritten; the result aliases one of them.
func (r *qaRun) marginal(i int, t, u []float64, cur [][]float64) []float64 {
	A, size := r.A, len(t)
	for k := range i { // leading axis k: T'[y] = Σ_a π_k(a) T[a·Y + y]
		Y := size / A[k]
		out := u[:Y]
		pk := cur[k]
		for y := range out {
			out[y] = pk[0] * t[y]
		}
		for a := 1; a < A[k]; a++ {
			for y, x := range t[a*Y : (a+1)*Y] {
				out[y] += pk[a] * x
			}
		}
		t, u, size = out, t, Y
	}
	for k := r.N - 1; k > i; k-- { // trailing axis k: T'[x] = Σ_a π_k(a) T[x·A_k + a]
		X := size / A[k]
		out := u[:X]
		pk := cur[k]
		for x := range out {
			var acc float64
			for a, w := range pk {
				acc += w * t[x*A[k]+a]
			}
			out[x] = acc
		}
		t, u, size = out, t, X
	}
	return t[:A[i]]
}

// qaScratch is one worker's scratch space in [QAscent].
type qaScratch struct {
	q, qbar, y, t []float64
	base          []int
	cur           [][]float64
}

// potParallelWork is the work per step, S·J·N multiply-adds after the
// backup, from which QAscent splits the states over the cores.
const potParallelWork = 1 << 14

// potProject stores in dst the Euclidean projection of y onto the simplex:
// the closed form for two actions, simplex.ProjectSimplex otherwise. It returns
// an error if y is not finite.
func potProject(dst, y []float64) error {
	if len(y) == 2 {
		d := y[0] - y[1]
		switch {
		case math.IsNaN(d) || math.IsInf(d, 0):
			return simplex.ProjectSimplex(dst, y)
		case d >= 1:
			dst[0], dst[1] = 1, 0
		case d <= -1:
			dst[0], dst[1] = 0, 1
		default:
			dst[0], dst[1] = (1+d)/2, (1-d)/2
		}
		return nil
	}
	return simplex.ProjectSimplex(dst, y)
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
		c.Values[i] = v.At(0, i, g.Start())
	}
	if g.Players() == 2 && g.Cooperative() {
		if c.CoopGap, err = g.CoopNEGap(pi[0], pi[1]); err != nil {
			return QAscentCheckpoint{}, err
		}
	}
	return c, nil
}
