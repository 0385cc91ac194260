package markov_test

import (
	"fmt"

	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// Two robots each move on their own line of 3 cells: "stay" keeps a
// robot in place, "right" moves it one cell right with probability 0.8
// (the last cell keeps it). The joint transitions are the product of the
// robots' local laws, so they are given as a ProductKernel (a few numbers)
// instead of a 9 × 4 × 9 table. The team is rewarded when both robots
// are in the last cell. With both moving right, a robot is there after t
// steps with probability 1 − 0.2^t − 0.8·t·0.2^(t−1), and the expected
// reward over steps 0..5 is Σ_t of its square, 3.1454.
func ExampleNewProductKernel() {
	// A robot's local law L(p'|p, a), actions × cells × cells.
	local, _ := tensor.FromData([]float64{
		1, 0, 0, 0, 1, 0, 0, 0, 1, // stay
		0.2, 0.8, 0, 0, 0.2, 0.8, 0, 0, 1, // right
	}, 2, 3, 3)
	k, err := markov.NewProductKernel([]*tensor.Dense[float64]{local, local})
	if err != nil {
		fmt.Println(err)
		return
	}
	S, J := k.Shape()
	reward, _ := tensor.New[float64](1, S, J) // one layer, used at every step
	for j := range J {
		reward.Set(1, 0, S-1, j) // both robots in cell 2
	}
	g, err := markov.NewEpisodic([]int{2, 2}, 0, 6, reward, []markov.Kernel{k})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Robot 1's best response when robot 0 always moves right.
	right := markov.UniformPolicy(6, S, 2)
	for h := range right.Dim(0) {
		for s := range right.Dim(1) {
			right.Set(0, h, s, 0)
			right.Set(1, h, s, 1)
		}
	}
	_, v, err := g.BestResponse(markov.Product{right, nil}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d states, %d joint actions; expected reward over 6 steps: %.4f\n", S, J, v)
	// Output:
	// 9 states, 4 joint actions; expected reward over 6 steps: 3.1454
}
