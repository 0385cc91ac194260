package metalearn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/tensor"
)

// TestScheduleTuples checks: the exact (start, end, L) tuples
// of §2.0 and the stage-count bound τ̄ ≤ 4H ln T.
func TestScheduleTuples(t *testing.T) {
	cases := []struct {
		H, T int
		want Schedule
	}{
		{1, 10, Schedule{{1, 1, 1}, {2, 3, 2}, {4, 7, 4}, {8, 10, 8}}},
		{2, 20, Schedule{{1, 2, 2}, {3, 5, 3}, {6, 9, 4}, {10, 15, 6}, {16, 20, 9}}},
		{3, 30, Schedule{{1, 3, 3}, {4, 7, 4}, {8, 12, 5}, {13, 18, 6}, {19, 26, 8}, {27, 30, 10}}},
	}
	for _, c := range cases {
		got, err := NewSchedule(c.H, c.T)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) {
			t.Fatalf("H=%d T=%d: %d stages %v, want %v", c.H, c.T, len(got), got, c.want)
		}
		for k := range got {
			if got[k] != c.want[k] {
				t.Errorf("H=%d T=%d stage %d = %+v, want %+v", c.H, c.T, k, got[k], c.want[k])
			}
		}
		if last := got[len(got)-1]; last.Complete() != (last.Iterations() == last.Len) {
			t.Errorf("Complete inconsistent for %+v", last)
		}
	}

	s, err := NewSchedule(10, 1000)
	if err != nil {
		t.Fatal(err)
	}
	wantL := []int{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 24, 26, 28, 30, 33, 36, 39, 42, 46, 50, 55, 60, 66, 72, 79, 86, 94}
	if len(s) != 29 {
		t.Fatalf("H=10 T=1000: %d stages, want 29", len(s))
	}
	for k, L := range wantL {
		if s[k].Len != L {
			t.Errorf("H=10 T=1000 stage %d: L = %d, want %d", k, s[k].Len, L)
		}
	}
	if last := s[28]; last.Start != 960 || last.End != 1000 || last.Complete() || last.Iterations() != 41 {
		t.Errorf("last stage %+v, want (960, 1000) partial with 41 iterations", last)
	}
	s, _ = NewSchedule(10, 10000)
	if len(s) != 54 {
		t.Errorf("H=10 T=10000: %d stages, want 54", len(s))
	}
	for _, H := range []int{1, 2, 3, 5, 10} {
		for _, T := range []int{100, 1000, 10000} {
			s, err := NewSchedule(H, T)
			if err != nil {
				t.Fatal(err)
			}
			if b := 4 * float64(H) * math.Log(float64(T)); float64(len(s)) > b {
				t.Errorf("H=%d T=%d: %d stages > 4H ln T = %.1f", H, T, len(s), b)
			}
			// Contiguous cover of [1, T]; StageOf inverts it.
			next := 1
			for k, st := range s {
				if st.Start != next || st.End < st.Start {
					t.Fatalf("H=%d T=%d: stage %d = %+v not contiguous", H, T, k, st)
				}
				if k < len(s)-1 && !st.Complete() {
					t.Errorf("H=%d T=%d: inner stage %d partial", H, T, k)
				}
				for _, x := range []int{st.Start, st.End} {
					if got := s.StageOf(x); got != k {
						t.Errorf("StageOf(%d) = %d, want %d", x, got, k)
					}
				}
				next = st.End + 1
			}
			if next != T+1 || s.Iterations() != T {
				t.Errorf("H=%d T=%d: schedule ends at %d", H, T, next-1)
			}
		}
	}
	for _, bad := range [][2]int{{0, 10}, {-1, 10}, {3, 0}} {
		if _, err := NewSchedule(bad[0], bad[1]); err == nil {
			t.Errorf("NewSchedule(%d, %d): no error", bad[0], bad[1])
		}
	}
}

// TestMWUStep checks: the closed form, optimality against
// random simplex points, a zero gradient returning the centre, and no
// overflow for huge η·g.
func TestMWUStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	obj := func(x, c, g []float64, eta float64) float64 {
		var lin float64
		for a := range x {
			lin += x[a] * g[a]
		}
		return eta*lin - simplex.KL(x, c)
	}
	for trial := range 50 {
		d := 2 + trial%4
		c := randSimplex(rng, d)
		g := make([]float64, d)
		for a := range g {
			g[a] = rng.NormFloat64()
		}
		eta := 0.1 + rng.Float64()
		x := make([]float64, d)
		mwuStep(x, c, g, eta)
		var z float64
		for a := range c {
			z += c[a] * math.Exp(eta*g[a])
		}
		for a := range x {
			if want := c[a] * math.Exp(eta*g[a]) / z; math.Abs(x[a]-want) > 1e-14 {
				t.Fatalf("trial %d: x[%d] = %v, closed form %v", trial, a, x[a], want)
			}
		}
		best := obj(x, c, g, eta)
		for range 1000 {
			if v := obj(randSimplex(rng, d), c, g, eta); v > best+1e-12 {
				t.Fatalf("trial %d: random point beats the MWU step: %v > %v", trial, v, best)
			}
		}
		mwuStep(x, c, make([]float64, d), eta)
		for a := range x {
			if math.Abs(x[a]-c[a]) > 1e-15 {
				t.Fatalf("zero gradient moved the centre: %v vs %v", x, c)
			}
		}
	}
	x := make([]float64, 3)
	mwuStep(x, []float64{0.2, 0.3, 0.5}, []float64{1e6, -1e6, 0}, 10)
	if x[0] != 1 || x[1] != 0 || x[2] != 0 {
		t.Errorf("huge gradient: %v, want (1, 0, 0)", x)
	}
	// A zero-probability entry of the centre stays at zero; dst may alias c.
	c := []float64{0, 0.5, 0.5}
	mwuStep(c, c, []float64{5, 1, 0}, 1)
	if c[0] != 0 || math.Abs(c[1]+c[2]-1) > 1e-15 || c[1] <= c[2] {
		t.Errorf("aliased step with a zero entry: %v", c)
	}
}

// TestProjectSimplexSpec checks the Euclidean projection
// used by projected Q-ascent (7): the golden value, idempotence and
// feasibility.
func TestProjectSimplexSpec(t *testing.T) {
	x := make([]float64, 2)
	if err := simplex.ProjectSimplex(x, []float64{0.5 + 0.05*1.0, 0.5 + 0.05*0.2}); err != nil {
		t.Fatal(err)
	}
	if math.Abs(x[0]-0.52) > 1e-15 || math.Abs(x[1]-0.48) > 1e-15 {
		t.Errorf("projection = %v, want (0.52, 0.48)", x)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		p := randSimplex(rng, 4)
		y := make([]float64, 4)
		if err := simplex.ProjectSimplex(y, p); err != nil {
			t.Fatal(err)
		}
		for a := range p {
			if math.Abs(y[a]-p[a]) > 1e-12 {
				t.Fatalf("projection of a simplex point moved it: %v → %v", p, y)
			}
		}
		v := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		if err := simplex.ProjectSimplex(y, v); err != nil {
			t.Fatal(err)
		}
		if err := simplex.CheckDistribution("projection", y, 4); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLemma1 checks: for d ≥ 2, α ∈ (0, ½) and y ≥ α/d,
// KL(x‖y) ≤ KL([x]_α‖y) + 4α ln(d/α), on 10⁴ random triples.
func TestLemma1(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 10000 {
		d := []int{2, 3, 5}[i%3]
		alpha := 0.5 * rng.Float64()
		if alpha == 0 {
			continue
		}
		x := randSimplex(rng, d)
		if i%4 == 0 { // one-hot, as hindsight best responses are
			for a := range x {
				x[a] = 0
			}
			x[rng.IntN(d)] = 1
		}
		y := randSimplex(rng, d)
		alphaGreedy(y, y, alpha) // y ≥ α/d
		xa := make([]float64, d)
		alphaGreedy(xa, x, alpha)
		lhs := simplex.KL(x, y)
		rhs := simplex.KL(xa, y) + 4*alpha*math.Log(float64(d)/alpha)
		if lhs > rhs+1e-12 {
			t.Fatalf("Lemma 1 fails: d=%d α=%v x=%v y=%v: %v > %v", d, alpha, x, y, lhs, rhs)
		}
	}
}

// TestStagedHelpers checks UniformStaged, Check, Clone and the α-greedy
// floor.
func TestStagedHelpers(t *testing.T) {
	u := UniformStaged(3, 2, 2, 4)
	if err := CheckStaged("u", u, 3, 2, 2, 4); err != nil {
		t.Fatal(err)
	}
	if err := CheckStaged("u", u, 2, 2, 2, 4); err == nil {
		t.Error("wrong stage count accepted")
	}
	c := u.Clone()
	c.Row(0, 0, 0)[0] = 1
	if u.Row(0, 0, 0)[0] != 0.25 {
		t.Error("Clone shares storage")
	}
	if err := CheckStaged("c", c, 3, 2, 2, 4); err == nil {
		t.Error("invalid distribution accepted")
	}
	copy(c.Row(0, 0, 0), []float64{1, 0, 0, 0})
	g := AlphaGreedy(c, 0.2)
	if want := 0.8 + 0.05; math.Abs(g.Row(0, 0, 0)[0]-want) > 1e-15 || g.Row(0, 0, 0)[1] != 0.05 {
		t.Errorf("AlphaGreedy = %v", g.Row(0, 0, 0))
	}
	if c.Row(0, 0, 0)[1] != 0 {
		t.Error("AlphaGreedy modified its receiver")
	}
}

// TestKLMinBestResponse checks the tie-break of Algorithm 1 (KL-minimal among ties).
func TestKLMinBestResponse(t *testing.T) {
	init := []float64{0.1, 0.2, 0.3, 0.4}
	x := make([]float64, 4)
	klMinBestResponse(x, init, []float64{1, 3, 0, 3}, 1e-9)
	if want := []float64{0, 1. / 3, 0, 2. / 3}; !closeSlices(x, want, 1e-15) {
		t.Errorf("tie between 1 and 3: %v, want %v", x, want)
	}
	if kl, want := simplex.KL(x, init), -math.Log(0.6); math.Abs(kl-want) > 1e-12 {
		t.Errorf("KL = %v, want −ln init(M) = %v", kl, want)
	}
	klMinBestResponse(x, init, []float64{0, 0, 0, 0}, 1e-9)
	if !closeSlices(x, init, 1e-15) {
		t.Errorf("all tied: %v, want the init", x)
	}
	klMinBestResponse(x, init, []float64{2, 1, 0, 0}, 1e-9)
	if !closeSlices(x, []float64{1, 0, 0, 0}, 0) {
		t.Errorf("strict maximiser: %v", x)
	}
	klMinBestResponse(x, []float64{0, 0.5, 0.5, 0}, []float64{2, 1, 0, 2}, 1e-9)
	if !closeSlices(x, []float64{0.5, 0, 0, 0.5}, 0) {
		t.Errorf("zero init mass on the arg-max set: %v, want uniform on it", x)
	}
}

func randSimplex(rng *rand.Rand, d int) []float64 {
	x := make([]float64, d)
	var s float64
	for a := range x {
		x[a] = rng.ExpFloat64()
		s += x[a]
	}
	for a := range x {
		x[a] /= s
	}
	return x
}

func closeSlices(a, b []float64, tol float64) bool {
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

// firstStages returns the first n stages of p, sharing its storage.
func firstStages(p *Staged, n int) *Staged {
	q, err := tensor.FromData(p.Data()[:n*p.Len()/p.Dim(0)], n, p.Dim(1), p.Dim(2), p.Dim(3))
	if err != nil {
		panic(err)
	}
	return q
}
