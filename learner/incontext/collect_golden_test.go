package incontext_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
)

// collectTwice collects cfg's trajectories twice and reports an error
// naming what if the two collections differ (trajectoryHash); it returns
// the first.
func collectTwice[G game.Game](t *testing.T, what string, prior func(*rand.Rand) (G, error), cfg incontext.CollectConfig) []incontext.GameTrajectory {
	t.Helper()
	a, err := incontext.Collect(context.Background(), prior, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := incontext.Collect(context.Background(), prior, cfg)
	if err != nil || trajectoryHash(a) != trajectoryHash(b) {
		t.Errorf("%s are not reproducible by seed: %v", what, err)
	}
	return a
}

// trajectoryHash is the SHA-256 of every state, action, reward, label and
// final state of trajs, bit for bit.
func trajectoryHash(trajs []incontext.GameTrajectory) string {
	h := sha256.New()
	var b [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	for _, tr := range trajs {
		for _, p := range tr.Players {
			for t, r := range p.Rounds {
				put(uint64(r.Obs))
				put(uint64(r.Action))
				put(math.Float64bits(r.Reward))
				for _, v := range p.Labels[t] {
					put(math.Float64bits(v))
				}
			}
		}
		put(uint64(tr.Final))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestCollectGolden pins Collect's output, bit for bit, to the hashes of
// the trajectories the history-replaying collector produced (before the
// experts ran online): the same draws in the same order and the same
// labels, for OMD and NE experts, context policies, context learners,
// reward noise, matrix and Markov games.
func TestCollectGolden(t *testing.T) {
	matrix := func(rng *rand.Rand) (*game.ZeroSum, error) { return game.RandomUniform(3, 3, rng) }
	omdLearner := func() (learner.Learner, error) { return learner.NewOMD(learner.OMDConfig{States: 2, Actions: 3}) }
	cases := []struct {
		name string
		run  func() ([]incontext.GameTrajectory, error)
		want string
	}{
		{"matrix OMD experts", func() ([]incontext.GameTrajectory, error) {
			e := incontext.OMDExpert{}
			return incontext.Collect(context.Background(), matrix, incontext.CollectConfig{Rounds: 40, Games: 5, PerGame: 2, RowExpert: e, ColExpert: e, Seed: 7})
		}, "54b0522991f7168d239e7e4cc53c057500c9ce9bbd973cc5c721b3342f81a787"},
		{"matrix NE labels, uniform and OMD context, uniform noise", func() ([]incontext.GameTrajectory, error) {
			return incontext.Collect(context.Background(), matrix, incontext.CollectConfig{Rounds: 30, Games: 4, RowContext: incontext.Uniform{}, ColContext: incontext.OMDExpert{},
				Noise: game.UniformNoise{HalfWidth: 0.2}, Seed: 8})
		}, "d4f07dacae28882ad92318357d6d96fbf040cfbf232f8895bd1c520e71d63650"},
		{"Markov NE experts", func() ([]incontext.GameTrajectory, error) {
			return incontext.Collect(context.Background(), discountedPrior(2, 3, 2), incontext.CollectConfig{Rounds: 30, Games: 4, PerGame: 2, Seed: 9})
		}, "73f096091771cd0490396d730f78cd71d9753ff05fe1c0467890cac72e7f2752"},
		{"Markov OMD experts, learner context", func() ([]incontext.GameTrajectory, error) {
			e := incontext.OMDExpert{}
			return incontext.Collect(context.Background(), discountedPrior(2, 3, 3), incontext.CollectConfig{Rounds: 50, Games: 3, RowExpert: e, ColExpert: &incontext.NEExpert{},
				RowLearner: omdLearner, ColContext: e, Seed: 10})
		}, "47a182ff52cf61904dc2838acd9423621708dc46a7d0653f3d69ed6a49a9650f"},
	}
	for _, c := range cases {
		trajs, err := c.run()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := trajectoryHash(trajs); got != c.want {
			t.Errorf("%s: hash %s, want %s", c.name, got, c.want)
		}
	}
}
