package learner

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

var (
	_ BanditLearner = (*LinUCB)(nil)
	_ BanditLearner = (*OFUL)(nil)
	_ BanditLearner = (*LinTS)(nil)
)

// ridge is the regularised least-squares state shared by the linear bandit
// learners ([LinUCB], [OFUL], [LinTS]): the Gram matrix
// V = λI + Σ_τ x_τ x_τᵀ of the played feature vectors, kept as its inverse
// V⁻¹ and updated by the Sherman–Morrison formula
//
//	(V + xxᵀ)⁻¹ = V⁻¹ − (V⁻¹x)(V⁻¹x)ᵀ/(1 + xᵀV⁻¹x),
//
// the vector b = Σ_τ r_τ x_τ and the ridge estimate θ̂ = V⁻¹b, recomputed
// from V⁻¹ and b after every update rather than updated incrementally, so
// that rounding errors do not accumulate in θ̂. The rank-one correction is
// applied as V⁻¹ − wwᵀ with w = V⁻¹x/sqrt(1 + xᵀV⁻¹x), which keeps V⁻¹
// exactly symmetric. An update costs O(d²) time and does not allocate.
type ridge struct {
	d      int
	lambda float64
	n      int       // observations so far
	vinv   []float64 // V⁻¹, d×d row-major, symmetric
	b      []float64 // Σ r x
	theta  []float64 // θ̂ = V⁻¹ b
	u      []float64 // scratch: V⁻¹ x
}

func newRidge(d int, lambda float64) ridge {
	r := ridge{
		d:      d,
		lambda: lambda,
		vinv:   make([]float64, d*d),
		b:      make([]float64, d),
		theta:  make([]float64, d),
		u:      make([]float64, d),
	}
	r.reset()
	return r
}

func (r *ridge) reset() {
	r.n = 0
	clear(r.vinv)
	for i := range r.d {
		r.vinv[i*r.d+i] = 1 / r.lambda
	}
	clear(r.b)
	clear(r.theta)
}

// Dim returns the feature dimension d.
func (r *ridge) Dim() int { return r.d }

// Lambda returns the ridge regularisation λ in use.
func (r *ridge) Lambda() float64 { return r.lambda }

// Rounds returns the number of observations since the last Reset.
func (r *ridge) Rounds() int { return r.n }

// Theta returns the ridge estimate θ̂ = V⁻¹ Σ_τ r_τ x_τ. The slice belongs
// to the learner: the caller must not modify it, and it is valid only until
// the next Observe or Reset.
func (r *ridge) Theta() []float64 { return r.theta }

// InverseGram returns a copy of V⁻¹ = (λI + Σ_τ x_τ x_τᵀ)⁻¹.
func (r *ridge) InverseGram() *mat.SymDense {
	s := mat.NewSymDense(r.d, nil)
	for i := range r.d {
		for j := i; j < r.d; j++ {
			s.SetSym(i, j, r.vinv[i*r.d+j])
		}
	}
	return s
}

// Width returns ‖x‖_{V⁻¹} = sqrt(xᵀV⁻¹x), the width of the confidence
// ellipsoid in direction x. It panics if len(x) ≠ d.
func (r *ridge) Width(x []float64) float64 {
	if len(x) != r.d {
		panic(fmt.Sprintf("learner: feature vector of dimension %d, want %d", len(x), r.d))
	}
	return math.Sqrt(r.quad(x))
}

// quad returns xᵀV⁻¹x, clamped at zero against rounding, in O(d²).
func (r *ridge) quad(x []float64) float64 {
	var q float64
	d := r.d
	for i, xi := range x {
		q += xi * floats.Dot(r.vinv[i*d:(i+1)*d], x)
	}
	return max(q, 0)
}

// check validates one observation for a learner called name and, if it is
// valid, leaves V⁻¹x in r.u and returns xᵀV⁻¹x for commit. It does not
// change the estimate.
func (r *ridge) check(name string, actions [][]float64, arm int, reward float64) (float64, error) {
	if len(actions) == 0 {
		return 0, fmt.Errorf("learner: %s needs the action set of the round, got none", name)
	}
	if arm < 0 || arm >= len(actions) {
		return 0, fmt.Errorf("learner: %s arm %d out of range [0, %d)", name, arm, len(actions))
	}
	for k, a := range actions {
		if len(a) != r.d {
			return 0, fmt.Errorf("learner: %s action %d has dimension %d, want %d", name, k, len(a), r.d)
		}
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return 0, fmt.Errorf("learner: %s reward %v for arm %d is not finite", name, reward, arm)
	}
	x := actions[arm]
	for i, xi := range x {
		if math.IsNaN(xi) || math.IsInf(xi, 0) || math.IsInf(reward*xi, 0) || math.IsInf(r.b[i]+reward*xi, 0) {
			return 0, fmt.Errorf("learner: %s feature %d = %v of the played arm %d is not finite or overflows with reward %v", name, i, xi, arm, reward)
		}
	}
	var q float64
	d := r.d
	for i := range d {
		ui := floats.Dot(r.vinv[i*d:(i+1)*d], x)
		r.u[i] = ui
		q += x[i] * ui
	}
	if math.IsNaN(q) || math.IsInf(q, 0) {
		return 0, fmt.Errorf("learner: %s played arm %d has a non-finite width xᵀV⁻¹x = %v", name, arm, q)
	}
	return max(q, 0), nil
}

// commit applies the update of a checked observation: x and reward as
// passed to check, q its return value, r.u = V⁻¹x.
func (r *ridge) commit(x []float64, reward, q float64) {
	d := r.d
	s := 1 / math.Sqrt(1+q)
	for i := range r.u {
		r.u[i] *= s
	}
	for i, wi := range r.u {
		floats.AddScaled(r.vinv[i*d:(i+1)*d], -wi, r.u)
	}
	floats.AddScaled(r.b, reward, x)
	for i := range d {
		r.theta[i] = floats.Dot(r.vinv[i*d:(i+1)*d], r.b)
	}
	r.n++
}

// ucb returns the arm maximising ⟨x, θ⟩ + bonus·‖x‖_{V⁻¹} and that
// maximum, ties towards the lowest index; bonus = 0 skips the width. It
// panics, naming the learner, if the action set is empty or an action has
// the wrong dimension.
func (r *ridge) ucb(name string, actions [][]float64, theta []float64, bonus float64) (arm int, best float64) {
	if len(actions) == 0 {
		panic(fmt.Sprintf("learner: %s.Act: empty action set", name))
	}
	best = math.Inf(-1)
	for k, x := range actions {
		if len(x) != r.d {
			panic(fmt.Sprintf("learner: %s.Act: action %d has dimension %d, want %d", name, k, len(x), r.d))
		}
		v := floats.Dot(x, theta)
		if bonus != 0 {
			v += bonus * math.Sqrt(r.quad(x))
		}
		if v > best || k == 0 {
			best, arm = v, k
		}
	}
	return arm, best
}

// checkPositive validates an optional positive parameter whose zero value
// selects def.
func checkPositive(name, field string, v, def float64) (float64, error) {
	if v == 0 {
		return def, nil
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("learner: %s %s = %v must be positive and finite (0 for the default %v)", name, field, v, def)
	}
	return v, nil
}

// LinUCBConfig configures [NewLinUCB]. Dim is required; the zero value of
// every other field selects the value of the paper's experiments.
type LinUCBConfig struct {
	// Dim is the feature dimension d ≥ 1.
	Dim int
	// Alpha is the confidence scale α > 0. Zero means 1, the value of the
	// paper's experiments (spec nonstationary-transformers-master §4.1;
	// App. B of the paper). A greedy learner needs a tiny positive α.
	Alpha float64
	// Lambda is the ridge regularisation λ > 0. Zero means 1.
	Lambda float64
}

// LinUCB is the upper-confidence-bound algorithm for linear bandits with
// per-round action sets (Li, Chu, Langford and Schapire 2010, "A
// contextual-bandit approach to personalized news article recommendation")
// with one parameter vector shared by all arms and per-round feature
// vectors (Li et al.'s Algorithm 1 keeps one model per arm; the shared form
// is the one of the LBM code the spec follows), the expert of the seed paper's
// experiments (spec nonstationary-transformers-master §2.1 and §4.1, α = 1,
// λ = 1). With V_t = λI + Σ_{τ<t} x_τ x_τᵀ and θ̂_t = V_t⁻¹ Σ_{τ<t} r_τ x_τ,
//
//	a_t = argmax_k ⟨x_{t,k}, θ̂_t⟩ + α‖x_{t,k}‖_{V_t⁻¹},   f̃_t = the maximum,
//
// ties broken towards the lowest index (so at t = 1 it plays the arm of
// largest norm). LinUCB is [OFUL] with its bonus 2β replaced by the free
// constant α: with α = 1 its confidence set is not a valid high-probability
// set in general (it is when the noise is small, see the tests), so its f̃_t
// is an optimistic value in Wei and Luo's sense only heuristically.
//
// V⁻¹ is maintained by Sherman–Morrison rank-one updates (see
// [LinUCB.InverseGram]). Act costs O(A·d²) time for A actions (a quadratic
// form per action), Observe O(d² + A) (the update and a dimension check of
// the action set); neither allocates. Act panics if the action set is empty
// or an action's dimension is not d; it ignores t and rng, and Observe
// ignores t. A LinUCB is not safe for concurrent use.
type LinUCB struct {
	ridge
	alpha float64
}

// NewLinUCB returns a LinUCB learner with no observations. It returns an
// error naming the bad field if Dim < 1 or Alpha or Lambda is negative or
// not finite.
func NewLinUCB(cfg LinUCBConfig) (*LinUCB, error) {
	if cfg.Dim < 1 {
		return nil, fmt.Errorf("learner: LinUCB needs a positive feature dimension, got Dim = %d", cfg.Dim)
	}
	alpha, err := checkPositive("LinUCB", "confidence scale Alpha", cfg.Alpha, 1)
	if err != nil {
		return nil, err
	}
	lambda, err := checkPositive("LinUCB", "regularisation Lambda", cfg.Lambda, 1)
	if err != nil {
		return nil, err
	}
	return &LinUCB{ridge: newRidge(cfg.Dim, lambda), alpha: alpha}, nil
}

// Alpha returns the confidence scale α in use.
func (l *LinUCB) Alpha() float64 { return l.alpha }

// Index returns the upper confidence bound ⟨x, θ̂⟩ + α‖x‖_{V⁻¹} of a
// feature vector. It panics if len(x) ≠ d.
func (l *LinUCB) Index(x []float64) float64 {
	return floats.Dot(x, l.theta) + l.alpha*l.Width(x)
}

// Reset forgets every observation (a restart): V = λI, θ̂ = 0.
func (l *LinUCB) Reset() { l.reset() }

// Act returns the arm with the largest upper confidence bound and that
// bound, the optimistic value f̃_t.
func (l *LinUCB) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	return l.ucb("LinUCB", actions, l.theta, l.alpha)
}

// Observe adds the played feature vector actions[arm] and its reward to the
// ridge regression. It returns an error, leaving the learner unchanged, if
// the action set is empty, the arm is out of range, an action's dimension
// is not d, the reward is NaN or infinite, or the played features are not
// finite or overflow.
func (l *LinUCB) Observe(t int, actions [][]float64, arm int, reward float64) error {
	q, err := l.check("LinUCB", actions, arm, reward)
	if err != nil {
		return err
	}
	l.commit(actions[arm], reward, q)
	return nil
}

// OFULConfig configures [NewOFUL]. Dim and Horizon are required; the zero
// value of every other field selects the value of Wei and Luo's
// Algorithm 8.
type OFULConfig struct {
	// Dim is the feature dimension d ≥ 1.
	Dim int
	// Horizon is the number of rounds T ≥ 1 in the confidence level
	// log(T/δ). The learner may keep playing past it.
	Horizon int
	// Delta is the confidence parameter δ ∈ (0, 1]. Zero means 1 (the
	// seed paper's Assumption 1 level, as for [UCB1Config]).
	Delta float64
	// Lambda is the ridge regularisation λ > 0. Zero means 1, Wei and
	// Luo's Λ_t = I + Σ a aᵀ.
	Lambda float64
	// Beta overrides the confidence radius β > 0; the bonus is 2β. Zero
	// means Wei and Luo's β = 4·sqrt(d·log(T/δ)), which is very
	// conservative at moderate horizons (see [OFUL]).
	Beta float64
}

// OFUL is optimism in the face of uncertainty for linear bandits
// (Abbasi-Yadkori, Pál and Szepesvári 2011) in the form of Wei and Luo
// (2021, Algorithm 8, App. I.2; spec nonstationary-transformers-master
// §2.1), which assumes ‖x‖₂ ≤ 1 and ‖θ‖₂ ≤ 1:
//
//	β = 4·sqrt(d·log(T/δ)),   Λ_t = I + Σ_{τ<t} x_τ x_τᵀ,   θ̂_t = Λ_t⁻¹ Σ_{τ<t} r_τ x_τ,
//	a_t = argmax_k ⟨x_{t,k}, θ̂_t⟩ + 2β‖x_{t,k}‖_{Λ_t⁻¹},   f̃_t = the maximum,
//
// ties towards the lowest index. With ρ = [RhoOFUL] it satisfies
// Assumption 1 with Δ(t) = d·sqrt(log(T/δ))·‖θ_t − θ_{t+1}‖₂. Wei and Luo
// state it for a fixed action set; this implementation accepts a new set
// every round. The bonus 2β is large (2β ≈ 125 for d = 32, T = 2000, δ = 1)
// and makes OFUL explore almost uniformly for thousands of rounds; Beta in
// [OFULConfig] overrides it.
//
// The state and costs are those of [LinUCB]: Sherman–Morrison updates of
// Λ⁻¹, Act O(A·d²), Observe O(d² + A), no allocation; Act panics on an
// empty action set or an action of the wrong dimension. An OFUL is not safe
// for concurrent use.
type OFUL struct {
	ridge
	beta float64
}

// NewOFUL returns an OFUL learner with no observations. It returns an error
// naming the bad field if Dim < 1, Horizon < 1, Delta is not in (0, 1]
// (0 for the default), or Lambda or Beta is negative or not finite.
func NewOFUL(cfg OFULConfig) (*OFUL, error) {
	if cfg.Dim < 1 {
		return nil, fmt.Errorf("learner: OFUL needs a positive feature dimension, got Dim = %d", cfg.Dim)
	}
	if cfg.Horizon < 1 {
		return nil, fmt.Errorf("learner: OFUL horizon Horizon = %d must be at least 1", cfg.Horizon)
	}
	delta := cfg.Delta
	if delta == 0 {
		delta = 1
	}
	if !(delta > 0 && delta <= 1) {
		return nil, fmt.Errorf("learner: OFUL confidence Delta = %v must be in (0, 1] (0 for the default 1)", cfg.Delta)
	}
	lambda, err := checkPositive("OFUL", "regularisation Lambda", cfg.Lambda, 1)
	if err != nil {
		return nil, err
	}
	def := 4 * math.Sqrt(float64(cfg.Dim)*math.Log(float64(cfg.Horizon)/delta))
	beta := cfg.Beta
	if beta == 0 {
		beta = def
	} else if !(beta > 0) || math.IsInf(beta, 0) {
		return nil, fmt.Errorf("learner: OFUL confidence radius Beta = %v must be positive and finite (0 for the default %v)", cfg.Beta, def)
	}
	return &OFUL{ridge: newRidge(cfg.Dim, lambda), beta: beta}, nil
}

// Beta returns the confidence radius β in use; the bonus is 2β.
func (o *OFUL) Beta() float64 { return o.beta }

// Index returns the upper confidence bound ⟨x, θ̂⟩ + 2β‖x‖_{Λ⁻¹} of a
// feature vector. It panics if len(x) ≠ d.
func (o *OFUL) Index(x []float64) float64 {
	return floats.Dot(x, o.theta) + 2*o.beta*o.Width(x)
}

// Reset forgets every observation (a restart).
func (o *OFUL) Reset() { o.reset() }

// Act returns the arm with the largest upper confidence bound and that
// bound, the optimistic value f̃_t.
func (o *OFUL) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	return o.ucb("OFUL", actions, o.theta, 2*o.beta)
}

// Observe adds the played feature vector and its reward to the ridge
// regression, with the errors of [LinUCB.Observe].
func (o *OFUL) Observe(t int, actions [][]float64, arm int, reward float64) error {
	q, err := o.check("OFUL", actions, arm, reward)
	if err != nil {
		return err
	}
	o.commit(actions[arm], reward, q)
	return nil
}

// RhoOFUL returns the function ρ of Wei and Luo's Assumption 1 for [OFUL]
// in dimension d with horizon T and confidence δ (WL App. I.2; spec
// nonstationary-transformers-master §2.1 and §5.2):
//
//	ρ(t) = β·sqrt(d·log(T/δ)/t) = 4·d·log(T/δ)/√t.
//
// The returned function gives +Inf for t < 1. RhoOFUL panics if d < 1,
// horizon < 1 or delta is not in (0, 1], like [RhoUCB1].
func RhoOFUL(d, horizon int, delta float64) func(t int) float64 {
	if d < 1 || horizon < 1 || !(delta > 0 && delta <= 1) {
		panic(fmt.Sprintf("learner: RhoOFUL(d = %d, horizon = %d, delta = %v): need d ≥ 1, horizon ≥ 1 and delta in (0, 1]", d, horizon, delta))
	}
	k := 4 * float64(d) * math.Log(float64(horizon)/delta)
	return func(t int) float64 {
		if t < 1 {
			return math.Inf(1)
		}
		return k / math.Sqrt(float64(t))
	}
}

// AuxRule selects the optimistic value f̃_t that [LinTS] reports. Thompson
// sampling has no optimistic value of its own: Wei and Luo cover only
// UCB-type learners and the seed paper does not define one (spec
// nonstationary-transformers-master §6 item 11).
type AuxRule int

const (
	// AuxSampled reports the sampled index max_k ⟨x_{t,k}, θ̃_t⟩ of the
	// arm played, the spec's recommended default. It is optimistic only
	// with constant probability per round (Agrawal and Goyal 2013), so it
	// is a weaker optimistic value than a UCB.
	AuxSampled AuxRule = iota
	// AuxPosteriorUCB reports the LinUCB-style bound
	// max_k ⟨x_{t,k}, θ̂_t⟩ + β‖x_{t,k}‖_{V_t⁻¹} of the posterior mean,
	// with β = [LinTSConfig].AuxBeta. It costs O(A·d²) more per Act.
	AuxPosteriorUCB
)

// String returns the rule's name.
func (r AuxRule) String() string {
	switch r {
	case AuxSampled:
		return "AuxSampled"
	case AuxPosteriorUCB:
		return "AuxPosteriorUCB"
	}
	return fmt.Sprintf("AuxRule(%d)", int(r))
}

// DefaultLinTSV2 is the default posterior scale v² of [LinTS], the "noise
// variance for TS" of the seed paper's experiments (App. B; spec §4.1).
const DefaultLinTSV2 = 0.3

// LinTSConfig configures [NewLinTS]. Dim is required; the zero value of
// every other field selects the value of the paper's experiments or the
// spec's recommendation.
type LinTSConfig struct {
	// Dim is the feature dimension d ≥ 1.
	Dim int
	// V2 is the posterior scale v² > 0 of θ̃ ~ N(θ̂, v²V⁻¹). Zero means
	// [DefaultLinTSV2] = 0.3. A tiny positive v² makes LinTS greedy.
	V2 float64
	// Lambda is the ridge regularisation λ > 0. Zero means 1.
	Lambda float64
	// Aux selects the optimistic value; the zero value is [AuxSampled].
	Aux AuxRule
	// AuxBeta is the bonus β > 0 of [AuxPosteriorUCB]. Zero means 1, the α
	// of the paper's LinUCB. It is ignored under AuxSampled.
	AuxBeta float64
}

// LinTS is linear Thompson sampling (Agrawal and Goyal 2013, "Thompson
// sampling for contextual bandits with linear payoffs") as used in the seed
// paper's experiments (spec nonstationary-transformers-master §2.1 and §4.1,
// v² = 0.3, λ = 1): with V_t and θ̂_t the ridge quantities of [LinUCB],
//
//	θ̃_t ~ N(θ̂_t, v²V_t⁻¹),   a_t = argmax_k ⟨x_{t,k}, θ̃_t⟩,
//
// ties towards the lowest index, and the optimistic value chosen by
// [AuxRule] (default: the sampled index max_k ⟨x_{t,k}, θ̃_t⟩).
//
// Besides V⁻¹ (Sherman–Morrison, for θ̂ and the posterior UCB) LinTS keeps
// the upper Cholesky factor R of V = RᵀR, updated by the O(d²) rank-one
// Cholesky update (Givens-type rotations; it never down-dates, so it stays
// well conditioned), and samples θ̃ = θ̂ + v·R⁻¹z with z ~ N(0, I_d), whose
// covariance is v²R⁻¹R⁻ᵀ = v²V⁻¹: no O(d³) factorisation per round. Act
// costs O(d² + A·d) time (d normal draws and a triangular solve) under
// AuxSampled, O(A·d²) more under AuxPosteriorUCB; Observe costs O(d² + A).
// Neither allocates. Act panics if rng is nil, the action set is empty or
// an action's dimension is not d. A LinTS is not safe for concurrent use.
type LinTS struct {
	ridge
	v2, v   float64 // v² and v
	aux     AuxRule
	auxBeta float64

	r      []float64 // R, d×d row-major upper triangular, V = RᵀR
	sample []float64 // θ̃ of the last Act
	z      []float64 // scratch
}

// NewLinTS returns a LinTS learner with no observations. It returns an
// error naming the bad field if Dim < 1, V2, Lambda or AuxBeta is negative
// or not finite, or Aux is unknown.
func NewLinTS(cfg LinTSConfig) (*LinTS, error) {
	if cfg.Dim < 1 {
		return nil, fmt.Errorf("learner: LinTS needs a positive feature dimension, got Dim = %d", cfg.Dim)
	}
	v2, err := checkPositive("LinTS", "posterior scale V2", cfg.V2, DefaultLinTSV2)
	if err != nil {
		return nil, err
	}
	lambda, err := checkPositive("LinTS", "regularisation Lambda", cfg.Lambda, 1)
	if err != nil {
		return nil, err
	}
	auxBeta, err := checkPositive("LinTS", "bonus AuxBeta", cfg.AuxBeta, 1)
	if err != nil {
		return nil, err
	}
	switch cfg.Aux {
	case AuxSampled, AuxPosteriorUCB:
	default:
		return nil, fmt.Errorf("learner: LinTS has unknown optimistic-value rule Aux = %v", cfg.Aux)
	}
	d := cfg.Dim
	l := &LinTS{
		ridge:   newRidge(d, lambda),
		v2:      v2,
		v:       math.Sqrt(v2),
		aux:     cfg.Aux,
		auxBeta: auxBeta,
		r:       make([]float64, d*d),
		sample:  make([]float64, d),
		z:       make([]float64, d),
	}
	l.Reset()
	return l, nil
}

// V2 returns the posterior scale v² in use.
func (l *LinTS) V2() float64 { return l.v2 }

// Aux returns the optimistic-value rule in use.
func (l *LinTS) Aux() AuxRule { return l.aux }

// Sample returns θ̃ drawn by the last Act (zero after Reset). The slice
// belongs to the learner and is valid until the next Act or Reset.
func (l *LinTS) Sample() []float64 { return l.sample }

// GramFactor returns a copy of the upper Cholesky factor R of the Gram
// matrix V = RᵀR = λI + Σ_τ x_τ x_τᵀ.
func (l *LinTS) GramFactor() *mat.TriDense {
	d := l.d
	t := mat.NewTriDense(d, mat.Upper, nil)
	for i := range d {
		for j := i; j < d; j++ {
			t.SetTri(i, j, l.r[i*d+j])
		}
	}
	return t
}

// Reset forgets every observation (a restart): V = λI, θ̂ = θ̃ = 0.
func (l *LinTS) Reset() {
	l.reset()
	clear(l.r)
	s := math.Sqrt(l.lambda)
	for i := range l.d {
		l.r[i*l.d+i] = s
	}
	clear(l.sample)
}

// Act draws θ̃ ~ N(θ̂, v²V⁻¹) from rng (d standard normals), returns the arm
// maximising ⟨x, θ̃⟩ and the optimistic value of the configured [AuxRule].
func (l *LinTS) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	if rng == nil {
		panic("learner: LinTS.Act: nil rng")
	}
	d := l.d
	for i := range l.z {
		l.z[i] = rng.NormFloat64()
	}
	// Back substitution R w = z, in place in z.
	for i := d - 1; i >= 0; i-- {
		row := l.r[i*d : (i+1)*d]
		s := l.z[i] - floats.Dot(row[i+1:], l.z[i+1:])
		l.z[i] = s / row[i]
	}
	for i := range l.sample {
		l.sample[i] = l.theta[i] + l.v*l.z[i]
	}
	arm, optimistic = l.ucb("LinTS", actions, l.sample, 0)
	if l.aux == AuxPosteriorUCB {
		_, optimistic = l.ucb("LinTS", actions, l.theta, l.auxBeta)
	}
	return arm, optimistic
}

// Observe adds the played feature vector and its reward to the ridge
// regression and the Cholesky factor, with the errors of
// [LinUCB.Observe].
func (l *LinTS) Observe(t int, actions [][]float64, arm int, reward float64) error {
	q, err := l.check("LinTS", actions, arm, reward)
	if err != nil {
		return err
	}
	x := actions[arm]
	l.commit(x, reward, q)
	// Rank-one Cholesky update RᵀR + xxᵀ = R'ᵀR', with z as the rotated x.
	d := l.d
	w := l.z
	copy(w, x)
	for k := range d {
		rkk := l.r[k*d+k]
		r := math.Hypot(rkk, w[k])
		c, s := r/rkk, w[k]/rkk
		l.r[k*d+k] = r
		row := l.r[k*d+k+1 : (k+1)*d]
		wk := w[k+1:]
		for j := range row {
			row[j] = (row[j] + s*wk[j]) / c
			wk[j] = c*wk[j] - s*row[j]
		}
	}
	return nil
}
