package quantize

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkBoxGridNearest looks up uniform points of [-1.2,1.2]^d on the
// 1/n-net of [-1,1]^d (n = 10: 15×15 = 225 points for d = 2).
func BenchmarkBoxGridNearest(b *testing.B) {
	for _, d := range []int{2, 8} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			lo, hi := make([]float64, d), make([]float64, d)
			for k := range d {
				lo[k], hi[k] = -1, 1
			}
			r := 0.1
			if d > 2 {
				r = 0.5
			}
			g, err := NewBoxGridForRadius(lo, hi, r)
			if err != nil {
				b.Fatal(err)
			}
			xs := randPoints(1024, d, 1.2)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				g.Nearest(xs[i&1023])
				i++
			}
		})
	}
}

// BenchmarkPointSetNearest is the brute-force lookup on the same 225
// points.
func BenchmarkPointSetNearest(b *testing.B) {
	g, _ := NewBoxGridForRadius([]float64{-1, -1}, []float64{1, 1}, 0.1)
	pts := make([][]float64, g.Size())
	for j := range pts {
		pts[j] = g.Point(j)
	}
	ps, _ := NewPointSet(pts, []float64{-1, -1}, []float64{1, 1})
	xs := randPoints(1024, 2, 1.2)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ps.Nearest(xs[i&1023])
		i++
	}
}

func randPoints(n, d int, scale float64) [][]float64 {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
	xs := make([][]float64, n)
	for i := range xs {
		xs[i] = make([]float64, d)
		for k := range xs[i] {
			xs[i][k] = scale * (2*rng.Float64() - 1)
		}
	}
	return xs
}

// BenchmarkReznik rounds a random probability vector on |𝕏_n| = 900
// atoms (the experiment's N = 4, G = 225) to ℓ = 20, dense and with 20
// atoms in the support.
func BenchmarkReznik(b *testing.B) {
	for _, support := range []int{900, 20} {
		b.Run(fmt.Sprintf("a=900/support=%d/ell=20", support), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(9, 0))
			p := make([]float64, 900)
			s := 0.0
			for i := range support {
				p[i*900/support] = rng.ExpFloat64()
				s += p[i*900/support]
			}
			for i := range p {
				p[i] /= s
			}
			dst := make([]int, 900)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Reznik(dst, p, 20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPositionPreserving is the same rounding per position, N = 4.
func BenchmarkPositionPreserving(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 1))
	p := make([]float64, 900)
	pos := make([]int, 900)
	mass := make([]float64, 5)
	for i := range p {
		p[i] = rng.ExpFloat64()
		pos[i] = 1 + i/225
		mass[pos[i]] += p[i]
	}
	for i := range p {
		p[i] /= 4 * mass[pos[i]]
	}
	dst := make([]int, 900)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PositionPreserving(dst, p, pos, 4, 20); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkW2SqCounts compares two random types with denominator ℓ = 20
// (N = 4, d = 2) on 4, 8 and 20 atoms each (all counts 1 for 20 atoms).
// "auto" is W2SqCounts as called; "assignment" forces the ℓ×ℓ Hungarian
// path.
func BenchmarkW2SqCounts(b *testing.B) {
	c := Cost[float64]{Lambda: 2 * LambdaMin(2.83, 4), N: 4}
	for _, m := range []int{4, 8, 20} {
		rng := rand.New(rand.NewPCG(6, uint64(m)))
		mk := func() ([]Atom[float64], []int) {
			mu := randMeasure(rng, m, 4, 2)
			cnt := make([]int, m)
			for i := range cnt {
				cnt[i] = 1
			}
			for range 20 - m {
				cnt[rng.IntN(m)]++
			}
			return mu.Atoms, cnt
		}
		aa, ca := mk()
		ab, cb := mk()
		for _, method := range []int{countsAuto, countsAssignment} {
			name := map[int]string{countsAuto: "auto", countsAssignment: "assignment"}[method]
			b.Run(fmt.Sprintf("ell=20/atoms=%d/%s", m, name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.w2Counts(aa, ca, ab, cb, method); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkW2Sq solves the transportation programme between two random
// measures on 8 atoms (and 64 atoms) with the transportation simplex.
func BenchmarkW2Sq(b *testing.B) {
	for _, m := range []int{8, 64} {
		b.Run(fmt.Sprintf("atoms=%d", m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(6, uint64(m)))
			c := Cost[float64]{Lambda: 1, N: 4}
			mu, nu := randMeasure(rng, m, 4, 2), randMeasure(rng, m, 4, 2)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.W2Sq(mu, nu); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPositionLockedW2Sq is the terminal cost of the experiment on two
// N = 4 token empirical measures (the SeqMSE fast path).
func BenchmarkPositionLockedW2Sq(b *testing.B) {
	xs, ys := randPoints(4, 2, 1), randPoints(4, 2, 0.5)
	mu, nu := mustEmpirical(b, xs), mustEmpirical(b, ys)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := PositionLockedW2Sq(mu, nu); !ok {
			b.Fatal("not position-locked")
		}
	}
}
