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

// This file holds the change-adaptive baselines that MASTER is compared
// with: sliding-window and discounted
// UCB, a CUSUM change-detection restart wrapper and the oracle restart.
// None of them is used in the seed paper's experiments; they are the
// SMPyBandits baselines that Gerogiannis et al. (2024) ran MASTER against.

var (
	_ bandit.Learner = (*SlidingWindowUCB)(nil)
	_ bandit.Learner = (*DiscountedUCB)(nil)
	_ bandit.Learner = (*CUSUMRestart)(nil)
	_ bandit.Learner = (*OracleRestart)(nil)
)

// DefaultSWWindow is the window τ of [SlidingWindowUCB] when neither the
// window nor the horizon is given: SMPyBandits' TAU = 1000
// (Policies/SlidingWindowUCB.py).
const DefaultSWWindow = 1000

// DefaultDUCBDiscount is the discount γ of [DiscountedUCB] when none is given:
// 0.95, the value SMPyBandits' configuration_nonstationary.py runs (GAMMAS =
// [0.95]; the class default in Policies/DiscountedUCB.py is 0.99).
const DefaultDUCBDiscount = 0.95

// SWWindow returns the sliding window of Garivier and Moulines (2011,
// Theorem 2, with B = 1) that SMPyBandits' configuration_nonstationary.py
// uses, τ = ⌊2·sqrt(T·log T/Υ)⌋ for horizon T and Υ breakpoints (Υ < 1 is
// taken as 1, as SMPyBandits does with max(1, ·)), and at least 1.
func SWWindow(horizon, breakpoints int) int {
	T := float64(max(horizon, 1))
	u := float64(max(breakpoints, 1))
	return max(1, int(2*math.Sqrt(T*math.Log(T)/u)))
}

// SlidingWindowUCBConfig configures [NewSlidingWindowUCB]. Arms is
// required; zero values select the documented defaults.
type SlidingWindowUCBConfig struct {
	// Arms is the number of arms K ≥ 1.
	Arms int
	// Window is τ ≥ 1, the number of most recent rounds (of all arms) the
	// indices are computed from. Zero means [SWWindow](Horizon,
	// Breakpoints) if Horizon > 0, else [DefaultSWWindow] = 1000.
	Window int
	// Horizon T ≥ 0 and Breakpoints Υ ≥ 0 set the default window.
	Horizon, Breakpoints int
	// Exploration is the exploration constant α > 0 of the bonus; zero means 1,
	// SMPyBandits' ALPHA (Garivier and Moulines write ξ·B², ξ > 1/2).
	Exploration float64
}

// SlidingWindowUCB is SW-UCB (Garivier and Moulines 2011, "On
// upper-confidence bound policies for switching bandit problems", ALT), in
// the form of SMPyBandits' SWUCB (Policies/SlidingWindowUCB.py; references
// §2.1). With N_{τ,k} and X_{τ,k} the number of plays and the reward sum
// of arm k within the last τ observed rounds and n the number of rounds
// observed since the last Reset, the index is
//
//	I_k = X_{τ,k}/N_{τ,k} + sqrt(α·log(min(n, τ))/N_{τ,k}),
//
// +Inf if N_{τ,k} = 0; the learner plays the largest index (ties to the
// lowest arm) and reports it as the optimistic value, which is therefore
// +Inf while some arm is absent from the window. Rewards are used as given
// (SMPyBandits rescales them to [0,1] first).
//
// Memory O(τ + K); Act costs O(K), Observe O(1), neither allocates. The
// window sums are updated incrementally and recomputed exactly when an arm
// leaves the window entirely. The round t and the action sets are ignored
// (action sets may be nil or hold K entries). Not safe for concurrent use.
type SlidingWindowUCB struct {
	k      int
	tau    int
	alpha  float64
	arms   []int // ring buffer of the last τ arms
	rews   []float64
	head   int // next slot
	n      int // rounds observed since Reset
	counts []int
	sums   []float64
}

// NewSlidingWindowUCB returns an SW-UCB learner. It returns an error naming
// the bad field if Arms < 1, Window, Horizon or Breakpoints is negative, or
// Exploration is negative or not finite.
func NewSlidingWindowUCB(cfg SlidingWindowUCBConfig) (*SlidingWindowUCB, error) {
	if cfg.Arms < 1 {
		return nil, fmt.Errorf("%w: SW-UCB Arms = %d must be at least 1", icrl.ErrInvalid, cfg.Arms)
	}
	if cfg.Window < 0 {
		return nil, fmt.Errorf("%w: SW-UCB Window = %d must be non-negative (0 for the default)", icrl.ErrInvalid, cfg.Window)
	}
	if cfg.Horizon < 0 {
		return nil, fmt.Errorf("%w: SW-UCB Horizon = %d must be non-negative", icrl.ErrInvalid, cfg.Horizon)
	}
	if cfg.Breakpoints < 0 {
		return nil, fmt.Errorf("%w: SW-UCB Breakpoints = %d must be non-negative", icrl.ErrInvalid, cfg.Breakpoints)
	}
	alpha, err := positiveOrDefault("SW-UCB", "Exploration", cfg.Exploration, 1)
	if err != nil {
		return nil, err
	}
	tau := cfg.Window
	if tau == 0 {
		tau = DefaultSWWindow
		if cfg.Horizon > 0 {
			tau = SWWindow(cfg.Horizon, cfg.Breakpoints)
		}
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "SW-UCB Arms", cfg.Arms); err != nil {
		return nil, err
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "SW-UCB Window", tau); err != nil {
		return nil, err
	}
	return &SlidingWindowUCB{
		k: cfg.Arms, tau: tau, alpha: alpha,
		arms: make([]int, tau), rews: make([]float64, tau),
		counts: make([]int, cfg.Arms), sums: make([]float64, cfg.Arms),
	}, nil
}

// positiveOrDefault validates a non-negative finite constant, 0 meaning def.
func positiveOrDefault(who, field string, v, def float64) (float64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%w: %s %s = %v must be finite and non-negative (0 for the default %v)", icrl.ErrInvalid, who, field, v, def)
	}
	if v == 0 {
		return def, nil
	}
	return v, nil
}

// Window returns τ.
func (s *SlidingWindowUCB) Window() int { return s.tau }

// Exploration returns the exploration constant α.
func (s *SlidingWindowUCB) Exploration() float64 { return s.alpha }

// Index returns the index I_k that the next Act uses. It panics if k is out
// of range.
func (s *SlidingWindowUCB) Index(k int) float64 {
	n := s.counts[k]
	if n == 0 {
		return math.Inf(1)
	}
	nf := float64(n)
	return s.sums[k]/nf + math.Sqrt(s.alpha*math.Log(float64(min(s.n, s.tau)))/nf)
}

// Reset empties the window.
func (s *SlidingWindowUCB) Reset() {
	s.head, s.n = 0, 0
	clear(s.counts)
	clear(s.sums)
}

// Act returns the arm with the largest index and that index.
func (s *SlidingWindowUCB) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	return argmaxIndex(s.k, s.Index)
}

func argmaxIndex(k int, index func(int) float64) (arm int, best float64) {
	best = math.Inf(-1)
	for a := range k {
		if v := index(a); v > best {
			best, arm = v, a
		}
	}
	return arm, best
}

// Observe pushes the round into the window, evicting the oldest round once
// τ rounds are held. It returns an error, leaving the learner unchanged, if
// the arm is out of range, the reward is not finite, or actions is neither
// nil nor of length K.
func (s *SlidingWindowUCB) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if err := checkBanditFeedback("SW-UCB", s.k, actions, arm, reward); err != nil {
		return err
	}
	if s.n >= s.tau {
		old := s.arms[s.head]
		s.counts[old]--
		if s.counts[old] == 0 {
			s.sums[old] = 0
		} else {
			s.sums[old] -= s.rews[s.head]
		}
	}
	s.arms[s.head], s.rews[s.head] = arm, reward
	s.head = (s.head + 1) % s.tau
	s.counts[arm]++
	s.sums[arm] += reward
	s.n++
	return nil
}

func checkBanditFeedback(who string, k int, actions [][]float64, arm int, reward float64) error {
	if actions != nil && len(actions) != k {
		return fmt.Errorf("%w: %s plays %d arms, got an action set of %d arms", icrl.ErrInvalid, who, k, len(actions))
	}
	if arm < 0 || arm >= k {
		return fmt.Errorf("%w: %s arm %d out of range [0, %d)", icrl.ErrInvalid, who, arm, k)
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return fmt.Errorf("%w: %s reward %v of arm %d is not finite", icrl.ErrNotFinite, who, reward, arm)
	}
	return nil
}

// DiscountedUCBConfig configures [NewDiscountedUCB]. Arms is required; zero
// values select the documented defaults.
type DiscountedUCBConfig struct {
	// Arms is the number of arms K ≥ 1.
	Arms int
	// Discount is the discount γ ∈ (0, 1]; zero means [DefaultDUCBDiscount] =
	// 0.95. Garivier and Moulines' tuning for Υ breakpoints over T rounds
	// is γ = 1 − sqrt(Υ/T)/4 (SMPyBandits' DiscountedUCBPlus).
	Discount float64
	// Exploration is the exploration constant α > 0; zero means 1 (SMPyBandits'
	// ALPHA).
	Exploration float64
}

// DiscountedUCB is D-UCB (Garivier and Moulines 2011), in the form of
// SMPyBandits' DiscountedUCB (Policies/DiscountedUCB.py, useRealDiscount =
// True; references §2.1). After each observed round every arm's discounted
// play count and reward sum are multiplied by γ and the played arm's
// incremented, so after rounds s = 1..n
//
//	N_k = Σ_s γ^{n−s} 1[a_s = k],   X_k = Σ_s γ^{n−s} r_s 1[a_s = k],
//	n_γ = Σ_k N_k,
//	I_k = X_k/N_k + sqrt(α·log(n_γ)/(2N_k)),
//
// +Inf for an arm not played since the last Reset (or whose N_k has
// underflowed to 0). SMPyBandits stores N_k in an integer array and treats
// N_k < 1 as unplayed; this implementation keeps N_k real, as in the paper.
// The learner plays the largest index (ties to the lowest arm) and reports
// it as the optimistic value.
//
// Act and Observe cost O(K) and do not allocate. The round t and the action
// sets are ignored (action sets may be nil or hold K entries). Not safe for
// concurrent use.
type DiscountedUCB struct {
	k      int
	gamma  float64
	alpha  float64
	played []bool
	counts []float64
	sums   []float64
}

// NewDiscountedUCB returns a D-UCB learner. It returns an error naming the
// bad field if Arms < 1, Discount is not in (0, 1] (0 for the default) or
// Exploration is negative or not finite.
func NewDiscountedUCB(cfg DiscountedUCBConfig) (*DiscountedUCB, error) {
	if cfg.Arms < 1 {
		return nil, fmt.Errorf("%w: D-UCB Arms = %d must be at least 1", icrl.ErrInvalid, cfg.Arms)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "D-UCB Arms", cfg.Arms); err != nil {
		return nil, err
	}
	g := cfg.Discount
	if g == 0 {
		g = DefaultDUCBDiscount
	}
	if !(g > 0 && g <= 1) {
		return nil, fmt.Errorf("%w: D-UCB Discount = %v must be in (0, 1] (0 for the default %v)", icrl.ErrInvalid, cfg.Discount, DefaultDUCBDiscount)
	}
	alpha, err := positiveOrDefault("D-UCB", "Exploration", cfg.Exploration, 1)
	if err != nil {
		return nil, err
	}
	return &DiscountedUCB{k: cfg.Arms, gamma: g, alpha: alpha,
		played: make([]bool, cfg.Arms), counts: make([]float64, cfg.Arms), sums: make([]float64, cfg.Arms)}, nil
}

// Discount returns the discount γ.
func (d *DiscountedUCB) Discount() float64 { return d.gamma }

// Exploration returns the exploration constant α.
func (d *DiscountedUCB) Exploration() float64 { return d.alpha }

// Counts returns the discounted play counts N_k (a copy).
func (d *DiscountedUCB) Counts() []float64 { return slices.Clone(d.counts) }

// Index returns the index I_k that the next Act uses. It panics if k is out
// of range.
func (d *DiscountedUCB) Index(k int) float64 {
	n := d.counts[k]
	if !d.played[k] || n == 0 {
		return math.Inf(1)
	}
	total := 0.0
	for _, c := range d.counts {
		total += c
	}
	return d.sums[k]/n + math.Sqrt(d.alpha*math.Log(total)/(2*n))
}

// Reset forgets every play.
func (d *DiscountedUCB) Reset() {
	clear(d.played)
	clear(d.counts)
	clear(d.sums)
}

// Act returns the arm with the largest index and that index.
func (d *DiscountedUCB) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	return argmaxIndex(d.k, d.Index)
}

// Observe discounts every arm by γ and adds the round to the played arm. It
// returns an error, leaving the learner unchanged, if the arm is out of
// range, the reward is not finite, or actions is neither nil nor of length
// K.
func (d *DiscountedUCB) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if err := checkBanditFeedback("D-UCB", d.k, actions, arm, reward); err != nil {
		return err
	}
	for k := range d.counts {
		d.counts[k] *= d.gamma
		d.sums[k] *= d.gamma
	}
	d.counts[arm]++
	d.sums[arm] += reward
	d.played[arm] = true
	return nil
}

// MasterFactory returns a factory of [Master] learners for cfg and base,
// for [MonteCarlo], whose factories take no generator. Each Master is built
// lazily at its first Act, with its schedule generator seeded from two
// draws of the rng passed to that Act (the run's generator), so a Monte
// Carlo stays deterministic. Configuration errors surface when the factory
// is called (it builds and discards one Master); the learner returned
// panics if a later construction fails, which cannot happen for a config
// that passed. Reset discards the Master (the next Act draws a new one).
func MasterFactory(cfg MasterConfig, base bandit.Factory) bandit.Factory {
	return func() (bandit.Learner, error) {
		if _, err := NewMaster(cfg, base, rand.New(rand.NewPCG(0, 0))); err != nil {
			return nil, err
		}
		return &LazyMaster{cfg: cfg, base: base}, nil
	}
}

// LazyMaster is the learner made by [MasterFactory]: a [Master] built at
// the first Act. Not safe for concurrent use.
type LazyMaster struct {
	cfg  MasterConfig
	base bandit.Factory
	m    *Master
}

// Master returns the underlying Master, nil before the first Act.
func (l *LazyMaster) Master() *Master { return l.m }

// Reset discards the Master.
func (l *LazyMaster) Reset() { l.m = nil }

// Act builds the Master if needed and plays round t.
func (l *LazyMaster) Act(t int, actions [][]float64, rng *rand.Rand) (int, float64) {
	if l.m == nil {
		m, err := NewMaster(l.cfg, l.base, rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())))
		if err != nil {
			panic("nonstationary: LazyMaster: " + err.Error())
		}
		l.m = m
	}
	return l.m.Act(t, actions, rng)
}

// Observe forwards to the Master; it fails before the first Act.
func (l *LazyMaster) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if l.m == nil {
		return fmt.Errorf("%w: LazyMaster.Observe(%d) before Act", icrl.ErrInvalid, t)
	}
	return l.m.Observe(t, actions, arm, reward)
}

// ScaledMasterCoef is the factor a of [ScaledMasterConfig]'s RhoHatMult =
// a·(log₂T + 1).
const ScaledMasterCoef = 0.2

// ScaledMasterConfig returns a MASTER configuration with scaled-down test
// constants for horizon T and the base learner's ρ (δ = 1):
//
//	RhoHatMult = 0.2·(log₂T + 1),  Test1Coef = 1,  Test2Coef = 3,
//
// i.e. Wei and Luo's n̂ = log₂T + 1 (which accounts for the ≈ n̂ instances
// of all scales that MALG runs, each adding its own optimism to Test 2's
// statistic) is kept, and their remaining factor 6·log(T/δ) is replaced by
// 0.2; Test 1's coefficient 9 is lowered to 1 so that it can fire at all at
// these horizons (with 9 it does not fire at the horizons tested). This is an extension
// for experiments, not the paper's algorithm.
//
// The constants were chosen on stationary and abruptly changing Bernoulli
// bandits (TestStatMasterFlipping; the runs are described in
// examples/nonstationary/README.md): they trade false restarts for sensitivity.
func ScaledMasterConfig(T int, rho RhoFunc) MasterConfig {
	return MasterConfig{
		Horizon:    T,
		Delta:      1,
		Rho:        rho,
		RhoHatMult: ScaledMasterCoef * (math.Log2(float64(max(T, 1))) + 1),
		Test1Coef:  1,
		Test2Coef:  3,
	}
}
