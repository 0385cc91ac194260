package learner_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

// TestPosteriorNashTinyPrior: prior weights far below 1 keep the Beta
// draws valid (no panic, no error), and the learner counts the round.
func TestPosteriorNashTinyPrior(t *testing.T) {
	for _, w := range []float64{1e-17, 1e-300} {
		p, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 2, PriorWeight: w, Samples: 3, Rand: rand.New(rand.NewPCG(1, 1))})
		if err != nil {
			t.Fatal(err)
		}
		for k, r := range []float64{1, 0, 1} {
			if err := p.ObserveJoint(0, k%2, 0, r, 0); err != nil {
				t.Fatalf("w = %v, round %d: %v", w, k+1, err)
			}
		}
		if p.Rounds() != 3 {
			t.Errorf("w = %v: %d rounds counted, want 3", w, p.Rounds())
		}
		if err := simplex.CheckDistribution("policy", p.Policy(0), 2); err != nil {
			t.Errorf("w = %v: %v", w, err)
		}
		// Action 0 against column 0 paid 1 twice with no prior to speak
		// of: the posterior draws put it at 1, above action 1's 0.
		if x := p.Policy(0)[0]; !(x > 0.5) || math.IsNaN(x) {
			t.Errorf("w = %v: policy %v, want action 0 preferred", w, p.Policy(0))
		}
	}
}

// TestOpponentsMismatch: a joint learner built for another number of
// opponent actions is refused under joint-action observation, by SelfPlay
// and by the engine, and accepted for the right game.
func TestOpponentsMismatch(t *testing.T) {
	g23 := game.MustZeroSum([][]float64{{1, 0, 0.5}, {0, 1, 0.5}})
	for _, opp := range []int{2, 4} {
		row, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: opp})
		if err != nil {
			t.Fatal(err)
		}
		col, _ := learner.NewMWU(learner.MWUConfig{Actions: 3})
		_, err = play.SelfPlay(context.Background(), g23, row, col, play.SelfPlayConfig{Rounds: 10, Observation: learner.JointActions}, rand.New(rand.NewPCG(1, 1)))
		if !errors.Is(err, icrl.ErrShape) {
			t.Errorf("SelfPlay with a PosteriorNash for %d columns in a 2×3 game: %v, want ErrShape", opp, err)
		}
		_, err = play.Run(context.Background(), game.AsMultiplayer(g23), []learner.Learner{row, col}, play.Config{Rounds: 10, Observation: learner.JointActions}, rand.New(rand.NewPCG(1, 1)))
		if !errors.Is(err, icrl.ErrShape) {
			t.Errorf("Play with a PosteriorNash for %d columns in a 2×3 game: %v, want ErrShape", opp, err)
		}
	}
	row, _ := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 3})
	col, _ := learner.NewMWU(learner.MWUConfig{Actions: 3})
	if _, err := play.SelfPlay(context.Background(), g23, row, col, play.SelfPlayConfig{Rounds: 10, Observation: learner.JointActions}, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Errorf("the right PosteriorNash: %v", err)
	}
}

// TestRecordHugeRounds: recording a run whose Rounds could never be held
// allocates by the round, not all at once: cancellation ends it with the
// rounds played.
func TestRecordHugeRounds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	row, _ := learner.NewMWU(learner.MWUConfig{Actions: 3})
	col, _ := learner.NewMWU(learner.MWUConfig{Actions: 2})
	res, err := play.SelfPlay(ctx, game32, row, col, play.SelfPlayConfig{Rounds: 1 << 62, Record: true}, rand.New(rand.NewPCG(1, 1)))
	if !errors.Is(err, context.Canceled) || res == nil || len(res.Row) != 63 {
		t.Fatalf("cancelled huge recorded self-play: %v rounds, %v", len(res.Row), err)
	}
}
