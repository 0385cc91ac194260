package control

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/tensor"
)

// goldenDims and goldenFlat are a hand-computed golden action (D = Hidden
// = QK = 2) in flat order W, A, b, Q, K, V.
var (
	goldenDims = Dims{D: 2, Hidden: 2, QK: 2}
	goldenFlat = []float64{
		1, -0.5, 0.25, 0.75, // W
		0.5, 1, -1, 0.5, // A
		0.1, -0.2, // b
		1, 0, 0.5, -1, // Q
		0, 1, 1, 0.5, // K
		0.5, 0.5, -0.5, 1, // V
	}
)

func toF[F tensor.Float](v []float64) []F {
	out := make([]F, len(v))
	for i, x := range v {
		out[i] = F(x)
	}
	return out
}

func goldenAction[F tensor.Float](t testing.TB) *Action[F] {
	t.Helper()
	u, err := NewAction(goldenDims, toF[F](goldenFlat))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func randomAction(d Dims, lo, hi float64, rng *rand.Rand) *Action[float64] {
	flat := make([]float64, d.Params())
	for i := range flat {
		flat[i] = lo + (hi-lo)*rng.Float64()
	}
	u, err := NewAction(d, flat)
	if err != nil {
		panic(err)
	}
	return u
}

func TestDimsParams(t *testing.T) {
	for _, c := range []struct {
		d    Dims
		want int
	}{
		{Dims{2, 2, 2}, 22}, // paper §6
		{Dims{1, 1, 1}, 6},
		{Dims{3, 4, 2}, 2*3*4 + 4 + 2*2*3 + 9},
	} {
		if got := c.d.Params(); got != c.want {
			t.Errorf("%+v.Params() = %d, want %d", c.d, got, c.want)
		}
		if err := c.d.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v", c.d, err)
		}
	}
	for _, d := range []Dims{{0, 2, 2}, {2, -1, 2}, {2, 2, 0}} {
		if err := d.Validate(); err == nil {
			t.Errorf("%+v.Validate() = nil, want error", d)
		}
	}
}

func TestNewActionLayout(t *testing.T) {
	u := goldenAction[float64](t)
	want := map[string][]float64{
		"W": {1, -0.5, 0.25, 0.75}, "A": {0.5, 1, -1, 0.5}, "b": {0.1, -0.2},
		"Q": {1, 0, 0.5, -1}, "K": {0, 1, 1, 0.5}, "V": {0.5, 0.5, -0.5, 1},
	}
	for name, got := range map[string][]float64{"W": u.W, "A": u.A, "b": u.B, "Q": u.Q, "K": u.K, "V": u.V} {
		if len(got) != len(want[name]) || cap(got) != len(got) {
			t.Fatalf("%s has len %d cap %d, want %d", name, len(got), cap(got), len(want[name]))
		}
		for i := range got {
			if got[i] != want[name][i] {
				t.Errorf("%s = %v, want %v", name, got, want[name])
				break
			}
		}
	}
	if err := u.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := u.MaxAbs(); got != 1 {
		t.Errorf("MaxAbs = %v, want 1", got)
	}
}

func TestActionRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []Dims{{2, 2, 2}, {3, 5, 2}, {1, 4, 3}} {
		flat := make([]float64, d.Params())
		for i := range flat {
			flat[i] = rng.NormFloat64()
		}
		u, err := NewAction(d, flat)
		if err != nil {
			t.Fatal(err)
		}
		flat[0] = 99 // NewAction copied
		got := u.Flatten(nil)
		if got[0] == 99 {
			t.Fatal("NewAction did not copy its input")
		}
		flat[0] = got[0]
		for i := range flat {
			if got[i] != flat[i] {
				t.Fatalf("%+v: Flatten(NewAction(flat))[%d] = %v, want %v", d, i, got[i], flat[i])
			}
		}
		buf := make([]float64, d.Params())
		if out := u.Flatten(buf); &out[0] != &buf[0] {
			t.Error("Flatten(dst) did not use dst")
		}
		c := u.Clone()
		if ActionDist(u, c) != 0 {
			t.Error("Clone differs")
		}
		c.V[0] += 1
		if u.V[0] == c.V[0] {
			t.Error("Clone shares memory")
		}
		// ActionDist is the Euclidean norm of the flat difference (eq. 19).
		v := randomAction(d, -1, 1, rng)
		fu, fv := u.Flatten(nil), v.Flatten(nil)
		var s float64
		for i := range fu {
			s += (fu[i] - fv[i]) * (fu[i] - fv[i])
		}
		if got, want := ActionDist(u, v), math.Sqrt(s); math.Abs(got-want) > 1e-14*want {
			t.Errorf("ActionDist = %v, want %v", got, want)
		}
		if ActionDist(u, v) != ActionDist(v, u) || ActionDist(u, u) != 0 {
			t.Error("ActionDist not symmetric or not zero on equal actions")
		}
		w := randomAction(d, -1, 1, rng)
		if ActionDist(u, w) > ActionDist(u, v)+ActionDist(v, w)+1e-12 {
			t.Error("ActionDist violates the triangle inequality")
		}
		if m := v.MaxAbs(); m > 1 || m <= 0 {
			t.Errorf("MaxAbs of a [-1,1] action = %v", m)
		}
	}
	// A single changed entry gives exactly its difference.
	u := goldenAction[float64](t)
	v := u.Clone()
	v.B[1] = -0.7
	if got := ActionDist(u, v); math.Abs(got-0.5) > 1e-15 {
		t.Errorf("ActionDist after changing b_2 by 0.5 = %v", got)
	}
	u32 := goldenAction[float32](t)
	if got := u32.MaxAbs(); got != 1 {
		t.Errorf("float32 MaxAbs = %v", got)
	}
}

func TestActionErrors(t *testing.T) {
	d := goldenDims
	for _, c := range []struct {
		name string
		d    Dims
		flat []float64
		want string
	}{
		{"short", d, make([]float64, 21), "length 21, want 22"},
		{"long", d, make([]float64, 23), "length 23, want 22"},
		{"bad dims", Dims{2, 0, 2}, make([]float64, 22), "Hidden = 0"},
		{"nan", d, func() []float64 { f := append([]float64(nil), goldenFlat...); f[9] = math.NaN(); return f }(), "b[1,0] = NaN"},
		{"inf", d, func() []float64 { f := append([]float64(nil), goldenFlat...); f[15] = math.Inf(1); return f }(), "K[0,1] = +Inf"},
	} {
		_, err := NewAction(c.d, c.flat)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: NewAction error %v, want one containing %q", c.name, err, c.want)
		}
	}
	u := goldenAction[float64](t)
	u.V = u.V[:3]
	if err := u.Validate(); err == nil || !strings.Contains(err.Error(), "block V has length 3") {
		t.Errorf("Validate of a short V: %v", err)
	}
	u = goldenAction[float64](t)
	u.W[3] = math.Inf(-1)
	if err := u.Validate(); err == nil || !strings.Contains(err.Error(), "W[1,1] = -Inf") {
		t.Errorf("Validate of an infinite W: %v", err)
	}
	if m := u.MaxAbs(); !math.IsInf(m, 1) {
		t.Errorf("MaxAbs with an -Inf entry = %v", m)
	}
	u.W[3] = math.NaN()
	if m := u.MaxAbs(); !math.IsNaN(m) {
		t.Errorf("MaxAbs with a NaN entry = %v", m)
	}
	mustPanic(t, "Flatten into a short buffer", func() { goldenAction[float64](t).Flatten(make([]float64, 5)) })
	mustPanic(t, "ActionDist across dims", func() {
		ActionDist(goldenAction[float64](t), NewZeroAction[float64](Dims{2, 3, 2}))
	})
	if _, err := SelfAttentionAction(Dims{3, 2, 2}, 0.3, 0.5); err == nil {
		t.Error("SelfAttentionAction with QK < D: no error")
	}
	if _, err := SelfAttentionAction(goldenDims, 0.3, 0.0); err == nil {
		t.Error("SelfAttentionAction with β = 0: no error")
	}
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", name)
		}
	}()
	f()
}
