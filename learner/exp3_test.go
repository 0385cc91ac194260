package learner_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

func TestExp3IXHandComputed(t *testing.T) {
	// K = 2, η = ln 2, γ = ½, x_1 = (½, ½).
	// Play 0 with reward 0: ℓ = 1, ℓ̂_0 = 1/(½ + ½) = 1, L̂ = (1, 0),
	// x ∝ (2^−1, 1) → (1/3, 2/3).
	// Play 1 with reward ½: ℓ = ½, ℓ̂_1 = ½/(2/3 + ½) = 3/7, L̂ = (1, 3/7),
	// x ∝ (2^−1, 2^−3/7) → x_0 = ½/(½ + 2^−3/7) ≈ 0.401013.
	l := newExp3IX(t, learner.Exp3IXConfig{Actions: 2, Eta: math.Ln2, Exploration: 0.5})
	assertPolicy(t, "x_1", l.Policy(0), []float64{0.5, 0.5}, 0)
	ok(t, l.Observe(0, 0, 0, 0))
	assertPolicy(t, "x_2", l.Policy(0), []float64{1.0 / 3, 2.0 / 3}, 1e-15)
	ok(t, l.Observe(0, 1, 0.5, 0))
	p := math.Pow(2, -3.0/7)
	assertPolicy(t, "x_3", l.Policy(0), []float64{0.5 / (0.5 + p), p / (0.5 + p)}, 1e-15)
	// A reward of 1 is a zero loss: nothing changes.
	ok(t, l.Observe(0, 0, 1, 0))
	assertPolicy(t, "x_4", l.Policy(0), []float64{0.5 / (0.5 + p), p / (0.5 + p)}, 1e-15)
}

func TestExp3IXRates(t *testing.T) {
	ln4 := math.Log(4)
	t.Run("horizon", func(t *testing.T) {
		// Neu (2015, Thm 1): η = sqrt(2 ln K/(K T)), γ = η/2; K = 4,
		// T = 1000 gives η = sqrt(ln 4/2000) ≈ 0.0263.
		l := newExp3IX(t, learner.Exp3IXConfig{Actions: 4, Horizon: 1000})
		eta := math.Sqrt(2 * ln4 / 4000)
		for range 3 {
			if l.Eta() != eta || l.Exploration() != eta/2 {
				t.Fatalf("rates (%v, %v), want (%v, %v)", l.Eta(), l.Exploration(), eta, eta/2)
			}
			ok(t, l.Observe(0, 2, 0.3, 0))
		}
	})
	t.Run("anytime", func(t *testing.T) {
		// η_t = sqrt(ln K/(K t)), γ_t = η_t/2.
		l := newExp3IX(t, learner.Exp3IXConfig{Actions: 4})
		for round := 1; round <= 4; round++ {
			eta := math.Sqrt(ln4 / (4 * float64(round)))
			if l.Eta() != eta || l.Exploration() != eta/2 {
				t.Fatalf("round %d: rates (%v, %v), want (%v, %v)", round, l.Eta(), l.Exploration(), eta, eta/2)
			}
			ok(t, l.Observe(0, 0, 0, 0))
		}
		// The first update uses η_2 on the estimate made with γ_1:
		// here every loss went to action 0, L̂_0 = Σ_t 1/(x_{t,0} + γ_t).
		l.Reset()
		eta1 := math.Sqrt(ln4 / 4)
		lhat := 1 / (0.25 + eta1/2)
		ok(t, l.Observe(0, 0, 0, 0))
		eta2 := math.Sqrt(ln4 / 8)
		w := math.Exp(-eta2 * lhat)
		assertPolicy(t, "x_2", l.Policy(0), []float64{w / (w + 3), 1 / (w + 3), 1 / (w + 3), 1 / (w + 3)}, 1e-15)
	})
	t.Run("explicit", func(t *testing.T) {
		l := newExp3IX(t, learner.Exp3IXConfig{Actions: 3, Horizon: 10, Eta: 0.3, Exploration: 0.05})
		if l.Eta() != 0.3 || l.Exploration() != 0.05 {
			t.Fatalf("rates (%v, %v), want (0.3, 0.05)", l.Eta(), l.Exploration())
		}
		l = newExp3IX(t, learner.Exp3IXConfig{Actions: 3, Eta: 0.3})
		if l.Eta() != 0.3 || l.Exploration() != 0.15 {
			t.Fatalf("rates (%v, %v), want (0.3, 0.15)", l.Eta(), l.Exploration())
		}
	})
	t.Run("one action", func(t *testing.T) {
		l := newExp3IX(t, learner.Exp3IXConfig{Actions: 1, Horizon: 5})
		for range 5 {
			ok(t, l.Observe(0, 0, 0.2, 0))
			assertPolicy(t, "policy", l.Policy(0), []float64{1}, 0)
		}
	})
}

func TestExp3IXConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  learner.Exp3IXConfig
		want string
	}{
		{learner.Exp3IXConfig{}, "Actions = 0"},
		{learner.Exp3IXConfig{Actions: 2, Horizon: -1}, "Horizon = -1"},
		{learner.Exp3IXConfig{Actions: 2, Eta: -1}, "Eta = -1"},
		{learner.Exp3IXConfig{Actions: 2, Eta: math.NaN()}, "Eta = NaN"},
		{learner.Exp3IXConfig{Actions: 2, Exploration: -0.1}, "Exploration = -0.1"},
		{learner.Exp3IXConfig{Actions: 2, Exploration: math.Inf(1)}, "Exploration = +Inf"},
	} {
		if _, err := learner.NewExp3IX(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("config %+v: error %v, want one mentioning %q", tc.cfg, err, tc.want)
		}
	}
}

// TestExp3IXSelfPlayAverage checks that the average iterate of Exp3-IX
// self-play with bandit feedback approaches the equilibrium as T grows.
// Measured (5 seeds, G1): mean average gap 0.057 at T = 1e3, 0.014 at 1e4,
// 0.0064 at 1e5.
func TestExp3IXSelfPlayAverage(t *testing.T) {
	const seeds = 3
	gap := func(rounds int) float64 {
		var s float64
		for seed := range uint64(seeds) {
			x := newExp3IX(t, learner.Exp3IXConfig{Actions: 2, Horizon: rounds})
			y := newExp3IX(t, learner.Exp3IXConfig{Actions: 2, Horizon: rounds})
			res := selfPlay(t, g1, x, y, play.SelfPlayConfig{Rounds: rounds}, rand.New(rand.NewPCG(seed, 11)))
			s += res.AverageGap
		}
		return s / seeds
	}
	short, long := gap(1000), gap(100000)
	t.Logf("mean average gap: %.4f at T = 1e3, %.4f at T = 1e5", short, long)
	if long >= short/3 || long >= 0.02 {
		t.Errorf("average gap %.4f at T = 1e5 vs %.4f at T = 1e3: want < 0.02 and a threefold drop", long, short)
	}
	// Bernoulli and exact rewards give policies on the simplex throughout.
	x := newExp3IX(t, learner.Exp3IXConfig{Actions: 2})
	y := newExp3IX(t, learner.Exp3IXConfig{Actions: 2})
	res := selfPlay(t, g1, x, y, play.SelfPlayConfig{Rounds: 1000, Noise: game.Exact{}}, rand.New(rand.NewPCG(1, 1)))
	if err := simplex.CheckDistribution("last x", res.LastX[0], 2); err != nil {
		t.Fatal(err)
	}
}
