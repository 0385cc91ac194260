package play_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

// Commute is a caller's own three-player game, written as one plain
// struct: three commuters each take the road (0) or the train (1). The
// road is free when at most one other commuter takes it (reward 1), slow
// otherwise (0.2); the train always earns 0.6. It is a game.Multiplayer;
// with Discount, Initial, Reward and Transition it would also be a
// markov.GeneralSumModel, and Play would report its gaps.
type Commute struct{}

func (Commute) Players() int            { return 3 }
func (Commute) States() int             { return 1 }
func (Commute) Actions(game.Player) int { return 2 }
func (Commute) Start(*rand.Rand) int    { return 0 }

func (Commute) Play(_ int, actions []int, rewards []float64, _ *rand.Rand) int {
	road := 0
	for _, a := range actions {
		road += 1 - a
	}
	for p, a := range actions {
		switch {
		case a == 1:
			rewards[p] = 0.6
		case road <= 2:
			rewards[p] = 1
		default:
			rewards[p] = 0.2
		}
	}
	return 0
}

// Three Exp3-IX learners, one per commuter, play 5000 days of the
// commute through the rollout engine. Each sees only its own reward; they
// settle on one of the game's pure equilibria: two commuters on the road,
// one on the train.
func ExampleRun() {
	players := make([]learner.Learner, 3)
	for i := range players {
		l, err := learner.NewExp3IX(learner.Exp3IXConfig{Actions: 2, Horizon: 5000})
		if err != nil {
			panic(err)
		}
		players[i] = l
	}
	res, err := play.Run(context.Background(), Commute{}, players, play.Config{Rounds: 5000}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	road := 0.0
	for _, avg := range res.Average {
		road += avg[0]
	}
	fmt.Printf("commuters on the road: %.1f of 3; mean rewards %.2f %.2f %.2f\n", road, res.Rewards[0], res.Rewards[1], res.Rewards[2])
	// Output:
	// commuters on the road: 2.0 of 3; mean rewards 0.58 0.83 0.83
}
