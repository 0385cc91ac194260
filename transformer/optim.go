package transformer

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// AdamConfig configures [Adam]. The zero value is Adam with the defaults of
// Kingma and Ba (2015) and PyTorch: β₁ = 0.9, β₂ = 0.999, ε = 1e-8, no weight
// decay.
type AdamConfig struct {
	// Beta1 is the decay rate of the first moment, in [0, 1); 0 means 0.9.
	// (β₁ = 0 exactly cannot be selected; any β₁ below 2⁻⁵³, e.g. 1e-300,
	// gives the same arithmetic in float64.)
	Beta1 float64
	// Beta2 is the decay rate of the second moment, in [0, 1); 0 means
	// 0.999.
	Beta2 float64
	// Epsilon is added to √v̂ in the denominator, > 0; 0 means 1e-8.
	Epsilon float64
	// WeightDecay is the coefficient λ ≥ 0 of weight decay, applied to
	// every parameter; 0 means none.
	WeightDecay float64
	// Decoupled selects AdamW (Loshchilov and Hutter 2019): the weights
	// shrink by lr·λ·θ before the Adam update, independently of the
	// gradient, as in torch.optim.AdamW. Without it, λ·θ is added to the
	// gradient (L2 regularisation, as in torch.optim.Adam).
	Decoupled bool
}

// withDefaults returns c with zero fields replaced by their defaults.
func (c AdamConfig) withDefaults() AdamConfig {
	if c.Beta1 == 0 {
		c.Beta1 = 0.9
	}
	if c.Beta2 == 0 {
		c.Beta2 = 0.999
	}
	if c.Epsilon == 0 {
		c.Epsilon = 1e-8
	}
	return c
}

// Validate reports an error naming the first invalid field of c (after
// applying the defaults).
func (c AdamConfig) Validate() error {
	c = c.withDefaults()
	switch {
	case !(c.Beta1 >= 0 && c.Beta1 < 1):
		return fmt.Errorf("%w: Adam Beta1 %v not in [0, 1)", icrl.ErrInvalid, c.Beta1)
	case !(c.Beta2 >= 0 && c.Beta2 < 1):
		return fmt.Errorf("%w: Adam Beta2 %v not in [0, 1)", icrl.ErrInvalid, c.Beta2)
	case !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 1):
		return fmt.Errorf("%w: Adam Epsilon %v is not positive and finite", icrl.ErrInvalid, c.Epsilon)
	case !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 1):
		return fmt.Errorf("%w: Adam WeightDecay %v is not non-negative and finite", icrl.ErrInvalid, c.WeightDecay)
	}
	return nil
}

// Adam is the Adam optimiser (Kingma and Ba 2015, Algorithm 1) with
// optional L2 or decoupled (AdamW) weight decay. For each parameter entry,
// step t = 1, 2, … with learning rate α and gradient g does, in the
// arithmetic order of torch.optim.Adam and torch.optim.AdamW
// (foreach=False, PyTorch 1.13), so that results agree with them to float
// rounding:
//
//	θ ← θ·(1 − α·λ)                         (AdamW only)
//	g ← g + λ·θ                              (Adam with weight decay only)
//	m ← β₁·m + (1−β₁)·g
//	v ← β₂·v + ((1−β₂)·g)·g
//	θ ← θ + (−α/(1−β₁ᵗ))·m / (√v/√(1−β₂ᵗ) + ε)
//
// The moments m and v are stored in F (half the memory of float64 for
// float32 models) and each step's arithmetic is done in F, as PyTorch does
// it for tensors of that type (the scalars 1−β₁ᵗ and √(1−β₂ᵗ) in float64,
// then rounded to F). With F = float64 the results match PyTorch's float64
// optimisers to a few ulps, with F = float32 its float32 ones to float32
// rounding.
//
// A step costs O(P) time for P parameter entries (about 15 flops and a
// square root per entry), split over GOMAXPROCS goroutines in pieces of
// 4096 entries (every entry is updated alone, so the result does not depend
// on the split), and the optimiser holds 2P values of F. Adam is not safe
// for concurrent use.
type Adam[F tensor.Float] struct {
	cfg    AdamConfig
	params []*Param[F]
	m, v   [][]F
	step   int
	segs   []adamSeg // the parameters in pieces, for the parallel update
	bad    []int     // per piece, 1 + offset of its first non-finite gradient
}

// NewAdam returns an Adam optimiser for params with no steps taken. It
// returns an error if the configuration is invalid, a parameter is nil, has
// len(Grad) ≠ len(Value) or a shape whose product is not len(Value), or two
// parameters are the same or share a name (names key the [AdamState]).
func NewAdam[F tensor.Float](params []*Param[F], cfg AdamConfig) (*Adam[F], error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	names := make(map[string]int, len(params))
	for i, p := range params {
		if p == nil {
			return nil, fmt.Errorf("%w: Adam parameter %d is nil", icrl.ErrNil, i)
		}
		if j, dup := names[p.Name]; dup {
			return nil, fmt.Errorf("%w: Adam parameters %d and %d share the name %q", icrl.ErrShape, j, i, p.Name)
		}
		names[p.Name] = i
		if len(p.Grad) != len(p.Value) {
			return nil, fmt.Errorf("%w: Adam parameter %q has %d values but %d gradients", icrl.ErrShape, p.Name, len(p.Value), len(p.Grad))
		}
		n := 1
		for _, s := range p.Shape {
			if s < 0 || (s > 0 && n > math.MaxInt/s) {
				n = -1
				break
			}
			n *= s
		}
		if n != len(p.Value) {
			return nil, fmt.Errorf("%w: Adam parameter %q has shape %v but %d values", icrl.ErrShape, p.Name, p.Shape, len(p.Value))
		}
	}
	a := &Adam[F]{
		cfg:    cfg.withDefaults(),
		params: append([]*Param[F](nil), params...),
		m:      make([][]F, len(params)),
		v:      make([][]F, len(params)),
	}
	for i, p := range params {
		a.m[i] = make([]F, len(p.Value))
		a.v[i] = make([]F, len(p.Value))
		for lo := 0; lo < len(p.Value); lo += adamSegment {
			a.segs = append(a.segs, adamSeg{k: i, lo: lo, hi: min(lo+adamSegment, len(p.Value))})
		}
	}
	a.bad = make([]int, len(a.segs))
	return a, nil
}

// adamSegment is the number of entries of a parameter one goroutine
// updates at a time; adamCheckWork and adamUpdateWork are a segment's cost
// for parallelFor (small models update on the calling goroutine).
const (
	adamSegment    = 4096
	adamCheckWork  = adamSegment
	adamUpdateWork = 20 * adamSegment
)

// adamSeg is a range [lo, hi) of parameter k.
type adamSeg struct{ k, lo, hi int }

// Config returns the configuration with defaults applied.
func (a *Adam[F]) Config() AdamConfig { return a.cfg }

// Steps returns the number of steps taken (restored by [Adam.SetState]).
func (a *Adam[F]) Steps() int { return a.step }

// Step updates every parameter's Value from its Grad with learning rate lr,
// as described on [Adam]. It returns an error and changes nothing if lr is
// negative or not finite, or if any gradient entry is NaN or infinite (the
// error names the parameter and entry), so a training loop can skip such a
// batch; callers must check it.
func (a *Adam[F]) Step(lr float64) error {
	if !(lr >= 0) || math.IsInf(lr, 1) {
		return fmt.Errorf("%w: Adam learning rate %v is not non-negative and finite", icrl.ErrInvalid, lr)
	}
	// Check every gradient first (in parallel; the first bad entry in
	// parameter order is reported), so that a bad batch changes nothing.
	bad := a.bad
	parallelFor(len(a.segs), adamCheckWork, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			sg := a.segs[s]
			bad[s] = 0
			bad[s] = 1 + firstNonFinite(a.params[sg.k].Grad[sg.lo:sg.hi])
		}
	})
	for s, b := range bad {
		if b > 0 {
			sg := a.segs[s]
			p, i := a.params[sg.k], sg.lo+b-1
			return fmt.Errorf("%w: Adam step %d: gradient %q[%d] is %v", icrl.ErrNotFinite, a.step+1, p.Name, i, float64(p.Grad[i]))
		}
	}
	a.step++
	t := float64(a.step)
	b1, b2, eps, wd := a.cfg.Beta1, a.cfg.Beta2, a.cfg.Epsilon, a.cfg.WeightDecay
	bc1 := 1 - math.Pow(b1, t)
	bc2 := 1 - math.Pow(b2, t)
	negStep := -(lr / bc1)
	bc2sqrt := math.Sqrt(bc2)
	c1, c2 := 1-b1, 1-b2
	shrink := 1 - lr*wd
	l2 := wd != 0 && !a.cfg.Decoupled
	decoupled := wd != 0 && a.cfg.Decoupled
	// Every entry's update is independent, so the split over goroutines
	// does not change the result.
	parallelFor(len(a.segs), adamUpdateWork, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			sg := a.segs[s]
			val := a.params[sg.k].Value[sg.lo:sg.hi]
			grad := a.params[sg.k].Grad[sg.lo:sg.hi]
			m, v := a.m[sg.k][sg.lo:sg.hi], a.v[sg.k][sg.lo:sg.hi]
			grad, m, v = grad[:len(val)], m[:len(val)], v[:len(val)]
			if v32, ok := any(val).([]float32); ok {
				k := adam32{b1: float32(b1), b2: float32(b2), c1: float32(c1), c2: float32(c2), negStep: float32(negStep),
					bc2sqrt: float32(bc2sqrt), eps: float32(eps), shrink: float32(shrink), wd: float32(wd), l2: l2, decoupled: decoupled}
				k.update(v32, any(grad).([]float32), any(m).([]float32), any(v).([]float32))
				continue
			}
			for i := range val {
				th, g := float64(val[i]), float64(grad[i])
				if decoupled {
					th *= shrink
				} else if l2 {
					g += wd * th
				}
				mi := F(float64(m[i])*b1 + c1*g)
				vi := F(float64(v[i])*b2 + (c2*g)*g)
				m[i], v[i] = mi, vi
				den := math.Sqrt(float64(vi))/bc2sqrt + eps
				val[i] = F(th + (negStep*float64(mi))/den)
			}
		}
	})
	return nil
}

// AdamState is a snapshot of an [Adam] optimiser's state, for checkpoints:
// the number of steps taken and the first and second moments of each
// parameter, keyed by parameter name, each with the parameter's length (and,
// row-major, its shape). Values are float64 whatever the model's element
// type; float32 moments convert exactly.
type AdamState struct {
	// Step is the number of steps taken.
	Step int
	// M and V map each parameter name to its first and second moment.
	M, V map[string][]float64
}

// State returns a deep copy of the optimiser's state.
func (a *Adam[F]) State() AdamState {
	s := AdamState{
		Step: a.step,
		M:    make(map[string][]float64, len(a.params)),
		V:    make(map[string][]float64, len(a.params)),
	}
	for k, p := range a.params {
		m := make([]float64, len(a.m[k]))
		v := make([]float64, len(a.v[k]))
		for i := range m {
			m[i], v[i] = float64(a.m[k][i]), float64(a.v[k][i])
		}
		s.M[p.Name], s.V[p.Name] = m, v
	}
	return s
}

// SetState restores a state from [Adam.State] (copying it), after which
// Step continues exactly, bit for bit, as the optimiser the state came from.
// It returns an error and changes nothing if Step is negative, a parameter
// lacks a moment or has one of the wrong length, a name matches no
// parameter, or a moment entry is not finite in F (or, for V, negative). A
// state with Step 0 and no moments resets the optimiser.
func (a *Adam[F]) SetState(s AdamState) error {
	if s.Step < 0 {
		return fmt.Errorf("%w: Adam state has step %d", icrl.ErrInvalid, s.Step)
	}
	if s.Step == 0 && len(s.M) == 0 && len(s.V) == 0 {
		a.step = 0
		for k := range a.params {
			clear(a.m[k])
			clear(a.v[k])
		}
		return nil
	}
	known := make(map[string]bool, len(a.params))
	for _, p := range a.params {
		known[p.Name] = true
		for _, mom := range []struct {
			name string
			vals map[string][]float64
		}{{"first", s.M}, {"second", s.V}} {
			x, ok := mom.vals[p.Name]
			if !ok {
				return fmt.Errorf("%w: Adam state lacks the %s moment of %q", icrl.ErrShape, mom.name, p.Name)
			}
			if len(x) != len(p.Value) {
				return fmt.Errorf("%w: Adam state's %s moment of %q has %d entries, the parameter %d (shape %v)", icrl.ErrShape,
					mom.name, p.Name, len(x), len(p.Value), p.Shape)
			}
			for i, xi := range x {
				f := float64(F(xi))
				if math.IsNaN(f) || math.IsInf(f, 0) || (mom.name == "second" && xi < 0) {
					return fmt.Errorf("%w: Adam state's %s moment %q[%d] is %v", icrl.ErrNotFinite, mom.name, p.Name, i, xi)
				}
			}
		}
	}
	for _, vals := range []map[string][]float64{s.M, s.V} {
		for name := range vals {
			if !known[name] {
				return fmt.Errorf("%w: Adam state has moments for %q, which is not a parameter", icrl.ErrShape, name)
			}
		}
	}
	a.step = s.Step
	for k, p := range a.params {
		for i := range a.m[k] {
			a.m[k][i] = F(s.M[p.Name][i])
			a.v[k][i] = F(s.V[p.Name][i])
		}
	}
	return nil
}

// ClipGradNorm rescales the gradients of params so that their global L2 norm
// ‖g‖ = √(Σ g²), over every Grad entry of every parameter and computed in
// float64, is at most maxNorm, and returns the norm before clipping. If
// ‖g‖ > maxNorm every entry is multiplied by maxNorm/‖g‖ (in float64, then
// rounded to F); unlike torch.nn.utils.clip_grad_norm_ no 1e-6 is added to
// the norm. maxNorm ≤ 0 or NaN means no clipping (the norm is still
// returned). A NaN or infinite norm (some entry is NaN or infinite) is
// returned and nothing is scaled, so the caller can detect it; a norm that
// overflows only because the squares do is computed with scaling and is
// finite. Nil parameters are skipped. It costs O(P) for P entries.
func ClipGradNorm[F tensor.Float](params []*Param[F], maxNorm float64) (norm float64) {
	var ss float64
	for _, p := range params {
		if p == nil {
			continue
		}
		for _, g := range p.Grad {
			ss += float64(g) * float64(g)
		}
	}
	norm = math.Sqrt(ss)
	if math.IsInf(norm, 1) {
		norm = scaledNorm(params)
	}
	if !(maxNorm > 0) || !(norm > maxNorm) || math.IsInf(norm, 1) {
		return norm
	}
	scale := maxNorm / norm
	for _, p := range params {
		if p == nil {
			continue
		}
		for i, g := range p.Grad {
			p.Grad[i] = F(float64(g) * scale)
		}
	}
	return norm
}

// scaledNorm computes the L2 norm of the gradients as max|g|·√(Σ(g/max|g|)²),
// which does not overflow when the entries are finite.
func scaledNorm[F tensor.Float](params []*Param[F]) float64 {
	var mx float64
	for _, p := range params {
		if p == nil {
			continue
		}
		for _, g := range p.Grad {
			a := math.Abs(float64(g))
			if math.IsNaN(a) {
				return a
			}
			mx = max(mx, a)
		}
	}
	if mx == 0 || math.IsInf(mx, 1) {
		return mx
	}
	var ss float64
	for _, p := range params {
		if p == nil {
			continue
		}
		for _, g := range p.Grad {
			r := float64(g) / mx
			ss += r * r
		}
	}
	return mx * math.Sqrt(ss)
}
