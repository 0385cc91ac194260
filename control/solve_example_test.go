package control_test

import (
	"context"
	"fmt"

	"github.com/icrl-go/icrl/control"
	"github.com/icrl-go/icrl/quantize"
	"github.com/icrl-go/icrl/tensor"
)

// Train a one-token-dimensional, two-layer block on two sequences by
// triply quantized dynamic programming (Algorithm 1): grid S_n with four
// points, ℓ = 2N, three candidate actions per layer.
func ExampleDepthFirst() {
	d := control.Dims{D: 1, Hidden: 1, QK: 1}
	mk := func(flat ...float64) *control.Action[float64] {
		u, err := control.NewAction(d, flat) // W, A, b, Q, K, V
		if err != nil {
			panic(err)
		}
		return u
	}
	grid, _ := quantize.NewBoxGrid([]float64{-1}, []float64{1}, []int{4})
	// K = 2 sequences of N = 2 tokens in R^1, and their labels.
	X, _ := tensor.FromData([]float64{0.9, -0.4, 0.1, 0.6}, 2, 2, 1)
	Y, _ := tensor.FromData([]float64{-0.8, 0.3, -0.2, -0.6}, 2, 2, 1)
	p, err := control.NewProblem(control.ProblemConfig[float64]{
		Block: control.Block[float64]{Dims: d, Beta: 0.5},
		T:     2,
		Data:  control.Dataset[float64]{X: X, Y: Y},
		Grid:  grid,
		Ell:   4,
		Actions: []*control.Action[float64]{
			mk(1, 1, 0, 0, 0, 0),  // x ↦ relu(x)
			mk(-1, 1, 0, 0, 0, 0), // x ↦ −relu(x)
			mk(0, 0, 0, 1, 1, -1), // x ↦ −softmax-mean
		},
	})
	if err != nil {
		panic(err)
	}
	sol, err := control.DepthFirst[float64]{}.Solve(context.Background(), p)
	if err != nil {
		panic(err)
	}
	fmt.Printf("quantised value %.4f with actions %v\n", sol.Value, sol.Actions)
	acts, v, _ := control.OpenLoop(sol.Policy, p, p.Init())
	fmt.Printf("forward pass: %v, %.4f\n", acts, v)
	perToken, _, _ := control.EvalContinuous(p.Block(), sol.Weights, p.Data())
	fmt.Printf("deployed continuous error %.4f\n", perToken)
	// Output:
	// quantised value 0.0625 with actions [0 1]
	// forward pass: [0 1], 0.0625
	// deployed continuous error 0.0275
}
