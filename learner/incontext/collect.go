package incontext

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/bandit"
	"github.com/icrl-go/icrl/learner/play"
)

// CollectConfig configures [Collect]. Rounds and Games are required.
type CollectConfig struct {
	// Rounds is the length T of every trajectory.
	Rounds int
	// Games is the number of games drawn from the prior.
	Games int
	// PerGame is the number of trajectories played on each game; 0 means 1.
	PerGame int
	// Noise, if not nil, replaces the games' reward draw (the games must
	// implement game.NoiseModel); the drawn rewards must lie in [0,1].
	Noise game.Noise
	// RowExpert and ColExpert label the rounds; nil means one NEExpert
	// shared by both (which needs games with a model).
	RowExpert, ColExpert Expert
	// RowContext and ColContext are the context policies Alg_c that choose
	// the actions played (in-context-games-omd §1.5); nil means the
	// player's expert, so the trajectories are the experts' own play
	// (on-policy distillation). Uniform{} explores at random.
	RowContext, ColContext Expert
	// Observation is what the context learners (RowLearner, ColLearner)
	// and the experts observe of each round: learner.Decentralized (the
	// default) or learner.JointActions, under which a learner.JointLearner
	// (an in-context learner over a joint-action GameEncoder) also sees the
	// opponent's action. The recorded rounds always hold the opponent's
	// action.
	Observation learner.Observation
	// RowLearner and ColLearner, if not nil, make one learner per
	// trajectory that chooses the player's actions in place of its context
	// policy, seeing the player's own rounds as in play: a learner.OMD, or
	// a NewLearner over a model being trained, whose own play then makes
	// the context (on-policy data, as in decision-pretrained transformers,
	// Lee et al. 2023). They take precedence over RowContext and
	// ColContext, are called concurrently, and must return a learner of
	// the game's number of states and the player's number of actions.
	RowLearner, ColLearner func() (learner.Learner, error)
	// Seed selects the randomness: game k and its trajectories use
	// rand.New(rand.NewPCG(Seed, k)).
	Seed uint64
}

// GameTrajectory is one trajectory of [Collect]: T rounds of a game played
// by the context policies, as each player saw it, with the experts' labels.
type GameTrajectory struct {
	// Game is the game played.
	Game game.Game
	// Players holds each player's view, indexed by game.Player: the state,
	// its own action, the opponent's action and its own reward (r_t for
	// the row player, 1 − r_t for the column player), and its expert's
	// label of each round.
	Players [2]Trajectory[int]
	// Final is the state reached after the last round.
	Final int
}

// Views returns player p's trajectories of trajs, ready for [Examples] and
// [Pretrain]. The rounds are shared, not copied.
func Views(trajs []GameTrajectory, p game.Player) []Trajectory[int] {
	out := make([]Trajectory[int], len(trajs))
	for i := range trajs {
		out[i] = trajs[i].Players[p]
	}
	return out
}

// AllViews returns both players' trajectories of trajs, interleaved
// (trajectory i's row view at 2i, its column view at 2i+1), for one model
// that plays either side of a game whose two roles look alike to a player
// (an i.i.d. game family, under the 1 − r convention); with
// PretrainConfig.ValidationGroup = 2·PerGame the validation split is by
// game. The rounds are shared, not copied.
func AllViews(trajs []GameTrajectory) []Trajectory[int] {
	out := make([]Trajectory[int], 0, 2*len(trajs))
	for i := range trajs {
		out = append(out, trajs[i].Players[0], trajs[i].Players[1])
	}
	return out
}

// Collect draws cfg.Games games from prior and plays cfg.PerGame
// trajectories of cfg.Rounds rounds on each, both players acting with their
// context policy and each round labelled by both experts: the pretraining
// data of in-context-games-omd §3.2 and §5 for any game.Game, the
// library's or the caller's own. Game k (k = 0, 1, …) and its trajectories
// draw from rand.New(rand.NewPCG(cfg.Seed, k)) — the prior first, then per
// trajectory the start state and per round the row and column actions and
// the game's step — so the output is the same for any GOMAXPROCS; the games
// are spread over the cores. The trajectories of game k are
// out[k·PerGame : (k+1)·PerGame].
//
// A trajectory is play.SelfPlay between the two context policies with a
// recorder: the rounds are drawn, validated and fed to the players in one
// place, each player's expert follows the trajectory online
// ([OnlineExpert]: O(1) expert updates a round; an Expert without Follow
// replays the history at every round) and labels round t before it
// observes it, and each player's view ([Round]: state, own action, the
// opponent's action, own reward r_t or 1 − r_t) is stored once.
//
// prior and the experts are called concurrently and must be safe for it.
// Once ctx is done no new game starts, a trajectory in flight stops within
// 64 rounds, and Collect returns ctx's error.
//
// It returns an error if ctx or prior is nil, Rounds or Games is not positive,
// PerGame is negative, the trajectories or their rounds are past
// [MaxTrajectories] or [MaxCollectRounds] ([icrl.ErrTooLarge], before anything
// is allocated), the observation setting is unknown, or a game,
// expert or draw fails (a label or context that is not a distribution, a
// reward outside [0,1], a state out of range); the error of the lowest
// failing game is returned. Each round costs one step, two samples and, per
// player, one expert update (plus a context policy's or learner's).
func Collect[G game.Game](ctx context.Context, prior func(rng *rand.Rand) (G, error), cfg CollectConfig) ([]GameTrajectory, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: Collect needs a context, got nil", icrl.ErrNil)
	}
	if prior == nil {
		return nil, fmt.Errorf("%w: Collect needs a prior over games, got nil", icrl.ErrNil)
	}
	if cfg.Rounds < 1 {
		return nil, fmt.Errorf("%w: Collect needs a positive number of rounds, got Rounds = %d", icrl.ErrInvalid, cfg.Rounds)
	}
	if cfg.Games < 1 {
		return nil, fmt.Errorf("%w: Collect needs a positive number of games, got Games = %d", icrl.ErrInvalid, cfg.Games)
	}
	if cfg.PerGame < 0 {
		return nil, fmt.Errorf("%w: Collect trajectories per game PerGame = %d must not be negative", icrl.ErrInvalid, cfg.PerGame)
	}
	if !cfg.Observation.Valid() {
		return nil, fmt.Errorf("%w: Collect observation setting %v is unknown", icrl.ErrInvalid, cfg.Observation)
	}
	per := max(cfg.PerGame, 1)
	if _, ok := num.SizeWithin(MaxTrajectories, cfg.Games, per); !ok {
		return nil, fmt.Errorf("%w: Collect of %d games × %d trajectories is more than %d trajectories", icrl.ErrInvalid, cfg.Games, per, MaxTrajectories)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, MaxCollectRounds, "Collect of games × trajectories × rounds", cfg.Games, per, cfg.Rounds); err != nil {
		return nil, err
	}
	if nilness.Is(cfg.RowExpert) || nilness.Is(cfg.ColExpert) {
		ne := &NEExpert{}
		if nilness.Is(cfg.RowExpert) {
			cfg.RowExpert = ne
		}
		if nilness.Is(cfg.ColExpert) {
			cfg.ColExpert = ne
		}
	}
	out := make([]GameTrajectory, cfg.Games*per)
	err := parallel.Items(ctx, 0, cfg.Games, func(_, k int) error {
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(k)))
		g, err := prior(rng)
		if err != nil {
			return fmt.Errorf("incontext: Collect game %d: prior: %w", k, err)
		}
		if nilness.Is(g) {
			return fmt.Errorf("%w: Collect game %d: the prior returned a nil game", icrl.ErrNil, k)
		}
		for j := range per {
			if err := rollout(ctx, &out[k*per+j], g, cfg, rng); err != nil {
				return fmt.Errorf("incontext: Collect game %d, trajectory %d: %w", k, j, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MaxTrajectories is the most trajectories [Collect] allocates.
const MaxTrajectories = 1 << 26

// MaxCollectRounds is the most rounds, over all its trajectories, that
// [Collect] stores: each takes about 100 bytes with three actions (both
// players' views and labels), so the limit is a few GB.
const MaxCollectRounds = 1 << 25

// Names of the checked distributions, per player.
var (
	labelNames   = [2]string{"RowPlayer's expert label", "ColumnPlayer's expert label"}
	contextNames = [2]string{"RowPlayer's context policy", "ColumnPlayer's context policy"}
)

// rollout plays one trajectory of g into tr: self-play between the context
// policies, with a recorder that labels and stores every round.
func rollout(ctx context.Context, tr *GameTrajectory, g game.Game, cfg CollectConfig, rng *rand.Rand) error {
	T := cfg.Rounds
	rec := &recorder{traj: tr, obs: cfg.Observation}
	*tr = GameTrajectory{Game: g}
	var actors [2]learner.Learner
	experts := [2]Expert{cfg.RowExpert, cfg.ColExpert}
	contexts := [2]Expert{cfg.RowContext, cfg.ColContext}
	factories := [2]func() (learner.Learner, error){cfg.RowLearner, cfg.ColLearner}
	for i, p := range [2]game.Player{game.RowPlayer, game.ColumnPlayer} {
		expert, err := follow(experts[i], g, p, rng)
		if err != nil {
			return fmt.Errorf("%v's expert: %w", p, err)
		}
		rec.experts[i] = expert
		name := contextNames[i]
		switch {
		case factories[i] != nil:
			l, err := factories[i]()
			if err != nil {
				return fmt.Errorf("%v's learner: %w", p, err)
			}
			if nilness.Is(l) {
				return fmt.Errorf("%w: %v's learner factory returned nil", icrl.ErrNil, p)
			}
			actors[i] = l
		case !nilness.Is(contexts[i]):
			if actors[i], err = follow(contexts[i], g, p, rng); err != nil {
				return fmt.Errorf("%v's context policy: %w", p, err)
			}
		default: // the expert plays: on-policy distillation
			actors[i] = expert
			rec.shared[i] = true
			name = labelNames[i]
		}
		actors[i] = &checked{l: actors[i], name: name, actions: g.Actions(p)}
		A := g.Actions(p)
		tr.Players[i] = Trajectory[int]{Rounds: make([]Round[int], 0, T), Labels: make([][]float64, 0, T)}
		rec.buf[i] = make([]float64, T*A)
		rec.actions[i] = A
	}
	res, err := play.SelfPlay(ctx, g, actors[0], actors[1],
		play.SelfPlayConfig{Rounds: T, Noise: cfg.Noise, Observation: cfg.Observation, Recorder: rec}, rng)
	for i := range actors { // a player's own failure explains the harness's
		c := actors[i].(*checked)
		for _, l := range []learner.Learner{c.l, rec.experts[i]} {
			if r, ok := l.(*replay); ok && r.err != nil {
				return fmt.Errorf("%v's %s: %w", game.Player(i), r.role, r.err)
			}
		}
	}
	if err != nil {
		for i := range actors {
			if c := actors[i].(*checked); c.called {
				if ferr := c.fault(); ferr != nil {
					return ferr
				}
			}
		}
		return err
	}
	tr.Final = res.Final
	return nil
}

// recorder labels and stores the rounds of one trajectory: the
// play.Recorder of [Collect].
type recorder struct {
	traj    *GameTrajectory
	obs     learner.Observation
	experts [2]learner.Learner // each player's expert, following the trajectory
	shared  [2]bool            // the expert is the player's actor, fed by the harness
	buf     [2][]float64       // the labels, T·A each
	actions [2]int
}

// Record labels round t in both players' views, stores the round and feeds
// it to the experts that do not play.
func (r *recorder) Record(t int, x play.Transition) error {
	if !(x.Reward >= 0 && x.Reward <= 1) {
		return fmt.Errorf("%w: the game drew reward %v, outside [0, 1]", icrl.ErrInvalid, x.Reward)
	}
	for i, p := range [2]game.Player{game.RowPlayer, game.ColumnPlayer} {
		A := r.actions[i]
		label := r.buf[i][(t-1)*A : t*A : t*A]
		copy(label, r.experts[i].Policy(x.State))
		if !r.shared[i] { // an expert that plays was checked by the engine
			if err := simplex.CheckDistribution(labelNames[i], label, A); err != nil {
				return err
			}
		}
		pl := &r.traj.Players[i]
		pl.Labels = append(pl.Labels, label)
		pl.Rounds = append(pl.Rounds, Round[int]{Obs: x.State, Action: x.Action(p), Opponent: x.Opponent(p), Reward: x.RewardOf(p)})
		if !r.shared[i] {
			if err := x.Feed(r.experts[i], p, r.obs); err != nil {
				return fmt.Errorf("%v's expert: %w", p, err)
			}
		}
	}
	return nil
}

// follow returns a learner that follows player p's rounds of g as e
// advises: e's own (OnlineExpert), or a replay of e's Label.
func follow(e Expert, g game.Game, p game.Player, rng *rand.Rand) (learner.Learner, error) {
	if o, ok := e.(OnlineExpert); ok {
		l, err := o.Follow(g, p, rng)
		if err != nil {
			return nil, err
		}
		if nilness.Is(l) {
			return nil, fmt.Errorf("%w: %T.Follow returned a nil learner", icrl.ErrNil, e)
		}
		return l, nil
	}
	return &replay{e: e, g: g, p: p, role: "expert", actions: g.Actions(p), labels: map[int][]float64{}}, nil
}

// checked is a player of [Collect]'s self-play under the player's role
// name. The engine validates the policies every round; checked keeps the
// last one it returned so that, when the engine refuses it, Collect names
// the role (expert, context policy, learner) in the error. It passes the
// joint action on when its learner takes it.
type checked struct {
	l       learner.Learner
	name    string
	actions int
	state   int
	last    []float64
	called  bool
}

func (c *checked) Policy(s int) []float64 {
	c.state, c.last, c.called = s, c.l.Policy(s), true
	return c.last
}

// fault returns the error of the last policy c returned, nil if it is a
// distribution over the player's actions.
func (c *checked) fault() error {
	if err := simplex.CheckDistribution(c.name, c.last, c.actions); err != nil {
		return fmt.Errorf("state %d: %w", c.state, err)
	}
	return nil
}

func (c *checked) Observe(s, action int, reward float64, next int) error {
	return c.l.Observe(s, action, reward, next)
}

func (c *checked) ObserveJoint(s, action, opponent int, reward float64, next int) error {
	if j, ok := c.l.(learner.JointLearner); ok {
		return j.ObserveJoint(s, action, opponent, reward, next)
	}
	return c.l.Observe(s, action, reward, next)
}

func (c *checked) Reset() { c.l.Reset(); c.last, c.called = nil, false }

// Opponents passes on the wrapped learner's number of opponent actions
// (learner.JointLearner), 0 if it does not model them, so that the
// engine checks it against the game.
func (c *checked) Opponents() int {
	if oc, ok := c.l.(learner.JointLearner); ok {
		return oc.Opponents()
	}
	return 0
}

// replay is the learner.Learner of an Expert without Follow: it keeps the
// player's history and calls Label at every Policy, O(t) at round t for a
// replaying expert. The labels of the current round are kept per state
// until the next Observe (as the Learner contract asks), so that the
// expert playing and labelling one round labels it once. A Label error is
// kept in err and Policy returns nil, which the harness rejects.
type replay struct {
	e       Expert
	g       game.Game
	p       game.Player
	role    string
	hist    []learner.Step
	actions int
	labels  map[int][]float64 // this round's labels, by state
	err     error
}

func (r *replay) Policy(s int) []float64 {
	if r.err != nil {
		return nil
	}
	if l, ok := r.labels[s]; ok {
		return l
	}
	l := make([]float64, r.actions)
	if err := r.e.Label(l, r.g, r.p, r.hist, s); err != nil {
		r.err = err
		return nil
	}
	r.labels[s] = l
	return l
}

func (r *replay) Observe(s, action int, reward float64, _ int) error {
	r.hist = append(r.hist, learner.Step{State: s, Action: action, Reward: reward})
	clear(r.labels)
	return nil
}

func (r *replay) Reset() { r.hist, r.err = r.hist[:0], nil; clear(r.labels) }

// newBandit calls a factory and checks its result.
func newBandit(f bandit.Factory, role string) (bandit.Learner, error) {
	l, err := f()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", role, err)
	}
	if nilness.Is(l) {
		return nil, fmt.Errorf("%w: %s factory returned nil", icrl.ErrNil, role)
	}
	return l, nil
}
