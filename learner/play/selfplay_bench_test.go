package play_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

// benchGame is a 3×3 game in [0,1]: biased rock-paper-scissors rescaled.
var benchGame = func() *game.ZeroSum {
	g, _, err := game.Rescale(game.BiasedRPS(), -0.5, 0.5)
	if err != nil {
		panic(err)
	}
	return g
}()

// constPolicy is a learner that plays a fixed policy and ignores feedback.
type constPolicy []float64

func (c constPolicy) Policy(int) []float64                 { return c }
func (c constPolicy) Observe(int, int, float64, int) error { return nil }
func (c constPolicy) ObserveRewards(r []float64) error     { return nil }
func (c constPolicy) Reset()                               {}

// BenchmarkSelfPlay1e6 plays 10⁶ rounds of self-play on a 3×3 game per
// iteration and reports the cost per round (both players' sampling, reward
// draw and updates). "Fixed" measures SelfPlay's own overhead with
// learners that do nothing.
func BenchmarkSelfPlay1e6(b *testing.B) {
	const rounds = 1_000_000
	type pair struct {
		name     string
		feedback play.Feedback
		make     func() (learner.Learner, learner.Learner, error)
	}
	mk := func(f func() (learner.Learner, error)) func() (learner.Learner, learner.Learner, error) {
		return func() (learner.Learner, learner.Learner, error) {
			x, err := f()
			if err != nil {
				return nil, nil, err
			}
			y, err := f()
			return x, y, err
		}
	}
	pairs := []pair{
		{"Fixed", play.Bandit, mk(func() (learner.Learner, error) {
			return constPolicy{0.25, 0.5, 0.25}, nil
		})},
		{"MWU", play.Bandit, mk(func() (learner.Learner, error) {
			return learner.NewMWU(learner.MWUConfig{Actions: 3, Eta: 0.01, Floor: 0.05})
		})},
		{"OptimisticMWU", play.Bandit, mk(func() (learner.Learner, error) {
			return learner.NewOptimisticMWU(learner.MWUConfig{Actions: 3, Eta: 0.01, Floor: 0.05})
		})},
		{"OptimisticMWU/full", play.FullInformation, mk(func() (learner.Learner, error) {
			return learner.NewOptimisticMWU(learner.MWUConfig{Actions: 3, Eta: 0.1})
		})},
		{"Exp3IX", play.Bandit, mk(func() (learner.Learner, error) {
			return learner.NewExp3IX(learner.Exp3IXConfig{Actions: 3, Horizon: rounds})
		})},
		{"RM+", play.Bandit, mk(func() (learner.Learner, error) {
			return learner.NewRegretMatching(learner.RegretMatchingConfig{Actions: 3, Plus: true, Floor: 0.05})
		})},
		{"OMD", play.Bandit, mk(func() (learner.Learner, error) {
			return learner.NewOMD(learner.OMDConfig{Actions: 3})
		})},
	}
	for _, p := range pairs {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			rng := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				x, y, err := p.make()
				if err != nil {
					b.Fatal(err)
				}
				cfg := play.SelfPlayConfig{Rounds: rounds, Feedback: p.feedback}
				if _, err := play.SelfPlay(context.Background(), benchGame, x, y, cfg, rng); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rounds, "ns/round")
		})
	}
}
