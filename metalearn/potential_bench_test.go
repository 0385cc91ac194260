package metalearn

import (
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/internal/nested"
	"github.com/icrl-go/icrl/markov"
)

// BenchmarkQAscentF2 measures finite-horizon projected Q-ascent at the
// paper's App. F.2 scale: 2 players × 2 actions, 2 states, H = 10,
// T = 1000, α = 0.05, no checkpoints (Table 2 rewards with the 0.8
// placeholder).
func BenchmarkQAscentF2(b *testing.B) {
	g := potF2Game(b, 10)
	init := g.UniformProduct()
	cfg := QAscentConfig{Alpha: 0.05, T: 1000}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := QAscent(g, init, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQAscentDiscounted measures discounted projected Q-ascent (7):
// 100 iterations on a random 100-state team of 3 players × 3 actions.
func BenchmarkQAscentDiscounted(b *testing.B) {
	g := potRandomTeam(b, []int{3, 3, 3}, 100, 0.9, 1)
	init := g.UniformPolicies()
	cfg := QAscentConfig{Alpha: 0.01, T: 100}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := QAscentDiscounted(g, init, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// potBenchTeams returns the benchmark teams: S states, N players × 3
// actions, γ = 0.9.
func potBenchTeams(b *testing.B, players, states int) (*markov.DiscountedGeneralSum, Logits) {
	actions := make([]int, players)
	for i := range actions {
		actions[i] = 3
	}
	g := potRandomTeam(b, actions, states, 0.9, 7)
	return g, potRandomLogits(g, 1, rand.New(rand.NewPCG(1, 1)))
}

// BenchmarkPotentialHVP measures exact Hessian-vector products on a
// random team: "api" is PotentialHVP (an evaluation with its LU
// factorisation, then the product), "product" the product alone with the
// factorisation reused, as in MAMLGrad's backward pass. S100 is 100 states
// × 27 joint actions (P = 900 parameters); S625 is the size of the
// tracking game of App. F.3 (625 states × 81 joint actions, 4 players,
// P = 7500; 253 MB of transitions, so it takes a while to set up).
func BenchmarkPotentialHVP(b *testing.B) {
	for _, c := range []struct {
		name            string
		players, states int
	}{{"S100_N3_A3", 3, 100}, {"S625_N4_A3", 4, 625}} {
		b.Run(c.name, func(b *testing.B) {
			g, th := potBenchTeams(b, c.players, c.states)
			pg, st, _, err := potPrepare(g, th, "")
			if err != nil {
				b.Fatal(err)
			}
			v := make([]float64, pg.P)
			rng := rand.New(rand.NewPCG(2, 2))
			for k := range v {
				v[k] = rng.NormFloat64()
			}
			b.Run("api", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := PotentialHVP(g, th, v); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("product", func(b *testing.B) {
				dst := make([]float64, pg.P)
				b.ReportAllocs()
				for b.Loop() {
					if err := pg.hvp(st, v, dst); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkMAMLStep measures one MAML step (47) over M = 2 random teams of
// 100 states, 3 players × 3 actions, with T = 1 and T = 3 inner steps.
func BenchmarkMAMLStep(b *testing.B) {
	g, th := potBenchTeams(b, 3, 100)
	g2 := potRandomTeam(b, []int{3, 3, 3}, 100, 0.9, 8)
	games := []*markov.DiscountedGeneralSum{g, g2}
	for _, T := range []int{1, 3} {
		b.Run("T="+string(rune('0'+T)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := MAMLStep(games, th, 0.01, 0.01, T); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMAMLStepTracking measures one MAML step (47) on the discounted
// team form of the 4-player tracking game of App. F.3 (625 states, 81 joint
// actions, P = 7500 parameters; every player receives the potential φ of
// [TrackingGame]), over M = 2 games with drifts 1 and 1.3 (MixtureDrift),
// γ = 0.9, uniform start distribution, with T = 1 and T = 3 inner steps;
// "product" on the games' product kernels (TrackingGame.DiscountedTeam),
// "dense" on their 253 MB dense tables.
func BenchmarkMAMLStepTracking(b *testing.B) {
	for _, form := range []string{"product", "dense"} {
		b.Run(form, func(b *testing.B) { benchMAMLTracking(b, form == "dense") })
	}
}

func benchMAMLTracking(b *testing.B, dense bool) {
	var games []*markov.DiscountedGeneralSum
	for _, drift := range []float64{1, 1.3} {
		tg, err := Tracking(TrackingConfig{Drift: drift, MixtureDrift: true})
		if err != nil {
			b.Fatal(err)
		}
		init := make([]float64, tg.States)
		for s := range init {
			init[s] = 1 / float64(tg.States)
		}
		var g *markov.DiscountedGeneralSum
		if dense {
			k, kerr := markov.NewDenseKernel(tg.DenseTransitions())
			if kerr != nil {
				b.Fatal(kerr)
			}
			g, err = markov.NewDiscountedGeneralSum([]int{3, 3, 3, 3}, nested.Dense2(tg.Potential), k, 0.9, init)
		} else {
			g, err = tg.DiscountedTeam(0.9, init)
		}
		if err != nil {
			b.Fatal(err)
		}
		games = append(games, g)
	}
	th := ZeroLogits(games[0])
	alpha := LemmaConstants(4, 0.9, 3, 1).InnerAlpha
	for _, T := range []int{1, 3} {
		b.Run("T="+string(rune('0'+T)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := MAMLStep(games, th, alpha, 1, T); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// potTrackingGame returns the episodic tracking game of App. F.3 used by
// examples/metalearn's F.3 part (4 agents, 625 states, 81 joint actions,
// drift 1.3 with MixtureDrift, horizon H = 5, start at the centre) and a
// random full-support product policy.
func potTrackingGame(b *testing.B, cfg TrackingConfig) (*markov.Episodic, markov.Product) {
	tg, err := Tracking(cfg)
	if err != nil {
		b.Fatal(err)
	}
	g, err := tg.Episodic(5, tg.CenterState())
	if err != nil {
		b.Fatal(err)
	}
	pi := potRandomProduct(g, rand.New(rand.NewPCG(5, 5)))
	return g, pi
}

// trackingBenchGames are the paper's tracking instance and the one with 7
// positions per agent.
var trackingBenchGames = []struct {
	name string
	cfg  TrackingConfig
}{{"P5", TrackingConfig{Drift: 1.3, MixtureDrift: true}}, {"P7", TrackingConfig{Positions: 7, Drift: 1.3, MixtureDrift: true}}}

// benchTracking runs f on the F.3 tracking game ("P5") and on the larger
// instance with 7 positions per agent ("P7", 2,401 states).
func benchTracking(b *testing.B, f func(*markov.Episodic, markov.Product) error) {
	for _, c := range trackingBenchGames {
		b.Run(c.name, func(b *testing.B) {
			g, pi := potTrackingGame(b, c.cfg)
			b.ReportAllocs()
			for b.Loop() {
				if err := f(g, pi); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkQAscentTracking measures 10 iterations of projected Q-ascent
// (a backward pass over H = 5 steps each) on the tracking games.
func BenchmarkQAscentTracking(b *testing.B) {
	cfg := QAscentConfig{Alpha: 0.1, T: 10}
	benchTracking(b, func(g *markov.Episodic, pi markov.Product) error {
		_, err := QAscent(g, pi, cfg)
		return err
	})
}

// BenchmarkNEGapTracking measures the NE-gap (an evaluation and four best
// responses, the checkpoint of Q-ascent) on the tracking games.
func BenchmarkNEGapTracking(b *testing.B) {
	benchTracking(b, func(g *markov.Episodic, pi markov.Product) error {
		_, _, err := g.NEGap(pi)
		return err
	})
}

// BenchmarkTrackingBuild measures building the F.3 tracking game and its
// episodic form (H = 5): its B/op is the game's memory (the rewards,
// potential and product kernel, and the episodic game's copy of the
// rewards), for the paper's instance and the 7-position one.
func BenchmarkTrackingBuild(b *testing.B) {
	for _, c := range trackingBenchGames {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tg, err := Tracking(c.cfg)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tg.Episodic(5, tg.CenterState()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
