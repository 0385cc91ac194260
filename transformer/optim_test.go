package transformer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/tensor"
)

// quadParams returns the two parameters (shapes [2 2] and [3]) of the
// quadratic test problem f(θ) = Σ aᵢ(θᵢ − cᵢ)²/2, at θ₀.
var (
	quadA  = []float64{1, 2, 0.5, 3, 0.25, 4, 1.5}
	quadC  = []float64{0.3, -0.2, 1, 0.5, -1, 0.1, 2}
	quadθ0 = []float64{1, -1, 0.5, 2, 0, -0.5, 1.5}
)

func quadParams[F tensor.Float]() []*Param[F] {
	p1 := &Param[F]{Name: "w", Shape: []int{2, 2}, Value: make([]F, 4), Grad: make([]F, 4)}
	p2 := &Param[F]{Name: "b", Shape: []int{3}, Value: make([]F, 3), Grad: make([]F, 3)}
	for i := range 4 {
		p1.Value[i] = F(quadθ0[i])
	}
	for i := range 3 {
		p2.Value[i] = F(quadθ0[4+i])
	}
	return []*Param[F]{p1, p2}
}

// quadGrad sets the gradient of the quadratic: gᵢ = aᵢ(θᵢ − cᵢ).
func quadGrad[F tensor.Float](ps []*Param[F]) {
	k := 0
	for _, p := range ps {
		for i, v := range p.Value {
			p.Grad[i] = F(quadA[k] * (float64(v) - quadC[k]))
			k++
		}
	}
}

func flat[F tensor.Float](ps []*Param[F]) []float64 {
	var out []float64
	for _, p := range ps {
		for _, v := range p.Value {
			out = append(out, float64(v))
		}
	}
	return out
}

func TestAdamFirstStepClosedForm(t *testing.T) {
	// After one step m̂ = g and v̂ = g², so θ₁ = θ₀ − lr·g/(|g| + ε).
	p := &Param[float64]{Name: "p", Shape: []int{2}, Value: []float64{1, -2}, Grad: []float64{0.5, -0.1}}
	opt, err := NewAdam([]*Param[float64]{p}, AdamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := opt.Step(0.1); err != nil {
		t.Fatal(err)
	}
	want := []float64{1 - 0.1*0.5/(0.5+1e-8), -2 + 0.1*0.1/(0.1+1e-8)}
	// 0.9000000019999999…, −1.900000009999999…
	for i := range want {
		if d := math.Abs(p.Value[i] - want[i]); d > 4e-16 {
			t.Errorf("θ[%d] = %.17g, want %.17g (diff %g)", i, p.Value[i], want[i], d)
		}
	}
	if opt.Steps() != 1 {
		t.Errorf("Steps() = %d", opt.Steps())
	}
	s := opt.State()
	if math.Abs(s.M["p"][0]-0.05) > 1e-16 || math.Abs(s.V["p"][1]-1e-5) > 1e-19 {
		t.Errorf("moments m = %v, v = %v; want m₀ = 0.05, v₁ = 1e-5", s.M["p"], s.V["p"])
	}
}

// pytorchGolden holds θ after each of 5 steps of torch.optim.Adam / AdamW
// (PyTorch 1.13, float64, foreach=False, lr = 0.1) on the quadratic problem,
// printed with repr.
var pytorchGolden = map[string]struct {
	cfg  AdamConfig
	want [5][7]float64
}{
	"adam": {AdamConfig{}, [5][7]float64{
		{0.9000000014285714, -0.900000000625, 0.5999999960000002, 1.9000000002222222, -0.09999999600000017, -0.40000000041666667, 1.5999999986666666},
		{0.8006944212199866, -0.800568284120291, 0.6988125721264129, 1.8002390620669102, -0.19958776416439067, -0.30088271340085093, 1.698812577650342},
		{0.7027434841941818, -0.7022200675432761, 0.7951287379022463, 1.7009028701756774, -0.2984137161452774, -0.2035416268382982, 1.7951287463799832},
		{0.6070016582544336, -0.6056002251265838, 0.8870845890606205, 1.6021989360060094, -0.39606092466772214, -0.10918309484818634, 1.887084600393383},
		{0.5145516461035899, -0.5115042847004458, 0.9721855331489863, 1.504358168868855, -0.4920363220955072, -0.01938149271325118, 1.9721855469093454},
	}},
	"adam L2 0.1": {AdamConfig{WeightDecay: 0.1}, [5][7]float64{
		{0.90000000125, -0.9000000005882353, 0.5999999950000002, 1.900000000212766, -0.09999999600000017, -0.4000000004081633, 1.5999999983333333},
		{0.8006552555576176, -0.800558452083987, 0.6975720396241553, 1.8002357891933276, -0.1993266047416683, -0.3008884430604764, 1.6980442367727642},
		{0.702579952158197, -0.7021796732330853, 0.7893461026692713, 1.700890173846518, -0.2973444326432279, -0.2035662103556673, 1.7916059612454578},
		{0.6065611471188753, -0.6054931310278203, 0.8700643570451797, 1.6021671703668339, -0.3932354677610853, -0.10925105546855102, 1.876806715714432},
		{0.5135885023238452, -0.5112735246998601, 0.933404591661264, 1.5042935003872444, -0.48596739094053376, -0.019533373263515938, 1.9486246374766625},
	}},
	"adamw 0.1": {AdamConfig{WeightDecay: 0.1, Decoupled: true}, [5][7]float64{
		{0.8900000014285714, -0.890000000625, 0.5949999960000002, 1.8800000002222221, -0.09999999600000017, -0.39500000041666666, 1.5849999986666665},
		{0.7819045648012224, -0.781755254268163, 0.6879592140763579, 1.761503726805819, -0.19858776420439067, -0.2920042769700554, 1.6682390194157568},
		{0.6764708125231625, -0.6758481704305193, 0.7777561536280141, 1.6447348528559333, -0.29543633640628775, -0.1919565751869916, 1.7488311796240457},
		{0.5746845700346627, -0.5730102240244412, 0.8628592830887472, 1.5299450833851809, -0.39016448153219047, -0.09612184559680002, 1.82561124489095},
		{0.47779481086956954, -0.47414317521130805, 0.9412889751844389, 1.417416081934933, -0.48233193245035155, -0.006129962994088176, 1.897109991163693},
	}},
	"betas 0.8 0.99 eps 1e-6": {AdamConfig{Beta1: 0.8, Beta2: 0.99, Epsilon: 1e-6}, [5][7]float64{
		{0.9000001428569387, -0.9000000624999609, 0.5999996000016, 1.9000000222222173, -0.0999996000016, -0.4000000416666493, 1.5999998666668445},
		{0.8011090185488159, -0.8009276632332082, 0.6982147175432073, 1.800425123871557, -0.19930317660392938, -0.3013720205812958, 1.698215266565721},
		{0.7043271594206144, -0.7035855595108378, 0.7928085068569467, 1.7015966460210825, -0.297342559968053, -0.20542453291780835, 1.7928093403055487},
		{0.610885298549172, -0.6089333454081636, 0.8813302846047718, 1.6038629868105683, -0.39346615151981784, -0.11382650713552736, 1.8813313794790592},
		{0.5222520936767742, -0.5180920387040886, 0.9607453710627184, 1.507597562195103, -0.48693863610764215, -0.028614071173265324, 1.9607466663596016},
	}},
}

func TestAdamMatchesPyTorch(t *testing.T) {
	for name, tc := range pytorchGolden {
		t.Run(name+"/float64", func(t *testing.T) { checkGolden[float64](t, tc.cfg, tc.want, 1e-15) })
		t.Run(name+"/float32", func(t *testing.T) { checkGolden[float32](t, tc.cfg, tc.want, 2e-6) })
	}
}

func checkGolden[F tensor.Float](t *testing.T, cfg AdamConfig, want [5][7]float64, tol float64) {
	ps := quadParams[F]()
	opt, err := NewAdam(ps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for step := range want {
		quadGrad(ps)
		if err := opt.Step(0.1); err != nil {
			t.Fatal(err)
		}
		for i, g := range flat(ps) {
			if d := math.Abs(g - want[step][i]); d > tol*math.Max(1, math.Abs(want[step][i])) {
				t.Errorf("step %d θ[%d] = %.17g, PyTorch %.17g (diff %.3g)", step+1, i, g, want[step][i], d)
			}
		}
	}
}

// kingmaBa is Algorithm 1 of Kingma and Ba (2015) written out literally,
// with L2 weight decay added to the gradient.
type kingmaBa struct {
	α, β1, β2, ε, λ float64
	m, v            []float64
	t               int
}

func (k *kingmaBa) step(θ, g []float64) {
	k.t++
	for i := range θ {
		gi := g[i] + k.λ*θ[i]
		k.m[i] = k.β1*k.m[i] + (1-k.β1)*gi
		k.v[i] = k.β2*k.v[i] + (1-k.β2)*gi*gi
		mHat := k.m[i] / (1 - math.Pow(k.β1, float64(k.t)))
		vHat := k.v[i] / (1 - math.Pow(k.β2, float64(k.t)))
		θ[i] -= k.α * mHat / (math.Sqrt(vHat) + k.ε)
	}
}

func TestAdamMatchesKingmaBa(t *testing.T) {
	for _, λ := range []float64{0, 0.05} {
		rng := rand.New(rand.NewPCG(1, 2))
		n := 10
		p := &Param[float64]{Name: "p", Shape: []int{n}, Value: make([]float64, n), Grad: make([]float64, n)}
		θ := make([]float64, n)
		for i := range θ {
			θ[i] = rng.NormFloat64()
			p.Value[i] = θ[i]
		}
		ref := &kingmaBa{α: 0.01, β1: 0.9, β2: 0.999, ε: 1e-8, λ: λ, m: make([]float64, n), v: make([]float64, n)}
		opt, err := NewAdam([]*Param[float64]{p}, AdamConfig{WeightDecay: λ})
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, n)
		for step := range 200 {
			for i := range g {
				// Noisy gradient of θ²/2 with occasional large values.
				g[i] = θ[i] + rng.NormFloat64()*math.Pow(10, float64(rng.IntN(5)-2))
				p.Grad[i] = g[i]
			}
			ref.step(θ, g)
			opt.Step(0.01)
			for i := range θ {
				if d := math.Abs(p.Value[i] - θ[i]); d > 1e-13*math.Max(1, math.Abs(θ[i])) {
					t.Fatalf("λ=%v step %d θ[%d] = %.17g, Kingma–Ba %.17g", λ, step+1, i, p.Value[i], θ[i])
				}
				// Reset to the reference so rounding does not accumulate.
				p.Value[i] = θ[i]
			}
		}
	}
}

func TestAdamWeightDecay(t *testing.T) {
	// With a zero gradient AdamW only shrinks the weights, exactly by
	// (1 − lr·λ) per step; Adam's L2 term instead becomes the gradient and
	// takes a full normalised step of lr towards 0.
	mk := func() *Param[float64] {
		return &Param[float64]{Name: "p", Shape: []int{2}, Value: []float64{2, -4}, Grad: []float64{0, 0}}
	}
	pw, pl := mk(), mk()
	adamw, _ := NewAdam([]*Param[float64]{pw}, AdamConfig{WeightDecay: 0.5, Decoupled: true})
	adam, _ := NewAdam([]*Param[float64]{pl}, AdamConfig{WeightDecay: 0.5})
	adamw.Step(0.1)
	adam.Step(0.1)
	if pw.Value[0] != 2*0.95 || pw.Value[1] != -4*0.95 {
		t.Errorf("AdamW θ = %v, want [1.9 -3.8]", pw.Value)
	}
	wantL2 := []float64{2 - 0.1*1/(1+1e-8), -4 + 0.1*2/(2+1e-8)} // g = λθ = (1, −2)
	for i := range wantL2 {
		if math.Abs(pl.Value[i]-wantL2[i]) > 1e-15 {
			t.Errorf("Adam L2 θ[%d] = %.17g, want %.17g", i, pl.Value[i], wantL2[i])
		}
	}
	for range 9 {
		adamw.Step(0.1)
	}
	if w := 2 * math.Pow(0.95, 10); math.Abs(pw.Value[0]-w) > 1e-15 {
		t.Errorf("AdamW after 10 steps θ₀ = %.17g, want 2·0.95¹⁰ = %.17g", pw.Value[0], w)
	}
}

func TestAdamMinimisesQuadratic(t *testing.T) {
	t.Run("float64", func(t *testing.T) { testQuadratic[float64](t, 1e-6) })
	t.Run("float32", func(t *testing.T) { testQuadratic[float32](t, 1e-4) })
}

func testQuadratic[F tensor.Float](t *testing.T, tol float64) {
	ps := quadParams[F]()
	opt, err := NewAdam(ps, AdamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	sched := WarmupCosine{Peak: 0.05, Min: 0, Warmup: 20, Total: 2000}
	for s := range 2000 {
		quadGrad(ps)
		if err := opt.Step(sched.LR(s)); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range flat(ps) {
		if math.Abs(v-quadC[i]) > tol {
			t.Errorf("θ[%d] = %.9g, minimiser %g", i, v, quadC[i])
		}
	}
}

func TestAdamStateRoundTrip(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testStateRoundTrip[float32](t) })
	t.Run("float64", func(t *testing.T) { testStateRoundTrip[float64](t) })
}

func testStateRoundTrip[F tensor.Float](t *testing.T) {
	cfg := AdamConfig{WeightDecay: 0.01, Decoupled: true}
	grads := func(ps []*Param[F], s int) {
		quadGrad(ps)
		for _, p := range ps {
			for i := range p.Grad {
				p.Grad[i] += F(math.Sin(float64(3*s + i)))
			}
		}
	}
	// Uninterrupted: 20 steps.
	ref := quadParams[F]()
	optRef, _ := NewAdam(ref, cfg)
	for s := range 20 {
		grads(ref, s)
		optRef.Step(0.01 * float64(s+1))
	}
	// Interrupted after 10 steps: a new optimiser over copied weights
	// continues from the saved state.
	ps := quadParams[F]()
	opt, _ := NewAdam(ps, cfg)
	for s := range 10 {
		grads(ps, s)
		opt.Step(0.01 * float64(s+1))
	}
	state := opt.State()
	ps2 := quadParams[F]()
	for i := range ps {
		copy(ps2[i].Value, ps[i].Value)
	}
	opt2, _ := NewAdam(ps2, cfg)
	if err := opt2.SetState(state); err != nil {
		t.Fatal(err)
	}
	// The state is a copy: changing it afterwards changes nothing.
	state.M["w"][0] = 1e9
	if opt2.Steps() != 10 {
		t.Fatalf("Steps() = %d after SetState, want 10", opt2.Steps())
	}
	for s := 10; s < 20; s++ {
		grads(ps2, s)
		opt2.Step(0.01 * float64(s+1))
	}
	a, b := flat(ref), flat(ps2)
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Errorf("θ[%d]: uninterrupted %.17g, resumed %.17g", i, a[i], b[i])
		}
	}
	// Resetting with an empty state.
	if err := opt2.SetState(AdamState{}); err != nil || opt2.Steps() != 0 || opt2.State().M["w"][0] != 0 {
		t.Errorf("reset: err %v, steps %d", err, opt2.Steps())
	}
}

func TestAdamErrors(t *testing.T) {
	p := func(name string, n int) *Param[float64] {
		return &Param[float64]{Name: name, Shape: []int{n}, Value: make([]float64, n), Grad: make([]float64, n)}
	}
	a := p("a", 2)
	for _, tc := range []struct {
		name   string
		params []*Param[float64]
		cfg    AdamConfig
		want   string
	}{
		{"beta1 1", []*Param[float64]{a}, AdamConfig{Beta1: 1}, "Beta1 1 not in [0, 1)"},
		{"beta1 negative", []*Param[float64]{a}, AdamConfig{Beta1: -0.1}, "Beta1 -0.1"},
		{"beta2 NaN", []*Param[float64]{a}, AdamConfig{Beta2: math.NaN()}, "Beta2 NaN"},
		{"eps negative", []*Param[float64]{a}, AdamConfig{Epsilon: -1}, "Epsilon -1"},
		{"eps Inf", []*Param[float64]{a}, AdamConfig{Epsilon: math.Inf(1)}, "Epsilon +Inf"},
		{"decay negative", []*Param[float64]{a}, AdamConfig{WeightDecay: -0.01}, "WeightDecay -0.01"},
		{"nil param", []*Param[float64]{a, nil}, AdamConfig{}, "parameter 1 is nil"},
		{"same param twice", []*Param[float64]{a, a}, AdamConfig{}, `parameters 0 and 1 share the name "a"`},
		{"duplicate name", []*Param[float64]{a, p("a", 3)}, AdamConfig{}, `share the name "a"`},
		{"grad length", []*Param[float64]{{Name: "g", Shape: []int{2}, Value: make([]float64, 2), Grad: make([]float64, 1)}}, AdamConfig{}, `"g" has 2 values but 1 gradients`},
		{"shape", []*Param[float64]{{Name: "s", Shape: []int{2, 2}, Value: make([]float64, 3), Grad: make([]float64, 3)}}, AdamConfig{}, `"s" has shape [2 2] but 3 values`},
	} {
		_, err := NewAdam(tc.params, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}

	b := p("b", 3)
	b.Value[0], b.Grad[1] = 1, 2
	opt, err := NewAdam([]*Param[float64]{a, b}, AdamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, lr := range []float64{-1, math.NaN(), math.Inf(1)} {
		if err := opt.Step(lr); err == nil || !strings.Contains(err.Error(), fmt.Sprint(lr)) {
			t.Errorf("Step(%v): err = %v", lr, err)
		}
	}
	b.Grad[2] = math.Inf(-1)
	if err := opt.Step(0.1); err == nil || !strings.Contains(err.Error(), `gradient "b"[2] is -Inf`) {
		t.Errorf("Step with an infinite gradient: err = %v", err)
	}
	if opt.Steps() != 0 || b.Value[0] != 1 || opt.State().M["b"][1] != 0 {
		t.Error("a failed Step changed the optimiser or the parameters")
	}
	b.Grad[2] = 0
	if err := opt.Step(0.1); err != nil {
		t.Fatal(err)
	}
	good := opt.State()
	for _, tc := range []struct {
		name string
		edit func(s *AdamState)
		want string
	}{
		{"negative step", func(s *AdamState) { s.Step = -1 }, "step -1"},
		{"missing M", func(s *AdamState) { delete(s.M, "a") }, `lacks the first moment of "a"`},
		{"missing V", func(s *AdamState) { delete(s.V, "b") }, `lacks the second moment of "b"`},
		{"wrong length", func(s *AdamState) { s.V["b"] = s.V["b"][:2] }, `second moment of "b" has 2 entries, the parameter 3 (shape [3])`},
		{"extra name", func(s *AdamState) { s.M["c"] = []float64{1} }, `moments for "c"`},
		{"NaN", func(s *AdamState) { s.M["a"][1] = math.NaN() }, `first moment "a"[1] is NaN`},
		{"negative V", func(s *AdamState) { s.V["a"][0] = -1 }, `second moment "a"[0] is -1`},
	} {
		s := opt.State()
		tc.edit(&s)
		err := opt.SetState(s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetState %s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if got := opt.State(); got.Step != good.Step || got.M["b"][1] != good.M["b"][1] {
		t.Error("a failed SetState changed the optimiser")
	}
	// A float32 optimiser rejects moments that overflow float32.
	p32 := &Param[float32]{Name: "x", Shape: []int{1}, Value: []float32{0}, Grad: []float32{0}}
	opt32, _ := NewAdam([]*Param[float32]{p32}, AdamConfig{})
	err = opt32.SetState(AdamState{Step: 1, M: map[string][]float64{"x": {1e300}}, V: map[string][]float64{"x": {0}}})
	if err == nil || !strings.Contains(err.Error(), "1e+300") {
		t.Errorf("float32 overflow: err = %v", err)
	}
}

func TestClipGradNorm(t *testing.T) {
	mk := func(g1, g2 []float64) []*Param[float64] {
		return []*Param[float64]{
			{Name: "a", Shape: []int{len(g1)}, Value: make([]float64, len(g1)), Grad: g1},
			{Name: "b", Shape: []int{len(g2)}, Value: make([]float64, len(g2)), Grad: g2},
		}
	}
	// ‖(3, 4, 12)‖ = 13.
	ps := mk([]float64{3, 4}, []float64{12})
	if n := ClipGradNorm(ps, 6.5); n != 13 {
		t.Errorf("norm %v, want 13", n)
	}
	if g := append(ps[0].Grad, ps[1].Grad...); g[0] != 1.5 || g[1] != 2 || g[2] != 6 {
		t.Errorf("clipped grads %v, want [1.5 2 6]", g)
	}
	// After clipping the norm is maxNorm.
	if n := ClipGradNorm(ps, 0); n != 6.5 {
		t.Errorf("norm after clipping %v, want 6.5", n)
	}
	for _, max := range []float64{13, 20, 0, -1, math.NaN()} {
		ps := mk([]float64{3, 4}, []float64{12})
		if n := ClipGradNorm(ps, max); n != 13 || ps[0].Grad[0] != 3 || ps[1].Grad[0] != 12 {
			t.Errorf("maxNorm %v: norm %v, grads %v %v; want 13, unchanged", max, n, ps[0].Grad, ps[1].Grad)
		}
	}
	// Non-finite gradients: the norm says so and nothing is scaled.
	ps = mk([]float64{3, math.NaN()}, []float64{1})
	if n := ClipGradNorm(ps, 1); !math.IsNaN(n) || ps[0].Grad[0] != 3 {
		t.Errorf("NaN grad: norm %v, grads %v", n, ps[0].Grad)
	}
	ps = mk([]float64{3, math.Inf(-1)}, []float64{1})
	if n := ClipGradNorm(ps, 1); !math.IsInf(n, 1) || ps[0].Grad[0] != 3 {
		t.Errorf("Inf grad: norm %v, grads %v", n, ps[0].Grad)
	}
	ps = mk([]float64{math.NaN(), math.Inf(1)}, []float64{1e300})
	if n := ClipGradNorm(ps, 1); !math.IsNaN(n) {
		t.Errorf("NaN and Inf grads: norm %v, want NaN", n)
	}
	// Squares that overflow: the norm is still right.
	ps = mk([]float64{3e200, 4e200}, nil)
	if n := ClipGradNorm(ps, 1); math.Abs(n-5e200) > 1e186 || math.Abs(ps[0].Grad[0]-0.6) > 1e-15 || math.Abs(ps[0].Grad[1]-0.8) > 1e-15 {
		t.Errorf("huge grads: norm %v, grads %v", n, ps[0].Grad)
	}
	// float32, with a nil parameter skipped; no gradients at all.
	p32 := []*Param[float32]{nil, {Name: "x", Shape: []int{2}, Value: make([]float32, 2), Grad: []float32{-6, 8}}}
	if n := ClipGradNorm(p32, 5); n != 10 || p32[1].Grad[0] != -3 || p32[1].Grad[1] != 4 {
		t.Errorf("float32: norm %v, grads %v", n, p32[1].Grad)
	}
	if n := ClipGradNorm[float32](nil, 1); n != 0 {
		t.Errorf("no params: norm %v", n)
	}
}

func BenchmarkAdamStep(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 20} {
		b.Run(fmt.Sprintf("float32/n=%d", n), func(b *testing.B) {
			p := &Param[float32]{Name: "p", Shape: []int{n}, Value: make([]float32, n), Grad: make([]float32, n)}
			for i := range p.Grad {
				p.Grad[i] = float32(i%7) - 3
			}
			opt, _ := NewAdam([]*Param[float32]{p}, AdamConfig{WeightDecay: 0.01, Decoupled: true})
			b.SetBytes(int64(4 * 4 * n))
			b.ResetTimer()
			for range b.N {
				opt.Step(1e-3)
			}
		})
	}
}

func ExampleAdam() {
	// Minimise (θ − 3)² from θ = 0.
	p := &Param[float64]{Name: "θ", Shape: []int{1}, Value: []float64{0}, Grad: []float64{0}}
	opt, err := NewAdam([]*Param[float64]{p}, AdamConfig{})
	if err != nil {
		panic(err)
	}
	for range 500 {
		p.Grad[0] = 2 * (p.Value[0] - 3)
		if err := opt.Step(0.05); err != nil {
			panic(err)
		}
	}
	fmt.Printf("θ = %.4f after %d steps\n", p.Value[0], opt.Steps())
	// Output: θ = 3.0000 after 500 steps
}

func ExampleClipGradNorm() {
	p := &Param[float32]{Name: "g", Shape: []int{2}, Value: make([]float32, 2), Grad: []float32{3, 4}}
	norm := ClipGradNorm([]*Param[float32]{p}, 1)
	fmt.Println(norm, p.Grad)
	// Output: 5 [0.6 0.8]
}
