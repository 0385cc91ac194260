package learner_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/learner/schedule"
)

// Two OMD learners play the game [[1,0],[0,0.5]] (equilibrium (1/3, 2/3)
// for both players, value 1/3) with Bernoulli bandit feedback. The duality
// gap of the last iterate falls from 0.25 at the uniform start.
func ExampleOMD() {
	g := game.MustZeroSum([][]float64{{1, 0}, {0, 0.5}})
	const T = 100000
	row, err := learner.NewOMD(learner.OMDConfig{Actions: 2, Horizon: T})
	if err != nil {
		panic(err)
	}
	col, err := learner.NewOMD(learner.OMDConfig{Actions: 2, Horizon: T, Role: game.ColumnPlayer})
	if err != nil {
		panic(err)
	}
	res, err := play.SelfPlay(context.Background(), g, row, col, play.SelfPlayConfig{
		Rounds:      T,
		Checkpoints: []int{1, 100, 1000, 10000},
	}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	for _, c := range res.Checkpoints {
		fmt.Printf("T = %6d: last-iterate gap %.3f\n", c.Round, c.LastGap)
	}
	fmt.Printf("x_T = [%.2f %.2f], y_T = [%.2f %.2f]\n", res.LastX[0][0], res.LastX[0][1], res.LastY[0][0], res.LastY[0][1])
	// Output:
	// T =      1: last-iterate gap 0.250
	// T =    100: last-iterate gap 0.108
	// T =   1000: last-iterate gap 0.117
	// T =  10000: last-iterate gap 0.063
	// T = 100000: last-iterate gap 0.046
	// x_T = [0.39 0.61], y_T = [0.30 0.70]
}

// Distribution replays a player's own history of (action, reward) steps:
// the policy an OMD learner would hold after observing it.
func ExampleOMD_Distribution() {
	omd, err := learner.NewOMD(learner.OMDConfig{
		Actions: 3,
		// A constant schedule: η = 0.5, β = ε = 0.1, δ = 1/300.
		Schedule: schedule.Func(func(t, visit, horizon, actions int) schedule.StepSizes {
			return schedule.StepSizes{Eta: 0.5, Beta: 0.1, Epsilon: 0.1, Delta: 1.0 / 300}
		}),
	})
	if err != nil {
		panic(err)
	}
	history := []learner.Step{
		{Action: 0, Reward: 0.8},
		{Action: 2, Reward: 0.1},
		{Action: 0, Reward: 1},
	}
	for t := 0; t <= len(history); t++ {
		x, err := omd.Distribution(nil, history[:t], 0)
		if err != nil {
			panic(err)
		}
		fmt.Printf("x_%d = [%.4f %.4f %.4f]\n", t+1, x[0], x[1], x[2])
	}
	// Output:
	// x_1 = [0.3333 0.3333 0.3333]
	// x_2 = [0.2564 0.3718 0.3718]
	// x_3 = [0.4173 0.5298 0.0529]
	// x_4 = [0.4152 0.5249 0.0599]
}
