package learner

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/num"
)

// defaultMWUEta is MWUConfig.Eta's default.
const defaultMWUEta = 0.1

// MWUConfig configures [NewMWU] and [NewOptimisticMWU].
type MWUConfig struct {
	// Actions is the number of actions K ≥ 1.
	Actions int
	// Eta is the step size η > 0; zero means 0.1, which suits rewards in
	// [0,1] over a few thousand rounds of full-information play. For a
	// known horizon T the regret-optimal Hedge step is η = sqrt(8 ln K / T)
	// (Freund and Schapire 1997; Cesa-Bianchi and Lugosi 2006, Thm 2.2), and
	// OptimisticMWU's last iterate needs η small against the payoff scale
	// (Daskalakis and Panageas 2019 prove convergence for η small enough).
	Eta float64
	// Floor is the exploration floor γ in [0, 1): the policy played is
	// x = (1−γ)q + γ/K, where q is the exponential-weights distribution, so
	// every action has probability at least γ/K and the importance-weighted
	// estimates of bandit feedback stay below K/γ. Zero (the default) plays q
	// itself, the right choice under full information. With Floor > 0 and
	// Eta = γ/K, MWU under bandit feedback is exactly Exp3 (Auer et al.
	// 2002, Fig. 1).
	Floor float64
	// Init is the initial distribution q_1, with every entry positive; nil
	// means uniform. It is copied.
	Init []float64
}

var (
	_ FullInformationLearner = (*MWU)(nil)
	_ FullInformationLearner = (*OptimisticMWU)(nil)
	_ Learner                = (*MWU)(nil)
	_ Learner                = (*OptimisticMWU)(nil)
)

// resolve validates cfg and returns the resolved step size and the initial
// log-weights.
func (cfg MWUConfig) resolve(name string) (eta float64, logInit []float64, err error) {
	k := cfg.Actions
	if k < 1 {
		return 0, nil, fmt.Errorf("%w: %s needs at least one action, got Actions = %d", icrl.ErrInvalid, name, k)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, name+" with Actions", k); err != nil {
		return 0, nil, err
	}
	eta = cfg.Eta
	if math.IsNaN(eta) || math.IsInf(eta, 0) || eta < 0 {
		return 0, nil, fmt.Errorf("%w: %s step size Eta = %v must be finite and positive (0 for the default)", icrl.ErrInvalid, name, eta)
	}
	if eta == 0 {
		eta = defaultMWUEta
	}
	if err := checkFloor(name, cfg.Floor); err != nil {
		return 0, nil, err
	}
	logInit = make([]float64, k)
	if cfg.Init == nil {
		for i := range logInit {
			logInit[i] = -math.Log(float64(k))
		}
		return eta, logInit, nil
	}
	if err := simplex.CheckDistribution(name+" initial distribution Init", cfg.Init, k); err != nil {
		return 0, nil, err
	}
	for i, p := range cfg.Init {
		if p <= 0 {
			return 0, nil, fmt.Errorf("%w: %s initial distribution Init[%d] = %v must be positive", icrl.ErrInvalid, name, i, p)
		}
		logInit[i] = math.Log(p)
	}
	return eta, logInit, nil
}

// checkFloor validates an exploration floor in [0, 1).
func checkFloor(name string, gamma float64) error {
	if math.IsNaN(gamma) || gamma < 0 || gamma >= 1 {
		return fmt.Errorf("%w: %s exploration Floor = %v must lie in [0, 1)", icrl.ErrInvalid, name, gamma)
	}
	return nil
}

// iwEstimate returns the importance-weighted estimate v/p of a bandit
// observation whose action had probability p (Auer et al. 2002), or an error
// if the estimate is not finite (p = 0 or an overflow).
func iwEstimate(v, p float64, action int) (float64, error) {
	e := v / p
	if math.IsNaN(e) || math.IsInf(e, 0) {
		return 0, fmt.Errorf("%w: action %d has probability %v under the current policy: its importance-weighted estimate %v/%v is not finite", icrl.ErrNotFinite, action, p, v, p)
	}
	return e, nil
}

// expWeights is the state shared by MWU and OptimisticMWU: log-weights kept
// with their maximum at zero, the weights distribution q = softmax(logq) and
// the played policy x = (1−γ)q + γ/K.
type expWeights struct {
	eta, gamma float64
	logInit    []float64 // log q_1
	logq       []float64 // log q_t up to an additive constant; max is 0
	scratch    []float64 // candidate log-weights of an update
	x          []float64 // policy played: (1−γ)q_t + γ/K
}

func newExpWeights(eta, gamma float64, logInit []float64) expWeights {
	k := len(logInit)
	w := expWeights{
		eta:     eta,
		gamma:   gamma,
		logInit: logInit,
		logq:    make([]float64, k),
		scratch: make([]float64, k),
		x:       make([]float64, k),
	}
	w.reset()
	return w
}

func (w *expWeights) reset() {
	copy(w.scratch, w.logInit)
	w.commit()
}

// commit makes the candidate log-weights in scratch current: it shifts them
// so that the maximum is zero, swaps them in, and recomputes the policy.
// The caller has checked that every candidate is finite.
func (w *expWeights) commit() {
	w.logq, w.scratch = w.scratch, w.logq
	m := math.Inf(-1)
	for _, l := range w.logq {
		m = max(m, l)
	}
	var s float64
	for i, l := range w.logq {
		l -= m
		w.logq[i] = l
		e := math.Exp(l)
		w.x[i] = e
		s += e
	}
	k := float64(len(w.x))
	scale := (1 - w.gamma) / s
	floor := w.gamma / k
	for i, e := range w.x {
		w.x[i] = scale*e + floor
	}
}

// checkCandidate reports an error if an update would make a log-weight NaN
// or infinite (it can only happen with astronomically large rewards or step
// sizes).
func (w *expWeights) checkCandidate() error {
	for i, l := range w.scratch {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return fmt.Errorf("%w: the update overflows the log-weight of action %d (η = %v)", icrl.ErrNotFinite, i, w.eta)
		}
	}
	return nil
}

// MWU is the multiplicative-weights (Hedge) learner of Littlestone and
// Warmuth (1994) and Freund and Schapire (1997, Fig. 1), written for rewards:
//
//	q_{t+1,a} ∝ q_{t,a} · exp(η û_{t,a}),   x_t = (1−γ) q_t + γ/K,
//
// where û_t is the reward vector u_t under full information
// ([MWU.ObserveRewards]) and, under bandit feedback ([MWU.Observe]), the
// importance-weighted estimate û_{t,a} = r_t·1{a = a_t}/x_{t,a_t}, unbiased
// for u_t when a_t ~ x_t. With an exploration floor γ > 0 and η = γ/K this is
// Exp3 (Auer, Cesa-Bianchi, Freund and Schapire 2002, Fig. 1); with γ = 0 the
// estimates are unbounded when x_{t,a_t} is small, which is why Exp3 mixes
// in the uniform distribution (see [Exp3IX] for the better-behaved
// implicit-exploration variant).
//
// The weights are kept in log space, shifted so that the largest is zero,
// so long runs neither overflow nor underflow. Each observation costs O(K)
// time, with K calls to math.Exp, and does not allocate. The constant-step
// last iterate does not converge in zero-sum self-play (it cycles away from
// an interior equilibrium); its average does, at rate O(ln K/(ηT) + η). See
// [OptimisticMWU] for last-iterate convergence.
//
// MWU implements [Learner] and [FullInformationLearner]. It is not safe for
// concurrent use.
type MWU struct {
	w expWeights
}

// NewMWU returns an MWU learner. It returns an error naming the bad field if
// Actions < 1, Eta is negative or not finite, Floor is outside [0, 1), or
// Init is not a distribution over Actions actions with positive entries.
func NewMWU(cfg MWUConfig) (*MWU, error) {
	eta, logInit, err := cfg.resolve("MWU")
	if err != nil {
		return nil, err
	}
	return &MWU{w: newExpWeights(eta, cfg.Floor, logInit)}, nil
}

// States returns 1: MWU is a one-state learner.
func (l *MWU) States() int { return 1 }

// Policy returns the current policy x_t; this is a one-state learner, so s
// must be 0 (it panics otherwise). The slice is internal: it must not be
// modified and is valid until the next Observe, ObserveRewards or Reset.
func (l *MWU) Policy(s int) []float64 {
	panicState("MWU", s)
	return l.w.x
}

// Eta returns the step size η in use.
func (l *MWU) Eta() float64 { return l.w.eta }

// Observe performs a bandit update (state 0, the only state) with the importance-weighted estimate of
// the reward of the played action. It returns an error, leaving the learner
// unchanged, if the action is out of range, the reward is NaN or infinite,
// or the action has probability zero under the current policy (possible
// only with Floor = 0).
func (l *MWU) Observe(s, action int, reward float64, next int) error {
	if err := checkOneState("MWU", s, next); err != nil {
		return err
	}
	w := &l.w
	if err := checkUnitFeedback(action, len(w.x), reward); err != nil {
		return err
	}
	u, err := iwEstimate(reward, w.x[action], action)
	if err != nil {
		return err
	}
	copy(w.scratch, w.logq)
	w.scratch[action] += w.eta * u
	if err := w.checkCandidate(); err != nil {
		return err
	}
	w.commit()
	return nil
}

// ObserveRewards performs a full-information update with the reward vector
// u_t. It returns an error, leaving the learner unchanged, if the length is
// not K or an entry is NaN or infinite.
func (l *MWU) ObserveRewards(rewards []float64) error {
	w := &l.w
	if err := checkRewards(rewards, len(w.x)); err != nil {
		return err
	}
	for i, u := range rewards {
		w.scratch[i] = w.logq[i] + w.eta*u
	}
	if err := w.checkCandidate(); err != nil {
		return err
	}
	w.commit()
	return nil
}

// Reset returns the learner to its initial distribution.
func (l *MWU) Reset() { l.w.reset() }

// OptimisticMWU is optimistic multiplicative weights (OMWU; Rakhlin and
// Sridharan 2013, "Optimization, learning, and games with predictable
// sequences"; Daskalakis and Panageas 2019, "Last-iterate convergence:
// zero-sum games and constrained min-max optimization", the OMWU update):
//
//	q_{t+1,a} ∝ q_{t,a} · exp(η (2û_{t,a} − û_{t−1,a})),   û_0 = 0,
//	x_t = (1−γ) q_t + γ/K,
//
// equivalently q_{t+1} ∝ q_1 exp(η(Σ_{s≤t} û_s + û_t)): multiplicative
// weights that use the last reward vector as a prediction of the next. Under
// full information ([OptimisticMWU.ObserveRewards]) û_t = u_t; when both
// players of a zero-sum game with a unique equilibrium use it with a small
// enough constant η, the last iterate (x_t, y_t) converges to the
// equilibrium (Daskalakis and Panageas 2019), unlike [MWU]'s.
//
// Under bandit feedback ([OptimisticMWU.Observe]) û_t is the
// importance-weighted estimate r_t·1{a = a_t}/x_{t,a_t}. Set Floor > 0 then:
// the floor γ/K bounds the estimates by K/γ, without which the optimistic
// term 2û_t can swing the weights arbitrarily far. No last-iterate guarantee
// is known for the bandit version.
//
// The weights are kept in log space. Each observation costs O(K) time, with
// K calls to math.Exp, and does not allocate. OptimisticMWU implements
// [Learner] and [FullInformationLearner]. It is not safe for concurrent use.
type OptimisticMWU struct {
	w    expWeights
	prev []float64 // û_{t−1}
}

// NewOptimisticMWU returns an optimistic MWU learner. It returns an error
// naming the bad field if Actions < 1, Eta is negative or not finite, Floor
// is outside [0, 1), or Init is not a distribution over Actions actions with
// positive entries.
func NewOptimisticMWU(cfg MWUConfig) (*OptimisticMWU, error) {
	eta, logInit, err := cfg.resolve("OptimisticMWU")
	if err != nil {
		return nil, err
	}
	return &OptimisticMWU{
		w:    newExpWeights(eta, cfg.Floor, logInit),
		prev: make([]float64, cfg.Actions),
	}, nil
}

// States returns 1: OptimisticMWU is a one-state learner.
func (l *OptimisticMWU) States() int { return 1 }

// Policy returns the current policy x_t; this is a one-state learner, so s
// must be 0 (it panics otherwise). The slice is internal: it must not be
// modified and is valid until the next Observe, ObserveRewards or Reset.
func (l *OptimisticMWU) Policy(s int) []float64 {
	panicState("OptimisticMWU", s)
	return l.w.x
}

// Eta returns the step size η in use.
func (l *OptimisticMWU) Eta() float64 { return l.w.eta }

// Observe performs a bandit update (state 0, the only state) with the importance-weighted estimate of
// the reward of the played action. It returns an error, leaving the learner
// unchanged, if the action is out of range, the reward is NaN or infinite,
// or the action has probability zero under the current policy (possible
// only with Floor = 0).
func (l *OptimisticMWU) Observe(s, action int, reward float64, next int) error {
	if err := checkOneState("OptimisticMWU", s, next); err != nil {
		return err
	}
	w := &l.w
	if err := checkUnitFeedback(action, len(w.x), reward); err != nil {
		return err
	}
	u, err := iwEstimate(reward, w.x[action], action)
	if err != nil {
		return err
	}
	for i, p := range l.prev {
		w.scratch[i] = w.logq[i] - w.eta*p
	}
	w.scratch[action] += 2 * w.eta * u
	if err := w.checkCandidate(); err != nil {
		return err
	}
	w.commit()
	clear(l.prev)
	l.prev[action] = u
	return nil
}

// ObserveRewards performs a full-information update with the reward vector
// u_t. It returns an error, leaving the learner unchanged, if the length is
// not K or an entry is NaN or infinite.
func (l *OptimisticMWU) ObserveRewards(rewards []float64) error {
	w := &l.w
	if err := checkRewards(rewards, len(w.x)); err != nil {
		return err
	}
	for i, u := range rewards {
		w.scratch[i] = w.logq[i] + w.eta*(2*u-l.prev[i])
	}
	if err := w.checkCandidate(); err != nil {
		return err
	}
	w.commit()
	copy(l.prev, rewards)
	return nil
}

// Reset returns the learner to its initial distribution and forgets the
// previous reward vector (û_0 = 0).
func (l *OptimisticMWU) Reset() {
	l.w.reset()
	clear(l.prev)
}

// warmFloor is the smallest weight a warm start gives an action: the
// exponential weights need every weight positive.
const warmFloor = 1e-12

// warmStart makes policies[0] the initial weights distribution q_1 (each
// entry floored at warmFloor, then renormalised) and resets the weights.
func (w *expWeights) warmStart(name string, policies [][]float64) error {
	if len(policies) != 1 {
		return fmt.Errorf("%w: %s is a one-state learner, warm-started with %d policies", icrl.ErrShape, name, len(policies))
	}
	k := len(w.logInit)
	if err := simplex.CheckDistribution(name+" warm-start policy", policies[0], k); err != nil {
		return fmt.Errorf("learner: %w", err)
	}
	var total float64
	for _, p := range policies[0] {
		total += max(p, warmFloor)
	}
	logInit := make([]float64, k)
	for i, p := range policies[0] {
		logInit[i] = math.Log(max(p, warmFloor) / total)
	}
	w.logInit = logInit
	w.reset()
	return nil
}

// WarmStart makes policies[0] (the one state's distribution) the learner's
// initial weights distribution q_1 and resets it; Reset returns to it. An
// entry below 1e-12 is raised to it (the weights must be positive) and the
// distribution renormalised; the policy played is (1−γ)q_1 + γ/K, the start
// itself when Floor is 0. A constant step size has no schedule to enter
// late: the start is kept as long as the rewards do not move it. It
// returns an error, leaving the learner unchanged, if policies does not
// hold exactly one distribution over the learner's actions.
func (l *MWU) WarmStart(policies [][]float64) error { return l.w.warmStart("MWU", policies) }

// WarmStart is [MWU.WarmStart] for the optimistic learner; it also forgets
// the previous reward vector.
func (l *OptimisticMWU) WarmStart(policies [][]float64) error {
	if err := l.w.warmStart("OptimisticMWU", policies); err != nil {
		return err
	}
	clear(l.prev)
	return nil
}

var (
	_ WarmStarter = (*MWU)(nil)
	_ WarmStarter = (*OptimisticMWU)(nil)
)
