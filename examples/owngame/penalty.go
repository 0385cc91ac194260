package main

import (
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
)

// Penalty is the caller's own game: a plain Go struct that implements
// game.Game with four methods and nothing else from the library. A kicker
// (the row player) shoots left or right, a keeper (the column player) dives
// left or right. A fresh keeper (state 0) stops a shot to the side it dives
// to with probability 0.7 and one to the other side with probability 0.1; a
// tired keeper (state 1) with probabilities 0.4 and 0.05. After a save the
// keeper tires with probability Tire; after a goal it is fresh again. The
// kicker's reward is 1 for a goal.
type Penalty struct {
	Tire float64
}

// Compile-time check: Penalty is a game.Game.
var _ game.Game = (*Penalty)(nil)

// States returns 2: a fresh and a tired keeper.
func (p *Penalty) States() int { return 2 }

// Actions returns 2 sides for either player.
func (p *Penalty) Actions(game.Player) int { return 2 }

// Start begins with a fresh keeper.
func (p *Penalty) Start(*rand.Rand) int { return 0 }

// Step plays one kick and returns the kicker's reward and the keeper's
// next state.
func (p *Penalty) Step(s, shot, dive int, rng *rand.Rand) (float64, int) {
	save := [2][2]float64{{0.1, 0.7}, {0.05, 0.4}}[s][b2i(shot == dive)]
	if rng.Float64() < save {
		if rng.Float64() < p.Tire {
			return 0, 1
		}
		return 0, s
	}
	return 1, 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
