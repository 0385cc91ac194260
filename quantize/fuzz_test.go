package quantize

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzNearest builds a BoxGrid (and the same points as a PointSet) from
// arbitrary bounds and cell counts and checks that Nearest never panics,
// returns an index in range, and finds a point as near as brute force.
func FuzzNearest(f *testing.F) {
	f.Add(uint8(2), uint8(15), uint8(15), uint8(1), -1.0, 1.0, 0.05, -0.93, 0.0, 0.1)
	f.Add(uint8(1), uint8(4), uint8(1), uint8(1), 0.0, 1.0, 0.25, 0.0, 0.0, 0.3)
	f.Add(uint8(3), uint8(2), uint8(3), uint8(4), -1e300, 1e300, math.Inf(1), math.NaN(), 1e308, 1e-300)
	f.Fuzz(func(t *testing.T, dd, c0, c1, c2 uint8, lo, hi, x0, x1, x2, r float64) {
		d := 1 + int(dd)%3
		los, his := make([]float64, d), make([]float64, d)
		for k := range d {
			los[k], his[k] = lo, hi+float64(k)
		}
		cells := []int{int(c0) % 40, int(c1) % 40, int(c2) % 40}[:d]
		x := []float64{x0, x1, x2}[:d]
		// Skip radii that ask for millions of cells: legal, but slow.
		if est := (hi - lo + 3) / r; !(est < 1e5) {
			r = math.NaN()
		}
		if g, err := NewBoxGridForRadius(los, his, r); err == nil {
			if j, _ := g.Nearest(x); j < 0 || j >= g.Size() || g.CoveringRadius() >= r {
				t.Fatalf("ForRadius grid: j = %d of %d, radius %v ≥ %v", j, g.Size(), g.CoveringRadius(), r)
			}
		}
		g, err := NewBoxGrid(los, his, cells)
		if err != nil {
			return
		}
		j, in := g.Nearest(x)
		if j < 0 || j >= g.Size() {
			t.Fatalf("Nearest = %d of %d", j, g.Size())
		}
		wantIn := true
		for k := range d {
			wantIn = wantIn && x[k] >= los[k] && x[k] <= his[k]
		}
		if in != wantIn {
			t.Fatalf("inside = %v, want %v", in, wantIn)
		}
		pts := make([][]float64, g.Size())
		for i := range pts {
			pts[i] = g.Point(i)
		}
		ps, err := NewPointSet(pts, los, his)
		if err != nil {
			t.Fatalf("grid points rejected: %v", err)
		}
		jb, inb := ps.Nearest(x)
		if jb < 0 || jb >= ps.Size() || inb != in {
			t.Fatalf("PointSet.Nearest = %d, %v", jb, inb)
		}
		dg, db := dist2(x, g.Point(j)), dist2(x, ps.Point(jb))
		if !math.IsInf(db, 0) && !math.IsNaN(db) && dg > db*(1+1e-12)+1e-300 {
			t.Fatalf("grid point %d at distance² %v, brute force %d at %v", j, dg, jb, db)
		}
	})
}

// fuzzFloats reads little-endian float64s from b.
func fuzzFloats(b []byte, n int) []float64 {
	out := make([]float64, 0, n)
	for len(b) >= 8 && len(out) < n {
		out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		b = b[8:]
	}
	return out
}

// FuzzReznik feeds Reznik and PositionPreserving both arbitrary float64
// vectors (validation) and normalised byte weights (rounding invariants:
// counts ≥ 0 summing to ℓ, exchange optimality, ℓ/n units per position).
func FuzzReznik(f *testing.F) {
	f.Add([]byte{10, 25, 65}, uint16(4), uint8(1), false)
	f.Add([]byte{11, 28, 29, 32}, uint16(4), uint8(2), false)
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f}, uint16(3), uint8(1), true)
	f.Fuzz(func(t *testing.T, data []byte, ell16 uint16, n8 uint8, raw bool) {
		ell := int(ell16) - 2 // exercise ℓ ≤ 0
		var p []float64
		if raw {
			p = fuzzFloats(data, 64)
		} else {
			s := 0.0
			for _, b := range data {
				p = append(p, float64(b))
				s += float64(b)
			}
			if s > 0 {
				for a := range p {
					p[a] /= s
				}
			}
		}
		r, err := Reznik(nil, p, ell)
		if err == nil {
			sum, hi, lo := 0, math.Inf(-1), math.Inf(1)
			for a, c := range r {
				if c < 0 {
					t.Fatalf("R_%d(%v) = %v", ell, p, r)
				}
				sum += c
				dl := float64(c) - float64(ell)*p[a]
				if c > 0 {
					hi = max(hi, dl)
				}
				lo = min(lo, dl)
			}
			if sum != ell || hi-lo > 1+1e-6 {
				t.Fatalf("R_%d(%v) = %v: sum %d, spread %v", ell, p, r, sum, hi-lo)
			}
		}
		// Position-preserving with positions a mod n + 1, after balancing
		// the masses per position.
		n := 1 + int(n8)%4
		if len(p) == 0 || ell < 1 {
			return
		}
		pos := make([]int, len(p))
		mass := make([]float64, n+1)
		for a := range p {
			pos[a] = a%n + 1
			mass[pos[a]] += p[a]
		}
		q := make([]float64, len(p))
		for a := range p {
			if mass[pos[a]] > 0 {
				q[a] = p[a] / mass[pos[a]] / float64(n)
			}
		}
		ellN := ell * n
		r, err = PositionPreserving(nil, q, pos, n, ellN)
		if err != nil {
			return
		}
		units := make([]int, n+1)
		for a, c := range r {
			if c < 0 {
				t.Fatalf("negative count %v", r)
			}
			units[pos[a]] += c
		}
		for i := 1; i <= n; i++ {
			if units[i] != ell {
				t.Fatalf("position %d has %d units, want %d", i, units[i], ell)
			}
		}
	})
}

// FuzzW2Sq builds two small measures from bytes and checks that W2Sq,
// W2SqCounts and PositionLockedW2Sq never panic, and that the values are
// non-negative, symmetric and agree with each other.
func FuzzW2Sq(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, []byte{9, 8, 7, 6}, uint8(2), 1.0)
	f.Add([]byte{0, 0, 0, 0}, []byte{0, 0, 0, 0}, uint8(1), 0.0)
	f.Add([]byte{255, 1, 3, 200, 7, 7, 7, 7, 7, 7, 7, 7}, []byte{1, 2, 250, 3, 4, 5}, uint8(3), 1e300)
	f.Fuzz(func(t *testing.T, a, b []byte, n8 uint8, lambda float64) {
		N := 1 + int(n8)%4
		// Each atom uses 3 bytes: position, state, count.
		mk := func(data []byte) ([]Atom[float64], []int, Measure[float64]) {
			var atoms []Atom[float64]
			var cnt []int
			for len(data) >= 3 && len(atoms) < 12 {
				atoms = append(atoms, Atom[float64]{Pos: 1 + int(data[0])%N, X: []float64{float64(int8(data[1])) / 16}})
				cnt = append(cnt, int(data[2])%5)
				data = data[3:]
			}
			mu := Measure[float64]{Atoms: atoms}
			s := 0
			for _, c := range cnt {
				s += c
			}
			for _, c := range cnt {
				mu.W = append(mu.W, float64(c)/float64(max(s, 1)))
			}
			return atoms, cnt, mu
		}
		aa, ca, mu := mk(a)
		ab, cb, nu := mk(b)
		c := Cost[float64]{Lambda: lambda, N: N}
		w1, err1 := c.W2Sq(mu, nu)
		w2, err2 := c.W2Sq(nu, mu)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v, %v", err1, err2)
		}
		// The solvers are exact up to ~1e-12 of the largest ground cost
		// (states lie in [-8, 8], so ‖x − y‖² ≤ 256).
		tol := 1e-9 * (1 + 256 + math.Abs(lambda))
		if err1 == nil {
			if !(w1 >= 0) || math.Abs(w1-w2) > tol {
				t.Fatalf("W² = %v vs %v", w1, w2)
			}
			// Normalise the counts to a common ℓ and compare with the
			// assignment.
			la, lb := 0, 0
			for _, v := range ca {
				la += v
			}
			for _, v := range cb {
				lb += v
			}
			ca2, cb2 := make([]int, len(ca)), make([]int, len(cb))
			for i, v := range ca {
				ca2[i] = v * lb
			}
			for i, v := range cb {
				cb2[i] = v * la
			}
			w3, err := c.W2SqCounts(aa, ca2, ab, cb2)
			if err != nil {
				t.Fatalf("W2Sq accepted, W2SqCounts rejected: %v", err)
			}
			if math.Abs(w3-w1) > tol {
				t.Fatalf("W2Sq %v, W2SqCounts %v", w1, w3)
			}
			if pl, ok := PositionLockedW2Sq(mu, nu); ok && pl < w1-tol {
				// Position-locked couplings are feasible for W2Sq, so
				// W2Sq ≤ position-locked always.
				t.Fatalf("position-locked %v below W2Sq %v", pl, w1)
			}
		}
		_, _ = c.W2SqCounts(aa, ca, ab, cb)
		_, _ = PositionLockedW2Sq(mu, nu)
	})
}
