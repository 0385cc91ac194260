package game

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// tableau is a condensed (Tucker) simplex tableau for the LP
// max Σw s.t. M w + s = 1, w, s ≥ 0, with rows×cols matrix M. Variables
// 0..cols−1 are w and cols..cols+rows−1 are the slacks s. Row i of t
// (i < rows) reads x_{basis[i]} + Σ_k t[i][k]·x_{nonbasic[k]} = t[i][cols];
// the last row holds the reduced costs z_k and, in its last entry, the
// objective Σw.
type tableau struct {
	rows, cols int
	t          []float64 // (rows+1)×(cols+1), row-major
	basis      []int     // basic variable of each row
	nonbasic   []int     // nonbasic variable of each column
}

func newTableau(rows, cols int, m []float64) *tableau {
	tb := new(tableau)
	tb.reset(rows, cols, m)
	return tb
}

// reset makes tb the starting tableau of the rows×cols matrix m (the
// feasible basis of the slacks), reusing its memory.
func (tb *tableau) reset(rows, cols int, m []float64) {
	w := cols + 1
	tb.rows, tb.cols = rows, cols
	tb.t = resize(tb.t, (rows+1)*w)
	clear(tb.t)
	if cap(tb.basis) < rows {
		tb.basis = make([]int, rows)
	}
	if cap(tb.nonbasic) < cols {
		tb.nonbasic = make([]int, cols)
	}
	tb.basis, tb.nonbasic = tb.basis[:rows], tb.nonbasic[:cols]
	for i := 0; i < rows; i++ {
		copy(tb.t[i*w:i*w+cols], m[i*cols:(i+1)*cols])
		tb.t[i*w+cols] = 1
		tb.basis[i] = cols + i
	}
	obj := tb.t[rows*w:]
	for k := 0; k < cols; k++ {
		obj[k] = -1
		tb.nonbasic[k] = k
	}
}

// solve runs the simplex method to optimality and reports whether it got
// there. It uses Dantzig's rule (most negative reduced cost) and switches to
// Bland's rule (smallest variable index entering and leaving) after a run of
// degenerate pivots; Bland's rule cannot cycle. It gives up (returns false)
// after an iteration cap or if no acceptable pivot exists, which for this LP
// (bounded and feasible) can only come from round-off.
func (tb *tableau) solve() bool {
	rows, cols, w := tb.rows, tb.cols, tb.cols+1
	t := tb.t
	obj := t[rows*w : rows*w+cols]
	bland := false
	degenerate := 0
	limit := 50 * (rows + cols + 10)
	for iter := 0; iter < limit; iter++ {
		// Entering column.
		c := -1
		if bland {
			for k, z := range obj {
				if z < -lpTol && (c < 0 || tb.nonbasic[k] < tb.nonbasic[c]) {
					c = k
				}
			}
		} else {
			best := -lpTol
			for k, z := range obj {
				if z < best {
					best, c = z, k
				}
			}
		}
		if c < 0 {
			return true // optimal
		}
		// Leaving row: minimum ratio, ties to the smallest basic index.
		r := -1
		var ratio float64
		for i := 0; i < rows; i++ {
			p := t[i*w+c]
			if p <= pivotTol {
				continue
			}
			q := t[i*w+cols] / p
			if r < 0 || q < ratio-1e-14 || (q <= ratio+1e-14 && tb.basis[i] < tb.basis[r]) {
				r, ratio = i, q
			}
		}
		if r < 0 {
			return false // unbounded: impossible for M > 0, so round-off
		}
		if ratio <= 1e-14 {
			degenerate++
			if degenerate > rows+cols {
				bland = true
			}
		} else {
			degenerate = 0
		}
		tb.pivot(r, c)
	}
	return false
}

// pivot exchanges the basic variable of row r with the nonbasic variable of
// column c. It costs O(rows·cols).
func (tb *tableau) pivot(r, c int) {
	w := tb.cols + 1
	t := tb.t
	pr := t[r*w : (r+1)*w]
	inv := 1 / pr[c]
	for k := range pr {
		pr[k] *= inv
	}
	pr[c] = inv
	for i := 0; i <= tb.rows; i++ {
		if i == r {
			continue
		}
		ri := t[i*w : (i+1)*w]
		f := ri[c]
		if f == 0 {
			continue
		}
		floats.AddScaled(ri, -f, pr) // SIMD axpy: ri −= f·pr
		ri[c] = -f * inv
	}
	tb.basis[r], tb.nonbasic[c] = tb.nonbasic[c], tb.basis[r]
}

// dual returns the row strategy read from the optimal tableau: the dual
// variable u_i is the reduced cost of slack i (zero when the slack is
// basic), and x = u/Σu. It returns nil if u is not a valid point.
func (tb *tableau) dual() []float64 {
	x := make([]float64, tb.rows)
	if !tb.dualInto(x) {
		return nil
	}
	return x
}

// dualInto is [tableau.dual] writing into x (of length rows); it reports
// whether u is a valid point.
func (tb *tableau) dualInto(x []float64) bool {
	w := tb.cols + 1
	obj := tb.t[tb.rows*w:]
	clear(x)
	var s float64
	for k, v := range tb.nonbasic {
		if v >= tb.cols {
			u := obj[k]
			if u < -1e-9 || math.IsNaN(u) {
				return false
			}
			u = max(u, 0)
			x[v-tb.cols] = u
			s += u
		}
	}
	if !(s > 0) {
		return false
	}
	for i := range x {
		x[i] /= s
	}
	return true
}

// primalDual returns the strategies read from the optimal tableau: the
// column strategy from the basic w variables and the row strategy from
// [tableau.dual]. It returns nil strategies if either is not a valid point.
func (tb *tableau) primalDual() (x, y []float64) {
	x, y = make([]float64, tb.rows), make([]float64, tb.cols)
	if !tb.primalDualInto(x, y) {
		return nil, nil
	}
	return x, y
}

// primalDualInto is [tableau.primalDual] writing into x and y (of lengths
// rows and cols); it reports whether both are valid points.
func (tb *tableau) primalDualInto(x, y []float64) bool {
	w := tb.cols + 1
	clear(y)
	var s float64
	for i, v := range tb.basis {
		if v < tb.cols {
			b := tb.t[i*w+tb.cols]
			if b < -1e-9 || math.IsNaN(b) {
				return false
			}
			y[v] = max(b, 0)
			s += y[v]
		}
	}
	if !tb.dualInto(x) || !(s > 0) {
		return false
	}
	for j := range y {
		y[j] /= s
	}
	return true
}

// mGap returns the duality gap max_i (My)_i − min_j (xᵀM)_j of the
// rows×cols row-major game M.
func mGap(rows, cols int, m, x, y []float64) float64 {
	g := &ZeroSum{rows: rows, cols: cols, a: m}
	return g.gap(x, y)
}
