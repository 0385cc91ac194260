package nonstationary

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
)

// A LinearPrior is the law of a family of linear bandits as a learner that
// knows the family sees it: under hypothesis h (drawn with probability
// Hypotheses[h].Weight) the reward of the arm with feature vector a at
// round t is
//
//	r_t = c_h(t)·(⟨x(a), θ⟩ + ε_t) + s_h(t),   ε_t ~ N(0, NoiseVar),
//
// with θ ~ N(Mean, Cov) and x(a) = a, or (a, 1) with Intercept (the last
// entry of θ is then an intercept, which does not change the best arm).
// The best arm at round t is argmax_k c_h(t)·⟨x(a_k), θ⟩. Given h this is
// Bayesian linear regression, so the posterior of θ is Gaussian and the
// posterior of h follows from the marginal likelihoods in closed form
// ([LinearPosterior]). [HighPrior] and [LowPrior] are the paper's two
// scenarios.
type LinearPrior struct {
	// Mean and Cov are the prior mean and covariance of θ (dimension p:
	// the arms' dimension, plus one with Intercept); Cov must be
	// symmetric positive definite.
	Mean []float64
	Cov  [][]float64
	// NoiseVar is the variance of ε_t, positive.
	NoiseVar float64
	// Intercept appends a constant 1 to every arm's features.
	Intercept bool
	// Hypotheses are the alternatives h with their prior weights; empty
	// means one hypothesis with c = 1, s = 0.
	Hypotheses []LinearHypothesis
}

// A LinearHypothesis is one alternative of a [LinearPrior]: the reward's
// scale c(t) and shift s(t) at each round.
type LinearHypothesis struct {
	// Weight is the prior probability (normalised over the hypotheses).
	Weight float64
	// Scale returns c(t); nil means 1. A round with c(t) = 0 carries no
	// information about θ.
	Scale func(t int) float64
	// Shift returns s(t); nil means 0.
	Shift func(t int) float64
}

// MaxPriorDim is the largest dimension p of θ a [LinearPosterior] takes.
const MaxPriorDim = 1 << 12

// LinearPosterior is the posterior of a [LinearPrior] after the rounds
// observed: per hypothesis the Gaussian posterior N(μ_h, Σ_h) of θ and the
// log marginal likelihood of the rewards. Observe costs O(H·p²) for H
// hypotheses and dimension p; BestArm and Sample cost one Cholesky
// factorisation (O(p³)) per hypothesis used.
type LinearPosterior struct {
	prior  LinearPrior
	p      int
	mu     [][]float64   // per hypothesis
	cov    [][][]float64 // per hypothesis
	logLik []float64     // log p(r_1..t | h) + log prior weight
	x, sx  []float64     // scratch: features, Σx
	chol   [][]float64   // scratch
	z, th  []float64     // scratch
	w      []float64     // scratch: the hypotheses' weights
	counts []int         // scratch: draws per hypothesis
}

// NewLinearPosterior returns the posterior of prior before any round. It
// returns an error wrapping [icrl.ErrInvalid] for an empty or mismatched
// mean and covariance, a covariance that is not positive definite, a
// non-positive or non-finite noise variance or a negative or all-zero
// weight, [icrl.ErrTooLarge] past [MaxPriorDim], and [icrl.ErrNotFinite]
// for a non-finite entry.
func NewLinearPosterior(prior LinearPrior) (*LinearPosterior, error) {
	p := len(prior.Mean)
	if p < 1 || (prior.Intercept && p < 2) {
		return nil, fmt.Errorf("%w: linear prior of dimension %d (Intercept %v)", icrl.ErrInvalid, p, prior.Intercept)
	}
	if p > MaxPriorDim {
		return nil, fmt.Errorf("%w: linear prior of dimension %d, past %d", icrl.ErrTooLarge, p, MaxPriorDim)
	}
	if len(prior.Cov) != p {
		return nil, fmt.Errorf("%w: linear prior covariance has %d rows, the mean %d entries", icrl.ErrInvalid, len(prior.Cov), p)
	}
	for i, row := range prior.Cov {
		if len(row) != p {
			return nil, fmt.Errorf("%w: linear prior covariance row %d has %d entries, want %d", icrl.ErrInvalid, i, len(row), p)
		}
		if err := checkFinite("linear prior covariance", row); err != nil {
			return nil, err
		}
	}
	if err := checkFinite("linear prior mean", prior.Mean); err != nil {
		return nil, err
	}
	if !(prior.NoiseVar > 0) || math.IsInf(prior.NoiseVar, 0) {
		return nil, fmt.Errorf("%w: linear prior noise variance %v", icrl.ErrInvalid, prior.NoiseVar)
	}
	hs := prior.Hypotheses
	if len(hs) == 0 {
		hs = []LinearHypothesis{{Weight: 1}}
	}
	var total float64
	for h, hy := range hs {
		if !(hy.Weight >= 0) || math.IsInf(hy.Weight, 0) {
			return nil, fmt.Errorf("%w: linear prior hypothesis %d has weight %v", icrl.ErrInvalid, h, hy.Weight)
		}
		total += hy.Weight
	}
	if !(total > 0) {
		return nil, fmt.Errorf("%w: linear prior hypotheses have total weight %v", icrl.ErrInvalid, total)
	}
	prior.Hypotheses = hs
	lp := &LinearPosterior{prior: prior, p: p, x: make([]float64, p), sx: make([]float64, p), z: make([]float64, p), th: make([]float64, p)}
	lp.chol = make([][]float64, p)
	for i := range lp.chol {
		lp.chol[i] = make([]float64, p)
	}
	if !cholesky(lp.chol, prior.Cov) {
		return nil, fmt.Errorf("%w: linear prior covariance is not positive definite", icrl.ErrInvalid)
	}
	lp.Reset()
	return lp, nil
}

// Reset returns to the prior.
func (lp *LinearPosterior) Reset() {
	H := len(lp.prior.Hypotheses)
	lp.mu, lp.cov, lp.logLik = make([][]float64, H), make([][][]float64, H), make([]float64, H)
	for h, hy := range lp.prior.Hypotheses {
		lp.mu[h] = append([]float64(nil), lp.prior.Mean...)
		lp.cov[h] = make([][]float64, lp.p)
		for i := range lp.cov[h] {
			lp.cov[h][i] = append([]float64(nil), lp.prior.Cov[i]...)
		}
		lp.logLik[h] = math.Log(hy.Weight)
	}
}

// Dim returns the dimension of the arms' feature vectors the posterior
// takes (p, less the intercept).
func (lp *LinearPosterior) Dim() int {
	if lp.prior.Intercept {
		return lp.p - 1
	}
	return lp.p
}

func (lp *LinearPosterior) features(a []float64) []float64 {
	copy(lp.x, a)
	if lp.prior.Intercept {
		lp.x[lp.p-1] = 1
	}
	return lp.x
}

func scaleAt(h LinearHypothesis, t int) float64 {
	if h.Scale == nil {
		return 1
	}
	return h.Scale(t)
}

func shiftAt(h LinearHypothesis, t int) float64 {
	if h.Shift == nil {
		return 0
	}
	return h.Shift(t)
}

// Observe updates the posterior with the reward r of the arm a played at
// round t: per hypothesis the Gaussian update of θ with the observation
// (r − s(t))/c(t) = ⟨x(a), θ⟩ + ε of variance NoiseVar, and the log
// marginal likelihood by the predictive density of r, N(c·⟨x, μ⟩ + s,
// c²(xᵀΣx + NoiseVar)). It returns an error, leaving the posterior
// unchanged, if a does not have Dim entries or r or an entry of a is not
// finite.
func (lp *LinearPosterior) Observe(t int, a []float64, r float64) error {
	if len(a) != lp.Dim() {
		return fmt.Errorf("%w: arm of dimension %d, the posterior's is %d", icrl.ErrShape, len(a), lp.Dim())
	}
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return fmt.Errorf("%w: reward %v", icrl.ErrNotFinite, r)
	}
	if err := checkFinite("arm", a); err != nil {
		return err
	}
	x := lp.features(a)
	v := lp.prior.NoiseVar
	for h, hy := range lp.prior.Hypotheses {
		c := scaleAt(hy, t)
		if c == 0 || math.IsNaN(c) || math.IsInf(c, 0) {
			continue
		}
		y := (r - shiftAt(hy, t)) / c
		mu, cov := lp.mu[h], lp.cov[h]
		matVec(lp.sx, cov, x)
		q := dot(x, lp.sx) + v
		e := y - dot(x, mu)
		// log N(r; c⟨x,μ⟩ + s, c²q) = log N(y; ⟨x,μ⟩, q) − log|c|.
		lp.logLik[h] += -0.5*(math.Log(2*math.Pi*q)+e*e/q) - math.Log(math.Abs(c))
		g := e / q
		for i := range mu {
			mu[i] += lp.sx[i] * g
		}
		for i, row := range cov {
			si := lp.sx[i] / q
			for j := range row {
				row[j] -= si * lp.sx[j]
			}
		}
	}
	return nil
}

// Weights stores in dst the posterior probabilities of the hypotheses and
// returns it (allocated if dst is nil).
func (lp *LinearPosterior) Weights(dst []float64) []float64 {
	H := len(lp.logLik)
	if cap(dst) < H {
		dst = make([]float64, H)
	}
	dst = dst[:H]
	m := math.Inf(-1)
	for _, l := range lp.logLik {
		m = math.Max(m, l)
	}
	var s float64
	for h, l := range lp.logLik {
		dst[h] = math.Exp(l - m)
		s += dst[h]
	}
	for h := range dst {
		dst[h] /= s
	}
	return dst
}

// Mean returns the posterior mean of θ under hypothesis h (not a copy). It
// panics if h is out of range.
func (lp *LinearPosterior) Mean(h int) []float64 { return lp.mu[h] }

// Cov returns the posterior covariance of θ under hypothesis h (not a
// copy). It panics if h is out of range.
func (lp *LinearPosterior) Cov(h int) [][]float64 { return lp.cov[h] }

// BestArm stores in dst the posterior probability that each arm of
// actions is the best at round t, by Monte Carlo over samples draws of
// (h, θ) from the posterior (samples ≥ 1; rng draws them), and returns it
// (allocated if dst is nil). Ties go to the lowest arm. It returns an error
// if samples < 1, rng is nil, or an arm does not have Dim entries.
func (lp *LinearPosterior) BestArm(dst []float64, t int, actions [][]float64, samples int, rng *rand.Rand) ([]float64, error) {
	if samples < 1 {
		return nil, fmt.Errorf("%w: BestArm needs samples ≥ 1, got %d", icrl.ErrInvalid, samples)
	}
	if rng == nil {
		return nil, icrl.ErrNilRand
	}
	K := len(actions)
	for k, a := range actions {
		if len(a) != lp.Dim() {
			return nil, fmt.Errorf("%w: arm %d of dimension %d, the posterior's is %d", icrl.ErrShape, k, len(a), lp.Dim())
		}
	}
	if cap(dst) < K {
		dst = make([]float64, K)
	}
	dst = dst[:K]
	clear(dst)
	lp.w = lp.Weights(lp.w)
	w := lp.w
	// Draw the hypotheses first, then θ per hypothesis drawn.
	if len(lp.counts) != len(w) {
		lp.counts = make([]int, len(w))
	}
	counts := lp.counts
	clear(counts)
	for range samples {
		counts[sampleIndex(w, rng)]++
	}
	for h, n := range counts {
		if n == 0 {
			continue
		}
		if !cholesky(lp.chol, lp.cov[h]) {
			return nil, fmt.Errorf("%w: posterior covariance of hypothesis %d lost positive definiteness", icrl.ErrNotFinite, h)
		}
		c := scaleAt(lp.prior.Hypotheses[h], t)
		for range n {
			lp.draw(h, rng)
			dst[bestArm(actions, lp.th, c)]++
		}
	}
	for k := range dst {
		dst[k] /= float64(samples)
	}
	return dst, nil
}

// Sample draws (h, θ) from the posterior with rng and returns h and θ (a
// slice the posterior reuses at the next call).
func (lp *LinearPosterior) Sample(rng *rand.Rand) (int, []float64, error) {
	if rng == nil {
		return 0, nil, icrl.ErrNilRand
	}
	lp.w = lp.Weights(lp.w)
	h := sampleIndex(lp.w, rng)
	if !cholesky(lp.chol, lp.cov[h]) {
		return 0, nil, fmt.Errorf("%w: posterior covariance of hypothesis %d lost positive definiteness", icrl.ErrNotFinite, h)
	}
	lp.draw(h, rng)
	return h, lp.th, nil
}

// draw stores μ_h + L z in lp.th, z standard normal from rng, with L the
// factor of Σ_h in lp.chol.
func (lp *LinearPosterior) draw(h int, rng *rand.Rand) {
	for i := range lp.z {
		lp.z[i] = rng.NormFloat64()
	}
	for i, row := range lp.chol {
		lp.th[i] = lp.mu[h][i] + dot(row[:i+1], lp.z[:i+1])
	}
}

// checkFinite returns an error wrapping icrl.ErrNotFinite naming what if v
// has a NaN or infinite entry.
func checkFinite(what string, v []float64) error {
	if i := num.FirstNonFinite(v); i >= 0 {
		return fmt.Errorf("%w: %s entry %d is %v", icrl.ErrNotFinite, what, i, v[i])
	}
	return nil
}

// bestArm returns argmax_k c·⟨a_k, θ⟩ over the arms' first len(a_k)
// coordinates of θ (the intercept is left out).
func bestArm(actions [][]float64, th []float64, c float64) int {
	best, bv := 0, math.Inf(-1)
	for k, a := range actions {
		if v := c * dot(a, th[:len(a)]); v > bv {
			best, bv = k, v
		}
	}
	return best
}

// sampleIndex draws an index with probabilities w.
func sampleIndex(w []float64, rng *rand.Rand) int {
	u := rng.Float64()
	for i, p := range w {
		if u < p {
			return i
		}
		u -= p
	}
	return len(w) - 1
}

// matVec stores m·x in dst.
func matVec(dst []float64, m [][]float64, x []float64) {
	for i, row := range m {
		dst[i] = dot(row, x)
	}
}

// cholesky stores in l the lower Cholesky factor of the symmetric matrix a
// and reports whether a is positive definite.
func cholesky(l, a [][]float64) bool {
	n := len(a)
	for i := range n {
		for j := 0; j <= i; j++ {
			s := (a[i][j] + a[j][i]) / 2
			for k := range j {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				if !(s > 0) {
					return false
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
		for j := i + 1; j < n; j++ {
			l[i][j] = 0
		}
	}
	return true
}

// HighPrior returns the [LinearPrior] of the high non-stationarity family
// (nonstationary-transformers-master §5, App. B, [NewCosine]) as a learner
// sees it: w ~ U[0,1]^d, ε ~ N(0, σ²), and b drawn uniformly from bs (the
// training frequencies {0.005, 0.01, 0.015, 0.02}, or one frequency for a
// test scenario): the hypotheses are the frequencies, with c(t) =
// cos(2πbt). The uniform prior of w is replaced by the Gaussian with its
// mean and covariance, N(½·1, I/12), so that the posterior is Gaussian:
// the posterior of a learner that knows the family up to the prior's shape.
// It returns an error wrapping [icrl.ErrInvalid] for d < 1, a
// non-positive σ or an empty or non-finite bs.
func HighPrior(d int, sigma float64, bs []float64) (LinearPrior, error) {
	if d < 1 || d > MaxPriorDim || !(sigma > 0) || math.IsInf(sigma, 0) || len(bs) == 0 {
		return LinearPrior{}, fmt.Errorf("%w: high prior with d = %d, σ = %v, %d frequencies", icrl.ErrInvalid, d, sigma, len(bs))
	}
	pr := LinearPrior{Mean: make([]float64, d), Cov: make([][]float64, d), NoiseVar: sigma * sigma}
	for i := range d {
		pr.Mean[i] = 0.5
		pr.Cov[i] = make([]float64, d)
		pr.Cov[i][i] = 1.0 / 12
	}
	for _, b := range bs {
		if !finite(b) {
			return LinearPrior{}, fmt.Errorf("%w: high prior frequency %v", icrl.ErrInvalid, b)
		}
		pr.Hypotheses = append(pr.Hypotheses, LinearHypothesis{Weight: 1, Scale: func(t int) float64 { return math.Cos(2 * math.Pi * b * float64(t)) }})
	}
	return pr, nil
}

// LowPrior returns the [LinearPrior] of the low non-stationarity family
// ([NewLowNonStationary] with w ~ U[0,1]^d) on the fixed action set
// actions, as a learner that sees the action set knows it. The normalised
// reward r = α(⟨a,w⟩ + ε) + β (α = 1/(M − m), β = −m·α, with m and M the
// least and largest ⟨a_k,w⟩, plus shift inside the windows) is linear in
// θ = (α·w, β) with an intercept; θ's law is replaced by the Gaussian with
// its mean and covariance under w ~ U[0,1]^d, estimated from draws prior
// draws of w by rng, and the noise α·ε by its mean variance E[α²]·σ².
// windows (1-based, inclusive) lift the rewards by shift: nil for the
// training family, the paper's [50,100] and [350,400] with shift 3 for the
// test scenario. It returns an error for an empty action set, arms of
// different dimensions, a non-positive σ, draws < 2 or a nil rng.
func LowPrior(actions [][]float64, sigma float64, windows [][2]int, shift float64, draws int, rng *rand.Rand) (LinearPrior, error) {
	if len(actions) < 2 || len(actions[0]) < 1 || !(sigma > 0) || math.IsInf(sigma, 0) || draws < 2 || !finite(shift) {
		return LinearPrior{}, fmt.Errorf("%w: low prior with %d arms, σ = %v, shift %v, %d draws", icrl.ErrInvalid, len(actions), sigma, shift, draws)
	}
	if rng == nil {
		return LinearPrior{}, icrl.ErrNilRand
	}
	d := len(actions[0])
	for k, a := range actions {
		if len(a) != d {
			return LinearPrior{}, fmt.Errorf("%w: low prior arm %d has dimension %d, arm 0 %d", icrl.ErrShape, k, len(a), d)
		}
	}
	if d+1 > MaxPriorDim {
		return LinearPrior{}, fmt.Errorf("%w: low prior of dimension %d", icrl.ErrTooLarge, d)
	}
	p := d + 1
	mean := make([]float64, p)
	second := make([][]float64, p)
	for i := range second {
		second[i] = make([]float64, p)
	}
	w, th := make([]float64, d), make([]float64, p)
	var a2 float64
	for range draws {
		for i := range w {
			w[i] = rng.Float64()
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, a := range actions {
			s := dot(a, w)
			lo, hi = math.Min(lo, s), math.Max(hi, s)
		}
		if !(hi > lo) {
			return LinearPrior{}, fmt.Errorf("%w: low prior: all arms have the same mean, cannot normalise", icrl.ErrInvalid)
		}
		al := 1 / (hi - lo)
		for i := range w {
			th[i] = al * w[i]
		}
		th[d] = -lo * al
		a2 += al * al
		for i, x := range th {
			mean[i] += x
			for j, y := range th {
				second[i][j] += x * y
			}
		}
	}
	n := float64(draws)
	pr := LinearPrior{Mean: mean, Cov: second, NoiseVar: a2 / n * sigma * sigma, Intercept: true}
	for i := range mean {
		mean[i] /= n
	}
	for i, row := range second {
		for j := range row {
			row[j] = row[j]/n - mean[i]*mean[j]
		}
		row[i] += 1e-9 // keeps the estimate positive definite
	}
	if len(windows) > 0 {
		in := func(t int) bool {
			for _, w := range windows {
				if t >= w[0] && t <= w[1] {
					return true
				}
			}
			return false
		}
		pr.Hypotheses = []LinearHypothesis{{Weight: 1, Shift: func(t int) float64 {
			if in(t) {
				return shift
			}
			return 0
		}}}
	}
	return pr, nil
}

// PosteriorConfig configures [NewPosteriorSampling].
type PosteriorConfig struct {
	// Prior returns the family's prior given the action set of the first
	// round (a prior that does not depend on it may ignore it). Required.
	Prior func(actions [][]float64) (LinearPrior, error)
	// LabelSamples is the number of posterior draws of Label; zero means
	// 256.
	LabelSamples int
}

// PosteriorSampling is Thompson sampling with a family's true prior, noise
// and structure (Russo and Van Roy 2014, "Learning to optimize via
// posterior sampling", Math. Oper. Res. 39(4)): at each round it draws
// (h, θ) from the [LinearPosterior] and plays the best arm of the draw. It
// is the reference a prior-aware learner is measured against, and its
// Label is the posterior probability of each arm being the best: the
// labels whose cross-entropy minimiser is the Bayes-optimal predictor of
// the best arm. It is a bandit.Learner. Act costs one Cholesky
// factorisation (O(p³)) and Observe O(H·p²).
type PosteriorSampling struct {
	cfg PosteriorConfig
	lp  *LinearPosterior
	err error
}

// NewPosteriorSampling returns a posterior-sampling learner. It returns an
// error wrapping [icrl.ErrNil] if cfg.Prior is nil and [icrl.ErrInvalid]
// for negative LabelSamples.
func NewPosteriorSampling(cfg PosteriorConfig) (*PosteriorSampling, error) {
	if cfg.Prior == nil {
		return nil, fmt.Errorf("%w: posterior sampling needs a prior", icrl.ErrNil)
	}
	if cfg.LabelSamples < 0 {
		return nil, fmt.Errorf("%w: posterior sampling LabelSamples = %d", icrl.ErrInvalid, cfg.LabelSamples)
	}
	if cfg.LabelSamples == 0 {
		cfg.LabelSamples = 256
	}
	return &PosteriorSampling{cfg: cfg}, nil
}

// Reset forgets the rounds observed and the prior built from them.
func (ps *PosteriorSampling) Reset() { ps.lp, ps.err = nil, nil }

// posterior builds the posterior from the prior at the first round.
func (ps *PosteriorSampling) posterior(actions [][]float64) error {
	if ps.err != nil || ps.lp != nil {
		return ps.err
	}
	pr, err := ps.cfg.Prior(actions)
	if err == nil {
		ps.lp, err = NewLinearPosterior(pr)
	}
	ps.err = err
	return err
}

// Act draws (h, θ) from the posterior and returns the best arm of the draw
// and its reward c_h(t)·⟨x(a), θ⟩ + s_h(t) under it. If the prior or a draw
// fails it returns arm −1, which a harness refuses, and Observe returns
// the error.
func (ps *PosteriorSampling) Act(t int, actions [][]float64, rng *rand.Rand) (int, float64) {
	if err := ps.posterior(actions); err != nil {
		return -1, math.NaN()
	}
	h, th, err := ps.lp.Sample(rng)
	if err != nil {
		ps.err = err
		return -1, math.NaN()
	}
	hy := ps.lp.prior.Hypotheses[h]
	c := scaleAt(hy, t)
	k := bestArm(actions, th, c)
	v := c*dot(ps.lp.features(actions[k]), th) + shiftAt(hy, t)
	return k, v
}

// Observe updates the posterior with the reward of the arm played. It
// returns an error, leaving the learner unchanged, for an arm out of range
// or a non-finite reward, and the error of a failed prior or draw.
func (ps *PosteriorSampling) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if err := ps.posterior(actions); err != nil {
		return err
	}
	if arm < 0 || arm >= len(actions) {
		return fmt.Errorf("%w: arm %d is not in [0, %d)", icrl.ErrOutOfRange, arm, len(actions))
	}
	return ps.lp.Observe(t, actions[arm], reward)
}

// Label stores in dst the posterior probability of each arm being the best
// at round t given the rounds observed (LabelSamples posterior draws from
// rng) and returns it (allocated if dst is nil).
func (ps *PosteriorSampling) Label(dst []float64, t int, actions [][]float64, rng *rand.Rand) ([]float64, error) {
	if err := ps.posterior(actions); err != nil {
		return nil, err
	}
	return ps.lp.BestArm(dst, t, actions, ps.cfg.LabelSamples, rng)
}

// Posterior returns the learner's posterior, nil before the first round.
func (ps *PosteriorSampling) Posterior() *LinearPosterior { return ps.lp }
