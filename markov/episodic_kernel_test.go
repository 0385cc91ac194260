package markov

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nested"
)

// kernGames returns the same random game three ways: with the dense
// table of NewGeneralSum, with a ProductKernel and with a SparseKernel
// (NewGeneralSumKernels). Players have pos[i] local states and act[i]
// actions; the rewards have H layers (zero-sum if zeroSum, for two
// players) and the transitions one time-homogeneous layer.
func kernGames(t *testing.T, pos, act []int, H int, zeroSum bool, rng *rand.Rand) (dense, product, sparse *Episodic) {
	t.Helper()
	local := kernRandomLocal(pos, act, true, rng)
	table := kernExpand(local)
	S, J, N := len(table), len(table[0]), len(act)
	rew := make([][][][]float64, H)
	for h := range rew {
		rew[h] = make([][][]float64, S)
		for s := range rew[h] {
			rew[h][s] = make([][]float64, J)
			for j := range rew[h][s] {
				rew[h][s][j] = make([]float64, N)
				for i := range N {
					rew[h][s][j][i] = rng.Float64()
				}
				if zeroSum {
					rew[h][s][j][1] = -rew[h][s][j][0]
				}
			}
		}
	}
	var err error
	if dense, err = newEpisodic(act, 1, rew, [][][][]float64{table}); err != nil {
		t.Fatal(err)
	}
	pk, err := NewProductKernel(nested.Dense3s(local))
	if err != nil {
		t.Fatal(err)
	}
	if product, err = NewEpisodic(act, 1, H, nested.Dense4(rew), []Kernel{pk}); err != nil {
		t.Fatal(err)
	}
	if sparse, err = NewEpisodic(act, 1, H, nested.Dense4(rew), []Kernel{SparseFrom(pk)}); err != nil {
		t.Fatal(err)
	}
	return dense, product, sparse
}

// TestEpisodicKernelsAgree checks that the dense, product and sparse forms
// of random games agree to 1e-12 on values, best responses (values and
// policies), NE-gaps and CCE-gaps, and draw the same rollouts from the
// same random stream.
func TestEpisodicKernelsAgree(t *testing.T) {
	rng := epiNewRNG(21)
	dense, product, sparse := kernGames(t, []int{2, 3, 2}, []int{2, 3, 2}, 4, false, rng)
	pi := epiRandomProduct(dense, rng)
	corr := epiRandomPolicy(4, 12, 12, rng)
	V0, err := dense.Values(pi)
	if err != nil {
		t.Fatal(err)
	}
	gap0, per0, err := dense.NEGap(pi)
	if err != nil {
		t.Fatal(err)
	}
	cgap0, cper0, err := dense.CCEGap(corr)
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*Episodic{"product": product, "sparse": sparse} {
		if !g.TimeHomogeneous() || g.States() != 12 || g.NumJoint() != 12 {
			t.Fatalf("%s: %d states, %d joint actions, homogeneous %v", name, g.States(), g.NumJoint(), g.TimeHomogeneous())
		}
		V, err := g.Values(pi)
		if err != nil {
			t.Fatal(err)
		}
		for h := range V.Dim(0) {
			for i := range V.Dim(1) {
				for s, v := range V.Row(h, i) {
					if math.Abs(v-V0.At(h, i, s)) > 1e-12 {
						t.Fatalf("%s: V[%d][%d][%d] = %v, dense %v", name, h, i, s, v, V0.At(h, i, s))
					}
				}
			}
		}
		for i := range 3 {
			br0, v0, err := dense.BestResponse(pi, game.Player(i))
			if err != nil {
				t.Fatal(err)
			}
			br, v, err := g.BestResponse(pi, game.Player(i))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(v-v0) > 1e-12 {
				t.Fatalf("%s: best-response value of player %d = %v, dense %v", name, i, v, v0)
			}
			for h := range br.Dim(0) {
				for s := range br.Dim(1) {
					for a := range br.Row(h, s) {
						if br.Row(h, s)[a] != br0.Row(h, s)[a] {
							t.Fatalf("%s: best response of player %d differs at step %d, state %d", name, i, h, s)
						}
					}
				}
			}
		}
		gap, per, err := g.NEGap(pi)
		if err != nil {
			t.Fatal(err)
		}
		cgap, cper, err := g.CCEGap(corr)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(gap-gap0) > 1e-12 || math.Abs(cgap-cgap0) > 1e-12 {
			t.Fatalf("%s: NE-gap %v (dense %v), CCE-gap %v (dense %v)", name, gap, gap0, cgap, cgap0)
		}
		for i := range per {
			if math.Abs(per[i]-per0[i]) > 1e-12 || math.Abs(cper[i]-cper0[i]) > 1e-12 {
				t.Fatalf("%s: player %d's gap terms %v, %v; dense %v, %v", name, i, per[i], cper[i], per0[i], cper0[i])
			}
		}
		for seed := range uint64(20) {
			r0 := dense.Rollout(pi, epiNewRNG(seed), nil)
			r := g.Rollout(pi, epiNewRNG(seed), nil)
			for i := range r {
				if math.Abs(r[i]-r0[i]) > 1e-12 {
					t.Fatalf("%s: rollout with seed %d returns %v, dense %v", name, seed, r, r0)
				}
			}
		}
		for s := range 12 {
			for j := range 12 {
				row, row0 := g.StepTransition(2, s, j), dense.StepTransition(2, s, j)
				for s2 := range row {
					if math.Abs(row[s2]-row0[s2]) > 1e-15 {
						t.Fatalf("%s: Transition(2, %d, %d)[%d] = %v, dense %v", name, s, j, s2, row[s2], row0[s2])
					}
				}
			}
		}
	}
}

// TestEpisodicKernelsZeroSum checks SolveZeroSum and the zero-sum NE-gap
// on the three forms of a random two-player zero-sum game.
func TestEpisodicKernelsZeroSum(t *testing.T) {
	rng := epiNewRNG(22)
	dense, product, sparse := kernGames(t, []int{3, 2}, []int{2, 3}, 3, true, rng)
	V0, _, mu0, nu0, err := dense.SolveZeroSum()
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*Episodic{"product": product, "sparse": sparse} {
		if !g.ZeroSum() {
			t.Fatalf("%s: not detected as zero-sum", name)
		}
		V, _, mu, nu, err := g.SolveZeroSum()
		if err != nil {
			t.Fatal(err)
		}
		for h := range V {
			for s, v := range V[h] {
				if math.Abs(v-V0[h][s]) > 1e-12 {
					t.Fatalf("%s: V*[%d][%d] = %v, dense %v", name, h, s, v, V0[h][s])
				}
			}
		}
		gap, err := g.ZeroSumNEGap(mu, nu)
		if err != nil {
			t.Fatal(err)
		}
		gap0, err := dense.ZeroSumNEGap(mu0, nu0)
		if err != nil {
			t.Fatal(err)
		}
		if gap > 1e-9 || math.Abs(gap-gap0) > 1e-12 {
			t.Fatalf("%s: NE-gap of the solution %v, dense %v", name, gap, gap0)
		}
	}
}

// TestEpisodicKernelLayers checks per-step kernels and one-layer rewards:
// a game with one reward layer equals the game with the layer repeated,
// per-step sparse kernels equal the dense per-step tables, and
// PerturbRewardsPerStep gives a one-layer game independent noise per step.
func TestEpisodicKernelLayers(t *testing.T) {
	rng := epiNewRNG(23)
	const H, S = 3, 5
	actions := []int{2, 2}
	base, err := RandomEpisodic(actions, S, H, GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	kernels := make([]Kernel, H)
	tables := make([][][][]float64, H)
	rew1 := make([][][]float64, S)
	for s := range S {
		rew1[s] = make([][]float64, 4)
		for j := range 4 {
			rew1[s][j] = []float64{base.StepReward(0, s, j, 0), base.StepReward(0, s, j, 1)}
		}
	}
	repeated := make([][][][]float64, H)
	for h := range H {
		tables[h] = make([][][]float64, S)
		for s := range S {
			tables[h][s] = make([][]float64, 4)
			for j := range 4 {
				tables[h][s][j] = kernRandomRow(S, true, rng)
			}
		}
		off, next, prob := kernCSR(tables[h])
		if kernels[h], err = NewSparseKernel(S, 4, off, next, prob); err != nil {
			t.Fatal(err)
		}
		repeated[h] = rew1
	}
	one, err := NewEpisodic(actions, 0, H, nested.Dense4([][][][]float64{rew1}), kernels)
	if err != nil {
		t.Fatal(err)
	}
	full, err := newEpisodic(actions, 0, repeated, tables)
	if err != nil {
		t.Fatal(err)
	}
	if one.TimeHomogeneous() {
		t.Fatal("per-step kernels reported as time-homogeneous")
	}
	pi := epiRandomProduct(one, rng)
	gap, _, err := one.NEGap(pi)
	if err != nil {
		t.Fatal(err)
	}
	gap0, _, err := full.NEGap(pi)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(gap-gap0) > 1e-12 {
		t.Fatalf("NE-gap with one reward layer %v, with H layers %v", gap, gap0)
	}
	if one.StepReward(2, 4, 3, 1) != rew1[4][3][1] {
		t.Fatal("one-layer reward not used at the last step")
	}
	p1, err := PerturbRewardsPerStep(one, 0.1, epiNewRNG(3))
	if err != nil {
		t.Fatal(err)
	}
	p0, err := PerturbRewardsPerStep(full, 0.1, epiNewRNG(3))
	if err != nil {
		t.Fatal(err)
	}
	for h := range H {
		for s := range S {
			for j := range 4 {
				for i := range 2 {
					if p1.StepReward(h, s, j, game.Player(i)) != p0.StepReward(h, s, j, game.Player(i)) {
						t.Fatalf("per-step perturbation of the one-layer game differs at (%d, %d, %d, %d)", h, s, j, i)
					}
				}
			}
		}
	}
	if p1.StepReward(0, 0, 0, 0) == p1.StepReward(1, 0, 0, 0) {
		t.Fatal("per-step perturbation drew the same noise at steps 0 and 1")
	}
}

// TestEpisodicKernelErrors checks the errors of NewGeneralSumKernels and
// NewCooperativeKernels.
func TestEpisodicKernelErrors(t *testing.T) {
	k, err := NewProductKernel(nested.Dense3s([][][][]float64{{{{1, 0}, {0, 1}}, {{0, 1}, {1, 0}}}}))
	if err != nil {
		t.Fatal(err)
	}
	rew := [][][][]float64{{{{0}, {1}}, {{1}, {0}}}}
	shared := [][][]float64{{{0, 1}, {1, 0}}}
	for _, c := range []struct {
		name    string
		actions []int
		horizon int
		rew     [][][][]float64
		kernels []Kernel
		want    string
		kernel  bool
	}{
		{"horizon", []int{2}, 0, rew, []Kernel{k}, "horizon 0", false},
		{"reward layers", []int{2}, 3, [][][][]float64{rew[0], rew[0]}, []Kernel{k}, "2 reward layers, want 3", false},
		{"kernel count", []int{2}, 3, rew, []Kernel{k, k}, "2 kernels, want 3", true},
		{"nil kernel", []int{2}, 2, rew, []Kernel{k, nil}, "kernel of step 1 is nil", true},
		{"shape", []int{3}, 2, rew, []Kernel{k}, "2 states × 2 joint actions, want 2 × 3", true},
		{"reward shape", []int{2}, 2, [][][][]float64{{{{0}, {1}}}}, []Kernel{k}, "reward table of shape [1 1 2 1], want 1 × 2 × 2 × 1", false},
		{"reward value", []int{2}, 2, [][][][]float64{{{{0}, {1}}, {{math.NaN()}, {0}}}}, []Kernel{k}, "r[h=0][s=1][joint=0][player=0] = NaN", false},
	} {
		_, err := NewEpisodic(c.actions, 0, c.horizon, nested.Dense4(c.rew), c.kernels)
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, ErrKernel) != c.kernel {
			t.Errorf("%s: error %v, want one naming %q (wrapping ErrKernel: %v)", c.name, err, c.want, c.kernel)
		}
	}
	if _, err := NewEpisodic([]int{2}, 2, 2, nested.Dense3(shared), []Kernel{k}); err == nil || !strings.Contains(err.Error(), "start state 2") {
		t.Errorf("cooperative with a bad start: error %v", err)
	}
	g, err := NewEpisodic([]int{2}, 0, 2, nested.Dense3(shared), []Kernel{k})
	if err != nil {
		t.Fatal(err)
	}
	// Deterministic: play action 1 at step 0 (reward 1, move to state 1),
	// then action 0 in state 1 (reward 1).
	br, v, err := g.BestResponse(Product{nil}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Cooperative() || v != 2 || br.Row(0, 0)[1] != 1 || br.Row(1, 1)[0] != 1 {
		t.Fatalf("two-step deterministic team: value %v, policy %v", v, br)
	}
}
