package markov_test

import (
	"errors"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/tables"
	"github.com/icrl-go/icrl/markov"
)

// relay is a caller's own two-player, two-state team written as a plain
// struct: in state 0 the team scores when the actions match, in state 1
// when they differ; matching moves to state 1 with probability Move.
type relay struct {
	Move  float64
	Gamma float64
}

func (relay) Players() int            { return 2 }
func (relay) States() int             { return 2 }
func (relay) Actions(game.Player) int { return 2 }
func (r relay) Discount() float64     { return r.Gamma }
func (relay) Initial() []float64      { return []float64{1, 0} }
func (relay) Reward(s, j int, _ game.Player) float64 {
	match := j/2 == j%2
	if (s == 0) == match {
		return 1
	}
	return 0
}
func (r relay) Transition(s, j int) []float64 {
	if j/2 == j%2 {
		return []float64{1 - r.Move, r.Move}
	}
	return []float64{1, 0}
}

func TestTabulate(t *testing.T) {
	m := relay{Move: 0.3, Gamma: 0.9}
	g, err := markov.Tabulate(m)
	if err != nil {
		t.Fatal(err)
	}
	want, err := tables.Cooperative([]int{2, 2},
		[][]float64{{1, 0, 0, 1}, {0, 1, 1, 0}},
		[][][]float64{{{0.7, 0.3}, {1, 0}, {1, 0}, {0.7, 0.3}}, {{0.7, 0.3}, {1, 0}, {1, 0}, {0.7, 0.3}}},
		0.9, []float64{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Cooperative() || g.Players() != 2 || g.States() != 2 || g.NumJoint() != 4 || g.Discount() != 0.9 {
		t.Fatalf("tabulated game: cooperative %v, N %d, S %d, J %d, γ %v", g.Cooperative(), g.Players(), g.States(), g.NumJoint(), g.Discount())
	}
	for s := range 2 {
		for j := range 4 {
			for i := range 2 {
				if g.Reward(s, j, game.Player(i)) != want.Reward(s, j, game.Player(i)) {
					t.Errorf("r_%d(%d, %d) = %v, want %v", i, s, j, g.Reward(s, j, game.Player(i)), want.Reward(s, j, game.Player(i)))
				}
			}
			for s2, p := range g.Transition(s, j) {
				if p != want.Transition(s, j)[s2] {
					t.Errorf("P(%d|%d, %d) = %v, want %v", s2, s, j, p, want.Transition(s, j)[s2])
				}
			}
		}
	}
	pi := want.UniformPolicies()
	v1, err := g.Values(pi)
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := want.Values(pi)
	if v1[0][0] != v2[0][0] || v1[1][1] != v2[1][1] {
		t.Errorf("values %v, want %v", v1, v2)
	}
	if same, err := markov.Tabulate(want); err != nil || same != want {
		t.Errorf("Tabulate of a *DiscountedGeneralSum = %p, %v; want the same game", same, err)
	}
	var typedNil *markov.DiscountedGeneralSum
	for name, m := range map[string]markov.GeneralSumModel{"nil": nil, "typed nil": typedNil, "zero": &markov.DiscountedGeneralSum{}} {
		if _, err := markov.Tabulate(m); !errors.Is(err, icrl.ErrEmpty) {
			t.Errorf("%s: %v, want ErrEmpty", name, err)
		}
	}
	if _, err := markov.Tabulate(relay{Move: 1.5, Gamma: 0.9}); !errors.Is(err, markov.ErrKernel) {
		t.Errorf("a transition with probability -0.5: %v, want ErrKernel", err)
	}
	if _, err := markov.Tabulate(relay{Move: 0.3, Gamma: 1}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("γ = 1: %v, want ErrInvalid", err)
	}
}
