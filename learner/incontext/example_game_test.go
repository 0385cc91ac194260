package incontext_test

import (
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
)

// HideAndSeek is a caller's own game, written as a plain Go struct with no
// help from the library's game types: a seeker (the row player) and a hider
// (the column player) each pick one of two hiding places. By day (state 0)
// the seeker scores 1 when it picks the hider's place; at night (state 1)
// it finds the hider there only with probability 0.6, and stumbles on it
// elsewhere with probability 0.2. The weather changes with probability
// FlipProb after every round.
type HideAndSeek struct {
	FlipProb float64
}

// States returns 2: day and night.
func (g *HideAndSeek) States() int { return 2 }

// Actions returns 2 places for either player.
func (g *HideAndSeek) Actions(game.Player) int { return 2 }

// Start begins by day.
func (g *HideAndSeek) Start(*rand.Rand) int { return 0 }

// Step returns the seeker's reward and the next state.
func (g *HideAndSeek) Step(s, seek, hide int, rng *rand.Rand) (float64, int) {
	p := 0.0
	switch {
	case seek == hide && s == 0:
		p = 1
	case seek == hide:
		p = 0.6
	case s == 1:
		p = 0.2
	}
	r := 0.0
	if rng.Float64() < p {
		r = 1
	}
	if rng.Float64() < g.FlipProb {
		s = 1 - s
	}
	return r, s
}
