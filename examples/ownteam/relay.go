package main

import (
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/markov"
)

// Relay is the caller's own game: a two-player team with two states,
// written as one plain Go struct that is both the model (the seven methods
// of markov.GeneralSumModel) and the simulator (game.Multiplayer: the same
// Players, States and Actions, and Start and Play), with no markov tables. In state s the team
// scores 1 when it plays the joint action Goal[s] = (a, b) and 0.25 when
// one of the two players plays its part of it; a score moves play to the
// other state with probability Move. Both players receive the team's
// reward.
type Relay struct {
	Goal  [2][2]int
	Move  float64
	Gamma float64
}

// Compile-time checks: a Relay is a model and a simulator.
var (
	_ markov.GeneralSumModel = Relay{}
	_ game.Multiplayer       = Relay{}
)

// Start starts in state 0, as Initial says.
func (Relay) Start(*rand.Rand) int { return 0 }

// Play gives both players the team's reward for the joint action and
// draws the next state.
func (r Relay) Play(s int, actions []int, rewards []float64, rng *rand.Rand) int {
	j := 2*actions[0] + actions[1]
	rewards[0] = r.Reward(s, j, 0)
	rewards[1] = rewards[0]
	return simplex.SampleCategorical(r.Transition(s, j), rng)
}

// Players returns 2.
func (Relay) Players() int { return 2 }

// States returns 2.
func (Relay) States() int { return 2 }

// Actions returns 2 for either player.
func (Relay) Actions(game.Player) int { return 2 }

// Discount returns γ.
func (r Relay) Discount() float64 { return r.Gamma }

// Initial starts in state 0.
func (Relay) Initial() []float64 { return []float64{1, 0} }

// Reward returns the team's reward for the joint action j = 2a + b in
// state s (the same for both players).
func (r Relay) Reward(s, j int, _ game.Player) float64 {
	a, b := j/2, j%2
	switch hits := b2i(a == r.Goal[s][0]) + b2i(b == r.Goal[s][1]); hits {
	case 2:
		return 1
	case 1:
		return 0.25
	}
	return 0
}

// Transition returns the next-state distribution after joint action j in
// state s.
func (r Relay) Transition(s, j int) []float64 {
	p := []float64{0, 0}
	if r.Reward(s, j, 0) == 1 {
		p[1-s], p[s] = r.Move, 1-r.Move
	} else {
		p[s] = 1
	}
	return p
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
