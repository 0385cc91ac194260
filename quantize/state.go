package quantize

import (
	"container/heap"
	"fmt"
	"math"
	"sync"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/tensor"
)

// StateQuantizer is the nearest-neighbour state quantizer Q^(n) of the paper
// (eq. (17)–(18)) on a finite set S_n = {s_0, …, s_{G−1}} ⊂ R^d. The
// position of a particle is never quantised: Q^(n)(p, x) = (p, s_j) with
// j = Nearest(x). Ties between equally near points go to the lowest index
// (a choice the paper leaves open).
//
// The implementations in this package ([BoxGrid], [PointSet]) are
// immutable after construction and safe for concurrent use.
type StateQuantizer[F tensor.Float] interface {
	// Dim returns the dimension d of the states.
	Dim() int
	// Size returns G = |S_n|.
	Size() int
	// Point returns s_j for j ∈ [0, Size()). The slice is a view into the
	// quantizer's storage: callers must not modify it.
	Point(j int) []F
	// Nearest returns the index j of a point of S_n nearest to x in the
	// Euclidean norm (lowest index on ties) and whether x lies in the
	// closed box the quantizer covers. When inside is false, j is still
	// the nearest point (nearest-neighbour snapping, a choice the paper leaves open).
	Nearest(x []F) (j int, inside bool)
	// CoveringRadius returns sup over the covered box of min_j ‖x − s_j‖₂:
	// the r of Lemma 20, W_{2,λ}(μ, μ∘(Q^(n))⁻¹) ≤ r for μ supported in
	// the box.
	CoveringRadius() F
}

// MaxGridEntries bounds the storage of a [BoxGrid] or a [ProductGrid]:
// the number of points times the dimension.
const MaxGridEntries = 1 << 24

// BoxGrid is a cell-centred uniform grid over the box [lo, hi] ⊂ R^d: axis
// k is cut into Cells()[k] equal cells of width h_k = (hi_k − lo_k)/c_k and
// the grid points are the cell centres lo_k + (i_k + ½)h_k. Point j has
// axis indices (i_0, …, i_{d−1}) in row-major order (the last axis varies
// fastest): j = Σ_k i_k·Π_{k'>k} c_{k'}.
//
// Nearest costs O(d): the nearest centre is found per axis (the squared
// distance is a sum over axes), so ties go to the lower axis index and
// hence to the lowest j. Points outside the box are snapped to the nearest
// centre (clamped per axis) with inside = false. The covering radius is
// half a cell diagonal, ½·sqrt(Σ_k h_k²).
//
// A BoxGrid is immutable after construction and safe for concurrent use.
type BoxGrid[F tensor.Float] struct {
	lo, hi  []F
	cells   []int
	width   []float64   // h_k
	centres [][]float64 // centres[k][i] = lo_k + (i+½)h_k, as stored in pts
	stride  []int
	pts     []F // Size()·d, row-major
	radius  F
}

var (
	_ StateQuantizer[float64] = (*BoxGrid[float64])(nil)
	_ StateQuantizer[float32] = (*PointSet[float32])(nil)
)

// NewBoxGrid returns the cell-centred grid over [lo, hi] with cells[k]
// cells on axis k. It copies its arguments. It returns an error naming the
// bad value if lo and hi differ in length or are empty, an entry is not
// finite, lo[k] ≥ hi[k], len(cells) ≠ len(lo), some cells[k] < 1, or the
// grid would hold more than [MaxGridEntries] coordinates. Building the grid
// costs O(Size()·d).
func NewBoxGrid[F tensor.Float](lo, hi []F, cells []int) (*BoxGrid[F], error) {
	if err := checkBox(lo, hi); err != nil {
		return nil, err
	}
	d := len(lo)
	if len(cells) != d {
		return nil, fmt.Errorf("%w: len(cells) = %d, want the box dimension %d", icrl.ErrInvalid, len(cells), d)
	}
	size := 1
	for k, c := range cells {
		if c < 1 {
			return nil, fmt.Errorf("%w: cells[%d] = %d must be at least 1", icrl.ErrInvalid, k, c)
		}
		if c > MaxGridEntries/d/size {
			return nil, fmt.Errorf("%w: grid with cells %v exceeds %d coordinates", icrl.ErrInvalid, cells, MaxGridEntries)
		}
		size *= c
	}
	g := &BoxGrid[F]{
		lo:      append([]F(nil), lo...),
		hi:      append([]F(nil), hi...),
		cells:   append([]int(nil), cells...),
		width:   make([]float64, d),
		centres: make([][]float64, d),
		stride:  make([]int, d),
		pts:     make([]F, size*d),
	}
	for k := range d {
		l, h := float64(lo[k]), float64(hi[k])
		w := (h - l) / float64(cells[k])
		g.width[k] = w
		g.centres[k] = make([]float64, cells[k])
		for i := range cells[k] {
			// Round through F so that the stored centre, the one Point
			// returns, is the one Nearest compares against.
			g.centres[k][i] = float64(F(l + (float64(i)+0.5)*w))
		}
	}
	g.radius = gridRadius(lo, hi, func(k int) int { return cells[k] })
	s := 1
	for k := d - 1; k >= 0; k-- {
		g.stride[k] = s
		s *= cells[k]
	}
	for j := range size {
		p := g.pts[j*d : (j+1)*d]
		for k := range d {
			p[k] = F(g.centres[k][(j/g.stride[k])%cells[k]])
		}
	}
	return g, nil
}

// NewBoxGridForRadius returns the cell-centred grid over [lo, hi] with the
// same number c of equal cells on every axis, c the fewest with covering
// radius ½·sqrt(Σ_k ((hi_k − lo_k)/c)²) < r (the paper's experiment: a 1/n-net for
// r = 1/n). For [-1,1]² and r = 1/10 it has 15 cells per axis, 225 points
// and radius ≈ 0.0943. Errors are those of [NewBoxGrid], plus a
// non-positive or non-finite r.
func NewBoxGridForRadius[F tensor.Float](lo, hi []F, r F) (*BoxGrid[F], error) {
	if err := checkBox(lo, hi); err != nil {
		return nil, err
	}
	if rr := float64(r); !isFinite(rr) || rr <= 0 {
		return nil, fmt.Errorf("%w: covering radius r = %v must be finite and positive", icrl.ErrInvalid, r)
	}
	d := len(lo)
	diag2 := 0.0 // squared box diagonal
	for k := range d {
		w := float64(hi[k]) - float64(lo[k])
		diag2 += w * w
	}
	rad := func(c int) F { return gridRadius(lo, hi, func(int) int { return c }) }
	x := math.Sqrt(diag2) / (2 * float64(r))
	if x >= float64(MaxGridEntries) {
		return nil, fmt.Errorf("%w: covering radius r = %v needs more than %d cells per axis on a box of diagonal %v", icrl.ErrInvalid, r, MaxGridEntries, math.Sqrt(diag2))
	}
	c := int(x) + 1
	for rad(c) >= r {
		c++
	}
	for c > 1 && rad(c-1) < r {
		c--
	}
	cells := make([]int, d)
	for k := range cells {
		cells[k] = c
	}
	return NewBoxGrid(lo, hi, cells)
}

// gridRadius returns the covering radius ½·sqrt(Σ_k h_k²), h_k = (hi_k −
// lo_k)/cells(k), of a cell-centred grid, rounded to F.
func gridRadius[F tensor.Float](lo, hi []F, cells func(k int) int) F {
	diag := 0.0
	for k := range lo {
		w := (float64(hi[k]) - float64(lo[k])) / float64(cells(k))
		diag += w * w
	}
	return F(0.5 * math.Sqrt(diag))
}

// Dim returns the dimension d.
func (g *BoxGrid[F]) Dim() int { return len(g.lo) }

// Size returns the number of grid points Π_k c_k.
func (g *BoxGrid[F]) Size() int { return len(g.pts) / len(g.lo) }

// Cells returns a copy of the number of cells per axis.
func (g *BoxGrid[F]) Cells() []int { return append([]int(nil), g.cells...) }

// Bounds returns copies of the box corners lo and hi.
func (g *BoxGrid[F]) Bounds() (lo, hi []F) {
	return append([]F(nil), g.lo...), append([]F(nil), g.hi...)
}

// Point returns the centre s_j as a view into the grid (do not modify). It
// panics if j is out of range.
func (g *BoxGrid[F]) Point(j int) []F {
	d := len(g.lo)
	return g.pts[j*d : (j+1)*d : (j+1)*d]
}

// Nearest returns the index of the grid point nearest to x (lowest index
// on ties) and whether x lies in the closed box [lo, hi]. It costs O(d) and
// does not allocate. A NaN coordinate maps to cell 0 on its axis and
// ±Inf to the end cell; both give inside = false. It panics if len(x) ≠
// Dim() (a programmer error).
func (g *BoxGrid[F]) Nearest(x []F) (j int, inside bool) {
	d := len(g.lo)
	if len(x) != d {
		panic(fmt.Sprintf("quantize: BoxGrid.Nearest of a length-%d vector on a %d-dimensional grid", len(x), d))
	}
	inside = true
	for k := range d {
		v := float64(x[k])
		if !(x[k] >= g.lo[k] && x[k] <= g.hi[k]) {
			inside = false
		}
		c := g.cells[k]
		t := (v - float64(g.lo[k])) / g.width[k]
		var i int
		switch {
		case !(t >= 0): // also NaN
			i = 0
		case t >= float64(c):
			i = c - 1
		default:
			i = min(int(t), c-1)
		}
		// floor(t) can be one cell off near a boundary; settle it on the
		// stored centres, lower cell on ties.
		if cs := g.centres[k]; isFinite(v) {
			if i > 0 && math.Abs(v-cs[i-1]) <= math.Abs(v-cs[i]) {
				i--
			} else if i+1 < c && math.Abs(v-cs[i+1]) < math.Abs(v-cs[i]) {
				i++
			}
		}
		j += i * g.stride[k]
	}
	return j, inside
}

// CoveringRadius returns ½·sqrt(Σ_k h_k²), the exact covering radius of
// the box by the cell centres.
func (g *BoxGrid[F]) CoveringRadius() F { return g.radius }

// PointSet is an arbitrary finite S_n ⊂ R^d, for example a grid together
// with the data points (the paper allows adding them), with a box [lo, hi]
// that it is meant to cover. Points may lie outside the box; inside in
// [PointSet.Nearest] refers to the box.
//
// Nearest is brute force, O(G·d). CoveringRadius is computed once, on
// first use, by branch and bound over the box: the box is split in halves
// (longest side first) and each cell C gets the upper bound
// min_j max_{x∈C} ‖x − s_j‖ (the farthest corner) and the lower bound
// min_j ‖c − s_j‖ at its centre c; cells are refined, largest upper bound
// first, until the largest upper bound is within 0.1 % of the largest
// lower bound. The result is therefore an upper bound on the exact
// covering radius, at most 0.1 % above it; if the work budget (about
// 4·10⁷ distance terms) runs out first it is still an upper bound, only
// looser. [PointSet.CoveringBounds] returns both bounds.
//
// A PointSet is immutable after construction and safe for concurrent use.
type PointSet[F tensor.Float] struct {
	d      int
	pts    []F
	lo, hi []F

	once         sync.Once
	lower, upper F
}

// NewPointSet returns the point set pts (copied) with covered box
// [lo, hi]. It returns an error naming the bad value if pts is empty, a
// point's length differs from the box dimension, a coordinate is not
// finite, or the box is invalid (see [NewBoxGrid]). Building it costs
// O(G·d).
func NewPointSet[F tensor.Float](pts [][]F, lo, hi []F) (*PointSet[F], error) {
	if err := checkBox(lo, hi); err != nil {
		return nil, err
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%w: point set is empty", icrl.ErrInvalid)
	}
	d := len(lo)
	s := &PointSet[F]{d: d, pts: make([]F, 0, len(pts)*d), lo: append([]F(nil), lo...), hi: append([]F(nil), hi...)}
	for j, p := range pts {
		if len(p) != d {
			return nil, fmt.Errorf("%w: point %d has length %d, want the box dimension %d", icrl.ErrInvalid, j, len(p), d)
		}
		if k := num.FirstNonFinite(p); k >= 0 {
			return nil, fmt.Errorf("%w: point %d[%d] = %v is not finite", icrl.ErrNotFinite, j, k, p[k])
		}
		s.pts = append(s.pts, p...)
	}
	return s, nil
}

// Dim returns the dimension d.
func (s *PointSet[F]) Dim() int { return s.d }

// Size returns the number of points G.
func (s *PointSet[F]) Size() int { return len(s.pts) / s.d }

// Bounds returns copies of the covered box corners lo and hi.
func (s *PointSet[F]) Bounds() (lo, hi []F) {
	return append([]F(nil), s.lo...), append([]F(nil), s.hi...)
}

// Point returns s_j as a view into the set (do not modify). It panics if j
// is out of range.
func (s *PointSet[F]) Point(j int) []F { return s.pts[j*s.d : (j+1)*s.d : (j+1)*s.d] }

// Nearest returns the lowest index j minimising ‖x − s_j‖₂ (squared
// distances accumulated in float64) and whether x lies in the closed box.
// It costs O(G·d) and does not allocate. A non-finite x gives inside =
// false (and j = 0 if x has a NaN). It panics if len(x) ≠ Dim().
func (s *PointSet[F]) Nearest(x []F) (j int, inside bool) {
	d := s.d
	if len(x) != d {
		panic(fmt.Sprintf("quantize: PointSet.Nearest of a length-%d vector on a %d-dimensional set", len(x), d))
	}
	inside = true
	for k := range d {
		if !(x[k] >= s.lo[k] && x[k] <= s.hi[k]) {
			inside = false
		}
	}
	best := math.Inf(1)
	for i, o := 0, 0; o < len(s.pts); i, o = i+1, o+d {
		p := s.pts[o : o+d]
		dd := 0.0
		for k, v := range x {
			t := float64(v) - float64(p[k])
			dd += t * t
		}
		if dd < best {
			best, j = dd, i
		}
	}
	return j, inside
}

// CoveringRadius returns an upper bound on sup_{x∈[lo,hi]} min_j ‖x − s_j‖₂
// that exceeds the exact value by at most 0.1 % unless the work budget ran
// out (see [PointSet]). The first call costs up to about 4·10⁷ flops.
func (s *PointSet[F]) CoveringRadius() F {
	_, u := s.CoveringBounds()
	return u
}

// CoveringBounds returns a lower and an upper bound on the covering radius
// of the box by the set (see [PointSet]); they are computed once.
func (s *PointSet[F]) CoveringBounds() (lower, upper F) {
	s.once.Do(func() {
		l, u := coveringBounds(s.pts, s.d, s.lo, s.hi)
		s.lower, s.upper = F(l), F(u)
		if float64(s.upper) < u { // never round the upper bound down
			s.upper = F(math.Nextafter(u, math.Inf(1)))
			if float64(s.upper) < u {
				s.upper = F(u * (1 + 1e-6))
			}
		}
	})
	return s.lower, s.upper
}

// cell is a box of the branch-and-bound search.
type cell struct {
	lo, hi []float64
	ub     float64
}

type cellHeap []cell

func (h cellHeap) Len() int           { return len(h) }
func (h cellHeap) Less(i, j int) bool { return h[i].ub > h[j].ub }
func (h cellHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cellHeap) Push(x any)        { *h = append(*h, x.(cell)) }
func (h *cellHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// coveringBounds runs the branch and bound described on [PointSet].
func coveringBounds[F tensor.Float](pts []F, d int, lo, hi []F) (lower, upper float64) {
	n := len(pts) / d
	p := make([]float64, len(pts))
	for i, v := range pts {
		p[i] = float64(v)
	}
	budget := max(64, 40_000_000/(2*n*d)) // cell evaluations
	centre := make([]float64, d)
	eval := func(c *cell) {
		// Upper bound: min_j of the farthest-corner distance.
		best := math.Inf(1)
		for o := 0; o < len(p); o += d {
			dd := 0.0
			for k := range d {
				t := max(math.Abs(c.lo[k]-p[o+k]), math.Abs(c.hi[k]-p[o+k]))
				dd += t * t
				if dd >= best {
					break
				}
			}
			best = min(best, dd)
		}
		c.ub = math.Sqrt(best)
		// Lower bound on the global sup: the distance from the centre.
		for k := range d {
			centre[k] = 0.5 * (c.lo[k] + c.hi[k])
		}
		best = math.Inf(1)
		for o := 0; o < len(p); o += d {
			dd := 0.0
			for k := range d {
				t := centre[k] - p[o+k]
				dd += t * t
				if dd >= best {
					break
				}
			}
			best = min(best, dd)
		}
		lower = max(lower, math.Sqrt(best))
	}
	root := cell{lo: make([]float64, d), hi: make([]float64, d)}
	for k := range d {
		root.lo[k], root.hi[k] = float64(lo[k]), float64(hi[k])
	}
	eval(&root)
	h := &cellHeap{root}
	for evals := 1; ; evals += 2 {
		top := (*h)[0]
		if top.ub <= lower*(1+1e-3) || evals >= budget {
			return lower, top.ub
		}
		heap.Pop(h)
		axis, wmax := 0, -1.0
		for k := range d {
			if w := top.hi[k] - top.lo[k]; w > wmax {
				axis, wmax = k, w
			}
		}
		mid := 0.5 * (top.lo[axis] + top.hi[axis])
		a := cell{lo: top.lo, hi: append([]float64(nil), top.hi...)}
		b := cell{lo: append([]float64(nil), top.lo...), hi: top.hi}
		a.hi[axis], b.lo[axis] = mid, mid
		eval(&a)
		eval(&b)
		heap.Push(h, a)
		heap.Push(h, b)
	}
}
