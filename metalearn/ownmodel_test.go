package metalearn_test

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/metalearn"
)

// switchRule is the transition rule of multi-agent-meta-rl App. F.1 for
// two states: the state stays with probability 0.9 after a matching joint
// action and switches with probability 0.9 otherwise.
func switchRule(s int, match bool) []float64 {
	p := []float64{0, 0}
	if match {
		p[s], p[1-s] = 0.9, 0.1
	} else {
		p[s], p[1-s] = 0.1, 0.9
	}
	return p
}

// duel is a caller's two-player constant-sum game in the [0, 1]
// convention (r₁ = 1 − r₀), written as one plain struct that is the
// simulator (game.Multiplayer), the discounted model
// (markov.GeneralSumModel) and the episodic model (markov.EpisodicModel).
type duel struct{ r [2][4]float64 }

func (duel) Players() int                           { return 2 }
func (duel) States() int                            { return 2 }
func (duel) Actions(game.Player) int                { return 2 }
func (duel) Start(*rand.Rand) int                   { return 0 }
func (duel) Initial() []float64                     { return []float64{1, 0} }
func (duel) Discount() float64                      { return 0.7 }
func (duel) Horizon() int                           { return 4 }
func (duel) Transition(s, j int) []float64          { return switchRule(s, j == 0 || j == 3) }
func (d duel) StepTransition(_, s, j int) []float64 { return d.Transition(s, j) }

func (d duel) Reward(s, j int, p game.Player) float64 {
	if p == 0 {
		return d.r[s][j]
	}
	return 1 - d.r[s][j]
}

func (d duel) StepReward(_, s, j int, p game.Player) float64 { return d.Reward(s, j, p) }

func (d duel) Play(s int, actions []int, rewards []float64, rng *rand.Rand) int {
	j := 2*actions[0] + actions[1]
	rewards[0], rewards[1] = d.Reward(s, j, 0), d.Reward(s, j, 1)
	return simplex.SampleCategorical(d.Transition(s, j), rng)
}

// hunt is a caller's three-player team: a stag hunt on two states. The
// team scores bonus[s] when all three hunt the stag (action 1), 0.3 per
// hare hunter otherwise (scaled into [0, 1]); hunting together moves play
// to the other state with probability 0.9.
type hunt struct{ bonus [2]float64 }

func (hunt) Players() int                           { return 3 }
func (hunt) States() int                            { return 2 }
func (hunt) Actions(game.Player) int                { return 2 }
func (hunt) Start(*rand.Rand) int                   { return 0 }
func (hunt) Initial() []float64                     { return []float64{1, 0} }
func (hunt) Discount() float64                      { return 0.6 }
func (hunt) Horizon() int                           { return 3 }
func (hunt) Transition(s, j int) []float64          { return switchRule(s, j != 7) }
func (g hunt) StepTransition(_, s, j int) []float64 { return g.Transition(s, j) }

func (g hunt) Reward(s, j int, _ game.Player) float64 {
	if j == 7 {
		return g.bonus[s]
	}
	hares := 3 - (j>>2 + j>>1&1 + j&1)
	return 0.3 * float64(hares) / 3
}

func (g hunt) StepReward(_, s, j int, p game.Player) float64 { return g.Reward(s, j, p) }

func (g hunt) Play(s int, actions []int, rewards []float64, rng *rand.Rand) int {
	j := 4*actions[0] + 2*actions[1] + actions[2]
	for p := range rewards {
		rewards[p] = g.Reward(s, j, game.Player(p))
	}
	return simplex.SampleCategorical(g.Transition(s, j), rng)
}

// One struct, every door: compile-time checks.
var (
	_ game.Multiplayer       = duel{}
	_ markov.GeneralSumModel = duel{}
	_ markov.EpisodicModel   = duel{}
	_ game.Multiplayer       = hunt{}
	_ markov.GeneralSumModel = hunt{}
	_ markov.EpisodicModel   = hunt{}
)

// omdPlayers returns one learner.OMD per player of g.
func omdPlayers(t *testing.T, n int, gamma float64) []learner.Learner {
	t.Helper()
	out := make([]learner.Learner, n)
	for i := range out {
		l, err := learner.NewOMD(learner.OMDConfig{States: 2, Actions: 2, Discount: gamma})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = l
	}
	return out
}

// TestOwnStructEntersEverything: a caller's two-player and three-player
// structs, with no wrapper, enter the rollout engine with the library's
// learners, the NE and CCE gap functions, Algorithms 1–3 (ZeroSumOOMD,
// QAscent, GeneralSumOOMD with its certified output) with their
// meta-updates, the similarity measure and MAML; every result is
// bit-identical to the same call on the struct's tables.
func TestOwnStructEntersEverything(t *testing.T) {
	d := duel{r: [2][4]float64{{0.8, 0.6, 0.3, 0.1}, {0.5, 0.9, 0.2, 0.4}}}
	h := hunt{bonus: [2]float64{1, 0.8}}
	dTab, err := markov.TabulateEpisodic(d)
	if err != nil {
		t.Fatal(err)
	}
	hTab, err := markov.TabulateEpisodic(h)
	if err != nil {
		t.Fatal(err)
	}
	if !dTab.ZeroSum() || dTab.ConstantSum() != 1 || !hTab.Cooperative() || !dTab.TimeHomogeneous() {
		t.Fatalf("tables: zero-sum %v (c = %v), team %v, homogeneous %v", dTab.ZeroSum(), dTab.ConstantSum(), hTab.Cooperative(), dTab.TimeHomogeneous())
	}

	ownEngine(t, d, h)
	ownAlgorithm1(t, d)
	ownAlgorithm2(t, h, hTab)
	ownQAscent(t, h, hTab)
	ownMAML(t, h)
}

// ownEngine: the engine and the gap functions on the structs.
func ownEngine(t *testing.T, d duel, h hunt) {
	for _, c := range []struct {
		name string
		g    interface {
			game.Multiplayer
			markov.GeneralSumModel
		}
	}{{"duel", d}, {"hunt", h}} {
		res, err := play.Run(context.Background(), c.g, omdPlayers(t, c.g.Players(), c.g.Discount()), play.Config{Rounds: 2000}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ne, _, err := markov.NEGap(c.g, res.Last)
		if err != nil || ne != res.NEGap || !(ne >= 0) {
			t.Errorf("%s: NE-gap %v, markov.NEGap of the struct %v (%v)", c.name, res.NEGap, ne, err)
		}
		cce, _, err := markov.CCEGap(c.g, res.Empirical)
		if err != nil || cce != res.CCEGap || !(cce >= 0) {
			t.Errorf("%s: CCE-gap %v, markov.CCEGap of the struct %v (%v)", c.name, res.CCEGap, cce, err)
		}
	}

}

// ownAlgorithm1: Algorithm 1 with the meta-update (5), on the struct and
// on its table.
func ownAlgorithm1(t *testing.T, d duel) {
	const T = 60
	zsCfg := metalearn.OOMDConfig{Eta: 0.1, T: T, Checkpoints: []int{10, 60}}
	uni, err := metalearn.UniformZeroSumInit(d, T)
	if err != nil {
		t.Fatal(err)
	}
	seq := func(games []duel, alg metalearn.Algorithm[duel, metalearn.ZeroSumInit, *metalearn.ZeroSumResult]) []*metalearn.ZeroSumResult {
		m, err := metalearn.NewZeroSumAverage(games[0], T, len(games), 0, metalearn.HindsightBR)
		if err != nil {
			t.Fatal(err)
		}
		res, err := metalearn.RunSequence(games, alg, metalearn.Meta[metalearn.ZeroSumInit, *metalearn.ZeroSumResult](m))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	d2 := d
	d2.r[1][1] = 0.7
	own := seq([]duel{d, d2, d}, metalearn.ZeroSumAlgorithm[duel]{Config: zsCfg})
	tabs := make([]*markov.Episodic, 3)
	for k, g := range []duel{d, d2, d} {
		if tabs[k], err = markov.TabulateEpisodic(g); err != nil {
			t.Fatal(err)
		}
	}
	mt, err := metalearn.NewZeroSumAverage(tabs[0], T, 3, 0, metalearn.HindsightBR)
	if err != nil {
		t.Fatal(err)
	}
	viaTables, err := metalearn.RunSequence(tabs, metalearn.ZeroSumAlgorithm[*markov.Episodic]{Config: zsCfg}, metalearn.Meta[metalearn.ZeroSumInit, *metalearn.ZeroSumResult](mt))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(own, viaTables) {
		t.Error("Algorithm 1's meta-learning sequence on the struct differs from the one on its tables")
	}
	if gap := own[2].Checkpoints[1].Gap; !(gap >= 0 && gap < 4) {
		t.Errorf("Algorithm 1's NE-gap after %d iterations: %v", T, gap)
	}
	if _, err := metalearn.ZeroSumOOMD(d, uni, zsCfg); err != nil {
		t.Error(err)
	}

}

// ownAlgorithm2: Algorithm 2 (the general-sum OOMD) and its certified
// output.
func ownAlgorithm2(t *testing.T, h hunt, hTab *markov.Episodic) {
	const T = 60
	gsUni, err := metalearn.UniformGeneralSumInit(h, T)
	if err != nil {
		t.Fatal(err)
	}
	gsOwn, err := metalearn.GeneralSumOOMD(h, gsUni, metalearn.OOMDConfig{Eta: 0.1, T: T})
	if err != nil {
		t.Fatal(err)
	}
	gsTab, err := metalearn.GeneralSumOOMD(hTab, gsUni, metalearn.OOMDConfig{Eta: 0.1, T: T})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gsOwn, gsTab) {
		t.Error("GeneralSumOOMD on the struct differs from the run on its tables")
	}
	out := gsOwn.Output()
	gOwn, _, err1 := metalearn.CertifiedCCEGap(h, out)
	gTab, _, err2 := metalearn.CertifiedCCEGap(hTab, out)
	vOwn, err3 := out.Values(h)
	vTab, err4 := out.Values(hTab)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || gOwn != gTab || !reflect.DeepEqual(vOwn, vTab) {
		t.Errorf("certified CCE-gap %v / %v, values %v / %v (%v %v %v %v)", gOwn, gTab, vOwn, vTab, err1, err2, err3, err4)
	}
	rOwn := out.Rollout(h, rand.New(rand.NewPCG(4, 4)), nil)
	rTab := out.Rollout(hTab, rand.New(rand.NewPCG(4, 4)), nil)
	if !reflect.DeepEqual(rOwn, rTab) {
		t.Errorf("rollout returns %v on the struct, %v on its tables", rOwn, rTab)
	}

}

// ownQAscent: projected Q-ascent with the warm start, and Δ_Φ.
func ownQAscent(t *testing.T, h hunt, hTab *markov.Episodic) {
	h2 := hunt{bonus: [2]float64{0.9, 0.8}}
	w, err := metalearn.NewWarmStart(h)
	if err != nil {
		t.Fatal(err)
	}
	qa, err := metalearn.RunSequence([]hunt{h, h2}, metalearn.QAscentAlgorithm[hunt]{Config: metalearn.QAscentConfig{Alpha: 0.05, T: 30}}, metalearn.Meta[markov.Product, *metalearn.QAscentResult](w))
	if err != nil {
		t.Fatal(err)
	}
	qaTab, err := metalearn.QAscent(hTab, hTab.UniformProduct(), metalearn.QAscentConfig{Alpha: 0.05, T: 30})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(qa[0], qaTab) {
		t.Error("QAscent on the struct differs from the run on its tables")
	}
	// Only the all-stag reward of state 0 differs, by 0.1. Backward
	// induction of the difference: W₂ = (0.1, 0); W₁(0) = 0.1 + 0.1·0.1 =
	// 0.11 (all stag, then switch w.p. 0.9), W₁(1) = 0.9·0.1 = 0.09 (all
	// stag to reach state 0); W₀(0) = 0.1 + 0.1·0.11 + 0.9·0.09 = 0.192.
	dphi, err := metalearn.DeltaPhi([]hunt{h, h2})
	if err != nil || math.Abs(dphi-0.192) > 1e-12 {
		t.Errorf("Δ_Φ = %v (%v), want 0.192", dphi, err)
	}

}

// ownMAML: MAML on the discounted model.
func ownMAML(t *testing.T, h hunt) {
	h2 := hunt{bonus: [2]float64{0.9, 0.8}}
	inner := metalearn.SoftmaxPGConfig{Alpha: 0.5, T: 2}
	pgOwn, err := metalearn.SoftmaxPG(h, metalearn.ZeroLogits(h), inner)
	if err != nil {
		t.Fatal(err)
	}
	table, err := markov.Tabulate(h)
	if err != nil {
		t.Fatal(err)
	}
	pgTab, err := metalearn.SoftmaxPG(table, metalearn.ZeroLogits(table), inner)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pgOwn.Potential, pgTab.Potential) {
		t.Errorf("softmax policy gradient: potentials %v on the struct, %v on its table", pgOwn.Potential, pgTab.Potential)
	}
	meta, err := metalearn.NewMAMLMeta(h, 2, inner)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := metalearn.RunSequence([]markov.GeneralSumModel{h, h2}, metalearn.SoftmaxPGAlgorithm{Config: inner}, metalearn.Meta[metalearn.Logits, *metalearn.SoftmaxPGResult](meta)); err != nil {
		t.Fatal(err)
	}
}
