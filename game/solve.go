package game

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// Solution is a Nash equilibrium of a zero-sum game and its value: X is an
// optimal (maximin) strategy of the row player, Y an optimal (minimax)
// strategy of the column player, and Value = XᵀAY, the value of the game up
// to the solver's tolerance.
type Solution struct {
	X, Y  []float64
	Value float64
}

// lpTol is the reduced-cost tolerance passed to lp.Simplex. The LPs that
// Solve builds have entries in [1, 2] and optimal variables in [0, 1], so an
// absolute tolerance is also a relative one.
const lpTol = 1e-12

// verifyTol is the slack, relative to the payoff range, allowed when Solve
// checks that the row strategy recovered from the column LP's optimal basis
// guarantees the value (see solveScaled).
const verifyTol = 1e-11

// Solve returns a Nash equilibrium (X, Y) of the zero-sum game g and its
// value, computed by linear programming (in-context-games-omd spec §2.8).
// By von Neumann's (1928) minimax theorem,
//
//	max_x min_y xᵀAy = min_y max_x xᵀAy = v,
//
// and the optimal strategies are the solutions of a pair of dual linear
// programs. Solve maps the payoffs affinely to M ∈ [1, 2] (which changes
// neither the best responses nor the equilibria, and makes the value of M
// positive) and solves the column player's LP
//
//	maximise Σ_j w_j  subject to  M w ≤ 1, w ≥ 0
//
// in standard form (slack variables s, M w + s = 1) with gonum's
// lp.Simplex, starting from the feasible basis of the slacks, so no phase-1
// problem is needed. Then val(M) = 1/Σw and Y = w·val(M). The row player's
// strategy is the dual solution: on the optimal basis (the support J of w
// and the rows I whose constraints are tight) it solves the square system
// M_{I,J}ᵀ u = 1 and sets X = u/Σu. If that system is not square, is
// singular, or its solution is not optimal (degenerate games: ties,
// duplicated or dominated actions), Solve solves the row player's LP instead,
// which is the column player's LP of the game −Aᵀ (see [ZeroSum.Transpose]).
// Finally tiny negative entries (LP round-off) are clamped to zero, both
// strategies are renormalised, and Value is set to XᵀAY.
//
// The result is exact up to the LP tolerance: with payoffs spanning
// [lo, hi], DualityGap(X, Y) is of order 1e-12·(hi − lo). A constant game
// returns the uniform strategies. When a game has several equilibria, Solve
// returns one of them (an extreme one, a vertex of the LP), deterministically.
//
// Each simplex pivot of gonum's dense implementation factorises an
// m×m basis matrix, so one LP on an m×n game costs O(p·m³) for p pivots
// (p is typically of the order of the equilibrium support size); the
// dual-recovery step costs O(k³) for support size k. Solve allocates
// O(m·(m+n)) memory. On a 2-core machine a random 100×100 game takes a few
// milliseconds; see BenchmarkSolve.
//
// Solve returns an error only if the LP solver fails numerically, which the
// formulation above is designed to prevent; the error wraps gonum's.
func Solve(g *ZeroSum) (Solution, error) {
	if g == nil {
		return Solution{}, errors.New("game: Solve of a nil game")
	}
	lo, hi := g.Bounds()
	if lo == hi {
		return Solution{X: Uniform[float64](g.rows), Y: Uniform[float64](g.cols), Value: lo}, nil
	}
	m := scaled(g.rows, g.cols, g.a, lo, hi, false)
	x, y, err := solveScaled(g.rows, g.cols, m, true)
	if err != nil {
		return Solution{}, err
	}
	if x == nil {
		// Degenerate optimal basis: solve the row player's LP, the column
		// player's LP of −Aᵀ, mapped to [1, 2] by the same affine map.
		mt := scaled(g.rows, g.cols, g.a, lo, hi, true)
		_, x, err = solveScaled(g.cols, g.rows, mt, false)
		if err != nil {
			return Solution{}, err
		}
	}
	clean(x)
	clean(y)
	return Solution{X: x, Y: y, Value: g.Payoff(x, y)}, nil
}

// scaled returns the payoffs mapped affinely onto [1, 2]: with
// M = 1 + (A − lo)/(hi − lo) as a rows×cols row-major matrix, or, if
// transpose is set, the cols×rows matrix 1 + (hi − Aᵀ)/(hi − lo), which is
// the same map applied to the game −Aᵀ. The differences are formed after
// dividing by max(|lo|, |hi|), so that they cannot overflow.
func scaled(rows, cols int, a []float64, lo, hi float64, transpose bool) []float64 {
	s := max(math.Abs(lo), math.Abs(hi))
	slo, shi := lo/s, hi/s
	r := shi - slo
	m := make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			v := a[i*cols+j] / s
			if transpose {
				m[j*rows+i] = 1 + min(max((shi-v)/r, 0), 1)
			} else {
				m[i*cols+j] = 1 + min(max((v-slo)/r, 0), 1)
			}
		}
	}
	return m
}

// solveScaled solves the column player's LP of the rows×cols game M (a
// row-major matrix with entries in [1, 2]) and returns the column player's
// optimal strategy y. If dual is set it also returns the row player's
// optimal strategy x recovered from the optimal basis, or nil x if that
// recovery fails (degenerate basis), in which case the caller must solve the
// dual LP.
func solveScaled(rows, cols int, m []float64, dual bool) (x, y []float64, err error) {
	// Standard form: minimise −Σw subject to [M I] (w, s) = 1, (w, s) ≥ 0.
	n := cols + rows
	a := mat.NewDense(rows, n, nil)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			a.Set(i, j, m[i*cols+j])
		}
		a.Set(i, cols+i, 1)
	}
	c := make([]float64, n)
	for j := 0; j < cols; j++ {
		c[j] = -1
	}
	b := make([]float64, rows)
	basic := make([]int, rows)
	for i := range b {
		b[i] = 1
		basic[i] = cols + i
	}
	_, ws, err := lp.Simplex(c, a, b, lpTol, basic)
	if err != nil {
		return nil, nil, fmt.Errorf("game: LP solver failed on a %d×%d game: %w", rows, cols, err)
	}
	w := ws[:cols:cols]
	y = make([]float64, cols)
	var sw float64
	for j, v := range w {
		if v > 0 {
			y[j] = v
			sw += v
		}
	}
	if !(sw > 0) {
		return nil, nil, fmt.Errorf("game: LP solver returned a zero column strategy on a %d×%d game", rows, cols)
	}
	for j := range y {
		y[j] /= sw
	}
	if !dual {
		return nil, y, nil
	}
	return dualStrategy(rows, cols, m, ws, 1/sw), y, nil
}

// dualStrategy recovers the row player's optimal strategy from the column
// LP's optimal solution ws = (w, s) of the rows×cols game M with value val:
// by complementary slackness it is supported on the tight rows I (s_i = 0)
// and makes every column of the support J of w exactly val, so on a
// non-degenerate basis (|I| = |J|) u solves M_{I,J}ᵀ u = 1 and x = u/Σu.
// It returns nil if the basis is degenerate or x is not optimal to within
// verifyTol.
func dualStrategy(rows, cols int, m, ws []float64, val float64) []float64 {
	const zero = 1e-12 // LP variables are O(1); anything below is round-off
	var rowIdx, colIdx []int
	for j := 0; j < cols; j++ {
		if ws[j] > zero {
			colIdx = append(colIdx, j)
		}
	}
	for i := 0; i < rows; i++ {
		if ws[cols+i] <= zero {
			rowIdx = append(rowIdx, i)
		}
	}
	k := len(colIdx)
	if k == 0 || len(rowIdx) != k {
		return nil
	}
	sub := mat.NewDense(k, k, nil) // sub = M_{I,J}ᵀ
	for p, i := range rowIdx {
		for q, j := range colIdx {
			sub.Set(q, p, m[i*cols+j])
		}
	}
	ones := make([]float64, k)
	for p := range ones {
		ones[p] = 1
	}
	var u mat.VecDense
	if err := u.SolveVec(sub, mat.NewVecDense(k, ones)); err != nil {
		return nil // singular or ill-conditioned: degenerate
	}
	x := make([]float64, rows)
	var su float64
	for p, i := range rowIdx {
		v := u.AtVec(p)
		if v < -zero || math.IsNaN(v) {
			return nil
		}
		v = max(v, 0)
		x[i] = v
		su += v
	}
	if !(su > 0) {
		return nil
	}
	for i := range x {
		x[i] /= su
	}
	// x must guarantee val against every column (M has range ≤ 1).
	for j := 0; j < cols; j++ {
		var s float64
		for _, i := range rowIdx {
			s += x[i] * m[i*cols+j]
		}
		if s < val-verifyTol {
			return nil
		}
	}
	return x
}

// clean clamps negative entries of p (LP round-off) to zero and renormalises
// p to sum to one.
func clean(p []float64) {
	var s float64
	for i, v := range p {
		if !(v > 0) {
			p[i] = 0
		}
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
}
