package learner_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// Two Markov OMD learners (Algorithm 1 of in-context-games-omd §4.3, with
// the default per-visit schedule and normalised loss) play the two-state
// two-state test game with exact rewards: γ = 0.9, rewards
// [[1,0],[0,1]] in state 0 and [[1,0],[0,0.5]] in state 1, every transition
// ½/½, equilibrium values V* = (4.25, 4.08). Uniform policies have Markov gap
// 1.375; the last iterate improves only slowly, if at all,
// and the paper's own schedule would keep it at 1.375.
func ExampleSelfPlay_markov() {
	// Rewards r(s, a, b), S × A × B, and transitions P(s'|s, a, b),
	// S × A·B × S, stored flat in row-major order.
	r, _ := tensor.FromData([]float64{1, 0, 0, 1, 1, 0, 0, 0.5}, 2, 2, 2)
	p, _ := tensor.FromData([]float64{.5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5}, 2, 4, 2)
	k, err := markov.NewDenseKernel(p)
	if err != nil {
		panic(err)
	}
	g, err := markov.NewDiscounted(r, k, 0.9)
	if err != nil {
		panic(err)
	}
	row, err := learner.NewOMD(learner.OMDConfig{States: 2, Actions: 2, Discount: 0.9})
	if err != nil {
		panic(err)
	}
	col, err := learner.NewOMD(learner.OMDConfig{States: 2, Actions: 2, Discount: 0.9, Role: game.ColumnPlayer})
	if err != nil {
		panic(err)
	}
	res, err := play.SelfPlay(context.Background(), g, row, col, play.SelfPlayConfig{
		Rounds:      100000,
		Noise:       game.Exact{},
		Checkpoints: []int{1000, 10000},
	}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	for _, c := range res.Checkpoints {
		fmt.Printf("t = %6d: Markov gap %.2f, per state [%.2f %.2f]\n", c.Round, c.LastGap, c.StateGaps[0], c.StateGaps[1])
	}
	// Each player's V estimates its own value: V^y ≈ 1/(1−γ) − V^x.
	fmt.Printf("visits %v, V^x = [%.2f %.2f], V^y = [%.2f %.2f]\n", res.Visits, row.Value(0), row.Value(1), col.Value(0), col.Value(1))
	// Output:
	// t =   1000: Markov gap 1.66, per state [1.43 1.66]
	// t =  10000: Markov gap 1.24, per state [1.10 1.24]
	// t = 100000: Markov gap 1.33, per state [1.16 1.33]
	// visits [50072 49928], V^x = [4.39 4.26], V^y = [5.61 5.74]
}
