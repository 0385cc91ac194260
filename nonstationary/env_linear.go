package nonstationary

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/tensor"
)

// ActionSets holds the action sets A_1, …, A_T of a linear bandit
// (nonstationary-transformers-master §5: "A_t … may vary over time"): either one fixed set used at every
// round ([FixedActions], the default of Lin, Bai and Mei's code), explicit
// per-round sets ([PerRoundActions]) or sets redrawn every round from a seed
// ([RandomActions]). Build one with those functions; the zero value holds no
// sets and is rejected by the constructors. An ActionSets is immutable and
// safe for concurrent use.
type ActionSets struct {
	sets  [][][]float64 // one set (fixed) or one per round
	fixed bool
	a, d  int
}

// FixedActions returns the fixed action set A_t ≡ actions (A rows of equal
// length d ≥ 1, finite entries), copied. It returns an error naming the bad
// row or entry.
func FixedActions(actions [][]float64) (ActionSets, error) {
	set, err := copySet(actions, "actions")
	if err != nil {
		return ActionSets{}, err
	}
	return ActionSets{sets: [][][]float64{set}, fixed: true, a: len(set), d: len(set[0])}, nil
}

// PerRoundActions returns the action sets A_t = sets.Sub(t−1),
// t = 1..T, of a T × A × d array (copied): A ≥ 1 actions in dimension
// d ≥ 1 at every round, with finite entries. An environment built from it
// needs T ≥ its horizon.
func PerRoundActions(sets *tensor.Dense[float64]) (ActionSets, error) {
	if sets == nil || sets.Rank() != 3 {
		var shape []int
		if sets != nil {
			shape = sets.Shape()
		}
		return ActionSets{}, fmt.Errorf("%w: per-round action sets of shape %v, want T × A × d", icrl.ErrInvalid, shape)
	}
	T, A := sets.Dim(0), sets.Dim(1)
	out := make([][][]float64, T)
	for t := range T {
		rows := make([][]float64, A)
		for a := range A {
			rows[a] = sets.Row(t, a)
		}
		c, err := copySet(rows, fmt.Sprintf("sets[%d]", t))
		if err != nil {
			return ActionSets{}, err
		}
		out[t] = c
	}
	return ActionSets{sets: out, a: A, d: sets.Dim(2)}, nil
}

// RandomActions returns T action sets of A actions in dimension d, every
// entry drawn independently from U[−1,1] (the distribution of Lin, Bai and Mei 2024,
// redrawn every round instead of once). The draws come from rng in the
// order t = 1..T, arm 0..A−1, coordinate 0..d−1, as 2·Float64()−1. All
// T·A·d numbers are generated up front (8·T·A·d bytes). It returns an
// error if T, A or d is not positive or rng is nil.
func RandomActions(T, A, d int, rng *rand.Rand) (ActionSets, error) {
	if T <= 0 || A <= 0 || d <= 0 {
		return ActionSets{}, fmt.Errorf("%w: random action sets need positive T, A, d; got T=%d A=%d d=%d", icrl.ErrInvalid, T, A, d)
	}
	if rng == nil {
		return ActionSets{}, fmt.Errorf("%w: random action sets need a random source", icrl.ErrNil)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "random action sets T × A × d", T, A, d); err != nil {
		return ActionSets{}, err
	}
	buf := make([]float64, T*A*d)
	for i := range buf {
		buf[i] = 2*rng.Float64() - 1
	}
	sets := make([][][]float64, T)
	rows := make([][]float64, T*A)
	for i := range rows {
		rows[i] = buf[i*d : (i+1)*d : (i+1)*d]
	}
	for t := range sets {
		sets[t] = rows[t*A : (t+1)*A : (t+1)*A]
	}
	return ActionSets{sets: sets, a: A, d: d}, nil
}

// Arms returns the number of actions per set.
func (s ActionSets) Arms() int { return s.a }

// Dim returns the feature dimension.
func (s ActionSets) Dim() int { return s.d }

// Fixed reports whether one set is used at every round.
func (s ActionSets) Fixed() bool { return s.fixed }

// Rounds returns the number of rounds covered: −1 for a fixed set.
func (s ActionSets) Rounds() int {
	if s.fixed {
		return -1
	}
	return len(s.sets)
}

// At returns A_t (1-based t); the slices must not be modified.
func (s ActionSets) At(t int) [][]float64 {
	if s.fixed {
		return s.sets[0]
	}
	return s.sets[t-1]
}

func (s ActionSets) check(T, d int) error {
	if len(s.sets) == 0 {
		return fmt.Errorf("%w: empty ActionSets (use FixedActions, PerRoundActions or RandomActions)", icrl.ErrInvalid)
	}
	if !s.fixed && len(s.sets) < T {
		return fmt.Errorf("%w: %d per-round action sets for horizon %d", icrl.ErrInvalid, len(s.sets), T)
	}
	if s.d != d {
		return fmt.Errorf("%w: actions have dimension %d, parameter has %d", icrl.ErrInvalid, s.d, d)
	}
	return nil
}

func copySet(actions [][]float64, name string) ([][]float64, error) {
	if len(actions) == 0 {
		return nil, fmt.Errorf("%w: %s is empty", icrl.ErrInvalid, name)
	}
	d := len(actions[0])
	if d == 0 {
		return nil, fmt.Errorf("%w: %s[0] has dimension 0", icrl.ErrInvalid, name)
	}
	buf := make([]float64, 0, len(actions)*d)
	for k, a := range actions {
		if len(a) != d {
			return nil, fmt.Errorf("%w: %s[%d] has dimension %d, %s[0] has %d", icrl.ErrInvalid, name, k, len(a), name, d)
		}
		for i, x := range a {
			if !finite(x) {
				return nil, fmt.Errorf("%w: %s[%d][%d] = %v is not finite", icrl.ErrNotFinite, name, k, i, x)
			}
		}
		buf = append(buf, a...)
	}
	out := make([][]float64, len(actions))
	for k := range out {
		out[k] = buf[k*d : (k+1)*d : (k+1)*d]
	}
	return out, nil
}

// Linear is a non-stationary stochastic linear bandit (nonstationary-transformers-master §5). At
// round t the learner picks a_t from A_t and receives
//
//	r_t = α_t·(⟨a_t, θ_t⟩ + ε_t) + β_t,   ε_t ~ N(0, σ²) i.i.d.,
//
// so f_t(a) = α_t·⟨a, θ_t⟩ + β_t. The plain bandits have α_t = 1, β_t = 0
// and a piecewise-constant or drifting θ_t; the paper's two scenarios (§4.2,
// §4.3) are affine modulations of a stationary bandit ([NewLowNonStationary],
// [NewCosine]). The inner products ⟨a_{t,k}, θ_t⟩ and the optimum f*_t are
// computed at construction — O(P·A·d + T·A) time and memory for a fixed
// action set and P distinct parameters, O(T·A·d) time and O(T·A) memory for
// per-round sets or a drift — so Mean and OptimalMean are O(1) and Sample is
// one normal draw. Linear implements [FeatureMeaner]; it
// is immutable and safe for concurrent use.
type Linear struct {
	T, a, d     int
	sigma       float64
	acts        ActionSets
	thetas      [][]float64
	thetaOf     []int32   // θ index of round t at t−1
	alpha, beta []float64 // nil: α_t = 1, β_t = 0
	raw         []float64 // ⟨a,θ⟩: (θ index × A) for a fixed set, (T × A) otherwise
	best        []float64 // f*: per θ index if bestPerTheta, else per round
	arg         []int
	// bestPerTheta: fixed set and no modulation
	bestPerTheta bool
}

// NewLinear returns the stationary linear bandit r_t = ⟨a_t, θ⟩ + ε_t,
// ε_t ~ N(0, noiseStd²), with action sets acts, horizon T (nonstationary-transformers-master §5; the
// paper uses d = 32, A = 10, noiseStd = 1.5, see [SampleLBMInstance]).
// theta is copied. It returns an error naming the bad value for T ≤ 0, a
// non-finite theta entry, a dimension mismatch, too few action sets, or a
// negative or non-finite noiseStd.
func NewLinear(theta []float64, acts ActionSets, noiseStd float64, T int) (*Linear, error) {
	return NewPiecewiseLinear([][]float64{theta}, []int{1}, acts, noiseStd, T)
}

// NewPiecewiseLinear returns the piecewise-stationary linear bandit with
// θ_t = thetas[j] on piece j, which starts at round starts[j] (1-based;
// starts[0] = 1, strictly increasing, ≤ T), action sets acts and Gaussian
// noise of standard deviation noiseStd. Inputs are copied; errors as for
// [NewLinear] plus bad starts.
func NewPiecewiseLinear(thetas [][]float64, starts []int, acts ActionSets, noiseStd float64, T int) (*Linear, error) {
	if err := checkHorizon(T); err != nil {
		return nil, err
	}
	th, err := copyThetas(thetas)
	if err != nil {
		return nil, err
	}
	idx, err := checkStarts(starts, len(th), T)
	if err != nil {
		return nil, err
	}
	return newLinear(th, idx, acts, noiseStd, T, nil, nil)
}

func copyThetas(thetas [][]float64) ([][]float64, error) {
	if len(thetas) == 0 {
		return nil, fmt.Errorf("%w: no parameters θ", icrl.ErrInvalid)
	}
	d := len(thetas[0])
	if d == 0 {
		return nil, fmt.Errorf("%w: θ has dimension 0", icrl.ErrInvalid)
	}
	out := make([][]float64, len(thetas))
	for j, th := range thetas {
		if len(th) != d {
			return nil, fmt.Errorf("%w: thetas[%d] has dimension %d, thetas[0] has %d", icrl.ErrInvalid, j, len(th), d)
		}
		for i, x := range th {
			if !finite(x) {
				return nil, fmt.Errorf("%w: thetas[%d][%d] = %v is not finite", icrl.ErrNotFinite, j, i, x)
			}
		}
		out[j] = append([]float64(nil), th...)
	}
	return out, nil
}

func newLinear(thetas [][]float64, thetaOf []int32, acts ActionSets, sigma float64, T int, alpha, beta []float64) (*Linear, error) {
	if !finite(sigma) || sigma < 0 {
		return nil, fmt.Errorf("%w: noise standard deviation %v must be finite and non-negative", icrl.ErrInvalid, sigma)
	}
	d := len(thetas[0])
	if err := acts.check(T, d); err != nil {
		return nil, err
	}
	e := &Linear{T: T, a: acts.a, d: d, sigma: sigma, acts: acts, thetas: thetas,
		thetaOf: thetaOf, alpha: alpha, beta: beta}
	if acts.fixed {
		e.raw = make([]float64, len(thetas)*e.a)
		for j, th := range thetas {
			for k, a := range acts.sets[0] {
				e.raw[j*e.a+k] = dot(a, th)
			}
		}
	} else {
		e.raw = make([]float64, T*e.a)
		for t := 1; t <= T; t++ {
			th := thetas[thetaOf[t-1]]
			for k, a := range acts.At(t) {
				e.raw[(t-1)*e.a+k] = dot(a, th)
			}
		}
	}
	if acts.fixed && alpha == nil {
		// The means are the inner products: one optimum per parameter.
		e.bestPerTheta = true
		e.best = make([]float64, len(thetas))
		e.arg = make([]int, len(thetas))
		for j := range thetas {
			e.best[j], e.arg[j] = argmax(e.raw[j*e.a : (j+1)*e.a])
		}
		return e, nil
	}
	e.best = make([]float64, T)
	e.arg = make([]int, T)
	row := make([]float64, e.a)
	for t := 1; t <= T; t++ {
		for k := range row {
			row[k] = e.Mean(t, k)
		}
		e.best[t-1], e.arg[t-1] = argmax(row)
	}
	return e, nil
}

// argmax returns the maximum of x and its lowest index.
func argmax(x []float64) (best float64, arg int) {
	best = math.Inf(-1)
	for k, v := range x {
		if v > best {
			best, arg = v, k
		}
	}
	return best, arg
}

// dot returns Σ_i a[i]·b[i], summed in order of i (MeanOf and the
// precomputed means use it alike, so they agree bit for bit).
func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// Horizon returns T.
func (e *Linear) Horizon() int { return e.T }

// Arms returns A, the number of actions per round.
func (e *Linear) Arms() int { return e.a }

// Dim returns d.
func (e *Linear) Dim() int { return e.d }

// Actions returns A_t; the slices must not be modified.
func (e *Linear) Actions(t int) [][]float64 { return e.acts.At(t) }

// NoiseStd returns σ, the standard deviation of ε_t before the modulation
// α_t (the reward noise has standard deviation |α_t|·σ).
func (e *Linear) NoiseStd() float64 { return e.sigma }

// Theta returns θ_t; the slice must not be modified.
func (e *Linear) Theta(t int) []float64 { return e.thetas[e.thetaOf[t-1]] }

// Modulation returns (α_t, β_t) of r_t = α_t(⟨a,θ_t⟩ + ε_t) + β_t: (1, 0)
// for the plain bandits.
func (e *Linear) Modulation(t int) (alpha, beta float64) {
	if e.alpha == nil {
		return 1, 0
	}
	return e.alpha[t-1], e.beta[t-1]
}

// MeanOf returns f_t(a) = α_t·⟨a, θ_t⟩ + β_t for any a of length Dim().
func (e *Linear) MeanOf(t int, a []float64) float64 {
	s := dot(a, e.thetas[e.thetaOf[t-1]])
	if e.alpha == nil {
		return s
	}
	return e.alpha[t-1]*s + e.beta[t-1]
}

// Mean returns f_t(a_{t,k}).
func (e *Linear) Mean(t, k int) float64 {
	if k < 0 || k >= e.a {
		panic(fmt.Sprintf("nonstationary: arm %d out of range [0,%d)", k, e.a))
	}
	var s float64
	if e.acts.fixed {
		s = e.raw[int(e.thetaOf[t-1])*e.a+k]
	} else {
		s = e.raw[(t-1)*e.a+k]
	}
	if e.alpha == nil {
		return s
	}
	return e.alpha[t-1]*s + e.beta[t-1]
}

// Sample returns f_t(a_{t,k}) + α_t·σ·rng.NormFloat64() (one draw).
func (e *Linear) Sample(t, k int, rng *rand.Rand) float64 {
	m := e.Mean(t, k)
	s := e.sigma
	if e.alpha != nil {
		s *= e.alpha[t-1]
	}
	return m + s*rng.NormFloat64()
}

func (e *Linear) optimal(t int) (float64, int) {
	if e.bestPerTheta {
		j := e.thetaOf[t-1]
		return e.best[j], e.arg[j]
	}
	return e.best[t-1], e.arg[t-1]
}
