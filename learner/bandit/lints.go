package bandit

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// AuxRule selects the optimistic value f̃_t that [LinTS] reports. Thompson
// sampling has no optimistic value of its own: Wei and Luo cover only
// UCB-type learners and nonstationary-transformers-master does not define
// one; the rules below are this package's choices.
type AuxRule int

const (
	// AuxSampled reports the sampled index max_k ⟨x_{t,k}, θ̃_t⟩ of the
	// arm played (the default). It is optimistic only
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
// variance for TS" of nonstationary-transformers-master's experiments (App. B).
const DefaultLinTSV2 = 0.3

// LinTSConfig configures [NewLinTS]. Dim is required; the zero value of
// every other field selects the value of the paper's experiments or this
// package's default.
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
// paper's experiments (nonstationary-transformers-master §2.1 and §4.1,
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
		return nil, fmt.Errorf("%w: LinTS needs a positive feature dimension, got Dim = %d", icrl.ErrInvalid, cfg.Dim)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "LinTS with Dim × Dim", cfg.Dim, cfg.Dim); err != nil {
		return nil, err
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
		return nil, fmt.Errorf("%w: LinTS has unknown optimistic-value rule Aux = %v", icrl.ErrInvalid, cfg.Aux)
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
