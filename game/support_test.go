package game

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game/simplex"
)

func TestSupportEnumerationFixtures(t *testing.T) {
	t.Parallel()
	third := []float64{1. / 3, 1. / 3, 1. / 3}
	for _, tc := range []struct {
		name string
		g    *Bimatrix
		want []Equilibrium
	}{
		// Nashpy README: exactly three equilibria, in this order.
		{"nashpy", MustBimatrix([][]float64{{1, 2}, {3, 0}}, [][]float64{{0, 2}, {3, 1}}), []Equilibrium{
			{X: []float64{1, 0}, Y: []float64{0, 1}, RowPayoff: 2, ColPayoff: 2},
			{X: []float64{0, 1}, Y: []float64{1, 0}, RowPayoff: 3, ColPayoff: 3},
			{X: []float64{.5, .5}, Y: []float64{.5, .5}, RowPayoff: 1.5, ColPayoff: 1.5},
		}},
		// Shapley (1964): the unique equilibrium is uniform, payoffs 1/3.
		{"shapley", Shapley(), []Equilibrium{{X: third, Y: third, RowPayoff: 1. / 3, ColPayoff: 1. / 3}}},
		// Matching pennies: unique uniform equilibrium, value 0.
		{"pennies", MatchingPennies().Bimatrix(), []Equilibrium{{X: []float64{.5, .5}, Y: []float64{.5, .5}}}},
		// Prisoner's dilemma (payoffs 3,0,5,1): unique equilibrium (defect,
		// defect).
		{"prisoners", MustBimatrix([][]float64{{3, 0}, {5, 1}}, [][]float64{{3, 5}, {0, 1}}), []Equilibrium{
			{X: []float64{0, 1}, Y: []float64{0, 1}, RowPayoff: 1, ColPayoff: 1},
		}},
		// Battle of the sexes: two pure equilibria and a mixed one,
		// x = (2/3, 1/3), y = (1/3, 2/3), payoffs 2/3 each.
		{"bos", MustBimatrix([][]float64{{2, 0}, {0, 1}}, [][]float64{{1, 0}, {0, 2}}), []Equilibrium{
			{X: []float64{1, 0}, Y: []float64{1, 0}, RowPayoff: 2, ColPayoff: 1},
			{X: []float64{0, 1}, Y: []float64{0, 1}, RowPayoff: 1, ColPayoff: 2},
			{X: []float64{2. / 3, 1. / 3}, Y: []float64{1. / 3, 2. / 3}, RowPayoff: 2. / 3, ColPayoff: 2. / 3},
		}},
		{"1x1", MustBimatrix([][]float64{{4}}, [][]float64{{-1}}), []Equilibrium{{X: []float64{1}, Y: []float64{1}, RowPayoff: 4, ColPayoff: -1}}},
	} {
		got, err := SupportEnumeration(tc.g)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d equilibria %v, want %d", tc.name, len(got), got, len(tc.want))
		}
		for k, w := range tc.want {
			e := got[k]
			if !approxSlice(e.X, w.X, 1e-12) || !approxSlice(e.Y, w.Y, 1e-12) ||
				math.Abs(e.RowPayoff-w.RowPayoff) > 1e-12 || math.Abs(e.ColPayoff-w.ColPayoff) > 1e-12 {
				t.Errorf("%s: equilibrium %d = %+v, want %+v", tc.name, k, e, w)
			}
			nc, err := tc.g.NashConv(e.X, e.Y)
			if err != nil || nc > 1e-12 {
				t.Errorf("%s: NashConv at equilibrium %d = %v (%v)", tc.name, k, nc, err)
			}
		}
	}
}

// TestSupportEnumerationZeroSum checks, on random zero-sum games converted
// with ZeroSum.Bimatrix, that every equilibrium found has the LP value, that
// NashConv is zero there, and that it is positive at some non-equilibrium
// pair.
func TestSupportEnumerationZeroSum(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for n := range 200 {
		g, _ := RandomUniform(1+rng.IntN(5), 1+rng.IntN(5), rng)
		s, err := Solve(g)
		if err != nil {
			t.Fatal(err)
		}
		bg := g.Bimatrix()
		eqs, err := SupportEnumeration(bg)
		if err != nil {
			t.Fatal(err)
		}
		// A random zero-sum game is non-degenerate with probability one, so
		// its equilibrium is unique.
		if len(eqs) != 1 {
			t.Fatalf("game %d %v: %d equilibria, want 1", n, g.Payoffs(), len(eqs))
		}
		for _, e := range eqs {
			if math.Abs(e.RowPayoff-s.Value) > 1e-9 || math.Abs(e.ColPayoff+s.Value) > 1e-9 {
				t.Errorf("game %d: payoffs (%v, %v), LP value %v", n, e.RowPayoff, e.ColPayoff, s.Value)
			}
			if !approxSlice(e.X, s.X, 1e-8) || !approxSlice(e.Y, s.Y, 1e-8) {
				t.Errorf("game %d: support enumeration %v, %v; LP %v, %v", n, e.X, e.Y, s.X, s.Y)
			}
			if nc, _ := bg.NashConv(e.X, e.Y); nc > 1e-9 {
				t.Errorf("game %d: NashConv %v at an equilibrium", n, nc)
			}
		}
		rows, cols := g.Dims()
		if rows > 1 || cols > 1 {
			// The payoffs are distinct, so some pure pair is not an
			// equilibrium: NashConv is positive there.
			var worst float64
			for i := range rows {
				for j := range cols {
					x, y := make([]float64, rows), make([]float64, cols)
					x[i], y[j] = 1, 1
					nc, err := bg.NashConv(x, y)
					if err != nil || nc < 0 {
						t.Fatalf("NashConv %v, %v", nc, err)
					}
					worst = max(worst, nc)
				}
			}
			if worst <= 0 {
				t.Errorf("game %d %v: NashConv is 0 at every pure pair", n, g.Payoffs())
			}
		}
	}
}

// TestSupportEnumerationDegenerate checks that on degenerate games every
// reported pair is an equilibrium and there are no duplicates.
func TestSupportEnumerationDegenerate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 14))
	for n := range 300 {
		rows, cols := 1+rng.IntN(4), 1+rng.IntN(4)
		a, b := make([][]float64, rows), make([][]float64, rows)
		for i := range a {
			a[i], b[i] = make([]float64, cols), make([]float64, cols)
			for j := range a[i] {
				a[i][j], b[i][j] = float64(rng.IntN(3)), float64(rng.IntN(3))
			}
		}
		g := MustBimatrix(a, b)
		eqs, err := SupportEnumeration(g)
		if err != nil {
			t.Fatal(err)
		}
		if len(eqs) == 0 {
			// Not guaranteed for degenerate games in general, but it holds
			// for every game of this seeded sample; a regression would show
			// here.
			t.Errorf("game %d A=%v B=%v: no equilibrium found", n, a, b)
		}
		for k, e := range eqs {
			if err := simplex.CheckDistribution("X", e.X, rows); err != nil {
				t.Fatal(err)
			}
			if err := simplex.CheckDistribution("Y", e.Y, cols); err != nil {
				t.Fatal(err)
			}
			if nc, _ := g.NashConv(e.X, e.Y); nc > 1e-9 {
				t.Errorf("game %d: NashConv %v at reported equilibrium %d", n, nc, k)
			}
			for _, f := range eqs[:k] {
				if approxSlice(e.X, f.X, 1e-8) && approxSlice(e.Y, f.Y, 1e-8) {
					t.Errorf("game %d: duplicate equilibrium %v", n, e)
				}
			}
		}
	}
}

func TestSupportEnumerationTooLarge(t *testing.T) {
	t.Parallel()
	big := func(m, n int) *Bimatrix {
		a := make([][]float64, m)
		for i := range a {
			a[i] = make([]float64, n)
		}
		return MustBimatrix(a, a)
	}
	for _, tc := range []struct {
		m, n int
		want string
	}{
		{16, 2, "more than 15 actions"},
		{2, 16, "more than 15 actions"},
		{12, 12, "support pairs"},
	} {
		_, err := SupportEnumeration(big(tc.m, tc.n))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "exponential") {
			t.Errorf("%d×%d: error %v, want one mentioning %q and exponential growth", tc.m, tc.n, err, tc.want)
		}
	}
	if _, err := SupportEnumeration(nil); err == nil {
		t.Error("nil game: no error")
	}
	// 15×1 is allowed: 15 support pairs.
	eqs, err := SupportEnumeration(big(15, 1))
	if err != nil || len(eqs) == 0 {
		t.Errorf("15×1: %v, %v", eqs, err)
	}
}
