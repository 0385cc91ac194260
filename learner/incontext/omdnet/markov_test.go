package omdnet_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/incontext/omdnet"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/learner/schedule"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/transformer"
)

// markovFeatures encodes a history of a Markov game and the state after
// it in the feature layout: BOS, then per round its state and its outcome,
// then the last state.
func markovFeatures(h []learner.Step, last, S, A int) []float64 {
	W := S + A + 2
	f := make([]float64, W, (2*len(h)+2)*W)
	f[0] = 1
	for _, st := range h {
		s, o := make([]float64, W), make([]float64, W)
		s[1+st.State] = 1
		o[1+S+st.Action], o[S+A+1] = 1, st.Reward
		f = append(append(f, s...), o...)
	}
	s := make([]float64, W)
	s[1+last] = 1
	return append(f, s...)
}

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
	var hists [2][]learner.Step
	var lasts [2]int
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
		seqs := make([]transformer.Sequence[float64], len(hists))
		for k, h := range hists {
			seqs[k] = transformer.Sequence[float64]{Features: markovFeatures(h, lasts[k], S, A)}
		}
		out, err := model.Forward(seqs)
		if err != nil {
			t.Fatal(err)
		}
		for k, h := range hists {
			for r := 0; r <= T; r++ {
				state := lasts[k]
				if r < T {
					state = h[r].State
				}
				want, err := ref.Distribution(nil, h[:r], state)
				if err != nil {
					t.Fatal(err)
				}
				pos := 2*r + 1 // the state position of round r+1
				d[i] = max(d[i], dist(softmax(out[k][pos*A:(pos+1)*A]), want))
			}
		}
		t.Logf("two states, schedule.Cai, T = %d, ε = %g: largest ‖x − x_OMD‖₂ = %.3g", T, eps, d[i])
		if d[i] > 3*eps {
			t.Errorf("ε = %g: largest distance %.3g, want at most 3ε", eps, d[i])
		}
	}
	if !(d[1] < d[0]/4) {
		t.Errorf("the distance fell from %.3g to %.3g with ε from 1e-2 to 1e-3, want at least fourfold", d[0], d[1])
	}
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
	built, err := incontext.NewLearner(model, cfg.Encoder(), incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	opp, err := learner.NewOMD(cfg.OMD)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := learner.NewOMD(cfg.OMD)
	if err != nil {
		t.Fatal(err)
	}
	chk := &checker{player: game.RowPlayer, model: built, ref: ref}
	if _, err := play.SelfPlay(context.Background(), g, built, opp, play.SelfPlayConfig{Rounds: T, Recorder: chk}, rng); err != nil {
		t.Fatal(err)
	}
	bound := eps + math.Pow(float64(T), -5.0/3)*A
	if chk.rounds != T || chk.worst > bound {
		t.Errorf("largest distance to OMD %.3g over %d rounds, want at most ε + ηA = %.4g over %d", chk.worst, chk.rounds, bound, T)
	}
	t.Logf("two states, T = %d, ε = %g: largest ‖x − x_OMD‖₂ = %.3g (bound %.4g)", T, eps, chk.worst, bound)
}
