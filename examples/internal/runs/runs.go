// Package runs aggregates learning curves over independent runs for the
// example programs: log-spaced checkpoints and the mean and standard
// deviation across seeds.
package runs

import (
	"math"
)

// Checkpoints returns the rounds 1, 2, 5, 10, 20, 50, … below T, and T.
func Checkpoints(T int) []int {
	var cps []int
	for p := 1; p <= T; p *= 10 {
		for _, k := range []int{1, 2, 5} {
			if c := k * p; c < T {
				cps = append(cps, c)
			}
		}
		if p > T/10 {
			break
		}
	}
	return append(cps, T)
}

// MeanStd returns the mean of v and its sample standard deviation (0 for
// fewer than two values). It panics if v is empty.
func MeanStd(v []float64) (mean, std float64) {
	if len(v) == 0 {
		panic("runs: MeanStd of no values")
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)-1))
}
