package game

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"gonum.org/v1/gonum/mat"
)

// Equilibrium is a Nash equilibrium of a bimatrix game: the strategies X
// (rows) and Y (columns) and the expected payoffs RowPayoff = XᵀAY and
// ColPayoff = XᵀBY.
type Equilibrium struct {
	X, Y                 []float64
	RowPayoff, ColPayoff float64
}

const (
	// MaxSupportActions is the largest number of actions on either side of
	// a game that [SupportEnumeration] accepts.
	MaxSupportActions = 15
	// MaxSupportPairs is the largest number of pairs of equal-size
	// supports, C(m+n, m) − 1 for an m×n game, that [SupportEnumeration]
	// accepts: about 10⁶, a few seconds of work.
	MaxSupportPairs = 1 << 20
)

// supportTol is the tolerance, relative to the largest absolute payoff,
// used by SupportEnumeration for non-negativity and best-response checks.
const supportTol = 1e-9

// SupportEnumeration returns the Nash equilibria of the bimatrix game g
// found by support enumeration (Nisan et al. 2007, Algorithmic Game Theory,
// §3.3; the algorithm of Nashpy's support_enumeration). For every pair of
// supports I (rows) and J (columns) of equal size k it solves the
// indifference equations
//
//	Σ_{j∈J} A_ij y_j = u for i ∈ I,  Σ_{j∈J} y_j = 1,
//	Σ_{i∈I} B_ij x_i = v for j ∈ J,  Σ_{i∈I} x_i = 1,
//
// with gonum's LU solver, and keeps the solution if x and y are
// non-negative and no action outside the supports is a better response
// (both to a tolerance of 1e-9 times the largest absolute payoff). Equal
// equilibria are reported once.
//
// The equilibria are ordered by the enumeration: by support size, then by
// row support, then by column support, each in lexicographic order, so pure
// equilibria come first and the order is deterministic. For example the
// game A = [[1,2],[3,0]], B = [[0,2],[3,1]] (Nashpy's README) gives
// ((1,0),(0,1)), ((0,1),(1,0)) and ((½,½),(½,½)).
//
// A non-degenerate game (one in which no mixed strategy with support of
// size k has more than k pure best responses) has finitely many equilibria,
// all with equal-size supports and non-singular equations, and
// SupportEnumeration finds all of them. A degenerate game may have
// equilibria with supports of unequal sizes or continua of equilibria
// (every zero-sum game with a duplicated row, for instance); SupportEnumeration
// lists those that some square, non-singular support system reaches, which
// need not be all of them. Every pure equilibrium is found (its 1×1 system
// is never singular). Use [Solve] for zero-sum games.
//
// There are C(m+n, m) − 1 support pairs in an m×n game and each costs
// O(k³ + m·n), so the running time is exponential in the size of the game.
// SupportEnumeration returns an error, naming the size, if either side has
// more than [MaxSupportActions] actions or there are more than
// [MaxSupportPairs] support pairs (a 12×12 game has 2.7 million), and if g is
// nil or a zero Bimatrix (not built by [NewBimatrix]).
func SupportEnumeration(g *Bimatrix) ([]Equilibrium, error) {
	if g == nil || g.rows == 0 || g.cols == 0 {
		return nil, fmt.Errorf("%w: SupportEnumeration of a nil or zero game (build one with NewBimatrix)", icrl.ErrEmpty)
	}
	m, n := g.rows, g.cols
	if m > MaxSupportActions || n > MaxSupportActions {
		return nil, fmt.Errorf("%w: support enumeration of a %d×%d game: more than %d actions on a side; the number of support pairs grows exponentially (C(m+n, m) − 1)", icrl.ErrTooLarge, m, n, MaxSupportActions)
	}
	if pairs := binomial(m+n, m) - 1; pairs > MaxSupportPairs {
		return nil, fmt.Errorf("%w: support enumeration of a %d×%d game would solve %v support pairs (C(%d, %d) − 1), more than the limit %d: the count grows exponentially with the game's size", icrl.ErrTooLarge, m, n, pairs, m+n, m, MaxSupportPairs)
	}
	var scale float64
	for k := range g.a {
		scale = max(scale, math.Abs(g.a[k]), math.Abs(g.b[k]))
	}
	tol := supportTol * max(scale, 1)
	const probTol = 1e-9

	var out []Equilibrium
	s := &supportSolver{}
	x := make([]float64, m)
	y := make([]float64, n)
	ay := make([]float64, m)
	xb := make([]float64, n)
	for k := 1; k <= min(m, n); k++ {
		forEachCombination(m, k, func(rowSup []int) {
			forEachCombination(n, k, func(colSup []int) {
				// y from the row player's indifference on I, then x from
				// the column player's indifference on J.
				u, ok := s.indifferent(g.a, n, rowSup, colSup, false, y)
				if !ok || !nonNegative(y, probTol) {
					return
				}
				v, ok := s.indifferent(g.b, n, rowSup, colSup, true, x)
				if !ok || !nonNegative(x, probTol) {
					return
				}
				g.RowGame().RowPayoffs(ay, y)
				g.ColGame().ColPayoffs(xb, x)
				if maxOf(ay) > u+tol || maxOf(xb) > v+tol {
					return
				}
				e := Equilibrium{X: append([]float64(nil), x...), Y: append([]float64(nil), y...)}
				clean(e.X)
				clean(e.Y)
				for _, f := range out {
					if approxEqual(f.X, e.X, 1e-8) && approxEqual(f.Y, e.Y, 1e-8) {
						return
					}
				}
				e.RowPayoff, e.ColPayoff = g.Payoffs(e.X, e.Y)
				out = append(out, e)
			})
		})
	}
	return out, nil
}

// supportSolver solves indifference systems, reusing its storage.
type supportSolver struct {
	lu  mat.LU
	sys *mat.Dense
	rhs *mat.VecDense
	sol mat.VecDense
	k   int
}

// indifferent solves, for the payoff matrix p (row-major, cols columns)
// restricted to rows I and columns J, the system that makes the opponent
// indifferent: if transpose is false it finds y on J with
// Σ_j p_ij y_j = val for i ∈ I and Σ y = 1 (the row player is indifferent),
// otherwise x on I with Σ_i p_ij x_i = val for j ∈ J and Σ x = 1. The
// strategy is written to dst (zero outside the support). It reports false if
// the system is singular or its solution is not finite.
func (s *supportSolver) indifferent(p []float64, cols int, rowSup, colSup []int, transpose bool, dst []float64) (val float64, ok bool) {
	k := len(rowSup)
	if s.k != k {
		s.k = k
		s.sys = mat.NewDense(k+1, k+1, nil)
		s.rhs = mat.NewVecDense(k+1, nil)
		s.sol = mat.VecDense{}
	}
	// Unknowns (z_1..z_k, val); equations: k indifference rows and Σz = 1.
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			var e float64
			if transpose {
				e = p[rowSup[b]*cols+colSup[a]]
			} else {
				e = p[rowSup[a]*cols+colSup[b]]
			}
			s.sys.Set(a, b, e)
		}
		s.sys.Set(a, k, -1)
		s.sys.Set(k, a, 1)
		s.rhs.SetVec(a, 0)
	}
	s.sys.Set(k, k, 0)
	s.rhs.SetVec(k, 1)
	s.lu.Factorize(s.sys)
	if s.lu.Det() == 0 {
		return 0, false
	}
	if err := s.lu.SolveVecTo(&s.sol, false, s.rhs); err != nil {
		return 0, false // singular or ill-conditioned
	}
	clear(dst)
	sup := colSup
	if transpose {
		sup = rowSup
	}
	for a, idx := range sup {
		z := s.sol.AtVec(a)
		if math.IsNaN(z) || math.IsInf(z, 0) {
			return 0, false
		}
		dst[idx] = z
	}
	val = s.sol.AtVec(k)
	return val, !math.IsNaN(val) && !math.IsInf(val, 0)
}

func nonNegative(p []float64, tol float64) bool {
	for _, v := range p {
		if v < -tol {
			return false
		}
	}
	return true
}

func approxEqual(a, b []float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// forEachCombination calls f with every k-subset of {0, …, n−1}, in
// lexicographic order. f must not retain or modify its argument.
func forEachCombination(n, k int, f func([]int)) {
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	for {
		f(idx)
		i := k - 1
		for i >= 0 && idx[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		idx[i]++
		for j := i + 1; j < k; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

// binomial returns C(n, k) as a float64 (exact for the sizes used here).
func binomial(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return math.Round(c)
}
