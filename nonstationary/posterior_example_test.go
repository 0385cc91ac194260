package nonstationary_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl/nonstationary"
)

// A one-dimensional linear bandit with θ ~ N(0, 1) and unit noise: after
// the reward 1 of the arm a = 1 the posterior of θ is N(1/2, 1/2), so the
// arm 1 beats the arm −1 with probability Φ(0.5/√0.5) ≈ 0.760.
func ExampleLinearPosterior() {
	lp, err := nonstationary.NewLinearPosterior(nonstationary.LinearPrior{
		Mean: []float64{0}, Cov: [][]float64{{1}}, NoiseVar: 1,
	})
	if err != nil {
		panic(err)
	}
	if err := lp.Observe(1, []float64{1}, 1); err != nil {
		panic(err)
	}
	fmt.Printf("posterior N(%.2f, %.2f)\n", lp.Mean(0)[0], lp.Cov(0)[0][0])
	p, err := lp.BestArm(nil, 2, [][]float64{{1}, {-1}}, 100000, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	fmt.Printf("P(arm 1 is the best) ≈ %.2f\n", p[0])
	// Output:
	// posterior N(0.50, 0.50)
	// P(arm 1 is the best) ≈ 0.76
}
