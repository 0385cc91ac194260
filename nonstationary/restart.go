package nonstationary

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/learner/bandit"
)

// CUSUMConfig configures [NewCUSUMRestart]. Arms and Horizon are required;
// zero values select the defaults of SMPyBandits' CUSUM_IndexPolicy
// (Policies/CUSUM_UCB.py, compute_h_alpha_from_input_parameters__CUSUM),
// which are the simplified tunings of Liu, Lee and Shroff (2018, Theorem 2
// and Corollary 2).
type CUSUMConfig struct {
	// Arms is the number of arms K ≥ 1 (one detector per arm).
	Arms int
	// Horizon is T ≥ 1 and Breakpoints Υ ≥ 0 the (upper bound on the)
	// number of changes; they set the default Threshold and Explore.
	// Breakpoints 0 is taken as 1.
	Horizon, Breakpoints int
	// Threshold is h > 0; zero means log(T/Υ) (at least 1e-9).
	Threshold float64
	// Warmup is M ≥ 1, the number of an arm's first samples (since the
	// last restart) that estimate its pre-change mean û₀; zero means 100,
	// SMPyBandits' MIN_NUMBER_OF_OBSERVATION_BETWEEN_CHANGE_POINT.
	Warmup int
	// Epsilon is the drift correction ε ≥ 0; zero means 0.01, SMPyBandits'
	// EPSILON. Set NoEpsilon for ε = 0 exactly.
	Epsilon float64
	// NoEpsilon makes ε = 0.
	NoEpsilon bool
	// Explore is α ∈ [0, 1], the probability of playing a uniformly random
	// arm in a round (the forced exploration that lets every detector see
	// samples); zero means sqrt(log(T/Υ)/(T/Υ)) clipped to [0, 1]. Set
	// NoExplore for α = 0 exactly.
	Explore float64
	// NoExplore makes α = 0.
	NoExplore bool
}

// CUSUMRestart is a change-detection restart wrapper around any base
// learner: CUSUM-UCB of Liu, Lee and Shroff (2018, "A change-detection
// based framework for piecewise-stationary multi-armed bandit problem",
// AAAI; arXiv 1711.03539) with the two-sided CUSUM test of Page (1954), as
// in SMPyBandits' CUSUM_IndexPolicy (references §2.1). CUSUM was chosen
// over GLR (Besson et al. 2022) because its statistic is O(1) per sample
// and hand-checkable.
//
// Each arm k has a detector fed with the rewards y_1, y_2, … of that arm
// since the last restart. The first M of them give û₀ = (y_1+…+y_M)/M;
// for j > M
//
//	g⁺_j = max(0, g⁺_{j−1} + û₀ − y_j − ε),   g⁻_j = max(0, g⁻_{j−1} + y_j − û₀ − ε),
//
// (g⁺_M = g⁻_M = 0), and the detector fires when g⁺_j ≥ h or g⁻_j ≥ h
// (SMPyBandits' comparison). When a detector fires after round t, the base
// learner is Reset and every detector restarts (a global restart, like
// SMPyBandits' per_arm_restart = False and the global GLR-UCB: a black-box
// learner cannot forget one arm; Liu et al. reset only the arm that
// changed). Deviation from SMPyBandits: its detect_change also runs the
// recursion over the first M samples (its enumerate only relabels the
// index); this one follows the paper, starting at j = M + 1.
//
// In each round, with probability α (one rng.Float64 draw per round) the
// wrapper plays a uniformly random arm (one rng.IntN draw) instead of the
// base learner's; the base learner's Act is called every round (so its own
// randomness is consumed identically) and its optimistic value is
// reported. The base learner observes every round, whichever arm was
// played.
//
// Per round the cost is O(1) plus the base learner's. Not safe for
// concurrent use.
type CUSUMRestart struct {
	base     bandit.Learner
	k        int
	h, eps   float64
	m        int
	alpha    float64
	n        []int     // samples since restart, per arm
	sum      []float64 // sum of the first min(n, M) samples
	gp, gm   []float64
	restarts []int
	horizon  int
	ups      int
}

// NewCUSUMRestart returns the CUSUM restart wrapper around a learner made by
// f. It returns an error naming the bad field if f is nil or fails, Arms <
// 1, Horizon < 1, Breakpoints < 0, Threshold or Epsilon is negative or not
// finite, Warmup < 0, or Explore is not in [0, 1].
func NewCUSUMRestart(f bandit.Factory, cfg CUSUMConfig) (*CUSUMRestart, error) {
	if f == nil {
		return nil, fmt.Errorf("%w: CUSUM restart base learner factory is nil", icrl.ErrNil)
	}
	if cfg.Arms < 1 {
		return nil, fmt.Errorf("%w: CUSUM restart Arms = %d must be at least 1", icrl.ErrInvalid, cfg.Arms)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "CUSUM restart Arms", cfg.Arms); err != nil {
		return nil, err
	}
	if cfg.Horizon < 1 {
		return nil, fmt.Errorf("%w: CUSUM restart Horizon = %d must be at least 1", icrl.ErrInvalid, cfg.Horizon)
	}
	if cfg.Breakpoints < 0 {
		return nil, fmt.Errorf("%w: CUSUM restart Breakpoints = %d must be non-negative", icrl.ErrInvalid, cfg.Breakpoints)
	}
	ups := max(1, cfg.Breakpoints)
	ratio := float64(cfg.Horizon) / float64(ups)
	logRatio := math.Log(ratio)
	h, err := positiveOrDefault("CUSUM restart", "Threshold", cfg.Threshold, math.Max(logRatio, 1e-9))
	if err != nil {
		return nil, err
	}
	if cfg.Warmup < 0 {
		return nil, fmt.Errorf("%w: CUSUM restart Warmup = %d must be non-negative (0 for the default 100)", icrl.ErrInvalid, cfg.Warmup)
	}
	m := cfg.Warmup
	if m == 0 {
		m = 100
	}
	eps, err := positiveOrDefault("CUSUM restart", "Epsilon", cfg.Epsilon, 0.01)
	if err != nil {
		return nil, err
	}
	if cfg.NoEpsilon {
		eps = 0
	}
	if math.IsNaN(cfg.Explore) || cfg.Explore < 0 || cfg.Explore > 1 {
		return nil, fmt.Errorf("%w: CUSUM restart Explore = %v must be in [0, 1] (0 for the default)", icrl.ErrInvalid, cfg.Explore)
	}
	alpha := cfg.Explore
	if alpha == 0 {
		alpha = math.Min(1, math.Max(0, math.Sqrt(math.Max(logRatio, 0)/ratio)))
	}
	if cfg.NoExplore {
		alpha = 0
	}
	base, err := f()
	if err != nil {
		return nil, fmt.Errorf("nonstationary: CUSUM restart base learner: %w", err)
	}
	if base == nil {
		return nil, fmt.Errorf("%w: CUSUM restart base learner factory returned nil", icrl.ErrNil)
	}
	k := cfg.Arms
	return &CUSUMRestart{base: base, k: k, h: h, eps: eps, m: m, alpha: alpha,
		n: make([]int, k), sum: make([]float64, k), gp: make([]float64, k), gm: make([]float64, k),
		horizon: cfg.Horizon, ups: ups}, nil
}

// Threshold returns h.
func (c *CUSUMRestart) Threshold() float64 { return c.h }

// Warmup returns M.
func (c *CUSUMRestart) Warmup() int { return c.m }

// Epsilon returns ε.
func (c *CUSUMRestart) Epsilon() float64 { return c.eps }

// Explore returns α.
func (c *CUSUMRestart) Explore() float64 { return c.alpha }

// Statistic returns the CUSUM statistics (g⁺, g⁻) of arm k's detector. It
// panics if k is out of range.
func (c *CUSUMRestart) Statistic(k int) (gPlus, gMinus float64) { return c.gp[k], c.gm[k] }

// Base returns the wrapped learner.
func (c *CUSUMRestart) Base() bandit.Learner { return c.base }

// Restarts returns the rounds t after whose observation a detector fired
// and the base learner was reset (the next round starts afresh), in order.
func (c *CUSUMRestart) Restarts() []int { return slices.Clone(c.restarts) }

func (c *CUSUMRestart) clearDetectors() {
	clear(c.n)
	clear(c.sum)
	clear(c.gp)
	clear(c.gm)
}

// Reset resets the base learner and the detectors and forgets the
// restarts.
func (c *CUSUMRestart) Reset() {
	c.base.Reset()
	c.clearDetectors()
	c.restarts = c.restarts[:0]
}

// Act asks the base learner for its arm and optimistic value and, with
// probability α, replaces the arm by a uniformly random one. It panics if
// rng is nil and α > 0.
func (c *CUSUMRestart) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	arm, optimistic = c.base.Act(t, actions, rng)
	if c.alpha > 0 && rng.Float64() < c.alpha {
		arm = rng.IntN(c.k)
	}
	return arm, optimistic
}

// Observe feeds the round to the base learner and to the played arm's
// detector; if the detector fires, the base learner and all detectors are
// reset and t is recorded. It returns an error, leaving the wrapper
// unchanged, if the arm is out of range, the reward is not finite, or the
// base learner rejects the observation.
func (c *CUSUMRestart) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if arm < 0 || arm >= c.k {
		return fmt.Errorf("%w: CUSUM restart arm %d out of range [0, %d)", icrl.ErrInvalid, arm, c.k)
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return fmt.Errorf("%w: CUSUM restart reward %v of arm %d is not finite", icrl.ErrNotFinite, reward, arm)
	}
	if err := c.base.Observe(t, actions, arm, reward); err != nil {
		return err
	}
	c.n[arm]++
	if c.n[arm] <= c.m {
		c.sum[arm] += reward
		return nil
	}
	u0 := c.sum[arm] / float64(c.m)
	c.gp[arm] = math.Max(0, c.gp[arm]+u0-reward-c.eps)
	c.gm[arm] = math.Max(0, c.gm[arm]+reward-u0-c.eps)
	if c.gp[arm] >= c.h || c.gm[arm] >= c.h {
		c.base.Reset()
		c.clearDetectors()
		c.restarts = append(c.restarts, t)
	}
	return nil
}

// OracleRestart is the oracle baseline that knows the change points
// (SMPyBandits' OracleSequentiallyRestartPolicy with a global reset;
// references §2.1): it resets the base learner at the start of every new
// stationary piece. Change points are the first rounds of new pieces; a
// change point 1 (the start of play, as in [KArmed.Starts]) causes no
// reset. Per round the cost is O(1) plus the base learner's. Not safe for
// concurrent use.
type OracleRestart struct {
	base     bandit.Learner
	cps      []int
	next     int // index of the next change point to act on
	restarts []int
}

// NewOracleRestart returns the oracle restart wrapper around a learner made
// by f, resetting it when Act is called with t ≥ the next change point. It
// returns an error naming the bad value if f is nil or fails, or the change
// points are not ≥ 1 and strictly increasing. The slice is copied.
func NewOracleRestart(f bandit.Factory, changePoints []int) (*OracleRestart, error) {
	if f == nil {
		return nil, fmt.Errorf("%w: oracle restart base learner factory is nil", icrl.ErrNil)
	}
	for i, c := range changePoints {
		if c < 1 {
			return nil, fmt.Errorf("%w: oracle restart change point %d = %d must be at least 1", icrl.ErrInvalid, i, c)
		}
		if i > 0 && c <= changePoints[i-1] {
			return nil, fmt.Errorf("%w: oracle restart change points must increase strictly: changePoints[%d] = %d after %d", icrl.ErrInvalid, i, c, changePoints[i-1])
		}
	}
	base, err := f()
	if err != nil {
		return nil, fmt.Errorf("nonstationary: oracle restart base learner: %w", err)
	}
	if base == nil {
		return nil, fmt.Errorf("%w: oracle restart base learner factory returned nil", icrl.ErrNil)
	}
	o := &OracleRestart{base: base, cps: slices.Clone(changePoints)}
	o.Reset()
	return o, nil
}

// Base returns the wrapped learner.
func (o *OracleRestart) Base() bandit.Learner { return o.base }

// Restarts returns the rounds at whose start the base learner was reset.
func (o *OracleRestart) Restarts() []int { return slices.Clone(o.restarts) }

// Reset resets the base learner and rewinds to round 1.
func (o *OracleRestart) Reset() {
	o.base.Reset()
	o.restarts = o.restarts[:0]
	o.next = 0
	for o.next < len(o.cps) && o.cps[o.next] <= 1 {
		o.next++
	}
}

// Act resets the base learner if a change point has been reached (once,
// however many change points were skipped) and returns its arm and
// optimistic value.
func (o *OracleRestart) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	if o.next < len(o.cps) && t >= o.cps[o.next] {
		for o.next < len(o.cps) && t >= o.cps[o.next] {
			o.next++
		}
		o.base.Reset()
		o.restarts = append(o.restarts, t)
	}
	return o.base.Act(t, actions, rng)
}

// Observe forwards the round to the base learner.
func (o *OracleRestart) Observe(t int, actions [][]float64, arm int, reward float64) error {
	return o.base.Observe(t, actions, arm, reward)
}
