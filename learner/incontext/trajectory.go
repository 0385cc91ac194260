package learner

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
)

// ContextKind selects the context algorithm Alg_c that chooses the actions
// played while [Collect] generates pretraining trajectories
// (in-context-games-omd §1.5, §2.6). The expert's labels are recorded in
// either case.
type ContextKind int

const (
	// ExpertContext draws each player's action from its expert's label
	// of the round, so the trajectories are the experts' own play:
	// on-policy distillation, the spec's default context algorithm (§2.6,
	// resolution A10).
	ExpertContext ContextKind = iota
	// UniformContext draws each player's action uniformly at random.
	UniformContext
)

// String returns the kind's name.
func (k ContextKind) String() string {
	switch k {
	case ExpertContext:
		return "ExpertContext"
	case UniformContext:
		return "UniformContext"
	}
	return fmt.Sprintf("ContextKind(%d)", int(k))
}

// Trajectory is one pretraining trajectory of [Collect]: T rounds of a
// zero-sum Markov game played by the context algorithm, as each player saw
// it, with the expert's label of every round (the augmented trajectory
// D̄_T of in-context-games-omd §1.5).
type Trajectory struct {
	// Game is the game played.
	Game *markov.Discounted
	// Row and Col are the players' own views of the T rounds: the state
	// s_t, the player's own action and its own reward (r_t for the row
	// player, 1 − r_t for the column player). The next state of round t is
	// the State of round t+1.
	Row, Col []Step
	// RowLabels[t] and ColLabels[t] are the experts' distributions over the
	// row and column player's actions at round t+1 (0-based t), given the
	// player's own history before that round and the round's state
	// (spec resolution A10).
	RowLabels, ColLabels [][]float64
	// Final is the state s_{T+1} reached after the last round.
	Final int
}

// CollectConfig configures [Collect]. Rounds and Games are required; every
// other zero value selects the documented default.
type CollectConfig struct {
	// Rounds is the trajectory length T ≥ 1.
	Rounds int
	// Games is the number of games drawn from the prior, n_games ≥ 1.
	Games int
	// PerGame is the number of trajectories played on each game; 0 means
	// 1.
	PerGame int
	// Noise draws the bandit rewards; nil means game.Bernoulli (use
	// game.Exact for deterministic rewards; spec A14).
	Noise game.Noise
	// RowExpert and ColExpert label the row and column player's rounds;
	// nil means a new &NEExpert{} (shared by both players), the expert of
	// the paper's experiments (§4).
	RowExpert, ColExpert Expert
	// Context is the context algorithm; the zero value is ExpertContext.
	Context ContextKind
	// Seed determines every random draw: game k (0-based) and its
	// trajectories use rand.New(rand.NewPCG(Seed, k)).
	Seed uint64
}

// Collect draws cfg.Games games from prior and plays cfg.PerGame
// trajectories of cfg.Rounds rounds on each, recording both players' views
// and the experts' labels: the data-generation step of in-context-games-omd
// §2.6 (GenerateTrajectory and Augment), with both players acting jointly
// (resolution A10). The result holds Games·PerGame trajectories, game-major:
// trajectory k·PerGame + j is the j-th on game k.
//
// Game k uses rng = rand.New(rand.NewPCG(cfg.Seed, k)) for its draw
// prior(rng) and then, in order, for its trajectories. Each trajectory
// starts in state 0 (a matrix game from [MatrixAsMarkov] has only that
// state) and, in every round t = 1, …, T in state s_t, computes both
// labels (row first), draws the row action a_t and then the column action
// b_t (from the labels under ExpertContext, uniformly under
// UniformContext) and then the reward r_t and next state s_{t+1} with
// g.Step (reward first), all from rng. The games are processed in parallel
// on runtime.GOMAXPROCS(0) goroutines; the result is the same for any
// number of goroutines. So prior and the experts are called concurrently,
// each call of prior with its own rng: they must be safe for that (the
// package's experts and the families of game and markov are).
//
// It returns an error if prior is nil, Rounds, Games or PerGame is
// invalid, Context is unknown, prior fails or returns a nil game or one
// with a reward outside [0, 1], or an expert fails or returns a label that
// is not a probability distribution over the player's actions, or the noise
// draws a reward outside [0, 1]. If several
// games fail, the error is that of the lowest-numbered one.
//
// A round costs the two labels (O(A) for a cached [NEExpert], O(t·A log A)
// for an [OMDExpert]) plus O(A + B + S); memory is O(T·(A + B)) per
// trajectory.
func Collect(prior func(rng *rand.Rand) (*markov.Discounted, error), cfg CollectConfig) ([]Trajectory, error) {
	if prior == nil {
		return nil, errors.New("learner: Collect needs a prior over games, got nil")
	}
	if cfg.Rounds < 1 {
		return nil, fmt.Errorf("learner: Collect needs a positive number of rounds, got Rounds = %d", cfg.Rounds)
	}
	if cfg.Games < 1 {
		return nil, fmt.Errorf("learner: Collect needs a positive number of games, got Games = %d", cfg.Games)
	}
	if cfg.PerGame < 0 {
		return nil, fmt.Errorf("learner: Collect trajectories per game PerGame = %d must not be negative", cfg.PerGame)
	}
	if cfg.Context != ExpertContext && cfg.Context != UniformContext {
		return nil, fmt.Errorf("learner: Collect has unknown Context %v", cfg.Context)
	}
	per := max(cfg.PerGame, 1)
	if cfg.Noise == nil {
		cfg.Noise = game.Bernoulli{}
	}
	if cfg.RowExpert == nil || cfg.ColExpert == nil {
		ne := &NEExpert{}
		if cfg.RowExpert == nil {
			cfg.RowExpert = ne
		}
		if cfg.ColExpert == nil {
			cfg.ColExpert = ne
		}
	}
	out := make([]Trajectory, cfg.Games*per)
	errs := make([]error, cfg.Games)
	var next atomic.Int64
	var failed atomic.Bool
	workers := min(runtime.GOMAXPROCS(0), cfg.Games)
	var wg sync.WaitGroup
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= cfg.Games || failed.Load() {
					return
				}
				if err := collectGame(out[k*per:(k+1)*per], prior, k, cfg); err != nil {
					errs[k] = fmt.Errorf("learner: Collect game %d: %w", k, err)
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	// Games are claimed in increasing order, so every game below a failed
	// one was run: the first recorded error is the lowest-numbered.
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// collectGame draws game k and plays len(dst) trajectories on it.
func collectGame(dst []Trajectory, prior func(*rand.Rand) (*markov.Discounted, error), k int, cfg CollectConfig) error {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(k)))
	g, err := prior(rng)
	if err != nil {
		return fmt.Errorf("prior: %w", err)
	}
	if g == nil {
		return errors.New("prior returned a nil game")
	}
	if !g.InUnit() {
		return errors.New("the game has a reward outside [0, 1]")
	}
	for j := range dst {
		if err := rollout(&dst[j], g, cfg, rng); err != nil {
			return fmt.Errorf("trajectory %d: %w", j, err)
		}
	}
	return nil
}

// rollout plays one trajectory of cfg.Rounds rounds on g into tr.
func rollout(tr *Trajectory, g *markov.Discounted, cfg CollectConfig, rng *rand.Rand) error {
	_, A, B := g.Dims()
	T := cfg.Rounds
	*tr = Trajectory{
		Game: g,
		Row:  make([]Step, 0, T), Col: make([]Step, 0, T),
		RowLabels: make([][]float64, T), ColLabels: make([][]float64, T),
	}
	rowBuf, colBuf := make([]float64, T*A), make([]float64, T*B)
	s := 0
	for t := range T {
		lx, ly := rowBuf[t*A:(t+1)*A:(t+1)*A], colBuf[t*B:(t+1)*B:(t+1)*B]
		if err := cfg.RowExpert.Label(lx, g, true, tr.Row, s); err != nil {
			return fmt.Errorf("round %d, row expert: %w", t+1, err)
		}
		if err := game.CheckDistribution("row expert's label", lx, A); err != nil {
			return fmt.Errorf("round %d: %w", t+1, err)
		}
		if err := cfg.ColExpert.Label(ly, g, false, tr.Col, s); err != nil {
			return fmt.Errorf("round %d, column expert: %w", t+1, err)
		}
		if err := game.CheckDistribution("column expert's label", ly, B); err != nil {
			return fmt.Errorf("round %d: %w", t+1, err)
		}
		tr.RowLabels[t], tr.ColLabels[t] = lx, ly
		var a, b int
		if cfg.Context == UniformContext {
			a, b = rng.IntN(A), rng.IntN(B)
		} else {
			a, b = game.SampleCategorical(lx, rng), game.SampleCategorical(ly, rng)
		}
		r, sn := g.StepNoise(s, a, b, cfg.Noise, rng)
		if !(r >= 0 && r <= 1) {
			return fmt.Errorf("round %d: the noise drew reward %v, outside [0, 1]", t+1, r)
		}
		tr.Row = append(tr.Row, Step{State: s, Action: a, Reward: r})
		tr.Col = append(tr.Col, Step{State: s, Action: b, Reward: 1 - r})
		s = sn
	}
	tr.Final = s
	return nil
}
