package incontext_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
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
	trajs, err := incontext.Collect(context.Background(), prior, cfg)
	if err != nil {
		t.Fatal(err)
	}
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
	again, err := incontext.Collect(context.Background(), prior, cfg)
	if err != nil || trajectoryHash(again) != trajectoryHash(trajs) {
		t.Errorf("PosteriorExpert labels are not reproducible by seed: %v", err)
	}
	// Errors: decentralized observation, Label, a Markov game, bad Samples.
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
