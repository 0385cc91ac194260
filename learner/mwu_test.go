package learner_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

// This file holds the MWU and OptimisticMWU tests and the invariant checks
// shared by every classical learner of mwu.go, exp3.go and regret.go.

// g1 is the game G1 = [[1,0],[0,0.5]]: unique interior equilibrium
// x* = y* = (1/3, 2/3), value 1/3.
var g1 = game.MustZeroSum([][]float64{{1, 0}, {0, 0.5}})

func mustRescale(t testing.TB, g *game.ZeroSum, lo, hi float64) *game.ZeroSum {
	t.Helper()
	out, _, err := game.Rescale(g, lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// assertPolicy checks p against want entrywise within tol.
func assertPolicy(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: policy %v has length %d, want %v", what, got, len(got), want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol {
			t.Fatalf("%s: policy %v, want %v (entry %d off by %.3g)", what, got, want, i, got[i]-want[i])
		}
	}
}

func ok(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newMWU(t testing.TB, cfg learner.MWUConfig) *learner.MWU {
	t.Helper()
	l, err := learner.NewMWU(cfg)
	ok(t, err)
	return l
}

func newOMWU(t testing.TB, cfg learner.MWUConfig) *learner.OptimisticMWU {
	t.Helper()
	l, err := learner.NewOptimisticMWU(cfg)
	ok(t, err)
	return l
}

func newExp3IX(t testing.TB, cfg learner.Exp3IXConfig) *learner.Exp3IX {
	t.Helper()
	l, err := learner.NewExp3IX(cfg)
	ok(t, err)
	return l
}

func newRM(t testing.TB, cfg learner.RegretMatchingConfig) *learner.RegretMatching {
	t.Helper()
	l, err := learner.NewRegretMatching(cfg)
	ok(t, err)
	return l
}

func selfPlay(t testing.TB, g *game.ZeroSum, row, col learner.Learner, cfg play.SelfPlayConfig, rng *rand.Rand) *play.SelfPlayResult {
	t.Helper()
	res, err := play.SelfPlay(context.Background(), g, row, col, cfg, rng)
	ok(t, err)
	return res
}

func dualityGap(t testing.TB, g *game.ZeroSum, x, y []float64) float64 {
	t.Helper()
	v, err := g.DualityGap(x, y)
	ok(t, err)
	return v
}

func TestMWUHandComputed(t *testing.T) {
	ln2, ln3 := math.Ln2, math.Log(3)
	t.Run("full information", func(t *testing.T) {
		// K = 2, η = ln 2, u = (1, 0): q ∝ (½·2, ½·1) = (2/3, 1/3).
		l := newMWU(t, learner.MWUConfig{Actions: 2, Eta: ln2})
		assertPolicy(t, "x_1", l.Policy(0), []float64{0.5, 0.5}, 0)
		ok(t, l.ObserveRewards([]float64{1, 0}))
		assertPolicy(t, "x_2", l.Policy(0), []float64{2.0 / 3, 1.0 / 3}, 1e-15)
	})
	t.Run("full information K=3", func(t *testing.T) {
		// K = 3, η = ln 2, u_1 = (1, 0, 1): weights (2, 1, 2)/5.
		// u_2 = (0, 2, 0): weights (2, 4, 2)/8 = (¼, ½, ¼).
		l := newMWU(t, learner.MWUConfig{Actions: 3, Eta: ln2})
		ok(t, l.ObserveRewards([]float64{1, 0, 1}))
		assertPolicy(t, "x_2", l.Policy(0), []float64{0.4, 0.2, 0.4}, 1e-15)
		ok(t, l.ObserveRewards([]float64{0, 2, 0}))
		assertPolicy(t, "x_3", l.Policy(0), []float64{0.25, 0.5, 0.25}, 1e-15)
	})
	t.Run("init", func(t *testing.T) {
		// Init (¼, ¾), η = ln 3, u = (1, 0): (¾, ¾) normalised = (½, ½).
		l := newMWU(t, learner.MWUConfig{Actions: 2, Eta: ln3, Init: []float64{0.25, 0.75}})
		assertPolicy(t, "x_1", l.Policy(0), []float64{0.25, 0.75}, 1e-15)
		ok(t, l.ObserveRewards([]float64{1, 0}))
		assertPolicy(t, "x_2", l.Policy(0), []float64{0.5, 0.5}, 1e-15)
		l.Reset()
		assertPolicy(t, "after Reset", l.Policy(0), []float64{0.25, 0.75}, 1e-15)
	})
	t.Run("bandit", func(t *testing.T) {
		// K = 2, η = ln 2, γ = 0. Play 0 (prob ½) with reward ½: û = (1, 0),
		// q ∝ (2, 1) → (2/3, 1/3). Play 1 (prob 1/3) with reward 1/3:
		// û = (0, 1), q ∝ (2/3·1, 1/3·2) → (½, ½).
		l := newMWU(t, learner.MWUConfig{Actions: 2, Eta: ln2})
		ok(t, l.Observe(0, 0, 0.5, 0))
		assertPolicy(t, "x_2", l.Policy(0), []float64{2.0 / 3, 1.0 / 3}, 1e-15)
		ok(t, l.Observe(0, 1, 1.0/3, 0))
		assertPolicy(t, "x_3", l.Policy(0), []float64{0.5, 0.5}, 1e-15)
	})
	t.Run("bandit with exploration floor (Exp3)", func(t *testing.T) {
		// K = 2, η = ln 2, γ = ½: x_1 = (½, ½). Play 1 with reward ¼:
		// û_1 = ¼/½ = ½, q ∝ (1, 2^½) so q_1 = √2/(1+√2) = 2 − √2, and
		// x_2 = ½q + ¼ = (√2/2 − ¼, 5/4 − √2/2) ≈ (0.457107, 0.542893).
		l := newMWU(t, learner.MWUConfig{Actions: 2, Eta: ln2, Floor: 0.5})
		assertPolicy(t, "x_1", l.Policy(0), []float64{0.5, 0.5}, 0)
		ok(t, l.Observe(0, 1, 0.25, 0))
		s := math.Sqrt2 / 2
		assertPolicy(t, "x_2", l.Policy(0), []float64{s - 0.25, 1.25 - s}, 1e-15)
	})
	t.Run("default eta", func(t *testing.T) {
		l := newMWU(t, learner.MWUConfig{Actions: 2})
		if l.Eta() != 0.1 {
			t.Errorf("Eta() = %v, want the default 0.1", l.Eta())
		}
	})
}

func TestOptimisticMWUHandComputed(t *testing.T) {
	ln2 := math.Ln2
	t.Run("full information", func(t *testing.T) {
		// K = 2, η = ln 2, u_0 = 0.
		// u_1 = (1, 0): exponent 2u_1 − u_0 = (2, 0), x ∝ (4, 1) → (0.8, 0.2).
		// u_2 = (0, 1): exponent (−1, 2), x ∝ (0.4, 0.8) → (1/3, 2/3).
		// u_3 = (0, 1): exponent (0, 1), x ∝ (1/3, 4/3) → (0.2, 0.8).
		l := newOMWU(t, learner.MWUConfig{Actions: 2, Eta: ln2})
		ok(t, l.ObserveRewards([]float64{1, 0}))
		assertPolicy(t, "x_2", l.Policy(0), []float64{0.8, 0.2}, 1e-15)
		ok(t, l.ObserveRewards([]float64{0, 1}))
		assertPolicy(t, "x_3", l.Policy(0), []float64{1.0 / 3, 2.0 / 3}, 1e-15)
		ok(t, l.ObserveRewards([]float64{0, 1}))
		assertPolicy(t, "x_4", l.Policy(0), []float64{0.2, 0.8}, 1e-15)
		// Reset forgets u_{t−1}: the first step again uses u_0 = 0.
		l.Reset()
		assertPolicy(t, "after Reset", l.Policy(0), []float64{0.5, 0.5}, 0)
		ok(t, l.ObserveRewards([]float64{1, 0}))
		assertPolicy(t, "x_2 after Reset", l.Policy(0), []float64{0.8, 0.2}, 1e-15)
	})
	t.Run("bandit", func(t *testing.T) {
		// K = 2, η = ln 2, γ = 0. Play 0 (prob ½) with reward ½: û_1 = (1, 0),
		// x ∝ (4, 1) → (0.8, 0.2). Play 1 (prob 0.2) with reward 0.1:
		// û_2 = (0, 0.5), exponent 2û_2 − û_1 = (−1, 1), x ∝ (0.4, 0.4) → (½, ½).
		l := newOMWU(t, learner.MWUConfig{Actions: 2, Eta: ln2})
		ok(t, l.Observe(0, 0, 0.5, 0))
		assertPolicy(t, "x_2", l.Policy(0), []float64{0.8, 0.2}, 1e-15)
		ok(t, l.Observe(0, 1, 0.1, 0))
		assertPolicy(t, "x_3", l.Policy(0), []float64{0.5, 0.5}, 1e-15)
	})
	t.Run("bandit with exploration floor", func(t *testing.T) {
		// K = 2, η = ln 2, γ = 0.4. x_1 = (½, ½). Play 0 with reward ½:
		// û = (1, 0), q ∝ (4, 1) = (0.8, 0.2), x = 0.6q + 0.2 = (0.68, 0.32).
		l := newOMWU(t, learner.MWUConfig{Actions: 2, Eta: ln2, Floor: 0.4})
		ok(t, l.Observe(0, 0, 0.5, 0))
		assertPolicy(t, "x_2", l.Policy(0), []float64{0.68, 0.32}, 1e-15)
	})
}

// classical lists constructors of every classical learner of this package,
// for the shared invariant tests. full reports whether it accepts
// full-information feedback.
type classical struct {
	name string
	k    int
	full bool
	make func(t testing.TB) learner.Learner
}

func classicalLearners() []classical {
	return []classical{
		{"MWU", 3, true, func(t testing.TB) learner.Learner {
			return newMWU(t, learner.MWUConfig{Actions: 3, Eta: 0.3})
		}},
		{"MWU/Exp3", 4, true, func(t testing.TB) learner.Learner {
			return newMWU(t, learner.MWUConfig{Actions: 4, Eta: 0.05, Floor: 0.2, Init: []float64{0.1, 0.2, 0.3, 0.4}})
		}},
		{"OptimisticMWU", 3, true, func(t testing.TB) learner.Learner {
			return newOMWU(t, learner.MWUConfig{Actions: 3, Eta: 0.2})
		}},
		{"OptimisticMWU/floor", 5, true, func(t testing.TB) learner.Learner {
			return newOMWU(t, learner.MWUConfig{Actions: 5, Eta: 0.1, Floor: 0.1})
		}},
		{"Exp3IX/horizon", 3, false, func(t testing.TB) learner.Learner {
			return newExp3IX(t, learner.Exp3IXConfig{Actions: 3, Horizon: 100})
		}},
		{"Exp3IX/anytime", 4, false, func(t testing.TB) learner.Learner {
			return newExp3IX(t, learner.Exp3IXConfig{Actions: 4})
		}},
		{"RM", 3, true, func(t testing.TB) learner.Learner {
			return newRM(t, learner.RegretMatchingConfig{Actions: 3, Floor: 0.1})
		}},
		{"RM+", 4, true, func(t testing.TB) learner.Learner {
			return newRM(t, learner.RegretMatchingConfig{Actions: 4, Plus: true, Floor: 0.1, LinearAverage: true})
		}},
		{"RM/no floor", 2, true, func(t testing.TB) learner.Learner {
			return newRM(t, learner.RegretMatchingConfig{Actions: 2})
		}},
	}
}

// feed gives l one round of random feedback: full information if full, else
// an action drawn from the policy with a uniform reward.
func feed(t *testing.T, l learner.Learner, full bool, rng *rand.Rand) {
	t.Helper()
	k := len(l.Policy(0))
	if full {
		u := make([]float64, k)
		for i := range u {
			u[i] = rng.Float64()
		}
		if err := l.(learner.FullInformationLearner).ObserveRewards(u); err != nil {
			t.Fatal(err)
		}
		return
	}
	a := simplex.SampleCategorical(l.Policy(0), rng)
	if err := l.Observe(0, a, rng.Float64(), 0); err != nil {
		t.Fatal(err)
	}
}

func TestClassicalLearnersStayOnSimplex(t *testing.T) {
	for _, c := range classicalLearners() {
		for _, full := range []bool{false, true} {
			if full && !c.full {
				continue
			}
			l := c.make(t)
			if _, ok := l.(learner.FullInformationLearner); ok != c.full {
				t.Fatalf("%s: implements FullInformationLearner = %v, want %v", c.name, ok, c.full)
			}
			rng := rand.New(rand.NewPCG(7, uint64(len(c.name))))
			for step := range 2000 {
				if err := simplex.CheckDistribution(c.name+" policy", l.Policy(0), c.k); err != nil {
					t.Fatalf("%s (full=%v) step %d: %v", c.name, full, step, err)
				}
				feed(t, l, full, rng)
			}
			if rm, ok := l.(*learner.RegretMatching); ok {
				if err := simplex.CheckDistribution(c.name+" average", rm.Average(), c.k); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func TestClassicalLearnersReset(t *testing.T) {
	for _, c := range classicalLearners() {
		fresh := c.make(t)
		l := c.make(t)
		x1 := slices.Clone(l.Policy(0))
		// A trajectory from the initial state, then Reset, then the same
		// feedback again: it must be reproduced bit for bit.
		run := func() [][]float64 {
			rng := rand.New(rand.NewPCG(3, 4))
			var traj [][]float64
			for range 50 {
				feed(t, l, false, rng)
				traj = append(traj, slices.Clone(l.Policy(0)))
			}
			if c.full {
				for range 50 {
					feed(t, l, true, rng)
					traj = append(traj, slices.Clone(l.Policy(0)))
				}
			}
			return traj
		}
		first := run()
		l.Reset()
		if !slices.Equal(l.Policy(0), x1) || !slices.Equal(l.Policy(0), fresh.Policy(0)) {
			t.Fatalf("%s: policy after Reset %v, want the initial %v", c.name, l.Policy(0), x1)
		}
		if rm, ok := l.(*learner.RegretMatching); ok && !slices.Equal(rm.Average(), x1) {
			t.Fatalf("%s: average after Reset %v, want %v", c.name, rm.Average(), x1)
		}
		second := run()
		for i := range first {
			if !slices.Equal(first[i], second[i]) {
				t.Fatalf("%s: step %d after Reset gives %v, before %v", c.name, i, second[i], first[i])
			}
		}
	}
}

func TestClassicalLearnersRejectBadFeedback(t *testing.T) {
	for _, c := range classicalLearners() {
		ref, l := c.make(t), c.make(t)
		rng1 := rand.New(rand.NewPCG(5, 6))
		rng2 := rand.New(rand.NewPCG(5, 6))
		k := c.k
		type bad struct {
			action int
			reward float64
			want   string
		}
		bads := []bad{
			{0, math.NaN(), "NaN"},
			{1, math.Inf(1), "+Inf"},
			{0, math.Inf(-1), "-Inf"},
			{-1, 0.5, "action -1 is not in"},
			{k, 0.5, "out of range"},
		}
		badVectors := []struct {
			u    []float64
			want string
		}{
			{make([]float64, k+1), "length"},
			{make([]float64, k-1), "length"},
			{nil, "length 0"},
			{append(make([]float64, k-1), math.NaN()), "NaN"},
			{append([]float64{math.Inf(1)}, make([]float64, k-1)...), "+Inf"},
		}
		for step := range 30 {
			before := slices.Clone(l.Policy(0))
			for _, b := range bads {
				err := l.Observe(0, b.action, b.reward, 0)
				if err == nil || !strings.Contains(err.Error(), b.want) {
					t.Fatalf("%s: Observe(%d, %v) = %v, want an error mentioning %q", c.name, b.action, b.reward, err, b.want)
				}
			}
			if fl, ok := l.(learner.FullInformationLearner); ok {
				for _, b := range badVectors {
					err := fl.ObserveRewards(b.u)
					if err == nil || !strings.Contains(err.Error(), b.want) {
						t.Fatalf("%s: ObserveRewards(%v) = %v, want an error mentioning %q", c.name, b.u, err, b.want)
					}
				}
			}
			if !slices.Equal(l.Policy(0), before) {
				t.Fatalf("%s: a rejected observation changed the policy from %v to %v", c.name, before, l.Policy(0))
			}
			// The hidden state is unchanged too: l keeps tracking ref.
			full := c.full && step%2 == 1
			feed(t, ref, full, rng1)
			feed(t, l, full, rng2)
			if !slices.Equal(l.Policy(0), ref.Policy(0)) {
				t.Fatalf("%s step %d: after rejected observations the policy is %v, without them %v", c.name, step, l.Policy(0), ref.Policy(0))
			}
		}
	}
}

func TestClassicalLearnersDoNotAllocate(t *testing.T) {
	for _, c := range classicalLearners() {
		l := c.make(t)
		rng := rand.New(rand.NewPCG(1, 1))
		u := make([]float64, c.k)
		allocs := testing.AllocsPerRun(200, func() {
			p := l.Policy(0)
			a := simplex.SampleCategorical(p, rng)
			if err := l.Observe(0, a, rng.Float64(), 0); err != nil {
				t.Fatal(err)
			}
			if fl, ok := l.(learner.FullInformationLearner); ok {
				for i := range u {
					u[i] = rng.Float64()
				}
				if err := fl.ObserveRewards(u); err != nil {
					t.Fatal(err)
				}
			}
			if rm, ok := l.(*learner.RegretMatching); ok {
				_ = rm.Average()
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per step, want 0", c.name, allocs)
		}
	}
}

func TestMWUConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  learner.MWUConfig
		want string
	}{
		{learner.MWUConfig{Actions: 0}, "Actions = 0"},
		{learner.MWUConfig{Actions: -2}, "Actions = -2"},
		{learner.MWUConfig{Actions: 2, Eta: -0.1}, "Eta = -0.1"},
		{learner.MWUConfig{Actions: 2, Eta: math.NaN()}, "Eta = NaN"},
		{learner.MWUConfig{Actions: 2, Eta: math.Inf(1)}, "Eta = +Inf"},
		{learner.MWUConfig{Actions: 2, Floor: 1}, "Floor = 1"},
		{learner.MWUConfig{Actions: 2, Floor: -0.5}, "Floor = -0.5"},
		{learner.MWUConfig{Actions: 2, Init: []float64{1}}, "length 1"},
		{learner.MWUConfig{Actions: 2, Init: []float64{0.7, 0.7}}, "sums to 1.4"},
		{learner.MWUConfig{Actions: 2, Init: []float64{1, 0}}, "Init[1] = 0"},
		{learner.MWUConfig{Actions: 2, Init: []float64{math.NaN(), 1}}, "NaN"},
	} {
		_, err1 := learner.NewMWU(tc.cfg)
		_, err2 := learner.NewOptimisticMWU(tc.cfg)
		for _, err := range []error{err1, err2} {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("config %+v: error %v, want one mentioning %q", tc.cfg, err, tc.want)
			}
		}
	}
}

func TestMWUZeroProbabilityAction(t *testing.T) {
	// An action whose probability underflowed to zero cannot have been
	// drawn: its importance-weighted estimate is rejected.
	l := newMWU(t, learner.MWUConfig{Actions: 2, Eta: 1000})
	for range 2 {
		ok(t, l.ObserveRewards([]float64{1, 0}))
	}
	if p := l.Policy(0)[1]; p != 0 {
		t.Fatalf("policy %v, want action 1 at probability 0", l.Policy(0))
	}
	before := slices.Clone(l.Policy(0))
	if err := l.Observe(0, 1, 0, 0); err == nil || !strings.Contains(err.Error(), "probability 0") {
		t.Fatalf("Observe of a zero-probability action: %v, want an error", err)
	}
	if !slices.Equal(before, l.Policy(0)) {
		t.Fatal("rejected observation changed the policy")
	}
}

func TestMWUHugeUpdatesStayFinite(t *testing.T) {
	// Log-space weights: a billion rounds' worth of reward in one step
	// neither overflows nor produces NaN.
	l := newOMWU(t, learner.MWUConfig{Actions: 3, Eta: 1})
	for range 10 {
		ok(t, l.ObserveRewards([]float64{1e9, 0, 0}))
		if err := simplex.CheckDistribution("policy", l.Policy(0), 3); err != nil {
			t.Fatal(err)
		}
	}
	assertPolicy(t, "after huge rewards", l.Policy(0), []float64{1, 0, 0}, 0)
	if err := l.ObserveRewards([]float64{math.MaxFloat64, 0, 0}); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Fatalf("overflowing update: %v, want an error", err)
	}
}

// TestOptimisticMWULastIterate is the acceptance test of OMWU: with full
// information on games with a unique interior equilibrium, the last iterate
// converges (Daskalakis and Panageas 2019), while plain MWU's last iterate
// cycles away from the equilibrium and only its average converges.
func TestOptimisticMWULastIterate(t *testing.T) {
	brps := mustRescale(t, game.BiasedRPS(), -0.5, 0.5)
	for _, tc := range []struct {
		name   string
		g      *game.ZeroSum
		eta    float64
		rounds int
	}{
		// Measured: OMWU last gap 8.9e-16 at T = 1e5 and 1.3e-3 at T = 1e4;
		// MWU last 0.50, average 1.5e-3 at T = 1e5.
		{"G1", g1, 0.1, 50000},
		// Measured: OMWU last 2.0e-5 at T = 1e4; MWU last 0.097, average
		// 2.2e-3.
		{"BiasedRPS", brps, 0.5, 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, n := tc.g.Dims()
			cfg := play.SelfPlayConfig{Rounds: tc.rounds, Feedback: play.FullInformation}
			x := newOMWU(t, learner.MWUConfig{Actions: m, Eta: tc.eta})
			y := newOMWU(t, learner.MWUConfig{Actions: n, Eta: tc.eta})
			res := selfPlay(t, tc.g, x, y, cfg, rand.New(rand.NewPCG(1, 2)))
			t.Logf("OMWU: last gap %.3g, average gap %.3g", res.LastGap, res.AverageGap)
			if res.LastGap >= 1e-3 {
				t.Errorf("OMWU last-iterate gap %.3g after %d rounds, want < 1e-3", res.LastGap, tc.rounds)
			}

			xm := newMWU(t, learner.MWUConfig{Actions: m, Eta: tc.eta})
			ym := newMWU(t, learner.MWUConfig{Actions: n, Eta: tc.eta})
			cfg.Checkpoints = []int{tc.rounds / 4, tc.rounds / 2, 3 * tc.rounds / 4}
			res = selfPlay(t, tc.g, xm, ym, cfg, rand.New(rand.NewPCG(1, 2)))
			t.Logf("MWU: last gap %.3g, average gap %.3g", res.LastGap, res.AverageGap)
			// The last iterate stays far from equilibrium at every
			// checkpoint of the second half, while the average converges.
			for _, c := range res.Checkpoints[1:] {
				if c.LastGap < 0.05 {
					t.Errorf("MWU last-iterate gap %.3g at round %d, want it to stay ≥ 0.05 (no last-iterate convergence)", c.LastGap, c.Round)
				}
			}
			if res.AverageGap >= 0.01 {
				t.Errorf("MWU average gap %.3g after %d rounds, want < 0.01", res.AverageGap, tc.rounds)
			}
		})
	}
}
