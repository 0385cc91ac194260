package incontext

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/transformer"
)

// BenchmarkPlay200 plays one online game of 200 rounds on a 3×3 matrix game
// between two models of the paper's size (in-context-games-omd §4: 2
// layers, 4 heads, width 64, feed-forward 256, softmax attention) with
// random weights, which cost the same as trained ones: the evaluation step
// of the experiments (Play, KV-cached decoding, and the duality gap of the
// last iterate).
func BenchmarkPlay200(b *testing.B) {
	const A, T = 3, 200
	g, err := game.RandomUniform(A, A, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	enc := GameEncoder{States: 1, Actions: A}
	cfg := transformer.Config{Layers: 2, Heads: 4, Width: 64, FeedForward: 256,
		Vocab: enc.Vocab(), Outputs: A, MaxLen: enc.Positions(T)}
	row, err := transformer.New[float32](cfg, rand.New(rand.NewPCG(2, 1)))
	if err != nil {
		b.Fatal(err)
	}
	col, err := transformer.New[float32](cfg, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 1))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Play(context.Background(), g, row, col, enc, enc, play.SelfPlayConfig{Rounds: T}, rng); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/T/1e3, "µs/round")
}

// BenchmarkCollect measures the data generation of the experiments
// (Collect): NE-expert trajectories of T = 50 rounds on fresh random 3×3
// matrix games (one trajectory per game, so every game is solved once by
// the LP), on all cores. It reports trajectories per second.
func BenchmarkCollect(b *testing.B) {
	const A, T, games = 3, 50, 256
	prior := func(rng *rand.Rand) (*game.ZeroSum, error) { return game.RandomUniform(A, A, rng) }
	b.ReportAllocs()
	seed := uint64(0)
	for b.Loop() {
		seed++
		if _, err := Collect(context.Background(), prior, CollectConfig{Rounds: T, Games: games, Seed: seed}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*games)/b.Elapsed().Seconds(), "trajectories/s")
}

// labelOnly hides an expert's Follow, so that Collect replays its Label at
// every round: the collector before experts ran online.
type labelOnly struct{ e Expert }

func (l labelOnly) Label(dst []float64, g game.Game, p game.Player, h []learner.Step, s int) error {
	return l.e.Label(dst, g, p, h, s)
}

// BenchmarkCollectOMD measures collection with OMD-expert labels and play
// (in-context-games-omd's theory expert, §4.1) on fresh random 3×3 matrix
// games at T = 200, one trajectory per game, on all cores: online, each
// expert advancing its own OMD one round at a time, and replayed, each
// label replaying the history (O(T²) a trajectory). It reports
// trajectories per second.
func BenchmarkCollectOMD(b *testing.B) {
	const A, T, games = 3, 200, 64
	prior := func(rng *rand.Rand) (*game.ZeroSum, error) { return game.RandomUniform(A, A, rng) }
	for _, c := range []struct {
		name   string
		expert Expert
	}{{"online", OMDExpert{}}, {"replay", labelOnly{OMDExpert{}}}} {
		b.Run(c.name, func(b *testing.B) {
			seed := uint64(0)
			for b.Loop() {
				seed++
				if _, err := Collect(context.Background(), prior, CollectConfig{Rounds: T, Games: games, RowExpert: c.expert, ColExpert: c.expert, Seed: seed}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*games)/b.Elapsed().Seconds(), "trajectories/s")
		})
	}
}
