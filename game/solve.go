package game

import (
	"fmt"
	"math"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
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

const (
	// lpTol is the reduced-cost tolerance passed to lp.Simplex and used by
	// the tableau. The LPs that Solve builds have entries in [1, 2] and
	// optimal variables in [0, 1], so an absolute tolerance is also a
	// relative one.
	lpTol = 1e-12
	// pivotTol is the smallest tableau entry accepted as a pivot.
	pivotTol = 1e-11
	// verifyTol is the slack, in units of the payoff range, allowed when
	// Solve checks that a recovered row strategy guarantees the value.
	verifyTol = 1e-11
	// accurateTol is the duality gap, in units of the scaled game M, at
	// which Solve accepts a tableau pair without trying the other routes.
	accurateTol = 1e-12
	// certTol bounds the duality gap, in units of the scaled game M (whose
	// payoffs span [1, 2]), of a tableau solution accepted when lp.Simplex
	// fails.
	certTol = 1e-9
	// gonumInitTol is gonum's initPosTol: lp.Simplex panics if the initial
	// basis has a basic variable below −gonumInitTol.
	gonumInitTol = 1e-13
)

// Solve returns a Nash equilibrium (X, Y) of the zero-sum game g and its
// value, computed by linear programming.
// By von Neumann's (1928) minimax theorem,
//
//	max_x min_y xᵀAy = min_y max_x xᵀAy = v,
//
// and optimal strategies are the solutions of a pair of dual linear
// programs (Dantzig 1951, "A proof of the equivalence of the programming
// problem and the game problem"). Solve maps the payoffs affinely onto
// M ∈ [1, 2], which changes neither best responses nor equilibria and makes
// the value positive, and solves the column player's LP
//
//	maximise Σ_j w_j  subject to  M w ≤ 1, w ≥ 0,
//
// whose optimum gives val(M) = 1/Σw and Y = w·val(M); the optimal dual
// variables u give X = u·val(M).
//
// A game with a pure saddle point (maximin = minimax, compared exactly) is
// answered directly with that pure pair, in O(m·n). Otherwise the LP is
// solved by a condensed (Tucker) simplex tableau on the m×n matrix M,
// starting from the feasible basis of the slack variables (no phase 1 is
// needed), with Dantzig's entering rule and, if a run of degenerate pivots
// suggests cycling, Bland's (1977) rule, which always terminates; each
// pivot costs O(m·n). The primal and dual solutions read from the final
// tableau are accepted when their duality gap certifies them: at most 1e-12
// in units of M at once (in practice of order 1e-15), and otherwise the
// best of four tableau solves if it is at most 1e-9. The four are the
// column player's LP and the row player's (the column player's LP of −Aᵀ,
// see [ZeroSum.Transpose]), each with the map onto [1, 2] and with the
// payoffs shifted to 1 and divided by their median distance from the
// extreme, which keeps the decisive differences of a game with one huge
// outlier entry (a 4×6 game with an entry of 7·10¹¹ among entries of order
// 10) far above round-off where the map onto [1, 2] squeezes them to 10⁻¹¹.
//
// Only if no tableau pair is certified does Solve call gonum's lp.Simplex
// on the standard form M w + s = 1, from the tableau's basis if it is
// feasible and from the slack basis otherwise, and recover the row
// strategy from its basis by complementary slackness (checked to guarantee
// the value against every column). If no candidate passes (which can happen
// only on degenerate games), Solve solves the row player's LP. Finally tiny
// negative entries (round-off) are clamped to zero, both strategies are
// renormalised (so they pass simplex.CheckDistribution), and Value is set to
// XᵀAY.
//
// The result is exact up to the LP tolerance: with payoffs spanning
// [lo, hi], DualityGap(X, Y) is at most 1e-9·(hi − lo) and typically of
// order 1e-15·(hi − lo) (gonum's route, when it is needed, certifies its
// pair only if lp.Simplex fails), and Value is the game's value to the same
// accuracy. Degenerate games (ties, pure equilibria, duplicated or
// dominated actions, 1×n and m×1 games) are handled; a constant game
// returns the uniform strategies. When a game has several equilibria,
// Solve returns one of them (a vertex of the LP), deterministically.
//
// The tableau costs O(p·m·n) for p pivots (p is typically a small multiple
// of m + n) and the certificate O(m·n); memory is O(m·(m+n)). A random
// 100×100 game takes under a millisecond on one core (see BenchmarkSolve);
// gonum's dense simplex alone, which refactorises an m×m basis at every
// pivot, takes about 50 times longer.
//
// If lp.Simplex fails numerically (seen only on games whose payoffs span
// many orders of magnitude more than the differences that decide the game),
// Solve accepts the tableau's pair or the pair of the row player's LP when
// its duality gap certifies it (at most 1e-9 of the payoff range).
//
// Solve returns an error if g is nil or zero (wrapping [icrl.ErrEmpty]) or every
// route fails numerically (wrapping [ErrSolver] and gonum's error).
func Solve(g *ZeroSum) (Solution, error) {
	var s Solver
	return s.Solve(g)
}

// Solver solves zero-sum games exactly as [Solve] does, with the same
// results bit for bit, keeping its scratch memory (the scaled game, the
// tableau, the candidate strategies) from one call to the next, so that
// solving many small games, as a posterior sampler does, allocates only
// the returned strategies. The zero value is ready to use. A Solver must
// not be used by several goroutines at once.
type Solver struct {
	view           ZeroSum // the game of SolveDense, without a copy
	m              []float64
	tab            tableau
	bx, by, cx, cy []float64 // the best and the candidate strategies
	rowp, colp     []float64 // the duality gap's payoff vectors
}

// Solve returns what [Solve] returns for g.
func (s *Solver) Solve(g *ZeroSum) (Solution, error) {
	if g == nil || g.rows == 0 || g.cols == 0 {
		return Solution{}, fmt.Errorf("%w: Solve of a nil or zero ZeroSum (build one with NewZeroSum)", icrl.ErrEmpty)
	}
	lo, hi := g.Bounds()
	if lo == hi {
		return Solution{X: simplex.Uniform[float64](g.rows), Y: simplex.Uniform[float64](g.cols), Value: lo}, nil
	}
	if i, j, ok := g.saddlePoint(); ok {
		x, y := make([]float64, g.rows), make([]float64, g.cols)
		x[i], y[j] = 1, 1
		return Solution{X: x, Y: y, Value: g.a[i*g.cols+j]}, nil
	}
	s.m = scaledInto(s.m, g.rows, g.cols, g.a, lo, hi, false)
	x, y := s.bestTableauPair(g, lo, hi, s.m)
	if x == nil {
		var err error
		if x, y, err = solveByGonum(g, lo, hi, s.m); err != nil {
			return Solution{}, err
		}
	} else {
		x, y = slices.Clone(x), slices.Clone(y)
	}
	clean(x)
	clean(y)
	return Solution{X: x, Y: y, Value: g.Payoff(x, y)}, nil
}

// SolveDense returns what Solve returns for the rows×cols game with
// row-major payoffs a, without copying a into a [ZeroSum]. It returns an
// error, as [NewZeroSumDense] does, if the shape is invalid or an entry is
// not finite.
func (s *Solver) SolveDense(rows, cols int, a []float64) (Solution, error) {
	if err := checkDense("payoff", rows, cols, a); err != nil {
		return Solution{}, err
	}
	s.view = ZeroSum{rows: rows, cols: cols, a: a}
	sol, err := s.Solve(&s.view)
	s.view.a = nil
	return sol, err
}

// bestTableauPair solves the game's LP by the simplex tableau (which has
// an iteration cap) four ways: the column player's LP and the row player's
// (the column player's LP of −Aᵀ), each with the payoffs mapped onto
// [1, 2] and with the payoffs shifted to 1 and divided by their median
// distance from the extreme instead, which keeps the decisive differences
// of a game with one huge outlier entry far above round-off. It returns the
// first pair whose duality gap in units of m is at most accurateTol, else
// the pair with the smallest gap if that is at most certTol, else nil. The
// pair is the Solver's scratch, valid until its next call.
func (s *Solver) bestTableauPair(g *ZeroSum, lo, hi float64, m []float64) (x, y []float64) {
	rows, cols := g.rows, g.cols
	s.bx, s.by = resize(s.bx, rows), resize(s.by, cols)
	s.cx, s.cy = resize(s.cx, rows), resize(s.cy, cols)
	best := math.Inf(1)
	for route := range 4 {
		transpose := route%2 == 1
		mm := m
		switch route {
		case 1:
			mm = scaled(rows, cols, g.a, lo, hi, true)
		case 2, 3:
			if mm = medianScaled(rows, cols, g.a, lo, hi, transpose); mm == nil {
				continue
			}
		}
		r, c := rows, cols
		if transpose {
			r, c = cols, rows
		}
		s.tab.reset(r, c, mm)
		if !s.tab.solve() {
			continue
		}
		px, py := s.cx, s.cy
		if transpose {
			px, py = py, px
		}
		if !s.tab.primalDualInto(px, py) {
			continue
		}
		if gap := s.mGap(rows, cols, m, s.cx, s.cy); gap < best {
			best = gap
			s.bx, s.cx = s.cx, s.bx
			s.by, s.cy = s.cy, s.by
		}
		if best <= accurateTol {
			return s.bx, s.by
		}
	}
	if !certified(best) {
		return nil, nil
	}
	return s.bx, s.by
}

// mGap is [mGap] with the Solver's scratch.
func (s *Solver) mGap(rows, cols int, m, x, y []float64) float64 {
	g := ZeroSum{rows: rows, cols: cols, a: m}
	s.rowp, s.colp = resize(s.rowp, rows), resize(s.colp, cols)
	return max(maxOf(g.RowPayoffs(s.rowp, y))-minOf(g.ColPayoffs(s.colp, x)), 0)
}

// certified reports whether a pair whose duality gap in units of the scaled
// game M is gap may be returned: gap ≤ certTol (false for NaN).
func certified(gap float64) bool { return gap <= certTol }

// medianScaled returns the column player's LP matrix 1 + (A − lo)/s, or if
// transpose is set the cols×rows matrix 1 + (hi − Aᵀ)/s, with s the median
// of the entries' distances from lo (hi): an affine map that, unlike
// [scaled]'s, does not squeeze the bulk of the payoffs into a sliver when
// one entry is far from the rest. It returns nil if s is zero or an entry
// overflows.
func medianScaled(rows, cols int, a []float64, lo, hi float64, transpose bool) []float64 {
	d := make([]float64, len(a))
	for k, v := range a {
		if transpose {
			d[k] = hi - v
		} else {
			d[k] = v - lo
		}
	}
	sorted := slices.Clone(d)
	slices.Sort(sorted)
	s := sorted[len(sorted)/2]
	if !(s > 0) || math.IsInf(s, 0) {
		return nil
	}
	m := make([]float64, len(a))
	for i := range rows {
		for j := range cols {
			v := 1 + d[i*cols+j]/s
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return nil
			}
			if transpose {
				m[j*rows+i] = v
			} else {
				m[i*cols+j] = v
			}
		}
	}
	return m
}

// solveByGonum solves the game's LP with gonum's lp.Simplex, certified and
// completed as [Solve] documents; it is the route for games on which the
// tableau fails.
func solveByGonum(g *ZeroSum, lo, hi float64, m []float64) (x, y []float64, err error) {
	x, y, err = solveScaled(g.rows, g.cols, m, true)
	if err != nil {
		// Try the row player's LP, the column player's LP of −Aᵀ, before
		// giving up; the pair is certified by its duality gap.
		mt := scaled(g.rows, g.cols, g.a, lo, hi, true)
		yt, xt, errt := solveScaled(g.cols, g.rows, mt, true)
		if errt != nil || yt == nil || !certified(mGap(g.rows, g.cols, m, xt, yt)) {
			return nil, nil, err
		}
		x, y = xt, yt
	}
	if x == nil {
		// No verified dual: solve the row player's LP, the column player's
		// LP of −Aᵀ mapped onto [1, 2] by the same affine map.
		mt := scaled(g.rows, g.cols, g.a, lo, hi, true)
		if _, x, err = solveScaled(g.cols, g.rows, mt, false); err != nil {
			return nil, nil, err
		}
	}
	return x, y, nil
}

// scaled returns the payoffs mapped affinely onto [1, 2]: with
// M = 1 + (A − lo)/(hi − lo) as a rows×cols row-major matrix, or, if
// transpose is set, the cols×rows matrix 1 + (hi − Aᵀ)/(hi − lo), which is
// the same map applied to the game −Aᵀ. The differences are formed after
// dividing by max(|lo|, |hi|), so that they cannot overflow. It requires
// lo < hi.
func scaled(rows, cols int, a []float64, lo, hi float64, transpose bool) []float64 {
	return scaledInto(nil, rows, cols, a, lo, hi, transpose)
}

// scaledInto is [scaled] writing into dst, reallocated if it is too
// short.
func scaledInto(dst []float64, rows, cols int, a []float64, lo, hi float64, transpose bool) []float64 {
	s := max(math.Abs(lo), math.Abs(hi))
	slo, shi := lo/s, hi/s
	r := shi - slo
	m := resize(dst, rows*cols)
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
// optimal strategy y. If dual is set it also returns a verified optimal row
// strategy x, or nil x if none could be recovered (degenerate games), in
// which case the caller must solve the dual LP.
func solveScaled(rows, cols int, m []float64, dual bool) (x, y []float64, err error) {
	tab := newTableau(rows, cols, m)
	tabOK := tab.solve()

	// Standard form for lp.Simplex: minimise −Σw subject to
	// [M I] (w, s) = 1, (w, s) ≥ 0.
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
	slack := make([]int, rows)
	for i := range b {
		b[i] = 1
		slack[i] = cols + i
	}
	var ws []float64
	if tabOK && feasibleBasis(a, b, tab.basis) {
		ws, err = lpSimplex(c, a, b, tab.basis)
	}
	if ws == nil {
		ws, err = lpSimplex(c, a, b, slack)
	}
	if err != nil {
		// gonum gave up (on badly conditioned games, such as payoffs spanning
		// many orders of magnitude): keep the tableau's solution if its
		// duality gap certifies it.
		if tabOK {
			if x, y := tab.primalDual(); x != nil && certified(mGap(rows, cols, m, x, y)) {
				return x, y, nil
			}
		}
		return nil, nil, fmt.Errorf("%w: on a %d×%d game: %w", ErrSolver, rows, cols, err)
	}
	if ws == nil {
		return nil, nil, fmt.Errorf("%w: LP solver rejected the slack basis of a %d×%d game", ErrSolver, rows, cols)
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
		return nil, nil, fmt.Errorf("%w: LP solver returned a zero column strategy on a %d×%d game", ErrSolver, rows, cols)
	}
	for j := range y {
		y[j] /= sw
	}
	if !dual {
		return nil, y, nil
	}
	val := 1 / sw
	if x = dualStrategy(rows, cols, m, ws, val); x != nil {
		return x, y, nil
	}
	if tabOK {
		if x = tab.dual(); x != nil && guarantees(rows, cols, m, x, val) {
			return x, y, nil
		}
	}
	return nil, y, nil
}

// lpSimplex calls lp.Simplex with the given initial basis, turning a panic
// (which lp.Simplex raises for an infeasible initial basis; feasibleBasis
// is meant to rule that out) into a nil result.
func lpSimplex(c []float64, a *mat.Dense, b []float64, basis []int) (x []float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			x, err = nil, nil
		}
	}()
	_, x, err = lp.Simplex(c, a, b, lpTol, basis)
	return x, err
}

// feasibleBasis reports whether the columns basis of a form a basis whose
// basic solution B⁻¹b is feasible by the test lp.Simplex applies to an
// initial basis.
func feasibleBasis(a *mat.Dense, b []float64, basis []int) bool {
	rows, _ := a.Dims()
	ab := mat.NewDense(rows, rows, nil)
	col := make([]float64, rows)
	for k, j := range basis {
		mat.Col(col, j, a)
		ab.SetCol(k, col)
	}
	var xb mat.VecDense
	if err := xb.SolveVec(ab, mat.NewVecDense(rows, b)); err != nil {
		return false
	}
	for i := 0; i < rows; i++ {
		if v := xb.AtVec(i); !(v >= -gonumInitTol/10) {
			return false
		}
	}
	return true
}

// dualStrategy recovers the row player's optimal strategy from the column
// LP's optimal solution ws = (w, s) of the rows×cols game M with value val:
// by complementary slackness it is supported on the tight rows I (s_i = 0)
// and makes every column of the support J of w exactly val, so on a
// non-degenerate basis (|I| = |J|) u solves M_{I,J}ᵀ u = 1 and x = u/Σu.
// It returns nil if the basis is degenerate or x does not guarantee val.
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
	if !guarantees(rows, cols, m, x, val) {
		return nil
	}
	return x
}

// guarantees reports whether the row strategy x obtains at least
// val − verifyTol against every column of the rows×cols game M.
func guarantees(rows, cols int, m, x []float64, val float64) bool {
	for j := 0; j < cols; j++ {
		var s float64
		for i := 0; i < rows; i++ {
			s += x[i] * m[i*cols+j]
		}
		if s < val-verifyTol {
			return false
		}
	}
	return true
}

// clean clamps negative entries of p (round-off) to zero and renormalises p
// to sum to one.
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

// saddlePoint returns a pure equilibrium (i, j) if the game has one: the
// row i whose worst payoff is largest (maximin) and the column j whose best
// payoff for the row player is smallest (minimax), when the two are equal
// (ties to the smallest index). The comparison is exact, since both are
// entries of A. The cost is O(rows·cols).
func (g *ZeroSum) saddlePoint() (i, j int, ok bool) {
	maximin := math.Inf(-1)
	for r := 0; r < g.rows; r++ {
		if _, v := argmin(g.a[r*g.cols : (r+1)*g.cols]); v > maximin {
			i, maximin = r, v
		}
	}
	minimax := math.Inf(1)
	for c := 0; c < g.cols; c++ {
		v := g.a[c]
		for r := 1; r < g.rows; r++ {
			v = max(v, g.a[r*g.cols+c])
		}
		if v < minimax {
			j, minimax = c, v
		}
	}
	return i, j, maximin == minimax
}

// resize returns dst with length n, reallocated if its capacity is
// smaller; its entries are not cleared.
func resize(dst []float64, n int) []float64 {
	if cap(dst) < n {
		return make([]float64, n)
	}
	return dst[:n]
}
