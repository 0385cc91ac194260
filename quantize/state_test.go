package quantize

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/tensor"
)

// bruteNearest is the reference of test 7: lowest j minimising the squared
// distance accumulated in float64.
func bruteNearest[F tensor.Float](q StateQuantizer[F], x []F) int {
	best, bj := math.Inf(1), 0
	for j := range q.Size() {
		p := q.Point(j)
		d := 0.0
		for k := range x {
			t := float64(x[k]) - float64(p[k])
			d += t * t
		}
		if d < best {
			best, bj = d, j
		}
	}
	return bj
}

func dist2[F tensor.Float](x, y []F) float64 {
	d := 0.0
	for k := range x {
		t := float64(x[k]) - float64(y[k])
		d += t * t
	}
	return d
}

// Test 7: NewBoxGridForRadius([-1,1]², 1/10) is 15×15 with radius < 0.1.
func TestBoxGridForRadiusPaper(t *testing.T) {
	g, err := NewBoxGridForRadius([]float64{-1, -1}, []float64{1, 1}, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if c := g.Cells(); c[0] != 15 || c[1] != 15 || g.Size() != 225 {
		t.Fatalf("cells %v size %d, want 15×15 = 225", c, g.Size())
	}
	r := g.CoveringRadius()
	if want := math.Sqrt2 / 15; math.Abs(r-want) > 1e-15 || r >= 0.1 {
		t.Fatalf("radius %v, want √2/15 = %v < 0.1", r, want)
	}
	// 14 cells would not do: √2/14 > 0.1.
	if math.Sqrt2/14 < 0.1 {
		t.Fatal("14 cells already suffice")
	}
	if p := g.Point(0); p[0] != -1+1.0/15 || p[1] != -1+1.0/15 {
		t.Fatalf("Point(0) = %v", p)
	}
	if p := g.Point(1); p[0] != -1+1.0/15 || math.Abs(p[1]-(-1+3.0/15)) > 1e-15 {
		t.Fatalf("Point(1) = %v: last axis should vary fastest", p)
	}
	g32, err := NewBoxGridForRadius([]float32{-1, -1}, []float32{1, 1}, 0.1)
	if err != nil || g32.Size() != 225 || g32.CoveringRadius() >= 0.1 {
		t.Fatalf("float32: %v size %d radius %v", err, g32.Size(), g32.CoveringRadius())
	}
	// Other radii: the count is the fewest with radius < r.
	for _, n := range []float64{1, 3, 5, 10, 20, 40, 80} {
		g, err := NewBoxGridForRadius([]float64{-1, -1}, []float64{1, 1}, 1/n)
		if err != nil {
			t.Fatal(err)
		}
		c := g.Cells()[0]
		if g.CoveringRadius() >= 1/n || (c > 1 && math.Sqrt(8)/(2*float64(c-1)) < 1/n) {
			t.Errorf("n = %v: %d cells, radius %v", n, c, g.CoveringRadius())
		}
	}
}

func TestBoxGridNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for trial := range 60 {
		d := 1 + trial%3
		lo, hi, cells := make([]float64, d), make([]float64, d), make([]int, d)
		for k := range d {
			lo[k] = rng.NormFloat64()
			hi[k] = lo[k] + 0.1 + 3*rng.Float64()
			cells[k] = 1 + rng.IntN(7)
		}
		g, err := NewBoxGrid(lo, hi, cells)
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			x := make([]float64, d)
			in := true
			for k := range d {
				x[k] = lo[k] + (hi[k]-lo[k])*(1.4*rng.Float64()-0.2)
				in = in && x[k] >= lo[k] && x[k] <= hi[k]
			}
			j, inside := g.Nearest(x)
			if want := bruteNearest[float64](g, x); j != want {
				t.Fatalf("grid %v %v %v: Nearest(%v) = %d, brute force %d", lo, hi, cells, x, j, want)
			}
			if inside != in {
				t.Fatalf("Nearest(%v) inside = %v, want %v", x, inside, in)
			}
		}
	}
}

// Exact ties go to the lowest index (A17), for the grid and the point set.
func TestNearestTies(t *testing.T) {
	g, err := NewBoxGrid([]float64{-1, -1}, []float64{1, 1}, []int{2, 2}) // centres ±0.5
	if err != nil {
		t.Fatal(err)
	}
	pts := make([][]float64, g.Size())
	for j := range pts {
		pts[j] = g.Point(j)
	}
	ps, err := NewPointSet(pts, []float64{-1, -1}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		x    []float64
		want int
	}{
		{[]float64{0, 0}, 0},     // all four tie
		{[]float64{0, 0.5}, 1},   // (−.5,.5) = 1 and (.5,.5) = 3
		{[]float64{0.5, 0}, 2},   // (.5,−.5) = 2 and (.5,.5) = 3
		{[]float64{0, -0.7}, 0},  // 0 and 2
		{[]float64{0.7, 0.7}, 3}, // no tie
		{[]float64{0, 5}, 1},     // outside, tie on axis 0
	}
	for _, c := range cases {
		for _, q := range []StateQuantizer[float64]{g, ps} {
			if j, _ := q.Nearest(c.x); j != c.want || j != bruteNearest(q, c.x) {
				t.Errorf("%T.Nearest(%v) = %d, want %d", q, c.x, j, c.want)
			}
		}
	}
	// Cell boundaries at exact binary fractions on [0,1] with 4 cells.
	g1, _ := NewBoxGrid([]float64{0}, []float64{1}, []int{4})
	for _, c := range []struct {
		x    float64
		want int
	}{{0.25, 0}, {0.5, 1}, {0.75, 2}, {0, 0}, {1, 3}, {-3, 0}, {7, 3}} {
		if j, _ := g1.Nearest([]float64{c.x}); j != c.want {
			t.Errorf("Nearest(%v) = %d, want %d", c.x, j, c.want)
		}
	}
}

func TestNearestNonFinite(t *testing.T) {
	g, _ := NewBoxGrid([]float64{-1, -1}, []float64{1, 1}, []int{3, 3})
	ps, _ := NewPointSet([][]float64{{0, 0}, {1, 1}}, []float64{-1, -1}, []float64{1, 1})
	for _, x := range [][]float64{{math.NaN(), 0}, {math.Inf(1), 0}, {0, math.Inf(-1)}} {
		for _, q := range []StateQuantizer[float64]{g, ps} {
			j, in := q.Nearest(x)
			if in || j < 0 || j >= q.Size() {
				t.Errorf("%T.Nearest(%v) = %d, %v", q, x, j, in)
			}
		}
	}
	if j, _ := g.Nearest([]float64{math.Inf(1), math.Inf(-1)}); j != 6 {
		t.Errorf("(+Inf, −Inf) snaps to %d, want 6", j)
	}
}

func TestStateQuantizerErrors(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		f    func() error
		want string
	}{
		{"empty", func() error { _, e := NewBoxGrid([]float64{}, []float64{}, nil); return e }, "dimension 0"},
		{"lengths", func() error { _, e := NewBoxGrid([]float64{0}, []float64{1, 2}, []int{1}); return e }, "len(hi) = 2"},
		{"lo≥hi", func() error { _, e := NewBoxGrid([]float64{0, 1}, []float64{1, 1}, []int{1, 1}); return e }, "axis 1"},
		{"nan", func() error { _, e := NewBoxGrid([]float64{nan}, []float64{1}, []int{1}); return e }, "lo[0] = NaN"},
		{"inf", func() error { _, e := NewBoxGrid([]float64{0}, []float64{math.Inf(1)}, []int{1}); return e }, "hi[0] = +Inf"},
		{"width", func() error {
			_, e := NewBoxGrid([]float64{-math.MaxFloat64}, []float64{math.MaxFloat64}, []int{1})
			return e
		}, "infinite width"},
		{"cells len", func() error { _, e := NewBoxGrid([]float64{0}, []float64{1}, []int{1, 2}); return e }, "len(cells) = 2"},
		{"cells 0", func() error { _, e := NewBoxGrid([]float64{0}, []float64{1}, []int{0}); return e }, "cells[0] = 0"},
		{"too big", func() error { _, e := NewBoxGrid([]float64{0, 0}, []float64{1, 1}, []int{1 << 13, 1 << 13}); return e }, "exceeds"},
		{"r=0", func() error { _, e := NewBoxGridForRadius([]float64{0}, []float64{1}, 0); return e }, "r = 0"},
		{"r nan", func() error { _, e := NewBoxGridForRadius([]float64{0}, []float64{1}, nan); return e }, "r = NaN"},
		{"r tiny", func() error { _, e := NewBoxGridForRadius([]float64{0, 0}, []float64{1, 1}, 1e-9); return e }, "cells per axis"},
		{"set empty", func() error { _, e := NewPointSet(nil, []float64{0}, []float64{1}); return e }, "empty"},
		{"set dim", func() error { _, e := NewPointSet([][]float64{{0}, {1, 2}}, []float64{0}, []float64{1}); return e }, "point 1 has length 2"},
		{"set nan", func() error { _, e := NewPointSet([][]float64{{0}, {nan}}, []float64{0}, []float64{1}); return e }, "point 1[0] = NaN"},
		{"set box", func() error { _, e := NewPointSet([][]float64{{0}}, []float64{1}, []float64{0}); return e }, "lo = 1"},
	}
	for _, c := range cases {
		err := c.f()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

func TestPointSetCoveringRadius(t *testing.T) {
	// The 15×15 grid as a point set: the bound must be ≥ the exact √2/15
	// and within 0.1 %.
	g, _ := NewBoxGridForRadius([]float64{-1, -1}, []float64{1, 1}, 0.1)
	pts := make([][]float64, g.Size())
	for j := range pts {
		pts[j] = g.Point(j)
	}
	ps, err := NewPointSet(pts, []float64{-1, -1}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	exact := g.CoveringRadius()
	lo, up := ps.CoveringBounds()
	if up < exact || up > exact*1.001 || lo > exact {
		t.Fatalf("bounds [%v, %v], exact %v", lo, up, exact)
	}
	if ps.CoveringRadius() != up {
		t.Fatal("CoveringRadius differs from the upper bound")
	}
	// Random sets (grid plus data points): dense sampling never exceeds
	// the upper bound and gets close to the lower one.
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := range 6 {
		d := 1 + trial%3
		lo, hi := make([]float64, d), make([]float64, d)
		for k := range d {
			lo[k], hi[k] = -1, 1
		}
		n := 5 + rng.IntN(40)
		pts := make([][]float64, n)
		for j := range pts {
			pts[j] = make([]float64, d)
			for k := range d {
				pts[j][k] = 2.4*rng.Float64() - 1.2
			}
		}
		ps, err := NewPointSet(pts, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		l, u := ps.CoveringBounds()
		if !(l <= u && u <= l*1.001+1e-12) {
			t.Errorf("d = %d: bounds [%v, %v] not within 0.1 %%", d, l, u)
		}
		sampled := 0.0
		x := make([]float64, d)
		for range 20000 {
			for k := range d {
				x[k] = 2*rng.Float64() - 1
			}
			j, _ := ps.Nearest(x)
			sampled = max(sampled, math.Sqrt(dist2(x, ps.Point(j))))
		}
		if sampled > u {
			t.Errorf("d = %d: sampled radius %v above the bound %v", d, sampled, u)
		}
	}
}

// Test 7, Lemma 20: W_{2,λ}(μ, μ∘Q⁻¹) ≤ covering radius for μ in the box.
func TestLemma20(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 20))
	lo, hi := []float64{-1, -1}, []float64{1, 1}
	g, _ := NewBoxGridForRadius(lo, hi, 0.25)
	sub := make([][]float64, 0, 30)
	for range 30 {
		sub = append(sub, []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1})
	}
	ps, _ := NewPointSet(sub, lo, hi)
	for _, q := range []StateQuantizer[float64]{g, ps} {
		r := q.CoveringRadius()
		worst := 0.0
		for range 200 {
			N := 1 + rng.IntN(4)
			m := 1 + rng.IntN(8)
			mu := Measure[float64]{}
			s := 0.0
			for range m {
				x := []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1}
				mu.Atoms = append(mu.Atoms, Atom[float64]{Pos: 1 + rng.IntN(N), X: x})
				w := rng.Float64() + 0.01
				mu.W = append(mu.W, w)
				s += w
			}
			for a := range mu.W {
				mu.W[a] /= s
			}
			qmu := Measure[float64]{W: mu.W}
			for _, at := range mu.Atoms {
				j, in := q.Nearest(at.X)
				if !in {
					t.Fatal("atom outside the box")
				}
				qmu.Atoms = append(qmu.Atoms, Atom[float64]{Pos: at.Pos, X: q.Point(j)})
			}
			w2, err := Cost[float64]{Lambda: 10 * rng.Float64(), N: N}.W2Sq(mu, qmu)
			if err != nil {
				t.Fatal(err)
			}
			worst = max(worst, math.Sqrt(w2))
			if math.Sqrt(w2) > r*(1+1e-12) {
				t.Fatalf("%T: W = %v > covering radius %v", q, math.Sqrt(w2), r)
			}
		}
		t.Logf("%T: max W_{2,λ}(μ, μ∘Q⁻¹) = %.4f ≤ r = %.4f", q, worst, r)
	}
}

// Quantizers are safe for concurrent use, including the lazy covering
// radius of a PointSet (run with -race).
func TestConcurrentUse(t *testing.T) {
	g, _ := NewBoxGridForRadius([]float32{-1, -1}, []float32{1, 1}, 0.2)
	pts := make([][]float32, g.Size())
	for j := range pts {
		pts[j] = g.Point(j)
	}
	ps, _ := NewPointSet(pts, []float32{-1, -1}, []float32{1, 1})
	done := make(chan float32)
	for w := range 4 {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(w), 0))
			r := ps.CoveringRadius()
			for range 1000 {
				x := []float32{2*rng.Float32() - 1, 2*rng.Float32() - 1}
				a, _ := g.Nearest(x)
				b, _ := ps.Nearest(x)
				if dist2(x, g.Point(a)) > dist2(x, ps.Point(b))*(1+1e-6) {
					r = -1
				}
			}
			done <- r
		}()
	}
	for range 4 {
		if r := <-done; r < g.CoveringRadius() || r > g.CoveringRadius()*1.001 {
			t.Errorf("float32 covering radius %v (grid %v) or a wrong nearest point", r, g.CoveringRadius())
		}
	}
}
