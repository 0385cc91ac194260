package learner

import (
	"errors"
	"fmt"
	"math"

	"github.com/icrl-go/icrl/game"
)

// A MarkovLearner is one player of a two-player Markov game with uncoupled
// bandit feedback (in-context-games-omd §1.3): before each round it sees the
// current state, after it its own action, its own reward and the next state,
// never the opponent's action, the rewards or the transitions.
//
// Rewards follow the convention of [Learner]: they are to be maximised and
// lie in [0,1]. In a zero-sum Markov game with row rewards in [0,1] the row
// player is fed r_t and the column player 1 − r_t (see [MarkovSelfPlay]).
type MarkovLearner interface {
	// Policy returns the learner's current distribution over its actions in
	// state s. The slice belongs to the learner: the caller must not
	// modify it, and it is valid only until the next call to Observe or
	// Reset. Policy panics if s is out of range.
	Policy(s int) []float64

	// Observe feeds back one round: the state s it was played in, the
	// learner's own action, its reward and the next state. It returns an
	// error, leaving the learner unchanged, if a state or the action is out
	// of range or the reward is invalid (NaN or infinite at least; each
	// implementation documents what else it rejects).
	Observe(s, action int, reward float64, next int) error

	// StationaryPolicy returns a copy of the current stationary policy,
	// one distribution per state: the policy Policy(s) would return in
	// every state s. It is a markov.Stationary, ready for policy
	// evaluation.
	StationaryPolicy() [][]float64

	// Reset returns the learner to its initial state.
	Reset()
}

// PerState plays a Markov game with one independent matrix-game [Learner] per
// state: the learner of state s plays in s and observes only the rounds
// played in s, with their immediate reward. It ignores the future (the next
// state and the continuation value), so it learns the equilibrium of each
// stage game's immediate rewards r(s,·,·), not of the Markov game's
// Q-functions: a myopic baseline for [MarkovOMD], which adds the value
// estimate r + γV(s') of Algorithm 1 of in-context-games-omd §4.3.
//
// Its cost per Observe is that of the state's learner plus O(1). A PerState
// is not safe for concurrent use.
type PerState struct {
	learners []Learner
	actions  int
}

// NewPerState returns a PerState over states states whose learner for state
// s is factory(s). It returns an error if states < 1, factory is nil or
// fails, returns a nil learner, or the learners' initial policies are not
// distributions over one common number of actions.
func NewPerState(states int, factory func(state int) (Learner, error)) (*PerState, error) {
	if states < 1 {
		return nil, fmt.Errorf("learner: PerState needs at least one state, got states = %d", states)
	}
	if factory == nil {
		return nil, errors.New("learner: PerState needs a learner factory, got nil")
	}
	p := &PerState{learners: make([]Learner, states)}
	for s := range p.learners {
		l, err := factory(s)
		if err != nil {
			return nil, fmt.Errorf("learner: PerState learner of state %d: %w", s, err)
		}
		if l == nil {
			return nil, fmt.Errorf("learner: PerState factory returned a nil learner for state %d", s)
		}
		x := l.Policy()
		if s == 0 {
			p.actions = len(x)
		}
		if err := game.CheckDistribution(fmt.Sprintf("PerState initial policy of state %d", s), x, p.actions); err != nil {
			return nil, fmt.Errorf("learner: %w", err)
		}
		p.learners[s] = l
	}
	return p, nil
}

// States returns the number of states.
func (p *PerState) States() int { return len(p.learners) }

// Actions returns the number of actions.
func (p *PerState) Actions() int { return p.actions }

// Learner returns the learner of state s. It panics if s is out of range.
func (p *PerState) Learner(s int) Learner {
	p.checkState(s)
	return p.learners[s]
}

func (p *PerState) checkState(s int) {
	if uint(s) >= uint(len(p.learners)) {
		panic(fmt.Sprintf("learner: state %d out of range [0, %d)", s, len(p.learners)))
	}
}

// Policy returns the policy of state s's learner. It panics if s is out of
// range.
func (p *PerState) Policy(s int) []float64 {
	p.checkState(s)
	return p.learners[s].Policy()
}

// Observe feeds (action, reward) to the learner of state s only; next is
// checked but otherwise ignored. It returns an error, leaving the learner
// unchanged, if s or next is out of range or state s's learner rejects the
// observation (every learner of this package rejects an out-of-range action
// and a NaN or infinite reward).
func (p *PerState) Observe(s, action int, reward float64, next int) error {
	if err := checkStates(s, next, len(p.learners)); err != nil {
		return err
	}
	if err := p.learners[s].Observe(action, reward); err != nil {
		return fmt.Errorf("learner: PerState state %d: %w", s, err)
	}
	return nil
}

// StationaryPolicy returns a copy of every state's current policy.
func (p *PerState) StationaryPolicy() [][]float64 {
	out := make([][]float64, len(p.learners))
	for s, l := range p.learners {
		out[s] = append([]float64(nil), l.Policy()...)
	}
	return out
}

// Reset resets every state's learner.
func (p *PerState) Reset() {
	for _, l := range p.learners {
		l.Reset()
	}
}

// Distribution implements [Policy] for Markov histories, in the convention of
// [MarkovOMD.Distribution]: the last step's State is the query state s_t (its
// Action and Reward are ignored) and the earlier steps are the rounds
// played. It returns the policy the learner of s_t would hold after the
// earlier steps played in s_t, by replaying them through that learner's own
// Distribution, so every state's learner must be a [Policy]. An empty history
// gives the initial policy of state 0. It allocates the filtered history and
// does not change the learner. It returns an error if a state is out of
// range, the learner of s_t is not a Policy, or its replay fails, and panics
// if dst has the wrong length.
func (p *PerState) Distribution(dst []float64, history []Step) ([]float64, error) {
	s := 0
	if len(history) > 0 {
		s = history[len(history)-1].State
	}
	for k, st := range history {
		if uint(st.State) >= uint(len(p.learners)) {
			return nil, fmt.Errorf("learner: PerState history step %d: state %d out of range [0, %d)", k, st.State, len(p.learners))
		}
	}
	pol, ok := p.learners[s].(Policy)
	if !ok {
		return nil, fmt.Errorf("learner: PerState learner %T of state %d is not a Policy and cannot replay a history", p.learners[s], s)
	}
	var sub []Step
	if len(history) > 0 {
		for _, st := range history[:len(history)-1] {
			if st.State == s {
				sub = append(sub, st)
			}
		}
	}
	if dst != nil && len(dst) != p.actions {
		panic(fmt.Sprintf("learner: PerState distribution destination has length %d, want %d", len(dst), p.actions))
	}
	return pol.Distribution(dst, sub)
}

// checkStates validates the current and next states of an observation.
func checkStates(s, next, states int) error {
	if s < 0 || s >= states {
		return fmt.Errorf("learner: state %d out of range [0, %d)", s, states)
	}
	if next < 0 || next >= states {
		return fmt.Errorf("learner: next state %d out of range [0, %d)", next, states)
	}
	return nil
}

// MarkovStepSizes are the hyper-parameters of one update of [MarkovOMD]: the
// step sizes of the policy update of the visited state (as in [OMD]) and the
// value learning rate α_τ of line 7 of Algorithm 1 (in-context-games-omd
// §4.3):
//
//	V(s_t) ← (1 − α_τ)·V(s_t) + α_τ·(r_t + γ·V(s_{t+1})).
type MarkovStepSizes struct {
	StepSizes
	// Alpha is the value learning rate α_τ ∈ [0, 1].
	Alpha float64
}

// A MarkovSchedule gives the step sizes of [MarkovOMD] round by round. It
// extends the matrix-game [Schedule] with the value learning rate α and the
// per-state visit count τ, on which Algorithm 1's β_τ and α_τ depend.
type MarkovSchedule interface {
	// At returns the step sizes of the update at global round t ≥ 1,
	// which is the visit-th visit (visit ≥ 1, counting the current one:
	// τ = n_{t+1}(s_t) of Algorithm 1) to the state being updated, when the
	// horizon is horizon (0 if unknown) and the player has actions
	// actions. Delta is the floor of the set the visited state's policy is
	// projected into.
	At(t, visit, horizon, actions int) MarkovStepSizes
}

// MarkovPaperSchedule is the schedule of the analysis of Algorithm 1
// (in-context-games-omd App. C, spec §2.4): with horizon T and visit count τ,
//
//	η = T^{−5/3},  ε = T^{−1/3},  β_τ = τ^{−1/3},  α_τ = τ^{−2/3},  δ = 1/(A·T²),
//
// η, ε and δ global constants, β and α per visit. Like [PaperSchedule] it
// does not learn (spec A3, T7): every update moves a state's policy by at
// most c·η·(L/β_τ + ε) ≤ c·T^{−5/3}·(L·T^{1/3} + T^{−1/3}) with L the loss
// bound (1 under [NormalizedLoss], U = 1/(1−γ) under [RawLoss]), so over T
// rounds the policies stay within c·(L·T^{−1/3} + T^{−2/3}) of uniform.
//
// It needs a positive horizon; for horizon ≤ 0 At returns NaN step sizes
// (and [NewMarkovOMD] rejects the configuration).
type MarkovPaperSchedule struct{}

// At returns the step sizes for horizon T = horizon at visit τ = visit; t is
// ignored.
func (MarkovPaperSchedule) At(t, visit, horizon, actions int) MarkovStepSizes {
	if horizon <= 0 {
		nan := math.NaN()
		return MarkovStepSizes{StepSizes{Eta: nan, Beta: nan, Epsilon: nan, Delta: nan}, nan}
	}
	s := PaperSchedule{}.At(t, horizon, actions) // η, ε, δ
	b := math.Pow(float64(visit), -1.0/3)        // τ^{-1/3}
	s.Beta = b
	return MarkovStepSizes{StepSizes: s, Alpha: b * b}
}

// PerVisit turns a matrix-game [Schedule] into a [MarkovSchedule] evaluated
// at the visit count: the update at the τ-th visit to a state uses
// Schedule.At(τ, horizon, A), as if each state ran its own matrix-game OMD
// clocked by its visits (the per-visit reading of Lemma C.1's exponents, as
// in Cai et al. 2023; spec §2.4), and the value rate Alpha(τ).
//
// The zero value, the default of [MarkovOMD], is the per-visit Cai schedule
// of the spec (§5.2 T8):
//
//	η_τ = τ^{−5/8},  ε_τ = τ^{−1/8},  β_τ = τ^{−3/8},  α_τ = τ^{−2/3},  δ = 1/(A·(τ+1)²).
//
// No proof covers it; on the spec's two-state game its last iterate improves
// only slowly (see [MarkovOMD]).
type PerVisit struct {
	// Schedule gives η, β, ε and δ at visit τ; nil means [CaiSchedule]
	// (computed with square roots rather than math.Pow, so equal to it up
	// to a few ulps, and about twice as fast).
	Schedule Schedule
	// Alpha gives α_τ; nil means τ^{−2/3}, the paper's ᾱ = 2/3.
	Alpha func(visit int) float64
}

// At returns the step sizes of the visit-th visit; t is ignored.
func (p PerVisit) At(t, visit, horizon, actions int) MarkovStepSizes {
	tau := float64(visit)
	var s StepSizes
	if p.Schedule == nil {
		// CaiSchedule{}.At(visit, ·, actions) with square roots instead of
		// math.Pow (which dominated the cost of a step): equal up to a
		// few ulps.
		e := 1 / math.Sqrt(math.Sqrt(math.Sqrt(tau))) // τ^{-1/8}
		b := e * e * e                                // τ^{-3/8}
		n := tau + 1
		s = StepSizes{Eta: b * e * e, Beta: b, Epsilon: e, Delta: 1 / (float64(actions) * n * n)}
	} else {
		s = p.Schedule.At(visit, horizon, actions)
	}
	var a float64
	if p.Alpha == nil {
		c := math.Cbrt(tau)
		a = 1 / (c * c) // τ^{-2/3}
	} else {
		a = p.Alpha(visit)
	}
	return MarkovStepSizes{StepSizes: s, Alpha: a}
}

// MarkovScheduleFunc adapts a function to the [MarkovSchedule] interface, for
// custom schedules. It is called with the arguments of [MarkovSchedule.At].
type MarkovScheduleFunc func(t, visit, horizon, actions int) MarkovStepSizes

// At returns f(t, visit, horizon, actions).
func (f MarkovScheduleFunc) At(t, visit, horizon, actions int) MarkovStepSizes {
	return f(t, visit, horizon, actions)
}

// LossScale selects how [MarkovOMD] puts its target q = r + γV(s') on the
// [0,1] scale that the [OMD] conventions assume. With U = 1/(1−γ), q lies in
// [0, U] (spec resolution A13).
type LossScale int

const (
	// NormalizedLoss divides q by U, so that the LossShift loss is
	// ℓ = 1 − q/U ∈ [0,1] and the IX gradient has the same scale as in a
	// matrix game (the default).
	NormalizedLoss LossScale = iota
	// RawLoss uses q itself: the LossShift loss is ℓ = U − q ∈ [0, U], the
	// form of the spec's corrected pseudocode (§2.4), and the Literal
	// gradient is the paper's (r + γV)·1{a = a_t}/(x_a + β) − ε·x_a. The
	// gradient, and so the step, is up to U times larger than with
	// NormalizedLoss.
	RawLoss
)

// String returns the loss scale's name.
func (l LossScale) String() string {
	switch l {
	case NormalizedLoss:
		return "NormalizedLoss"
	case RawLoss:
		return "RawLoss"
	}
	return fmt.Sprintf("LossScale(%d)", int(l))
}

// MarkovOMDConfig configures [NewMarkovOMD]. States, Actions and Gamma are
// required; every other zero value selects the documented default.
type MarkovOMDConfig struct {
	// States is the number of states S ≥ 1.
	States int
	// Actions is the learner's number of actions A ≥ 1.
	Actions int
	// Gamma is the discount γ ∈ [0, 1) of the game; it must match the
	// game's.
	Gamma float64
	// Horizon is the number of rounds T the learner expects to play, or 0
	// if unknown. The schedule receives it; [MarkovPaperSchedule] needs it
	// positive.
	Horizon int
	// Schedule gives η, β, ε, δ and α round by round; nil means
	// PerVisit{} (the per-visit Cai schedule).
	Schedule MarkovSchedule
	// Convention selects the gradient's sign convention, as for [OMD];
	// the zero value is [LossShift].
	Convention Convention
	// Role is the learner's player role, used only by [RewardAscent] and
	// [Literal]; set ColumnPlayer for the column player of
	// [MarkovSelfPlay] under those conventions.
	Role Role
	// LossScale selects the scale of the target q in the gradient; the zero
	// value is [NormalizedLoss].
	LossScale LossScale
	// ProxFactor is the factor c of the update x ← Π(x − c·η·ĝ) (spec
	// resolution A2); 0 means ½. It must be positive and finite.
	ProxFactor float64
}

// MarkovOMD is Algorithm 1 of in-context-games-omd (§4.3), OMD for two-player
// zero-sum Markov games, for one player, in the corrected form of the spec
// (§2.4, resolution A13). It keeps, for every state s, a policy x(s) on the
// truncated simplex, a visit count n(s) and an estimate V(s) of the player's
// own value, initialised to x(s) uniform, n(s) = 0 and V(s) = 1/(2(1−γ)). At
// round t, in state s_t, after its action a_t, its reward r_t and the next
// state s_{t+1}:
//
//	n(s_t) ← n(s_t) + 1;  τ = n(s_t)
//	q    = r_t + γ·V(s_{t+1})                       (V before this round's update)
//	ĝ_a  = ℓ·1{a = a_t}/(x_a(s_t) + β_τ) + ε·x_a(s_t)
//	x(s_t) ← Π_{Ω_δ}(x(s_t) − c·η·ĝ)
//	V(s_t) ← (1 − α_τ)·V(s_t) + α_τ·q
//
// and nothing changes in the other states. With [LossShift] (the default)
// the loss is ℓ = 1 − q/U with U = 1/(1−γ) under [NormalizedLoss] (the
// default) and ℓ = U − q under [RawLoss]. [RewardAscent] and [Literal] are
// the paper's reward form, ascending or (as printed in line 5 of
// Algorithm 1) descending with the −εx anti-regulariser, with the role's
// target u = q̃ for the row player and u = q̃ − Ũ for the column player,
// where (q̃, Ũ) is (q/U, 1) or (q, U); exactly as [OMD] does with U = 1.
//
// Each player keeps its own V (the spec's resolution; the paper does not
// say). It estimates the player's value in its own reward convention: the
// column player of [MarkovSelfPlay] is fed 1 − r_t, so its V^y(s) estimates
// Σ γ^k (1 − r) = U − V^x(s), its q^y = 1 − r_t + γV^y(s_{t+1}) estimates
// U − q^x, and its LossShift loss U − q^y ≈ q^x is the spec's min-player
// loss ℓ = q_t (normalised: q^x/U). Both players' V lie in [0, U].
//
// Loss scale (spec A13: q ∈ [0, U] while the loss shift assumes [0,1]): the
// default [NormalizedLoss] divides q by U, which puts the loss in [0,1], the
// scale the per-visit schedule was tuned for in matrix games. With [RawLoss]
// the loss U − q ∈ [0, U] is up to U times larger (U = 10 at γ = 0.9), so
// every step is up to U times longer, and the large, nearly
// action-independent part U − γV(s') of the loss enters the importance
// weighted estimate as noise; the early iterates jump between vertices of
// the truncated simplex. Measured on the spec's two-state game (T6: γ = 0.9,
// exact rewards, [PerVisit], prox ½, seeds 0–9), the mean final max-gap is
// 1.55, 1.39, 1.37, 1.14 at T = 10³, 10⁴, 10⁵, 10⁶ with NormalizedLoss and
// 2.25, 2.51, 1.73, 1.29 with RawLoss; uniform policies have 1.375 and the
// spec's prototype reported 1.884, 1.472, 1.339 at T = 10³, 10⁴, 10⁵. So the
// normalised loss is the default. Neither is covered by a proof, and
// convergence is slow: normalising also shrinks the action-dependent part
// r_t of the loss to r_t/U, which is one reason why the myopic [PerState]
// baseline does better on that game, whose transitions do not depend on the
// actions (max-gap 0.76 at T = 2·10⁴ in the tests). The
// tests do not assert Markov convergence (spec §5.2 T8). [Literal] diverges
// as in matrix games: final max-gaps ≈ 9 (of at most U = 10).
//
// [MarkovOMD.Policy] is the policy x_t(s) the learner plays at its next
// round. Like [OMD], MarkovOMD is a deterministic function of the player's
// own history of (state, action, reward) steps, so it is also a [Policy]
// ([MarkovOMD.Distribution]).
//
// Each Observe costs O(A log A) time (the projection) and does not allocate;
// the state occupies O(S·A) memory. A MarkovOMD is not safe for concurrent
// use.
type MarkovOMD struct {
	states, actions, horizon int
	gamma, u                 float64 // γ and U = 1/(1−γ)
	sched                    MarkovSchedule
	conv                     Convention
	role                     Role
	scale                    LossScale
	c                        float64

	t    int       // observations so far
	x    []float64 // x[s*A+a]
	v    []float64 // V(s)
	n    []int     // n(s)
	g    []float64 // gradient and pre-projection point
	next []float64 // projection target
}

// NewMarkovOMD returns a MarkovOMD at its initial state: uniform policies,
// zero visits and V = 1/(2(1−γ)) in every state (Algorithm 1, line 2). It
// returns an error that names the bad field if States or Actions is less
// than 1, Gamma is outside [0,1), Horizon is negative, the Schedule is
// [MarkovPaperSchedule] and Horizon is not positive, the step sizes of the
// first visit are invalid, Convention, Role or LossScale is unknown, or
// ProxFactor is negative or not finite.
func NewMarkovOMD(cfg MarkovOMDConfig) (*MarkovOMD, error) {
	if cfg.States < 1 {
		return nil, fmt.Errorf("learner: MarkovOMD needs at least one state, got States = %d", cfg.States)
	}
	if !(cfg.Gamma >= 0 && cfg.Gamma < 1) {
		return nil, fmt.Errorf("learner: MarkovOMD discount Gamma = %v is outside [0, 1)", cfg.Gamma)
	}
	sched := cfg.Schedule
	if sched == nil {
		sched = PerVisit{}
	}
	_, paper := sched.(MarkovPaperSchedule)
	if _, p := sched.(*MarkovPaperSchedule); p {
		paper = true
	}
	c, err := checkOMDConfig("MarkovOMD", cfg.Actions, cfg.Horizon, paper, "MarkovPaperSchedule", cfg.Convention, cfg.Role, cfg.ProxFactor)
	if err != nil {
		return nil, err
	}
	switch cfg.LossScale {
	case NormalizedLoss, RawLoss:
	default:
		return nil, fmt.Errorf("learner: MarkovOMD has unknown LossScale %v", cfg.LossScale)
	}
	S, A := cfg.States, cfg.Actions
	m := &MarkovOMD{
		states: S, actions: A, horizon: cfg.Horizon,
		gamma: cfg.Gamma, u: 1 / (1 - cfg.Gamma),
		sched: sched, conv: cfg.Convention, role: cfg.Role, scale: cfg.LossScale, c: c,
		x:    make([]float64, S*A),
		v:    make([]float64, S),
		n:    make([]int, S),
		g:    make([]float64, A),
		next: make([]float64, A),
	}
	if _, err := m.sizes(1, 1); err != nil {
		return nil, err
	}
	m.Reset()
	return m, nil
}

// sizes returns the validated step sizes of round t, visit τ.
func (m *MarkovOMD) sizes(t, tau int) (MarkovStepSizes, error) {
	s := m.sched.At(t, tau, m.horizon, m.actions)
	bad := func(name string, v float64) error {
		return fmt.Errorf("learner: MarkovOMD schedule gives %s = %v at round %d, visit %d (horizon %d, %d actions): must be finite and non-negative", name, v, t, tau, m.horizon, m.actions)
	}
	switch {
	case !(s.Eta >= 0) || math.IsInf(s.Eta, 1):
		return s, bad("η", s.Eta)
	case !(s.Beta >= 0) || math.IsInf(s.Beta, 1):
		return s, bad("β", s.Beta)
	case !(s.Epsilon >= 0) || math.IsInf(s.Epsilon, 1):
		return s, bad("ε", s.Epsilon)
	case !(s.Delta >= 0) || math.IsInf(s.Delta, 1):
		return s, bad("δ", s.Delta)
	case !(s.Alpha >= 0 && s.Alpha <= 1):
		return s, fmt.Errorf("learner: MarkovOMD schedule gives α = %v at round %d, visit %d: must lie in [0, 1]", s.Alpha, t, tau)
	}
	if da := s.Delta * float64(m.actions); da > 1+1e-12 {
		return s, fmt.Errorf("learner: MarkovOMD schedule gives δ = %v at round %d, visit %d with %d actions: δ·A = %v > 1, the truncated simplex is empty", s.Delta, t, tau, m.actions, da)
	}
	return s, nil
}

// check validates one observation.
func (m *MarkovOMD) check(s, action int, reward float64, next int) error {
	if err := checkStates(s, next, m.states); err != nil {
		return err
	}
	if err := checkFeedback(action, m.actions, reward); err != nil {
		return err
	}
	if reward < 0 || reward > 1 {
		return fmt.Errorf("learner: MarkovOMD reward %v for action %d is outside [0, 1]", reward, action)
	}
	return nil
}

// update performs one round of Algorithm 1 on the state arrays x, v, n at
// round t, using the scratch g and next. It validates nothing but the step
// sizes and the importance weight, and changes nothing if it fails.
func (m *MarkovOMD) update(x, v []float64, n []int, g, next []float64, t, s, action int, reward float64, sn int) error {
	tau := n[s] + 1
	sz, err := m.sizes(t, tau)
	if err != nil {
		return err
	}
	A := m.actions
	xs := x[s*A : (s+1)*A : (s+1)*A]
	den := xs[action] + sz.Beta
	if !(den > 0) {
		return fmt.Errorf("learner: MarkovOMD importance weight x[%d] + β = %v + %v is not positive", action, xs[action], sz.Beta)
	}
	q := reward + m.gamma*v[sn]
	qt, ut := q, m.u // q̃ and Ũ
	if m.scale == NormalizedLoss {
		qt, ut = q/m.u, 1
	}
	var k, w float64 // ĝ = k·x + w/(x_a+β)·e_a
	switch m.conv {
	case LossShift:
		k, w = sz.Epsilon, ut-qt
	case RewardAscent, Literal:
		uu := qt // the paper's target: q (row) or q − U ≈ −q^x (column)
		if m.role == ColumnPlayer {
			uu = qt - ut
		}
		if m.conv == RewardAscent {
			k, w = sz.Epsilon, -uu
		} else {
			k, w = -sz.Epsilon, uu
		}
	}
	for i, xi := range xs {
		g[i] = k * xi
	}
	g[action] += w / den
	ce := m.c * sz.Eta // the same arithmetic as OMD, so that γ = 0, S = 1 reproduces it
	for i, xi := range xs {
		g[i] = xi - ce*g[i]
	}
	if err := game.ProjectTruncated(next, g, sz.Delta); err != nil {
		return fmt.Errorf("learner: MarkovOMD round %d, state %d: %w", t, s, err)
	}
	copy(xs, next)
	a := sz.Alpha
	v[s] = (1-a)*v[s] + a*q
	n[s] = tau
	return nil
}

// States returns the number of states S.
func (m *MarkovOMD) States() int { return m.states }

// Actions returns the number of actions A.
func (m *MarkovOMD) Actions() int { return m.actions }

// Gamma returns the discount γ.
func (m *MarkovOMD) Gamma() float64 { return m.gamma }

// Round returns the number of observations since construction or the last
// Reset.
func (m *MarkovOMD) Round() int { return m.t }

// Policy returns the current policy x(s) of state s. The slice belongs to
// the learner and is valid until the next call to Observe or Reset. It
// panics if s is out of range.
func (m *MarkovOMD) Policy(s int) []float64 {
	if uint(s) >= uint(m.states) {
		panic(fmt.Sprintf("learner: MarkovOMD state %d out of range [0, %d)", s, m.states))
	}
	A := m.actions
	return m.x[s*A : (s+1)*A : (s+1)*A]
}

// Observe performs one round of Algorithm 1 for the round played in state s
// with the learner's own action, its reward (in [0,1], to be maximised) and
// the next state. It returns an error, leaving the learner unchanged, if s,
// next or the action is out of range, the reward is NaN, infinite or
// outside [0,1], or the schedule's step sizes for the round are invalid. It
// runs in O(A log A) time without allocating.
func (m *MarkovOMD) Observe(s, action int, reward float64, next int) error {
	if err := m.check(s, action, reward, next); err != nil {
		return err
	}
	if err := m.update(m.x, m.v, m.n, m.g, m.next, m.t+1, s, action, reward, next); err != nil {
		return err
	}
	m.t++
	return nil
}

// StationaryPolicy returns a copy of the current policies of all states.
func (m *MarkovOMD) StationaryPolicy() [][]float64 {
	out := make([][]float64, m.states)
	A := m.actions
	for s := range out {
		out[s] = append([]float64(nil), m.x[s*A:(s+1)*A]...)
	}
	return out
}

// Reset returns the learner to its initial state.
func (m *MarkovOMD) Reset() {
	for i := range m.x {
		m.x[i] = 1 / float64(m.actions)
	}
	v0 := 0.5 * m.u
	for s := range m.v {
		m.v[s] = v0
		m.n[s] = 0
	}
	m.t = 0
}

// Value returns the current value estimate V(s). It panics if s is out of
// range.
func (m *MarkovOMD) Value(s int) float64 { return m.v[s] }

// Values returns a copy of the value estimates V(s) of all states.
func (m *MarkovOMD) Values() []float64 { return append([]float64(nil), m.v...) }

// Visits returns the number of observations made in state s since
// construction or the last Reset. It panics if s is out of range.
func (m *MarkovOMD) Visits(s int) int { return m.n[s] }

// Distribution implements [Policy] for Markov histories: history holds the
// player's own steps (s_1, a_1, r_1), …, (s_{t−1}, a_{t−1}, r_{t−1}) followed
// by a last step whose State is the current state s_t (its Action and Reward
// are ignored), so the next state of each replayed step is the State of the
// step after it. It stores in dst (allocated if nil) the policy x_t(s_t)
// obtained by replaying the t−1 rounds from the initial state, which equals
// bit for bit the policy a fresh learner fed the same rounds plays in s_t.
// A recorded trajectory res.Row of [MarkovSelfPlay] thus gives the policy of
// round t as Distribution(dst, res.Row[:t]). An empty history gives the
// uniform initial policy.
//
// It does not change the learner and allocates O(S·A) scratch, so
// concurrent calls of Distribution alone are safe (if the Schedule is); the
// cost is O(t·A log A + S·A). It returns an error naming the step if a step
// is invalid, and panics if dst has the wrong length.
func (m *MarkovOMD) Distribution(dst []float64, history []Step) ([]float64, error) {
	S, A := m.states, m.actions
	if dst == nil {
		dst = make([]float64, A)
	}
	if len(dst) != A {
		panic(fmt.Sprintf("learner: MarkovOMD distribution destination has length %d, want %d", len(dst), A))
	}
	if len(history) == 0 {
		for i := range dst {
			dst[i] = 1 / float64(A)
		}
		return dst, nil
	}
	last := history[len(history)-1].State
	if uint(last) >= uint(S) {
		return nil, fmt.Errorf("learner: MarkovOMD history step %d: state %d out of range [0, %d)", len(history)-1, last, S)
	}
	x := make([]float64, S*A+S+2*A)
	v, g, next := x[S*A:S*A+S:S*A+S], x[S*A+S:S*A+S+A:S*A+S+A], x[S*A+S+A:]
	x = x[: S*A : S*A]
	n := make([]int, S)
	for i := range x {
		x[i] = 1 / float64(A)
	}
	for s := range v {
		v[s] = 0.5 * m.u
	}
	for k, st := range history[:len(history)-1] {
		sn := history[k+1].State
		if err := m.check(st.State, st.Action, st.Reward, sn); err != nil {
			return nil, fmt.Errorf("learner: MarkovOMD history step %d: %w", k, err)
		}
		if err := m.update(x, v, n, g, next, k+1, st.State, st.Action, st.Reward, sn); err != nil {
			return nil, fmt.Errorf("learner: MarkovOMD history step %d: %w", k, err)
		}
	}
	copy(dst, x[last*A:(last+1)*A])
	return dst, nil
}
