package incontext_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nested"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/markov"
)

// TestPosteriorExpertLabels: in the 2×1 game [[1], [0]] with exact rewards
// and the Beta(1, 1) prior, the row label before any round is uniform and
// after one round it is (2/3, 1/3) whichever row was played: after row 0
// (reward 1) θ₀ ~ Beta(2, 1) and P(θ₀ > θ₁) = ∫ 2x·x dx = 2/3; after row 1
// (reward 0) θ₁ ~ Beta(1, 2) and P(θ₀ > θ₁) = 1 − E[θ₁] = 2/3. The column
// player, with one action, is labelled (1).
func TestPosteriorExpertLabels(t *testing.T) {
	prior := func(*rand.Rand) (*game.ZeroSum, error) { return game.NewZeroSumDense(2, 1, []float64{1, 0}) }
	e := incontext.PosteriorExpert{Samples: 20000}
	cfg := incontext.CollectConfig{Rounds: 2, Games: 4, Noise: game.Exact{}, RowExpert: e, ColExpert: e,
		Observation: learner.JointActions, Seed: 5}
	trajs := collectTwice(t, "PosteriorExpert labels", prior, cfg)
	for k, tr := range trajs {
		row, col := tr.Players[0].Labels, tr.Players[1].Labels
		if row[0][0] != 0.5 || row[0][1] != 0.5 {
			t.Errorf("game %d: first row label %v, want uniform", k, row[0])
		}
		// std of the estimate: √(2/9 / 20000) ≈ 0.0033.
		if math.Abs(row[1][0]-2.0/3) > 0.015 || math.Abs(row[1][0]+row[1][1]-1) > 1e-12 {
			t.Errorf("game %d: second row label %v, want (2/3, 1/3)", k, row[1])
		}
		if col[0][0] != 1 || col[1][0] != 1 {
			t.Errorf("game %d: column labels %v, want (1)", k, col)
		}
	}
	// Errors: decentralized observation, Label, nil arguments, an invalid
	// player, bad Samples and PriorWeight.
	dec := cfg
	dec.Observation = learner.Decentralized
	if _, err := incontext.Collect(context.Background(), prior, dec); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("decentralized collection: %v, want ErrInvalid", err)
	}
	if err := e.Label(make([]float64, 2), nil, game.RowPlayer, nil, 0); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("Label = %v, want ErrInvalid", err)
	}
	g, _ := game.NewZeroSumDense(2, 1, []float64{1, 0})
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		e   incontext.PosteriorExpert
		g   game.Game
		rng *rand.Rand
		p   game.Player
		err error
	}{
		{e, nil, rng, game.RowPlayer, icrl.ErrNil},
		{e, g, nil, game.RowPlayer, icrl.ErrNil},
		{e, g, rng, game.Player(7), icrl.ErrInvalid},
		{incontext.PosteriorExpert{Samples: -1}, g, rng, game.RowPlayer, icrl.ErrInvalid},
		{incontext.PosteriorExpert{PriorWeight: math.NaN()}, g, rng, game.RowPlayer, icrl.ErrInvalid},
	} {
		if _, err := c.e.Follow(c.g, c.p, c.rng); !errors.Is(err, c.err) {
			t.Errorf("Follow(%+v, %v, %v) = %v, want %v", c.e, c.g, c.p, err, c.err)
		}
	}
}

// TestPosteriorExpertNoise: in the 2×1 game [[0.6], [0.4]] with rewards
// uniform within 0.05 of the mean, once both rows have been observed the
// posteriors of the two means lie in disjoint intervals around 0.6 and
// 0.4, so with NoiseHalfWidth every posterior draw's equilibrium is row 0
// and the label is exactly (1, 0); the Bernoulli posterior, which does not
// know the noise is that small, still hedges.
func TestPosteriorExpertNoise(t *testing.T) {
	prior := func(*rand.Rand) (*game.ZeroSum, error) { return game.NewZeroSumDense(2, 1, []float64{0.6, 0.4}) }
	for _, half := range []float64{0.05, 0} {
		e := incontext.PosteriorExpert{Samples: 64, NoiseHalfWidth: half}
		cfg := incontext.CollectConfig{Rounds: 12, Games: 6, Noise: game.UniformNoise{HalfWidth: 0.05}, RowExpert: e, ColExpert: e,
			RowContext: incontext.Uniform{}, ColContext: incontext.Uniform{}, Observation: learner.JointActions, Seed: 3}
		trajs, err := incontext.Collect(context.Background(), prior, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for k, tr := range trajs {
			row := tr.Players[0]
			var seen [2]bool
			for r, lab := range row.Labels {
				if !seen[0] || !seen[1] {
					seen[row.Rounds[r].Action] = true
					continue
				}
				checked++
				exact := lab[0] == 1 && lab[1] == 0
				if half > 0 && !exact {
					t.Errorf("game %d round %d: label %v with the noise's posterior, want (1, 0)", k, r, lab)
				}
				if half == 0 && exact {
					t.Errorf("game %d round %d: label %v with the Bernoulli posterior, want a hedge", k, r, lab)
				}
			}
		}
		if checked == 0 {
			t.Fatal("no round after both rows were observed")
		}
	}
}

// TestPosteriorExpertMarkov: in a two-state game (γ = 0.9, the row player
// with 2 actions, the column player with 3 that change nothing) whose
// state 0 pays 0 whatever is played, row action 0 leads to state 1 and
// action 1 stays in state 0, and state 1 pays 1 for row action 0 and 0 for
// action 1 (then back to state 0 with probability ½), the row player's
// equilibrium is action 0 in both states: in state 0 only through the
// transitions and the value of state 1. After 200 uniformly played rounds
// the labels of the Markov posterior (markov.PosteriorNash) put at least
// 0.9 on action 0 in both states; a reader of state 0's rewards alone
// could not prefer either action. The labels are reproducible by seed, and
// a Markov game without a discount, or a prior the Markov posterior does
// not have, is refused.
func TestPosteriorExpertMarkov(t *testing.T) {
	rewards := [][][]float64{{{0, 0, 0}, {0, 0, 0}}, {{1, 1, 1}, {0, 0, 0}}}
	go0, stay0 := []float64{0, 1}, []float64{1, 0}
	back := []float64{0.5, 0.5}
	kernel := [][][]float64{{go0, go0, go0, stay0, stay0, stay0}, {back, back, back, back, back, back}}
	k, err := markov.NewDenseKernel(nested.Dense3(kernel))
	if err != nil {
		t.Fatal(err)
	}
	g, err := markov.NewDiscounted(nested.Dense3(rewards), k, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	prior := func(*rand.Rand) (*markov.Discounted, error) { return g, nil }
	e := incontext.PosteriorExpert{Samples: 8}
	cfg := incontext.CollectConfig{Rounds: 200, Games: 1, Noise: game.Exact{}, RowExpert: e, ColExpert: e,
		RowContext: incontext.Uniform{}, ColContext: incontext.Uniform{}, Observation: learner.JointActions, Seed: 9}
	trajs, err := incontext.Collect(context.Background(), prior, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for k, tr := range trajs {
		row := tr.Players[0]
		var last [2][]float64
		for r, lab := range row.Labels {
			last[row.Rounds[r].Obs] = lab
		}
		for s, lab := range last {
			if lab == nil || lab[0] < 0.9 || math.Abs(lab[0]+lab[1]-1) > 1e-9 {
				t.Errorf("game %d: last row label in state %d %v, want at least 0.9 on action 0", k, s, lab)
			}
		}
		if col := tr.Players[1].Labels[0]; len(col) != 3 {
			t.Errorf("game %d: column label %v, want 3 actions", k, col)
		}
	}
	short := cfg
	short.Rounds = 20
	collectTwice(t, "Markov PosteriorExpert labels", prior, short)
	rng := rand.New(rand.NewPCG(1, 2))
	if _, err := (incontext.PosteriorExpert{PriorWeight: 0.03}).Follow(g, game.RowPlayer, rng); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("Follow with PriorWeight 0.03 in a Markov game = %v, want ErrInvalid", err)
	}
	if _, err := (incontext.PosteriorExpert{PriorWeight: 0.03, NoiseHalfWidth: 0.0866}).Follow(g, game.RowPlayer, rng); err != nil {
		t.Errorf("Follow with NoiseHalfWidth in a Markov game = %v, want nil", err)
	}
	if _, err := e.Follow(undiscounted{g}, game.RowPlayer, rng); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("Follow in a Markov game without a discount = %v, want ErrInvalid", err)
	}
}

// undiscounted hides the discount of a Markov game.
type undiscounted struct{ game.Game }
