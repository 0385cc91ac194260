package incontext_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/transformer"
)

// TestEncoderSizes: encoders whose vocabulary or width would overflow or
// could not be allocated are refused by Validate, and Encode returns the
// error instead of slicing out of range.
func TestEncoderSizes(t *testing.T) {
	for _, enc := range []incontext.GameEncoder{
		{States: 1, Actions: 1 << 31, Opponents: 1 << 31, Features: true, Cells: true},
		{States: 1, Actions: 1 << 20, Opponents: 1 << 20, Features: true, Cells: true},
		{States: 1, Actions: 1 << 25},
		{States: 1 << 25, Actions: 2},
		{States: 1, Actions: 2, Opponents: 1 << 25},
		{States: 1, Actions: 2, RewardBins: 1 << 25},
	} {
		if err := enc.Validate(); !errors.Is(err, icrl.ErrTooLarge) {
			t.Errorf("%+v: Validate %v, want ErrTooLarge", enc, err)
		}
		if _, _, _, err := incontext.Encode[int](enc, []incontext.Round[int]{{}}, 0); !errors.Is(err, icrl.ErrTooLarge) {
			t.Errorf("%+v: Encode %v, want ErrTooLarge", enc, err)
		}
	}
	for _, enc := range []incontext.BanditEncoder{{Dim: 1 << 31, Arms: 1 << 31}, {Dim: 1 << 12, Arms: 1 << 12}} {
		if err := enc.Validate(); !errors.Is(err, icrl.ErrTooLarge) {
			t.Errorf("%+v: Validate %v, want ErrTooLarge", enc, err)
		}
	}
	if err := (incontext.BanditEncoder{Dim: 5, Arms: 10}).Validate(); err != nil {
		t.Errorf("BanditEncoder 5 × 10: %v", err)
	}
	ok := incontext.GameEncoder{States: 2, Actions: 3, Opponents: 4, Features: true, Cells: true}
	if err := ok.Validate(); err != nil {
		t.Errorf("%+v: %v", ok, err)
	}
}

// TestExpertsTypedNil: every expert given a typed nil game returns an
// error (or, for Uniform's label, needs no game) instead of dereferencing
// it.
func TestExpertsTypedNil(t *testing.T) {
	var g *game.ZeroSum
	dst := make([]float64, 2)
	for name, e := range map[string]incontext.Expert{"OMD": incontext.OMDExpert{}, "NE": &incontext.NEExpert{}} {
		if err := e.Label(dst, g, game.RowPlayer, nil, 0); !errors.Is(err, icrl.ErrNil) {
			t.Errorf("%s expert Label of a typed nil game: %v, want ErrNil", name, err)
		}
	}
	for name, e := range map[string]incontext.OnlineExpert{"OMD": incontext.OMDExpert{}, "NE": &incontext.NEExpert{}, "Uniform": incontext.Uniform{}, "Posterior": incontext.PosteriorExpert{}} {
		if _, err := e.Follow(g, game.RowPlayer, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, icrl.ErrNil) {
			t.Errorf("%s expert Follow of a typed nil game: %v, want ErrNil", name, err)
		}
	}
}

// TestCollectHugeRounds: a collection that could never be held is refused
// before anything is allocated.
func TestCollectHugeRounds(t *testing.T) {
	prior := func(*rand.Rand) (*game.ZeroSum, error) { return game.MatchingPennies(), nil }
	for _, cfg := range []incontext.CollectConfig{{Rounds: 1 << 62, Games: 1}, {Rounds: 1 << 40, Games: 1}, {Rounds: 1 << 20, Games: 64}} {
		if _, err := incontext.Collect(context.Background(), prior, cfg); !errors.Is(err, icrl.ErrTooLarge) {
			t.Errorf("Collect %d rounds × %d games: %v, want ErrTooLarge", cfg.Rounds, cfg.Games, err)
		}
	}
}

// TestJointEncoderMismatch: a joint-action encoder sized for another
// number of opponent actions is refused by Play and, through the engine,
// by Collect with a learner over it.
func TestJointEncoderMismatch(t *testing.T) {
	g := game.MustZeroSum([][]float64{{1, 0, 0.5}, {0, 1, 0.5}}) // 2×3
	cfgModel := transformer.Config{Layers: 1, Heads: 1, Width: 8, FeedForward: 8}
	for _, opp := range []int{2, 4} {
		enc := incontext.GameEncoder{States: 1, Actions: 2, Opponents: opp}
		colEnc := incontext.GameEncoder{States: 1, Actions: 3}
		vocab, _, _ := enc.Shape()
		mc := cfgModel
		mc.Vocab, mc.Outputs, mc.MaxLen = vocab, 2, 64
		m, err := transformer.New[float32](mc, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		cv, _, _ := colEnc.Shape()
		mc.Vocab, mc.Outputs = cv, 3
		cm, err := transformer.New[float32](mc, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = incontext.Play(context.Background(), g, m, cm, enc, colEnc, play.SelfPlayConfig{Rounds: 5, Observation: learner.JointActions}, rand.New(rand.NewPCG(1, 1)))
		if !errors.Is(err, icrl.ErrInvalid) {
			t.Errorf("Play with a joint encoder for %d opponent actions in a 2×3 game: %v, want ErrInvalid", opp, err)
		}
		row := func() (learner.Learner, error) { return incontext.NewLearner(m, enc, incontext.Config{}) }
		_, err = incontext.Collect(context.Background(), func(*rand.Rand) (*game.ZeroSum, error) { return g, nil },
			incontext.CollectConfig{Rounds: 5, Games: 1, RowLearner: row, Observation: learner.JointActions})
		if !errors.Is(err, icrl.ErrShape) {
			t.Errorf("Collect with a row learner over a joint encoder for %d opponent actions: %v, want ErrShape", opp, err)
		}
	}
}
