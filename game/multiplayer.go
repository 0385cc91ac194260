package game

import (
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl/internal/nilness"
)

// A Multiplayer game is an N-player, general-sum game with states, played one
// round at a time: each of the N players picks an action in the current
// state, and the game returns every player's reward and the next state. It
// is what the rollout engine of package learner (play.Run) plays with N
// learners; a matrix game is the one-state case. The two-player zero-sum
// [Game] is its special case through [AsMultiplayer], which writes the
// column player's reward 1 − r once for the whole module.
//
// The utility kind of a game (zero-sum, team, general-sum) is a property of
// its rewards, not a second interface (as OpenSpiel's simultaneous-move
// games: one ApplyActions, a return per player). Players are
// Player(0)…Player(N−1), states 0..States()−1, actions of player p
// 0..Actions(p)−1. The learners of package learner take rewards in [0, 1]
// and maximise them.
//
// A Multiplayer whose rewards and transitions are known can also be a
// model: package markov's GeneralSumModel uses the same method names and
// types (Players, States, Actions), so one plain struct of a caller is both
// the simulator and the model. A Multiplayer's methods may be called
// concurrently only if the implementation says so.
type Multiplayer interface {
	// Players returns the number of players N ≥ 1.
	Players() int
	// States returns the number of states S ≥ 1 (1 for a matrix game).
	States() int
	// Actions returns the number of actions of player p (the same in
	// every state).
	Actions(p Player) int
	// Start returns the state of the first round. It may draw from rng.
	Start(rng *rand.Rand) int
	// Play plays the joint action actions (one action per player, player
	// 0 first) in state s, stores every player's reward in rewards (of
	// length N) and returns the next state, drawing from rng. It may panic
	// if s or an action is out of range, or a slice has the wrong length.
	Play(s int, actions []int, rewards []float64, rng *rand.Rand) (next int)
}

// AsMultiplayer returns the two-player zero-sum game g as a [Multiplayer]:
// Players is 2, and Play plays g.Step with the row and column actions and
// stores the row player's reward r and the column player's 1 − r, the
// zero-sum convention of the module's learners. It is the one place a
// two-player zero-sum [Game] becomes an N-player one. The view draws from
// rng exactly as g.Step does, and is safe for concurrent use if g is. A nil
// g (a typed nil included) gives nil.
func AsMultiplayer(g Game) Multiplayer {
	if nilness.Is(g) {
		return nil
	}
	return zeroSumView{g: g, step: g.Step}
}

// AsMultiplayerNoise is [AsMultiplayer] with the reward drawn through noise
// (g.StepNoise; nil noise plays g.Step).
func AsMultiplayerNoise(g NoiseModel, noise Noise) Multiplayer {
	if nilness.Is(g) {
		return nil
	}
	if noise == nil {
		return AsMultiplayer(g)
	}
	return zeroSumView{g: g, step: func(s, a, b int, rng *rand.Rand) (float64, int) {
		return g.StepNoise(s, a, b, noise, rng)
	}}
}

// A ZeroSumView is a [Multiplayer] that is the two-player zero-sum view of a
// [Game] ([AsMultiplayer]): harnesses use ZeroSum to reach the game's own
// two-player capabilities (its Model, Discounter, bounds).
type ZeroSumView interface {
	Multiplayer
	// ZeroSum returns the two-player game the view plays.
	ZeroSum() Game
}

// zeroSumView is the Multiplayer view of a two-player zero-sum Game.
type zeroSumView struct {
	g    Game
	step func(s, a, b int, rng *rand.Rand) (float64, int)
}

var _ ZeroSumView = zeroSumView{}

func (v zeroSumView) Players() int             { return 2 }
func (v zeroSumView) States() int              { return v.g.States() }
func (v zeroSumView) Actions(p Player) int     { return v.g.Actions(p) }
func (v zeroSumView) Start(rng *rand.Rand) int { return v.g.Start(rng) }
func (v zeroSumView) ZeroSum() Game            { return v.g }

// Play plays the joint action (actions[0], actions[1]) and stores r and
// 1 − r. It panics if actions or rewards does not have two entries.
func (v zeroSumView) Play(s int, actions []int, rewards []float64, rng *rand.Rand) int {
	if len(actions) != 2 || len(rewards) != 2 {
		panic(fmt.Sprintf("game: a two-player game played with %d actions and %d rewards", len(actions), len(rewards)))
	}
	r, next := v.step(s, actions[0], actions[1], rng)
	rewards[0], rewards[1] = r, 1-r
	return next
}
