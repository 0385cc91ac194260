package game

import (
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
)

// Bimatrix is a two-player general-sum normal-form game: when the row player
// plays i and the column player j, the row player receives A[i][j] and the
// column player B[i][j]; both maximise. A zero-sum game is the special case
// B = −A (see [ZeroSum.Bimatrix]).
//
// A Bimatrix is immutable after construction and safe for concurrent use.
type Bimatrix struct {
	rows, cols int
	a, b       []float64 // row-major
}

// NewBimatrix returns the bimatrix game with row payoffs a and column payoffs
// b. The matrices are copied. It returns an error if either is empty, ragged
// or has a non-finite entry, or if their shapes differ.
func NewBimatrix(a, b [][]float64) (*Bimatrix, error) {
	ra, ca, fa, err := flatten("row payoff", a)
	if err != nil {
		return nil, err
	}
	rb, cb, fb, err := flatten("column payoff", b)
	if err != nil {
		return nil, err
	}
	if ra != rb || ca != cb {
		return nil, fmt.Errorf("%w: row payoffs are %d×%d but column payoffs are %d×%d", icrl.ErrShape, ra, ca, rb, cb)
	}
	return &Bimatrix{rows: ra, cols: ca, a: fa, b: fb}, nil
}

// MustBimatrix is like [NewBimatrix] but panics on error. It is meant for
// literal games in tests and examples.
func MustBimatrix(a, b [][]float64) *Bimatrix {
	g, err := NewBimatrix(a, b)
	if err != nil {
		panic(err)
	}
	return g
}

// Bimatrix returns the zero-sum game as a bimatrix game with B = −A.
func (g *ZeroSum) Bimatrix() *Bimatrix {
	b := make([]float64, len(g.a))
	for k, v := range g.a {
		b[k] = -v
	}
	return &Bimatrix{rows: g.rows, cols: g.cols, a: append([]float64(nil), g.a...), b: b}
}

// Dims returns the number of rows and columns.
func (g *Bimatrix) Dims() (rows, cols int) { return g.rows, g.cols }

// At returns the payoffs (A[i][j], B[i][j]). It panics if i or j is out of
// range.
func (g *Bimatrix) At(i, j int) (row, col float64) {
	if uint(i) >= uint(g.rows) || uint(j) >= uint(g.cols) {
		panic(fmt.Sprintf("game: index (%d, %d) out of range for %d×%d game", i, j, g.rows, g.cols))
	}
	k := i*g.cols + j
	return g.a[k], g.b[k]
}

// RowGame returns the row player's payoffs A as a [ZeroSum] game (the
// zero-sum game in which the column player minimises A), which shares g's
// storage. It is useful for computing Ay and xᵀA.
func (g *Bimatrix) RowGame() *ZeroSum {
	return &ZeroSum{rows: g.rows, cols: g.cols, a: g.a}
}

// ColGame returns the column player's payoffs B as a [ZeroSum] game with the
// same orientation (rows are still the row player's actions), sharing g's
// storage. It is useful for computing By and xᵀB.
func (g *Bimatrix) ColGame() *ZeroSum {
	return &ZeroSum{rows: g.rows, cols: g.cols, a: g.b}
}

// Payoffs returns the expected payoffs (xᵀAy, xᵀBy). It panics if the
// lengths do not match the game.
func (g *Bimatrix) Payoffs(x, y []float64) (row, col float64) {
	return g.RowGame().Payoff(x, y), g.ColGame().Payoff(x, y)
}

// BestResponseRow returns a pure best response of the row player to y (the
// smallest index among ties) and its payoff max_i (Ay)_i. It returns an error
// if y is not a probability vector over the columns.
func (g *Bimatrix) BestResponseRow(y []float64) (i int, payoff float64, err error) {
	if err := simplex.CheckDistribution("column strategy", y, g.cols); err != nil {
		return 0, 0, err
	}
	i, payoff = argmax(g.RowGame().RowPayoffs(nil, y))
	return i, payoff, nil
}

// BestResponseCol returns a pure best response of the column player to x
// (the smallest index among ties) and its payoff max_j (xᵀB)_j. It returns an
// error if x is not a probability vector over the rows.
func (g *Bimatrix) BestResponseCol(x []float64) (j int, payoff float64, err error) {
	if err := simplex.CheckDistribution("row strategy", x, g.rows); err != nil {
		return 0, 0, err
	}
	j, payoff = argmax(g.ColGame().ColPayoffs(nil, x))
	return j, payoff, nil
}

// Improvements returns each player's gain from a unilateral switch to a best
// response: row = max_i (Ay)_i − xᵀAy and col = max_j (xᵀB)_j − xᵀBy. Both are
// non-negative. It returns an error if x or y is not a probability vector of
// the right length.
func (g *Bimatrix) Improvements(x, y []float64) (row, col float64, err error) {
	_, br, err := g.BestResponseRow(y)
	if err != nil {
		return 0, 0, err
	}
	_, bc, err := g.BestResponseCol(x)
	if err != nil {
		return 0, 0, err
	}
	vr, vc := g.Payoffs(x, y)
	return max(br-vr, 0), max(bc-vc, 0), nil
}

// NashConv returns the sum of the players' best-response improvements
// (OpenSpiel's nash_conv): zero exactly at a Nash equilibrium. For a
// zero-sum game it equals the duality gap. It returns an error if x or y is
// not a probability vector of the right length.
func (g *Bimatrix) NashConv(x, y []float64) (float64, error) {
	r, c, err := g.Improvements(x, y)
	return r + c, err
}
