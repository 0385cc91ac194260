package game

import (
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
)

// Player names a player of a game by its index: Player(0)…Player(N−1) in
// an N-player [Multiplayer] game, and in a two-player zero-sum [Game] the
// row player, who maximises the reward, and the column player, who
// minimises it (and receives 1 − r in the [0,1] bandit convention). It is
// the one player type of the module: the models of package markov take it
// too.
type Player int

const (
	// RowPlayer is player 0, the maximising player of a two-player
	// zero-sum game.
	RowPlayer Player = iota
	// ColumnPlayer is player 1, the minimising player of a two-player
	// zero-sum game.
	ColumnPlayer
)

// String returns the player's name: RowPlayer, ColumnPlayer, or Player(i)
// for the players from 2 on.
func (p Player) String() string {
	switch p {
	case RowPlayer:
		return "RowPlayer"
	case ColumnPlayer:
		return "ColumnPlayer"
	}
	return fmt.Sprintf("Player(%d)", int(p))
}

// Valid reports whether p is RowPlayer or ColumnPlayer, a player of a
// two-player [Game]; [Multiplayer] games check p against their own
// Players().
func (p Player) Valid() bool { return p == RowPlayer || p == ColumnPlayer }

// A Game is a two-player zero-sum game with states, played one round at a
// time: what the learners, self-play and the in-context pipeline of this
// module play. A matrix game is the one-state case. A caller's own
// simulator plugs into every harness of the module by implementing these
// four methods; nothing else is required.
//
// The reward of a round is the row player's, to be maximised, in [0,1]
// (noisy draws may leave [0,1] when the noise says so); the column player
// receives 1 − r. States are 0..States()−1, actions of player p are
// 0..Actions(p)−1. A Game's methods may be called concurrently only if the
// implementation says so (the tabular games of this module are immutable
// and safe for concurrent use).
type Game interface {
	// States returns the number of states S ≥ 1 (1 for a matrix game).
	States() int
	// Actions returns the number of actions of player p (the same in
	// every state).
	Actions(p Player) int
	// Start returns the state of the first round. It may draw from rng.
	Start(rng *rand.Rand) int
	// Step plays the joint action (a, b) in state s and returns the row
	// player's reward and the next state, drawn from rng. It may panic if
	// s, a or b is out of range.
	Step(s, a, b int, rng *rand.Rand) (reward float64, next int)
}

// A Model is a [Game] whose rewards and transitions are known, so that
// stationary policies can be evaluated exactly: [*ZeroSum] and the
// discounted Markov games of package markov implement it. Harnesses ask for
// it with a type assertion and report what they can without it (rewards,
// empirical play) for a game that only simulates.
type Model interface {
	Game
	// Gaps returns the duality gap of the stationary policies x (row) and
	// y (column), one distribution per state: per state and their
	// maximum (for a matrix game, the one gap max_i (Ay)_i − min_j (xᵀA)_j).
	// It returns an error if x or y is not a stationary policy of the game.
	Gaps(x, y [][]float64) (perState []float64, max float64, err error)
	// Nash returns stationary equilibrium policies of both players, one
	// distribution per state. The slices are freshly allocated.
	Nash() (x, y [][]float64, err error)
}

// A NoiseModel is a [Game] whose reward draw can be replaced: StepNoise is
// Step with the mean reward drawn through noise instead of the game's own
// law. The harnesses' Noise options need it.
type NoiseModel interface {
	Game
	// StepNoise is Step with the reward drawn by noise.Draw(mean, rng)
	// (nil means the game's own law); the rng is consumed as Step would
	// consume it with that noise.
	StepNoise(s, a, b int, noise Noise, rng *rand.Rand) (reward float64, next int)
}

// Compile-time checks: a matrix game is a one-state Game with a model.
var (
	_ Model      = (*ZeroSum)(nil)
	_ NoiseModel = (*ZeroSum)(nil)
)

// States returns 1: a matrix game has one state.
func (g *ZeroSum) States() int { return 1 }

// Actions returns the number of rows (RowPlayer) or columns (ColumnPlayer).
// It panics if p is not a valid player.
func (g *ZeroSum) Actions(p Player) int {
	m, n := g.Dims()
	switch p {
	case RowPlayer:
		return m
	case ColumnPlayer:
		return n
	}
	panic(fmt.Sprintf("game: invalid player %v", p))
}

// Start returns state 0 without drawing from rng.
func (g *ZeroSum) Start(*rand.Rand) int { return 0 }

// Step draws the row player's Bernoulli reward of the joint action (a, b),
// as [ZeroSum.Sample] with the default noise, and returns next state 0. It
// panics if s ≠ 0 or a, b is out of range.
func (g *ZeroSum) Step(s, a, b int, rng *rand.Rand) (reward float64, next int) {
	return g.StepNoise(s, a, b, nil, rng)
}

// StepNoise is [ZeroSum.Step] with the reward drawn through noise (nil
// means [Bernoulli]).
func (g *ZeroSum) StepNoise(s, a, b int, noise Noise, rng *rand.Rand) (reward float64, next int) {
	if s != 0 {
		panic(fmt.Sprintf("game: state %d of a matrix game, which has only state 0", s))
	}
	return g.Sample(a, b, noise, rng), 0
}

// Gaps returns the duality gap of x[0] and y[0], as [ZeroSum.Gap], as the
// one state's gap and the maximum. It returns an error if x or y does not
// hold exactly one distribution over the right number of actions.
func (g *ZeroSum) Gaps(x, y [][]float64) ([]float64, float64, error) {
	m, n := g.Dims()
	if len(x) != 1 || len(y) != 1 {
		return nil, 0, fmt.Errorf("%w: a matrix game's stationary policies have one state, got %d and %d", icrl.ErrShape, len(x), len(y))
	}
	if err := simplex.CheckDistribution("row player's policy", x[0], m); err != nil {
		return nil, 0, err
	}
	if err := simplex.CheckDistribution("column player's policy", y[0], n); err != nil {
		return nil, 0, err
	}
	gap := g.Gap(x[0], y[0])
	return []float64{gap}, gap, nil
}

// Nash returns the equilibrium of [Solve] as one-state stationary policies.
func (g *ZeroSum) Nash() (x, y [][]float64, err error) {
	sol, err := Solve(g)
	if err != nil {
		return nil, nil, err
	}
	return [][]float64{sol.X}, [][]float64{sol.Y}, nil
}

// A Bounded game reports the range of its mean payoffs: the harnesses
// refuse one outside [0, 1], the range the bandit learners need (*ZeroSum
// and markov's *Discounted are Bounded; a game without the method is
// trusted, and its learners reject a reward outside [0, 1] when they see
// one).
type Bounded interface {
	// Bounds returns the smallest and the largest payoff.
	Bounds() (lo, hi float64)
}

var _ Bounded = (*ZeroSum)(nil)

// A Discounter is a game ([Game] or [Multiplayer]) with a discount factor
// γ ∈ [0, 1): the discounted Markov games of package markov, two-player or
// N-player. Learners that need the discount (learner.OMD's value update)
// take it from here, and harnesses check that a learner's discount agrees
// with the game's.
type Discounter interface {
	// Discount returns the discount factor γ.
	Discount() float64
}
