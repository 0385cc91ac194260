package game_test

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl/game"
)

// Solve a 2×2 game without a saddle point. By hand: the row player
// equalises the columns, 0.2 + 0.7p = 0.6 − 0.5p, so p = 1/3; the column
// player equalises the rows, 0.1 + 0.8q = 0.6 − 0.4q, so q = 5/12; the value
// is 13/30.
func ExampleSolve() {
	g := game.MustZeroSum([][]float64{{0.9, 0.1}, {0.2, 0.6}})
	s, err := game.Solve(g)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x = %.4f\ny = %.4f\nvalue = %.4f (13/30 = %.4f)\n", s.X, s.Y, s.Value, 13.0/30)

	// Biased rock-paper-scissors (Bošanský et al. 2016).
	// Its value is 0; the solver's is within 1e-12 of it, of either sign.
	s, err = game.Solve(game.BiasedRPS())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("biased RPS: x = %.4f, |value| < 1e-12: %v\n", s.X, math.Abs(s.Value) < 1e-12)
	// Output:
	// x = [0.3333 0.6667]
	// y = [0.4167 0.5833]
	// value = 0.4333 (13/30 = 0.4333)
	// biased RPS: x = [0.0625 0.6250 0.3125], |value| < 1e-12: true
}

// The duality gap on G1 = [[1, 0], [0, 0.5]]: 0.25 at the
// uniform pair and 0 at the equilibrium (1/3, 2/3).
func ExampleZeroSum_DualityGap() {
	g := game.MustZeroSum([][]float64{{1, 0}, {0, 0.5}})
	uniform := []float64{0.5, 0.5}
	gap, _ := g.DualityGap(uniform, uniform)
	fmt.Printf("Gap(uniform) = %.4f\n", gap)
	ne := []float64{1.0 / 3, 2.0 / 3}
	gap, _ = g.DualityGap(ne, ne)
	fmt.Printf("Gap(NE) = %.4f\n", gap)
	row, col, _ := g.Improvements(uniform, uniform)
	fmt.Printf("improvements: row %.4f + col %.4f\n", row, col)
	_, err := g.DualityGap([]float64{0.7, 0.7}, uniform)
	fmt.Println(err)
	// Output:
	// Gap(uniform) = 0.2500
	// Gap(NE) = 0.0000
	// improvements: row 0.1250 + col 0.1250
	// icrl: invalid argument: row strategy sums to 1.4, not 1: not on the simplex
}

// List the equilibria of the bimatrix game of Nashpy's README.
func ExampleSupportEnumeration() {
	g := game.MustBimatrix(
		[][]float64{{1, 2}, {3, 0}},
		[][]float64{{0, 2}, {3, 1}},
	)
	eqs, err := game.SupportEnumeration(g)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range eqs {
		fmt.Printf("x = %.2f, y = %.2f, payoffs (%.2f, %.2f)\n", e.X, e.Y, e.RowPayoff, e.ColPayoff)
	}
	// Output:
	// x = [1.00 0.00], y = [0.00 1.00], payoffs (2.00, 2.00)
	// x = [0.00 1.00], y = [1.00 0.00], payoffs (3.00, 3.00)
	// x = [0.50 0.50], y = [0.50 0.50], payoffs (1.50, 1.50)
}

// A Solver solves many small games, as a posterior sampler does, reusing
// its scratch memory: here the games [[0.9, 0.1], [0.2, 0.6 + d]] for
// three shifts d. By hand the row player's first probability equalises
// the columns: 0.2 + 0.7p = 0.6 + d − (0.5 + d)p, so p = (0.4 + d)/(1.2 + d).
func ExampleSolver() {
	var s game.Solver
	for _, d := range []float64{0, 0.1, 0.2} {
		sol, err := s.SolveDense(2, 2, []float64{0.9, 0.1, 0.2, 0.6 + d})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("d = %.1f: x = (%.4f, %.4f), by hand %.4f\n", d, sol.X[0], sol.X[1], (0.4+d)/(1.2+d))
	}
	// Output:
	// d = 0.0: x = (0.3333, 0.6667), by hand 0.3333
	// d = 0.1: x = (0.3846, 0.6154), by hand 0.3846
	// d = 0.2: x = (0.4286, 0.5714), by hand 0.4286
}
