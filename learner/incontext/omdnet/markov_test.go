package omdnet_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext/omdnet"
	"github.com/icrl-go/icrl/learner/schedule"
	"github.com/icrl-go/icrl/markov"
)

// TestMarkovAccuracyFalls checks the construction of Theorem 4.3's update
// (Algorithm 1, learner.OMD with two states, γ = 0.9 and its default
// schedule, whose step sizes depend on the visits) teacher-forced on random
// histories: at every state position its policy is OMD's policy in that
// state after the same rounds, within 3ε, and the distance falls at least
// fourfold for a tenfold ε.
func TestMarkovAccuracyFalls(t *testing.T) {
	T := 50
	if testing.Short() {
		T = 20
		if raceEnabled {
			T = 8
		}
	}
	const S, A = 2, 3
	rng := rand.New(rand.NewPCG(43, 1))
	hists, lasts := make([][]learner.Step, 2), make([]int, 2)
	for k := range hists {
		for range T {
			hists[k] = append(hists[k], learner.Step{State: rng.IntN(S), Action: rng.IntN(A), Reward: rng.Float64()})
		}
		lasts[k] = rng.IntN(S)
	}
	var d [2]float64
	for i, eps := range []float64{1e-2, 1e-3} {
		cfg := omdnet.Config{OMD: learner.OMDConfig{States: S, Actions: A, Horizon: T, Discount: 0.9}, Accuracy: eps}
		model, err := omdnet.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := learner.NewOMD(cfg.OMD)
		if err != nil {
			t.Fatal(err)
		}
		for k, pols := range policies(t, model, cfg.Encoder(), hists, lasts) {
			for r, x := range pols {
				state := lasts[k]
				if r < T {
					state = hists[k][r].State
				}
				want, err := ref.Distribution(nil, hists[k][:r], state)
				if err != nil {
					t.Fatal(err)
				}
				d[i] = max(d[i], dist(x, want))
			}
		}
		t.Logf("two states, schedule.Cai, T = %d, ε = %g: largest ‖x − x_OMD‖₂ = %.3g", T, eps, d[i])
	}
	checkFalls(t, d)
}

// TestTheorem43 plays the constructed transformer of a two-state game as
// the row player against learner.OMD with the schedule of the paper's
// analysis (schedule.Paper with per-visit β and α) and checks at every
// round that its policy in the state played is within ε + η·A of OMD's
// policy from the same context.
func TestTheorem43(t *testing.T) {
	T := 50
	if testing.Short() {
		T = 20
		if raceEnabled {
			T = 8
		}
	}
	const S, A, eps = 2, 3, 1e-2
	cfg := omdnet.Config{OMD: learner.OMDConfig{States: S, Actions: A, Horizon: T, Discount: 0.9, Schedule: schedule.Paper{Markov: true}}, Accuracy: eps}
	model, err := omdnet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(43, 2))
	g, err := markov.RandomDiscounted(S, A, A, 0.9, rng)
	if err != nil {
		t.Fatal(err)
	}
	chk := selfPlayChecked(t, model, cfg, g, game.RowPlayer, rng)
	bound := eps + math.Pow(float64(T), -5.0/3)*A
	if chk.rounds != T || chk.worst > bound {
		t.Errorf("largest distance to OMD %.3g over %d rounds, want at most ε + ηA = %.4g over %d", chk.worst, chk.rounds, bound, T)
	}
	t.Logf("two states, T = %d, ε = %g: largest ‖x − x_OMD‖₂ = %.3g (bound %.4g)", T, eps, chk.worst, bound)
}
