package markov

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nested"
)

// kernClose reports whether a and b agree entrywise within tol.
func kernClose(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if math.Abs(a[k]-b[k]) > tol {
			return false
		}
	}
	return true
}

// kernPolicy returns a random full-support stationary policy.
func kernPolicy(states, actions int, seed uint64) Stationary {
	rng := epiNewRNG(seed)
	p := make(Stationary, states)
	for s := range p {
		p[s] = kernRandomRow(actions, false, rng)
	}
	return p
}

// TestDiscountedKernelsAgree checks that the two-player zero-sum
// discounted game on a product kernel and on its sparse form agrees with
// the dense table to 1e-12: Shapley value iteration (values and stage
// equilibria), policy evaluation, best responses and gaps.
func TestDiscountedKernelsAgree(t *testing.T) {
	rng := epiNewRNG(31)
	local := kernRandomLocal([]int{3, 4}, []int{2, 3}, true, rng)
	table := kernExpand(local) // 12 states, 6 joint actions
	S := len(table)
	rewards := make([][][]float64, S)
	trans := make([][][][]float64, S)
	for s := range S {
		rewards[s] = make([][]float64, 2)
		trans[s] = make([][][]float64, 2)
		for a := range 2 {
			rewards[s][a] = make([]float64, 3)
			trans[s][a] = make([][]float64, 3)
			for b := range 3 {
				rewards[s][a][b] = rng.Float64()
				trans[s][a][b] = table[s][a*3+b]
			}
		}
	}
	dense, err := newDiscounted(rewards, trans, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := NewProductKernel(nested.Dense3s(local))
	if err != nil {
		t.Fatal(err)
	}
	sol0, err := ShapleyValueIteration(dense, 1e-12, 10000)
	if err != nil {
		t.Fatal(err)
	}
	x, y := kernPolicy(S, 2, 1), kernPolicy(S, 3, 2)
	v0, err := dense.Evaluate(x, y)
	if err != nil {
		t.Fatal(err)
	}
	_, gap0, err := dense.Gap(x, y)
	if err != nil {
		t.Fatal(err)
	}
	br0, _, err := dense.BestResponse(y, game.RowPlayer)
	if err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]Kernel{"product": pk, "sparse": SparseFrom(pk)} {
		g, err := NewDiscounted(nested.Dense3(rewards), k, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := ShapleyValueIteration(g, 1e-12, 10000)
		if err != nil {
			t.Fatal(err)
		}
		if !kernClose(sol.V, sol0.V, 1e-12) {
			t.Fatalf("%s: Shapley V %v, dense %v", name, sol.V, sol0.V)
		}
		for s := range S {
			if !kernClose(sol.X[s], sol0.X[s], 1e-9) || !kernClose(sol.Y[s], sol0.Y[s], 1e-9) {
				t.Fatalf("%s: stage equilibrium of state %d: %v %v, dense %v %v", name, s, sol.X[s], sol.Y[s], sol0.X[s], sol0.Y[s])
			}
		}
		v, err := g.Evaluate(x, y)
		if err != nil {
			t.Fatal(err)
		}
		_, gap, err := g.Gap(x, y)
		if err != nil {
			t.Fatal(err)
		}
		br, _, err := g.BestResponse(y, game.RowPlayer)
		if err != nil {
			t.Fatal(err)
		}
		if !kernClose(v, v0, 1e-12) || math.Abs(gap-gap0) > 1e-12 || !kernClose(br, br0, 1e-12) {
			t.Fatalf("%s: values %v gap %v best response %v; dense %v %v %v", name, v, gap, br, v0, gap0, br0)
		}
		// The same simulated trajectory from the same stream.
		r1, r2 := epiNewRNG(9), epiNewRNG(9)
		s1, s2 := 0, 0
		for range 50 {
			_, s1 = g.StepNoise(s1, 1, 2, game.Exact{}, r1)
			_, s2 = dense.StepNoise(s2, 1, 2, game.Exact{}, r2)
			if s1 != s2 {
				t.Fatalf("%s: simulated state %d, dense %d", name, s1, s2)
			}
		}
	}
	if _, err := NewDiscounted(nested.Dense3(rewards), SparseFrom(pk), 1); err == nil || !strings.Contains(err.Error(), "γ = 1") {
		t.Errorf("γ = 1: error %v", err)
	}
	if _, err := NewDiscounted(nested.Dense3(rewards[:5]), pk, 0.8); !errors.Is(err, ErrKernel) || !strings.Contains(err.Error(), "12 states × 6 joint actions, want 5 × 6") {
		t.Errorf("shape mismatch: error %v", err)
	}
	if _, err := NewDiscounted(nested.Dense3(rewards), nil, 0.8); !errors.Is(err, ErrKernel) {
		t.Errorf("nil kernel: error %v", err)
	}
}

// TestDiscountedGeneralSumKernelsAgree checks the N-player discounted game
// on a product kernel and its sparse form against the dense table to
// 1e-12: values, visitation, best responses and NE-gaps, for a
// general-sum and a cooperative game.
func TestDiscountedGeneralSumKernelsAgree(t *testing.T) {
	rng := epiNewRNG(32)
	act := []int{2, 3, 2}
	local := kernRandomLocal([]int{2, 3, 2}, act, true, rng)
	table := kernExpand(local)
	S, J := len(table), len(table[0])
	rew := make([][][]float64, S)
	shared := make([][]float64, S)
	for s := range S {
		rew[s] = make([][]float64, J)
		shared[s] = make([]float64, J)
		for j := range J {
			rew[s][j] = []float64{rng.Float64(), rng.Float64(), rng.Float64()}
			shared[s][j] = rng.Float64()
		}
	}
	rho := kernRandomRow(S, false, rng)
	pk, err := NewProductKernel(nested.Dense3s(local))
	if err != nil {
		t.Fatal(err)
	}
	for _, coop := range []bool{false, true} {
		var dense *DiscountedGeneralSum
		if coop {
			dense, err = newCooperative(act, shared, table, 0.85, rho)
		} else {
			dense, err = newGeneralSum(act, rew, table, 0.85, rho)
		}
		if err != nil {
			t.Fatal(err)
		}
		pi := []Stationary{kernPolicy(S, 2, 3), kernPolicy(S, 3, 4), kernPolicy(S, 2, 5)}
		V0, err := dense.Values(pi)
		if err != nil {
			t.Fatal(err)
		}
		d0, err := dense.Visitation(pi)
		if err != nil {
			t.Fatal(err)
		}
		gap0, per0, err := dense.NEGap(pi)
		if err != nil {
			t.Fatal(err)
		}
		for name, k := range map[string]Kernel{"product": pk, "sparse": SparseFrom(pk)} {
			var g *DiscountedGeneralSum
			if coop {
				g, err = NewDiscountedGeneralSum(act, nested.Dense2(shared), k, 0.85, rho)
			} else {
				g, err = NewDiscountedGeneralSum(act, nested.Dense3(rew), k, 0.85, rho)
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Cooperative() != coop || g.Kernel() != k {
				t.Fatalf("%s coop=%v: Cooperative %v", name, coop, g.Cooperative())
			}
			V, err := g.Values(pi)
			if err != nil {
				t.Fatal(err)
			}
			for i := range V {
				if !kernClose(V[i], V0[i], 1e-12) {
					t.Fatalf("%s coop=%v: V_%d %v, dense %v", name, coop, i, V[i], V0[i])
				}
			}
			d, err := g.Visitation(pi)
			if err != nil {
				t.Fatal(err)
			}
			gap, per, err := g.NEGap(pi)
			if err != nil {
				t.Fatal(err)
			}
			if !kernClose(d, d0, 1e-12) || math.Abs(gap-gap0) > 1e-12 || !kernClose(per, per0, 1e-12) {
				t.Fatalf("%s coop=%v: visitation %v gap %v %v; dense %v %v %v", name, coop, d, gap, per, d0, gap0, per0)
			}
			if row := g.Transition(5, 7); !kernClose(row, table[5][7], 1e-15) {
				t.Fatalf("%s: Transition(5, 7) = %v, want %v", name, row, table[5][7])
			}
		}
	}
	if _, err := NewDiscountedGeneralSum(act, nested.Dense3(rew), nil, 0.85, rho); !errors.Is(err, ErrKernel) {
		t.Errorf("nil kernel: error %v", err)
	}
	if _, err := NewDiscountedGeneralSum([]int{2, 3, 3}, nested.Dense3(rew), pk, 0.85, rho); !errors.Is(err, ErrKernel) || !strings.Contains(err.Error(), "12 joint actions, want 18") {
		t.Errorf("joint-action mismatch: error %v", err)
	}
	if _, err := NewDiscountedGeneralSum(act, nested.Dense3(rew[:3]), pk, 0.85, rho); err == nil || !strings.Contains(err.Error(), "3 reward states but the kernel has 12") {
		t.Errorf("state mismatch: error %v", err)
	}
	if _, err := NewDiscountedGeneralSum(act, nested.Dense2(shared), pk, 0.85, rho[:3]); err == nil || !strings.Contains(err.Error(), "initial distribution") {
		t.Errorf("bad ρ: error %v", err)
	}
}
