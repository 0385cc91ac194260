package game

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/icrl-go/icrl"
)

// solverGames returns the test games of TestSolverSameAsSolve: every shape
// from 1×1 to 7×7, degenerate and pure ones included, and games whose
// tableau needs the other routes.
func solverGames() [][]float64 {
	rng := rand.New(rand.NewPCG(7, 8))
	var games [][]float64
	for n := range 3000 {
		rows, cols := 1+rng.IntN(7), 1+rng.IntN(7)
		a := make([]float64, rows*cols)
		for k := range a {
			switch n % 4 {
			case 0:
				a[k] = rng.Float64()
			case 1:
				a[k] = float64(rng.IntN(3)) // ties, dominated and duplicated actions
			case 2:
				a[k] = rng.Float64() * math.Pow(10, float64(rng.IntN(13)-6))
			default:
				a[k] = math.Round(rng.NormFloat64() * 4)
			}
		}
		if n%97 == 5 {
			a[rng.IntN(len(a))] = 7e11 // the outlier that needs the median-scaled routes
		}
		games = append(games, append([]float64{float64(rows), float64(cols)}, a...))
	}
	return games
}

// solverDigest is the FNV-1a hash of the bits of Solve's solutions of
// solverGames, as the allocating Solve computed them before the Solver
// existed: the Solver must not change a bit.
const solverDigest = 0xf66395a1c3096b2d

// TestSolverSameAsSolve: one Solver reused across the games of
// solverGames returns Solve's solution bit for bit, through Solve and
// SolveDense, and those solutions are the ones Solve returned before it
// was built on the Solver (solverDigest) and are equilibria.
func TestSolverSameAsSolve(t *testing.T) {
	t.Parallel()
	var s Solver
	same := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(u, v float64) bool { return math.Float64bits(u) == math.Float64bits(v) })
	}
	h := fnv.New64a()
	for n, ga := range solverGames() {
		rows, cols, a := int(ga[0]), int(ga[1]), ga[2:]
		g, err := NewZeroSumDense(rows, cols, a)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Solve(g)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := g.Bounds()
		checkSolution(t, fmt.Sprint("game ", n), g, want, 1e-9*max(1, hi-lo)) // Solve's guarantee: 1e-9 of the payoff range
		for _, v := range append(append(slices.Clone(want.X), want.Y...), want.Value) {
			fmt.Fprint(h, math.Float64bits(v), " ")
		}
		for _, via := range []string{"Solve", "SolveDense"} {
			var got Solution
			if via == "Solve" {
				got, err = s.Solve(g)
			} else {
				got, err = s.SolveDense(rows, cols, a)
			}
			if err != nil {
				t.Fatalf("game %d via %s: %v", n, via, err)
			}
			if !same(got.X, want.X) || !same(got.Y, want.Y) || math.Float64bits(got.Value) != math.Float64bits(want.Value) {
				t.Fatalf("game %d (%d×%d) via %s: %+v, Solve %+v", n, rows, cols, via, got, want)
			}
		}
	}
	if got := h.Sum64(); got != solverDigest {
		t.Errorf("digest of the solutions %#x, want %#x", got, uint64(solverDigest))
	}
}

// TestSolverReturnsOwnedStrategies: the strategies a Solver returns are
// not its scratch: a later call leaves them unchanged.
func TestSolverReturnsOwnedStrategies(t *testing.T) {
	var s Solver
	first, err := s.SolveDense(2, 2, []float64{3, -1, -2, 1}) // mixed: x = (3/7, 4/7)
	if err != nil {
		t.Fatal(err)
	}
	x := slices.Clone(first.X)
	if _, err := s.SolveDense(2, 2, []float64{-1, 3, 1, -2}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(first.X, x) || math.Abs(x[0]-3.0/7) > 1e-12 {
		t.Errorf("first solution changed to %v (was %v)", first.X, x)
	}
}

// TestSolveDenseBadInput: SolveDense checks its input as NewZeroSumDense.
func TestSolveDenseBadInput(t *testing.T) {
	var s Solver
	for _, c := range []struct {
		rows, cols int
		a          []float64
		want       error
	}{
		{0, 2, nil, icrl.ErrEmpty},
		{2, 2, []float64{1, 2, 3}, icrl.ErrShape},
		{1, 2, []float64{1, math.NaN()}, icrl.ErrNotFinite},
		{1, 1, []float64{math.Inf(1)}, icrl.ErrNotFinite},
	} {
		if _, err := s.SolveDense(c.rows, c.cols, c.a); !errors.Is(err, c.want) {
			t.Errorf("SolveDense(%d, %d, %v): %v, want %v", c.rows, c.cols, c.a, err, c.want)
		}
	}
	if _, err := s.Solve(nil); !errors.Is(err, icrl.ErrEmpty) {
		t.Errorf("Solve(nil): %v", err)
	}
}
