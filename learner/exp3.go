package learner

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
)

var _ Learner = (*Exp3IX)(nil)

// Exp3IXConfig configures [NewExp3IX].
type Exp3IXConfig struct {
	// Actions is the number of actions K ≥ 1.
	Actions int
	// Horizon is the number of rounds T, if known; it sets the default step
	// size. Zero means unknown: the rates are then the anytime schedule
	// η_t = sqrt(ln K/(K t)), γ_t = η_t/2, of the same order as Neu's
	// (2015) fixed-horizon tuning (his Theorem 1 assumes T is known).
	Horizon int
	// Eta is the step size η > 0. Zero means the default: Neu's (2015,
	// Thm 1) tuning η = sqrt(2 ln K/(K T)) when Horizon is set, the anytime
	// schedule otherwise.
	Eta float64
	// Exploration is the implicit-exploration parameter γ > 0 added to the
	// denominator of the loss estimate. Zero means γ = η/2 (Neu 2015,
	// Thm 1), following η_t in the anytime schedule.
	Exploration float64
}

// Exp3IX is Exp3 with implicit exploration (Neu 2015, "Explore no more:
// improved high-probability regret bounds for non-stochastic bandits",
// Algorithm 1), a bandit-feedback learner. It turns the reward into the loss
// ℓ_t = 1 − r_t, estimates the loss vector by
//
//	ℓ̂_{t,a} = ℓ_t · 1{a = a_t} / (x_{t,a} + γ),
//
// which is biased low by at most γ but bounded by 1/γ, and plays the
// exponential weights of the cumulative estimates,
//
//	x_{t+1,a} ∝ exp(−η L̂_{t,a}),   L̂_t = Σ_{s≤t} ℓ̂_s.
//
// With η = sqrt(2 ln K/(K T)) and γ = η/2 its regret is O(sqrt(K T ln K))
// with high probability, not only in expectation (Neu 2015, Thm 1). Unlike
// Exp3 it never mixes in the uniform distribution: optimism in the
// denominator does the exploring. In zero-sum self-play the average
// policies of two Exp3-IX learners approach the equilibrium as the
// players' regrets, O(sqrt(K ln K/T)) per round; the last iterate need not.
//
// The policy is recomputed from L̂ as a softmax shifted by min L̂, so it is
// stable over long runs. Each observation costs O(K) time, with K calls to
// math.Exp, and does not allocate. Exp3IX implements [Learner] only (it is a
// bandit algorithm). It is not safe for concurrent use.
type Exp3IX struct {
	k         int
	anytime   bool    // η_t = sqrt(ln K/(K t))
	fixedEta  float64 // η when not anytime
	fixedGam  float64 // γ if set explicitly, else 0
	eta, gam  float64 // rates of the next update
	t         int     // observations so far
	cumLoss   []float64
	x         []float64
	logKOverK float64 // ln K / K
}

// NewExp3IX returns an Exp3-IX learner. It returns an error naming the bad
// field if Actions < 1, Horizon is negative, or Eta or Exploration is negative or
// not finite.
func NewExp3IX(cfg Exp3IXConfig) (*Exp3IX, error) {
	k := cfg.Actions
	if k < 1 {
		return nil, fmt.Errorf("%w: Exp3IX needs at least one action, got Actions = %d", icrl.ErrInvalid, k)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "Exp3IX with Actions", k); err != nil {
		return nil, err
	}
	if cfg.Horizon < 0 {
		return nil, fmt.Errorf("%w: Exp3IX horizon Horizon = %d must be non-negative (0 for unknown)", icrl.ErrInvalid, cfg.Horizon)
	}
	if math.IsNaN(cfg.Eta) || math.IsInf(cfg.Eta, 0) || cfg.Eta < 0 {
		return nil, fmt.Errorf("%w: Exp3IX step size Eta = %v must be finite and positive (0 for the default)", icrl.ErrInvalid, cfg.Eta)
	}
	if math.IsNaN(cfg.Exploration) || math.IsInf(cfg.Exploration, 0) || cfg.Exploration < 0 {
		return nil, fmt.Errorf("%w: Exp3IX implicit Exploration = %v must be finite and positive (0 for η/2)", icrl.ErrInvalid, cfg.Exploration)
	}
	l := &Exp3IX{
		k:         k,
		fixedEta:  cfg.Eta,
		fixedGam:  cfg.Exploration,
		cumLoss:   make([]float64, k),
		x:         make([]float64, k),
		logKOverK: math.Log(float64(k)) / float64(k),
	}
	switch {
	case cfg.Eta > 0:
	case cfg.Horizon > 0:
		l.fixedEta = math.Sqrt(2 * l.logKOverK / float64(cfg.Horizon))
	default:
		l.anytime = true
	}
	l.Reset()
	return l, nil
}

// States returns 1: Exp3IX is a one-state learner.
func (l *Exp3IX) States() int { return 1 }

// Policy returns the current policy x_t; this is a one-state learner, so s
// must be 0 (it panics otherwise). The slice is internal: it must not be
// modified and is valid until the next Observe or Reset.
func (l *Exp3IX) Policy(s int) []float64 {
	panicState("Exp3IX", s)
	return l.x
}

// Eta returns the step size η_t that produced the current policy.
func (l *Exp3IX) Eta() float64 { return l.eta }

// Exploration returns the implicit-exploration parameter γ_t that the next
// observation's estimate will use.
func (l *Exp3IX) Exploration() float64 { return l.gam }

// Observe feeds back the played action and its reward in state 0 (the only
// state). It returns an error,
// leaving the learner unchanged, if the action is out of range, the reward
// is NaN or infinite, or the estimate is not finite (possible only if γ = 0
// and the action had probability zero).
func (l *Exp3IX) Observe(s, action int, reward float64, next int) error {
	if err := checkOneState("Exp3IX", s, next); err != nil {
		return err
	}
	if err := checkUnitFeedback(action, l.k, reward); err != nil {
		return err
	}
	est, err := iwEstimate(1-reward, l.x[action]+l.gam, action)
	if err != nil {
		return err
	}
	if c := l.cumLoss[action] + est; math.IsInf(c, 0) {
		return fmt.Errorf("%w: Exp3IX cumulative loss estimate of action %d overflows", icrl.ErrNotFinite, action)
	}
	l.cumLoss[action] += est
	l.t++
	l.update()
	return nil
}

// Reset returns the learner to the uniform policy and round 1.
func (l *Exp3IX) Reset() {
	clear(l.cumLoss)
	l.t = 0
	l.update()
}

// update sets the rates of round t+1 and recomputes the policy
// x ∝ exp(−η L̂).
func (l *Exp3IX) update() {
	l.eta = l.fixedEta
	if l.anytime {
		l.eta = math.Sqrt(l.logKOverK / float64(l.t+1))
	}
	l.gam = l.fixedGam
	if l.gam == 0 {
		l.gam = l.eta / 2
	}
	lo := math.Inf(1)
	for _, c := range l.cumLoss {
		lo = min(lo, c)
	}
	var s float64
	for i, c := range l.cumLoss {
		e := math.Exp(-l.eta * (c - lo))
		l.x[i] = e
		s += e
	}
	for i := range l.x {
		l.x[i] /= s
	}
}
