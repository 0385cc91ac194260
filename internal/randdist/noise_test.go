package randdist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestUniformNoiseMean checks the exact posterior draw of the uniform-noise
// model against numerical integration: after rewards near the lower edge
// (where the noise's half-width shrinks with the mean), in the middle, near
// the upper edge and across an edge piece and the middle, the mean and the
// second moment of many draws are those of the density ∝ w(μ)^{−n} on the
// feasible means, w(μ) = min(h, μ, 1 − μ).
func TestUniformNoiseMean(t *testing.T) {
	const h = 0.0866
	for _, rewards := range [][]float64{{0.05, 0.09, 0.02}, {0.5, 0.45, 0.52, 0.49}, {0.97, 0.93}, {0.15}, {0.12, 0.1}, {}} {
		lo, hi := 0.0, 1.0
		for _, r := range rewards {
			lo, hi = max(lo, r-h, r/2), min(hi, r+h, (1+r)/2)
		}
		n := len(rewards)
		var z, m1, m2 float64
		const grid = 400000
		for i := range grid {
			mu := lo + (hi-lo)*(float64(i)+0.5)/grid
			d := math.Pow(min(h, mu, 1-mu), -float64(n))
			z += d
			m1 += mu * d
			m2 += mu * mu * d
		}
		m1, m2 = m1/z, m2/z
		rng := rand.New(rand.NewPCG(3, uint64(n)))
		const draws = 200000
		var s1, s2 float64
		for range draws {
			x := UniformNoiseMean(lo, hi, h, n, rng)
			if x < lo || x > hi {
				t.Fatalf("rewards %v: draw %v outside [%v, %v]", rewards, x, lo, hi)
			}
			s1 += x
			s2 += x * x
		}
		s1, s2 = s1/draws, s2/draws
		sd := math.Sqrt(max(m2-m1*m1, 0))
		if tol := 5 * sd / math.Sqrt(draws); math.Abs(s1-m1) > tol+1e-12 {
			t.Errorf("rewards %v: posterior mean of the draws %v, by integration %v (±%.2g)", rewards, s1, m1, tol)
		}
		if math.Abs(math.Sqrt(max(s2-s1*s1, 0))-sd) > 0.02*sd+1e-9 {
			t.Errorf("rewards %v: posterior sd of the draws %v, by integration %v", rewards, math.Sqrt(s2-s1*s1), sd)
		}
	}
}

// TestTruncatedNormal checks the truncated normal draws against the law's
// mean m + s(φ(α) − φ(β))/Z and variance s²(1 + (αφ(α) − βφ(β))/Z −
// ((φ(α) − φ(β))/Z)²), α = (lo − m)/s, β = (hi − m)/s, Z = Φ(β) − Φ(α):
// cut hard at one end, barely cut, and cut at both ends.
func TestTruncatedNormal(t *testing.T) {
	phi := func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
	Phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	for _, c := range []struct{ m, s, lo, hi float64 }{{0.02, 0.05, 0, 1}, {0.5, 0.01, 0, 1}, {0.98, 0.1, 0, 1}, {0.5, 2, 0, 1}} {
		a, b := (c.lo-c.m)/c.s, (c.hi-c.m)/c.s
		z := Phi(b) - Phi(a)
		d := (phi(a) - phi(b)) / z
		mean := c.m + c.s*d
		variance := c.s * c.s * (1 + (a*phi(a)-b*phi(b))/z - d*d)
		rng := rand.New(rand.NewPCG(5, 6))
		const draws = 200000
		var s1, s2 float64
		for range draws {
			x := TruncatedNormal(c.m, c.s, c.lo, c.hi, rng)
			if x < c.lo || x > c.hi {
				t.Fatalf("%+v: draw %v outside the interval", c, x)
			}
			s1 += x
			s2 += x * x
		}
		gotMean := s1 / draws
		gotVar := s2/draws - gotMean*gotMean
		if se := math.Sqrt(variance / draws); math.Abs(gotMean-mean) > 5*se {
			t.Errorf("%+v: mean %v, want %v (± %v)", c, gotMean, mean, se)
		}
		if math.Abs(gotVar-variance) > 0.02*variance {
			t.Errorf("%+v: variance %v, want %v", c, gotVar, variance)
		}
	}
	for _, bad := range [][4]float64{{0.5, 0, 0, 1}, {0.5, 0.1, 1, 1}, {0.5, math.NaN(), 0, 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("TruncatedNormal%v did not panic", bad)
				}
			}()
			TruncatedNormal(bad[0], bad[1], bad[2], bad[3], rand.New(rand.NewPCG(1, 1)))
		}()
	}
}
