// Command ownteam meta-learns across a sequence of the caller's own team
// games and starts the library's OMD learners from what it learned. The
// games are Relay values (relay.go): plain structs with the seven methods
// of markov.GeneralSumModel, no markov tables. MAML (multi-agent-meta-rl
// §4.2: softmax policy gradient inside each game, one meta-step (47) after
// it) runs over a sequence of similar Relays; on fresh games of the same
// family it then compares the inner stage from the meta-learned logits
// with the inner stage from uniform play (the paper's measure: the team's
// value Φ after the inner steps), and two learner.OMD players, each
// warm-started from its meta-learned policies (OMD.WarmStart), with two
// started cold from uniform play (the team's mean reward over the first
// rounds), both through the library's rollout engine (play.Run).
//
//	go run ./examples/ownteam [-games 40] [-test 20] [-rounds 100] [-seed 1]
//
// It takes about a second.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"

	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/metalearn"
)

func main() {
	games := flag.Int("games", 40, "games of the meta-training sequence")
	test := flag.Int("test", 20, "fresh games to compare on")
	rounds := flag.Int("rounds", 100, "rounds the OMD players play on each fresh game")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *games < 1 || *test < 1 || *rounds < 1 {
		log.Fatal("-games, -test and -rounds must be positive")
	}
	demo(os.Stdout, *games, *test, *rounds, *seed)
}

// family draws a Relay whose goals are the family's (0, 0) in state 0 and
// (1, 1) in state 1, each replaced by a random joint action with
// probability 0.2: similar tasks, the setting meta-learning is for.
func family(rng *rand.Rand) Relay {
	r := Relay{Goal: [2][2]int{{0, 0}, {1, 1}}, Move: 0.5, Gamma: 0.8}
	for s := range r.Goal {
		if rng.Float64() < 0.2 {
			r.Goal[s] = [2]int{rng.IntN(2), rng.IntN(2)}
		}
	}
	return r
}

// demo meta-learns, compares and prints to w. The library's part is these
// 30 lines.
func demo(w io.Writer, games, test, rounds int, seed uint64) {
	rng, dice := rand.New(rand.NewPCG(seed, 0)), rand.New(rand.NewPCG(seed, 1)) // games, play
	seq := make([]markov.GeneralSumModel, games)
	for k := range seq {
		seq[k] = family(rng)
	}
	inner := metalearn.SoftmaxPGConfig{Alpha: 0.5, T: 2}
	meta := must(metalearn.NewMAMLMeta(seq[0], 2, inner)) // outer step η = 2

	must(metalearn.RunSequence(seq, metalearn.SoftmaxPGAlgorithm{Config: inner}, meta))
	theta := meta.Theta()
	var phiMeta, phiZero, omdMeta, omdZero float64
	for range test {
		g := family(rng)
		phiMeta += last(must(metalearn.SoftmaxPG(g, theta, inner)).Potential) / float64(test)
		phiZero += last(must(metalearn.SoftmaxPG(g, metalearn.ZeroLogits(g), inner)).Potential) / float64(test)
		pol := must(metalearn.SoftmaxPolicies(g, theta))
		omd := func(init markov.Stationary) learner.Learner {
			l := must(learner.NewOMD(learner.OMDConfig{States: 2, Actions: 2, Discount: g.Gamma}))
			if init != nil {
				must(0, l.WarmStart(init)) // projected, and the schedule entered late
			}
			return l
		}
		omdMeta += teamPlay(g, omd(pol[0]), omd(pol[1]), rounds, dice) / float64(test)
		omdZero += teamPlay(g, omd(nil), omd(nil), rounds, dice) / float64(test)
	}
	fmt.Fprintf(w, "MAML over %d games (inner: %d policy-gradient steps of α = %v)\n", games, inner.T, inner.Alpha)
	fmt.Fprintf(w, "team value after the inner steps, mean over %d fresh games: %.3f from the meta-learned logits, %.3f from uniform play\n", test, phiMeta, phiZero)
	fmt.Fprintf(w, "OMD self-play, team's mean reward over %d rounds: %.3f started from the meta-learned policies, %.3f from uniform play\n", rounds, omdMeta, omdZero)
}

// teamPlay runs two learners as a team on g through the library's rollout
// engine for the given rounds and returns the team's mean reward.
func teamPlay(g Relay, x, y learner.Learner, rounds int, rng *rand.Rand) float64 {
	res := must(play.Run(context.Background(), g, []learner.Learner{x, y}, play.Config{Rounds: rounds}, rng))
	return res.Rewards[0]
}

func last(v []float64) float64 { return v[len(v)-1] }

// must returns v, or exits with err if it is not nil.
func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
