// Package num holds the numeric basics the module shares: the one
// floating-point type constraint (the element types that the generic
// vectors, matrices and models accept) and summary statistics.
package num

import "math"

// Float is the constraint of every generic numeric type of the module:
// float32 for speed, float64 for gradient checks and exact solvers. Named
// float types are excluded because the matrix kernels of package
// transformer are written for exactly these two.
type Float interface{ float32 | float64 }

// MeanStd returns the mean and the sample standard deviation (n − 1 in the
// denominator; 0 for one value) of v, in two passes. It panics if v is
// empty.
func MeanStd(v []float64) (mean, std float64) {
	if len(v) == 0 {
		panic("num: MeanStd of no values")
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
