package play

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/learner"
)

// Feedback selects what the players observe in [SelfPlay].
type Feedback int

const (
	// Bandit feedback: each player observes its own sampled action and its
	// sampled reward (the default, and the setting of the papers).
	Bandit Feedback = iota
	// FullInformation feedback: each player observes the expected reward of
	// every one of its actions against the opponent's current mixed
	// strategy. It needs a matrix game with known payoffs (a *game.ZeroSum,
	// or any one-state game with its RowPayoffs, ColPayoffs and At
	// methods), and both learners must implement FullInformationLearner.
	FullInformation
)

// String returns the feedback's name.
func (f Feedback) String() string {
	switch f {
	case Bandit:
		return "bandit"
	case FullInformation:
		return "full-information"
	}
	return fmt.Sprintf("Feedback(%d)", int(f))
}

// payoffMatrix is what full-information self-play needs of a matrix game.
type payoffMatrix interface {
	At(a, b int) float64
	RowPayoffs(dst, y []float64) []float64
	ColPayoffs(dst, x []float64) []float64
}

// SelfPlayConfig configures [SelfPlay]. The zero value is not usable: Rounds
// must be positive.
type SelfPlayConfig struct {
	// Rounds is the number of rounds T.
	Rounds int
	// Feedback is Bandit (default) or FullInformation.
	Feedback Feedback
	// Noise, if not nil, replaces the game's own reward draw: the game must
	// implement game.NoiseModel (the tabular games do). nil plays the
	// game's Step (Bernoulli rewards for the tabular games).
	Noise game.Noise
	// Checkpoints lists rounds t in [1, Rounds] at which to record the
	// gaps and the mean reward, in increasing order. Round Rounds is always
	// evaluated and need not be listed.
	Checkpoints []int
	// Record keeps both players' histories in the result.
	Record bool
	// Observation is what the learners observe of each round:
	// Decentralized (the default: own action and reward) or JointActions
	// (a JointLearner also sees the opponent's action). JointActions needs
	// Bandit feedback.
	Observation learner.Observation
	// Recorder, if not nil, is shown every round (what trajectory
	// collection builds on).
	Recorder Recorder
}

// A Recorder watches the rounds of [SelfPlay]: trajectory collection is
// self-play plus a recorder (package learner/incontext), and a caller's
// logging or statistics can ride along the same way.
type Recorder interface {
	// Record is called once per round t = 1, …, T with the round's
	// transition, after the game's draw and before the learners observe
	// it, so the learners' Policy(tr.State) still gives the policies the
	// round was played with. An error stops self-play and is returned.
	// Under FullInformation feedback Next is 0.
	Record(t int, tr Transition) error
}

// SelfPlayCheckpoint holds what [SelfPlay] measured at one round.
type SelfPlayCheckpoint struct {
	// Round is the round t.
	Round int
	// LastGap is the duality gap of (x_t, y_t), the stationary policies
	// played at round t: the maximum over states of the per-state gaps
	// (game.Model.Gaps). NaN if the game is not a game.Model.
	LastGap float64
	// StateGaps are the per-state gaps of (x_t, y_t); nil if the game is
	// not a game.Model.
	StateGaps []float64
	// AverageGap is the duality gap of the average policies
	// ((1/t)Σ_{k≤t} x_k, (1/t)Σ_{k≤t} y_k) of a one-state game (the
	// average iterate of in-context-games-omd §4.1); NaN for a game with
	// states or without a model.
	AverageGap float64
	// RowReward is the row player's mean reward over rounds 1..t (the
	// column player's is 1 − RowReward): what any game reports.
	RowReward float64
}

// SelfPlayResult is the outcome of [SelfPlay].
type SelfPlayResult struct {
	// LastX and LastY are the stationary policies x_T and y_T played at
	// the final round (the theorems' "last iterate"), one distribution per
	// state; nil for a game with states and without a model, whose states
	// may be too many to enumerate.
	LastX, LastY [][]float64
	// AverageX and AverageY are the average policies over the T rounds of
	// a one-state game; nil for a game with states.
	AverageX, AverageY []float64
	// LastGap is the final checkpoint's LastGap (round T).
	LastGap float64
	// StateGaps are the final checkpoint's per-state gaps.
	StateGaps []float64
	// AverageGap is the final checkpoint's AverageGap.
	AverageGap float64
	// RowReward is the row player's mean reward over the T rounds.
	RowReward float64
	// Checkpoints holds the measurements at the configured rounds, in
	// order, ending with round T.
	Checkpoints []SelfPlayCheckpoint
	// Visits counts the rounds played in each state.
	Visits []int
	// Row and Col are the histories each player saw, if Record was set:
	// the state, its own action and its own reward (the row player's
	// reward r_t for the row player, 1 − r_t for the column player).
	Row, Col []learner.Step
	// Final is the state after the last round.
	Final int
}

// SelfPlay plays the row learner against the column learner in the game g
// for cfg.Rounds rounds: at round t, in state s_t (s_1 = g.Start(rng)), each
// samples an action from its policy in s_t, the game draws the row player's
// reward r_t and the next state, and (under bandit feedback) the row player
// observes (s_t, a_t, r_t, s_{t+1}) and the column player (s_t, b_t,
// 1 − r_t, s_{t+1}); under JointActions observation a [learner.JointLearner] also
// observes the opponent's action. A matrix game is the one-state case. A
// [Recorder] in the configuration sees every round's [Transition] before the
// learners observe it (trajectory collection is self-play plus a recorder).
// SelfPlay is the rollout engine [Run] on game.AsMultiplayer(g), with the
// two-player measurements below: the same rounds, draw for draw.
//
// What is measured depends on what the game offers. Every game gives the
// mean reward and the visits. A game.Model (the module's tabular games)
// also gives the duality gap of the last iterate at every checkpoint, and a
// one-state model the gap of the average iterate; for a game without a
// model the gaps are NaN.
//
// The run is deterministic given rng: the sampling order is the start
// state, then per round the row action, the column action and the game's
// step. The policies' validity is checked every round (in the state
// played) and in every state at checkpoints. It returns an error if g or a
// learner is nil, the game has no state or action, a game with InUnit
// reports rewards outside [0,1], Rounds ≤ 0, a checkpoint is out of order
// or range, the feedback or observation setting is unknown or unsupported
// (JointActions needs bandit feedback), a learner returns an invalid policy
// or rejects an observation, the recorder fails, or ctx or rng is nil. ctx is
// checked every 64 rounds: once it is done SelfPlay stops and returns
// the result of the rounds played so far (its checkpoints so far; its final
// fields those of the last checkpoint recorded, if any) with ctx's error.
// Each round costs two samples, one game step and two observations; a
// checkpoint costs S Policy calls per player and one model evaluation.
func SelfPlay(ctx context.Context, g game.Game, row, col learner.Learner, cfg SelfPlayConfig, rng *rand.Rand) (*SelfPlayResult, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: self-play needs a context", icrl.ErrNil)
	}
	if err := checkSelfPlay(g, row, col, cfg, rng); err != nil {
		return nil, err
	}
	sp, err := newSelfPlay(g, row, col, cfg)
	if err != nil {
		return nil, err
	}
	pr, err := sp.e.run(ctx, rng)
	if pr == nil {
		return nil, err
	}
	return sp.finish(pr), err
}

// finish copies the engine's result into the self-play result: the row
// player's mean rewards at the checkpoints, the visits, the histories and
// the final state, and the last checkpoint's measurements in its final
// fields (NaN gaps if there is none yet).
func (sp *selfPlay) finish(pr *Result) *SelfPlayResult {
	res := sp.res
	for k := range res.Checkpoints {
		res.Checkpoints[k].RowReward = pr.Checkpoints[k].Rewards[0]
	}
	res.Visits, res.Final = pr.Visits, pr.Final
	if sp.cfg.Record {
		res.Row, res.Col = pr.Histories[0], pr.Histories[1]
	}
	res.LastGap, res.AverageGap, res.RowReward = math.NaN(), math.NaN(), math.NaN()
	if n := len(res.Checkpoints); n > 0 {
		last := res.Checkpoints[n-1]
		res.LastGap, res.StateGaps, res.AverageGap, res.RowReward = last.LastGap, slices.Clone(last.StateGaps), last.AverageGap, last.RowReward
	}
	return res
}

// checkSelfPlay validates the arguments of [SelfPlay]: non-nil game,
// learners and source, a game with rewards in [0, 1], the configuration,
// and learners whose sizes and initial policies fit the game.
func checkSelfPlay(g game.Game, row, col learner.Learner, cfg SelfPlayConfig, rng *rand.Rand) error {
	if nilness.Is(g) {
		return fmt.Errorf("%w: self-play needs a game, got a nil game", icrl.ErrNil)
	}
	if nilness.Is(row) || nilness.Is(col) {
		return fmt.Errorf("%w: self-play got a nil learner (row %T, column %T)", icrl.ErrNil, row, col)
	}
	if rng == nil {
		return fmt.Errorf("%w: self-play needs a random source", icrl.ErrNil)
	}
	S, A, B := g.States(), g.Actions(game.RowPlayer), g.Actions(game.ColumnPlayer)
	if S < 1 || A < 1 || B < 1 {
		return fmt.Errorf("%w: self-play needs at least one state and action, the game has %d states and %d×%d actions", icrl.ErrInvalid, S, A, B)
	}
	if err := checkUnitGame(g); err != nil {
		return err
	}
	pc := Config{Rounds: cfg.Rounds, Feedback: cfg.Feedback, Checkpoints: cfg.Checkpoints, Observation: cfg.Observation}
	if err := checkPlayConfig(pc); err != nil {
		return err
	}
	if err := checkOpponents([]learner.Learner{row, col}, []int{A, B}, cfg.Observation); err != nil {
		return err
	}
	gamma, hasGamma := discountOf(game.AsMultiplayer(g))
	for i, l := range []learner.Learner{row, col} {
		if err := checkPlayer(l, i, S, []int{A, B}[i], gamma, hasGamma); err != nil {
			return err
		}
	}
	return nil
}

// newSelfPlay sets up the engine over the game's two-player view (bandit
// draws, with cfg.Noise if set, or full-information reward vectors), the
// two-player measurements at the checkpoints, and the result.
func newSelfPlay(g game.Game, row, col learner.Learner, cfg SelfPlayConfig) (*selfPlay, error) {
	S, A, B := g.States(), g.Actions(game.RowPlayer), g.Actions(game.ColumnPlayer)
	model, _ := g.(game.Model)
	sp := &selfPlay{model: model, row: row, col: col, S: S, A: A, B: B, cfg: cfg}
	view := game.AsMultiplayer(g)
	if cfg.Noise != nil {
		nm, ok := g.(game.NoiseModel)
		if !ok {
			return nil, fmt.Errorf("%w: self-play with a Noise needs a game.NoiseModel, %T is not one", icrl.ErrInvalid, g)
		}
		view = game.AsMultiplayerNoise(nm, cfg.Noise)
	}
	pc := Config{Rounds: cfg.Rounds, Checkpoints: cfg.Checkpoints, Observation: cfg.Observation, Record: cfg.Record}
	if cfg.Recorder != nil {
		pc.Recorder = transitionRecorder{cfg.Recorder}
	}
	sp.e = buildEngine(view, []learner.Learner{row, col}, pc)
	if cfg.Feedback == FullInformation { // checkSelfPlay accepted no other feedback
		var ok bool
		if sp.pm, ok = g.(payoffMatrix); !ok || S != 1 {
			return nil, fmt.Errorf("%w: full-information self-play needs a matrix game with known payoffs, got %T with %d states", icrl.ErrInvalid, g, S)
		}
		if sp.frow, ok = row.(learner.FullInformationLearner); !ok {
			return nil, fmt.Errorf("%w: row learner %T does not accept full-information feedback", icrl.ErrInvalid, row)
		}
		if sp.fcol, ok = col.(learner.FullInformationLearner); !ok {
			return nil, fmt.Errorf("%w: column learner %T does not accept full-information feedback", icrl.ErrInvalid, col)
		}
		sp.rowRewards, sp.colRewards = make([]float64, A), make([]float64, B)
		sp.e.feed = sp.feedFull
	}
	sp.e.measure = sp.measure
	sp.res = &SelfPlayResult{Checkpoints: make([]SelfPlayCheckpoint, 0, len(sp.e.checkpoints))}
	if S == 1 {
		sp.res.AverageX, sp.res.AverageY = make([]float64, A), make([]float64, B)
	}
	return sp, nil
}

// transitionRecorder shows the engine's rounds to a two-player Recorder.
type transitionRecorder struct{ r Recorder }

func (tr transitionRecorder) RecordRound(t int, r Round) error {
	return tr.r.Record(t, Transition{State: r.State, Row: r.Actions[0], Col: r.Actions[1], Reward: r.Rewards[0], Next: r.Next})
}

// feedFull is the engine's feedback under full information: the round's
// reward is the payoff A[a][b] of the joint action (no draw, next state 0),
// and each learner observes the expected rewards of its actions against
// the other's policy of the round.
func (sp *selfPlay) feedFull(t int, r *Round, _ *rand.Rand) error {
	a, b := r.Actions[0], r.Actions[1]
	x, y := sp.e.pol[0], sp.e.pol[1]
	v := sp.pm.At(a, b)
	r.Rewards[0], r.Rewards[1], r.Next = v, 1-v, 0
	if err := sp.e.record(t, *r); err != nil {
		return err
	}
	sp.pm.RowPayoffs(sp.rowRewards, y)
	sp.pm.ColPayoffs(sp.colRewards, x)
	for j := range sp.colRewards {
		sp.colRewards[j] = 1 - sp.colRewards[j]
	}
	if err := sp.frow.ObserveRewards(sp.rowRewards); err != nil {
		return fmt.Errorf("learner: self-play round %d, row player: %w", t, err)
	}
	if err := sp.fcol.ObserveRewards(sp.colRewards); err != nil {
		return fmt.Errorf("learner: self-play round %d, column player: %w", t, err)
	}
	return nil
}

// selfPlay holds what the two-player measurements of [SelfPlay] share.
type selfPlay struct {
	e                      *engine
	model                  game.Model
	row, col               learner.Learner
	S, A, B                int
	cfg                    SelfPlayConfig
	pm                     payoffMatrix                   // full information only
	frow, fcol             learner.FullInformationLearner // full information only
	rowRewards, colRewards []float64                      // full information only
	res                    *SelfPlayResult
}

// measure is the engine's measurement at round t: the model's gaps of the
// current stationary policies and, in a one-state game, of the average
// ones (the engine's policy sums include round t). final records the last
// policies in the result.
func (sp *selfPlay) measure(t int, final bool) error {
	res := sp.res
	cp := SelfPlayCheckpoint{Round: t, LastGap: math.NaN(), AverageGap: math.NaN(), RowReward: math.NaN()}
	defer func() { res.Checkpoints = append(res.Checkpoints, cp) }()
	if sp.model == nil && sp.S > 1 {
		return nil
	}
	x, y := Stationary(sp.row, sp.S), Stationary(sp.col, sp.S)
	if final {
		res.LastX, res.LastY = x, y
	}
	if sp.model == nil {
		return nil
	}
	per, gap, err := sp.model.Gaps(x, y)
	if err != nil {
		return err
	}
	cp.LastGap, cp.StateGaps = gap, per
	if sums := sp.e.sums; sums != nil {
		for i := range res.AverageX {
			res.AverageX[i] = sums[0][i] / float64(t)
		}
		for j := range res.AverageY {
			res.AverageY[j] = sums[1][j] / float64(t)
		}
		if _, cp.AverageGap, err = sp.model.Gaps([][]float64{res.AverageX}, [][]float64{res.AverageY}); err != nil {
			return fmt.Errorf("average iterate: %w", err)
		}
	}
	return nil
}

// accumulate adds p to sum and reports whether p has the right length,
// entries in [0,1] and a positive sum; a cheap pre-check that avoids the
// full distribution check every round.
func accumulate(sum, p []float64) (ok bool) {
	if len(p) != len(sum) {
		return false
	}
	var total float64
	ok = true
	for i, v := range p {
		if !(v >= 0 && v <= 1) {
			ok = false
		}
		total += v
		sum[i] += v
	}
	return ok && total > 0
}

// inUnit reports whether p has n entries in [0,1] with a positive sum.
func inUnit(p []float64, n int) bool {
	if len(p) != n {
		return false
	}
	var total float64
	for _, v := range p {
		if !(v >= 0 && v <= 1) {
			return false
		}
		total += v
	}
	return total > 0
}
