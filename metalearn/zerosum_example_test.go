package metalearn_test

import (
	"fmt"
	"log"

	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/metalearn"
	"github.com/icrl-go/icrl/tensor"
)

// ExampleZeroSumOOMD runs Algorithm 1 on the 2×2 matrix game
// r = [[0.9, 0.1], [0.2, 0.6]] (one step, one state; its equilibrium is
// μ* = (1/3, 2/3), ν* = (5/12, 7/12) with value 13/30) from the uniform
// initialisation with the step size η = 1/(8H²) = 0.125 of Theorem 1. The
// NE-gaps of the running average are the golden values G-ZS1
// (§4.4), and the Theorem 1 bound holds.
func ExampleZeroSumOOMD() {
	r, _ := tensor.FromData([]float64{0.9, 0.1, 0.2, 0.6}, 1, 1, 2, 2) // r_h(s, a, b)
	stay, _ := tensor.FromData([]float64{1, 1, 1, 1}, 1, 1, 4, 1)      // one state
	kernels, err := markov.DenseKernels(stay)
	if err != nil {
		log.Fatal(err)
	}
	g, err := markov.NewZeroSumEpisodic(2, 2, 0, 1, r, kernels) // start state 0
	if err != nil {
		log.Fatal(err)
	}
	const T = 10000
	init, err := metalearn.UniformZeroSumInit(g, T)
	if err != nil {
		log.Fatal(err)
	}
	res, err := metalearn.ZeroSumOOMD(g, init, metalearn.OOMDConfig{
		Eta:         0.125,
		T:           T,
		Checkpoints: []int{100, 1000, 10000},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range res.Checkpoints {
		fmt.Printf("t=%5d  NE-gap %.5f  value %.4f\n", c.T, c.Gap, c.Value)
	}
	fmt.Printf("stages %d, μ̄ = (%.3f, %.3f), ν̄ = (%.3f, %.3f)\n", len(res.Schedule),
		res.Mu.At(0, 0, 0), res.Mu.At(0, 0, 1), res.Nu.At(0, 0, 0), res.Nu.At(0, 0, 1))
	fmt.Printf("Theorem 1 bound %.4f\n", metalearn.Theorem1Bound(res, init, g.Horizon()))
	// Output:
	// t=  100  NE-gap 0.09120  value 0.4305
	// t= 1000  NE-gap 0.02391  value 0.4325
	// t=10000  NE-gap 0.00343  value 0.4333
	// stages 14, μ̄ = (0.336, 0.664), ν̄ = (0.412, 0.588)
	// Theorem 1 bound 0.3460
}
