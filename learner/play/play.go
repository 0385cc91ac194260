package play

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/markov"
)

// MaxPlayers is the most players [Run] accepts.
const MaxPlayers = 1 << 10

// Config configures [Run]. The zero value is not usable: Rounds must be
// positive.
type Config struct {
	// Rounds is the number of rounds T.
	Rounds int
	// Feedback is Bandit (default) or FullInformation. FullInformation
	// needs a one-state game that is a markov.GeneralSumModel and learners
	// that implement FullInformationLearner: player i is fed the expected
	// reward of each of its actions against the other players' current
	// mixed strategies.
	Feedback Feedback
	// Checkpoints lists rounds t in [1, Rounds] at which to measure, in
	// increasing order. Round Rounds is always measured and need not be
	// listed.
	Checkpoints []int
	// Observation is what the learners observe of each round:
	// Decentralized (the default: own action and reward) or JointActions
	// (a ProfileLearner sees every player's action; in a two-player game a
	// JointLearner sees the opponent's). JointActions needs Bandit
	// feedback.
	Observation learner.Observation
	// Recorder, if not nil, is shown every round.
	Recorder RoundRecorder
	// Record keeps every player's history in the result.
	Record bool
}

// A Round is one round of an N-player game as the rollout engine sees it:
// the state, every player's action and reward, and the next state.
type Round struct {
	// State is the state s_t the round was played in.
	State int
	// Actions holds the players' actions, player 0 first.
	Actions []int
	// Rewards holds the players' rewards, player 0 first.
	Rewards []float64
	// Next is the state s_{t+1}.
	Next int
}

// Step returns the round as player p sees it under bandit feedback: the
// state, its own action and its own reward. It panics if p is not a
// player of the round.
func (r Round) Step(p game.Player) learner.Step {
	return learner.Step{State: r.State, Action: r.Actions[p], Reward: r.Rewards[p]}
}

// A RoundRecorder watches the rounds of [Run]; a caller's logging or
// statistics ride along this way.
type RoundRecorder interface {
	// RecordRound is called once per round t = 1, …, T, after the game's
	// draw and before the learners observe the round, so the learners'
	// Policy(r.State) still gives the policies the round was played
	// with. r's slices belong to the engine and are valid only during the
	// call. An error stops the rollout and is returned.
	RecordRound(t int, r Round) error
}

// Checkpoint holds what [Run] measured at one round.
type Checkpoint struct {
	// Round is the round t.
	Round int
	// Rewards are the players' mean rewards over rounds 1..t.
	Rewards []float64
	// NEGap is the NE-gap of the product of the learners' stationary
	// policies at round t (the last iterate; markov's
	// DiscountedGeneralSum.NEGap); NaN if the game is not a
	// markov.GeneralSumModel.
	NEGap float64
	// CCEGap is the CCE-gap of the empirical joint play of rounds 1..t:
	// in each state, the frequencies of the joint actions played there
	// (uniform in a state not yet visited), as a correlated stationary
	// policy (markov's DiscountedGeneralSum.CCEGap); NaN if the game is
	// not a markov.GeneralSumModel.
	CCEGap float64
}

// Result is the outcome of [Run].
type Result struct {
	// Rewards are the players' mean rewards over the rounds played.
	Rewards []float64
	// Checkpoints holds the measurements at the configured rounds, in
	// order, ending with round T.
	Checkpoints []Checkpoint
	// NEGap and CCEGap are the final checkpoint's.
	NEGap, CCEGap float64
	// Last holds the players' stationary policies at the final round
	// (player, state, action), one distribution per state; nil for a game
	// with states and without a model.
	Last []markov.Stationary
	// Average holds the players' average policies over the rounds of a
	// one-state game (player, action); nil for a game with states.
	Average [][]float64
	// Empirical is the empirical joint play at the final checkpoint, one
	// distribution over the flat joint actions (player 0 most
	// significant) per state; nil without a model.
	Empirical markov.Stationary
	// Visits counts the rounds played in each state.
	Visits []int
	// Histories holds each player's history (state, own action, own
	// reward), if Record was set.
	Histories [][]learner.Step
	// Final is the state after the last round.
	Final int
}

// Play plays the N learners players (player i is players[i]) against each
// other in the game g for cfg.Rounds rounds: the module's one rollout
// engine, for any number of players and any rewards (zero-sum, team or
// general-sum). At round t, in state s_t (s_1 = g.Start(rng)), each player
// samples an action from its policy in s_t, g.Play draws every player's
// reward and the next state, a [RoundRecorder] sees the [Round], and each
// learner observes its own action and reward (bandit feedback; under
// [learner.JointActions] a [learner.ProfileLearner] sees every action, and in a two-player
// game a [learner.JointLearner] the opponent's). A two-player zero-sum [game.Game]
// plays through [game.AsMultiplayer]; [SelfPlay] is this engine with the
// two-player measurements.
//
// What is measured depends on what the game offers. Every game gives the
// players' mean rewards and the visits. A game that is also a
// markov.GeneralSumModel (one struct with both sets of methods; markov's
// DiscountedGeneralSum is one) is tabulated once (markov.Tabulate) and
// gives, at every checkpoint, the NE-gap of the last iterate and the
// CCE-gap of the empirical joint play; without a model the gaps are NaN. A
// repeated normal-form game is the one-state model with discount 0, whose
// gaps are in units of one round's reward.
//
// The run is deterministic given rng: the sampling order is the start
// state, then per round the players' actions in order and g.Play. It
// returns an error if ctx, g, a learner or rng is nil, len(players) is not
// g.Players(), the game has no state or action, a model's rewards leave
// [0, 1] or its tables are invalid, Rounds ≤ 0, a checkpoint is out of
// order or range, the feedback or observation setting is unknown or
// unsupported, a learner's states, discount (game.Discounter) or actions
// disagree with the game's, a learner returns an invalid policy or rejects
// an observation, the game returns a state out of range, or the recorder
// fails. ctx is checked every 64 rounds: once it is done Play stops and
// returns the result of the rounds played so far (its checkpoints so far,
// its final fields those of the last checkpoint, if any) with ctx's error.
//
// Each round costs N samples, one g.Play and N observations; a
// checkpoint with a model costs S·N Policy calls, one policy evaluation and
// 2N best responses (O(N·S²·J) set-up). Play keeps O(S·J) counts of the
// joint play when the game has a model.
func Run(ctx context.Context, g game.Multiplayer, players []learner.Learner, cfg Config, rng *rand.Rand) (*Result, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: play needs a context", icrl.ErrNil)
	}
	e, err := newEngine(g, players, cfg, rng)
	if err != nil {
		return nil, err
	}
	if err := e.useModel(); err != nil {
		return nil, err
	}
	if err := e.useFeedback(); err != nil {
		return nil, err
	}
	e.measure = e.measureModel
	return e.run(ctx, rng)
}

// engine is the state of one rollout of [Run] (and of [SelfPlay], which
// sets its own measurement and, under full information, its own feedback).
type engine struct {
	g           game.Multiplayer
	players     []learner.Learner
	n, S        int
	actions     []int // actions per player
	cfg         Config
	checkpoints []int
	next        int // index of the next checkpoint
	played      int // rounds played

	pol     [][]float64 // the policies of the current round
	joint   []int       // the joint action of the current round
	cur     Round       // the current round
	rewards []float64   // the rewards of the current round
	totals  []float64   // sums of the players' rewards
	sums    [][]float64 // policy sums of a one-state game
	res     *Result

	model  *markov.DiscountedGeneralSum // nil without a model
	counts []float64                    // joint-play counts, S·J, with a model

	// measure records checkpoint k of round t (final: t = Rounds) in
	// res.Checkpoints[k], whose Round is set; the Rewards are filled in
	// after the round.
	measure func(t int, final bool) error
	// feed plays the joint action of round t in r (filling its rewards
	// and next state), shows it to the recorder and gives it to the
	// learners (bandit feedback by default).
	feed  func(t int, r *Round, rng *rand.Rand) error
	full  [][]float64 // reward vectors under full information
	split []int       // a joint action split into the players' actions
}

// newEngine validates the arguments of a rollout and sets up its state.
func newEngine(g game.Multiplayer, players []learner.Learner, cfg Config, rng *rand.Rand) (*engine, error) {
	if nilness.Is(g) {
		return nil, fmt.Errorf("%w: play needs a game, got a nil game", icrl.ErrNil)
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: play needs a random source", icrl.ErrNil)
	}
	n, S := g.Players(), g.States()
	if n < 1 || n > MaxPlayers {
		return nil, fmt.Errorf("%w: play needs 1 to %d players, the game has %d", icrl.ErrInvalid, MaxPlayers, n)
	}
	if len(players) != n {
		return nil, fmt.Errorf("%w: %d learners for a game of %d players", icrl.ErrShape, len(players), n)
	}
	for i, l := range players {
		if nilness.Is(l) {
			return nil, fmt.Errorf("%w: the learner of player %d is nil (%T)", icrl.ErrNil, i, l)
		}
	}
	if S < 1 {
		return nil, fmt.Errorf("%w: play needs at least one state, the game has %d", icrl.ErrInvalid, S)
	}
	actions := make([]int, n)
	for i := range n {
		if actions[i] = g.Actions(game.Player(i)); actions[i] < 1 {
			return nil, fmt.Errorf("%w: player %d of the game has %d actions", icrl.ErrInvalid, i, actions[i])
		}
	}
	if err := checkPlayConfig(cfg); err != nil {
		return nil, err
	}
	if v, ok := g.(game.ZeroSumView); ok {
		if err := checkUnitGame(v.ZeroSum()); err != nil {
			return nil, err
		}
	}
	gamma, hasGamma := discountOf(g)
	for i, l := range players {
		if err := checkPlayer(l, i, S, actions[i], gamma, hasGamma); err != nil {
			return nil, err
		}
	}
	if err := checkOpponents(players, actions, cfg.Observation); err != nil {
		return nil, err
	}
	return buildEngine(g, players, cfg), nil
}

// buildEngine sets up the state of a rollout whose arguments are valid.
func buildEngine(g game.Multiplayer, players []learner.Learner, cfg Config) *engine {
	n, S := g.Players(), g.States()
	actions := make([]int, n)
	for i := range n {
		actions[i] = g.Actions(game.Player(i))
	}
	e := &engine{g: g, players: players, n: n, S: S, actions: actions, cfg: cfg,
		pol: make([][]float64, n), joint: make([]int, n), rewards: make([]float64, n), totals: make([]float64, n)}
	e.checkpoints = cfg.Checkpoints
	if len(e.checkpoints) == 0 || e.checkpoints[len(e.checkpoints)-1] != cfg.Rounds {
		e.checkpoints = append(slices.Clone(e.checkpoints), cfg.Rounds)
	}
	e.res = &Result{Checkpoints: make([]Checkpoint, 0, len(e.checkpoints)), Visits: make([]int, S)}
	if cfg.Record {
		e.res.Histories = make([][]learner.Step, n)
		for i := range e.res.Histories {
			e.res.Histories[i] = make([]learner.Step, 0, min(cfg.Rounds, recordPrealloc))
		}
	}
	if S == 1 {
		e.sums = make([][]float64, n)
		e.res.Average = make([][]float64, n)
		for i := range n {
			e.sums[i] = make([]float64, actions[i])
			e.res.Average[i] = make([]float64, actions[i])
		}
	}
	e.feed = e.feedBandit
	e.measure = func(int, bool) error { return nil }
	return e
}

// recordPrealloc caps the rounds of history preallocated per player, so
// that a huge Rounds fails by running out of time, not by allocating.
const recordPrealloc = 1 << 16

// checkPlayConfig validates the settings shared by [Run] and [SelfPlay].
func checkPlayConfig(cfg Config) error {
	if cfg.Rounds <= 0 {
		return fmt.Errorf("%w: play needs a positive number of rounds, got %d", icrl.ErrInvalid, cfg.Rounds)
	}
	if !cfg.Observation.Valid() {
		return fmt.Errorf("%w: play: unknown observation setting %v", icrl.ErrInvalid, cfg.Observation)
	}
	if cfg.Feedback != Bandit && cfg.Feedback != FullInformation {
		return fmt.Errorf("%w: unknown feedback %v", icrl.ErrInvalid, cfg.Feedback)
	}
	if cfg.Observation == learner.JointActions && cfg.Feedback != Bandit {
		return fmt.Errorf("%w: play: %v observation needs bandit feedback, got %v", icrl.ErrInvalid, cfg.Observation, cfg.Feedback)
	}
	for k, c := range cfg.Checkpoints {
		if c < 1 || c > cfg.Rounds || (k > 0 && c <= cfg.Checkpoints[k-1]) {
			return fmt.Errorf("%w: play checkpoint %d at round %d is not increasing within [1, %d]", icrl.ErrInvalid, k, c, cfg.Rounds)
		}
	}
	return nil
}

// checkUnitGame rejects a two-player game whose payoffs (game.Bounded)
// leave [0, 1].
func checkUnitGame(g game.Game) error {
	if b, ok := g.(game.Bounded); ok {
		if lo, hi := b.Bounds(); !(lo >= 0 && hi <= 1) {
			return fmt.Errorf("%w: self-play needs payoffs in [0,1], the game spans [%v, %v], outside [0, 1] (game.Rescale maps a *game.ZeroSum into it; rescale other rewards by an affine map)", icrl.ErrOutOfRange, lo, hi)
		}
	}
	return nil
}

// discountOf returns the discount of g (or of the two-player game behind
// its zero-sum view) if it is a game.Discounter.
func discountOf(g game.Multiplayer) (float64, bool) {
	var x any = g
	if v, ok := g.(game.ZeroSumView); ok {
		x = v.ZeroSum()
	}
	if d, ok := x.(game.Discounter); ok {
		return d.Discount(), true
	}
	return 0, false
}

// checkPlayer checks learner l of player i against the game: its number of
// states (StateCounter), its discount (a game.Discounter learner, if the
// game has one)
// and its initial policy in every state.
func checkPlayer(l learner.Learner, i, S, actions int, gamma float64, hasGamma bool) error {
	name := playerName(i)
	if c, ok := l.(learner.StateCounter); ok && c.States() != S {
		return fmt.Errorf("%w: play: the %s's learner %T has %d states, the game %d", icrl.ErrShape, name, l, c.States(), S)
	}
	if d, ok := l.(game.Discounter); ok && hasGamma && d.Discount() != gamma {
		return fmt.Errorf("%w: play: the %s's learner %T has discount %v, the game %v", icrl.ErrInvalid, name, l, d.Discount(), gamma)
	}
	for s := range S {
		p := l.Policy(s)
		if len(p) != actions {
			return fmt.Errorf("%w: play: the %s's learner %T has %d actions in state %d, the game %d", icrl.ErrShape, name, l, len(p), s, actions)
		}
		if err := simplex.CheckDistribution(fmt.Sprintf("%s's initial policy in state %d", name, s), p, actions); err != nil {
			return fmt.Errorf("learner: play: %w", err)
		}
	}
	return nil
}

// checkOpponents checks, under JointActions observation of a two-player
// game, every JointLearner's number of opponent actions against the
// other player's actions in the game.
func checkOpponents(players []learner.Learner, actions []int, obs learner.Observation) error {
	if obs != learner.JointActions || len(players) != 2 {
		return nil
	}
	for i, l := range players {
		if c, ok := l.(learner.JointLearner); ok && c.Opponents() > 0 && c.Opponents() != actions[1-i] {
			return fmt.Errorf("%w: play: the %s's learner %T is built for %d opponent actions, the %s has %d in the game", icrl.ErrShape, playerName(i), l, c.Opponents(), playerName(1-i), actions[1-i])
		}
	}
	return nil
}

// playerName names player i in messages: the row and column player of a
// two-player game keep their names.
func playerName(i int) string {
	switch i {
	case 0:
		return "row player"
	case 1:
		return "column player"
	}
	return fmt.Sprintf("player %d", i)
}

// useModel tabulates the game if it is a markov.GeneralSumModel, checks
// that its rewards lie in [0, 1], and sets up the joint-play counts.
func (e *engine) useModel() error {
	m, ok := e.g.(markov.GeneralSumModel)
	if !ok {
		return nil
	}
	t, err := markov.Tabulate(m)
	if err != nil {
		return fmt.Errorf("learner: play: the game's model: %w", err)
	}
	J := t.NumJoint()
	for s := range e.S {
		for j := range J {
			for i := range e.n {
				if r := t.Reward(s, j, game.Player(i)); !(r >= 0 && r <= 1) {
					return fmt.Errorf("%w: play needs rewards in [0, 1], the game's r_%d(s=%d, joint=%d) = %v (rescale its rewards by an affine map)", icrl.ErrOutOfRange, i, s, j, r)
				}
			}
		}
	}
	e.model = t
	e.counts = make([]float64, e.S*J)
	return nil
}

// useFeedback sets up full-information feedback, which needs a one-state
// model and full-information learners.
func (e *engine) useFeedback() error {
	if e.cfg.Feedback != FullInformation {
		return nil
	}
	if e.model == nil || e.S != 1 {
		return fmt.Errorf("%w: full-information play needs a one-state game that is a markov.GeneralSumModel, got %T with %d states", icrl.ErrInvalid, e.g, e.S)
	}
	e.full = make([][]float64, e.n)
	for i, l := range e.players {
		if _, ok := l.(learner.FullInformationLearner); !ok {
			return fmt.Errorf("%w: the %s's learner %T does not accept full-information feedback", icrl.ErrInvalid, playerName(i), l)
		}
		e.full[i] = make([]float64, e.actions[i])
	}
	e.split = make([]int, e.n)
	e.feed = e.feedFull
	return nil
}

// run plays the rounds.
func (e *engine) run(ctx context.Context, rng *rand.Rand) (*Result, error) {
	s := e.g.Start(rng)
	if s < 0 || s >= e.S {
		return nil, fmt.Errorf("%w: play: the game's start state %d is out of range [0, %d)", icrl.ErrOutOfRange, s, e.S)
	}
	var err error
	for t := 1; t <= e.cfg.Rounds; t++ {
		if t&63 == 0 {
			if err := ctx.Err(); err != nil {
				return e.finish(s), err
			}
		}
		if s, err = e.round(t, s, rng); err != nil {
			return nil, err
		}
		e.played = t
	}
	return e.finish(s), nil
}

// round plays round t from state s and returns the next state: it checks
// the policies, measures a checkpoint when due, samples the actions, plays
// the game and feeds the round to the recorder and the learners.
func (e *engine) round(t, s int, rng *rand.Rand) (int, error) {
	res := e.res
	for i, l := range e.players {
		e.pol[i] = l.Policy(s)
	}
	if !e.valid() {
		for i, p := range e.pol {
			if err := simplex.CheckDistribution(fmt.Sprintf("%s's policy in state %d", playerName(i), s), p, e.actions[i]); err != nil {
				return 0, fmt.Errorf("learner: play round %d: %w", t, err)
			}
		}
	}
	due := t == e.checkpoints[e.next]
	if due {
		res.Checkpoints = append(res.Checkpoints, Checkpoint{Round: t, NEGap: math.NaN(), CCEGap: math.NaN()})
		if err := e.measure(t, t == e.cfg.Rounds); err != nil {
			return 0, fmt.Errorf("learner: play round %d: %w", t, err)
		}
		e.next++
	}
	for i, p := range e.pol {
		e.joint[i] = simplex.SampleCategorical(p, rng)
	}
	r := &e.cur
	*r = Round{State: s, Actions: e.joint, Rewards: e.rewards}
	if err := e.feed(t, r, rng); err != nil {
		return 0, err
	}
	if e.cfg.Record {
		for i := range e.n {
			res.Histories[i] = append(res.Histories[i], r.Step(game.Player(i)))
		}
	}
	for i, v := range e.rewards {
		e.totals[i] += v
	}
	res.Visits[s]++
	if e.model != nil {
		e.counts[s*e.model.NumJoint()+e.model.Joint(e.joint)]++
	}
	if due {
		// The checkpoint of round t reports the mean rewards and the
		// empirical joint play of rounds 1..t.
		cp := &res.Checkpoints[len(res.Checkpoints)-1]
		cp.Rewards = make([]float64, e.n)
		for i, v := range e.totals {
			cp.Rewards[i] = v / float64(t)
		}
		if e.model != nil {
			var err error
			if cp.CCEGap, err = e.cceGap(t == e.cfg.Rounds); err != nil {
				return 0, fmt.Errorf("learner: play round %d: %w", t, err)
			}
		}
	}
	return r.Next, nil
}

// valid reports whether the policies of the round look like distributions
// over the players' actions (entries in [0,1] with a positive sum), adding
// them to the sums of a one-state game. A false answer is followed by the
// exact check.
func (e *engine) valid() bool {
	ok := true
	for i, p := range e.pol {
		if e.sums == nil {
			ok = ok && inUnit(p, e.actions[i])
		} else if !accumulate(e.sums[i], p) {
			ok = false
		}
	}
	return ok
}

// feedBandit plays the joint action of round t, checks the next state,
// shows the round to the recorder and feeds each learner its bandit
// observation.
func (e *engine) feedBandit(t int, r *Round, rng *rand.Rand) error {
	r.Next = e.g.Play(r.State, r.Actions, r.Rewards, rng)
	if r.Next < 0 || r.Next >= e.S {
		return fmt.Errorf("%w: play round %d: the game's next state %d is out of range [0, %d)", icrl.ErrOutOfRange, t, r.Next, e.S)
	}
	if err := e.record(t, *r); err != nil {
		return err
	}
	for i, l := range e.players {
		if err := e.observe(l, i, *r); err != nil {
			return fmt.Errorf("learner: play round %d, %s: %w", t, playerName(i), err)
		}
	}
	return nil
}

// observe feeds player i's learner l its observation of the round r: every
// action through ObserveProfile under JointActions if l is a
// ProfileLearner, the opponent's action through ObserveJoint if l is a
// JointLearner in a two-player game, its own action and reward through
// Observe otherwise.
func (e *engine) observe(l learner.Learner, i int, r Round) error {
	if e.cfg.Observation == learner.JointActions {
		if pl, ok := l.(learner.ProfileLearner); ok {
			return pl.ObserveProfile(r.State, game.Player(i), r.Actions, r.Rewards[i], r.Next)
		}
		if jl, ok := l.(learner.JointLearner); ok && e.n == 2 {
			return jl.ObserveJoint(r.State, r.Actions[i], r.Actions[1-i], r.Rewards[i], r.Next)
		}
	}
	return l.Observe(r.State, r.Actions[i], r.Rewards[i], r.Next)
}

// feedFull plays the joint action of round t of a one-state model (its
// rewards are the model's, the next state 0), shows it to the recorder and
// feeds each learner the expected reward of each of its actions against
// the others' policies of the round.
func (e *engine) feedFull(t int, r *Round, rng *rand.Rand) error {
	r.Next = e.g.Play(r.State, r.Actions, r.Rewards, rng)
	if r.Next != 0 {
		return fmt.Errorf("%w: play round %d: a one-state game moved to state %d", icrl.ErrOutOfRange, t, r.Next)
	}
	if err := e.record(t, *r); err != nil {
		return err
	}
	m := e.model
	J := m.NumJoint()
	for i := range e.n {
		clear(e.full[i])
	}
	for j := range J {
		m.Split(j, e.split)
		for i := range e.n {
			w := 1.0
			for k := range e.n {
				if k != i {
					w *= e.pol[k][e.split[k]]
				}
			}
			e.full[i][e.split[i]] += w * m.Reward(0, j, game.Player(i))
		}
	}
	for i, l := range e.players {
		if err := l.(learner.FullInformationLearner).ObserveRewards(e.full[i]); err != nil {
			return fmt.Errorf("learner: play round %d, %s: %w", t, playerName(i), err)
		}
	}
	return nil
}

// record shows round t to the recorder, if any.
func (e *engine) record(t int, r Round) error {
	if e.cfg.Recorder == nil {
		return nil
	}
	if err := e.cfg.Recorder.RecordRound(t, r); err != nil {
		return fmt.Errorf("learner: play round %d, recorder: %w", t, err)
	}
	return nil
}

// measureModel records the last iterate at round t and, with a model, its
// NE-gap.
func (e *engine) measureModel(t int, final bool) error {
	if e.model == nil && e.S > 1 {
		return nil
	}
	last := make([]markov.Stationary, e.n)
	for i, l := range e.players {
		last[i] = Stationary(l, e.S)
	}
	if final {
		e.res.Last = last
	}
	if e.model == nil {
		return nil
	}
	gap, _, err := e.model.NEGap(last)
	if err != nil {
		return err
	}
	e.res.Checkpoints[len(e.res.Checkpoints)-1].NEGap = gap
	return nil
}

// cceGap returns the CCE-gap of the empirical joint play so far (uniform
// in the states not yet visited); final keeps the distribution in the
// result.
func (e *engine) cceGap(final bool) (float64, error) {
	J := e.model.NumJoint()
	sigma := make(markov.Stationary, e.S)
	buf := make([]float64, e.S*J)
	for s := range e.S {
		row := buf[s*J : (s+1)*J : (s+1)*J]
		c := e.counts[s*J : (s+1)*J]
		var total float64
		for _, v := range c {
			total += v
		}
		for j := range row {
			if total > 0 {
				row[j] = c[j] / total
			} else {
				row[j] = 1 / float64(J)
			}
		}
		sigma[s] = row
	}
	if final {
		e.res.Empirical = sigma
	}
	gap, _, err := e.model.CCEGap(sigma)
	return gap, err
}

// finish fills in the result's final state, average policies and the last
// checkpoint's measurements (NaN gaps if there is none yet).
func (e *engine) finish(s int) *Result {
	res := e.res
	res.Final = s
	res.NEGap, res.CCEGap = math.NaN(), math.NaN()
	res.Rewards = make([]float64, e.n)
	for i := range res.Rewards {
		res.Rewards[i] = math.NaN()
	}
	if n := len(res.Checkpoints); n > 0 {
		last := res.Checkpoints[n-1]
		res.NEGap, res.CCEGap = last.NEGap, last.CCEGap
		copy(res.Rewards, last.Rewards)
	}
	if e.sums != nil && e.played > 0 {
		for i, sum := range e.sums {
			for a, v := range sum {
				res.Average[i][a] = v / float64(e.played)
			}
		}
	}
	return res
}

// Stationary returns a copy of l's current policy in each of states states:
// the stationary policy Policy(s) describes, ready for exact evaluation
// (game.Model.Gaps). It costs states calls of Policy and O(states·A)
// memory, and panics if l does not have that many states.
func Stationary(l learner.Learner, states int) [][]float64 {
	out := make([][]float64, states)
	for s := range out {
		out[s] = append([]float64(nil), l.Policy(s)...)
	}
	return out
}
