package markov_test

import (
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// A two-step Markov team (a cooperative game): evaluate the uniform
// policies, find a best response, and compare the NE-gaps of the uniform
// play and of the team optimum.
func ExampleNewEpisodic() {
	// Two players with actions {0, 1}; joint action j = 2a + b. Step 0, state
	// 0: only (0,0) pays 1 and then moves to state 0 or 1 with probability ½;
	// anything else pays 0 and moves to state 1. Step 1: in state 0 only
	// (1,1) pays 2; in state 1 everything pays 1. The shared reward r_h(s, j)
	// is an H × S × J table, the transitions P_h(s'|s, j) H × S × J × S.
	rewards, _ := tensor.FromData([]float64{
		1, 0, 0, 0 /* h=0, s=0 */, 0, 0, 0, 0, /* s=1 */
		0, 0, 0, 2 /* h=1, s=0 */, 1, 1, 1, 1, /* s=1 */
	}, 2, 2, 4)
	transitions, _ := tensor.FromData([]float64{
		.5, .5, 0, 1, 0, 1, 0, 1 /* h=0, s=0 */, 1, 0, 1, 0, 1, 0, 1, 0, /* s=1 */
		1, 0, 1, 0, 1, 0, 1, 0 /* h=1, s=0 */, 0, 1, 0, 1, 0, 1, 0, 1, /* s=1 */
	}, 2, 2, 4, 2)
	kernels, err := markov.DenseKernels(transitions)
	if err != nil {
		log.Fatal(err)
	}
	g, err := markov.NewEpisodic([]int{2, 2}, 0, 2, rewards, kernels)
	if err != nil {
		log.Fatal(err)
	}
	u := g.UniformProduct()
	V, err := g.Values(u)
	if err != nil {
		log.Fatal(err)
	}
	br, v, err := g.BestResponse(u, 0)
	if err != nil {
		log.Fatal(err)
	}
	gap, _, err := g.NEGap(u)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("cooperative: %v, uniform value %.4f\n", g.Cooperative(), V.At(0, 0, g.Start()))
	fmt.Printf("best response of player 0: step 0 %v %v, step 1 %v %v, value %.4f\n", br.Row(0, 0), br.Row(0, 1), br.Row(1, 0), br.Row(1, 1), v)
	fmt.Printf("NE-gap of uniform play: %.4f\n", gap)

	// The team optimum plays (0,0), then (1,1) in state 0.
	// (H × S × A: step 0 plays action 0 in both states; step 1 plays 1 in
	// state 0 and 0 in state 1.)
	opt, _ := tensor.FromData([]float64{1, 0, 1, 0, 0, 1, 1, 0}, 2, 2, 2)
	V, _ = g.Values(markov.Product{opt, opt})
	gap, _, _ = g.NEGap(markov.Product{opt, opt})
	coop, _ := g.CoopNEGap(opt, opt)
	fmt.Printf("team optimum: value %.4f, NE-gap %.4f, F.2 gap %.4f\n", V.At(0, 0, g.Start()), gap, coop)
	// Output:
	// cooperative: true, uniform value 1.1875
	// best response of player 0: step 0 [1 0] [1 0], step 1 [0 1] [1 0], value 1.5000
	// NE-gap of uniform play: 0.3125
	// team optimum: value 2.5000, NE-gap 0.0000, F.2 gap 0.0000
}

// A one-step, one-state zero-sum game is a matrix game: SolveZeroSum finds
// its Nash equilibrium by linear programming.
func ExampleEpisodic_SolveZeroSum() {
	// r = [[0.9, 0.1], [0.2, 0.6]] for the max-player (H × S × A × B), and
	// the one state stays (H × S × J × S).
	r, _ := tensor.FromData([]float64{0.9, 0.1, 0.2, 0.6}, 1, 1, 2, 2)
	stay, _ := tensor.FromData([]float64{1, 1, 1, 1}, 1, 1, 4, 1)
	kernels, err := markov.DenseKernels(stay)
	if err != nil {
		log.Fatal(err)
	}
	g, err := markov.NewZeroSumEpisodic(2, 2, 0, 1, r, kernels)
	if err != nil {
		log.Fatal(err)
	}
	V, _, mu, nu, err := g.SolveZeroSum()
	if err != nil {
		log.Fatal(err)
	}
	gap, _ := g.ZeroSumNEGap(mu, nu)
	fmt.Printf("value %.4f (13/30), mu %.4f, nu %.4f, NE-gap < 1e-12: %v\n", V[0][0], mu.Row(0, 0), nu.Row(0, 0), gap < 1e-12)
	u := markov.UniformPolicy(1, 1, 2)
	gap, _ = g.ZeroSumNEGap(u, u)
	fmt.Printf("NE-gap of uniform play: %.2f\n", gap)
	// Output:
	// value 0.4333 (13/30), mu [0.3333 0.6667], nu [0.4167 0.5833], NE-gap < 1e-12: true
	// NE-gap of uniform play: 0.15
}

// The exact CCE-gap of a correlated policy, and the certified gap of a
// mixture of correlated policies (multi-agent-meta-rl, Algorithm 3, App. E).
func ExampleEpisodic_CertifiedCCEGap() {
	// Chicken as a one-step game: payoffs (row, column) for j = 2a + b.
	rewards, _ := tensor.FromData([]float64{0.5, 0.5, 0.2, 1, 1, 0.2, 0, 0}, 1, 1, 4, 2)
	stay, _ := tensor.FromData([]float64{1, 1, 1, 1}, 1, 1, 4, 1)
	kernels, err := markov.DenseKernels(stay)
	if err != nil {
		log.Fatal(err)
	}
	g, err := markov.NewEpisodic([]int{2, 2}, 0, 1, rewards, kernels)
	if err != nil {
		log.Fatal(err)
	}
	// A traffic light: (0,1) or (1,0) with probability ½ each is a CCE with
	// slack: each player earns 0.6, and ignoring the light earns at most 0.5,
	// so the gap is negative.
	// (H × S × J: one step, one state, four joint actions.)
	light, _ := tensor.FromData([]float64{0, 0.5, 0.5, 0}, 1, 1, 4)
	// Always (0,0) is not: either player gains 0.5 by switching.
	both, _ := tensor.FromData([]float64{1, 0, 0, 0}, 1, 1, 4)
	g1, _, _ := g.CCEGap(light)
	g2, per, _ := g.CCEGap(both)
	mix, _, _ := g.CertifiedCCEGap([]*markov.Correlated{light, both}, []float64{0.8, 0.2})
	fmt.Printf("traffic light %.2f, always (0,0) %.2f %v\n", g1, g2, per)
	fmt.Printf("certified gap of the mixture 0.8/0.2: 0.8·(−0.1) + 0.2·0.5 = %.2f\n", mix)
	// Output:
	// traffic light -0.10, always (0,0) 0.50 [0.5 0.5]
	// certified gap of the mixture 0.8/0.2: 0.8·(−0.1) + 0.2·0.5 = 0.02
}

// The transition rule of multi-agent-meta-rl App. F.1/F.2: matching actions
// keep the state with probability 0.9, opposite actions with 0.1.
func ExampleTwoStateKernel() {
	k := markov.TwoStateKernel()
	for j, name := range []string{"(a0,b0)", "(a0,b1)", "(a1,b0)", "(a1,b1)"} {
		next, prob := k.Row(0, j, nil, nil)
		fmt.Printf("%s from s0: states %v with probabilities %v\n", name, next, prob)
	}
	// Output:
	// (a0,b0) from s0: states [0 1] with probabilities [0.9 0.1]
	// (a0,b1) from s0: states [0 1] with probabilities [0.1 0.9]
	// (a1,b0) from s0: states [0 1] with probabilities [0.1 0.9]
	// (a1,b1) from s0: states [0 1] with probabilities [0.9 0.1]
}

// A family of similar zero-sum games: Gaussian perturbations of the rewards
// of a random base game; each stays zero-sum.
func ExamplePerturbedEpisodic() {
	rng := rand.New(rand.NewPCG(1, 2))
	base, err := markov.RandomEpisodic([]int{2, 2}, 2, 10, markov.ZeroSumGame, rng)
	if err != nil {
		log.Fatal(err)
	}
	games, err := markov.PerturbedEpisodic(base, 10, 0.1, rng)
	if err != nil {
		log.Fatal(err)
	}
	zs := 0
	for _, g := range games {
		if g.ZeroSum() {
			zs++
		}
	}
	fmt.Printf("%d games, %d zero-sum, horizon %d\n", len(games), zs, games[0].Horizon())
	// Output:
	// 10 games, 10 zero-sum, horizon 10
}
