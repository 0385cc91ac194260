package metalearn

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// OOMDConfig configures Algorithm 1 ([ZeroSumOOMD]) and Algorithm 2
// ([GeneralSumOOMD]).
type OOMDConfig struct {
	// Eta is the step size η > 0. Theorem 1 needs η ≤ 1/(8H²); the paper's
	// simulations use 0.02, above Theorem 1's η ≤ 1/(8H²).
	Eta float64
	// T is the number of iterations, T ≥ 1.
	T int
	// WarmStages, when true, skips the per-stage reset of line 10: each
	// stage starts from the previous stage's last policies. This variant is
	// outside the paper's theory, whose analysis needs the reset; the default (false) is the
	// literal algorithm.
	WarmStages bool
	// TieTol is the relative tolerance for ties between hindsight best
	// responses (Algorithm 1); zero means 1e-9.
	TieTol float64
	// Checkpoints lists iterations t (1 ≤ t ≤ T, increasing) at which the
	// run records the NE-gap (zero-sum) or CCE-gap (general-sum) and the
	// values of the running-average output of the first t iterations.
	Checkpoints []int
}

// zsTieTol is the relative tie tolerance of Algorithm 1's hindsight best
// responses when OOMDConfig.TieTol is zero (Algorithm 1).
const zsTieTol = 1e-9

// ZeroSumInit is the per-stage initialisation (μ̃, ν̃) of Algorithm 1 for
// the max-player (Mu, with A actions) and the min-player (Nu, with B
// actions). Both have τ̄ stages (see [NewSchedule]).
type ZeroSumInit struct {
	Mu, Nu *Staged
}

// UniformZeroSumInit returns the uniform per-stage initialisation of
// Algorithm 1 for the zero-sum game m run for T iterations: τ̄ stages (the
// length of NewSchedule(H, T)), H steps and S states of uniform
// distributions over the A (Mu) and B (Nu) actions. It is the
// initialisation of Theorem 1's uniform-init corollary (4) and of the first
// game of the meta-learner (§3.2). It returns an error if m is nil or
// not two-player zero-sum, or T < 1.
//
// m is a *markov.Episodic or any markov.EpisodicModel, such as a
// caller's own struct, tabulated once by markov.TabulateEpisodic.
func UniformZeroSumInit(m markov.EpisodicModel, T int) (ZeroSumInit, error) {
	g, err := tabulate("UniformZeroSumInit", m)
	if err != nil {
		return ZeroSumInit{}, err
	}
	if !g.ZeroSum() {
		return ZeroSumInit{}, fmt.Errorf("%w: game is not two-player zero-sum", icrl.ErrInvalid)
	}
	sched, err := NewSchedule(g.Horizon(), T)
	if err != nil {
		return ZeroSumInit{}, err
	}
	return ZeroSumInit{
		Mu: UniformStaged(len(sched), g.Horizon(), g.States(), g.Actions(0)),
		Nu: UniformStaged(len(sched), g.Horizon(), g.States(), g.Actions(1)),
	}, nil
}

// ZeroSumCheckpoint is the state of a run of Algorithm 1 after iteration T
// of the running average (μ̄, ν̄) of the first T iterations.
type ZeroSumCheckpoint struct {
	T int
	// Gap is NE-gap(μ̄, ν̄) = V^{†,ν̄}_1(s_1) − V^{μ̄,†}_1(s_1).
	Gap float64
	// Value is V^{μ̄,ν̄}_1(s_1), the max-player's value.
	Value float64
}

// ZeroSumResult is the output and the recorded statistics of a run of
// Algorithm 1. Stage-indexed tables have one entry per stage of Schedule
// (including a partial last stage), then per step h and state s.
type ZeroSumResult struct {
	// Mu and Nu are the output policies μ̄, ν̄: the state-wise averages of
	// the played policies over all T iterations.
	Mu, Nu *markov.Policy
	// Schedule is the stage schedule of the run.
	Schedule Schedule
	// BRMu and BRNu are the hindsight best responses μ^{τ,†}, ν^{τ,†} of
	// (3) and (14) per stage, step and state, with the KL-minimal tie-break
	// of Algorithm 1.
	BRMu, BRNu *Staged
	// AvgMu and AvgNu are the stage averages of the played policies.
	AvgMu, AvgNu *Staged
	// Regret is the K×H×S×2 table of reg^τ_{h,1}(s) and reg^τ_{h,2}(s)
	// of (3) and (14): Regret.Row(k, h, s) holds both players' regrets at
	// stage k.
	Regret *tensor.Dense[float64]
	// Q is the K×H×S×J table of the stage Q-functions Q_h^τ used during
	// each stage: Q.At(k, h, s, a·B+b) (Q.Sub(0) ≡ 0).
	Q *tensor.Dense[float64]
	// Checkpoints holds the gaps requested by OOMDConfig.Checkpoints.
	Checkpoints []ZeroSumCheckpoint
}

// ZeroSumOOMD runs Algorithm 1 of multi-agent-meta-rl (Mao et al., NeurIPS
// 2023), optimistic online mirror descent with the
// negative-entropy regulariser and stage-based value updates, on the
// two-player zero-sum episodic game m from the per-stage initialisation
// init, and returns the output policies, the recorded stage statistics and
// the requested checkpoints.
//
// For every iteration t = 1, …, T, every step h and state s, both players
// update simultaneously from the iteration-(t−1) policies with the
// entropic steps of Algorithm 1,
//
//	μ̂^t ∝ μ̂^{t−1}·exp(η [Q^τ_h ν^{t−1}_h](s,·)),  μ^t ∝ μ̂^t·exp(η [Q^τ_h ν^{t−1}_h](s,·)),
//	ν̂^t ∝ ν̂^{t−1}·exp(−η [(μ^{t−1}_h)ᵀQ^τ_h](s,·)), ν^t ∝ ν̂^t·exp(−η [(μ^{t−1}_h)ᵀQ^τ_h](s,·)),
//
// with the min-player's sign corrected (the paper prints an argmax of
// +⟨ν, μᵀQ⟩) and Q^1 ≡ 0, so that every stage-1 iterate equals the stage-1
// initialisation exactly (tested; an update whose gradient is constant
// over the actions returns its centre unchanged). Stage τ runs L_τ
// iterations of the schedule of [NewSchedule] (with the lost minus sign of
// line 7 restored). When a stage ends,
// before anything is reset, the run records for every (h, s):
//
//   - the stage averages μ̄^τ_h, ν̄^τ_h of the played policies (AvgMu, AvgNu);
//   - the per-state regrets (3) and (14),
//     reg^τ_{h,1}(s) = max_a [Q^τ_h ν̄^τ_h](s,a) − v̄^τ_h(s) and
//     reg^τ_{h,2}(s) = v̄^τ_h(s) − min_b [(μ̄^τ_h)ᵀQ^τ_h](s,b), where
//     v̄^τ_h(s) = (1/L_τ) Σ_j ⟨μ^j_h, Q^τ_h ν^j_h⟩(s) averages the
//     per-iteration products;
//   - the hindsight best responses μ^{τ,†}, ν^{τ,†}, maximisers of (3) and
//     (14): among the maximising actions (ties within the relative tolerance
//     cfg.TieTol, default 1e-9) the KL-closest distribution to the stage
//     initialisation μ̃^τ_h(·|s), ν̃^τ_h(·|s) (the paper leaves ties open),
//     so that in stage 1, where Q ≡ 0, they equal the initialisation.
//
// A complete stage is then followed by the value update of line 9,
//
//	Q^{τ+1}_h(s,a,b) = r_h(s,a,b) + Σ_{s'} P_h(s'|s,a,b) v̄^τ_{h+1}(s'),  v̄_{H+1} ≡ 0,
//
// which uses the old Q^τ_{h+1} for all h at once and averages the
// per-iteration products (not the product of the averages),
// and by the reset of line 10: the prox centres μ̂, ν̂ and the "previous"
// policies that enter the next iteration's gradients become μ̃^{τ+1},
// ν̃^{τ+1}, while the played policies of the ending iteration stay in the
// output average and in the value update (line 10 overwrites them; App.
// B.2 confirms they are distinct).
// With cfg.WarmStages the reset is skipped (a variant outside the theory,
// whose analysis needs the reset). The last stage may be cut short by T:
// it gets no value update, its regrets, best responses and averages use
// the iterations it actually ran, and its iterations count in the output.
//
// The output is μ̄_h(·|s) = (1/T) Σ_t μ^t_h(·|s) and likewise ν̄ (line 11),
// the average of the played policies over all T iterations, including
// stage 1 and the partial last stage. For every t in cfg.Checkpoints the
// run records NE-gap (markov.Episodic.ZeroSumNEGap) and the value
// V^{μ̄,ν̄}_1(s_1) of the running average of the first t iterations (the
// quantity plotted in App. F.1), computed from running sums
// only at the checkpoints. Theorem 1 bounds NE-gap(μ̄, ν̄) by
// [Theorem1Bound] when η ≤ 1/(8H²).
//
// ZeroSumOOMD returns an error, naming the bad value, if m is nil or not a
// two-player zero-sum game (markov.Episodic.ZeroSum), cfg.Eta is not
// positive and finite, cfg.T < 1, cfg.TieTol is negative or not finite,
// cfg.Checkpoints is not strictly increasing in [1, T], or init.Mu or
// init.Nu does not have τ̄ stages (len(NewSchedule(H, T))), H steps and S
// states of distributions over A or B actions (Staged.Check).
//
// Each iteration costs O(H·S·A·B) time (four entropic steps and two
// matrix–vector products per step and state) and allocates nothing; each
// stage end costs O(H·S·A·B·S) for the value update, and each checkpoint
// two best responses and one evaluation, O(H·S·A·B·S). Memory is
// O(τ̄·H·S·A·B) for the recorded stage Q tables and O(τ̄·H·S·(A+B)) for the
// other stage statistics, with τ̄ ≤ 4H ln T. ZeroSumOOMD does not modify
// m or init and keeps no reference to init; it has no global state, so
// concurrent calls are safe (a table is immutable; a caller's model must
// allow concurrent calls of its methods).
//
// m is a *markov.Episodic or any markov.EpisodicModel, such as a
// caller's own struct, tabulated once by markov.TabulateEpisodic.
func ZeroSumOOMD(m markov.EpisodicModel, init ZeroSumInit, cfg OOMDConfig) (*ZeroSumResult, error) {
	g, err := tabulate("ZeroSumOOMD", m)
	if err != nil {
		return nil, err
	}
	return zeroSumOOMD(g, init, cfg, nil)
}

// zsIterHook observes one iteration of Algorithm 1: t is the 1-based
// iteration, k the 0-based stage, prevMu and prevNu the policies
// μ^{t−1}, ν^{t−1} that entered the gradients (the reset initialisation at
// the first iteration of a stage), and mu, nu the played policies μ^t,
// ν^t, all flat with index (h·S+s)·A+a (resp. B). The slices are views
// that are only valid during the call.
type zsIterHook func(t, k int, prevMu, prevNu, mu, nu []float64)

// zeroSumOOMD is ZeroSumOOMD with an optional per-iteration hook, used by
// the tests of the per-iteration lemmas (Lemma 8).
func zeroSumOOMD(g *markov.Episodic, init ZeroSumInit, cfg OOMDConfig, hook zsIterHook) (*ZeroSumResult, error) {
	r, err := newZSRun(g, init, cfg, hook)
	if err != nil {
		return nil, err
	}
	for t := 1; t <= cfg.T; t++ {
		r.iterate(t)
		if err := r.checkpoint(t); err != nil {
			return nil, err
		}
		if t != r.sched[r.k].End {
			continue
		}
		r.stageStatistics()
		if r.k == len(r.sched)-1 {
			break // the last stage gets no value update
		}
		r.nextStage()
	}
	r.res.Mu = averagePolicy(r.tMu, cfg.T, r.H, r.S, r.A)
	r.res.Nu = averagePolicy(r.tNu, cfg.T, r.H, r.S, r.B)
	return r.res, nil
}

// zsRun is the state of one run of Algorithm 1: the validated inputs, the
// result being filled and the working arrays, flat with index
// (h·S+s)·A+a (resp. B, J = A·B).
type zsRun struct {
	g              *markov.Episodic
	init           ZeroSumInit
	cfg            OOMDConfig
	hook           zsIterHook
	tol            float64
	sched          []Stage
	H, S, A, B, J  int
	res            *ZeroSumResult
	qFlat          []float64 // stage Q tables, stage-major
	k              int       // current stage, 0-based
	nextCP         int       // index of the next checkpoint
	muHat, nuHat   []float64 // prox centres μ̂^t
	mu, nu         []float64 // played μ^t (μ^{t−1} before the update)
	gMu, gNu       []float64 // [Q ν^{t−1}](s,·) and −[(μ^{t−1})ᵀQ](s,·)
	sMu, sNu, sVal []float64 // stage sums of μ^j, ν^j and ⟨μ^j, Q ν^j⟩
	tMu, tNu       []float64 // sums of μ^t, ν^t over all t so far
	vBar           []float64 // v̄^τ_h(s) of the ending stage
	score, ebuf    []float64
	prevMu, prevNu []float64 // copies for the hook
}

// newZSRun validates the inputs of [ZeroSumOOMD] and allocates the run.
func newZSRun(g *markov.Episodic, init ZeroSumInit, cfg OOMDConfig, hook zsIterHook) (*zsRun, error) {
	tol, err := zsValidate(g, cfg)
	if err != nil {
		return nil, err
	}
	r := &zsRun{g: g, init: init, cfg: cfg, hook: hook, tol: tol}
	r.H, r.S, r.A, r.B = g.Horizon(), g.States(), g.Actions(0), g.Actions(1)
	r.J = r.A * r.B
	if r.sched, err = NewSchedule(r.H, cfg.T); err != nil {
		return nil, err
	}
	if err := CheckStaged("init.Mu", init.Mu, len(r.sched), r.H, r.S, r.A); err != nil {
		return nil, err
	}
	if err := CheckStaged("init.Nu", init.Nu, len(r.sched), r.H, r.S, r.B); err != nil {
		return nil, err
	}
	r.allocResult()
	HS, A, B := r.H*r.S, r.A, r.B
	r.muHat, r.nuHat = make([]float64, HS*A), make([]float64, HS*B)
	r.mu, r.nu = make([]float64, HS*A), make([]float64, HS*B)
	r.gMu, r.gNu = make([]float64, HS*A), make([]float64, HS*B)
	r.sMu, r.sNu, r.sVal = make([]float64, HS*A), make([]float64, HS*B), make([]float64, HS)
	r.tMu, r.tNu = make([]float64, HS*A), make([]float64, HS*B)
	r.vBar = make([]float64, HS)
	r.score, r.ebuf = make([]float64, max(A, B)), make([]float64, max(A, B))
	if hook != nil {
		r.prevMu, r.prevNu = make([]float64, HS*A), make([]float64, HS*B)
	}
	copy(r.muHat, init.Mu.Sub(0).Data())
	copy(r.nuHat, init.Nu.Sub(0).Data())
	copy(r.mu, r.muHat)
	copy(r.nu, r.nuHat)
	// Q^1 ≡ 0, so the first gradients are zero (gMu, gNu already are).
	return r, nil
}

// zsValidate checks g and cfg and returns the tie tolerance to use.
func zsValidate(g *markov.Episodic, cfg OOMDConfig) (float64, error) {
	if g == nil {
		return 0, fmt.Errorf("%w: nil game", icrl.ErrNil)
	}
	if !g.ZeroSum() {
		return 0, fmt.Errorf("%w: game with %d players is not two-player zero-sum", icrl.ErrInvalid, g.Players())
	}
	if !(cfg.Eta > 0) || math.IsInf(cfg.Eta, 0) {
		return 0, fmt.Errorf("%w: step size η = %v must be positive and finite", icrl.ErrInvalid, cfg.Eta)
	}
	if cfg.T < 1 {
		return 0, fmt.Errorf("%w: number of iterations T = %d must be ≥ 1", icrl.ErrInvalid, cfg.T)
	}
	tol := cfg.TieTol
	if !(tol >= 0) || math.IsInf(tol, 0) {
		return 0, fmt.Errorf("%w: tie tolerance %v must be non-negative and finite", icrl.ErrInvalid, tol)
	}
	if tol == 0 {
		tol = zsTieTol
	}
	if err := checkCheckpoints(cfg.Checkpoints, 1, cfg.T); err != nil {
		return 0, err
	}
	return tol, nil
}

// allocResult allocates the result's per-stage tables, each in one block.
func (r *zsRun) allocResult() {
	nStages, H, S, J := len(r.sched), r.H, r.S, r.J
	r.res = &ZeroSumResult{
		Schedule: r.sched,
		BRMu:     newStaged(nStages, H, S, r.A),
		BRNu:     newStaged(nStages, H, S, r.B),
		AvgMu:    newStaged(nStages, H, S, r.A),
		AvgNu:    newStaged(nStages, H, S, r.B),
		Regret:   newStaged(nStages, H, S, 2),
		Q:        newStaged(nStages, H, S, J),
	}
	r.qFlat = r.res.Q.Data()
}

// stageQ returns the flat Q table of stage k.
func (r *zsRun) stageQ(k int) []float64 {
	n := r.H * r.S * r.J
	return r.qFlat[k*n : (k+1)*n]
}

// iterate runs iteration t: lines 5 and 6 of Algorithm 1 from the
// iteration-(t−1) gradients, then the gradients for iteration t+1 and the
// running sums.
func (r *zsRun) iterate(t int) {
	if r.hook != nil {
		copy(r.prevMu, r.mu)
		copy(r.prevNu, r.nu)
	}
	A, B, J, eta := r.A, r.B, r.J, r.cfg.Eta
	q := r.stageQ(r.k)
	for hs := range r.H * r.S {
		gm := r.gMu[hs*A : (hs+1)*A]
		gn := r.gNu[hs*B : (hs+1)*B]
		m := r.mu[hs*A : (hs+1)*A]
		n := r.nu[hs*B : (hs+1)*B]
		oomdStep(r.muHat[hs*A:(hs+1)*A], m, gm, eta, r.ebuf)
		oomdStep(r.nuHat[hs*B:(hs+1)*B], n, gn, eta, r.ebuf)
		r.sVal[hs] += zsGradients(gm, gn, q[hs*J:(hs+1)*J], m, n)
		addTo(r.sMu[hs*A:(hs+1)*A], m)
		addTo(r.sNu[hs*B:(hs+1)*B], n)
		addTo(r.tMu[hs*A:(hs+1)*A], m)
		addTo(r.tNu[hs*B:(hs+1)*B], n)
	}
	if r.hook != nil {
		r.hook(t, r.k, r.prevMu, r.prevNu, r.mu, r.nu)
	}
}

// checkpoint records the gap of the running average if t is the next
// checkpoint.
func (r *zsRun) checkpoint(t int) error {
	cps := r.cfg.Checkpoints
	if r.nextCP >= len(cps) || cps[r.nextCP] != t {
		return nil
	}
	cp, err := zsCheckpoint(r.g, t, r.tMu, r.tNu)
	if err != nil {
		return err
	}
	r.res.Checkpoints = append(r.res.Checkpoints, cp)
	r.nextCP++
	return nil
}

// stageStatistics records, at the end of stage k and before the reset,
// the stage averages, the regrets and the hindsight best responses of
// both players (Algorithm 1), and stores v̄^τ for the value update.
func (r *zsRun) stageStatistics() {
	k, S, A, B, J := r.k, r.S, r.A, r.B, r.J
	q := r.stageQ(k)
	inv := 1 / float64(r.sched[k].Iterations())
	for h := range r.H {
		for s := range S {
			hs := h*S + s
			am := r.res.AvgMu.Row(k, h, s)
			an := r.res.AvgNu.Row(k, h, s)
			for a := range am {
				am[a] = r.sMu[hs*A+a] * inv
			}
			for b := range an {
				an[b] = r.sNu[hs*B+b] * inv
			}
			vb := r.sVal[hs] * inv
			r.vBar[hs] = vb
			qs := q[hs*J : (hs+1)*J]
			// Max-player: score(a) = [Q ν̄](s,a).
			sc := r.score[:A]
			for a := range A {
				row := qs[a*B : (a+1)*B]
				var x float64
				for b, p := range an {
					x += row[b] * p
				}
				sc[a] = x
			}
			r.res.Regret.Set(maxOf(sc)-vb, k, h, s, 0)
			hindsightBR(r.res.BRMu.Row(k, h, s), r.init.Mu.Row(k, h, s), sc, r.tol)
			// Min-player: score(b) = −[μ̄ᵀQ](s,b).
			sc = r.score[:B]
			clear(sc)
			for a, p := range am {
				row := qs[a*B : (a+1)*B]
				for b := range B {
					sc[b] -= p * row[b]
				}
			}
			r.res.Regret.Set(vb+maxOf(sc), k, h, s, 1)
			hindsightBR(r.res.BRNu.Row(k, h, s), r.init.Nu.Row(k, h, s), sc, r.tol)
		}
	}
}

// nextStage runs line 9 of Algorithm 1 (the value update of the next
// stage's Q from the old Q^τ_{h+1}, through v̄), moves to the next stage
// and runs line 10 (the reset of the prox centres and previous policies,
// kept apart from the played policies, unless warm-started).
func (r *zsRun) nextStage() {
	H, S, A, B, J := r.H, r.S, r.A, r.B, r.J
	qn := r.stageQ(r.k + 1)
	for h := range H {
		for s := range S {
			for j := range J {
				x := r.g.StepReward(h, s, j, 0)
				if h+1 < H {
					for s2, p := range r.g.StepTransition(h, s, j) {
						x += p * r.vBar[(h+1)*S+s2]
					}
				}
				qn[(h*S+s)*J+j] = x
			}
		}
	}
	r.k++
	if !r.cfg.WarmStages {
		copy(r.muHat, r.init.Mu.Sub(r.k).Data())
		copy(r.nuHat, r.init.Nu.Sub(r.k).Data())
		copy(r.mu, r.muHat)
		copy(r.nu, r.nuHat)
	}
	for hs := range H * S {
		zsGradients(r.gMu[hs*A:(hs+1)*A], r.gNu[hs*B:(hs+1)*B], qn[hs*J:(hs+1)*J], r.mu[hs*A:(hs+1)*A], r.nu[hs*B:(hs+1)*B])
	}
	clear(r.sMu)
	clear(r.sNu)
	clear(r.sVal)
}

// Theorem1Bound returns the init-dependent right-hand side of Theorem 1 of
// multi-agent-meta-rl (first display),
//
//	(192H³/T) Σ_{h=1}^{H} Σ_{τ=1}^{τ̄} max_s ( KL(μ^{τ,†}_h(·|s)‖μ̃^τ_h(·|s)) + KL(ν^{τ,†}_h(·|s)‖ν̃^τ_h(·|s)) ),
//
// an upper bound on NE-gap(μ̄, ν̄) of the run res of [ZeroSumOOMD] from
// init when η ≤ 1/(8H²) (the paper's simulations use η = 0.02, above
// it), where H = horizon, T is the run's
// number of iterations, the KL divergences (simplex.KL) compare the recorded
// hindsight best responses with the stage initialisations, and the maximum
// over states is taken of the sum of the two players' terms, as in the
// display (the aggregation of App. B.3). With the KL-minimal tie-break every
// term is −ln μ̃^τ_h(M|s) for the maximising set M, so stage 1 contributes
// 0. The sum runs over every stage, including a partial last one. It
// returns +Inf if a best response puts mass where the initialisation has
// none. It panics if res and init have inconsistent shapes. The cost is
// O(τ̄·H·S·(A+B)).
func Theorem1Bound(res *ZeroSumResult, init ZeroSumInit, horizon int) float64 {
	var sum float64
	for k := range res.BRMu.Dim(0) {
		for h := range res.BRMu.Dim(1) {
			m := 0.0
			for s := range res.BRMu.Dim(2) {
				d := simplex.KL(res.BRMu.Row(k, h, s), init.Mu.Row(k, h, s)) + simplex.KL(res.BRNu.Row(k, h, s), init.Nu.Row(k, h, s))
				m = max(m, d)
			}
			sum += m
		}
	}
	H := float64(horizon)
	return 192 * H * H * H / float64(res.Schedule.Iterations()) * sum
}
