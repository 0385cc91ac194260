package metalearn

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// CCECheckpoint is the certified CCE-gap of the Algorithm 3 output of the
// first T iterations of a run of Algorithm 2.
type CCECheckpoint struct {
	T int
	// Gap is the certified CCE-gap (markov.Episodic.CertifiedCCEGap).
	Gap float64
	// PerPlayer are the players' signed terms.
	PerPlayer []float64
}

// GeneralSumResult is the output and the recorded statistics of a run of
// Algorithm 2. Stage-indexed tables have one entry per stage of Schedule.
type GeneralSumResult struct {
	// Schedule is the stage schedule of the run.
	Schedule Schedule
	// StageJoint[k] is ρ_{k}: the stage average of the played product
	// policies written as a correlated policy, ρ_{τ,h}(a|s) =
	// (1/L_τ) Σ_{j ∈ stage τ} Π_i π^j_{h,i}(a_i|s) (Algorithm 2, App. E.1). A partial
	// last stage is averaged over the iterations it ran.
	StageJoint []*markov.Correlated
	// BR[i] are player i's hindsight best responses π_i^{τ,†} (61): pure
	// up to ties, which are broken towards the stage initialisation
	// (the KL-minimal maximiser: the paper leaves ties open).
	BR []*Staged
	// Avg[i] are player i's stage-average policies (the marginals of
	// StageJoint).
	Avg []*Staged
	// Regret is the K×H×S×N table of reg^τ_{h,i}(s) of (61):
	// Regret.At(k, h, s, i).
	Regret *tensor.Dense[float64]
	// MaxStep is the largest ‖π^t_{h,i}(·|s) − π^{t−1}_{h,i}(·|s)‖₁ over
	// all iterations, players, steps and states (Lemma 18). At the first
	// iteration of a stage π^{t−1} is the stage's reset initialisation
	// (the prox centre in the proof of Lemma 8).
	MaxStep float64
	// Checkpoints holds the gaps requested by OOMDConfig.Checkpoints.
	Checkpoints []CCECheckpoint
}

// UniformGeneralSumInit returns the uniform per-stage initialisation of
// Algorithm 2 for T iterations on m: one *Staged per player with the τ̄
// stages of NewSchedule(H, T), H steps, S states and A_i actions. It
// returns an error if m is nil or T < 1. The cost is O(τ̄·H·S·Σ_i A_i).
//
// m is a *markov.Episodic or any markov.EpisodicModel, such as a
// caller's own struct, tabulated once by markov.TabulateEpisodic.
func UniformGeneralSumInit(m markov.EpisodicModel, T int) ([]*Staged, error) {
	g, err := tabulate("UniformGeneralSumInit", m)
	if err != nil {
		return nil, err
	}
	sched, err := NewSchedule(g.Horizon(), T)
	if err != nil {
		return nil, err
	}
	init := make([]*Staged, g.Players())
	for i := range init {
		init[i] = UniformStaged(len(sched), g.Horizon(), g.States(), g.Actions(game.Player(i)))
	}
	return init, nil
}

// GeneralSumOOMD runs Algorithm 2 of multi-agent-meta-rl (Appendix E.1;
// Algorithm 2, App. E.1), optimistic online mirror descent with the negative-entropy
// regulariser and stage-based value updates, which finds an approximate
// coarse correlated equilibrium of the N-player general-sum episodic game m
// (N ≥ 1) from the per-stage product initialisation init (init[i] is
// player i's π̃_i, with the τ̄ stages of NewSchedule(H, cfg.T), H steps,
// S states and A_i actions; see UniformGeneralSumInit).
//
// At iteration t of stage τ every player i, step h and state s updates
// simultaneously from the iteration-(t−1) policies, with the marginal
// gradient m(a_i) = [Q^τ_{h,i} π^{t−1}_{h,−i}](s, a_i) = Σ_{a_{−i}}
// Π_{k≠i} π^{t−1}_{h,k}(a_k|s) Q^τ_{h,i}(s, a_i, a_{−i}):
//
//	π̂^t ∝ π̂^{t−1}·exp(η m)  (auxiliary, line 5),
//	π^t ∝ π̂^t·exp(η m)      (policy, line 6).
//
// Q^1 ≡ 0, so the policies equal the initialisation during stage 1. At the
// end of a complete stage τ (Algorithm 1) the stage values are updated for
// all h at once from the old Q^τ (line 9),
//
//	Q^{τ+1}_{h,i}(s, a) = r_{h,i}(s, a) + Σ_{s'} P_h(s'|s, a) Σ_{a'} ρ_{τ,h+1}(a'|s') Q^τ_{h+1,i}(s', a'),
//
// which equals the paper's (1/L_τ) Σ_{t'} (r + P_h[Q^τ_{h+1,i} π^{t'}_{h+1}])
// because it is linear in the product policy: ρ_{τ,h} is the stage average
// of the joint (product) distributions, not the product of the averaged
// marginals. The per-stage reset of line 10 overwrites only the previous
// policy and the auxiliary policy (the prox centres); the played π^t enter
// ρ (Algorithm 2 prints one overwrite for both; they are kept apart, as
// App. B.2 does for Algorithm 1). cfg.WarmStages skips the reset, a
// variant outside the paper's theory, which needs the reset. The partial
// last stage gets no value update but its iterations count in the output.
//
// At each stage end the run records ρ_τ (StageJoint), the stage-average
// policies, the per-state regrets (61),
//
//	reg^τ_{h,i}(s) = max_{a_i} Σ_{a_{−i}} ρ^{(−i)}_{τ,h}(a_{−i}|s) Q^τ_{h,i}(s, a_i, a_{−i}) − Σ_a ρ_{τ,h}(a|s) Q^τ_{h,i}(s, a),
//
// and the pure hindsight best responses that attain the maximum, with ties
// (relative tolerance cfg.TieTol) broken towards the stage initialisation
// (Algorithm 1). At each iteration t in cfg.Checkpoints it records the
// certified CCE-gap (Algorithm 3, App. E) of the Algorithm 3 output of the first t
// iterations (see GeneralSumResult.Output and CertifiedCCEGap).
//
// It returns an error naming the bad value if m is nil, len(init) ≠ N, an
// initialisation has the wrong shape or is not a distribution, η is not
// positive and finite, T < 1, TieTol is negative or not finite, or the
// checkpoints are not increasing in [1, T].
//
// Each iteration costs O(H·S·J·N) time for the marginal gradients and the
// joint accumulation of ρ (J = Π_i A_i joint actions) plus O(H·S·Σ_i A_i)
// for the mirror steps, and does not allocate. Each stage end costs
// O(H·S·J·(S·N + Σ_i A_i)) and each checkpoint O(τ̄·H·S·J·S·N). Memory is
// O(H·S·J·N) for the stage values plus O(τ̄·H·S·(J + N·Σ_i A_i)) for the
// recorded tables.
//
// m is a *markov.Episodic or any markov.EpisodicModel, such as a
// caller's own struct, tabulated once by markov.TabulateEpisodic.
func GeneralSumOOMD(m markov.EpisodicModel, init []*Staged, cfg OOMDConfig) (*GeneralSumResult, error) {
	g, err := tabulate("GeneralSumOOMD", m)
	if err != nil {
		return nil, err
	}
	if !(cfg.Eta > 0) || math.IsInf(cfg.Eta, 1) {
		return nil, fmt.Errorf("%w: step size η = %v must be positive and finite", icrl.ErrInvalid, cfg.Eta)
	}
	if cfg.T < 1 {
		return nil, fmt.Errorf("%w: number of iterations T = %d must be ≥ 1", icrl.ErrInvalid, cfg.T)
	}
	if !(cfg.TieTol >= 0) || math.IsInf(cfg.TieTol, 1) {
		return nil, fmt.Errorf("%w: tie tolerance %v must be non-negative and finite", icrl.ErrInvalid, cfg.TieTol)
	}
	if err := checkCheckpoints(cfg.Checkpoints, 1, cfg.T); err != nil {
		return nil, err
	}
	sched, err := NewSchedule(g.Horizon(), cfg.T)
	if err != nil {
		return nil, err
	}
	if len(init) != g.Players() {
		return nil, fmt.Errorf("%w: %d initial policies for %d players", icrl.ErrInvalid, len(init), g.Players())
	}
	for i, p := range init {
		if stagedValid(p, len(sched), g.Horizon(), g.States(), g.Actions(game.Player(i))) {
			continue
		}
		if err := CheckStaged(fmt.Sprintf("init[%d]", i), p, len(sched), g.Horizon(), g.States(), g.Actions(game.Player(i))); err != nil {
			return nil, err
		}
	}
	return newGSRun(g, init, sched, cfg).run()
}

// stagedValid reports whether p has the given shape and holds finite,
// non-negative distributions summing to 1 within 1e-9, a sufficient
// condition for CheckStaged to pass (its tolerance is at least 1e-9),
// without its per-distribution formatting cost.
func stagedValid(p *Staged, stages, horizon, states, actions int) bool {
	if p == nil || p.Rank() != 4 || p.Dim(0) != stages || p.Dim(1) != horizon || p.Dim(2) != states || p.Dim(3) != actions {
		return false
	}
	d := p.Data()
	for o := 0; o < len(d); o += actions {
		var sum float64
		for _, v := range d[o : o+actions] {
			if !(v >= 0) || math.IsInf(v, 1) {
				return false
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 {
			return false
		}
	}
	return true
}

// gsRun is the working state of one run of Algorithm 2. Per-(h, s) policy
// blocks concatenate the players' distributions: player i's π_{h,i}(·|s)
// is pol[(h·S+s)·sumA + off[i] :][:A_i]. Stage values are stored like the
// game's rewards, q[((h·S+s)·J+j)·N+i].
type gsRun struct {
	g                 *markov.Episodic
	init              []*Staged
	sched             Schedule
	cfg               OOMDConfig
	n, hor, ns, nj    int
	sumA              int
	acts, off, stride []int
	tol               float64

	prev, cur, aux []float64              // π^{t−1}, π^t, π̂ (auxiliary)
	q, qNext       []float64              // Q^τ and Q^{τ+1}
	acc            []float64              // Σ_{t in stage} Π_i π^t_{h,i}(a_i|s), [(h·S+s)·J+j]
	grad           []float64              // per-(h, s) marginal gradients, sumA
	idx            []int                  // idx[j·N+i] = off[i] + a_i(j): joint action j's entries in a policy block
	pre            []float64              // prefix products, N
	v              []float64              // V_{h,i}(s) scratch for the value update, [(h·S+s)·N+i]
	score          []float64              // best-response scores, max_i A_i
	joints         *tensor.Dense[float64] // K×H×S×J storage of res.StageJoint, set at stage ends
	stageJoints    []*markov.Correlated   // its stages (views)
	expBuf, hatBuf []float64              // mirror-step scratch, max_i A_i

	res *GeneralSumResult
}

func newGSRun(g *markov.Episodic, init []*Staged, sched Schedule, cfg OOMDConfig) *gsRun {
	n, hor, ns, nj := g.Players(), g.Horizon(), g.States(), g.NumJoint()
	w := &gsRun{
		g: g, init: init, sched: sched, cfg: cfg,
		n: n, hor: hor, ns: ns, nj: nj,
		acts: make([]int, n), off: make([]int, n), stride: make([]int, n),
		tol: cfg.TieTol,
	}
	if w.tol == 0 {
		w.tol = 1e-9
	}
	maxA := 0
	for i := range n {
		w.acts[i] = g.Actions(game.Player(i))
		w.off[i] = w.sumA
		w.sumA += w.acts[i]
		maxA = max(maxA, w.acts[i])
	}
	st := 1
	for i := n - 1; i >= 0; i-- {
		w.stride[i] = st
		st *= w.acts[i]
	}
	hs := hor * ns
	w.prev = make([]float64, hs*w.sumA)
	w.cur = make([]float64, hs*w.sumA)
	w.aux = make([]float64, hs*w.sumA)
	w.q = make([]float64, hs*nj*n)
	w.qNext = make([]float64, hs*nj*n)
	w.acc = make([]float64, hs*nj)
	w.grad = make([]float64, w.sumA)
	w.idx = make([]int, nj*n)
	a := make([]int, n)
	for j := range nj {
		g.Split(j, a)
		for i := range n {
			w.idx[j*n+i] = w.off[i] + a[i]
		}
	}
	w.pre = make([]float64, n)
	w.v = make([]float64, (hor+1)*ns*n)
	w.score = make([]float64, maxA)
	w.expBuf = make([]float64, maxA)
	w.hatBuf = make([]float64, maxA)

	K := len(sched)
	res := &GeneralSumResult{
		Schedule:   sched,
		StageJoint: make([]*markov.Correlated, K),
		BR:         make([]*Staged, n),
		Avg:        make([]*Staged, n),
	}
	for i := range n {
		res.BR[i] = newStaged(K, hor, ns, w.acts[i])
		res.Avg[i] = newStaged(K, hor, ns, w.acts[i])
	}
	res.Regret = newStaged(K, hor, ns, n)
	w.joints = newStaged(K, hor, ns, nj)
	w.stageJoints = w.joints.Unstack()
	w.res = res
	return w
}

// loadInit copies stage k of the initialisation into dst.
func (w *gsRun) loadInit(dst []float64, k int) {
	for h := range w.hor {
		for s := range w.ns {
			b := (h*w.ns + s) * w.sumA
			for i := range w.n {
				copy(dst[b+w.off[i]:b+w.off[i]+w.acts[i]], w.init[i].Row(k, h, s))
			}
		}
	}
}

func (w *gsRun) run() (*GeneralSumResult, error) {
	w.loadInit(w.prev, 0)
	w.loadInit(w.aux, 0)
	nextCP := 0
	k := 0
	for t := 1; t <= w.cfg.T; t++ {
		w.iterate()
		if t == w.sched[k].End {
			w.finishStage(k, t < w.cfg.T)
			k++
			if k < len(w.sched) && !w.cfg.WarmStages {
				w.loadInit(w.prev, k)
				w.loadInit(w.aux, k)
			} else {
				w.prev, w.cur = w.cur, w.prev
			}
		} else {
			w.prev, w.cur = w.cur, w.prev
		}
		if nextCP < len(w.cfg.Checkpoints) && w.cfg.Checkpoints[nextCP] == t {
			nextCP++
			cp, err := w.checkpoint(t)
			if err != nil {
				return nil, err
			}
			w.res.Checkpoints = append(w.res.Checkpoints, cp)
		}
	}
	return w.res, nil
}

// iterate performs lines 5–6 for every (h, s) and player, from w.prev and
// w.aux into w.cur and w.aux, and accumulates the joint distribution of the
// new policies and the stability statistic.
func (w *gsRun) iterate() {
	eta := w.cfg.Eta
	for hs := range w.hor * w.ns {
		b := hs * w.sumA
		pv := w.prev[b : b+w.sumA]
		cu := w.cur[b : b+w.sumA]
		ax := w.aux[b : b+w.sumA]
		w.marginalGrads(pv, w.q[hs*w.nj*w.n:(hs+1)*w.nj*w.n])
		for i := range w.n {
			lo, hi := w.off[i], w.off[i]+w.acts[i]
			gi, a, c := w.grad[lo:hi], ax[lo:hi], cu[lo:hi]
			w.optimisticStep(c, a, gi, eta)
			var d float64
			for x := lo; x < hi; x++ {
				d += math.Abs(cu[x] - pv[x])
			}
			w.res.MaxStep = max(w.res.MaxStep, d)
		}
		w.accumulate(w.acc[hs*w.nj:(hs+1)*w.nj], cu)
	}
}

// optimisticStep performs lines 5 and 6 for one distribution: it replaces
// the auxiliary policy aux by π̂ ∝ aux·exp(ηg) and stores π ∝ π̂·exp(ηg) in
// cur. A constant gradient leaves both at aux exactly, which keeps stage 1
// bit-exact (Q^1 ≡ 0; the tests check this). Otherwise it computes the weights
// exp(η(g − max g)) ≤ 1 once and multiplies, A exponentials instead of
// mwuStep's 2A logarithms and 2A exponentials; if a product could lose
// precision or underflow (a normaliser or a positive entry's term below
// 1e-250), it falls back to mwuStep's log-space form, so the support and
// accuracy are those of mwuStep.
func (w *gsRun) optimisticStep(cur, aux, g []float64, eta float64) {
	if constant(g) {
		copy(cur, aux)
		return
	}
	e, hat := w.expBuf[:len(g)], w.hatBuf[:len(g)]
	m := g[0]
	for _, v := range g[1:] {
		m = max(m, v)
	}
	for a, v := range g {
		if v == m {
			e[a] = 1
		} else {
			e[a] = math.Exp(eta * (v - m))
		}
	}
	if scaledProduct(hat, aux, e) && scaledProduct(cur, hat, e) {
		copy(aux, hat)
		return
	}
	mwuStep(aux, aux, g, eta)
	mwuStep(cur, aux, g, eta)
}

// marginalGrads stores in w.grad[off[i]+a] the marginal gradient
// Σ_{a_{−i}} Π_{k≠i} pol_k(a_k) q[j·N+i] with j = (a, a_{−i}), for every
// player, in one pass over the joint actions with prefix and suffix
// products: O(J·N).
func (w *gsRun) marginalGrads(pol, q []float64) {
	grad, pre, n := w.grad, w.pre[:w.n], w.n
	clear(grad)
	for j := range w.nj {
		ix := w.idx[j*n : j*n+n]
		qj := q[j*n : j*n+n]
		p := 1.0
		for i, x := range ix {
			pre[i] = p
			p *= pol[x]
		}
		suf := 1.0
		for i := n - 1; i >= 0; i-- {
			x := ix[i]
			grad[x] += pre[i] * suf * qj[i]
			suf *= pol[x]
		}
	}
}

// accumulate adds the product distribution Π_i pol_i(a_i) to acc[j] for
// every joint action j: O(J·N).
func (w *gsRun) accumulate(acc, pol []float64) {
	n := w.n
	for j := range acc {
		p := 1.0
		for _, x := range w.idx[j*n : j*n+n] {
			p *= pol[x]
		}
		acc[j] += p
	}
}

// finishStage records the statistics of stage k, whose sums are in w.acc,
// resets w.acc and, if update, performs the value update of line 9 (a
// partial last stage and the stage that ends at T get none).
func (w *gsRun) finishStage(k int, update bool) {
	inv := 1 / float64(w.sched[k].Iterations())
	rho := w.stageJoints[k]
	for h := range rho.Dim(0) {
		for s := range rho.Dim(1) {
			d := rho.Row(h, s)
			b := (h*w.ns + s) * w.nj
			for j := range d {
				d[j] = w.acc[b+j] * inv
			}
		}
	}
	clear(w.acc)
	w.res.StageJoint[k] = rho
	n := w.n
	for h := range w.hor {
		for s := range w.ns {
			r := rho.Row(h, s)
			qs := w.q[(h*w.ns+s)*w.nj*n:]
			for i := range n {
				A, st := w.acts[i], w.stride[i]
				score := w.score[:A]
				clear(score)
				avg := w.res.Avg[i].Row(k, h, s)
				var on float64
				for j, p := range r {
					if p == 0 {
						continue
					}
					a := (j / st) % A
					avg[a] += p
					on += p * qs[j*n+i]
					base := j - a*st
					for b := range score {
						score[b] += p * qs[(base+b*st)*n+i]
					}
				}
				best := math.Inf(-1)
				for _, v := range score {
					best = max(best, v)
				}
				w.res.Regret.Row(k, h, s)[i] = best - on
				klMinBestResponse(w.res.BR[i].Row(k, h, s), w.init[i].Row(k, h, s), score, w.tol)
			}
		}
	}
	if update {
		w.valueUpdate(rho)
	}
}

// valueUpdate sets w.q to Q^{τ+1} computed from Q^τ = w.q and the stage
// joint distribution rho = ρ_τ (line 9): O(H·S·J·S·N).
func (w *gsRun) valueUpdate(rho *markov.Correlated) {
	n, ns, nj := w.n, w.ns, w.nj
	// v[(h·S+s)·N+i] = Σ_j ρ_{τ,h}(j|s) Q^τ_{h,i}(s, j); layer H is 0.
	for h := range w.hor {
		for s := range ns {
			vs := w.v[(h*ns+s)*n : (h*ns+s)*n+n]
			clear(vs)
			qs := w.q[(h*ns+s)*nj*n:]
			for j, p := range rho.Row(h, s) {
				if p == 0 {
					continue
				}
				for i := range vs {
					vs[i] += p * qs[j*n+i]
				}
			}
		}
	}
	clear(w.v[w.hor*ns*n:])
	for h := range w.hor {
		vn := w.v[(h+1)*ns*n : (h+2)*ns*n]
		for s := range ns {
			qs := w.qNext[(h*ns+s)*nj*n:]
			for j := range nj {
				qj := qs[j*n : j*n+n]
				for i := range qj {
					qj[i] = w.g.StepReward(h, s, j, game.Player(i))
				}
				for s2, p := range w.g.StepTransition(h, s, j) {
					if p == 0 {
						continue
					}
					for i := range qj {
						qj[i] += p * vn[s2*n+i]
					}
				}
			}
		}
	}
	w.q, w.qNext = w.qNext, w.q
}

// checkpoint returns the certified CCE-gap of the Algorithm 3 output of the
// first t iterations.
func (w *gsRun) checkpoint(t int) (CCECheckpoint, error) {
	joints := w.res.StageJoint
	if joints[0] == nil {
		// t lies in an unfinished stage 1, whose sums are in w.acc.
		joints = append([]*markov.Correlated(nil), joints...)
		joints[0] = w.partialJoint(t)
	}
	p := certifiedOutput(w.sched, joints, t)
	gap, per, err := CertifiedCCEGap(w.g, p)
	if err != nil {
		return CCECheckpoint{}, err
	}
	return CCECheckpoint{T: t, Gap: gap, PerPlayer: per}, nil
}

// partialJoint returns the average of the first t iterations' joint
// distributions accumulated in w.acc.
func (w *gsRun) partialJoint(t int) *markov.Correlated {
	rho := newStaged(1, w.hor, w.ns, w.nj).Sub(0)
	inv := 1 / float64(t)
	for i, v := range w.acc[:w.hor*w.ns*w.nj] {
		rho.Data()[i] = v * inv
	}
	return rho
}
