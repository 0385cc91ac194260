package control_test

import (
	"fmt"

	"github.com/icrl-go/icrl/control"
	"github.com/icrl-go/icrl/tensor"
)

// One block of eq. (1) on hand-computed golden tokens and action (β = 0.5,
// ReLU, D = Hidden = QK = 2), and the paper's §6 target map, which one
// block with W = 0, Q = I, K = 0.6·I, V = I realises exactly.
func ExampleBlock_Layer() {
	d := control.Dims{D: 2, Hidden: 2, QK: 2}
	u, err := control.NewAction(d, []float64{
		1, -0.5, 0.25, 0.75, // W (D×Hidden)
		0.5, 1, -1, 0.5, // A (Hidden×D)
		0.1, -0.2, // b
		1, 0, 0.5, -1, // Q (QK×D)
		0, 1, 1, 0.5, // K (QK×D)
		0.5, 0.5, -0.5, 1, // V (D×D)
	})
	if err != nil {
		panic(err)
	}
	b := control.Block[float64]{Dims: d, Beta: 0.5, Sigma: control.ReLU[float64]{}}
	xs := [][]float64{{0.5, -0.25}, {-1, 0.75}, {0.2, 0.9}}
	ys := [][]float64{make([]float64, 2), make([]float64, 2), make([]float64, 2)}
	b.Layer(ys, xs, u, b.NewScratch(len(xs)))
	for _, y := range ys {
		fmt.Printf("(%.6f, %.6f)\n", y[0], y[1])
	}

	// One sequence (K = 1) of the three tokens, and its §6 target.
	x, _ := tensor.FromRows(xs)
	y, _ := tensor.FromRows(control.SelfAttentionTarget(xs, 0.3))
	X, _ := tensor.Stack(x)
	Y, _ := tensor.Stack(y)
	perToken, _, err := control.EvalContinuous(b, []control.Action[float64]{*u}, control.Dataset[float64]{X: X, Y: Y})
	if err != nil {
		panic(err)
	}
	fmt.Printf("MSE to the §6 target: %.6f\n", perToken)
	// Output:
	// (0.329110, 0.577039)
	// (-0.143917, 1.465687)
	// (1.204092, 0.959759)
	// MSE to the §6 target: 0.971583
}
