package learner

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl/game"
)

// Convention selects the sign convention of the [OMD] gradient (spec
// in-context-games-omd §2.1 and resolution A1). The learner is always fed
// its own reward r ∈ [0,1] to maximise (see [Learner]).
type Convention int

const (
	// LossShift is the recommended form (the default): the learner
	// descends on its loss ℓ = 1 − r with the IX estimator and a convex
	// regulariser,
	//
	//	ĝ_a = ℓ·1{a = a_t}/(x_a + β) + ε·x_a,   x_{t+1} = Π_Ω(x_t − cη·ĝ).
	//
	// For the row player of a zero-sum game ℓ = 1 − r_t, for the column
	// player (fed 1 − r_t) ℓ = r_t: the Cai et al. loss convention, under
	// which β under-estimates the loss and so encourages exploration.
	LossShift Convention = iota

	// RewardAscent uses the paper's reward estimate for ascent:
	//
	//	r̂_a = u·1{a = a_t}/(x_a + β),   x_{t+1} = Π_Ω(x_t + cη(r̂ − ε·x)),
	//
	// where u is the learner's reward in the paper's zero-sum convention
	// (§3.1: the max player receives r_t, the min player −r_t), recovered
	// from the fed reward through the learner's [Role]: u = reward for a
	// RowPlayer and u = reward − 1 = −r_t for a ColumnPlayer (fed 1 − r_t).
	// For the column player this is exactly the LossShift update; for the
	// row player it differs from LossShift only in the IX bias. It behaves
	// almost the same as LossShift in self-play (spec T8b; measured gaps
	// 0.107, 0.071, 0.050 at T = 10³, 10⁴, 10⁵ against the spec's 0.097 and
	// 0.048). A ColumnPlayer left at the default Role ascends on its fed
	// reward 1 − r_t instead, which converges markedly worse (gap ≈ 0.23 at
	// T = 10⁵).
	RewardAscent

	// Literal is the update exactly as printed in §4.1 of the paper, the
	// gradient g = r̂ − εx used with argmin:
	//
	//	g_a = u·1{a = a_t}/(x_a + β) − ε·x_a,
	//	x_{t+1} = argmin_{x∈Ω} ⟨x, g⟩ + (1/(2cη))‖x − x_t‖²₂ = Π_Ω(x_t − cη·g),
	//
	// with u the paper's per-player reward as in RewardAscent (u = r_t for
	// a RowPlayer, u = −r_t for a ColumnPlayer, so the [Role] must be set).
	// Each player thus descends on its own reward, and the −εx term is a
	// concave anti-regulariser that pushes the policy to a vertex. It
	// diverges (spec A1, T8c): self-play on [[1,0],[0,0.5]] with exact
	// rewards ends, seed by seed, at a pure pair with gap 0.5 (x = e_1,
	// y = e_2) or 1 (x = e_2, y = e_1); the mean over five seeds is 0.90 at
	// T = 10³, 10⁴ and 10⁵ (0.92 over twenty seeds), against the spec
	// prototype's 0.69 and 0.79 (other splits of the same two outcomes),
	// far above the 0.25 of the uniform pair. It is kept only to document
	// that negative result.
	//
	// Two other readings do not reproduce T8c. If the min player also used
	// the max player's r_t (§3.2: D_y records the same r_t), both players
	// would minimise r_t and self-play would converge (mean gaps 0.43, 0.19,
	// 0.10 at T = 10³, 10⁴, 10⁵); if each player used its fed [0,1] reward
	// (a ColumnPlayer left at the default Role), the gaps would be 0.44,
	// 0.51, 0.27.
	Literal
)

// String returns the convention's name.
func (c Convention) String() string {
	switch c {
	case LossShift:
		return "LossShift"
	case RewardAscent:
		return "RewardAscent"
	case Literal:
		return "Literal"
	}
	return fmt.Sprintf("Convention(%d)", int(c))
}

// Role says which player of a zero-sum game a learner is. Only the
// [RewardAscent] and [Literal] conventions of [OMD] use it, to recover the
// reward of the paper's zero-sum convention (r_t for the max player, −r_t
// for the min player; §3.1) from the [0,1] reward the learner is fed.
type Role int

const (
	// RowPlayer is the max player, fed r_t (the default).
	RowPlayer Role = iota
	// ColumnPlayer is the min player, fed 1 − r_t.
	ColumnPlayer
)

// String returns the role's name.
func (r Role) String() string {
	switch r {
	case RowPlayer:
		return "RowPlayer"
	case ColumnPlayer:
		return "ColumnPlayer"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// OMDConfig configures [NewOMD]. Only Actions is required; every other zero
// value selects the documented default.
type OMDConfig struct {
	// Actions is the number of actions A ≥ 1.
	Actions int
	// Horizon is the number of rounds T the learner expects to play, or 0
	// if unknown. The schedule receives it; [PaperSchedule] needs it
	// positive. The learner may keep playing past it.
	Horizon int
	// Schedule gives η_t, β_t, ε_t and δ_{t+1}; nil means [CaiSchedule].
	Schedule Schedule
	// Convention selects the gradient's sign convention; the zero value is
	// [LossShift].
	Convention Convention
	// Role is the learner's player role, used only by [RewardAscent] and
	// [Literal]; the zero value is [RowPlayer]. Set ColumnPlayer for the
	// column player of [SelfPlay] under those conventions.
	Role Role
	// ProxFactor is the factor c of the update x_{t+1} = Π(x_t − c·η·ĝ)
	// (spec resolution A2). 0 means ½, the literal prox (1/η)‖x − x_t‖²₂
	// of §4.1 and Lemma A.1; 1 is the (1/2η)‖x − x_t‖²₂ prox of the proof
	// of Lemma B.2. It must be positive and finite.
	ProxFactor float64
	// Init is the initial policy x_1; nil means uniform. It must be a
	// probability vector of length Actions inside the truncated simplex
	// Ω_δ of the first update (δ = Schedule.At(1, Horizon, Actions).Delta),
	// and is copied.
	Init []float64
}

// OMD is online mirror descent with the squared-Euclidean regulariser on the
// truncated simplex and bandit feedback, the algorithm Alg_OMD of
// in-context-games-omd §4.1:
//
//	x_{t+1} = argmin_{x∈Ω_{t+1}} ⟨x, ĝ_t⟩ + (1/(2cη_t))‖x − x_t‖²₂ = Π_{Ω_{t+1}}(x_t − c·η_t·ĝ_t),
//
// with the importance-weighted implicit-exploration gradient
// ĝ_{t,a} = ℓ_t·1{a = a_t}/(x_{t,a} + β_t) + ε_t·x_{t,a} and the truncated
// simplex Ω_{t+1} = {x ∈ Δ(A) : x_a ≥ δ_{t+1}} (spec §2.1). OMD with the
// squared-Euclidean mirror map is projected online gradient descent (spec
// resolution A17); the name follows the paper.
//
// The spec's resolutions are the defaults: one maximising convention with
// per-player losses ℓ = 1 − r ([LossShift]; A1), the paper's [RewardAscent]
// and [Literal] forms as options; a squared prox with factor c ∈ {½, 1}
// (A2); a working schedule ([CaiSchedule]) by default and the paper's
// non-learning [PaperSchedule] as an option (A3); the truncation level as a
// schedule output δ_{t+1} (A4); one IX parameter β from the schedule (A5).
// [OMD.Policy] is x_t, the policy played at the next round; after T rounds
// it is x_{T+1}, whereas the theorems' last iterate x_T is the policy played
// at round T (A18; [SelfPlay] reports x_T).
//
// The update depends only on the learner's own actions and rewards
// (uncoupled), so OMD is also a [Policy]: [OMD.Distribution] replays a
// history and returns exactly (bit for bit) the policy the online learner
// holds after observing it.
//
// Each Observe costs O(A log A) time (a sort in the projection) and does not
// allocate. An OMD is not safe for concurrent use.
type OMD struct {
	actions, horizon int
	sched            Schedule
	conv             Convention
	role             Role
	c                float64
	init             []float64

	t    int       // observations so far
	x    []float64 // x_{t+1}, the current policy
	next []float64 // projection target, swapped with x
	v    []float64 // gradient and pre-projection point
}

// NewOMD returns an OMD learner at x_1 = cfg.Init. It returns an error that
// names the bad value if Actions < 1, Horizon < 0, the Schedule is
// [PaperSchedule] and Horizon is not positive, the step sizes of round 1 are
// invalid (non-finite, negative, or δ·A > 1), Convention or Role is unknown,
// ProxFactor is negative or not finite, or Init is not a distribution inside
// Ω_δ of round 1.
func NewOMD(cfg OMDConfig) (*OMD, error) {
	sched := cfg.Schedule
	if sched == nil {
		sched = CaiSchedule{}
	}
	_, paper := sched.(PaperSchedule)
	if _, p := sched.(*PaperSchedule); p {
		paper = true
	}
	c, err := checkOMDConfig("OMD", cfg.Actions, cfg.Horizon, paper, "PaperSchedule", cfg.Convention, cfg.Role, cfg.ProxFactor)
	if err != nil {
		return nil, err
	}
	o := &OMD{
		actions: cfg.Actions,
		horizon: cfg.Horizon,
		sched:   sched,
		conv:    cfg.Convention,
		role:    cfg.Role,
		c:       c,
		init:    make([]float64, cfg.Actions),
		x:       make([]float64, cfg.Actions),
		next:    make([]float64, cfg.Actions),
		v:       make([]float64, cfg.Actions),
	}
	s, err := o.sizes(1)
	if err != nil {
		return nil, err
	}
	if cfg.Init == nil {
		for i := range o.init {
			o.init[i] = 1 / float64(cfg.Actions)
		}
	} else {
		if err := game.CheckDistribution("OMD initial policy Init", cfg.Init, cfg.Actions); err != nil {
			return nil, fmt.Errorf("learner: %w", err)
		}
		for i, p := range cfg.Init {
			if p < s.Delta-1e-12 {
				return nil, fmt.Errorf("learner: OMD initial policy Init[%d] = %v is below the truncation level δ = %v of round 1: not in Ω_δ", i, p, s.Delta)
			}
		}
		copy(o.init, cfg.Init)
	}
	copy(o.x, o.init)
	return o, nil
}

// sizes returns the validated step sizes of round t.
func (o *OMD) sizes(t int) (StepSizes, error) {
	s := o.sched.At(t, o.horizon, o.actions)
	bad := func(name string, v float64) error {
		return fmt.Errorf("learner: OMD schedule gives %s = %v at round %d (horizon %d, %d actions): must be finite and non-negative", name, v, t, o.horizon, o.actions)
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
	}
	if da := s.Delta * float64(o.actions); da > 1+1e-12 {
		return s, fmt.Errorf("learner: OMD schedule gives δ = %v at round %d with %d actions: δ·A = %v > 1, the truncated simplex is empty", s.Delta, t, o.actions, da)
	}
	return s, nil
}

// gradient stores in g the descent direction ĝ of round t at x for the
// observation (action, reward): the update is Π(x − c·η·ĝ).
func (o *OMD) gradient(g, x []float64, s StepSizes, action int, reward float64) error {
	den := x[action] + s.Beta
	if !(den > 0) {
		return fmt.Errorf("learner: OMD importance weight x[%d] + β = %v + %v is not positive", action, x[action], s.Beta)
	}
	var k, w float64 // ĝ = k·x + w/(x_a+β)·e_a
	switch o.conv {
	case LossShift:
		k, w = s.Epsilon, 1-reward
	case RewardAscent, Literal:
		u := reward // the paper's reward: r_t (row) or −r_t (column)
		if o.role == ColumnPlayer {
			u = reward - 1
		}
		if o.conv == RewardAscent {
			k, w = s.Epsilon, -u
		} else {
			k, w = -s.Epsilon, u
		}
	}
	for i, xi := range x {
		g[i] = k * xi
	}
	g[action] += w / den
	return nil
}

// step computes in dst the update of round t from x after (action,
// reward), using v as scratch. dst, x and v must be distinct.
func (o *OMD) step(dst, x, v []float64, t, action int, reward float64) error {
	if err := checkFeedback(action, o.actions, reward); err != nil {
		return err
	}
	s, err := o.sizes(t)
	if err != nil {
		return err
	}
	if err := o.gradient(v, x, s, action, reward); err != nil {
		return err
	}
	ce := o.c * s.Eta
	for i, xi := range x {
		v[i] = xi - ce*v[i]
	}
	if err := game.ProjectTruncated(dst, v, s.Delta); err != nil {
		return fmt.Errorf("learner: OMD round %d: %w", t, err)
	}
	return nil
}

// Policy returns the current policy x_{t+1} after t = Round() observations
// (x_1 = Init before any). The slice belongs to the learner and is valid
// until the next call to Observe or Reset.
func (o *OMD) Policy() []float64 { return o.x }

// Observe performs the OMD update of round t = Round()+1 with the learner's
// own action and reward (in [0,1], to be maximised). It returns an error,
// leaving the learner unchanged, if the action is out of range, the reward is
// NaN or infinite, or the schedule's step sizes for the round are invalid
// (in particular δ·A > 1). It runs in O(A log A) time without allocating.
func (o *OMD) Observe(action int, reward float64) error {
	if err := o.step(o.next, o.x, o.v, o.t+1, action, reward); err != nil {
		return err
	}
	o.x, o.next = o.next, o.x
	o.t++
	return nil
}

// Reset returns the learner to its initial policy and round 0.
func (o *OMD) Reset() {
	copy(o.x, o.init)
	o.t = 0
}

// Round returns the number of observations since construction or the last
// Reset.
func (o *OMD) Round() int { return o.t }

// Actions returns the number of actions A.
func (o *OMD) Actions() int { return o.actions }

// Gradient stores in dst the estimated gradient ĝ_t that the next Observe
// would use for the observation (action, reward), written as a descent
// direction so that the update is x_{t+1} = Π_Ω(x_t − c·η_t·ĝ_t):
// ℓ·1{a=a_t}/(x_a+β) + εx for [LossShift], −(r̂ − εx) for [RewardAscent]
// and r̂ − εx for [Literal] (r̂ built from the role's reward u). If dst is nil a new
// slice is allocated. It does not change the learner. It returns an error if
// the observation or the schedule's step sizes are invalid, and panics if
// dst has the wrong length.
func (o *OMD) Gradient(dst []float64, action int, reward float64) ([]float64, error) {
	if dst == nil {
		dst = make([]float64, o.actions)
	}
	if len(dst) != o.actions {
		panic(fmt.Sprintf("learner: OMD gradient destination has length %d, want %d", len(dst), o.actions))
	}
	if err := checkFeedback(action, o.actions, reward); err != nil {
		return nil, err
	}
	s, err := o.sizes(o.t + 1)
	if err != nil {
		return nil, err
	}
	if err := o.gradient(dst, o.x, s, action, reward); err != nil {
		return nil, err
	}
	return dst, nil
}

// Distribution implements [Policy]: it stores in dst (allocated if nil) the
// policy Alg_OMD(·|D_{t−1}) = x_t obtained by replaying the history's
// (Action, Reward) steps from the initial policy, which equals bit for bit
// the Policy of a fresh learner fed the same observations (spec T4). The
// State of each step is ignored. It does not change the learner and
// allocates O(A) scratch, so concurrent calls of Distribution alone are
// safe (if the Schedule is); the cost is O(t·A log A) for a history of
// length t. It returns an error naming the step if a step is invalid, and panics if
// dst has the wrong length.
func (o *OMD) Distribution(dst []float64, history []Step) ([]float64, error) {
	n := o.actions
	if dst == nil {
		dst = make([]float64, n)
	}
	if len(dst) != n {
		panic(fmt.Sprintf("learner: OMD distribution destination has length %d, want %d", len(dst), n))
	}
	buf := make([]float64, 3*n)
	x, next, v := buf[:n:n], buf[n:2*n:2*n], buf[2*n:]
	copy(x, o.init)
	for k, st := range history {
		if err := o.step(next, x, v, k+1, st.Action, st.Reward); err != nil {
			return nil, fmt.Errorf("learner: OMD history step %d: %w", k, err)
		}
		x, next = next, x
	}
	copy(dst, x)
	return dst, nil
}

// checkOMDConfig validates the fields that OMD and MarkovOMD share and
// returns the prox factor with its default (½) applied. name is the
// learner's name in errors; paper reports whether the schedule is the
// paper's, which needs a positive horizon, and paperName names it.
func checkOMDConfig(name string, actions, horizon int, paper bool, paperName string, conv Convention, role Role, prox float64) (float64, error) {
	if actions < 1 {
		return 0, fmt.Errorf("learner: %s needs at least one action, got Actions = %d", name, actions)
	}
	if horizon < 0 {
		return 0, fmt.Errorf("learner: %s horizon must be non-negative, got Horizon = %d", name, horizon)
	}
	if paper && horizon <= 0 {
		return 0, fmt.Errorf("learner: %s with %s needs a positive Horizon T (η = T^{-5/3}), got Horizon = %d", name, paperName, horizon)
	}
	switch conv {
	case LossShift, RewardAscent, Literal:
	default:
		return 0, fmt.Errorf("learner: %s has unknown Convention %v", name, conv)
	}
	switch role {
	case RowPlayer, ColumnPlayer:
	default:
		return 0, fmt.Errorf("learner: %s has unknown Role %v", name, role)
	}
	c := prox
	if c == 0 {
		c = 0.5
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return 0, fmt.Errorf("learner: %s ProxFactor = %v must be positive and finite", name, prox)
	}
	return c, nil
}
