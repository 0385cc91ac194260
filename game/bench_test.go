package game

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSolve solves random games with uniform [0,1] payoffs drawn from a
// fixed seed. The target of DESIGN.md is a 100×100 game in milliseconds.
func BenchmarkSolve(b *testing.B) {
	for _, n := range []int{10, 100, 300} {
		b.Run(fmt.Sprintf("%dx%d", n, n), func(b *testing.B) {
			g, _ := RandomUniform(n, n, rand.New(rand.NewPCG(uint64(n), 1)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Solve(g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSupportEnumeration enumerates the 251 support pairs of a random
// 5×5 bimatrix game.
func BenchmarkSupportEnumeration(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	a, c := make([][]float64, 5), make([][]float64, 5)
	for i := range a {
		a[i], c[i] = make([]float64, 5), make([]float64, 5)
		for j := range a[i] {
			a[i][j], c[i][j] = rng.Float64(), rng.Float64()
		}
	}
	g := MustBimatrix(a, c)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SupportEnumeration(g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSolver solves a random 3×3 game with a reused Solver, as a
// posterior sampler does, against Solve.
func BenchmarkSolver(b *testing.B) {
	g, _ := RandomUniform(3, 3, rand.New(rand.NewPCG(3, 1)))
	b.Run("Solve", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Solve(g); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Solver", func(b *testing.B) {
		var s Solver
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Solve(g); err != nil {
				b.Fatal(err)
			}
		}
	})
}
