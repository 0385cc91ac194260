package learner_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

// Optimistic multiplicative weights in full-information self-play on
// G1 = [[1,0],[0,0.5]], whose unique equilibrium is x* = y* = (1/3, 2/3):
// unlike plain MWU, the last iterate itself converges.
func ExampleSelfPlay() {
	g := game.MustZeroSum([][]float64{{1, 0}, {0, 0.5}})
	x, err := learner.NewOptimisticMWU(learner.MWUConfig{Actions: 2, Eta: 0.5})
	if err != nil {
		panic(err)
	}
	y, err := learner.NewOptimisticMWU(learner.MWUConfig{Actions: 2, Eta: 0.5})
	if err != nil {
		panic(err)
	}
	cfg := play.SelfPlayConfig{
		Rounds:      2000,
		Feedback:    play.FullInformation,
		Checkpoints: []int{10, 100},
	}
	res, err := play.SelfPlay(context.Background(), g, x, y, cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	for _, c := range res.Checkpoints {
		fmt.Printf("round %4d: last gap %.4f, average gap %.4f\n", c.Round, c.LastGap, c.AverageGap)
	}
	fmt.Printf("x_T = (%.4f, %.4f)\n", res.LastX[0][0], res.LastX[0][1])
	// Output:
	// round   10: last gap 0.1357, average gap 0.1111
	// round  100: last gap 0.0614, average gap 0.0110
	// round 2000: last gap 0.0000, average gap 0.0005
	// x_T = (0.3333, 0.6667)
}

// Two Exp3-IX learners with bandit feedback: each sees only its own action
// and a Bernoulli reward. The average policies approach the equilibrium.
func ExampleSelfPlay_bandit() {
	g := game.MustZeroSum([][]float64{{1, 0}, {0, 0.5}})
	const rounds = 100000
	x, err := learner.NewExp3IX(learner.Exp3IXConfig{Actions: 2, Horizon: rounds})
	if err != nil {
		panic(err)
	}
	y, err := learner.NewExp3IX(learner.Exp3IXConfig{Actions: 2, Horizon: rounds})
	if err != nil {
		panic(err)
	}
	cfg := play.SelfPlayConfig{Rounds: rounds, Checkpoints: []int{1000, 10000}}
	res, err := play.SelfPlay(context.Background(), g, x, y, cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	for _, c := range res.Checkpoints {
		fmt.Printf("round %6d: average gap %.2f\n", c.Round, c.AverageGap)
	}
	// Output:
	// round   1000: average gap 0.17
	// round  10000: average gap 0.02
	// round 100000: average gap 0.01
}

// Exp3-IX on a three-armed Bernoulli bandit: it finds the best arm from
// bandit feedback alone.
func ExampleExp3IX() {
	means := []float64{0.2, 0.5, 0.8}
	const rounds = 5000
	l, err := learner.NewExp3IX(learner.Exp3IXConfig{Actions: len(means), Horizon: rounds})
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var total float64
	for range rounds {
		a := simplex.SampleCategorical(l.Policy(0), rng)
		r := game.Bernoulli{}.Draw(means[a], rng)
		total += r
		if err := l.Observe(0, a, r, 0); err != nil {
			panic(err)
		}
	}
	p := l.Policy(0)
	fmt.Printf("final policy (%.2f, %.2f, %.2f)\n", p[0], p[1], p[2])
	fmt.Printf("average reward %.2f (best arm 0.80)\n", total/rounds)
	// Output:
	// final policy (0.00, 0.02, 0.98)
	// average reward 0.78 (best arm 0.80)
}

// Regret matching+ with full information: the guarantee is for the average
// strategy, which Average returns.
func ExampleRegretMatching_Average() {
	g, _, err := game.Rescale(game.BiasedRPS(), -0.5, 0.5)
	if err != nil {
		panic(err)
	}
	x, err := learner.NewRegretMatching(learner.RegretMatchingConfig{Actions: 3, Plus: true})
	if err != nil {
		panic(err)
	}
	y, err := learner.NewRegretMatching(learner.RegretMatchingConfig{Actions: 3, Plus: true})
	if err != nil {
		panic(err)
	}
	xs := make([]float64, 3)
	ys := make([]float64, 3)
	for range 10000 {
		g.RowPayoffs(xs, y.Policy(0))
		g.ColPayoffs(ys, x.Policy(0))
		for j := range ys {
			ys[j] = 1 - ys[j] // the column player maximises 1 − xᵀAy
		}
		if err := x.ObserveRewards(xs); err != nil {
			panic(err)
		}
		if err := y.ObserveRewards(ys); err != nil {
			panic(err)
		}
	}
	avg := x.Average()
	fmt.Printf("average x = (%.3f, %.3f, %.3f); equilibrium (0.0625, 0.625, 0.3125)\n", avg[0], avg[1], avg[2])
	gap, err := g.DualityGap(x.Average(), y.Average())
	if err != nil {
		panic(err)
	}
	fmt.Printf("gap of the averages %.4f\n", gap)
	// Output:
	// average x = (0.063, 0.631, 0.307); equilibrium (0.0625, 0.625, 0.3125)
	// gap of the averages 0.0008
}
