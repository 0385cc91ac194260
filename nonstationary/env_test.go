package nonstationary

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/tensor"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestKArmedMeasures(t *testing.T) {
	// Four declared pieces; pieces 1 and 2 have equal means, so J = 3.
	means := [][]float64{{0, 1}, {0.5, 0.2}, {0.5, 0.2}, {1, 1}}
	e, err := NewPiecewiseGaussian(means, []int{1, 4, 6, 9}, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	wantV := []float64{0, 0, 0.8, 0, 0, 0, 0, 0.8, 0}
	v := Variation(e)
	if len(v) != len(wantV) {
		t.Fatalf("len(Variation) = %d, want %d", len(v), len(wantV))
	}
	for i := range v {
		if !near(v[i], wantV[i], 1e-15) {
			t.Errorf("Δ(%d) = %v, want %v", i+1, v[i], wantV[i])
		}
	}
	if tv := TotalVariation(e); !near(tv, 1.6, 1e-15) {
		t.Errorf("TotalVariation = %v, want 1.6", tv)
	}
	if j := Pieces(e, 0); j != 3 {
		t.Errorf("Pieces = %d, want 3", j)
	}
	if j := Pieces(e, 0.9); j != 1 {
		t.Errorf("Pieces(tol 0.9) = %d, want 1", j)
	}
	for _, c := range []struct {
		t, arm int
		best   float64
	}{{1, 1, 1}, {3, 1, 1}, {4, 0, 0.5}, {8, 0, 0.5}, {9, 0, 1}, {10, 0, 1}} {
		best, arm := OptimalMean(e, c.t)
		if best != c.best || arm != c.arm {
			t.Errorf("OptimalMean(t=%d) = (%v, %d), want (%v, %d)", c.t, best, arm, c.best, c.arm)
		}
		// The generic path agrees with the precomputed one.
		b2, a2 := argmaxMean(e, c.t)
		if b2 != best || a2 != arm {
			t.Errorf("argmaxMean(t=%d) = (%v, %d), want (%v, %d)", c.t, b2, a2, best, arm)
		}
	}
	// One round: no variation, one piece.
	one, err := NewPiecewiseBernoulli([][]float64{{0.2}}, []int{1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(Variation(one)) != 0 || TotalVariation(one) != 0 || Pieces(one, 0) != 1 {
		t.Errorf("T=1: Variation %v, TotalVariation %v, Pieces %d", Variation(one), TotalVariation(one), Pieces(one, 0))
	}
}

func TestSMPyProblems(t *testing.T) {
	means, starts, err := SMPyProblem(1, 2000)
	if err != nil {
		t.Fatal(err)
	}
	wantStarts := []int{1, 401, 801, 1201, 1601}
	for j := range wantStarts {
		if starts[j] != wantStarts[j] {
			t.Errorf("problem 1, T=2000: starts = %v, want %v", starts, wantStarts)
			break
		}
	}
	if means[3][0] != 0.7 || means[1][1] != 0.2 || means[4][2] != 0.1 {
		t.Errorf("problem 1 means = %v", means)
	}
	// Python: int(400*1001/2000.0) = 200, int(800*1001/2000.0) = 400, …
	_, starts, _ = SMPyProblem(2, 1001)
	want1001 := []int{1, 201, 401, 601, 801}
	for j := range want1001 {
		if starts[j] != want1001[j] {
			t.Errorf("problem 2, T=1001: starts = %v, want %v", starts, want1001)
			break
		}
	}
	for _, c := range []struct {
		problem  int
		v        map[int]float64 // Δ(t) ≠ 0
		tv       float64
		mean200  [3]float64
		mean201  [3]float64
		best1000 float64
	}{
		{1, map[int]float64{200: 0.3, 400: 0.8, 600: 0.4, 800: 0.3}, 1.8,
			[3]float64{0.3, 0.5, 0.9}, [3]float64{0.3, 0.2, 0.9}, 0.7},
		{2, map[int]float64{200: 0.2, 400: 0.2, 600: 0.2, 800: 0.2}, 0.8,
			[3]float64{0.4, 0.5, 0.9}, [3]float64{0.5, 0.4, 0.7}, 0.8},
	} {
		e, err := NewSMPyProblem(c.problem, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if e.Arms() != 3 || e.Dim() != 0 || e.Actions(1) != nil || e.Noise() != Bernoulli {
			t.Errorf("problem %d: shape Arms %d Dim %d", c.problem, e.Arms(), e.Dim())
		}
		for i, x := range Variation(e) {
			if !near(x, c.v[i+1], 1e-12) {
				t.Errorf("problem %d: Δ(%d) = %v, want %v", c.problem, i+1, x, c.v[i+1])
			}
		}
		if tv := TotalVariation(e); !near(tv, c.tv, 1e-12) {
			t.Errorf("problem %d: Δ = %v, want %v", c.problem, tv, c.tv)
		}
		if j := Pieces(e, 1e-9); j != 5 {
			t.Errorf("problem %d: J = %d, want 5", c.problem, j)
		}
		for k := range 3 {
			if e.Mean(200, k) != c.mean200[k] || e.Mean(201, k) != c.mean201[k] {
				t.Errorf("problem %d arm %d: f_200 %v f_201 %v", c.problem, k, e.Mean(200, k), e.Mean(201, k))
			}
		}
		if b, _ := OptimalMean(e, 1000); b != c.best1000 {
			t.Errorf("problem %d: f*_1000 = %v, want %v", c.problem, b, c.best1000)
		}
	}
}

// lowActions: ⟨a,w⟩ = 1, 0, −1 for w = (1, 0).
var (
	lowW       = []float64{1, 0}
	lowActions = [][]float64{{1, 0}, {0, 1}, {-1, 0}}
)

func TestLowNonStationary(t *testing.T) {
	acts, err := FixedActions(lowActions)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewLowNonStationary(PaperLowConfig(lowW, acts))
	if err != nil {
		t.Fatal(err)
	}
	// Normalised: (⟨a,w⟩ − (−1))/2 = 1, 0.5, 0; +3 in [50,100] ∪ [350,400].
	for _, c := range []struct {
		t    int
		want [3]float64
	}{
		{1, [3]float64{1, 0.5, 0}}, {49, [3]float64{1, 0.5, 0}},
		{50, [3]float64{4, 3.5, 3}}, {100, [3]float64{4, 3.5, 3}},
		{101, [3]float64{1, 0.5, 0}}, {349, [3]float64{1, 0.5, 0}},
		{350, [3]float64{4, 3.5, 3}}, {400, [3]float64{4, 3.5, 3}},
		{401, [3]float64{1, 0.5, 0}}, {1000, [3]float64{1, 0.5, 0}},
	} {
		for k := range 3 {
			if m := e.Mean(c.t, k); !near(m, c.want[k], 1e-15) {
				t.Errorf("f_%d(%d) = %v, want %v", c.t, k, m, c.want[k])
			}
		}
		if _, arm := OptimalMean(e, c.t); arm != 0 {
			t.Errorf("optimal arm at %d = %d, want 0", c.t, arm)
		}
	}
	v := Variation(e)
	for i, x := range v {
		want := 0.0
		switch i + 1 {
		case 49, 100, 349, 400:
			want = 3
		}
		if !near(x, want, 1e-12) {
			t.Errorf("Δ(%d) = %v, want %v", i+1, x, want)
		}
	}
	if tv := TotalVariation(e); !near(tv, 12, 1e-12) {
		t.Errorf("Δ = %v, want 12", tv)
	}
	if j := Pieces(e, 1e-9); j != 5 {
		t.Errorf("J = %d, want 5", j)
	}
	if a, b := e.Modulation(50); a != 0.5 || b != 3.5 {
		t.Errorf("Modulation(50) = %v, %v, want 0.5, 3.5", a, b)
	}
	// Raw: f = ⟨a,w⟩ (+3 in windows).
	cfg := PaperLowConfig(lowW, acts)
	cfg.Raw = true
	raw, err := NewLowNonStationary(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if raw.Mean(1, 2) != -1 || raw.Mean(50, 0) != 4 || raw.Mean(400, 2) != 2 {
		t.Errorf("raw means: %v %v %v, want -1 4 2", raw.Mean(1, 2), raw.Mean(50, 0), raw.Mean(400, 2))
	}
}

func TestCosine(t *testing.T) {
	acts, _ := FixedActions(lowActions)
	e, err := NewCosine(lowW, acts, 1.5, 0.025, 200)
	if err != nil {
		t.Fatal(err)
	}
	// cos(2π·0.025·t): t=20 → cos π = −1, t=40 → cos 2π = 1, t=10 → 0.
	for _, c := range []struct {
		t    int
		want [3]float64
		arm  int
	}{{20, [3]float64{-1, 0, 1}, 2}, {40, [3]float64{1, 0, -1}, 0}, {10, [3]float64{0, 0, 0}, 0}, {60, [3]float64{-1, 0, 1}, 2}} {
		for k := range 3 {
			if m := e.Mean(c.t, k); !near(m, c.want[k], 1e-14) {
				t.Errorf("b=0.025: f_%d(%d) = %v, want %v", c.t, k, m, c.want[k])
			}
		}
		if _, arm := OptimalMean(e, c.t); arm != c.arm && c.t != 10 {
			t.Errorf("b=0.025: optimal arm at %d = %d, want %d", c.t, arm, c.arm)
		}
	}
	for _, c := range []struct{ b, table float64 }{{0.018, 14.18}, {0.025, 19.99}} {
		e, err := NewCosine(lowW, acts, 1.5, c.b, 200)
		if err != nil {
			t.Fatal(err)
		}
		direct := 0.0 // max_k |⟨a_k,w⟩| = 1
		for s := 1; s < 200; s++ {
			direct += math.Abs(math.Cos(2*math.Pi*c.b*float64(s+1)) - math.Cos(2*math.Pi*c.b*float64(s)))
		}
		tv := TotalVariation(e)
		if !near(tv, direct, 1e-12) {
			t.Errorf("b=%v: Δ = %v, direct sum %v", c.b, tv, direct)
		}
		if !near(tv, c.table, 0.005) { // Δ computed by hand for the paper's b = 0.018, 0.025
			t.Errorf("b=%v: Δ = %v, computed by hand %v", c.b, tv, c.table)
		}
	}
}

func TestVariationChangingActionSets(t *testing.T) {
	// Stationary θ with fresh action sets every round: no change at all.
	ra, err := RandomActions(50, 4, 3, rand.New(rand.NewPCG(7, 0)))
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewLinear([]float64{0.2, -0.4, 1}, ra, 1, 50)
	if err != nil {
		t.Fatal(err)
	}
	if tv, j := TotalVariation(st), Pieces(st, 0); tv != 0 || j != 1 {
		t.Errorf("stationary, random sets: Δ = %v, J = %d, want 0, 1", tv, j)
	}
	// Same seed, same sets.
	ra2, _ := RandomActions(50, 4, 3, rand.New(rand.NewPCG(7, 0)))
	if ra2.At(17)[2][1] != ra.At(17)[2][1] || ra.At(1)[0][0] < -1 || ra.At(1)[0][0] > 1 {
		t.Errorf("RandomActions not reproducible or out of range")
	}
	// θ switches from e1 to e2 at round 3; sets change every round.
	sets, _ := tensor.FromData([]float64{
		1, 0, 0, 1,
		2, 0, 0, 0,
		0, 3, 1, 1,
		0, 3, 1, 1,
	}, 4, 2, 2)
	pa, err := PerRoundActions(sets)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewPiecewiseLinear([][]float64{{1, 0}, {0, 1}}, []int{1, 3}, pa, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Δ(2) = max over A_2 ∪ A_3 of |⟨a,e1⟩ − ⟨a,e2⟩| = |0 − 3| = 3; the
	// index-wise formula would give Δ(1) = 1 and Δ(2) = 3.
	want := []float64{0, 3, 0}
	for i, x := range Variation(e) {
		if x != want[i] {
			t.Errorf("Δ(%d) = %v, want %v", i+1, x, want[i])
		}
	}
	if j := Pieces(e, 0); j != 2 {
		t.Errorf("J = %d, want 2", j)
	}
	if b, arm := OptimalMean(e, 3); b != 3 || arm != 0 {
		t.Errorf("f*_3 = %v (arm %d), want 3 (arm 0)", b, arm)
	}
}

func TestLinearDrift(t *testing.T) {
	fixed, _ := FixedActions([][]float64{{1, 0, 0}, {0, 1, 0}, {0.5, 0.5, 0.5}})
	random, _ := RandomActions(300, 5, 3, rand.New(rand.NewPCG(11, 0)))
	for name, acts := range map[string]ActionSets{"fixed": fixed, "random": random} {
		for _, tv := range []float64{0, 0.5, 2.5} {
			e, err := NewLinearDrift(DriftConfig{
				Center: []float64{0.1, 0.2, 0.3}, Direction: []float64{1, -1, 0},
				TotalVariation: tv, Cycles: 1.5, Actions: acts, NoiseStd: 1, Horizon: 300,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := TotalVariation(e); !near(got, tv, 1e-12*math.Max(1, tv)) {
				t.Errorf("%s: Δ = %v, want %v", name, got, tv)
			}
			th := e.Theta(1)
			if th[0] != 0.1 || th[1] != 0.2 || th[2] != 0.3 {
				t.Errorf("%s: θ_1 = %v, want the centre", name, th)
			}
		}
	}
	if _, err := NewLinearDrift(DriftConfig{Center: []float64{1, 1}, Direction: []float64{0, 1},
		TotalVariation: 1, Cycles: 1, Actions: mustFixed(t, [][]float64{{1, 0}}), Horizon: 10}); err == nil ||
		!strings.Contains(err.Error(), "orthogonal") {
		t.Errorf("orthogonal direction: err = %v", err)
	}
}

func mustFixed(t *testing.T, a [][]float64) ActionSets {
	t.Helper()
	s, err := FixedActions(a)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSampleLBMInstance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	w, acts := SampleLBMInstance(32, 10, rng)
	if len(w) != 32 || len(acts) != 10 || len(acts[9]) != 32 {
		t.Fatalf("shape: %d, %d×%d", len(w), len(acts), len(acts[9]))
	}
	lo, hi := 1.0, -1.0
	for _, x := range w {
		if x < 0 || x >= 1 {
			t.Errorf("w entry %v outside [0,1)", x)
		}
	}
	for _, a := range acts {
		for _, x := range a {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if lo < -1 || hi > 1 || lo > -0.9 || hi < 0.9 {
		t.Errorf("action range [%v, %v], want inside [−1,1] and spread", lo, hi)
	}
	// Draw order: w then actions, one Float64 each.
	r2 := rand.New(rand.NewPCG(1, 2))
	if w[0] != r2.Float64() {
		t.Errorf("w[0] is not the first draw")
	}
	for range 31 {
		r2.Float64()
	}
	if acts[0][0] != 2*r2.Float64()-1 {
		t.Errorf("actions[0][0] is not the 33rd draw")
	}
}

// TestSampleMean checks Sample against Mean within 4 standard errors.
func TestSampleMean(t *testing.T) {
	const n = 40000
	bern, _ := NewPiecewiseBernoulli([][]float64{{0.3, 0.9}, {0.6, 0.05}}, []int{1, 3}, 4)
	gauss, _ := NewPiecewiseGaussian([][]float64{{0.7, -2}}, []int{1}, 2, 5)
	acts, _ := FixedActions(lowActions)
	low, _ := NewLowNonStationary(PaperLowConfig(lowW, acts))
	cosE, _ := NewCosine(lowW, acts, 1.5, 0.025, 200)
	for _, c := range []struct {
		name string
		e    Env
		t, k int
		sd   float64
	}{
		{"bernoulli p=0.3", bern, 2, 0, math.Sqrt(0.3 * 0.7)},
		{"bernoulli p=0.05", bern, 4, 1, math.Sqrt(0.05 * 0.95)},
		{"gaussian", gauss, 5, 1, 2},
		{"low window", low, 60, 1, 0.75},
		{"cosine t=20", cosE, 20, 2, 1.5},
		{"cosine t=7", cosE, 7, 0, 1.5 * math.Abs(math.Cos(2*math.Pi*0.025*7))},
	} {
		rng := rand.New(rand.NewPCG(99, 1))
		s, s2 := 0.0, 0.0
		for range n {
			x := c.e.Sample(c.t, c.k, rng)
			s += x
			s2 += x * x
		}
		mean := s / n
		sd := math.Sqrt(s2/n - mean*mean)
		want := c.e.Mean(c.t, c.k)
		if !near(mean, want, 4*c.sd/math.Sqrt(n)) {
			t.Errorf("%s: empirical mean %v, Mean %v (4σ = %v)", c.name, mean, want, 4*c.sd/math.Sqrt(n))
		}
		if !near(sd, c.sd, 0.02*c.sd+1e-12) {
			t.Errorf("%s: empirical sd %v, want %v", c.name, sd, c.sd)
		}
	}
}

func TestEnvErrors(t *testing.T) {
	acts := mustFixed(t, lowActions)
	nan := math.NaN()
	for _, c := range []struct {
		name string
		f    func() error
		want string
	}{
		{"horizon 0", func() error { _, err := NewPiecewiseBernoulli([][]float64{{0.5}}, []int{1}, 0); return err }, "horizon 0"},
		{"bernoulli mean", func() error {
			_, err := NewPiecewiseBernoulli([][]float64{{0.5, 1.2}}, []int{1}, 5)
			return err
		}, "means[0][1] = 1.2"},
		{"nan mean", func() error { _, err := NewPiecewiseGaussian([][]float64{{0, nan}}, []int{1}, 1, 5); return err }, "means[0][1] = NaN"},
		{"ragged", func() error {
			_, err := NewPiecewiseGaussian([][]float64{{0, 1}, {1}}, []int{1, 2}, 1, 5)
			return err
		}, "means[1] has 1 arms"},
		{"sigma", func() error { _, err := NewPiecewiseGaussian([][]float64{{0}}, []int{1}, -1, 5); return err }, "deviation -1"},
		{"first start", func() error {
			_, err := NewPiecewiseBernoulli([][]float64{{0.5}, {0.1}}, []int{2, 3}, 5)
			return err
		}, "starts[0] = 2"},
		{"order", func() error {
			_, err := NewPiecewiseBernoulli([][]float64{{0.5}, {0.1}, {0.2}}, []int{1, 4, 3}, 5)
			return err
		}, "starts[2] = 3 is not after starts[1] = 4"},
		{"beyond", func() error {
			_, err := NewPiecewiseBernoulli([][]float64{{0.5}, {0.1}}, []int{1, 6}, 5)
			return err
		}, "starts[1] = 6 is beyond the horizon 5"},
		{"count", func() error { _, err := NewPiecewiseBernoulli([][]float64{{0.5}, {0.1}}, []int{1}, 5); return err }, "1 piece starts for 2 pieces"},
		{"smpy problem", func() error { _, err := NewSMPyProblem(3, 1000); return err }, "problem 3"},
		{"smpy short", func() error { _, err := NewSMPyProblem(1, 4); return err }, "horizon 4"},
		{"theta dim", func() error { _, err := NewLinear([]float64{1, 2, 3}, acts, 1, 10); return err }, "dimension 2, parameter has 3"},
		{"theta nan", func() error { _, err := NewLinear([]float64{1, nan}, acts, 1, 10); return err }, "thetas[0][1] = NaN"},
		{"action nan", func() error { _, err := FixedActions([][]float64{{1, 0}, {nan, 0}}); return err }, "actions[1][0] = NaN"},
		{"action ragged", func() error { _, err := FixedActions([][]float64{{1, 0}, {1}}); return err }, "actions[1] has dimension 1"},
		{"zero ActionSets", func() error { _, err := NewLinear([]float64{1, 0}, ActionSets{}, 1, 10); return err }, "empty ActionSets"},
		{"few per-round sets", func() error {
			sets, _ := tensor.FromData([]float64{1, 0, 0, 1}, 2, 1, 2)
			pa, _ := PerRoundActions(sets)
			_, err := NewLinear([]float64{1, 0}, pa, 1, 3)
			return err
		}, "2 per-round action sets for horizon 3"},
		{"per-round rank", func() error {
			sets, _ := tensor.FromData([]float64{1, 0, 0, 1}, 2, 2)
			_, err := PerRoundActions(sets)
			return err
		}, "shape [2 2], want T × A × d"},
		{"per-round nil", func() error { _, err := PerRoundActions(nil); return err }, "shape [], want T × A × d"},
		{"per-round nan", func() error {
			sets, _ := tensor.FromData([]float64{1, 0, 0, nan}, 2, 1, 2)
			_, err := PerRoundActions(sets)
			return err
		}, "sets[1]"},
		{"random sizes", func() error { _, err := RandomActions(10, 0, 3, rand.New(rand.NewPCG(1, 0))); return err }, "A=0"},
		{"random nil rng", func() error { _, err := RandomActions(10, 2, 3, nil); return err }, "random source"},
		{"linear noise", func() error { _, err := NewLinear([]float64{1, 0}, acts, nan, 10); return err }, "deviation NaN"},
		{"piecewise order", func() error {
			_, err := NewPiecewiseLinear([][]float64{{1, 0}, {0, 1}}, []int{1, 1}, acts, 1, 10)
			return err
		}, "out of order"},
		{"window", func() error {
			cfg := PaperLowConfig(lowW, acts)
			cfg.Windows = [][2]int{{50, 100}, {90, 120}}
			_, err := NewLowNonStationary(cfg)
			return err
		}, "window 1 = [90,120] overlaps"},
		{"window range", func() error {
			cfg := PaperLowConfig(lowW, acts)
			cfg.Horizon = 80
			_, err := NewLowNonStationary(cfg)
			return err
		}, "window 0 = [50,100]"},
		{"flat low", func() error {
			cfg := PaperLowConfig([]float64{0, 0}, acts)
			_, err := NewLowNonStationary(cfg)
			return err
		}, "cannot normalise"},
		{"cosine b", func() error { _, err := NewCosine(lowW, acts, 1, math.Inf(1), 10); return err }, "b = +Inf"},
		{"drift cycles", func() error {
			_, err := NewLinearDrift(DriftConfig{Center: lowW, Direction: lowW, TotalVariation: 1, Actions: acts, Horizon: 10})
			return err
		}, "Cycles 0"},
		{"drift tv", func() error {
			_, err := NewLinearDrift(DriftConfig{Center: lowW, Direction: lowW, TotalVariation: -1, Cycles: 1, Actions: acts, Horizon: 10})
			return err
		}, "TotalVariation -1"},
	} {
		err := c.f()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not contain %q", c.name, err, c.want)
		}
	}
}

// TestOptimalMeanConsistent checks the precomputed optimum against a scan of
// Mean at every round, for every kind of environment.
func TestOptimalMeanConsistent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	w, a := SampleLBMInstance(6, 7, rng)
	fixed := mustFixed(t, a)
	random, _ := RandomActions(120, 7, 6, rand.New(rand.NewPCG(3, 0)))
	w2, _ := SampleLBMInstance(6, 1, rng)
	envs := map[string]Env{}
	add := func(name string, e Env, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		envs[name] = e
	}
	e1, err := NewLinear(w, fixed, 1, 120)
	add("stationary fixed", e1, err)
	e2, err := NewPiecewiseLinear([][]float64{w, w2, w}, []int{1, 40, 90}, fixed, 1, 120)
	add("piecewise fixed", e2, err)
	e3, err := NewPiecewiseLinear([][]float64{w, w2}, []int{1, 60}, random, 1, 120)
	add("piecewise random", e3, err)
	e4, err := NewLinearDrift(DriftConfig{Center: w, Direction: w2, TotalVariation: 3, Cycles: 2, Actions: random, NoiseStd: 1, Horizon: 120})
	add("drift", e4, err)
	cfg := PaperLowConfig(w, fixed)
	cfg.Horizon, cfg.Windows = 120, [][2]int{{10, 20}}
	e5, err := NewLowNonStationary(cfg)
	add("low", e5, err)
	e6, err := NewCosine(w, random, 1.5, 0.025, 120)
	add("cosine", e6, err)
	e7, err := NewSMPyProblem(2, 120)
	add("smpy", e7, err)
	for name, e := range envs {
		for s := 1; s <= e.Horizon(); s++ {
			b1, a1 := OptimalMean(e, s)
			b2, a2 := argmaxMean(e, s)
			if b1 != b2 || a1 != a2 {
				t.Fatalf("%s t=%d: OptimalMean (%v, %d), scan (%v, %d)", name, s, b1, a1, b2, a2)
			}
		}
		if fm, ok := e.(FeatureMeaner); ok {
			for s := 1; s <= e.Horizon(); s += 17 {
				for k, act := range e.Actions(s) {
					if fm.MeanOf(s, act) != e.Mean(s, k) {
						t.Fatalf("%s t=%d k=%d: MeanOf %v, Mean %v", name, s, k, fm.MeanOf(s, act), e.Mean(s, k))
					}
				}
			}
		}
	}
}
