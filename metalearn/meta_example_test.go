package metalearn_test

import (
	"fmt"
	"log"
	"math"

	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/metalearn"
	"github.com/icrl-go/icrl/tensor"
)

// This example compares individual learning with the zero-sum meta-learner
// (eq. (5)) on three identical copies of a two-state game with pure
// equilibria: a placeholder "pure" base game (the paper's
// Table 1 is missing from its text), with the App. F.1 transitions, H = 10,
// T = 1000 and η = 0.02 (setting G-ZS2).
func ExampleRunSequence() {
	const H, T, K = 10, 1000, 3
	rewards, _ := tensor.New[float64](H, 2, 2, 2) // max-player r_h(s, a, b)
	for h := range H {
		copy(rewards.Sub(h).Data(), []float64{0.8, 0.6, 0.3, 0.1, 0.5, 0.9, 0.2, 0.4})
	}
	g, err := markov.NewZeroSumEpisodic(2, 2, 0, H, rewards, []markov.Kernel{markov.TwoStateKernel()})
	if err != nil {
		log.Fatal(err)
	}
	games := []*markov.Episodic{g, g, g}
	learner := metalearn.ZeroSumAlgorithm[*markov.Episodic]{Config: metalearn.OOMDConfig{Eta: 0.02, T: T, Checkpoints: []int{100, 1000}}}

	uniform, err := metalearn.UniformZeroSumInit(g, T)
	if err != nil {
		log.Fatal(err)
	}
	individual, err := metalearn.RunSequence(games, learner,
		metalearn.Meta[metalearn.ZeroSumInit, *metalearn.ZeroSumResult](metalearn.Fixed[metalearn.ZeroSumInit, *metalearn.ZeroSumResult]{Init: uniform}))
	if err != nil {
		log.Fatal(err)
	}
	avg, err := metalearn.NewZeroSumAverage(g, T, K, 1/math.Sqrt(10), metalearn.HindsightBR)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := metalearn.RunSequence(games, learner, metalearn.Meta[metalearn.ZeroSumInit, *metalearn.ZeroSumResult](avg))
	if err != nil {
		log.Fatal(err)
	}
	for k := range K {
		fmt.Printf("game %d: NE-gap at t=100, 1000: individual %.4f %.4f, meta %.4f %.4f\n", k,
			individual[k].Checkpoints[0].Gap, individual[k].Checkpoints[1].Gap,
			meta[k].Checkpoints[0].Gap, meta[k].Checkpoints[1].Gap)
	}
	delta, err := metalearn.DeltaMuNu(meta)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("task similarity Δ_{μ,ν} = %.3g\n", delta)
	// Output:
	// game 0: NE-gap at t=100, 1000: individual 3.4026 3.1690, meta 3.4026 3.1690
	// game 1: NE-gap at t=100, 1000: individual 3.4026 3.1690, meta 1.2971 0.9736
	// game 2: NE-gap at t=100, 1000: individual 3.4026 3.1690, meta 1.2971 0.9736
	// task similarity Δ_{μ,ν} = 0
}

// This example builds a two-agent version of the linear-quadratic tracking
// game of App. F.3 and its potential; the paper's game has four agents
// (Tracking(TrackingConfig{}): 625 states, 81 joint actions, 253 MB of
// transitions).
func ExampleTracking() {
	tg, err := metalearn.Tracking(metalearn.TrackingConfig{Players: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("states:", tg.States, "joint actions:", tg.Joint)
	s, _ := tg.StateIndex([]int{-2, 1})
	j, _ := tg.JointIndex([]int{1, 0})
	fmt.Printf("r(s=(-2,1), a=(1,0)) = %.4f, φ = %.4f\n", tg.Rewards.Row(s, j), tg.Potential[s][j])
	g, err := tg.Episodic(5, tg.CenterState())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("episodic:", g.Players(), "players,", g.States(), "states, horizon", g.Horizon())
	// Output:
	// states: 25 joint actions: 9
	// r(s=(-2,1), a=(1,0)) = [-1.0625 -0.5625], φ = -1.0625
	// episodic: 2 players, 25 states, horizon 5
}
