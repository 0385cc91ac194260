package omdnet

import (
	"errors"
	"math"
	"testing"

	"github.com/icrl-go/icrl"
)

// TestInterpolate checks the interpolants against their functions on a
// dense grid: within the tolerance everywhere (a variable one for the
// logarithm), exact at the knots, and with about the knot count the
// curvature predicts.
func TestInterpolate(t *testing.T) {
	const beta = 0.15
	cases := []struct {
		name   string
		f, df  func(float64) float64
		lo, hi float64
		tol    func(float64) float64
		knots  [2]int // the expected range of the knot count
	}{
		{"square", func(z float64) float64 { return z * z }, func(z float64) float64 { return 2 * z },
			0, 2.2, func(float64) float64 { return 1e-3 }, [2]int{35, 36}}, // spacing 2√ε: 2.2/0.0632 = 34.8 pieces
		{"weight", func(x float64) float64 { return 1 / (x + beta) }, func(x float64) float64 { return -1 / ((x + beta) * (x + beta)) },
			0.01, 1, func(float64) float64 { return 1e-3 }, [2]int{20, 80}},
		{"log", math.Log, func(x float64) float64 { return 1 / x },
			1e-4, 1, func(x float64) float64 { return 1e-3 / x }, [2]int{20, 80}},
	}
	for _, c := range cases {
		p, err := interpolate(c.name, c.f, c.df, c.lo, c.hi, c.tol)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(p.knots); n < c.knots[0] || n > c.knots[1] {
			t.Errorf("%s: %d knots, want %d to %d", c.name, n, c.knots[0], c.knots[1])
		}
		if p.knots[0] != c.lo || p.knots[len(p.knots)-1] != c.hi {
			t.Errorf("%s: knots span [%v, %v], want [%v, %v]", c.name, p.knots[0], p.knots[len(p.knots)-1], c.lo, c.hi)
		}
		worst := 0.0
		for i := 0; i <= 100000; i++ {
			x := c.lo + (c.hi-c.lo)*float64(i)/100000
			e := math.Abs(p.eval(x) - c.f(x))
			worst = max(worst, e/c.tol(x))
		}
		for _, x := range p.knots {
			if e := math.Abs(p.eval(x) - c.f(x)); e > 1e-12*max(1, math.Abs(c.f(x))) {
				t.Errorf("%s: error %v at the knot %v", c.name, e, x)
			}
		}
		if worst > 1+1e-6 || worst < 0.5 {
			t.Errorf("%s: largest error %v of the tolerance, want at most 1 (and the knots not wasted)", c.name, worst)
		}
	}
	if testing.Short() {
		return // the refusal below takes the full 2¹⁴ knots
	}
	_, err := interpolate("square", func(z float64) float64 { return z * z }, func(z float64) float64 { return 2 * z },
		0, 100, func(float64) float64 { return 1e-7 }) // 1.6·10⁵ pieces

	if !errors.Is(err, icrl.ErrTooLarge) {
		t.Errorf("an unreachable accuracy: error %v, want ErrTooLarge", err)
	}
}

// TestSortingNetwork checks Batcher's network by the 0–1 principle (a
// comparator network sorts every input iff it sorts every 0–1 input) and
// its depth against Knuth's ⌈log₂ n⌉(⌈log₂ n⌉ + 1)/2 for powers of two.
func TestSortingNetwork(t *testing.T) {
	for n := 1; n <= 12; n++ {
		layers := sortingNetwork(n)
		for bitsIn := 0; bitsIn < 1<<n; bitsIn++ {
			v := make([]int, n)
			for i := range v {
				v[i] = bitsIn >> i & 1
			}
			for _, l := range layers {
				seen := map[int]bool{}
				for _, c := range l {
					if seen[c[0]] || seen[c[1]] || c[0] >= c[1] {
						t.Fatalf("n = %d: layer %v is not a set of disjoint comparators (p < q)", n, l)
					}
					seen[c[0]], seen[c[1]] = true, true
					if v[c[1]] > v[c[0]] {
						v[c[0]], v[c[1]] = v[c[1]], v[c[0]]
					}
				}
			}
			for i := 1; i < n; i++ {
				if v[i] > v[i-1] {
					t.Fatalf("n = %d: input %b ends as %v, not decreasing", n, bitsIn, v)
				}
			}
		}
		if m := bitsLen(n - 1); n == 1<<m && len(layers) != m*(m+1)/2 {
			t.Errorf("n = %d: depth %d, want %d", n, len(layers), m*(m+1)/2)
		}
	}
}

// bitsLen is ⌈log₂ n⌉ for a power of two n = 2^k given n − 1.
func bitsLen(x int) int {
	k := 0
	for x > 0 {
		k++
		x >>= 1
	}
	return k
}
