package incontext_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/transformer"
)

// TestCancel: Collect, Pretrain and Play, given seconds of work, stop
// when the context is cancelled and return ctx's error, with the work done
// so far where they report it (Pretrain's steps, Play's rounds). The
// budgets take seconds, so a missing context check fails the test within
// seconds (the run completes without an error), not at the test timeout.
func TestCancel(t *testing.T) {
	prior := func(rng *rand.Rand) (*game.ZeroSum, error) { return game.RandomUniform(3, 3, rng) }
	enc := incontext.GameEncoder{States: 1, Actions: 3}
	small, err := incontext.Collect(context.Background(), prior, incontext.CollectConfig{Rounds: 20, Games: 64, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	model := icModel[float32](t, enc, enc.Positions(4096), 1)
	g, _ := prior(rand.New(rand.NewPCG(1, 1)))
	const steps, rounds = 300, 4096
	for _, c := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"Collect", func(ctx context.Context) error {
			_, err := incontext.Collect(ctx, prior, incontext.CollectConfig{Rounds: 1 << 20, Games: 4, RowExpert: incontext.OMDExpert{}, ColExpert: incontext.OMDExpert{}})
			return err
		}},
		{"Pretrain", func(ctx context.Context) error {
			_, res, err := incontext.Pretrain(ctx, incontext.Views(small, game.RowPlayer), enc, incontext.PretrainConfig[float32]{Train: transformer.TrainConfig[float32]{Steps: steps}})
			if res.Steps >= steps {
				t.Errorf("Pretrain took all %d steps", res.Steps)
			}
			return err
		}},
		{"Play", func(ctx context.Context) error {
			res, err := incontext.Play(ctx, g, model, model, enc, enc, play.SelfPlayConfig{Rounds: rounds}, rand.New(rand.NewPCG(2, 2)))
			if res != nil && res.Visits[0] >= rounds {
				t.Errorf("Play played all %d rounds", res.Visits[0])
			}
			return err
		}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		if err := c.run(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", c.name, err)
		}
	}
}
