package learner_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

func TestRegretMatchingHandComputed(t *testing.T) {
	t.Run("full information", func(t *testing.T) {
		// K = 3, x_1 uniform. u_1 = (1, 0, ½): ⟨x,u⟩ = ½, R = (½, −½, 0),
		// so RM plays (1, 0, 0) and RM+ (R⁺ = (½, 0, 0)) too.
		// u_2 = (0, 1, 0): ⟨x,u⟩ = 0.
		//   RM:  R = (½, ½, 0) → (½, ½, 0).
		//   RM+: R = (½, 1, 0) → (1/3, 2/3, 0).
		// Average of x_1, x_2: ((1/3+1)/2, (1/3)/2, (1/3)/2) = (2/3, 1/6, 1/6);
		// linear weights 1, 2: ((1/3 + 2)/3, 1/9, 1/9) = (7/9, 1/9, 1/9).
		for _, tc := range []struct {
			plus, linear bool
			regrets, x2  []float64
			avg          []float64
		}{
			{false, false, []float64{0.5, 0.5, 0}, []float64{0.5, 0.5, 0}, []float64{2.0 / 3, 1.0 / 6, 1.0 / 6}},
			{true, false, []float64{0.5, 1, 0}, []float64{1.0 / 3, 2.0 / 3, 0}, []float64{2.0 / 3, 1.0 / 6, 1.0 / 6}},
			{true, true, []float64{0.5, 1, 0}, []float64{1.0 / 3, 2.0 / 3, 0}, []float64{7.0 / 9, 1.0 / 9, 1.0 / 9}},
		} {
			l := newRM(t, learner.RegretMatchingConfig{Actions: 3, Plus: tc.plus, LinearAverage: tc.linear})
			assertPolicy(t, "x_1", l.Policy(0), []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, 0)
			assertPolicy(t, "average before feedback", l.Average(), []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, 0)
			ok(t, l.ObserveRewards([]float64{1, 0, 0.5}))
			assertPolicy(t, "x_2", l.Policy(0), []float64{1, 0, 0}, 0)
			ok(t, l.ObserveRewards([]float64{0, 1, 0}))
			assertPolicy(t, "regrets", l.Regrets(), tc.regrets, 1e-15)
			assertPolicy(t, "x_3", l.Policy(0), tc.x2, 1e-15)
			assertPolicy(t, "average", l.Average(), tc.avg, 1e-15)
		}
	})
	t.Run("bandit", func(t *testing.T) {
		// K = 2, γ = 0.2, x_1 = (½, ½). Play 0 with reward ½: û = (1, 0),
		// ⟨x,û⟩ = ½, R = (½, −½), σ = (1, 0), x_2 = 0.8σ + 0.1 = (0.9, 0.1).
		// Play 1 (prob 0.1) with reward ½: û = (0, 5), ⟨x,û⟩ = ½.
		//   RM:  R = (0, 4)    → x_3 = (0.1, 0.9).
		//   RM+: R = (0, 4.5)  → x_3 = (0.1, 0.9) (R⁺ was (½, 0)).
		for _, plus := range []bool{false, true} {
			l := newRM(t, learner.RegretMatchingConfig{Actions: 2, Plus: plus, Floor: 0.2})
			ok(t, l.Observe(0, 0, 0.5, 0))
			assertPolicy(t, "x_2", l.Policy(0), []float64{0.9, 0.1}, 1e-15)
			ok(t, l.Observe(0, 1, 0.5, 0))
			want := []float64{0, 4}
			if plus {
				want = []float64{0, 4.5}
			}
			assertPolicy(t, "regrets", l.Regrets(), want, 1e-14)
			assertPolicy(t, "x_3", l.Policy(0), []float64{0.1, 0.9}, 1e-15)
			assertPolicy(t, "average", l.Average(), []float64{0.7, 0.3}, 1e-15)
		}
	})
	t.Run("no floor locks in", func(t *testing.T) {
		// Without exploration a bandit RM learner that has put probability
		// zero on an action never plays it again: the documented failure
		// mode that Gamma fixes. Observing it anyway is rejected.
		l := newRM(t, learner.RegretMatchingConfig{Actions: 2})
		ok(t, l.Observe(0, 0, 0.5, 0))
		assertPolicy(t, "x_2", l.Policy(0), []float64{1, 0}, 0)
		before := slices.Clone(l.Regrets())
		if err := l.Observe(0, 1, 0.5, 0); err == nil || !strings.Contains(err.Error(), "probability 0") {
			t.Fatalf("Observe of a zero-probability action: %v, want an error", err)
		}
		if !slices.Equal(before, l.Regrets()) {
			t.Fatal("rejected observation changed the regrets")
		}
	})
}

func TestRegretMatchingConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  learner.RegretMatchingConfig
		want string
	}{
		{learner.RegretMatchingConfig{}, "Actions = 0"},
		{learner.RegretMatchingConfig{Actions: 2, Floor: 1.5}, "Floor = 1.5"},
		{learner.RegretMatchingConfig{Actions: 2, Plus: true, Floor: math.NaN()}, "RegretMatching+ exploration Floor = NaN"},
	} {
		if _, err := learner.NewRegretMatching(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("config %+v: error %v, want one mentioning %q", tc.cfg, err, tc.want)
		}
	}
}

// TestRegretMatchingAverageConverges is the acceptance test of RM and RM+:
// their average iterates approach the equilibrium in full-information
// self-play. Rock-paper-scissors from uniform play is trivially at its
// equilibrium (every regret stays zero), so biased RPS and G1 carry the
// test. Measured at T = 1e4: biased RPS average gap 2.4e-3 (RM), 7.6e-4
// (RM+); G1 5.3e-3 (RM), 3.2e-3 (RM+).
func TestRegretMatchingAverageConverges(t *testing.T) {
	rps := mustRescale(t, game.RPS(), -1, 1)
	brps := mustRescale(t, game.BiasedRPS(), -0.5, 0.5)
	for _, tc := range []struct {
		name string
		g    *game.ZeroSum
	}{{"RPS", rps}, {"BiasedRPS", brps}, {"G1", g1}} {
		for _, plus := range []bool{false, true} {
			m, n := tc.g.Dims()
			x := newRM(t, learner.RegretMatchingConfig{Actions: m, Plus: plus})
			y := newRM(t, learner.RegretMatchingConfig{Actions: n, Plus: plus})
			const rounds = 10000
			res := selfPlay(t, tc.g, x, y, play.SelfPlayConfig{Rounds: rounds, Feedback: play.FullInformation}, rand.New(rand.NewPCG(1, 2)))
			t.Logf("%s plus=%v: average gap %.3g, last gap %.3g", tc.name, plus, res.AverageGap, res.LastGap)
			if res.AverageGap >= 0.01 {
				t.Errorf("%s plus=%v: average gap %.3g after %d rounds, want < 0.01", tc.name, plus, res.AverageGap, rounds)
			}
			// The learner's own average matches self-play's: both
			// average x_1, …, x_T uniformly.
			gx := dualityGap(t, tc.g, x.Average(), y.Average())
			if math.Abs(gx-res.AverageGap) > 1e-9 {
				t.Errorf("%s plus=%v: Average() gap %.3g, self-play average gap %.3g", tc.name, plus, gx, res.AverageGap)
			}
		}
	}
}

// TestRegretMatchingBandit: with an exploration floor, bandit RM+ self-play
// still drives the average gap down, if slowly (high-variance estimates).
func TestRegretMatchingBandit(t *testing.T) {
	x := newRM(t, learner.RegretMatchingConfig{Actions: 2, Plus: true, Floor: 0.05})
	y := newRM(t, learner.RegretMatchingConfig{Actions: 2, Plus: true, Floor: 0.05})
	res := selfPlay(t, g1, x, y, play.SelfPlayConfig{Rounds: 50000}, rand.New(rand.NewPCG(3, 3)))
	t.Logf("bandit RM+ on G1: average gap %.4f (uniform has 0.25)", res.AverageGap)
	if res.AverageGap >= 0.1 {
		t.Errorf("bandit RM+ average gap %.4f, want < 0.1", res.AverageGap)
	}
}
