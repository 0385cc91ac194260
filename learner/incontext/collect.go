package incontext

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/learner"
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
	// its own action and its own reward (r_t for the row player, 1 − r_t
	// for the column player), and its expert's label of each round.
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

// Collect draws cfg.Games games from prior and plays cfg.PerGame
// trajectories of cfg.Rounds rounds on each, both players acting with their
// context policy and each round labelled by both experts: the pretraining
// data of in-context-games-omd §3.2 and §5 for any game.Game, the
// library's or the caller's own. Game k (k = 0, 1, …) and its trajectories
// draw from rand.New(rand.NewPCG(cfg.Seed, k)) — the prior first, then per
// round the row and column actions and the game's step — so the output is
// the same for any GOMAXPROCS; the games are spread over the cores. The
// trajectories of game k are out[k·PerGame : (k+1)·PerGame].
//
// prior and the experts are called concurrently and must be safe for it.
// Games are spread over the cores; once ctx is done no new game starts and
// Collect returns ctx's error.
//
// It returns an error if ctx or prior is nil, Rounds or Games is not positive,
// PerGame is negative, or a game, expert or draw fails (a label or context
// that is not a distribution, a reward outside [0,1], a state out of
// range); the error of the lowest failing game is returned. Each round
// costs two labels (plus two context labels if set) and one step.
func Collect[G game.Game](ctx context.Context, prior func(rng *rand.Rand) (G, error), cfg CollectConfig) ([]GameTrajectory, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: Collect needs a context, got nil", ErrNil)
	}
	if prior == nil {
		return nil, fmt.Errorf("%w: Collect needs a prior over games, got nil", ErrNil)
	}
	if cfg.Rounds < 1 {
		return nil, fmt.Errorf("%w: Collect needs a positive number of rounds, got Rounds = %d", ErrInvalid, cfg.Rounds)
	}
	if cfg.Games < 1 {
		return nil, fmt.Errorf("%w: Collect needs a positive number of games, got Games = %d", ErrInvalid, cfg.Games)
	}
	if cfg.PerGame < 0 {
		return nil, fmt.Errorf("%w: Collect trajectories per game PerGame = %d must not be negative", ErrInvalid, cfg.PerGame)
	}
	per := max(cfg.PerGame, 1)
	if cfg.RowExpert == nil || cfg.ColExpert == nil {
		ne := &NEExpert{}
		if cfg.RowExpert == nil {
			cfg.RowExpert = ne
		}
		if cfg.ColExpert == nil {
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
		if isNil(g) {
			return fmt.Errorf("%w: Collect game %d: the prior returned a nil game", ErrNil, k)
		}
		if u, ok := any(g).(interface{ InUnit() bool }); ok && !u.InUnit() {
			return fmt.Errorf("%w: Collect game %d: the game has a reward outside [0, 1]", ErrInvalid, k)
		}
		for j := range per {
			if err := rollout(&out[k*per+j], g, cfg, rng); err != nil {
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

// Names of the checked distributions, per player.
var (
	labelNames   = [2]string{"RowPlayer's expert label", "ColumnPlayer's expert label"}
	contextNames = [2]string{"RowPlayer's context policy", "ColumnPlayer's context policy"}
)

// rollout plays one trajectory of g into tr.
func rollout(tr *GameTrajectory, g game.Game, cfg CollectConfig, rng *rand.Rand) error {
	S, A, B := g.States(), g.Actions(game.RowPlayer), g.Actions(game.ColumnPlayer)
	step := g.Step
	if cfg.Noise != nil {
		nm, ok := g.(game.NoiseModel)
		if !ok {
			return fmt.Errorf("%w: a Noise needs a game.NoiseModel, %T is not one", ErrInvalid, g)
		}
		step = func(s, a, b int, rng *rand.Rand) (float64, int) { return nm.StepNoise(s, a, b, cfg.Noise, rng) }
	}
	T := cfg.Rounds
	*tr = GameTrajectory{Game: g}
	players := []struct {
		p       game.Player
		actions int
		expert  Expert
		context Expert
		learn   func() (learner.Learner, error)
		l       learner.Learner
		steps   []learner.Step
		buf     []float64
		ctx     []float64
	}{
		{p: game.RowPlayer, actions: A, expert: cfg.RowExpert, context: cfg.RowContext, learn: cfg.RowLearner},
		{p: game.ColumnPlayer, actions: B, expert: cfg.ColExpert, context: cfg.ColContext, learn: cfg.ColLearner},
	}
	for i := range players {
		pl := &players[i]
		if pl.learn != nil {
			l, err := pl.learn()
			if err != nil {
				return fmt.Errorf("%v's learner: %w", pl.p, err)
			}
			if isNil(l) {
				return fmt.Errorf("%w: %v's learner factory returned nil", ErrNil, pl.p)
			}
			pl.l = l
		}
		pl.steps = make([]learner.Step, 0, T)
		pl.buf = make([]float64, T*pl.actions)
		pl.ctx = make([]float64, pl.actions)
		tr.Players[i] = Trajectory[int]{Rounds: make([]Round[int], 0, T), Labels: make([][]float64, T)}
	}
	s := g.Start(rng)
	if s < 0 || s >= S {
		return fmt.Errorf("%w: the game's start state %d is out of range [0, %d)", ErrInput, s, S)
	}
	var act [2]int
	for t := range T {
		for i := range players {
			pl := &players[i]
			label := pl.buf[t*pl.actions : (t+1)*pl.actions : (t+1)*pl.actions]
			if err := pl.expert.Label(label, g, pl.p, pl.steps, s); err != nil {
				return fmt.Errorf("round %d, %v's expert: %w", t+1, pl.p, err)
			}
			if err := game.CheckDistribution(labelNames[i], label, pl.actions); err != nil {
				return fmt.Errorf("round %d: %w", t+1, err)
			}
			tr.Players[i].Labels[t] = label
		}
		for i := range players {
			pl := &players[i]
			play := tr.Players[i].Labels[t]
			switch {
			case pl.l != nil:
				play = pl.l.Policy(s)
				if err := game.CheckDistribution(contextNames[i], play, pl.actions); err != nil {
					return fmt.Errorf("round %d: %w", t+1, err)
				}
			case pl.context != nil:
				if err := pl.context.Label(pl.ctx, g, pl.p, pl.steps, s); err != nil {
					return fmt.Errorf("round %d, %v's context policy: %w", t+1, pl.p, err)
				}
				if err := game.CheckDistribution(contextNames[i], pl.ctx, pl.actions); err != nil {
					return fmt.Errorf("round %d: %w", t+1, err)
				}
				play = pl.ctx
			}
			act[i] = game.SampleCategorical(play, rng)
		}
		r, sn := step(s, act[0], act[1], rng)
		if !(r >= 0 && r <= 1) {
			return fmt.Errorf("%w: round %d: the game drew reward %v, outside [0, 1]", ErrInvalid, t+1, r)
		}
		if sn < 0 || sn >= S {
			return fmt.Errorf("%w: round %d: the game's next state %d is out of range [0, %d)", ErrInput, t+1, sn, S)
		}
		for i, rew := range [2]float64{r, 1 - r} {
			pl := &players[i]
			if pl.l != nil {
				if err := pl.l.Observe(s, act[i], rew, sn); err != nil {
					return fmt.Errorf("round %d, %v's learner: %w", t+1, pl.p, err)
				}
			}
			pl.steps = append(pl.steps, learner.Step{State: s, Action: act[i], Reward: rew})
			tr.Players[i].Rounds = append(tr.Players[i].Rounds, Round[int]{Obs: s, Action: act[i], Reward: rew})
		}
		s = sn
	}
	tr.Final = s
	return nil
}

// newBandit calls a factory and checks its result.
func newBandit(f learner.BanditFactory, role string) (learner.BanditLearner, error) {
	l, err := f()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", role, err)
	}
	if isNil(l) {
		return nil, fmt.Errorf("%w: %s factory returned nil", ErrNil, role)
	}
	return l, nil
}

// isNil reports whether v is nil or holds a nil pointer.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}
