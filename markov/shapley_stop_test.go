package markov

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestShapleyStoppingRule checks the documented stopping rule and its
// guarantees on random games: the last sweep's change is at most
// δ = tol·(1−γ)/(2γ), the sweep before it changed V by more (it stops at
// the first sweep that meets the rule), V is within tol/2 of V* (from a run
// a thousand times tighter) and the equilibrium's gap is at most tol.
func TestShapleyStoppingRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 12 {
		gamma := []float64{0.5, 0.8, 0.9, 0.95}[trial%4]
		g, err := RandomDiscounted(2+trial%3, 3, 2, gamma, rng)
		if err != nil {
			t.Fatal(err)
		}
		tol := []float64{1e-2, 1e-4, 1e-6}[trial%3]
		delta := tol * (1 - gamma) / (2 * gamma)
		res, err := ShapleyValueIteration(g, tol, 100000)
		if err != nil {
			t.Fatal(err)
		}
		if res.Residual > delta {
			t.Errorf("trial %d (γ = %v, tol = %v): stopped at residual %v > δ = %v", trial, gamma, tol, res.Residual, delta)
		}
		if res.Iterations > 1 {
			prev, err := ShapleyValueIteration(g, tol, res.Iterations-1)
			if err == nil || !(prev.Residual > delta) {
				t.Errorf("trial %d: sweep %d already had residual %v ≤ δ = %v (err %v)", trial, res.Iterations-1, prev.Residual, delta, err)
			}
		}
		exact, err := ShapleyValueIteration(g, tol/1000, 100000)
		if err != nil {
			t.Fatal(err)
		}
		for s := range res.V {
			if d := math.Abs(res.V[s] - exact.V[s]); d > tol/2+tol/1000 {
				t.Errorf("trial %d: |V − V*| = %v in state %d, more than tol/2 = %v", trial, d, s, tol/2)
			}
		}
		_, gap, err := g.Gaps(res.X, res.Y)
		if err != nil || gap > tol {
			t.Errorf("trial %d: gap %v (%v), more than tol = %v", trial, gap, err, tol)
		}
	}
}
