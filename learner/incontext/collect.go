package incontext

import (
	"errors"
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
// It returns an error if prior is nil, Rounds or Games is not positive,
// PerGame is negative, or a game, expert or draw fails (a label or context
// that is not a distribution, a reward outside [0,1], a state out of
// range); the error of the lowest failing game is returned. Each round
// costs two labels (plus two context labels if set) and one step.
func Collect[G game.Game](prior func(rng *rand.Rand) (G, error), cfg CollectConfig) ([]GameTrajectory, error) {
	if prior == nil {
		return nil, errors.New("incontext: Collect needs a prior over games, got nil")
	}
	if cfg.Rounds < 1 {
		return nil, fmt.Errorf("incontext: Collect needs a positive number of rounds, got Rounds = %d", cfg.Rounds)
	}
	if cfg.Games < 1 {
		return nil, fmt.Errorf("incontext: Collect needs a positive number of games, got Games = %d", cfg.Games)
	}
	if cfg.PerGame < 0 {
		return nil, fmt.Errorf("incontext: Collect trajectories per game PerGame = %d must not be negative", cfg.PerGame)
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
	err := parallel.For(cfg.Games, func(k int) error {
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(k)))
		g, err := prior(rng)
		if err != nil {
			return fmt.Errorf("incontext: Collect game %d: prior: %w", k, err)
		}
		if isNil(g) {
			return fmt.Errorf("incontext: Collect game %d: the prior returned a nil game", k)
		}
		if u, ok := any(g).(interface{ InUnit() bool }); ok && !u.InUnit() {
			return fmt.Errorf("incontext: Collect game %d: the game has a reward outside [0, 1]", k)
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
			return fmt.Errorf("a Noise needs a game.NoiseModel, %T is not one", g)
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
		steps   []learner.Step
		buf     []float64
		ctx     []float64
	}{
		{p: game.RowPlayer, actions: A, expert: cfg.RowExpert, context: cfg.RowContext},
		{p: game.ColumnPlayer, actions: B, expert: cfg.ColExpert, context: cfg.ColContext},
	}
	for i := range players {
		pl := &players[i]
		pl.steps = make([]learner.Step, 0, T)
		pl.buf = make([]float64, T*pl.actions)
		pl.ctx = make([]float64, pl.actions)
		tr.Players[i] = Trajectory[int]{Rounds: make([]Round[int], 0, T), Labels: make([][]float64, T)}
	}
	s := g.Start(rng)
	if s < 0 || s >= S {
		return fmt.Errorf("the game's start state %d is out of range [0, %d)", s, S)
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
			if pl.context != nil {
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
			return fmt.Errorf("round %d: the game drew reward %v, outside [0, 1]", t+1, r)
		}
		if sn < 0 || sn >= S {
			return fmt.Errorf("round %d: the game's next state %d is out of range [0, %d)", t+1, sn, S)
		}
		for i, rew := range [2]float64{r, 1 - r} {
			pl := &players[i]
			pl.steps = append(pl.steps, learner.Step{State: s, Action: act[i], Reward: rew})
			tr.Players[i].Rounds = append(tr.Players[i].Rounds, Round[int]{Obs: s, Action: act[i], Reward: rew})
		}
		s = sn
	}
	tr.Final = s
	return nil
}

// BanditEnv is a bandit environment as [CollectBandits] plays it: a horizon,
// the action set of each round (feature vectors, one per arm) and a reward
// draw. The environments of package nonstationary implement it.
type BanditEnv interface {
	// Horizon returns the number of rounds T.
	Horizon() int
	// Actions returns the action set of round t (1-based).
	Actions(t int) [][]float64
	// Sample draws the reward of arm k at round t from rng.
	Sample(t, k int, rng *rand.Rand) float64
}

// ExpertStream is XORed into the trajectory index to give the expert's own
// random stream in [CollectBandits] when a behaviour policy plays.
const ExpertStream = 0x9e3779b97f4a7c15

// CollectBandits generates n labelled bandit trajectories: environment k
// (k = 0, …, n−1) is drawn by envGen from rng = rand.New(rand.NewPCG(seed,
// k)) and played for its horizon by behavior (or by the expert itself if
// behavior is nil), and every round is labelled with the arm the expert
// chooses after the same history (one-hot labels; the expert observes the
// arms actually played). With a behaviour policy the expert draws from its
// own stream rand.New(rand.NewPCG(seed, k^0x9e3779b97f4a7c15)). The output
// does not depend on GOMAXPROCS; the trajectories are spread over the
// cores, and envGen and the factories are called concurrently.
//
// It returns an error if n < 1, envGen or expert is nil, or an environment
// or learner fails; the error of the lowest failing trajectory is returned.
func CollectBandits[E BanditEnv](envGen func(*rand.Rand) (E, error), behavior, expert learner.BanditFactory, n int, seed uint64) ([]Trajectory[[][]float64], error) {
	if n < 1 {
		return nil, fmt.Errorf("incontext: CollectBandits needs n ≥ 1, got %d", n)
	}
	if envGen == nil || expert == nil {
		return nil, errors.New("incontext: CollectBandits needs a non-nil environment generator and expert factory")
	}
	out := make([]Trajectory[[][]float64], n)
	err := parallel.For(n, func(k int) error {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		e, err := envGen(rng)
		if err != nil {
			return fmt.Errorf("incontext: bandit trajectory %d: environment: %w", k, err)
		}
		if isNil(e) {
			return fmt.Errorf("incontext: bandit trajectory %d: the environment generator returned nil", k)
		}
		ex, err := newBandit(expert, "expert")
		if err != nil {
			return fmt.Errorf("incontext: bandit trajectory %d: %w", k, err)
		}
		var beh learner.BanditLearner
		xrng := rng
		if behavior != nil {
			if beh, err = newBandit(behavior, "behaviour"); err != nil {
				return fmt.Errorf("incontext: bandit trajectory %d: %w", k, err)
			}
			xrng = rand.New(rand.NewPCG(seed, uint64(k)^ExpertStream))
		}
		T := e.Horizon()
		tr := Trajectory[[][]float64]{Rounds: make([]Round[[][]float64], T), Labels: make([][]float64, T)}
		for t := 1; t <= T; t++ {
			acts := e.Actions(t)
			K := len(acts)
			label, _ := ex.Act(t, acts, xrng)
			arm := label
			if beh != nil {
				arm, _ = beh.Act(t, acts, rng)
			}
			if arm < 0 || arm >= K || label < 0 || label >= K {
				return fmt.Errorf("incontext: bandit trajectory %d round %d: arm %d or label %d not in [0, %d)", k, t, arm, label, K)
			}
			r := e.Sample(t, arm, rng)
			if beh != nil {
				if err := beh.Observe(t, acts, arm, r); err != nil {
					return fmt.Errorf("incontext: bandit trajectory %d round %d: behaviour: %w", k, t, err)
				}
			}
			if err := ex.Observe(t, acts, arm, r); err != nil {
				return fmt.Errorf("incontext: bandit trajectory %d round %d: expert: %w", k, t, err)
			}
			tr.Rounds[t-1] = Round[[][]float64]{Obs: acts, Action: arm, Reward: r}
			tr.Labels[t-1] = make([]float64, K)
			tr.Labels[t-1][label] = 1
		}
		out[k] = tr
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// newBandit calls a factory and checks its result.
func newBandit(f learner.BanditFactory, role string) (learner.BanditLearner, error) {
	l, err := f()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", role, err)
	}
	if isNil(l) {
		return nil, fmt.Errorf("%s factory returned nil", role)
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
