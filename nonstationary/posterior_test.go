package nonstationary_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/nonstationary"
)

// randomPrior returns a prior of dimension p with a random mean and a
// random positive definite covariance.
func randomPrior(p int, rng *rand.Rand) nonstationary.LinearPrior {
	m := make([]float64, p)
	b := mat.NewDense(p, p, nil)
	for i := range p {
		m[i] = rng.NormFloat64()
		for j := range p {
			b.Set(i, j, rng.NormFloat64()/math.Sqrt(float64(p)))
		}
	}
	var c mat.Dense
	c.Mul(b, b.T())
	cov := make([][]float64, p)
	for i := range cov {
		cov[i] = make([]float64, p)
		for j := range cov[i] {
			cov[i][j] = c.At(i, j)
		}
		cov[i][i] += 0.1
	}
	return nonstationary.LinearPrior{Mean: m, Cov: cov, NoiseVar: 0.7}
}

// TestLinearPosteriorClosedForm checks the sequential posterior of two
// hypotheses (different scales and shifts) against the batch formulas of
// Bayesian linear regression, Σ = (Σ₀⁻¹ + XᵀX/v)⁻¹ and μ = Σ(Σ₀⁻¹μ₀ +
// Xᵀy/v) with y = (r − s)/c, and the hypotheses' weights against the
// marginal likelihood r ~ N(C·Xμ₀ + s, C(XΣ₀Xᵀ + vI)C) computed as one
// multivariate normal density.
func TestLinearPosteriorClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const p, n = 4, 9
	pr := randomPrior(p, rng)
	pr.Hypotheses = []nonstationary.LinearHypothesis{
		{Weight: 0.3, Scale: func(t int) float64 { return -0.9 + 0.2*math.Sin(float64(t)) }},
		{Weight: 0.7, Scale: func(t int) float64 { return 0.6 + 0.05*float64(t) }, Shift: func(t int) float64 { return 0.2 }},
	}
	lp, err := nonstationary.NewLinearPosterior(pr)
	if err != nil {
		t.Fatal(err)
	}
	X := mat.NewDense(n, p, nil)
	r := make([]float64, n)
	for i := range n {
		a := make([]float64, p)
		for j := range a {
			a[j] = rng.NormFloat64()
		}
		X.SetRow(i, a)
		r[i] = rng.NormFloat64()
		if err := lp.Observe(i+1, a, r[i]); err != nil {
			t.Fatal(err)
		}
	}
	S0 := mat.NewSymDense(p, nil)
	for i := range p {
		for j := range p {
			S0.SetSym(i, j, pr.Cov[i][j])
		}
	}
	var S0inv mat.Dense
	if err := S0inv.Inverse(S0); err != nil {
		t.Fatal(err)
	}
	logw := make([]float64, 2)
	for h, hy := range pr.Hypotheses {
		y := mat.NewVecDense(n, nil)
		c := make([]float64, n)
		for i := range n {
			c[i] = hy.Scale(i + 1)
			s := 0.0
			if hy.Shift != nil {
				s = hy.Shift(i + 1)
			}
			y.SetVec(i, (r[i]-s)/c[i])
		}
		var prec, cov mat.Dense
		prec.Mul(X.T(), X)
		prec.Scale(1/pr.NoiseVar, &prec)
		prec.Add(&prec, &S0inv)
		if err := cov.Inverse(&prec); err != nil {
			t.Fatal(err)
		}
		var rhs, xty, mu mat.VecDense
		rhs.MulVec(&S0inv, mat.NewVecDense(p, pr.Mean))
		xty.MulVec(X.T(), y)
		xty.ScaleVec(1/pr.NoiseVar, &xty)
		rhs.AddVec(&rhs, &xty)
		mu.MulVec(&cov, &rhs)
		for i := range p {
			if d := math.Abs(lp.Mean(h)[i] - mu.AtVec(i)); d > 1e-10 {
				t.Errorf("hypothesis %d: μ[%d] = %v, closed form %v", h, i, lp.Mean(h)[i], mu.AtVec(i))
			}
			for j := range p {
				if d := math.Abs(lp.Cov(h)[i][j] - cov.At(i, j)); d > 1e-10 {
					t.Errorf("hypothesis %d: Σ[%d][%d] = %v, closed form %v", h, i, j, lp.Cov(h)[i][j], cov.At(i, j))
				}
			}
		}
		// Marginal likelihood of r.
		var K mat.Dense
		K.Product(X, S0, X.T())
		m := mat.NewVecDense(n, nil)
		m.MulVec(X, mat.NewVecDense(p, pr.Mean))
		KS := mat.NewSymDense(n, nil)
		for i := range n {
			for j := range n {
				v := K.At(i, j)
				if i == j {
					v += pr.NoiseVar
				}
				KS.SetSym(i, j, c[i]*c[j]*v)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(KS) {
			t.Fatal("marginal covariance not positive definite")
		}
		e := mat.NewVecDense(n, nil)
		for i := range n {
			s := 0.0
			if hy.Shift != nil {
				s = hy.Shift(i + 1)
			}
			e.SetVec(i, r[i]-(c[i]*m.AtVec(i)+s))
		}
		var sol mat.VecDense
		if err := ch.SolveVecTo(&sol, e); err != nil {
			t.Fatal(err)
		}
		logw[h] = math.Log(hy.Weight) - 0.5*(float64(n)*math.Log(2*math.Pi)+ch.LogDet()+mat.Dot(e, &sol))
	}
	z := math.Log(math.Exp(logw[0]) + math.Exp(logw[1]))
	w := lp.Weights(nil)
	for h := range w {
		if d := math.Abs(w[h] - math.Exp(logw[h]-z)); d > 1e-10 {
			t.Errorf("weight of hypothesis %d = %v, closed form %v", h, w[h], math.Exp(logw[h]-z))
		}
	}
}

// TestBestArmTwoArms checks the Monte Carlo probability of the best arm
// against the closed form with two arms, P(arm 0) = Φ(c·m/s) with m =
// (a₀ − a₁)ᵀμ and s² = (a₀ − a₁)ᵀΣ(a₀ − a₁), for a positive and a negative
// scale.
func TestBestArmTwoArms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pr := randomPrior(3, rng)
	a := [][]float64{{0.3, -0.2, 0.5}, {0.1, 0.4, -0.3}}
	for _, c := range []float64{1, -0.5} {
		pr.Hypotheses = []nonstationary.LinearHypothesis{{Weight: 1, Scale: func(int) float64 { return c }}}
		lp, err := nonstationary.NewLinearPosterior(pr)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			if err := lp.Observe(i+1, a[i%2], rng.NormFloat64()); err != nil {
				t.Fatal(err)
			}
		}
		d := []float64{a[0][0] - a[1][0], a[0][1] - a[1][1], a[0][2] - a[1][2]}
		var m, s2 float64
		for i := range d {
			m += d[i] * lp.Mean(0)[i]
			for j := range d {
				s2 += d[i] * lp.Cov(0)[i][j] * d[j]
			}
		}
		want := 0.5 * math.Erfc(-math.Copysign(1, c)*m/math.Sqrt(2*s2))
		const n = 40000
		got, err := lp.BestArm(nil, 6, a, n, rng)
		if err != nil {
			t.Fatal(err)
		}
		tol := 4 * math.Sqrt(want*(1-want)/n)
		if math.Abs(got[0]-want) > tol || math.Abs(got[0]+got[1]-1) > 1e-12 {
			t.Errorf("c = %v: P(arm 0 best) = %v, closed form %v (±%.4f)", c, got[0], want, tol)
		}
	}
}

// TestPosteriorSamplingFrequencies checks that posterior sampling plays an
// arm with the posterior probability that it is the best (the defining
// property of Thompson sampling), against the closed form at the prior.
func TestPosteriorSamplingFrequencies(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pr := randomPrior(2, rng)
	a := [][]float64{{1, 0}, {0, 1}}
	ps, err := nonstationary.NewPosteriorSampling(nonstationary.PosteriorConfig{Prior: func([][]float64) (nonstationary.LinearPrior, error) { return pr, nil }})
	if err != nil {
		t.Fatal(err)
	}
	m := pr.Mean[0] - pr.Mean[1]
	s2 := pr.Cov[0][0] + pr.Cov[1][1] - 2*pr.Cov[0][1]
	want := 0.5 * math.Erfc(-m/math.Sqrt(2*s2))
	const n = 40000
	var zeros int
	for range n {
		if k, _ := ps.Act(1, a, rng); k == 0 {
			zeros++
		}
	}
	got := float64(zeros) / n
	if tol := 4 * math.Sqrt(want*(1-want)/n); math.Abs(got-want) > tol {
		t.Errorf("posterior sampling plays arm 0 with frequency %v, P(arm 0 best) = %v (±%.4f)", got, want, tol)
	}
}

// TestPosteriorConsistentOnScenarios checks, on the paper's two
// scenarios, that after the rounds of a run the posterior puts most of its
// mass on the environment's best arm at the last round, and in the high
// scenario on the environment's frequency.
func TestPosteriorConsistentOnScenarios(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const d, A, T = 8, 6, 600
	w, acts := nonstationary.SampleLBMInstance(d, A, rng)
	set, err := nonstationary.FixedActions(acts)
	if err != nil {
		t.Fatal(err)
	}
	bs := []float64{0.005, 0.01, 0.015, 0.02}
	high, err := nonstationary.NewCosine(w, set, 0.5, bs[2], T)
	if err != nil {
		t.Fatal(err)
	}
	lowCfg := nonstationary.PaperLowConfig(w, set)
	lowCfg.Horizon, lowCfg.NoiseStd = T, 0.5
	low, err := nonstationary.NewLowNonStationary(lowCfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		env   *nonstationary.Linear
		prior func([][]float64) (nonstationary.LinearPrior, error)
	}{
		{"high", high, func([][]float64) (nonstationary.LinearPrior, error) { return nonstationary.HighPrior(d, 0.5, bs) }},
		{"low", low, func(a [][]float64) (nonstationary.LinearPrior, error) {
			return nonstationary.LowPrior(a, 0.5, lowCfg.Windows, lowCfg.Shift, 4000, rand.New(rand.NewPCG(1, 1)))
		}},
	} {
		ps, err := nonstationary.NewPosteriorSampling(nonstationary.PosteriorConfig{Prior: c.prior, LabelSamples: 2000})
		if err != nil {
			t.Fatal(err)
		}
		for tt := 1; tt <= T; tt++ {
			k := rng.IntN(A)
			if err := ps.Observe(tt, acts, k, c.env.Sample(tt, k, rng)); err != nil {
				t.Fatal(err)
			}
		}
		best := 0
		for k := range A {
			if c.env.Mean(T, k) > c.env.Mean(T, best) {
				best = k
			}
		}
		lab, err := ps.Label(nil, T, acts, rng)
		if err != nil {
			t.Fatal(err)
		}
		if lab[best] < 0.8 {
			t.Errorf("%s: P(best arm %d) = %v after %d rounds, want ≥ 0.8 (labels %v)", c.name, best, lab[best], T, lab)
		}
		if c.name == "high" {
			if wts := ps.Posterior().Weights(nil); wts[2] < 0.99 {
				t.Errorf("high: posterior of the frequencies %v, want ≥ 0.99 on b = %v", wts, bs[2])
			}
		}
	}
}

// TestPosteriorBadInput checks the errors of the constructors and methods.
func TestPosteriorBadInput(t *testing.T) {
	ok := nonstationary.LinearPrior{Mean: []float64{0, 0}, Cov: [][]float64{{1, 0}, {0, 1}}, NoiseVar: 1}
	for name, c := range map[string]struct {
		mod  func(p *nonstationary.LinearPrior)
		want error
	}{
		"empty":       {func(p *nonstationary.LinearPrior) { p.Mean, p.Cov = nil, nil }, icrl.ErrInvalid},
		"ragged":      {func(p *nonstationary.LinearPrior) { p.Cov = [][]float64{{1}, {0, 1}} }, icrl.ErrInvalid},
		"not PD":      {func(p *nonstationary.LinearPrior) { p.Cov = [][]float64{{1, 2}, {2, 1}} }, icrl.ErrInvalid},
		"NaN mean":    {func(p *nonstationary.LinearPrior) { p.Mean = []float64{math.NaN(), 0} }, icrl.ErrNotFinite},
		"noise 0":     {func(p *nonstationary.LinearPrior) { p.NoiseVar = 0 }, icrl.ErrInvalid},
		"weight < 0":  {func(p *nonstationary.LinearPrior) { p.Hypotheses = []nonstationary.LinearHypothesis{{Weight: -1}} }, icrl.ErrInvalid},
		"weights 0":   {func(p *nonstationary.LinearPrior) { p.Hypotheses = []nonstationary.LinearHypothesis{{}} }, icrl.ErrInvalid},
		"intercept 1": {func(p *nonstationary.LinearPrior) { p.Mean, p.Cov, p.Intercept = []float64{0}, [][]float64{{1}}, true }, icrl.ErrInvalid},
	} {
		p := ok
		c.mod(&p)
		if _, err := nonstationary.NewLinearPosterior(p); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	lp, err := nonstationary.NewLinearPosterior(ok)
	if err != nil {
		t.Fatal(err)
	}
	if err := lp.Observe(1, []float64{1}, 0); !errors.Is(err, icrl.ErrShape) {
		t.Errorf("arm of dimension 1: %v", err)
	}
	if err := lp.Observe(1, []float64{1, 0}, math.Inf(1)); !errors.Is(err, icrl.ErrNotFinite) {
		t.Errorf("infinite reward: %v", err)
	}
	if _, err := lp.BestArm(nil, 1, [][]float64{{1, 0}}, 0, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("0 samples: %v", err)
	}
	if _, err := lp.BestArm(nil, 1, [][]float64{{1, 0}}, 1, nil); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("nil rng: %v", err)
	}
	if _, err := nonstationary.NewPosteriorSampling(nonstationary.PosteriorConfig{}); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("nil prior: %v", err)
	}
	ps, _ := nonstationary.NewPosteriorSampling(nonstationary.PosteriorConfig{Prior: func([][]float64) (nonstationary.LinearPrior, error) {
		return nonstationary.LinearPrior{}, icrl.ErrInvalid
	}})
	if k, _ := ps.Act(1, [][]float64{{1, 0}}, rand.New(rand.NewPCG(1, 1))); k != -1 {
		t.Errorf("Act with a failing prior plays %d, want −1", k)
	}
	if err := ps.Observe(1, [][]float64{{1, 0}}, 0, 0); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("Observe after a failing prior: %v", err)
	}
	if _, err := nonstationary.HighPrior(0, 1, []float64{0.01}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("HighPrior d = 0: %v", err)
	}
	if _, err := nonstationary.LowPrior([][]float64{{1}, {2}}, 1, nil, 0, 10, nil); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("LowPrior nil rng: %v", err)
	}
}
