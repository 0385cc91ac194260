package simplex_test

import (
	"fmt"

	"github.com/icrl-go/icrl/game/simplex"
)

// Project onto the truncated simplex Ω_δ = {x : Σx = 1, x ≥ δ}, the OMD
// feasible set of in-context-games-omd §4.1.
func ExampleProjectTruncated() {
	v := []float64{1.2, 0.1, -0.3}
	dst := make([]float64, len(v))
	if err := simplex.ProjectTruncated(dst, v, 1.0/27); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f\n", dst)
	_ = simplex.ProjectTruncated(dst, []float64{0.6, 0.6, -0.2}, 0.05)
	fmt.Printf("%.6f\n", dst)
	fmt.Println(simplex.ProjectTruncated(dst, v, 0.5))
	// Output:
	// [0.925926 0.037037 0.037037]
	// [0.475000 0.475000 0.050000]
	// icrl: invalid argument: truncation level δ = 0.5 with 3 actions has δ·A = 1.5 > 1: the truncated simplex is empty
}
