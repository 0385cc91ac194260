package simplex

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// projectionTable holds projections onto the truncated simplex of
// in-context-games-omd §4.1, computed independently from the closed form
// Π(v)_a = max(v_a − τ, δ).
var projectionTable = []struct {
	v, want []float64
	delta   float64
}{
	{[]float64{.5, .5}, []float64{.5, .5}, .01},
	{[]float64{2, 0, 0}, []float64{.98, .01, .01}, .01},
	{[]float64{.2, .3, .5}, []float64{.2, .3, .5}, 0},
	{[]float64{.2, .3, .5}, []float64{.25, .275, .475}, .25},
	{[]float64{1.2, .1, -.3}, []float64{25. / 27, 1. / 27, 1. / 27}, 1. / 27},
	{[]float64{.6, .6, -.2}, []float64{.475, .475, .05}, .05},
}

func TestProjectTruncatedTable(t *testing.T) {
	t.Parallel()
	for _, tc := range projectionTable {
		dst := make([]float64, len(tc.v))
		if err := ProjectTruncated(dst, tc.v, tc.delta); err != nil {
			t.Fatal(err)
		}
		if !approxSlice(dst, tc.want, 1e-12) {
			t.Errorf("Π(%v; δ=%v) = %v, want %v", tc.v, tc.delta, dst, tc.want)
		}
		// In place.
		in := append([]float64(nil), tc.v...)
		if err := ProjectTruncated(in, in, tc.delta); err != nil || !approxSlice(in, tc.want, 1e-12) {
			t.Errorf("in-place Π(%v; δ=%v) = %v (%v), want %v", tc.v, tc.delta, in, err, tc.want)
		}
		// float32.
		v32, d32 := make([]float32, len(tc.v)), make([]float32, len(tc.v))
		for i, x := range tc.v {
			v32[i] = float32(x)
		}
		if err := ProjectTruncated(d32, v32, float32(tc.delta)); err != nil {
			t.Fatal(err)
		}
		for i := range d32 {
			if math.Abs(float64(d32[i])-tc.want[i]) > 1e-6 {
				t.Errorf("float32 Π(%v; δ=%v) = %v, want %v", tc.v, tc.delta, d32, tc.want)
				break
			}
		}
	}
}

// bisectProjection computes the truncated-simplex projection independently,
// by bisection on τ in Σ_a max(v_a − τ, δ) = 1 (the projection's KKT conditions).
func bisectProjection(v []float64, delta float64) []float64 {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	lo-- // f(lo) ≥ 1 ≥ f(hi) for f(τ) = Σ max(v − τ, δ)
	for range 200 {
		mid := (lo + hi) / 2
		var s float64
		for _, x := range v {
			s += max(x-mid, delta)
		}
		if s > 1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	tau := (lo + hi) / 2
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = max(x-tau, delta)
	}
	return out
}

func TestProjectTruncatedProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	norm := func(a, b []float64) float64 {
		var s float64
		for i := range a {
			s += (a[i] - b[i]) * (a[i] - b[i])
		}
		return math.Sqrt(s)
	}
	for n := range 2000 {
		a := 1 + rng.IntN(20)
		delta := 0.0
		switch n % 4 {
		case 1:
			delta = rng.Float64() / float64(a)
		case 2:
			delta = 1 / float64(a*100*100) // the OMD floor at T = 100
		case 3:
			delta = 1 / float64(a) // Aδ = 1: uniform
		}
		u, v := make([]float64, a), make([]float64, a)
		for i := range v {
			u[i] = 3 * rng.NormFloat64()
			v[i] = 3 * rng.NormFloat64()
		}
		pu, pv := make([]float64, a), make([]float64, a)
		if err := ProjectTruncated(pu, u, delta); err != nil {
			t.Fatal(err)
		}
		if err := ProjectTruncated(pv, v, delta); err != nil {
			t.Fatal(err)
		}
		var s float64
		for _, x := range pv {
			s += x
			if x < delta {
				t.Fatalf("Π(%v; δ=%v) = %v has an entry below δ", v, delta, pv)
			}
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("Π(%v; δ=%v) sums to %v", v, delta, s)
		}
		if n%4 == 3 && !approxSlice(pv, Uniform[float64](a), 1e-15) {
			t.Errorf("Aδ = 1: Π(%v) = %v, want uniform", v, pv)
		}
		if want := bisectProjection(v, delta); !approxSlice(pv, want, 1e-12) {
			t.Errorf("Π(%v; δ=%v) = %v, bisection gives %v", v, delta, pv, want)
		}
		ppv := make([]float64, a)
		if err := ProjectTruncated(ppv, pv, delta); err != nil || !approxSlice(ppv, pv, 1e-12) {
			t.Errorf("not idempotent: Π(Π(v)) = %v, Π(v) = %v", ppv, pv)
		}
		if d, dv := norm(pu, pv), norm(u, v); d > dv+1e-12 {
			t.Errorf("expansive: ‖Πu − Πv‖ = %v > ‖u − v‖ = %v", d, dv)
		}
		if err := ProjectSimplex(pv, v); err != nil || !approxSlice(pv, bisectProjection(v, 0), 1e-12) {
			t.Errorf("ProjectSimplex(%v) = %v (%v)", v, pv, err)
		}
	}
}

func TestProjectTruncatedErrors(t *testing.T) {
	t.Parallel()
	dst := make([]float64, 3)
	for _, tc := range []struct {
		v     []float64
		delta float64
		want  string
	}{
		{[]float64{1, 0, 0}, -0.1, "δ = -0.1"},
		{[]float64{1, 0, 0}, math.NaN(), "δ = NaN"},
		{[]float64{1, 0, 0}, math.Inf(1), "δ = +Inf"},
		{[]float64{1, 0, 0}, 0.5, "empty"},
		{[]float64{1, math.NaN(), 0}, 0, "v[1] = NaN"},
		{[]float64{1, 0, math.Inf(-1)}, 0, "v[2] = -Inf"},
	} {
		err := ProjectTruncated(dst, tc.v, tc.delta)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Π(%v; δ=%v): error %v, want one containing %q", tc.v, tc.delta, err, tc.want)
		}
	}
	mustPanic(t, "length mismatch", func() { _ = ProjectTruncated(make([]float64, 2), []float64{1, 2, 3}, 0) })
	mustPanic(t, "empty", func() { _ = ProjectTruncated([]float64{}, []float64{}, 0) })
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}

func TestCheckDistribution(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    []float64
		n    int
		want string // "" means valid
	}{
		{[]float64{.5, .5}, 2, ""},
		{[]float64{1}, -1, ""},
		{[]float64{.5, .5 + 1e-10}, 2, ""},
		{[]float64{.5, .5}, 3, "has length 2, want 3"},
		{nil, -1, "is empty"},
		{[]float64{.5, math.NaN()}, 2, "p[1] = NaN is not finite"},
		{[]float64{math.Inf(1), 0}, 2, "p[0] = +Inf is not finite"},
		{[]float64{1.5, -.5}, 2, "p[1] = -0.5 is negative"},
		{[]float64{.5, .6}, 2, "sums to 1.1"},
	} {
		err := CheckDistribution("p", tc.p, tc.n)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v: unexpected error %v", tc.p, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.p, err, tc.want)
		}
	}
	// float32 tolerance is 1e-5.
	if err := CheckDistribution("q", []float32{.5, .500001}, 2); err != nil {
		t.Errorf("float32 within tolerance: %v", err)
	}
	if err := CheckDistribution("q", []float32{.5, .5001}, 2); err == nil {
		t.Error("float32 outside tolerance: no error")
	}
}

func TestUniform(t *testing.T) {
	t.Parallel()
	if u := Uniform[float64](4); !approxSlice(u, []float64{.25, .25, .25, .25}, 0) {
		t.Errorf("Uniform(4) = %v", u)
	}
	if u := Uniform[float32](2); u[0] != .5 || u[1] != .5 {
		t.Errorf("Uniform[float32](2) = %v", u)
	}
	mustPanic(t, "Uniform(0)", func() { Uniform[float64](0) })
}

func TestDivergences(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	for _, tc := range []struct {
		p, q        []float64
		kl, entropy float64
		tv          float64
	}{
		{[]float64{.5, .5}, []float64{.5, .5}, 0, math.Ln2, 0},
		{[]float64{1, 0}, []float64{.5, .5}, math.Ln2, 0, .5},
		{[]float64{.5, .5}, []float64{1, 0}, inf, math.Ln2, .5},
		{[]float64{.25, .25, .25, .25}, []float64{.5, .5, 0, 0}, inf, math.Log(4), .5},
		// KL((0.2,0.8)‖(0.5,0.5)) = 0.2 ln 0.4 + 0.8 ln 1.6.
		{[]float64{.2, .8}, []float64{.5, .5}, .2*math.Log(.4) + .8*math.Log(1.6), -.2*math.Log(.2) - .8*math.Log(.8), .3},
	} {
		if got := KL(tc.p, tc.q); math.Abs(got-tc.kl) > 1e-15 && !(math.IsInf(got, 1) && math.IsInf(tc.kl, 1)) {
			t.Errorf("KL(%v‖%v) = %v, want %v", tc.p, tc.q, got, tc.kl)
		}
		if got := Entropy(tc.p); math.Abs(got-tc.entropy) > 1e-15 {
			t.Errorf("Entropy(%v) = %v, want %v", tc.p, got, tc.entropy)
		}
		if got := TotalVariation(tc.p, tc.q); math.Abs(got-tc.tv) > 1e-15 {
			t.Errorf("TV(%v, %v) = %v, want %v", tc.p, tc.q, got, tc.tv)
		}
	}
	if got := KL([]float32{1, 0}, []float32{.5, .5}); math.Abs(float64(got)-math.Ln2) > 1e-6 {
		t.Errorf("float32 KL = %v", got)
	}
	if got := Entropy([]float32{.25, .25, .25, .25}); math.Abs(float64(got)-math.Log(4)) > 1e-6 {
		t.Errorf("float32 entropy = %v", got)
	}
	mustPanic(t, "KL lengths", func() { KL([]float64{1}, []float64{.5, .5}) })
	mustPanic(t, "TV lengths", func() { TotalVariation([]float64{1}, []float64{.5, .5}) })
}

func TestSoftmax(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	e := math.E
	for _, tc := range []struct {
		logits, want []float64
	}{
		{[]float64{0, 0}, []float64{.5, .5}},
		{[]float64{1, 0}, []float64{e / (e + 1), 1 / (e + 1)}},
		// Huge logits stay finite: exp(1000) overflows, the shift does not.
		{[]float64{1000, 1000, -1000}, []float64{.5, .5, 0}},
		{[]float64{-1000, -1001}, []float64{e / (e + 1), 1 / (e + 1)}},
		{[]float64{0, -inf}, []float64{1, 0}},
		{[]float64{inf, 0, inf}, []float64{.5, 0, .5}},
	} {
		got := Softmax(nil, tc.logits)
		if !approxSlice(got, tc.want, 1e-15) {
			t.Errorf("Softmax(%v) = %v, want %v", tc.logits, got, tc.want)
		}
		in := append([]float64(nil), tc.logits...)
		if Softmax(in, in); !approxSlice(in, tc.want, 1e-15) {
			t.Errorf("in-place Softmax(%v) = %v, want %v", tc.logits, in, tc.want)
		}
	}
	p32 := Softmax(nil, []float32{100, 100})
	if p32[0] != .5 || p32[1] != .5 {
		t.Errorf("float32 Softmax = %v", p32)
	}
	mustPanic(t, "Softmax length", func() { Softmax(make([]float64, 1), []float64{1, 2}) })
	mustPanic(t, "Softmax empty", func() { Softmax(nil, []float64{}) })
}

func TestLogSumExpAndLogSoftmax(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	for _, tc := range []struct {
		l    []float64
		want float64
	}{
		{[]float64{0, 0}, math.Ln2},
		{[]float64{1000, 1000}, 1000 + math.Ln2},
		{[]float64{-1000, -1000}, -1000 + math.Ln2},
		{[]float64{0, -inf}, 0},
		{[]float64{-inf, -inf}, -inf},
		{[]float64{1, 2, 3}, math.Log(math.Exp(1) + math.Exp(2) + math.Exp(3))},
	} {
		if got := LogSumExp(tc.l); got != tc.want && math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("LogSumExp(%v) = %v, want %v", tc.l, got, tc.want)
		}
	}
	rng := rand.New(rand.NewPCG(23, 24))
	for range 100 {
		l := make([]float64, 1+rng.IntN(10))
		for i := range l {
			l[i] = 500 * rng.NormFloat64()
		}
		ls := LogSoftmax(nil, l)
		p := Softmax(nil, l)
		var s float64
		for i := range ls {
			if math.IsNaN(ls[i]) || math.IsInf(ls[i], 1) || ls[i] > 0 {
				t.Fatalf("LogSoftmax(%v) = %v", l, ls)
			}
			s += math.Exp(ls[i])
			if math.Abs(math.Exp(ls[i])-p[i]) > 1e-12 {
				t.Errorf("exp LogSoftmax ≠ Softmax at %d: %v vs %v", i, math.Exp(ls[i]), p[i])
			}
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("Σ exp LogSoftmax = %v", s)
		}
	}
	if got := LogSumExp([]float32{0, 0}); math.Abs(float64(got)-math.Ln2) > 1e-6 {
		t.Errorf("float32 LogSumExp = %v", got)
	}
}

func TestSampleCategorical(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(25, 26))
	for _, p := range [][]float64{
		{.1, .2, .3, .4},
		{0, .5, 0, .5},
		{2, 6, 2}, // unnormalised weights: (0.2, 0.6, 0.2)
		{1},
	} {
		const draws = 100000
		counts := make([]float64, len(p))
		for range draws {
			counts[SampleCategorical(p, rng)]++
		}
		var total float64
		for _, w := range p {
			total += w
		}
		// Pearson's χ² over the positive cells; with at most 3 degrees of
		// freedom P(χ² > 20) < 2e-4 (fixed seed, so the test is
		// deterministic).
		var chi2 float64
		for i, w := range p {
			want := draws * w / total
			if w == 0 {
				if counts[i] != 0 {
					t.Errorf("%v: zero-probability entry %d drawn %v times", p, i, counts[i])
				}
				continue
			}
			chi2 += (counts[i] - want) * (counts[i] - want) / want
		}
		if chi2 > 20 {
			t.Errorf("%v: counts %v, χ² = %v", p, counts, chi2)
		}
	}
	// float32 and determinism.
	a := rand.New(rand.NewPCG(1, 1))
	b := rand.New(rand.NewPCG(1, 1))
	for range 100 {
		if SampleCategorical([]float32{.3, .7}, a) != SampleCategorical([]float64{.3, .7}, b) {
			t.Fatal("float32 and float64 draws differ for the same seed")
		}
	}
	mustPanic(t, "zero total", func() { SampleCategorical([]float64{0, 0}, rng) })
	mustPanic(t, "empty", func() { SampleCategorical([]float64{}, rng) })
	mustPanic(t, "NaN", func() { SampleCategorical([]float64{math.NaN(), 1}, rng) })
	mustPanic(t, "Inf", func() { SampleCategorical([]float64{math.Inf(1), 1}, rng) })
}

// floatsFromBytes decodes data as little-endian float64 values (any bit
// pattern, so NaN, ±Inf, subnormals and huge values all occur), at most max
// of them.
func floatsFromBytes(data []byte, max int) []float64 {
	var out []float64
	for len(data) >= 8 && len(out) < max {
		out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(data)))
		data = data[8:]
	}
	return out
}

func float64Bytes(v ...float64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// FuzzProjectTruncated checks that ProjectTruncated never panics on a
// non-empty input, and that when it returns no error its output lies on the
// truncated simplex and is a fixed point of the projection. The seed corpus
// (the table above and extreme inputs) runs as an ordinary test.
func FuzzProjectTruncated(f *testing.F) {
	for _, tc := range projectionTable {
		f.Add(float64Bytes(tc.v...), tc.delta)
	}
	f.Add(float64Bytes(1e300, 0), 0.01)
	f.Add(float64Bytes(1e308, -1e308, 3), 0.0)
	f.Add(float64Bytes(math.NaN(), 1), 0.0)
	f.Add(float64Bytes(math.Inf(1), 1), 0.1)
	f.Add(float64Bytes(1, 2, 3), math.Inf(1))
	f.Add(float64Bytes(5e-324, -5e-324), 0.5)
	f.Fuzz(func(t *testing.T, data []byte, delta float64) {
		v := floatsFromBytes(data, 64)
		if len(v) == 0 {
			return
		}
		dst := make([]float64, len(v))
		if err := ProjectTruncated(dst, v, delta); err != nil {
			return
		}
		var s float64
		for _, x := range dst {
			// δ·A may exceed 1 by round-off (8·A epsilons, accepted), and then
			// the output is the uniform vector, a few ulps below δ.
			if !(x >= delta*(1-16*0x1p-52*float64(len(v)))) || math.IsInf(x, 0) {
				t.Fatalf("Π(%v; δ=%v) = %v: entry below δ or not finite", v, delta, dst)
			}
			s += x
		}
		if math.Abs(s-1) > 1e-12*float64(len(v)) {
			t.Fatalf("Π(%v; δ=%v) = %v sums to %v", v, delta, dst, s)
		}
		again := make([]float64, len(v))
		if err := ProjectTruncated(again, dst, delta); err != nil {
			t.Fatalf("re-projecting %v: %v", dst, err)
		}
		if !approxSlice(again, dst, 1e-12) {
			t.Fatalf("not idempotent: Π(Π(v)) = %v, Π(v) = %v", again, dst)
		}
		// float32: same contract with float32 tolerances.
		v32, d32 := make([]float32, len(v)), make([]float32, len(v))
		for i, x := range v {
			v32[i] = float32(x)
		}
		if err := ProjectTruncated(d32, v32, float32(delta)); err != nil {
			return
		}
		var s32 float64
		for _, x := range d32 {
			if !(x >= float32(delta)) {
				t.Fatalf("float32 Π(%v; δ=%v) = %v: entry below δ", v32, delta, d32)
			}
			s32 += float64(x)
		}
		if math.Abs(s32-1) > 1e-5*float64(len(v)) {
			t.Fatalf("float32 Π(%v; δ=%v) = %v sums to %v", v32, delta, d32, s32)
		}
	})
}

// approxSlice reports whether a and b have the same length and entries
// within tol.
func approxSlice(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// TestSampleCategoricalPanics: weights with a negative or NaN entry, or a
// zero total, panic with the package's message (they shifted the draw).
func TestSampleCategoricalPanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, p := range [][]float64{{2, -1}, {math.NaN(), 1}, {0, 0}} {
		func() {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.HasPrefix(msg, "simplex: cannot sample") {
					t.Errorf("SampleCategorical(%v): recovered %v, want a simplex: panic", p, r)
				}
			}()
			SampleCategorical(p, rng)
		}()
	}
}
