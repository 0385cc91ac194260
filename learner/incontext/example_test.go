package incontext_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/transformer"
)

// Compile-time check: the caller's own game is a game.Game.
var _ game.Game = (*HideAndSeek)(nil)

// This example composes the library with a game of the caller's own
// (HideAndSeek, in its own file; it has no model, so OMD is its expert):
// OMD self-play, expert-labelled trajectories, a pretrained transformer,
// and the transformer playing in context against OMD.
func Example_ownGame() {
	g := &HideAndSeek{FlipProb: 0.3}
	rng := rand.New(rand.NewPCG(1, 2))
	omd := func(p game.Player) *learner.OMD {
		return must(learner.NewOMD(learner.OMDConfig{States: 2, Actions: 2, Discount: 0.5, Role: p}))
	}
	spc := play.SelfPlayConfig{Rounds: 100}
	self := must(play.SelfPlay(context.Background(), g, omd(game.RowPlayer), omd(game.ColumnPlayer), spc, rng))
	fmt.Printf("OMD against OMD: seeker's mean reward %.2f\n", self.RowReward)

	expert := incontext.OMDExpert{Config: learner.OMDConfig{Discount: 0.5}}
	same := func(*rand.Rand) (*HideAndSeek, error) { return g, nil }
	trajs := must(incontext.Collect(context.Background(), same, incontext.CollectConfig{Rounds: 30, Games: 64, RowExpert: expert, ColExpert: expert, Seed: 3}))
	enc := incontext.GameEncoder{States: 2, Actions: 2}
	model, _, err := incontext.Pretrain(context.Background(), incontext.Views(trajs, game.RowPlayer), enc, incontext.PretrainConfig[float32]{
		Model: transformer.Config{Layers: 1, Heads: 2, Width: 16, FeedForward: 32},
		Train: transformer.TrainConfig[float32]{Steps: 60},
	})
	must(model, err)
	seeker := must(incontext.NewLearner(model, enc, incontext.Config{}))
	vs := must(play.SelfPlay(context.Background(), g, seeker, omd(game.ColumnPlayer), spc, rng))
	fmt.Printf("transformer against OMD: seeker's mean reward %.2f\n", vs.RowReward)
	// Output:
	// OMD against OMD: seeker's mean reward 0.38
	// transformer against OMD: seeker's mean reward 0.51
}

// must returns v, or panics if err is not nil.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
