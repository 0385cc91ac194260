package bandit

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

var (
	_ Learner = (*LinUCB)(nil)
	_ Learner = (*OFUL)(nil)
	_ Learner = (*LinTS)(nil)
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
		return 0, fmt.Errorf("%w: %s needs the action set of the round, got none", icrl.ErrInvalid, name)
	}
	if arm < 0 || arm >= len(actions) {
		return 0, fmt.Errorf("%w: %s arm %d out of range [0, %d)", icrl.ErrOutOfRange, name, arm, len(actions))
	}
	for k, a := range actions {
		if len(a) != r.d {
			return 0, fmt.Errorf("%w: %s action %d has dimension %d, want %d", icrl.ErrShape, name, k, len(a), r.d)
		}
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return 0, fmt.Errorf("%w: %s reward %v for arm %d is not finite", icrl.ErrNotFinite, name, reward, arm)
	}
	x := actions[arm]
	for i, xi := range x {
		if math.IsNaN(xi) || math.IsInf(xi, 0) || math.IsInf(reward*xi, 0) || math.IsInf(r.b[i]+reward*xi, 0) {
			return 0, fmt.Errorf("%w: %s feature %d = %v of the played arm %d is not finite or overflows with reward %v", icrl.ErrNotFinite, name, i, xi, arm, reward)
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
		return 0, fmt.Errorf("%w: %s played arm %d has a non-finite width xᵀV⁻¹x = %v", icrl.ErrNotFinite, name, arm, q)
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
		return 0, fmt.Errorf("%w: %s %s = %v must be positive and finite (0 for the default %v)", icrl.ErrInvalid, name, field, v, def)
	}
	return v, nil
}
