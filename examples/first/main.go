// Command first is the README's first program: a game of the caller's own,
// played by a transformer that learned it in context from an expert.
package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/transformer"
)

// Pennies is your own game: any type with these four methods is a
// game.Game. The row player scores 1 when the coins match, with
// probability 0.8 for heads–heads.
type Pennies struct{}

func (Pennies) States() int             { return 1 }
func (Pennies) Actions(game.Player) int { return 2 }
func (Pennies) Start(*rand.Rand) int    { return 0 }
func (Pennies) Step(_, a, b int, rng *rand.Rand) (float64, int) {
	if a == b && (a == 1 || rng.Float64() < 0.8) {
		return 1, 0
	}
	return 0, 0
}

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	ctx := context.Background()
	// 64 trajectories of OMD self-play, labelled by OMD's policies.
	expert := incontext.OMDExpert{}
	trajs, err := incontext.Collect(ctx, func(*rand.Rand) (Pennies, error) { return Pennies{}, nil },
		incontext.CollectConfig{Rounds: 30, Games: 64, RowExpert: expert, ColExpert: expert, Seed: 1})
	if err != nil {
		return err
	}
	// A small transformer pretrained to imitate the row player's expert.
	enc := incontext.GameEncoder{States: 1, Actions: 2}
	model, _, err := incontext.Pretrain(ctx, incontext.Views(trajs, game.RowPlayer), enc,
		incontext.PretrainConfig[float32]{Model: transformer.Config{Layers: 1, Heads: 2, Width: 16, FeedForward: 32},
			Train: transformer.TrainConfig[float32]{Steps: 60}})
	if err != nil {
		return err
	}
	// The transformer plays in context against a fresh OMD learner.
	row, err := incontext.NewLearner(model, enc, incontext.Config{})
	if err != nil {
		return err
	}
	col, err := learner.NewOMD(learner.OMDConfig{Actions: 2})
	if err != nil {
		return err
	}
	res, err := play.SelfPlay(ctx, Pennies{}, row, col, play.SelfPlayConfig{Rounds: 500}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		return err
	}
	fmt.Printf("transformer against OMD: mean reward %.2f (the game's value is 4/9 ≈ 0.44)\n", res.RowReward)
	return nil
}
