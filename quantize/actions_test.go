package quantize

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestProductGrid(t *testing.T) {
	pts, err := ProductGrid([]float64{-1, 0, 10}, []float64{1, 1, 20}, []int{2, 1, 5}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 10 {
		t.Fatalf("%d points, want 10", len(pts))
	}
	if !slices.Equal(pts[0], []float64{-0.5, 0.5, 11}) || !slices.Equal(pts[1], []float64{-0.5, 0.5, 13}) ||
		!slices.Equal(pts[9], []float64{0.5, 0.5, 19}) {
		t.Fatalf("points %v", pts)
	}
	g, _ := NewBoxGrid([]float64{-1, 0, 10}, []float64{1, 1, 20}, []int{2, 1, 5})
	for j, p := range pts {
		if !slices.Equal(p, g.Point(j)) {
			t.Fatalf("point %d differs from the BoxGrid", j)
		}
	}
	if _, err := ProductGrid([]float64{-1, -1}, []float64{1, 1}, []int{4, 4}, 15); err == nil || !strings.Contains(err.Error(), "maxSize = 15") {
		t.Errorf("size 16 > 15: %v", err)
	}
	if _, err := ProductGrid([]float64{-1}, []float64{1}, []int{0}, 15); err == nil || !strings.Contains(err.Error(), "perAxis[0] = 0") {
		t.Errorf("perAxis 0: %v", err)
	}
	if _, err := ProductGrid([]float64{-1}, []float64{1}, []int{2, 2}, 15); err == nil || !strings.Contains(err.Error(), "len(perAxis) = 2") {
		t.Errorf("perAxis length: %v", err)
	}
	// Overflow of the product is an error, not a wrap-around.
	huge := make([]int, 40)
	lo, hi := make([]float64, 40), make([]float64, 40)
	for k := range huge {
		huge[k], lo[k], hi[k] = 1<<20, -1, 1
	}
	if _, err := ProductGrid(lo, hi, huge, math.MaxInt); err == nil {
		t.Error("overflowing grid accepted")
	}
}

// NetPerAxis = ⌈m√P⌉ and the net's Frobenius radius is ≤ 1/m (the paper's experiment).
func TestNetPerAxis(t *testing.T) {
	cases := []struct {
		P    int
		m    float64
		want int
	}{{22, 1, 5}, {22, 2, 10}, {22, 10, 47}, {4, 1, 2}, {1, 10, 10}, {9, 1.0 / 3, 1}, {0, 1, 0}, {3, 0, 0}, {3, math.NaN(), 0}}
	for _, c := range cases {
		if got := NetPerAxis(c.P, c.m); got != c.want {
			t.Errorf("NetPerAxis(%d, %v) = %d, want %d", c.P, c.m, got, c.want)
		}
	}
	// The radius of the cube net: √P/c ≤ 1/m, and c−1 would not do.
	for P := 1; P <= 30; P++ {
		for _, m := range []float64{0.5, 1, 2, 3.3, 10} {
			c := NetPerAxis(P, m)
			if math.Sqrt(float64(P))/float64(c) > 1/m*(1+1e-12) {
				t.Errorf("P = %d, m = %v: radius %v > %v", P, m, math.Sqrt(float64(P))/float64(c), 1/m)
			}
			if c > 1 && math.Sqrt(float64(P))/float64(c-1) <= 1/m {
				t.Errorf("P = %d, m = %v: %d cells is not the fewest", P, m, c)
			}
		}
	}
	// A real 1/m-net: P = 2, m = 2 → 3 cells per axis; random points are
	// within 1/m of the grid.
	c := NetPerAxis(2, 2)
	pts, _ := ProductGrid([]float64{-1, -1}, []float64{1, 1}, []int{c, c}, 100)
	ps, _ := NewPointSet(pts, []float64{-1, -1}, []float64{1, 1})
	if r := ps.CoveringRadius(); r > 0.5*(1+1e-3) {
		t.Errorf("net radius %v > 1/m = 0.5", r)
	}
}

func TestNestedSampler(t *testing.T) {
	s := NestedSampler[float64]{Lo: []float64{-1, 0, 2}, Hi: []float64{1, 0, 3}}
	a := s.Extend(nil, 10, rand.New(rand.NewPCG(1, 2)))
	b := s.Extend(nil, 20, rand.New(rand.NewPCG(1, 2)))
	if len(a) != 10 || len(b) != 20 {
		t.Fatalf("lengths %d, %d", len(a), len(b))
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatal("not nested: the first 10 of 20 differ from 10")
		}
	}
	for _, v := range b {
		if v[0] < -1 || v[0] >= 1 || v[1] != 0 || v[2] < 2 || v[2] >= 3 {
			t.Fatalf("%v outside the box", v)
		}
	}
	// Growing in two steps with one rng equals one step of the total.
	rng := rand.New(rand.NewPCG(1, 2))
	c := s.Extend(nil, 10, rng)
	first := c[0]
	c = s.Extend(c, 10, rng)
	for i := range c {
		if !slices.Equal(c[i], b[i]) {
			t.Fatal("two-step growth differs")
		}
	}
	if &c[0][0] != &first[0] {
		t.Fatal("existing vectors were copied")
	}
	s32 := NestedSampler[float32]{Lo: []float32{-1}, Hi: []float32{1}}
	if v := s32.Extend(nil, 100, rand.New(rand.NewPCG(3, 3))); len(v) != 100 {
		t.Fatal("float32 sampler")
	}
	for _, bad := range []NestedSampler[float64]{{}, {Lo: []float64{0}, Hi: []float64{1, 2}}, {Lo: []float64{1}, Hi: []float64{0}}, {Lo: []float64{math.NaN()}, Hi: []float64{0}}} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: Extend did not panic", bad)
				}
			}()
			bad.Extend(nil, 1, rand.New(rand.NewPCG(1, 1)))
		}()
	}
}
