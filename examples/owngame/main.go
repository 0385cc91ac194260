// Command owngame plugs a game of the caller's own into the library: the
// penalty-kick game of penalty.go, a plain Go struct with four methods,
// is played by OMD self-play, gives expert-labelled trajectories,
// pretrains a transformer, and hosts that transformer in context against
// OMD. It prints the kicker's mean reward in each match.
//
//	go run ./examples/owngame [-rounds 200] [-games 128] [-steps 150] [-seed 1]
//
// The game has no model (no known payoffs), so the expert is OMD itself
// (incontext.OMDExpert), the theory's expert of in-context-games-omd, and
// the harness reports rewards rather than duality gaps. It takes a few
// seconds.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/transformer"
)

func main() {
	rounds := flag.Int("rounds", 200, "rounds of each match")
	games := flag.Int("games", 128, "trajectories to pretrain on")
	steps := flag.Int("steps", 150, "training steps")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	demo(os.Stdout, *rounds, *games, *steps, *seed)
}

// demo runs the three steps and prints to w. The library's part is these
// 20 lines.
func demo(w io.Writer, rounds, games, steps int, seed uint64) {
	g, rng := &Penalty{Tire: 0.5}, rand.New(rand.NewPCG(seed, 0))
	omd := func(p game.Player) *learner.OMD {
		return must(learner.NewOMD(learner.OMDConfig{States: 2, Actions: 2, Discount: 0.5, Role: p}))
	}
	match := func(name string, kicker learner.Learner) {
		res := must(play.SelfPlay(context.Background(), g, kicker, omd(game.ColumnPlayer), play.SelfPlayConfig{Rounds: rounds}, rng))
		fmt.Fprintf(w, "%-12s against OMD: kicker's mean reward %.3f over %d kicks\n", name, res.RowReward, rounds)
	}
	match("OMD", omd(game.RowPlayer))
	expert := incontext.OMDExpert{Config: learner.OMDConfig{Discount: 0.5}}
	trajs := must(incontext.Collect(context.Background(), func(*rand.Rand) (*Penalty, error) { return g, nil },
		incontext.CollectConfig{Rounds: 40, Games: games, RowExpert: expert, ColExpert: expert, Seed: seed}))
	enc := incontext.GameEncoder{States: 2, Actions: 2}
	model, res, err := incontext.Pretrain(context.Background(), incontext.Views(trajs, game.RowPlayer), enc, incontext.PretrainConfig[float32]{
		Model: transformer.Config{Layers: 2, Heads: 2, Width: 32, FeedForward: 64},
		Train: transformer.TrainConfig[float32]{Steps: steps, TargetLoss: 1e-3}, Seed: seed,
	})
	must(model, err)
	fmt.Fprintf(w, "pretrained on %d trajectories: %d steps, KL to the expert %.4f\n", len(trajs), res.Steps, res.KL)
	match("transformer", must(incontext.NewLearner(model, enc, incontext.Config{})))
}

// must returns v, or exits with err if it is not nil.
func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
