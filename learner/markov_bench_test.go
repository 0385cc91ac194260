package learner_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/tables"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/markov"
)

// benchMarkovGame returns a random discounted game with S states, A×B
// actions and γ = 0.9: rewards uniform in [0,1], transition rows normalised
// uniform weights, all drawn from a fixed seed.
func benchMarkovGame(S, A, B int) *markov.Discounted {
	rng := rand.New(rand.NewPCG(42, 42))
	r := make([][][]float64, S)
	p := make([][][][]float64, S)
	for s := range S {
		r[s] = make([][]float64, A)
		p[s] = make([][][]float64, A)
		for a := range A {
			r[s][a] = make([]float64, B)
			p[s][a] = make([][]float64, B)
			for b := range B {
				r[s][a][b] = rng.Float64()
				row := make([]float64, S)
				var sum float64
				for k := range row {
					row[k] = rng.Float64()
					sum += row[k]
				}
				for k := range row {
					row[k] /= sum
				}
				p[s][a][b] = row
			}
		}
	}
	g, err := tables.Discounted(r, p, 0.9)
	if err != nil {
		panic(err)
	}
	return g
}

// BenchmarkOMDStep measures one Observe of OMD (10 states,
// default per-visit schedule) on pre-drawn random observations.
func BenchmarkMarkovOMDStep(b *testing.B) {
	const S = 10
	for _, A := range []int{3, 10} {
		b.Run(fmt.Sprintf("A=%d", A), func(b *testing.B) {
			m, err := learner.NewOMD(learner.OMDConfig{States: S, Actions: A, Discount: 0.9})
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			type obs struct {
				s, a, next int
				r          float64
			}
			data := make([]obs, 4096)
			for i := range data {
				data[i] = obs{rng.IntN(S), rng.IntN(A), rng.IntN(S), rng.Float64()}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				o := data[i&4095]
				if err := m.Observe(o.s, o.a, o.r, o.next); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// fixedMarkov is a Learner that plays one fixed distribution in every
// state and ignores feedback.
type fixedMarkov struct {
	p      []float64
	states int
}

func (f fixedMarkov) Policy(int) []float64                 { return f.p }
func (f fixedMarkov) Observe(int, int, float64, int) error { return nil }
func (f fixedMarkov) Reset()                               {}
func (f fixedMarkov) StationaryPolicy() [][]float64 {
	out := make([][]float64, f.states)
	for s := range out {
		out[s] = append([]float64(nil), f.p...)
	}
	return out
}

// BenchmarkMarkovSelfPlay1e6 plays 10⁶ rounds of Markov self-play on a
// random 10-state 3×3 game (Bernoulli rewards) per iteration and reports the
// cost per round: both players' sampling, the reward and transition draws,
// both updates, and one final gap evaluation. "Fixed" measures
// SelfPlay's own overhead in a Markov game with learners that do nothing.
func BenchmarkMarkovSelfPlay1e6(b *testing.B) {
	const rounds, S = 1_000_000, 10
	g := benchMarkovGame(S, 3, 3)
	for _, c := range []struct {
		name string
		make func() (learner.Learner, learner.Learner)
	}{
		{"Fixed", func() (learner.Learner, learner.Learner) {
			return fixedMarkov{[]float64{0.25, 0.5, 0.25}, S}, fixedMarkov{[]float64{0.5, 0.25, 0.25}, S}
		}},
		{"OMD", func() (learner.Learner, learner.Learner) {
			x, err := learner.NewOMD(learner.OMDConfig{States: S, Actions: 3, Discount: 0.9})
			if err != nil {
				b.Fatal(err)
			}
			y, err := learner.NewOMD(learner.OMDConfig{States: S, Actions: 3, Discount: 0.9, Role: game.ColumnPlayer})
			if err != nil {
				b.Fatal(err)
			}
			return x, y
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			rng := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				x, y := c.make()
				if _, err := play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: rounds}, rng); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rounds, "ns/step")
		})
	}
}
