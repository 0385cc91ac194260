// Package num holds the numeric basics the module shares: a finiteness
// scan and summary statistics (the float constraint is tensor.Float).
package num

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl/tensor"
)

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

// FirstNonFinite returns the index of the first NaN or infinite entry of x,
// or −1 if every entry is finite. It tests the exponent bits a block at a
// time without a branch per entry (adding one to an all-ones exponent field
// carries into the sign bit, and only then) and looks for the entry only in
// a block that has one. The cost is O(len(x)).
func FirstNonFinite[F tensor.Float](x []F) int {
	const block = 256
	switch x := any(x).(type) {
	case []float32:
		for lo := 0; lo < len(x); lo += block {
			hi := min(lo+block, len(x))
			var acc uint32
			for _, f := range x[lo:hi] {
				acc |= math.Float32bits(f)&0x7f800000 + 0x00800000
			}
			if acc&0x80000000 != 0 {
				for i, f := range x[lo:hi] {
					if math.Float32bits(f)&0x7f800000 == 0x7f800000 {
						return lo + i
					}
				}
			}
		}
	case []float64:
		for lo := 0; lo < len(x); lo += block {
			hi := min(lo+block, len(x))
			var acc uint64
			for _, f := range x[lo:hi] {
				acc |= math.Float64bits(f)&0x7ff0000000000000 + 0x0010000000000000
			}
			if acc&0x8000000000000000 != 0 {
				for i, f := range x[lo:hi] {
					if math.Float64bits(f)&0x7ff0000000000000 == 0x7ff0000000000000 {
						return lo + i
					}
				}
			}
		}
	}
	return -1
}

// CheckSize returns nil if the product of dims is at most limit, and
// otherwise an error wrapping tooLarge that names what and the sizes, so a
// constructor can reject a table before allocating it. It panics if a dim
// is negative.
func CheckSize(tooLarge error, limit int, what string, dims ...int) error {
	if _, ok := SizeWithin(limit, dims...); !ok {
		return fmt.Errorf("%w: %s %v needs more than %d entries", tooLarge, what, dims, limit)
	}
	return nil
}

// SizeWithin returns the product of the non-negative dims and whether it
// is at most limit. It never overflows: a product past limit reports false
// (with the partial product), so callers can check a table's size before
// allocating it. It panics if a dim is negative.
func SizeWithin(limit int, dims ...int) (int, bool) {
	n := 1
	for _, d := range dims {
		if d < 0 {
			panic("num: negative size")
		}
		if d != 0 && n > limit/d {
			return n, false
		}
		n *= d
	}
	return n, n <= limit
}

// ExpertStream is XORed into a trajectory's index to give an expert that
// shadows another player its own random stream,
// rand.NewPCG(seed, k^ExpertStream), where the player draws from
// rand.NewPCG(seed, k) (incontext.CollectBandits and
// nonstationary.EvaluateImitation, which must agree).
const ExpertStream = 0x9e3779b97f4a7c15
