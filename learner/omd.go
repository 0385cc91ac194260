package learner

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/learner/schedule"
)

// OMDConfig configures [NewOMD]. Only Actions is required; every other zero
// value selects the documented default, which for States and Discount is the
// matrix game (one state, γ = 0).
type OMDConfig struct {
	// States is the number of states S of the game; 0 means 1, a matrix
	// game.
	States int
	// Actions is the learner's number of actions A ≥ 1.
	Actions int
	// Discount is the discount γ ∈ [0, 1) of a Markov game; it must match the
	// game's. 0 (a matrix game) makes the target the reward itself.
	Discount float64
	// Horizon is the number of rounds T the learner expects to play, or 0
	// if unknown. The schedule receives it; [schedule.Paper] needs it
	// positive. The learner may keep playing past it.
	Horizon int
	// Schedule gives η, β, ε, δ and α round by round; nil (or a typed nil) means
	// [schedule.Cai] (with Roots set when States > 1).
	Schedule schedule.Schedule
	// Eta, if positive, is a constant step size η used at every round in
	// place of the schedule's η; β, ε, δ and α still come from Schedule.
	// It is the way to try a step size without writing a Schedule. 0 keeps
	// the schedule's η; it must be finite and not negative.
	Eta float64
	// Convention selects the gradient's sign convention; the zero value is
	// [LossDescent].
	Convention Convention
	// Role is the learner's player, used only by [RewardAscent] and
	// [PrintedSign]; the zero value is game.RowPlayer. Set game.ColumnPlayer
	// for the column player of play.SelfPlay under those conventions.
	Role game.Player
	// LossScale selects the scale of the target q in the gradient; the zero
	// value is [NormalizedLoss]. It makes no difference when Discount is 0.
	LossScale LossScale
	// ProxFactor is the factor c of the update x ← Π(x − c·η·ĝ). 0 means
	// ½, the literal prox (1/η)‖x − x_t‖²₂ of §4.1 and Lemma A.1; 1 is the
	// (1/2η)‖x − x_t‖²₂ prox of the proof of Lemma B.2. It must be positive
	// and finite.
	ProxFactor float64
	// Init is the initial policy of every state; nil means uniform. It
	// must be a probability vector of length Actions inside the truncated
	// simplex Ω_δ of the first update (δ = Schedule.At(1, 1, Horizon,
	// Actions).Delta), and is copied.
	Init []float64
	// InitByState, if not nil, is the initial policy of each state s
	// (len States, each of length Actions inside Ω_δ like Init) and
	// overrides Init. It is copied. The schedule starts at its first
	// visit, whose large steps pull the policy toward uniform; to hand a
	// meta-learned initialisation to the learner (for example
	// metalearn.SoftmaxPolicies of meta-learned logits) use
	// [OMD.WarmStart], which projects it and enters the schedule late.
	InitByState [][]float64
	// WarmVisits is the number of visits of every state that
	// [OMD.WarmStart] counts before the first round: the schedule is
	// entered at visit WarmVisits+1, whose smaller steps keep a good
	// start instead of pulling it back toward uniform (with [schedule.Cai]
	// the first visit's ε = 1 halves the policy's distance to uniform). 0
	// means [DefaultWarmVisits]; −1 enters the schedule at its first
	// visit. It does not affect a learner that is not warm-started.
	WarmVisits int
}

// DefaultWarmVisits is the default [OMDConfig.WarmVisits], chosen by
// measurement on the sequences of similar games of multi-agent-meta-rl
// App. F.1 and F.2 (examples/metalearn -parts learner): the smallest
// offset of 10, 100, 1000 and 10⁴ that halves cold-start OMD's gap at
// round 100 from a meta-learned start, while a misleading start costs no
// more than a cold one by round 10⁴ (a larger offset keeps a bad start
// longer).
const DefaultWarmVisits = 1000

// OMD is online mirror descent with the squared-Euclidean regulariser on the
// truncated simplex and bandit feedback: Alg_OMD of in-context-games-omd
// §4.1 in a matrix game, and Algorithm 1 of §4.3 (OMD for two-player
// zero-sum Markov games), of which the matrix game is the one-state,
// γ = 0 case, for one player. It keeps, for every state s, a policy x(s) on
// the truncated simplex, a visit count n(s) and an estimate V(s) of the
// player's own value, initialised to x(s) = Init (uniform), n(s) = 0 and
// V(s) = 1/(2(1−γ)). At round t, in state s_t, after its action a_t, its
// reward r_t and the next state s_{t+1}:
//
//	n(s_t) ← n(s_t) + 1;  τ = n(s_t)
//	q    = r_t + γ·V(s_{t+1})                       (V before this round's update)
//	ĝ_a  = ℓ·1{a = a_t}/(x_a(s_t) + β_τ) + ε·x_a(s_t)
//	x(s_t) ← Π_{Ω_δ}(x(s_t) − c·η·ĝ)
//	V(s_t) ← (1 − α_τ)·V(s_t) + α_τ·q
//
// and nothing changes in the other states. In a matrix game q = r_t and the
// update is x_{t+1} = Π_{Ω_{t+1}}(x_t − c·η_t·ĝ_t) of §4.1: projected
// online gradient descent with the importance-weighted implicit-exploration
// gradient (the name follows the paper).
//
// With [LossDescent] (the default) the loss is ℓ = 1 − q/U with U = 1/(1−γ)
// under [NormalizedLoss] (the default) and ℓ = U − q under [RawLoss].
// [RewardAscent] and [PrintedSign] are the paper's reward form, ascending or
// (as printed in §4.1 and line 5 of Algorithm 1) descending with the −εx
// anti-regulariser, with the role's target u = q̃ for the row player and
// u = q̃ − Ũ for the column player, where (q̃, Ũ) is (q/U, 1) or (q, U).
//
// Where the library departs from the paper on purpose: the paper's step
// sizes (η = T^{−5/3}, [schedule.Paper]) provably do not move the policy, so
// the default is [schedule.Cai]; the paper's printed sign ([PrintedSign]) makes
// each player descend on its own reward and diverges, so the default is
// [LossDescent]; the truncation level is an output of the schedule (δ of the
// next set); each player keeps its own V in its own reward convention (the
// paper does not say). The column player of play.SelfPlay is fed 1 − r_t, so
// its V^y(s) estimates U − V^x(s), and its LossDescent loss U − q^y ≈ q^x is
// the min player's loss. The paper's forms are options, so its experiments
// can be reproduced either way.
//
// Loss scale: q lies in [0, U] while the matrix-game conventions assume
// [0,1]. The default [NormalizedLoss] divides q by U; with [RawLoss] the
// loss U − q ∈ [0, U] is up to U times larger (U = 10 at γ = 0.9), so every
// step is up to U times longer and the large, nearly action-independent
// part U − γV(s') of the loss enters the importance-weighted estimate as
// noise. Neither is covered by a proof, and convergence in Markov games is
// slow:
// normalising also shrinks the action-dependent part r_t of the loss to
// r_t/U, which is one reason why the myopic [PerState] baseline does better
// on that game, whose transitions do not depend on the actions. [PrintedSign]
// diverges as in matrix games.
//
// [OMD.Policy] is the policy the learner plays at its next round: after T
// rounds of a matrix game it is x_{T+1}, whereas the theorems' last iterate
// x_T is the policy played at round T (play.SelfPlay reports x_T). The update
// depends only on the learner's own history of (state, action, reward)
// steps (uncoupled), so OMD is also a [HistoryPolicy]: [OMD.Distribution] replays a
// history and returns exactly (bit for bit) the policy the online learner
// holds after observing it.
//
// Rewards are expected in [0,1]; noisy draws outside [0,1] (for example
// game.UniformNoise) are accepted, NaN and infinities are rejected. Each
// Observe costs O(A log A) time (a sort in the projection) and does not
// allocate; the state occupies O(S·A) memory. An OMD is not safe for
// concurrent use.
type OMD struct {
	states, actions, horizon int
	gamma, u                 float64 // γ and U = 1/(1−γ)
	sched                    schedule.Schedule
	policy                   schedule.PolicyScheduler // sched without α, used when γ = 0; nil otherwise
	cai                      *schedule.Cai            // sched itself when it is a schedule.Cai used without α (a direct call)
	conv                     Convention
	role                     game.Player
	scale                    LossScale
	c                        float64
	init                     []float64

	t      int // observations so far
	visits int // visits of every state counted before the first round (a warm start's)
	warm   int // OMDConfig.WarmVisits
	omdState
}

// omdState is what an update reads and writes: the learner's own, or a
// replay's scratch copy in Distribution.
type omdState struct {
	x []float64 // x[s*A+a]
	v []float64 // V(s)
	n []int     // n(s)
	g []float64 // gradient and pre-projection point
}

// constantEta is a schedule with η fixed and the rest from base.
type constantEta struct {
	base schedule.Schedule
	eta  float64
}

// At returns base's step sizes with η replaced.
func (c constantEta) At(t, visit, horizon, actions int) schedule.StepSizes {
	s := c.base.At(t, visit, horizon, actions)
	s.Eta = c.eta
	return s
}

// NewOMD returns an OMD learner at its initial state: x(s) = Init (uniform)
// in every state, zero visits and V = 1/(2(1−γ)) (Algorithm 1, line 2). It
// returns an error that names the bad field if States is negative, Actions
// is less than 1, Discount is outside [0,1), Horizon is negative, the Schedule
// is a [schedule.Paper] and Horizon is not positive, the step sizes of the
// first visit are invalid (non-finite, negative, α outside [0,1], or
// δ·A > 1), Eta is negative or not finite, Convention, Role or LossScale is
// unknown, ProxFactor is negative
// or not finite, or Init is not a distribution inside Ω_δ of the first
// update.
func NewOMD(cfg OMDConfig) (*OMD, error) {
	S := cfg.States
	if S == 0 {
		S = 1
	}
	if S < 1 {
		return nil, fmt.Errorf("%w: OMD needs at least one state, got States = %d", icrl.ErrInvalid, cfg.States)
	}
	if !(cfg.Discount >= 0 && cfg.Discount < 1) {
		return nil, fmt.Errorf("%w: OMD Discount = %v is outside [0, 1)", icrl.ErrInvalid, cfg.Discount)
	}
	sched := cfg.Schedule
	if sched == nil || nilness.Is(sched) {
		sched = schedule.Cai{Roots: S > 1}
	}
	_, paper := sched.(schedule.Paper)
	if _, p := sched.(*schedule.Paper); p {
		paper = true
	}
	A := cfg.Actions
	if A < 1 {
		return nil, fmt.Errorf("%w: OMD needs at least one action, got Actions = %d", icrl.ErrInvalid, A)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "OMD with States × Actions", S, A); err != nil {
		return nil, err
	}
	if cfg.Horizon < 0 {
		return nil, fmt.Errorf("%w: OMD horizon must be non-negative, got Horizon = %d", icrl.ErrInvalid, cfg.Horizon)
	}
	if paper && cfg.Horizon <= 0 {
		return nil, fmt.Errorf("%w: OMD with schedule.Paper needs a positive Horizon T (η = T^{-5/3}), got Horizon = %d", icrl.ErrInvalid, cfg.Horizon)
	}
	if !(cfg.Eta >= 0) || math.IsInf(cfg.Eta, 0) {
		return nil, fmt.Errorf("%w: OMD step size Eta = %v must be finite and not negative (0 keeps the schedule's η)", icrl.ErrInvalid, cfg.Eta)
	}
	if cfg.Eta > 0 {
		sched = constantEta{base: sched, eta: cfg.Eta}
	}
	switch cfg.Convention {
	case LossDescent, RewardAscent, PrintedSign:
	default:
		return nil, fmt.Errorf("%w: OMD has unknown Convention %v", icrl.ErrInvalid, cfg.Convention)
	}
	if !cfg.Role.Valid() {
		return nil, fmt.Errorf("%w: OMD has unknown Role %v", icrl.ErrInvalid, cfg.Role)
	}
	switch cfg.LossScale {
	case NormalizedLoss, RawLoss:
	default:
		return nil, fmt.Errorf("%w: OMD has unknown LossScale %v", icrl.ErrInvalid, cfg.LossScale)
	}
	c := cfg.ProxFactor
	if c == 0 {
		c = 0.5
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("%w: OMD ProxFactor = %v must be positive and finite", icrl.ErrInvalid, cfg.ProxFactor)
	}
	if cfg.WarmVisits < -1 {
		return nil, fmt.Errorf("%w: OMD WarmVisits = %d must be −1 (no offset), 0 (the default) or positive", icrl.ErrInvalid, cfg.WarmVisits)
	}
	m := &OMD{
		warm: cfg.WarmVisits, states: S, actions: A, horizon: cfg.Horizon,
		gamma: cfg.Discount, u: 1 / (1 - cfg.Discount),
		sched: sched, conv: cfg.Convention, role: cfg.Role, scale: cfg.LossScale, c: c,
		init: make([]float64, S*A),
		omdState: omdState{
			x: make([]float64, S*A),
			v: make([]float64, S),
			n: make([]int, S),
			g: make([]float64, A),
		},
	}
	if ps, ok := sched.(schedule.PolicyScheduler); ok && cfg.Discount == 0 {
		m.policy = ps
		if c, ok := sched.(schedule.Cai); ok {
			m.cai = &c
		}
	}
	s1, err := m.sizes(1, 1)
	if err != nil {
		return nil, err
	}
	if cfg.InitByState != nil && len(cfg.InitByState) != S {
		return nil, fmt.Errorf("%w: OMD InitByState has %d states, want States = %d", icrl.ErrInvalid, len(cfg.InitByState), S)
	}
	for st := range S {
		init, name := cfg.Init, "OMD initial policy Init"
		if cfg.InitByState != nil {
			init, name = cfg.InitByState[st], fmt.Sprintf("OMD initial policy InitByState[%d]", st)
		}
		dst := m.init[st*A : (st+1)*A]
		if init == nil {
			for i := range dst {
				dst[i] = 1 / float64(A)
			}
			continue
		}
		if err := simplex.CheckDistribution(name, init, A); err != nil {
			return nil, fmt.Errorf("learner: %w", err)
		}
		for i, p := range init {
			if p < s1.Delta-1e-12 {
				return nil, fmt.Errorf("%w: %s[%d] = %v is below the truncation level δ = %v of round 1: not in Ω_δ", icrl.ErrInvalid, name, i, p, s1.Delta)
			}
		}
		copy(dst, init)
	}
	m.Reset()
	return m, nil
}

// sizes returns the validated step sizes of round t, visit τ.
func (m *OMD) sizes(t, tau int) (schedule.StepSizes, error) {
	var s schedule.StepSizes
	if m.cai != nil {
		s = m.cai.PolicyAt(t, tau, m.horizon, m.actions)
	} else if m.policy != nil {
		s = m.policy.PolicyAt(t, tau, m.horizon, m.actions)
	} else {
		s = m.sched.At(t, tau, m.horizon, m.actions)
	}
	const big = math.MaxFloat64
	if s.Eta >= 0 && s.Eta <= big && s.Beta >= 0 && s.Beta <= big && s.Epsilon >= 0 && s.Epsilon <= big &&
		s.Delta >= 0 && s.Delta*float64(m.actions) <= 1+1e-12 && s.Alpha >= 0 && s.Alpha <= 1 {
		return s, nil // the common case, without building an error
	}
	return s, m.badSizes(s, t, tau)
}

// badSizes returns the error that names the invalid step size of s.
func (m *OMD) badSizes(s schedule.StepSizes, t, tau int) error {
	bad := func(name string, v float64) error {
		return fmt.Errorf("%w: OMD schedule gives %s = %v at round %d, visit %d (horizon %d, %d actions): must be finite and non-negative", icrl.ErrInvalid, name, v, t, tau, m.horizon, m.actions)
	}
	switch {
	case !(s.Eta >= 0) || math.IsInf(s.Eta, 1):
		return bad("η", s.Eta)
	case !(s.Beta >= 0) || math.IsInf(s.Beta, 1):
		return bad("β", s.Beta)
	case !(s.Epsilon >= 0) || math.IsInf(s.Epsilon, 1):
		return bad("ε", s.Epsilon)
	case !(s.Delta >= 0) || math.IsInf(s.Delta, 1):
		return bad("δ", s.Delta)
	case !(s.Alpha >= 0 && s.Alpha <= 1):
		return fmt.Errorf("%w: OMD schedule gives α = %v at round %d, visit %d: must lie in [0, 1]", icrl.ErrInvalid, s.Alpha, t, tau)
	}
	return fmt.Errorf("%w: OMD schedule gives δ = %v at round %d, visit %d with %d actions: δ·A = %v > 1, the truncated simplex is empty", icrl.ErrInvalid, s.Delta, t, tau, m.actions, s.Delta*float64(m.actions))
}

// check validates one observation.
func (m *OMD) check(s, action int, reward float64, next int) error {
	if uint(s) < uint(m.states) && uint(next) < uint(m.states) && uint(action) < uint(m.actions) &&
		reward >= 0 && reward <= 1 { // false for NaN
		return nil
	}
	if err := checkStates(s, next, m.states); err != nil {
		return err
	}
	return checkUnitFeedback(action, m.actions, reward)
}

// gradient stores in g the descent direction ĝ of the observation in state
// s with policy xs = x(s), and returns the target q.
func (m *OMD) gradient(g, xs, v []float64, sz schedule.StepSizes, action int, reward float64, sn int) (float64, error) {
	den := xs[action] + sz.Beta
	if !(den > 0) {
		return 0, fmt.Errorf("%w: OMD importance weight x[%d] + β = %v + %v is not positive", icrl.ErrInvalid, action, xs[action], sz.Beta)
	}
	q := reward + m.gamma*v[sn]
	qt, ut := q, m.u // q̃ and Ũ
	if m.scale == NormalizedLoss {
		qt, ut = q/m.u, 1
	}
	var k, w float64 // ĝ = k·x + w/(x_a+β)·e_a
	switch m.conv {
	case LossDescent:
		k, w = sz.Epsilon, ut-qt
	case RewardAscent, PrintedSign:
		uu := qt // the paper's target: q (row) or q − U ≈ −q^x (column)
		if m.role == game.ColumnPlayer {
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
	return q, nil
}

// update performs one round of Algorithm 1 on st at round t. It validates
// nothing but the step sizes and the importance weight, and changes nothing
// if it fails.
func (m *OMD) update(st *omdState, t, s, action int, reward float64, sn int) error {
	x, v, n, g := st.x, st.v, st.n, st.g
	tau := n[s] + 1
	sz, err := m.sizes(t, tau)
	if err != nil {
		return err
	}
	A := m.actions
	xs := x[s*A : (s+1)*A : (s+1)*A]
	q, err := m.gradient(g, xs, v, sz, action, reward, sn)
	if err != nil {
		return err
	}
	ce := m.c * sz.Eta
	for i, xi := range xs {
		g[i] = xi - ce*g[i]
	}
	// ProjectTruncated fails before writing, so xs is unchanged on error.
	if err := simplex.ProjectTruncated(xs, g, sz.Delta); err != nil {
		return fmt.Errorf("learner: OMD round %d, state %d: %w", t, s, err)
	}
	if m.policy == nil {
		a := sz.Alpha
		v[s] = (1-a)*v[s] + a*q
	}
	n[s] = tau
	return nil
}

// States returns the number of states S.
func (m *OMD) States() int { return m.states }

// Actions returns the number of actions A.
func (m *OMD) Actions() int { return m.actions }

// Discount returns the discount γ.
func (m *OMD) Discount() float64 { return m.gamma }

// Round returns the number of observations since construction or the last
// Reset.
func (m *OMD) Round() int { return m.t }

// Policy returns the current policy x(s) of state s. The slice belongs to
// the learner and is valid until the next call to Observe or Reset. It
// panics if s is out of range.
func (m *OMD) Policy(s int) []float64 {
	if uint(s) >= uint(m.states) {
		panic(fmt.Sprintf("learner: OMD state %d out of range [0, %d)", s, m.states))
	}
	A := m.actions
	return m.x[s*A : (s+1)*A : (s+1)*A]
}

// Observe performs one round of the update for the round played in state s
// with the learner's own action, its reward (to be maximised) and the next
// state. It returns an error, leaving the learner unchanged, if s, next or
// the action is out of range, the reward is NaN, infinite or outside
// [0, 1], or the schedule's step sizes for the round are invalid (in
// particular δ·A > 1).
// It runs in O(A log A) time without allocating.
func (m *OMD) Observe(s, action int, reward float64, next int) error {
	if err := m.check(s, action, reward, next); err != nil {
		return err
	}
	if err := m.update(&m.omdState, m.t+1, s, action, reward, next); err != nil {
		return err
	}
	m.t++
	return nil
}

// WarmStart makes policies (one distribution per state, each over the
// learner's actions) the learner's initial policies and resets it: the
// hand-over of a meta-learned initialisation (multi-agent-meta-rl §2, the
// initialisation π^{k,0} of the meta-learning protocol) to the online
// learner. Each policy is projected onto the truncated simplex Ω_δ of the
// learner's next update (ProjectTruncated, so a policy already inside is
// kept), and every state's visit count starts at OMDConfig.WarmVisits
// ([DefaultWarmVisits] by default), so that the schedule's early, large
// steps do not pull the start back toward uniform. Reset returns to the
// warm start. It returns an error, leaving the learner unchanged, if
// policies does not hold one distribution per state. The cost is
// O(S·A log A).
func (m *OMD) WarmStart(policies [][]float64) error {
	S, A := m.states, m.actions
	if len(policies) != S {
		return fmt.Errorf("%w: OMD warm start with %d policies for %d states", icrl.ErrShape, len(policies), S)
	}
	for s, p := range policies {
		if err := simplex.CheckDistribution(fmt.Sprintf("OMD warm-start policy of state %d", s), p, A); err != nil {
			return fmt.Errorf("learner: %w", err)
		}
	}
	visits := m.warm
	switch visits {
	case 0:
		visits = DefaultWarmVisits
	case -1:
		visits = 0
	}
	sz, err := m.sizes(1, visits+1)
	if err != nil {
		return err
	}
	init := make([]float64, S*A)
	for s, p := range policies {
		if err := simplex.ProjectTruncated(init[s*A:(s+1)*A], p, sz.Delta); err != nil {
			return fmt.Errorf("learner: OMD warm start, state %d: %w", s, err)
		}
	}
	m.init, m.visits = init, visits
	m.Reset()
	return nil
}

// Reset returns the learner to its initial state.
func (m *OMD) Reset() {
	A := m.actions
	for s := range m.states {
		copy(m.x[s*A:(s+1)*A], m.init[s*A:(s+1)*A])
	}
	v0 := 0.5 * m.u
	for s := range m.v {
		m.v[s] = v0
		m.n[s] = m.visits
	}
	m.t = 0
}

// Value returns the current value estimate V(s). It panics if s is out of
// range. With γ = 0 and a schedule of this package (a matrix game, by
// default) V is not updated: it never enters the update, and skipping it
// saves the value rate's cube root.
func (m *OMD) Value(s int) float64 { return m.v[s] }

// Values returns a copy of the value estimates V(s) of all states.
func (m *OMD) Values() []float64 { return append([]float64(nil), m.v...) }

// Visits returns the visit count n(s): the number of observations made in
// state s since construction or the last Reset, plus the visits a warm
// start counts ([OMD.WarmStart]). It panics if s is out of range.
func (m *OMD) Visits(s int) int { return m.n[s] }

// Gradient stores in dst the estimated gradient ĝ that the next Observe
// would use for the observation (s, action, reward, next), written as a
// descent direction so that the update is x(s) ← Π_Ω(x(s) − c·η·ĝ):
// ℓ·1{a=a_t}/(x_a+β) + εx for [LossDescent], −(r̂ − εx) for [RewardAscent]
// and r̂ − εx for [PrintedSign] (r̂ built from the role's target u). If dst is
// nil a new slice is allocated. It does not change the learner. It returns
// an error if the observation or the schedule's step sizes are invalid, and
// panics if dst has the wrong length.
func (m *OMD) Gradient(dst []float64, s, action int, reward float64, next int) ([]float64, error) {
	if dst == nil {
		dst = make([]float64, m.actions)
	}
	if len(dst) != m.actions {
		panic(fmt.Sprintf("learner: OMD gradient destination has length %d, want %d", len(dst), m.actions))
	}
	if err := m.check(s, action, reward, next); err != nil {
		return nil, err
	}
	sz, err := m.sizes(m.t+1, m.n[s]+1)
	if err != nil {
		return nil, err
	}
	if _, err := m.gradient(dst, m.Policy(s), m.v, sz, action, reward, next); err != nil {
		return nil, err
	}
	return dst, nil
}

// Distribution implements [HistoryPolicy]: history holds the player's own steps
// (s_1, a_1, r_1), …, (s_{t−1}, a_{t−1}, r_{t−1}) and state is the current
// state s_t, so the next state of each replayed step is the State of the
// step after it (state, for the last). It stores in dst (allocated if nil)
// the policy x_t(s_t) obtained by replaying the t−1 rounds from the initial
// state, which equals bit for bit the policy a fresh learner fed the same
// rounds plays in s_t. A recorded trajectory res.Row of play.SelfPlay thus
// gives the policy of round t as Distribution(dst, res.Row[:t−1],
// res.Row[t−1].State).
//
// It does not change the learner and allocates O(S·A) scratch, so
// concurrent calls of Distribution alone are safe (if the Schedule is); the
// cost is O(t·A log A + S·A). It returns an error naming the step if a step
// or the state is invalid, and panics if dst has the wrong length.
func (m *OMD) Distribution(dst []float64, history []Step, state int) ([]float64, error) {
	S, A := m.states, m.actions
	if dst == nil {
		dst = make([]float64, A)
	}
	if len(dst) != A {
		panic(fmt.Sprintf("learner: OMD distribution destination has length %d, want %d", len(dst), A))
	}
	if uint(state) >= uint(S) {
		return nil, fmt.Errorf("%w: OMD query state %d out of range [0, %d)", icrl.ErrOutOfRange, state, S)
	}
	if len(history) == 0 {
		copy(dst, m.init[state*A:(state+1)*A])
		return dst, nil
	}
	buf := make([]float64, S*A+S+A)
	st := omdState{x: buf[: S*A : S*A], v: buf[S*A : S*A+S : S*A+S], g: buf[S*A+S:], n: make([]int, S)}
	for s := range S {
		copy(st.x[s*A:(s+1)*A], m.init[s*A:(s+1)*A])
		st.v[s] = 0.5 * m.u
		st.n[s] = m.visits
	}
	for k, h := range history {
		sn := state
		if k+1 < len(history) {
			sn = history[k+1].State
		}
		if err := m.check(h.State, h.Action, h.Reward, sn); err != nil {
			return nil, fmt.Errorf("learner: OMD history step %d: %w", k, err)
		}
		if err := m.update(&st, k+1, h.State, h.Action, h.Reward, sn); err != nil {
			return nil, fmt.Errorf("learner: OMD history step %d: %w", k, err)
		}
	}
	copy(dst, st.x[state*A:(state+1)*A])
	return dst, nil
}
