package nonstationary_test

import (
	"fmt"

	"github.com/icrl-go/icrl/nonstationary"
)

// The non-stationarity measures of SMPyBandits' problem 1 at T = 1000.
func ExampleSMPyProblem() {
	e, err := nonstationary.NewSMPyProblem(1, 1000)
	if err != nil {
		panic(err)
	}
	fmt.Println("starts:", e.Starts())
	fmt.Printf("Δ = %.1f, J = %d\n", nonstationary.TotalVariation(e), nonstationary.Pieces(e, 1e-9))
	for _, t := range []int{1, 201, 401, 601, 801} {
		best, arm := nonstationary.OptimalMean(e, t)
		fmt.Printf("f*_%d = %.1f (arm %d)\n", t, best, arm)
	}
	// Output:
	// starts: [1 201 401 601 801]
	// Δ = 1.8, J = 5
	// f*_1 = 0.9 (arm 2)
	// f*_201 = 0.9 (arm 2)
	// f*_401 = 0.3 (arm 0)
	// f*_601 = 0.7 (arm 0)
	// f*_801 = 0.7 (arm 0)
}
