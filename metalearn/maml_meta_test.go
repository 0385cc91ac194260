package metalearn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/tables"
	"github.com/icrl-go/icrl/markov"
)

// mamlFamily returns k discounted teams that share base's transitions and
// initial distribution and whose shared rewards are base's plus N(0, sd²).
func mamlFamily(t *testing.T, base *markov.DiscountedGeneralSum, k int, sd float64, rng *rand.Rand) []*markov.DiscountedGeneralSum {
	t.Helper()
	S, J := base.States(), base.NumJoint()
	actions := make([]int, base.Players())
	for i := range actions {
		actions[i] = base.Actions(game.Player(i))
	}
	trans := make([][][]float64, S)
	for s := range trans {
		trans[s] = make([][]float64, J)
		for j := range trans[s] {
			trans[s][j] = append([]float64(nil), base.Transition(s, j)...)
		}
	}
	out := make([]*markov.DiscountedGeneralSum, k)
	for n := range out {
		r := make([][]float64, S)
		for s := range r {
			r[s] = make([]float64, J)
			for j := range r[s] {
				r[s][j] = base.Reward(s, j, 0) + sd*rng.NormFloat64()
			}
		}
		g, err := tables.Cooperative(actions, r, trans, base.Discount(), base.Initial())
		if err != nil {
			t.Fatal(err)
		}
		out[n] = g
	}
	return out
}

// TestSoftmaxPG checks the inner stage (44): one step is θ + α∇Φ(θ), the
// recorded potentials are Φ of the iterates and do not decrease for a
// small step, and bad input is rejected.
func TestSoftmaxPG(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	g, err := markov.RandomDiscountedCooperative([]int{2, 3}, 4, 0.8, rng)
	if err != nil {
		t.Fatal(err)
	}
	th := ZeroLogits(g)
	for i := range th {
		for k := range th[i] {
			th[i][k] = rng.NormFloat64()
		}
	}
	r1, err := SoftmaxPG(g, th, SoftmaxPGConfig{Alpha: 0.05, T: 1})
	if err != nil {
		t.Fatal(err)
	}
	grad, err := PotentialGrad(g, th)
	if err != nil {
		t.Fatal(err)
	}
	want := th.Vector()
	for k := range want {
		want[k] += 0.05 * grad[k]
	}
	if !closeSlices(r1.Last.Vector(), want, 1e-14) {
		t.Errorf("one step: %v, want θ + α∇Φ = %v", r1.Last.Vector(), want)
	}
	r, err := SoftmaxPG(g, th, SoftmaxPGConfig{Alpha: 0.05, T: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Potential) != 51 {
		t.Fatalf("%d potentials, want 51", len(r.Potential))
	}
	for k := 1; k < len(r.Potential); k++ {
		if r.Potential[k] < r.Potential[k-1]-1e-12 {
			t.Fatalf("Φ decreased at step %d: %v → %v", k, r.Potential[k-1], r.Potential[k])
		}
	}
	if phi, err := Potential(g, r.Last); err != nil || math.Abs(phi-r.Potential[50]) > 1e-12 {
		t.Errorf("Φ(θ^T) = %v (%v), recorded %v", phi, err, r.Potential[50])
	}
	if r.Potential[50] <= r.Potential[0] {
		t.Errorf("no ascent: %v → %v", r.Potential[0], r.Potential[50])
	}
	if th[0][0] != r.Init[0][0] || &th[0][0] == &r.Init[0][0] {
		t.Error("Init is not a copy of the initialisation")
	}
	for _, c := range []struct {
		g    *markov.DiscountedGeneralSum
		th   Logits
		cfg  SoftmaxPGConfig
		want string
	}{
		{g, th, SoftmaxPGConfig{Alpha: 0, T: 1}, "α = 0"},
		{g, th, SoftmaxPGConfig{Alpha: 0.1, T: -1}, "T = -1"},
		{g, Logits{{0}}, SoftmaxPGConfig{Alpha: 0.1, T: 1}, "player"},
	} {
		if _, err := SoftmaxPG(c.g, c.th, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SoftmaxPG(%+v): error %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestMAMLMeta checks MAML as a sequential meta-update: Observe is one
// MAMLStep on the game just played, RunSequence threads θ through the
// games, and on a family of similar teams the learned initialisation
// raises the MAML objective F_T above that of the uniform start.
func TestMAMLMeta(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	base, err := markov.RandomDiscountedCooperative([]int{2, 2}, 3, 0.8, rng)
	if err != nil {
		t.Fatal(err)
	}
	games := mamlFamily(t, base, 8, 0.1, rng)
	inner := SoftmaxPGConfig{Alpha: 0.1, T: 2}
	const eta = 0.5
	m, err := NewMAMLMeta(games[0], eta, inner)
	if err != nil {
		t.Fatal(err)
	}
	models := make([]markov.GeneralSumModel, len(games))
	for k, g := range games {
		models[k] = g
	}
	res, err := RunSequence(models, SoftmaxPGAlgorithm{Config: inner}, m)
	if err != nil {
		t.Fatal(err)
	}
	// Replay by hand: θ_{k+1} = MAMLStep({G^k}, θ_k).
	th := ZeroLogits(games[0])
	for k, g := range games {
		if !closeSlices(res[k].Init.Vector(), th.Vector(), 0) {
			t.Fatalf("game %d started from %v, want θ_k = %v", k, res[k].Init.Vector(), th.Vector())
		}
		if th, err = MAMLStep([]*markov.DiscountedGeneralSum{g}, th, inner.Alpha, eta, inner.T); err != nil {
			t.Fatal(err)
		}
	}
	if !closeSlices(m.Theta().Vector(), th.Vector(), 0) {
		t.Errorf("meta-parameter %v, replay %v", m.Theta().Vector(), th.Vector())
	}
	f0, err := MAMLObjective(games, ZeroLogits(games[0]), inner.Alpha, inner.T)
	if err != nil {
		t.Fatal(err)
	}
	f1, err := MAMLObjective(games, m.Theta(), inner.Alpha, inner.T)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("F_T over the family: uniform start %.6f, after %d MAML steps %.6f", f0, len(games), f1)
	if !(f1 > f0) {
		t.Errorf("MAML did not raise F_T: %v → %v", f0, f1)
	}
	// The last game started from the learned θ reaches a higher potential
	// after T inner steps than from the uniform start.
	last := res[len(res)-1]
	fresh, err := SoftmaxPG(last.Game, ZeroLogits(last.Game), inner)
	if err != nil {
		t.Fatal(err)
	}
	if !(last.Potential[inner.T] > fresh.Potential[inner.T]) {
		t.Errorf("last game: Φ after %d steps %v from θ_K, %v from uniform", inner.T, last.Potential[inner.T], fresh.Potential[inner.T])
	}

	// Errors.
	if _, err := m.Next(0); err == nil {
		t.Error("Next out of order accepted")
	}
	gs, err := tables.GeneralSum([]int{1, 1}, [][][]float64{{{1, 0}}}, [][][]float64{{{1}}}, 0.5, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewMAMLMeta(gs, eta, inner); err == nil || !strings.Contains(err.Error(), "team") {
		t.Errorf("general-sum game: error %v", err)
	}
	for _, bad := range []struct {
		eta   float64
		inner SoftmaxPGConfig
	}{{0, inner}, {math.Inf(1), inner}, {eta, SoftmaxPGConfig{Alpha: -1, T: 1}}, {eta, SoftmaxPGConfig{Alpha: 1, T: -1}}} {
		if _, err := NewMAMLMeta(games[0], bad.eta, bad.inner); err == nil {
			t.Errorf("NewMAMLMeta(η = %v, %+v): no error", bad.eta, bad.inner)
		}
	}
	if err := m.Observe(&SoftmaxPGResult{}); err == nil {
		t.Error("result without a game accepted")
	}
}
