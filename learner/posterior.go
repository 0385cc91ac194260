package learner

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl/internal/randdist"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/num"
)

// DefaultPriorWeight is the prior weight of [PosteriorNash] when
// PosteriorNashConfig.PriorWeight is 0: two pseudo-observations of mean ½,
// the Beta(1, 1) (uniform) prior of a Bernoulli payoff.
const DefaultPriorWeight = 2

// PosteriorNashConfig configures [NewPosteriorNash]. Actions and Opponents
// are required.
type PosteriorNashConfig struct {
	// Actions is the learner's number of actions A ≥ 1.
	Actions int
	// Opponents is the opponent's number of actions B ≥ 1.
	Opponents int
	// PriorWeight is the number w of pseudo-observations of mean ½ that
	// every payoff entry starts with: the estimate of entry (a, b) after n
	// rewards summing to s is (w/2 + s)/(w + n). 0 means
	// [DefaultPriorWeight] (the posterior mean under a uniform prior for
	// Bernoulli rewards); for Gaussian-like noise of variance σ² around a
	// mean uniform on [0, 1], w = 12σ² is the posterior mean's weight. It
	// must be finite and not negative.
	PriorWeight float64
	// Samples, when positive, switches the learner from the equilibrium
	// of the posterior-mean game to the posterior mean of the equilibrium:
	// the policy is the average of the maximin strategies of Samples games
	// drawn from the posterior, each entry independently from the Beta law
	// Beta(w/2 + s, w/2 + n − s) (exact for Bernoulli rewards of a mean
	// drawn uniformly from [0, 1] when w = 2). This is the Bayes-optimal
	// prediction of the true game's equilibrium from the observations: a
	// model trained by cross-entropy on equilibrium labels of games from
	// that prior approaches it, not the plug-in equilibrium. 0 (the
	// default) plays the plug-in equilibrium; at most [MaxSamples].
	Samples int
	// Rand draws the posterior samples; required when Samples is positive
	// and ignored otherwise.
	Rand *rand.Rand
	// NoiseHalfWidth, when positive, gives Samples the exact posterior of
	// rewards drawn as game.UniformNoise{HalfWidth: NoiseHalfWidth} around
	// a mean uniform on [0, 1] (instead of the Beta law of Bernoulli
	// rewards): the reward is μ + w(μ)·U, U uniform on [−1, 1] and w(μ) =
	// min(h, μ, 1 − μ), so after rewards r₁…r_n the posterior density of μ
	// is proportional to w(μ)^{−n} on the interval where every |rᵢ − μ| ≤
	// w(μ), and it is drawn exactly (inverse CDF on the three pieces
	// where w is μ, h and 1 − μ). It must be at most ½; it does not change
	// the plug-in estimate (PriorWeight).
	NoiseHalfWidth float64
	// NoiseStd, when positive, gives Samples the posterior of rewards
	// with Gaussian noise of standard deviation NoiseStd around a mean
	// uniform on [0, 1]: after n rewards of mean m, each entry is drawn
	// from the normal law N(m, NoiseStd²/n) truncated to [0, 1] (uniform
	// when n = 0). It reads the rewards only through each entry's count
	// and mean, so on rewards of another noise law (game.UniformNoise,
	// whose exact posterior NoiseHalfWidth gives) it is the Bayes
	// predictor of a reader of the cell means alone. It must be finite
	// and not negative, and NoiseHalfWidth 0 when it is set; it does not
	// change the plug-in estimate (PriorWeight).
	NoiseStd float64
}

// MaxSamples is the largest PosteriorNashConfig.Samples.
const MaxSamples = 1 << 16

// PosteriorNash is a one-state learner for the joint-action (centralized)
// setting that plays, at every round, its own maximin (equilibrium)
// strategy of the matrix game of its posterior-mean payoff estimates: after
// each round it updates the estimate of the entry (own action, opponent's
// action) that was played and solves the estimated game by linear
// programming (game.Solve): a greedy plug-in rule, which never explores
// the cells its estimated equilibrium leaves out. It reads the same
// observations as an in-context learner of the joint-action setting, so it
// is that learner's classical peer, not a bound on it: a learner that
// reads the same observations can play them better, by exploring or by
// hedging against the estimate's error.
//
// With Samples set it plays instead the posterior mean of the true game's
// equilibrium (see [PosteriorNashConfig]): the target that a model trained
// on equilibrium labels approaches, which hedges over the plausible games
// where the plug-in player commits to one.
//
// It needs the opponent's action ([JointLearner]): Observe returns an
// error. Each ObserveJoint costs one LP of A×B (Samples LPs when sampling);
// the learner holds O(A·B) numbers. A PosteriorNash is not safe for concurrent use.
type PosteriorNash struct {
	a, b   int
	w      float64
	sum    []float64 // reward sums, A×B row-major
	count  []float64
	policy []float64
	est    []float64 // scratch: the estimated payoffs
	solver game.Solver
	rounds int
	// samples > 0: the policy is the mean of the equilibria of samples
	// posterior draws, from rng.
	samples int
	rng     *rand.Rand
	// half > 0: the uniform-noise posterior, each entry's feasible means
	// in [lo, hi].
	half   float64
	lo, hi []float64
	// std > 0: the Gaussian-noise posterior.
	std float64
}

// Compile-time check: PosteriorNash takes the joint action, for a fixed
// number of opponent actions.
var _ JointLearner = (*PosteriorNash)(nil)

// NewPosteriorNash returns a posterior-Nash learner. It returns an error
// wrapping [icrl.ErrInvalid] if Actions or Opponents is not positive or the
// prior weight is negative or not finite, Samples is negative or past
// [MaxSamples], NoiseHalfWidth is outside [0, ½], or NoiseStd is negative,
// not finite or set with NoiseHalfWidth, [icrl.ErrNil] if Samples is positive and Rand nil, and
// [icrl.ErrTooLarge] if A·B is past [icrl.MaxEntries].
func NewPosteriorNash(cfg PosteriorNashConfig) (*PosteriorNash, error) {
	if cfg.Actions < 1 || cfg.Opponents < 1 {
		return nil, fmt.Errorf("%w: PosteriorNash needs positive Actions and Opponents, got %d and %d", icrl.ErrInvalid, cfg.Actions, cfg.Opponents)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "PosteriorNash with Actions × Opponents", cfg.Actions, cfg.Opponents); err != nil {
		return nil, err
	}
	w := cfg.PriorWeight
	if w == 0 {
		w = DefaultPriorWeight
	}
	if !(w >= 0) || math.IsInf(w, 0) {
		return nil, fmt.Errorf("%w: PosteriorNash PriorWeight = %v must be finite and not negative", icrl.ErrInvalid, cfg.PriorWeight)
	}
	if cfg.Samples < 0 || cfg.Samples > MaxSamples {
		return nil, fmt.Errorf("%w: PosteriorNash Samples = %d is not in [0, %d]", icrl.ErrInvalid, cfg.Samples, MaxSamples)
	}
	if !(cfg.NoiseHalfWidth >= 0 && cfg.NoiseHalfWidth <= 0.5) {
		return nil, fmt.Errorf("%w: PosteriorNash NoiseHalfWidth = %v is not in [0, ½]", icrl.ErrInvalid, cfg.NoiseHalfWidth)
	}
	if !(cfg.NoiseStd >= 0) || math.IsInf(cfg.NoiseStd, 0) || (cfg.NoiseStd > 0 && cfg.NoiseHalfWidth > 0) {
		return nil, fmt.Errorf("%w: PosteriorNash NoiseStd = %v must be finite and not negative, and is exclusive with NoiseHalfWidth = %v", icrl.ErrInvalid, cfg.NoiseStd, cfg.NoiseHalfWidth)
	}
	if cfg.Samples > 0 && cfg.Rand == nil {
		return nil, fmt.Errorf("%w: PosteriorNash with Samples = %d needs Rand", icrl.ErrNil, cfg.Samples)
	}
	n := cfg.Actions * cfg.Opponents
	p := &PosteriorNash{a: cfg.Actions, b: cfg.Opponents, w: w, sum: make([]float64, n), count: make([]float64, n),
		policy: make([]float64, cfg.Actions), est: make([]float64, n), samples: cfg.Samples}
	if cfg.Samples > 0 {
		p.rng = cfg.Rand
	}
	if cfg.NoiseHalfWidth > 0 {
		p.half, p.lo, p.hi = cfg.NoiseHalfWidth, make([]float64, n), make([]float64, n)
	}
	p.std = cfg.NoiseStd
	p.Reset()
	return p, nil
}

// States returns 1: PosteriorNash plays matrix games.
func (p *PosteriorNash) States() int { return 1 }

// Actions returns the number of actions.
func (p *PosteriorNash) Actions() int { return p.a }

// Opponents returns the opponent's number of actions B the payoff
// estimate holds ([learner.JointLearner]).
func (p *PosteriorNash) Opponents() int { return p.b }

// Estimate returns the posterior-mean payoff estimate of entry (a, b), the
// learner's own expected reward when it plays a and the opponent b. It
// panics if a or b is out of range.
func (p *PosteriorNash) Estimate(a, b int) float64 {
	if uint(a) >= uint(p.a) || uint(b) >= uint(p.b) {
		panic(fmt.Sprintf("learner: PosteriorNash.Estimate(%d, %d) out of range %d×%d", a, b, p.a, p.b))
	}
	k := a*p.b + b
	return (p.w/2 + p.sum[k]) / (p.w + p.count[k])
}

// Policy returns the maximin strategy of the current estimate. It panics
// if s is not 0.
func (p *PosteriorNash) Policy(s int) []float64 {
	panicState("PosteriorNash", s)
	return p.policy
}

// Observe returns an error wrapping [icrl.ErrInvalid]: PosteriorNash needs the
// opponent's action (play it under JointActions observation).
func (p *PosteriorNash) Observe(s, action int, reward float64, next int) error {
	return fmt.Errorf("%w: PosteriorNash needs the opponent's action: play it under JointActions observation", icrl.ErrInvalid)
}

// ObserveJoint adds the reward of the joint action (action, opponent) to
// the estimate and solves the estimated game. It returns an error, leaving
// the learner unchanged, if a state is not 0, an action is out of range or
// the reward is not in [0, 1].
func (p *PosteriorNash) ObserveJoint(s, action, opponent int, reward float64, next int) error {
	if err := checkOneState("PosteriorNash", s, next); err != nil {
		return err
	}
	if err := checkUnitFeedback(action, p.a, reward); err != nil {
		return fmt.Errorf("learner: PosteriorNash: %w", err)
	}
	if opponent < 0 || opponent >= p.b {
		return fmt.Errorf("%w: PosteriorNash: opponent's action %d is not in [0, %d)", icrl.ErrOutOfRange, opponent, p.b)
	}
	k := action*p.b + opponent
	sum, count := p.sum[k], p.count[k]
	var lo, hi float64
	if p.half > 0 {
		lo, hi = p.lo[k], p.hi[k]
		p.lo[k] = max(lo, reward-p.half, reward/2)
		p.hi[k] = min(hi, reward+p.half, (1+reward)/2)
		if !(p.lo[k] <= p.hi[k]) {
			p.lo[k], p.hi[k] = lo, hi
			return fmt.Errorf("%w: PosteriorNash: reward %v of entry (%d, %d) is impossible under noise of half-width %v after the earlier ones", icrl.ErrOutOfRange, reward, action, opponent, p.half)
		}
	}
	p.sum[k] += reward
	p.count[k]++
	if err := p.solve(); err != nil {
		p.sum[k], p.count[k] = sum, count // unchanged on error
		if p.half > 0 {
			p.lo[k], p.hi[k] = lo, hi
		}
		return err
	}
	p.rounds++
	return nil
}

// draw returns a draw from the posterior of entry k: the uniform-noise or
// Gaussian-noise posterior when configured, else Beta(w/2 + s, w/2 + n − s). When w/2 + n − s rounds to zero (a tiny prior weight after
// rewards of 1), the parameter is formed as w/2 + (n − s) instead; when
// both parameters are so small that the draw underflows (0/0), the law is
// a Bernoulli of the same mean in the limit, and that is drawn.
func (p *PosteriorNash) draw(k int) float64 {
	if p.half > 0 {
		return randdist.UniformNoiseMean(p.lo[k], p.hi[k], p.half, int(p.count[k]), p.rng)
	}
	if p.std > 0 {
		n := p.count[k]
		if n == 0 {
			return p.rng.Float64()
		}
		return randdist.TruncatedNormal(p.sum[k]/n, p.std/math.Sqrt(n), 0, 1, p.rng)
	}
	a, b := p.w/2+p.sum[k], p.w/2+p.count[k]-p.sum[k]
	if !(b > 0) {
		b = p.w/2 + (p.count[k] - p.sum[k])
	}
	x := randdist.Beta(a, b, p.rng)
	if math.IsNaN(x) {
		if p.rng.Float64() < a/(a+b) {
			return 1
		}
		return 0
	}
	return x
}

// solve sets the policy to the maximin strategy of the estimate, or with
// samples to the mean maximin strategy of posterior draws. On error the
// policy is unchanged.
func (p *PosteriorNash) solve() error {
	if p.samples == 0 {
		for k := range p.est {
			p.est[k] = (p.w/2 + p.sum[k]) / (p.w + p.count[k])
		}
		x, err := p.maximin()
		if err != nil {
			return err
		}
		copy(p.policy, x)
		return nil
	}
	mean := make([]float64, p.a)
	for range p.samples {
		for k := range p.est {
			p.est[k] = p.draw(k)
		}
		x, err := p.maximin()
		if err != nil {
			return err
		}
		for i, v := range x {
			mean[i] += v
		}
	}
	for i, v := range mean {
		p.policy[i] = v / float64(p.samples)
	}
	return nil
}

// maximin returns the row player's maximin strategy of the game p.est.
func (p *PosteriorNash) maximin() ([]float64, error) {
	sol, err := p.solver.SolveDense(p.a, p.b, p.est)
	if err != nil {
		return nil, fmt.Errorf("learner: PosteriorNash: %w", err)
	}
	return sol.X, nil
}

// Rounds returns the number of rounds observed since the last Reset.
func (p *PosteriorNash) Rounds() int { return p.rounds }

// Reset forgets every observation: the estimate is the prior mean ½ in
// every entry and the policy uniform (with Samples, too: the prior is
// symmetric in the actions, so its mean equilibrium is uniform). The
// random source is not rewound.
func (p *PosteriorNash) Reset() {
	clear(p.sum)
	clear(p.count)
	for k := range p.lo {
		p.lo[k], p.hi[k] = 0, 1
	}
	for i := range p.policy {
		p.policy[i] = 1 / float64(p.a)
	}
	p.rounds = 0
}
