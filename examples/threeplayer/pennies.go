package main

import (
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
)

// Pennies is the caller's own three-player game, written as one plain Go
// struct that is both the simulator (game.Multiplayer: Players, States,
// Actions, Start, Play) and the model (markov.GeneralSumModel: the same
// Players, States and Actions, and Discount, Initial, Reward, Transition):
// Jordan's three-player matching pennies ("Three problems in learning
// mixed-strategy Nash equilibria", Games and Economic Behavior 5, 1993),
// with payoffs in [0, 1]. Each player shows heads (0) or tails (1); player
// 0 scores 0.75 when it matches player 1, player 1 when it matches player
// 2, player 2 when it differs from player 0, and player p earns Bonus[p]/4
// more for tails. Its only Nash equilibrium is mixed, and no-regret
// dynamics cycle around it, while their empirical joint play approaches
// the set of coarse correlated equilibria.
type Pennies struct {
	// Bonus holds each player's extra reward for tails, in [0, 1].
	Bonus [3]float64
}

// Compile-time checks: one struct, simulator and model.
var (
	_ game.Multiplayer       = Pennies{}
	_ markov.GeneralSumModel = Pennies{}
)

// Players returns 3.
func (Pennies) Players() int { return 3 }

// States returns 1: a repeated normal-form game.
func (Pennies) States() int { return 1 }

// Actions returns 2: heads or tails.
func (Pennies) Actions(game.Player) int { return 2 }

// Start returns state 0.
func (Pennies) Start(*rand.Rand) int { return 0 }

// Discount returns 0: each round's reward counts alone.
func (Pennies) Discount() float64 { return 0 }

// Initial starts in the one state.
func (Pennies) Initial() []float64 { return []float64{1} }

// Transition stays in the one state.
func (Pennies) Transition(int, int) []float64 { return []float64{1} }

// Reward returns player p's reward for the joint action j = 4a₀ + 2a₁ + a₂
// (player 0 most significant, the flat index of package markov).
func (g Pennies) Reward(_, j int, p game.Player) float64 {
	a := [3]int{j >> 2, j >> 1 & 1, j & 1}
	var hit bool
	switch p {
	case 0:
		hit = a[0] == a[1]
	case 1:
		hit = a[1] == a[2]
	case 2:
		hit = a[2] != a[0]
	}
	r := 0.25 * float64(a[p]) * g.Bonus[p]
	if hit {
		r += 0.75
	}
	return r
}

// Play stores the players' rewards for the joint action and stays in the
// one state.
func (g Pennies) Play(_ int, actions []int, rewards []float64, _ *rand.Rand) int {
	j := 4*actions[0] + 2*actions[1] + actions[2]
	for p := range rewards {
		rewards[p] = g.Reward(0, j, game.Player(p))
	}
	return 0
}
