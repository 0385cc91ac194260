package learner_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

func TestPosteriorNashEstimate(t *testing.T) {
	p, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 2})
	if err != nil {
		t.Fatal(err)
	}
	if p.Policy(0)[0] != 0.5 || p.Estimate(1, 1) != 0.5 {
		t.Fatalf("initial policy %v, estimate %v; want uniform and ½", p.Policy(0), p.Estimate(1, 1))
	}
	// Beta(1,1) posterior mean of entry (0, 1) after rewards 1, 1, 0: (1+2)/(2+3).
	for _, r := range []float64{1, 1, 0} {
		if err := p.ObserveJoint(0, 0, 1, r, 0); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.Estimate(0, 1); math.Abs(got-0.6) > 1e-15 {
		t.Errorf("Estimate(0, 1) = %v, want 0.6", got)
	}
	// Estimate [[½, 0.6], [½, ½]]: row 0 weakly dominates, so the maximin
	// strategy is any mix with value ½; game.Solve's answer must reach it.
	x := p.Policy(0)
	if v := math.Min(x[0]*0.5+x[1]*0.5, x[0]*0.6+x[1]*0.5); math.Abs(v-0.5) > 1e-9 {
		t.Errorf("policy %v guarantees %v on the estimate, want ½", x, v)
	}
	// A clear estimate: after many rounds the policy is the estimated
	// game's equilibrium.
	q, _ := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 2, PriorWeight: 1e-9})
	pay := [2][2]float64{{0.9, 0.1}, {0.2, 0.8}} // NE row (0.43, 0.57): (0.8−0.2)/(0.9+0.8−0.1−0.2)
	for a := range 2 {
		for b := range 2 {
			if err := q.ObserveJoint(0, a, b, pay[a][b], 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	if want := 0.6 / 1.4; math.Abs(q.Policy(0)[0]-want) > 1e-9 {
		t.Errorf("policy %v, want row equilibrium (%v, %v)", q.Policy(0), want, 1-want)
	}
	q.Reset()
	if q.Rounds() != 0 || q.Policy(0)[0] != 0.5 || q.Estimate(0, 0) != 0.5 {
		t.Error("Reset did not forget")
	}
	// Errors.
	if err := q.Observe(0, 0, 0.5, 0); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("Observe = %v, want ErrInvalid", err)
	}
	for _, c := range []struct {
		s, a, b int
		r       float64
	}{{1, 0, 0, 0.5}, {0, 2, 0, 0.5}, {0, 0, 2, 0.5}, {0, 0, 0, 1.5}, {0, 0, 0, math.NaN()}} {
		if err := q.ObserveJoint(c.s, c.a, c.b, c.r, 0); err == nil || q.Rounds() != 0 {
			t.Errorf("ObserveJoint(%d, %d, %d, %v) accepted", c.s, c.a, c.b, c.r)
		}
	}
	for _, cfg := range []learner.PosteriorNashConfig{{Actions: 0, Opponents: 2}, {Actions: 2}, {Actions: 2, Opponents: 2, PriorWeight: -1}, {Actions: 2, Opponents: 2, PriorWeight: math.Inf(1)}} {
		if _, err := learner.NewPosteriorNash(cfg); !errors.Is(err, icrl.ErrInvalid) {
			t.Errorf("NewPosteriorNash(%+v) = %v, want ErrInvalid", cfg, err)
		}
	}
	if _, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 1 << 20, Opponents: 1 << 20}); !errors.Is(err, icrl.ErrTooLarge) {
		t.Errorf("huge table: %v, want ErrTooLarge", err)
	}
}

// TestPosteriorNashSelfPlayConverges: with exact rewards and joint
// observations, two posterior-Nash players of a game with a fully mixed
// equilibrium end far less exploitable than uniform play.
func TestPosteriorNashSelfPlayConverges(t *testing.T) {
	g, err := game.NewZeroSum([][]float64{{0.9, 0.1}, {0.2, 0.8}})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 2, PriorWeight: 1e-6})
	y, _ := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 2, PriorWeight: 1e-6})
	res, err := play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: 200, Noise: game.Exact{}, Observation: learner.JointActions}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if res.LastGap > 1e-6 {
		t.Errorf("last-iterate gap %v after every entry was seen exactly, want 0", res.LastGap)
	}
	// Decentralized observation is refused.
	x.Reset()
	if _, err := play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: 5}, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("decentralized self-play: %v, want ErrInvalid", err)
	}
}

// TestPosteriorNashSamples: with Samples the policy is the posterior mean
// of the equilibrium. In a 2×1 game the maximin row is the larger entry,
// so row 0's probability is P(θ₀ > θ₁): after one reward 1 in entry 0 and
// none in entry 1, θ₀ ~ Beta(2, 1) and θ₁ ~ Beta(1, 1), and P(θ₀ > θ₁) =
// ∫ 2x·x dx = 2/3, where the plug-in player (estimates 2/3 and ½) plays
// row 0 for sure.
func TestPosteriorNashSamples(t *testing.T) {
	const samples = 20000
	mk := func(seed uint64) *learner.PosteriorNash {
		p, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 1, Samples: samples, Rand: rand.New(rand.NewPCG(seed, 1))})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := mk(1)
	if x := p.Policy(0); x[0] != 0.5 {
		t.Fatalf("prior policy %v, want uniform", x)
	}
	if err := p.ObserveJoint(0, 0, 0, 1, 0); err != nil {
		t.Fatal(err)
	}
	// std of the estimate: √(2/9 / 20000) ≈ 0.0033.
	if x := p.Policy(0); math.Abs(x[0]-2.0/3) > 0.015 || math.Abs(x[0]+x[1]-1) > 1e-12 {
		t.Errorf("sampled policy %v, want (2/3, 1/3)", x)
	}
	q, _ := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 1})
	if err := q.ObserveJoint(0, 0, 0, 1, 0); err != nil {
		t.Fatal(err)
	}
	if x := q.Policy(0); x[0] != 1 {
		t.Errorf("plug-in policy %v, want (1, 0)", x)
	}
	// Deterministic by seed.
	a, b := mk(7), mk(7)
	for _, l := range []*learner.PosteriorNash{a, b} {
		if err := l.ObserveJoint(0, 1, 0, 0.3, 0); err != nil {
			t.Fatal(err)
		}
	}
	if a.Policy(0)[0] != b.Policy(0)[0] {
		t.Errorf("same seed, policies %v and %v", a.Policy(0), b.Policy(0))
	}
	for _, cfg := range []learner.PosteriorNashConfig{{Actions: 2, Opponents: 2, Samples: -1}, {Actions: 2, Opponents: 2, Samples: learner.MaxSamples + 1, Rand: rand.New(rand.NewPCG(1, 1))}} {
		if _, err := learner.NewPosteriorNash(cfg); !errors.Is(err, icrl.ErrInvalid) {
			t.Errorf("NewPosteriorNash(Samples %d) = %v, want ErrInvalid", cfg.Samples, err)
		}
	}
	if _, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 2, Samples: 1}); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("Samples without Rand: %v, want ErrNil", err)
	}
}

// TestPosteriorNashNoiseInput checks the uniform-noise posterior's bad
// input: a half-width past ½, and a reward that the earlier ones make
// impossible, which leaves the learner unchanged.
func TestPosteriorNashNoiseInput(t *testing.T) {
	if _, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 2, NoiseHalfWidth: 0.6}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("half-width 0.6: %v", err)
	}
	p, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 2, Samples: 4, Rand: rand.New(rand.NewPCG(1, 1)), NoiseHalfWidth: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.ObserveJoint(0, 0, 1, 0.3, 0); err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(p.Policy(0))
	if err := p.ObserveJoint(0, 0, 1, 0.5, 0); !errors.Is(err, icrl.ErrOutOfRange) {
		t.Errorf("reward 0.5 after 0.3 with half-width 0.05: %v", err)
	}
	if p.Rounds() != 1 || !slices.Equal(p.Policy(0), before) {
		t.Error("a refused reward changed the learner")
	}
	if err := p.ObserveJoint(0, 0, 1, 0.34, 0); err != nil {
		t.Errorf("reward 0.34 after 0.3: %v", err)
	}
}

// TestPosteriorNashGaussian: with NoiseStd the entries are drawn from the
// normal posterior N(m, σ²/n) truncated to [0, 1]. In a 2×1 game the
// maximin row is the larger entry, so row 0's probability is P(θ₀ > θ₁):
// one reward 0.6 in entry 0 and one 0.5 in entry 1 with σ = 0.1 give
// Φ(0.1/√0.02) = 0.7602; four rewards of mean 0.6 in entry 0 give
// Φ(0.1/√0.0125) = 0.8145 (the posterior narrows as 1/n); with entry 1
// unobserved (uniform), P(θ₁ < θ₀) = E θ₀ ≈ 0.6.
func TestPosteriorNashGaussian(t *testing.T) {
	const samples = 20000
	for _, c := range []struct {
		name    string
		rewards [][2]float64 // (row, reward)
		want    float64
	}{
		{"one each", [][2]float64{{0, 0.6}, {1, 0.5}}, 0.7602},
		{"four in row 0", [][2]float64{{0, 0.55}, {0, 0.65}, {0, 0.6}, {0, 0.6}, {1, 0.5}}, 0.8145},
		{"row 1 unobserved", [][2]float64{{0, 0.6}}, 0.6},
	} {
		p, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 1, Samples: samples, Rand: rand.New(rand.NewPCG(3, 4)), NoiseStd: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range c.rewards {
			if err := p.ObserveJoint(0, int(r[0]), 0, r[1], 0); err != nil {
				t.Fatal(err)
			}
		}
		// std of the estimate: at most √(¼/20000) ≈ 0.0035.
		if x := p.Policy(0); math.Abs(x[0]-c.want) > 0.012 {
			t.Errorf("%s: P(row 0) = %v, want %v", c.name, x[0], c.want)
		}
	}
	for _, cfg := range []learner.PosteriorNashConfig{{Actions: 2, Opponents: 2, NoiseStd: -0.1}, {Actions: 2, Opponents: 2, NoiseStd: math.Inf(1)},
		{Actions: 2, Opponents: 2, NoiseStd: 0.05, NoiseHalfWidth: 0.05}} {
		if _, err := learner.NewPosteriorNash(cfg); !errors.Is(err, icrl.ErrInvalid) {
			t.Errorf("NewPosteriorNash(NoiseStd %v, NoiseHalfWidth %v) = %v, want ErrInvalid", cfg.NoiseStd, cfg.NoiseHalfWidth, err)
		}
	}
}
