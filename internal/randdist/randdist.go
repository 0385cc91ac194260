// Package randdist draws from the Gamma and Beta laws with a
// *rand.Rand directly: the same algorithms, in the same order of draws and
// operations, as gonum's distuv.Gamma and distuv.Beta with Src set to the
// same source, so the values are bit-for-bit those of gonum, without the
// two rand.New wrappers that distuv allocates on every draw.
package randdist

import (
	"math"
	"math/rand/v2"
)

// Gamma returns a draw from the Gamma law of shape a > 0 and rate 1: from
// the exponential law for a = 1, by Liu, Martin and Syring (2017)
// "Simulating from a gamma distribution with small shape parameter" for
// a < 0.2, else by Marsaglia and Tsang (2000) "A simple method for
// generating gamma variables", boosted by U^(1/a) for a < 1. It panics if
// a is not positive.
func Gamma(a float64, rng *rand.Rand) float64 {
	const smallAlphaThresh = 0.2
	switch {
	case !(a > 0):
		panic("randdist: Gamma shape is not positive")
	case a == 1:
		return rng.ExpFloat64()
	case a < smallAlphaThresh:
		lambda := 1/a - 1
		lr := -math.Log1p(1 / lambda / math.E)
		for {
			e := rng.ExpFloat64()
			var z float64
			if e >= -lr {
				z = e + lr
			} else {
				z = -rng.ExpFloat64() / lambda
			}
			eza := math.Exp(-z / a)
			lh := -z - eza
			var lEta float64
			if z >= 0 {
				lEta = -z
			} else {
				lEta = -1 + lambda*z
			}
			if lh-lEta > -rng.ExpFloat64() {
				return eza
			}
		}
	}
	d := a - 1.0/3
	m := 1.0
	if a < 1 {
		d += 1.0
		m = math.Pow(rng.Float64(), 1/a)
	}
	c := 1 / (3 * math.Sqrt(d))
	for {
		x := rng.NormFloat64()
		v := 1 + x*c
		if v <= 0.0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1.0-0.0331*(x*x)*(x*x) {
			return m * d * v
		}
		if math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return m * d * v
		}
	}
}

// Beta returns a draw from the Beta law of parameters a, b > 0, as
// Gamma(a)/(Gamma(a) + Gamma(b)) with the two Gamma draws in that order.
// It panics if a or b is not positive.
func Beta(a, b float64, rng *rand.Rand) float64 {
	ga := Gamma(a, rng)
	gb := Gamma(b, rng)
	return ga / (ga + gb)
}
