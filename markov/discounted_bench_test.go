package markov

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/game"
)

// BenchmarkShapleyValueIteration solves a random game (rewards U[0,1],
// Dirichlet(1) transitions, fixed seed) with γ = 0.9 to tol 1e-8 and
// reports the number of sweeps.
func BenchmarkShapleyValueIteration(b *testing.B) {
	for _, c := range []struct{ s, a int }{{2, 3}, {10, 10}, {100, 10}} {
		b.Run(fmt.Sprintf("S=%d/A=B=%d", c.s, c.a), func(b *testing.B) {
			g := mustRandom(b, c.s, c.a, c.a, 0.9, 1)
			var sol ShapleyResult
			var err error
			b.ReportAllocs()
			for b.Loop() {
				if sol, err = ShapleyValueIteration(g, 1e-8, 10000); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(sol.Iterations), "sweeps")
		})
	}
}

// BenchmarkEvaluate evaluates a pair of random mixed policies.
func BenchmarkEvaluate(b *testing.B) {
	for _, s := range []int{10, 100} {
		b.Run(fmt.Sprintf("S=%d/A=B=10", s), func(b *testing.B) {
			g := mustRandom(b, s, 10, 10, 0.9, 2)
			rng := rand.New(rand.NewPCG(2, 2))
			x, y := randomPolicy(s, 10, rng), randomPolicy(s, 10, rng)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Evaluate(x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBestResponse computes the row player's best response to a random
// mixed column policy.
func BenchmarkBestResponse(b *testing.B) {
	for _, s := range []int{10, 100} {
		b.Run(fmt.Sprintf("S=%d/A=B=10", s), func(b *testing.B) {
			g := mustRandom(b, s, 10, 10, 0.9, 3)
			y := randomPolicy(s, 10, rand.New(rand.NewPCG(3, 3)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := g.BestResponse(y, game.RowPlayer); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMaxHittingTime computes L for a random game.
func BenchmarkMaxHittingTime(b *testing.B) {
	for _, s := range []int{10, 50} {
		b.Run(fmt.Sprintf("S=%d/A=B=3", s), func(b *testing.B) {
			g := mustRandom(b, s, 3, 3, 0.9, 4)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := MaxHittingTime(g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
