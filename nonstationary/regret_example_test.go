package nonstationary_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl/nonstationary"
)

// always plays arm 0.
type always struct{}

func (always) Reset() {}
func (always) Act(t int, actions [][]float64, rng *rand.Rand) (int, float64) {
	return 0, 0
}
func (always) Observe(t int, actions [][]float64, arm int, reward float64) error { return nil }

// The dynamic regret of a learner that never switches, on the paper's high
// non-stationarity scenario with a hand-made action set: it loses
// 2|cos(2π·0.025·t)| at every round t = 11..29, 25.412 in all.
func ExampleRun() {
	acts, err := nonstationary.FixedActions([][]float64{{1, 0}, {-1, 0}})
	if err != nil {
		panic(err)
	}
	// r_t = (⟨a_t,w⟩ + ε_t)·cos(2π·0.025·t): arm 0 is optimal while the
	// cosine is positive, arm 1 while it is negative.
	e, err := nonstationary.NewCosine([]float64{1, 0}, acts, 1.5, 0.025, 40)
	if err != nil {
		panic(err)
	}
	res, err := nonstationary.Run(context.Background(), e, always{}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	fmt.Printf("regret after 10: %.3f\n", res.CumRegret[9])
	fmt.Printf("regret after 40: %.3f\n", res.CumRegret[39])
	fmt.Printf("Δ = %.3f\n", nonstationary.TotalVariation(e))
	// Output:
	// regret after 10: 0.000
	// regret after 40: 25.412
	// Δ = 3.988
}
