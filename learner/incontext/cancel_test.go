package incontext_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/transformer"
)

// TestCancelWithin200ms: Collect, Pretrain and Play, given work of many
// seconds, return ctx's error within 200 ms of the cancel.
func TestCancelWithin200ms(t *testing.T) {
	prior := func(rng *rand.Rand) (*game.ZeroSum, error) { return game.RandomUniform(3, 3, rng) }
	enc := incontext.GameEncoder{States: 1, Actions: 3}
	small, err := incontext.Collect(context.Background(), prior, incontext.CollectConfig{Rounds: 20, Games: 64, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	model := icModel[float32](t, enc, enc.Positions(4096), 1)
	g, _ := prior(rand.New(rand.NewPCG(1, 1)))
	for _, c := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"Collect", func(ctx context.Context) error {
			_, err := incontext.Collect(ctx, prior, incontext.CollectConfig{Rounds: 1 << 20, Games: 4, RowExpert: incontext.OMDExpert{}, ColExpert: incontext.OMDExpert{}})
			return err
		}},
		{"Pretrain", func(ctx context.Context) error {
			_, _, err := incontext.Pretrain(ctx, incontext.Views(small, game.RowPlayer), enc, incontext.PretrainConfig[float32]{Train: transformer.TrainConfig[float32]{Steps: 1 << 30}})
			return err
		}},
		{"Play", func(ctx context.Context) error {
			_, err := incontext.Play(ctx, g, model, model, enc, enc, learner.SelfPlayConfig{Rounds: 1 << 30}, rand.New(rand.NewPCG(2, 2)))
			return err
		}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		at := make(chan time.Time, 1)
		time.AfterFunc(100*time.Millisecond, func() { at <- time.Now(); cancel() })
		err := c.run(ctx)
		cancelled := <-at
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", c.name, err)
			continue
		}
		if d := time.Since(cancelled); d > 200*time.Millisecond && !raceEnabled {
			t.Errorf("%s returned %v after the cancel, want at most 200 ms", c.name, d)
		}
	}
}
