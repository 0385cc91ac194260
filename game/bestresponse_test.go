package game

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBestResponsesBruteForce checks both best responses against a brute
// force over the pure strategies on random games and strategies: the row
// player's is the first row of the largest payoff against y, the column
// player's the first column of the smallest payoff against x (the column
// player minimises the row player's payoff).
func TestBestResponsesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for trial := range 200 {
		m, n := 1+rng.IntN(5), 1+rng.IntN(5)
		g, err := RandomUniform(m, n, rng)
		if err != nil {
			t.Fatal(err)
		}
		x, y := randomSimplex(m, rng), randomSimplex(n, rng)
		wantI, wantRow := 0, math.Inf(-1)
		for i := range m {
			var v float64
			for j := range n {
				v += g.At(i, j) * y[j]
			}
			if v > wantRow {
				wantI, wantRow = i, v
			}
		}
		wantJ, wantCol := 0, math.Inf(1)
		for j := range n {
			var v float64
			for i := range m {
				v += x[i] * g.At(i, j)
			}
			if v < wantCol {
				wantJ, wantCol = j, v
			}
		}
		i, rowV, err := g.BestResponseRow(y)
		if err != nil || i != wantI || math.Abs(rowV-wantRow) > 1e-12 {
			t.Fatalf("trial %d: BestResponseRow = %d, %v, %v; want %d, %v", trial, i, rowV, err, wantI, wantRow)
		}
		j, colV, err := g.BestResponseCol(x)
		if err != nil || j != wantJ || math.Abs(colV-wantCol) > 1e-12 {
			t.Fatalf("trial %d: BestResponseCol = %d, %v, %v; want %d, %v", trial, j, colV, err, wantJ, wantCol)
		}
		// The duality gap is the difference of the two best-response values.
		gap, err := g.DualityGap(x, y)
		if err != nil || math.Abs(gap-max(wantRow-wantCol, 0)) > 1e-12 {
			t.Fatalf("trial %d: DualityGap = %v, %v; want %v", trial, gap, err, wantRow-wantCol)
		}
	}
}

// TestCertification pins the rule by which Solve accepts a pair that its
// fast routes could not make exact: a duality gap of at most 1e-9 in units
// of the scaled game (whose payoffs span [1, 2]), the guarantee its doc
// states; no game of the test corpus reaches that route, so the rule is
// tested directly.
func TestCertification(t *testing.T) {
	for _, c := range []struct {
		gap  float64
		want bool
	}{{0, true}, {1e-15, true}, {1e-9, true}, {1.01e-9, false}, {1e-6, false}, {1e-3, false}, {math.NaN(), false}, {math.Inf(1), false}} {
		if got := certified(c.gap); got != c.want {
			t.Errorf("certified(%g) = %v, want %v", c.gap, got, c.want)
		}
	}
}
