// Package randdist draws from the laws the posterior samplers need, with a
// *rand.Rand directly: Gamma and Beta by the same algorithms, in the same
// order of draws and operations, as gonum's distuv.Gamma and distuv.Beta
// with Src set to the same source (the values are bit-for-bit gonum's,
// without the two rand.New wrappers that distuv allocates on every draw),
// the posterior of a mean under uniform reward noise, and the normal law
// truncated to an interval (the posterior of a mean under Gaussian noise).
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

// UniformNoiseMean draws μ from the density proportional to w(μ)^{−n} on
// [lo, hi] ⊆ [0, 1], w(μ) = min(h, μ, 1 − μ) (h ≤ ½): the posterior of the
// mean μ, uniform on [0, 1] a priori, of n rewards drawn uniformly within
// w(μ) of it (game.UniformNoise) that confine μ to [lo, hi]. It draws by
// the exact inverse CDF on the pieces where w is μ (below h), h, and 1 − μ
// (above 1 − h), each piece's log mass computed without overflow.
func UniformNoiseMean(lo, hi, h float64, n int, rng *rand.Rand) float64 {
	if n == 0 || hi <= lo {
		return lo + (hi-lo)*rng.Float64()
	}
	// Pieces: [lo, min(hi, h)] with w = μ, [max(lo, h), min(hi, 1−h)] with
	// w = h, [max(lo, 1−h), hi] with w = 1 − μ; an edge piece is measured
	// from its end nearer the middle, where its density is lowest.
	type piece struct {
		kind          int // 0: w = μ, 1: w = h, 2: w = 1 − μ
		a, b, logMass float64
	}
	ps := make([]piece, 0, 3)
	edge := func(a, b float64) float64 { // log ∫_a^b x^{−n} dx, 0 < a < b
		t := float64(1 - n)
		if n == 1 {
			return math.Log(math.Log(b / a))
		}
		// a^t (1 − (b/a)^t)/(n − 1)
		return t*math.Log(a) + math.Log(-math.Expm1(t*math.Log(b/a))) - math.Log(float64(n-1))
	}
	if a, b := lo, min(hi, h); a < b && a > 0 {
		ps = append(ps, piece{0, a, b, edge(a, b)})
	}
	if a, b := max(lo, h), min(hi, 1-h); a < b {
		ps = append(ps, piece{1, a, b, math.Log(b-a) - float64(n)*math.Log(h)})
	}
	if a, b := max(lo, 1-h), hi; a < b && b < 1 {
		ps = append(ps, piece{2, a, b, edge(1-b, 1-a)})
	}
	if len(ps) == 0 {
		return (lo + hi) / 2
	}
	m := math.Inf(-1)
	for _, q := range ps {
		m = max(m, q.logMass)
	}
	var total float64
	for _, q := range ps {
		total += math.Exp(q.logMass - m)
	}
	u := rng.Float64() * total
	i := 0
	for ; i < len(ps)-1; i++ {
		if w := math.Exp(ps[i].logMass - m); u < w {
			break
		} else {
			u -= w
		}
	}
	q, v := ps[i], rng.Float64()
	switch q.kind {
	case 0:
		return inverseEdge(q.a, q.b, n, v)
	case 2:
		return 1 - inverseEdge(1-q.b, 1-q.a, n, v)
	}
	return q.a + (q.b-q.a)*v
}

// inverseEdge returns the v-quantile of the density ∝ x^{−n} on [a, b],
// 0 < a < b.
func inverseEdge(a, b float64, n int, v float64) float64 {
	if n == 1 {
		return a * math.Exp(v*math.Log(b/a))
	}
	t := float64(1 - n)
	// x^t = a^t (1 − v(1 − (b/a)^t))
	return a * math.Exp(math.Log1p(-v*(-math.Expm1(t*math.Log(b/a))))/t)
}

// TruncatedNormal draws from the normal law of the given mean and standard
// deviation std > 0 conditioned on [lo, hi] (lo < hi), by the inverse
// CDF: u uniform between Φ((lo − mean)/std) and Φ((hi − mean)/std), then
// mean + std·Φ⁻¹(u), clamped to [lo, hi]. Accurate while the interval is
// not far in one tail of the law (the posterior of a mean in [0, 1] after
// rewards in [0, 1], whose mean lies in the interval, is never). It
// panics if std is not positive or lo ≥ hi.
func TruncatedNormal(mean, std, lo, hi float64, rng *rand.Rand) float64 {
	if !(std > 0) || !(lo < hi) {
		panic("randdist: TruncatedNormal needs std > 0 and lo < hi")
	}
	cdf := func(x float64) float64 { return 0.5 * math.Erfc(-(x-mean)/(std*math.Sqrt2)) }
	a, b := cdf(lo), cdf(hi)
	u := a + (b-a)*rng.Float64()
	x := mean + std*math.Sqrt2*math.Erfinv(2*u-1)
	return min(max(x, lo), hi)
}
