package learner

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
)

var _ FullInformationLearner = (*RegretMatching)(nil)

// RegretMatchingConfig configures [NewRegretMatching].
type RegretMatchingConfig struct {
	// Actions is the number of actions K ≥ 1.
	Actions int
	// Plus selects regret matching+ (Tammelin 2014): cumulative regrets are
	// clipped at zero after every update.
	Plus bool
	// Floor is the exploration floor γ in [0, 1): the policy played is
	// (1−γ)σ(R) + γ/K. Zero (the default) suits full information; under
	// bandit feedback use γ > 0 (see [RegretMatching]).
	Floor float64
	// LinearAverage weights the policy of round t by t in [RegretMatching.Average]
	// instead of uniformly, as CFR+ does (Tammelin et al. 2015); it usually
	// speeds up RM+'s average a great deal.
	LinearAverage bool
}

// RegretMatching is regret matching (Hart and Mas-Colell 2000, "A simple
// adaptive procedure leading to correlated equilibrium", in its
// unconditional-regret form) and, with Plus, regret matching+ (Tammelin
// 2014, "Solving large imperfect information games using CFR+"). It keeps
// the cumulative regret of each action against the policy played,
//
//	R_{t,a} = R_{t−1,a} + u_{t,a} − ⟨x_t, u_t⟩          (RM)
//	R_{t,a} = max(R_{t−1,a} + u_{t,a} − ⟨x_t, u_t⟩, 0)  (RM+)
//
// and plays the positive part normalised,
//
//	σ(R)_a = R_a⁺ / Σ_b R_b⁺  (uniform when no regret is positive),
//	x_{t+1} = (1−γ) σ(R_t) + γ/K.
//
// For rewards in [0,1] its regret after T rounds is at most sqrt(K T)
// (Hart and Mas-Colell 2000; Tammelin et al. 2015 for RM+), so in zero-sum self-play the average policies converge to an
// equilibrium at rate O(sqrt(K/T)). The guarantee is for the average
// iterate, which [RegretMatching.Average] returns; the last iterate may
// cycle.
//
// Under full information ([RegretMatching.ObserveRewards]) u_t is the reward
// vector. Under bandit feedback ([RegretMatching.Observe]) it is the
// importance-weighted estimate û_{t,a} = r_t·1{a = a_t}/x_{t,a_t}, for
// which ⟨x_t, û_t⟩ = r_t. The estimate is unbiased but its variance grows
// like 1/x_{t,a}, and regret matching puts probability exactly zero on
// actions without positive regret: with γ = 0 such an action is never
// played again, its regret only decreases, and the learner can lock into a
// pure strategy. Use an exploration floor γ > 0, which bounds the estimates
// by K/γ at the price of O(γT) extra regret.
//
// Each observation costs O(K) time and does not allocate. RegretMatching
// implements [Learner] and [FullInformationLearner]. It is not safe for
// concurrent use.
type RegretMatching struct {
	k       int
	plus    bool
	gamma   float64
	linear  bool
	regret  []float64
	scratch []float64
	x       []float64
	sum     []float64 // weighted sum of the policies observed
	weight  float64   // total weight of sum
	t       int       // observations so far
	avg     []float64
}

// NewRegretMatching returns a regret-matching learner. It returns an error
// naming the bad field if Actions < 1 or Floor is outside [0, 1).
func NewRegretMatching(cfg RegretMatchingConfig) (*RegretMatching, error) {
	name := "RegretMatching"
	if cfg.Plus {
		name = "RegretMatching+"
	}
	k := cfg.Actions
	if k < 1 {
		return nil, fmt.Errorf("%w: %s needs at least one action, got Actions = %d", icrl.ErrInvalid, name, k)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, name+" with Actions", k); err != nil {
		return nil, err
	}
	if err := checkFloor(name, cfg.Floor); err != nil {
		return nil, err
	}
	l := &RegretMatching{
		k:       k,
		plus:    cfg.Plus,
		gamma:   cfg.Floor,
		linear:  cfg.LinearAverage,
		regret:  make([]float64, k),
		scratch: make([]float64, k),
		x:       make([]float64, k),
		sum:     make([]float64, k),
		avg:     make([]float64, k),
	}
	l.Reset()
	return l, nil
}

// States returns 1: RegretMatching is a one-state learner.
func (l *RegretMatching) States() int { return 1 }

// Policy returns the current policy x_t; this is a one-state learner, so s
// must be 0 (it panics otherwise). The slice is internal: it must not be
// modified and is valid until the next Observe, ObserveRewards or Reset.
func (l *RegretMatching) Policy(s int) []float64 {
	panicState("RegretMatching", s)
	return l.x
}

// Average returns the average of the policies x_1, …, x_t at which feedback
// was observed (weighted by round with LinearAverage), the iterate that
// regret matching's guarantee is about; before any observation it is x_1.
// The slice is internal: it must not be modified and is valid until the next
// call to a method of l. The cost is O(K).
func (l *RegretMatching) Average() []float64 {
	if l.weight == 0 {
		copy(l.avg, l.x)
		return l.avg
	}
	for i, s := range l.sum {
		l.avg[i] = s / l.weight
	}
	return l.avg
}

// Regrets returns the cumulative regrets R_t. The slice is internal: it
// must not be modified and is valid until the next Observe, ObserveRewards
// or Reset.
func (l *RegretMatching) Regrets() []float64 { return l.regret }

// Observe performs a bandit update (state 0, the only state) with the importance-weighted estimate of
// the reward vector. It returns an error, leaving the learner unchanged, if
// the action is out of range, the reward is NaN or infinite, or the action
// has probability zero under the current policy (possible only with
// Floor = 0).
func (l *RegretMatching) Observe(s, action int, reward float64, next int) error {
	if err := checkOneState("RegretMatching", s, next); err != nil {
		return err
	}
	if err := checkUnitFeedback(action, l.k, reward); err != nil {
		return err
	}
	u, err := iwEstimate(reward, l.x[action], action)
	if err != nil {
		return err
	}
	// ⟨x, û⟩ = x_a · r/x_a = r.
	for i, r := range l.regret {
		l.scratch[i] = r - reward
	}
	l.scratch[action] += u
	return l.commit()
}

// ObserveRewards performs a full-information update with the reward vector
// u_t. It returns an error, leaving the learner unchanged, if the length is
// not K or an entry is NaN or infinite.
func (l *RegretMatching) ObserveRewards(rewards []float64) error {
	if err := checkRewards(rewards, l.k); err != nil {
		return err
	}
	var v float64
	for i, u := range rewards {
		v += l.x[i] * u
	}
	for i, r := range l.regret {
		l.scratch[i] = r + rewards[i] - v
	}
	return l.commit()
}

// commit makes the candidate regrets in scratch current, after checking
// that they are finite, and accumulates the policy just played into the
// average.
func (l *RegretMatching) commit() error {
	for i, r := range l.scratch {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("%w: the update overflows the cumulative regret of action %d", icrl.ErrNotFinite, i)
		}
	}
	l.t++
	w := 1.0
	if l.linear {
		w = float64(l.t)
	}
	for i, p := range l.x {
		l.sum[i] += w * p
	}
	l.weight += w
	l.regret, l.scratch = l.scratch, l.regret
	if l.plus {
		for i, r := range l.regret {
			l.regret[i] = max(r, 0)
		}
	}
	l.policy()
	return nil
}

// policy sets x = (1−γ)σ(R) + γ/K.
func (l *RegretMatching) policy() {
	var s float64
	for _, r := range l.regret {
		if r > 0 {
			s += r
		}
	}
	floor := l.gamma / float64(l.k)
	if s == 0 {
		for i := range l.x {
			l.x[i] = 1 / float64(l.k)
		}
		return
	}
	scale := (1 - l.gamma) / s
	if math.IsInf(scale, 1) { // s subnormal: divide each share instead
		for i, r := range l.regret {
			l.x[i] = (1-l.gamma)*(max(r, 0)/s) + floor
		}
		return
	}
	for i, r := range l.regret {
		l.x[i] = scale*max(r, 0) + floor
	}
}

// Reset returns the learner to zero regrets, the uniform policy and an
// empty average.
func (l *RegretMatching) Reset() {
	clear(l.regret)
	clear(l.sum)
	l.weight = 0
	l.t = 0
	l.policy()
}
