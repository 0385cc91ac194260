package randdist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestSameAsGonum: every draw, and the source's state after it, equal
// gonum's distuv with the same source, over shapes from every branch
// (a < 0.2, a < 1, a = 1, a > 1, huge).
func TestSameAsGonum(t *testing.T) {
	shapes := []float64{1e-3, 0.05, 0.19999, 0.2, 0.5, 0.99, 1, 1.5, 3, 17.25, 1e4, 0.1 + 1e-9}
	for _, a := range shapes {
		for _, b := range shapes {
			ours := rand.New(rand.NewPCG(uint64(a*1e6), uint64(b*1e6)))
			theirs := rand.New(rand.NewPCG(uint64(a*1e6), uint64(b*1e6)))
			for i := range 50 {
				got, want := Beta(a, b, ours), distuv.Beta{Alpha: a, Beta: b, Src: theirs}.Rand()
				if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Fatalf("Beta(%v, %v) draw %d = %v, gonum %v", a, b, i, got, want)
				}
				got, want = Gamma(a, ours), distuv.Gamma{Alpha: a, Beta: 1, Src: theirs}.Rand()
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("Gamma(%v) draw %d = %v, gonum %v", a, i, got, want)
				}
			}
			if ours.Uint64() != theirs.Uint64() {
				t.Fatalf("shapes %v, %v: the sources drifted apart", a, b)
			}
		}
	}
}

// TestMoments: the mean and variance of many draws match the law's.
func TestMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ a, b float64 }{{0.1, 0.3}, {2, 5}, {1, 1}, {40, 7}} {
		const n = 200_000
		var s, s2 float64
		for range n {
			x := Beta(c.a, c.b, rng)
			s += x
			s2 += x * x
		}
		mean, v := s/n, s2/n-(s/n)*(s/n)
		wantMean := c.a / (c.a + c.b)
		wantVar := c.a * c.b / ((c.a + c.b) * (c.a + c.b) * (c.a + c.b + 1))
		if math.Abs(mean-wantMean) > 4*math.Sqrt(wantVar/n) || math.Abs(v-wantVar) > 0.02*wantVar+1e-5 {
			t.Errorf("Beta(%v, %v): mean %v var %v, want %v, %v", c.a, c.b, mean, v, wantMean, wantVar)
		}
	}
}

func TestPanics(t *testing.T) {
	for _, a := range []float64{0, -1, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Gamma(%v) did not panic", a)
				}
			}()
			Gamma(a, rand.New(rand.NewPCG(1, 1)))
		}()
	}
}

func BenchmarkBeta(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		Beta(3.5, 7.25, rng)
	}
}

func BenchmarkGonumBeta(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		distuv.Beta{Alpha: 3.5, Beta: 7.25, Src: rng}.Rand()
	}
}
