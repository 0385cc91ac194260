package markov_test

import (
	"errors"
	"math"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/tables"
	"github.com/icrl-go/icrl/markov"
)

// ticker is a caller's episodic two-player game whose rewards change with
// the step: r₀ = (h+1)·base[s][j]/4, r₁ = c − r₀, on the two states of
// tables.TwoState.
type ticker struct {
	c         float64
	initial   []float64
	badRow    bool // a transition of one entry
	halfRow   bool // a transition summing to ½
	nan       bool // NaN rewards
	noHorizon bool // horizon 0
}

var tickerBase = [2][4]float64{{0.8, 0.6, 0.3, 0.1}, {0.5, 0.9, 0.2, 0.4}}

func (ticker) Players() int            { return 2 }
func (ticker) States() int             { return 2 }
func (ticker) Actions(game.Player) int { return 2 }
func (t ticker) Horizon() int {
	if t.noHorizon {
		return 0
	}
	return 3
}
func (t ticker) Initial() []float64 { return t.initial }
func (t ticker) StepReward(h, s, j int, p game.Player) float64 {
	r := float64(h+1) * tickerBase[s][j] / 4
	if t.nan {
		r = math.NaN()
	}
	if p == 1 {
		return t.c - r
	}
	return r
}
func (t ticker) StepTransition(h, s, j int) []float64 {
	if t.badRow {
		return []float64{1}
	}
	if t.halfRow {
		return []float64{0.25, 0.25}
	}
	return tables.TwoState(3)[h][s][j]
}

// TestTabulateEpisodic: a caller's time-varying model becomes the table
// of its methods; a constant-sum game is zero-sum, with the zero-sum
// game's NE-gap; bad models give errors.
func TestTabulateEpisodic(t *testing.T) {
	g, err := markov.TabulateEpisodic(ticker{c: 1, initial: []float64{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	// The transitions are the same at every step, stored once.
	if g.Start() != 1 || !g.TimeHomogeneous() || !g.ZeroSum() || g.ConstantSum() != 1 || g.Cooperative() {
		t.Fatalf("start %d, homogeneous %v, zero-sum %v (c = %v), team %v", g.Start(), g.TimeHomogeneous(), g.ZeroSum(), g.ConstantSum(), g.Cooperative())
	}
	for h := range 3 {
		for s := range 2 {
			for j := range 4 {
				want := ticker{c: 1}.StepReward(h, s, j, 0)
				if g.StepReward(h, s, j, 0) != want || g.StepReward(h, s, j, 1) != 1-want {
					t.Fatalf("r(%d, %d, %d) = %v, %v", h, s, j, g.StepReward(h, s, j, 0), g.StepReward(h, s, j, 1))
				}
			}
		}
	}
	// The same game with r₁ = −r₀.
	z, err := markov.TabulateEpisodic(ticker{c: 0, initial: []float64{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if z.ConstantSum() != 0 {
		t.Fatalf("zero-sum game's constant %v", z.ConstantSum())
	}
	mu, nu := markov.UniformPolicy(3, 2, 2), markov.UniformPolicy(3, 2, 2)
	mu.Set(0.9, 0, 1, 0)
	mu.Set(0.1, 0, 1, 1)
	gc, err := g.ZeroSumNEGap(mu, nu)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := z.ZeroSumNEGap(mu, nu)
	if err != nil {
		t.Fatal(err)
	}
	if !(gz > 0.01) || math.Abs(gc-gz) > 1e-12 {
		t.Errorf("NE-gap %v in the constant-sum game, %v in the zero-sum one", gc, gz)
	}
	var typedNil *markov.Episodic
	for _, c := range []struct {
		name string
		m    markov.EpisodicModel
		want error
	}{
		{"nil", nil, icrl.ErrEmpty},
		{"typed nil", typedNil, icrl.ErrEmpty},
		{"zero table", &markov.Episodic{}, icrl.ErrEmpty},
		{"spread initial distribution", ticker{initial: []float64{0.5, 0.5}}, icrl.ErrInvalid},
		{"short initial distribution", ticker{initial: []float64{1}}, icrl.ErrShape},
		{"short transition", ticker{initial: []float64{1, 0}, badRow: true}, icrl.ErrShape},
		{"transition summing to ½", ticker{initial: []float64{1, 0}, halfRow: true}, markov.ErrKernel},
		{"NaN reward", ticker{initial: []float64{1, 0}, nan: true}, icrl.ErrNotFinite},
		{"no step", ticker{initial: []float64{1, 0}, noHorizon: true}, icrl.ErrEmpty},
	} {
		if _, err := markov.TabulateEpisodic(c.m); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// A table enters as itself.
	if same, err := markov.TabulateEpisodic(g); same != g || err != nil {
		t.Errorf("a table tabulated to %p (%v), want itself", same, err)
	}
}
