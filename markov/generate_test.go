package markov

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"gonum.org/v1/gonum/mat"
)

// checkInvariants fails if g violates an invariant of NewDiscounted or has
// a reward outside [0, 1].
func checkInvariants(t *testing.T, g *Discounted) {
	t.Helper()
	S, A, B := g.Dims()
	for s := range S {
		for a := range A {
			for b := range B {
				if r := g.Reward(s, a, b); !(r >= 0 && r <= 1) {
					t.Fatalf("r(%d,%d,%d) = %v", s, a, b, r)
				}
				if err := checkTransition(g.Transition(s, a, b), S, "row"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func TestRandomDiscounted(t *testing.T) {
	g := mustRandom(t, 5, 3, 4, 0.7, 1)
	checkInvariants(t, g)
	if S, A, B := g.Dims(); S != 5 || A != 3 || B != 4 || g.Discount() != 0.7 {
		t.Fatalf("dims %d %d %d γ %v", S, A, B, g.Discount())
	}
	h := mustRandom(t, 5, 3, 4, 0.7, 1)
	if !slices.Equal(g.r, h.r) || !slices.Equal(g.kern.(*DenseKernel).p, h.kern.(*DenseKernel).p) {
		t.Errorf("same seed, different games")
	}
	// Moments: E r = 1/2; a Dirichlet(1,…,1) entry over S states has mean
	// 1/S and variance (S−1)/(S²(S+1)).
	big := mustRandom(t, 4, 20, 20, 0.5, 2)
	var mr, mp, vp float64
	for _, r := range big.r {
		mr += r
	}
	mr /= float64(len(big.r))
	for _, p := range big.kern.(*DenseKernel).p {
		mp += p
		vp += (p - 0.25) * (p - 0.25)
	}
	mp /= float64(len(big.kern.(*DenseKernel).p))
	vp /= float64(len(big.kern.(*DenseKernel).p))
	if math.Abs(mr-0.5) > 0.03 || math.Abs(mp-0.25) > 1e-12 || math.Abs(vp-3.0/80) > 0.004 {
		t.Errorf("reward mean %v (want 0.5), transition mean %v (0.25), variance %v (%v)", mr, mp, vp, 3.0/80)
	}
	for _, c := range []struct {
		s, a, b int
		gamma   float64
		rng     *rand.Rand
		want    string
	}{
		{0, 1, 1, 0.5, rand.New(rand.NewPCG(1, 1)), "0 states"},
		{1, 0, 1, 0.5, rand.New(rand.NewPCG(1, 1)), "0×1 actions"},
		{1, 1, -2, 0.5, rand.New(rand.NewPCG(1, 1)), "1×-2 actions"},
		{1, 1, 1, 1, rand.New(rand.NewPCG(1, 1)), "γ = 1"},
		{1, 1, 1, math.NaN(), rand.New(rand.NewPCG(1, 1)), "γ = NaN"},
		{1, 1, 1, 0.5, nil, "random number generator"},
	} {
		if _, err := RandomDiscounted(c.s, c.a, c.b, c.gamma, c.rng); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RandomDiscounted(%d, %d, %d, %v): error %v, want %q", c.s, c.a, c.b, c.gamma, err, c.want)
		}
	}
}

func TestPerturbedDiscounted(t *testing.T) {
	base := mustRandom(t, 3, 2, 3, 0.9, 5)
	f, err := NewPerturbedDiscounted(base, 0.1, game.PerturbUniform)
	if err != nil {
		t.Fatal(err)
	}
	if f.Base() != base || f.Rho() != 0.1 || f.Law() != game.PerturbUniform {
		t.Errorf("accessors")
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 20 {
		g := f.Sample(rng)
		checkInvariants(t, g)
		if g.Discount() != 0.9 {
			t.Fatalf("γ %v", g.Discount())
		}
		// Uniform ξ: rewards move by at most ρ.
		for k := range g.r {
			if math.Abs(g.r[k]-base.r[k]) > 0.1+1e-15 {
				t.Fatalf("reward moved from %v to %v", base.r[k], g.r[k])
			}
		}
	}
	a := f.Sample(rand.New(rand.NewPCG(9, 9)))
	b := f.Sample(rand.New(rand.NewPCG(9, 9)))
	if !slices.Equal(a.r, b.r) || !slices.Equal(a.kern.(*DenseKernel).p, b.kern.(*DenseKernel).p) {
		t.Errorf("same seed, different samples")
	}

	// ρ = 0 reproduces the base game (up to renormalisation round-off).
	f0, _ := NewPerturbedDiscounted(base, 0, game.PerturbGaussian)
	g0 := f0.Sample(rng)
	if !slices.Equal(g0.r, base.r) {
		t.Errorf("ρ = 0 changed the rewards")
	}
	for k := range g0.kern.(*DenseKernel).p {
		if math.Abs(g0.kern.(*DenseKernel).p[k]-base.kern.(*DenseKernel).p[k]) > 1e-15 {
			t.Fatalf("ρ = 0 changed P: %v vs %v", g0.kern.(*DenseKernel).p[k], base.kern.(*DenseKernel).p[k])
		}
	}

	// Huge ρ: some rows are all zero after clipping and fall back to the
	// base row; every row stays valid.
	fb, _ := NewPerturbedDiscounted(base, 100, game.PerturbUniform)
	fallbacks := 0
	for range 10 {
		g := fb.Sample(rng)
		checkInvariants(t, g)
		for k := range len(g.r) {
			if slices.Equal(g.kern.(*DenseKernel).p[k*3:(k+1)*3], base.kern.(*DenseKernel).p[k*3:(k+1)*3]) {
				fallbacks++
			}
		}
	}
	if fallbacks == 0 {
		t.Errorf("no row fell back to the base row at ρ = 100 (expected 1/8 of them)")
	}

	bad, _ := newDiscounted([][][]float64{{{0.5, 2}}}, [][][][]float64{{{{1}, {1}}}}, 0.5)
	for _, c := range []struct {
		base *Discounted
		rho  float64
		law  game.PerturbationLaw
		want string
	}{
		{nil, 0.1, game.PerturbUniform, "base game"},
		{bad, 0.1, game.PerturbUniform, "r(0, 0, 1) = 2 is outside [0, 1]"},
		{base, -0.1, game.PerturbUniform, "ρ = -0.1"},
		{base, math.NaN(), game.PerturbUniform, "ρ = NaN"},
		{base, math.Inf(1), game.PerturbUniform, "ρ = +Inf"},
		{base, 0.1, game.PerturbationLaw(7), "PerturbationLaw(7)"},
	} {
		if _, err := NewPerturbedDiscounted(c.base, c.rho, c.law); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewPerturbedDiscounted(ρ %v, %v): error %v, want %q", c.rho, c.law, err, c.want)
		}
	}
}

// actionIndependent returns the game with zero rewards and the transition
// matrix p(s, s') for every joint action.
func actionIndependent(t *testing.T, p [][]float64, rows, cols int) *Discounted {
	t.Helper()
	S := len(p)
	r := make([][][]float64, S)
	tr := make([][][][]float64, S)
	for s := range S {
		r[s] = make([][]float64, rows)
		tr[s] = make([][][]float64, rows)
		for a := range rows {
			r[s][a] = make([]float64, cols)
			tr[s][a] = make([][]float64, cols)
			for b := range cols {
				tr[s][a][b] = p[s]
			}
		}
	}
	g, err := newDiscounted(r, tr, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestMaxHittingTime(t *testing.T) {
	hit := func(g *Discounted) float64 {
		t.Helper()
		L, err := MaxHittingTime(g)
		if err != nil {
			t.Fatal(err)
		}
		return L
	}
	if L := hit(t6Game(t)); !near(L, 2, 1e-12) {
		t.Errorf("T6 chain: L = %v, want 2", L)
	}
	for _, S := range []int{1, 3, 5, 8} {
		p := make([][]float64, S)
		for s := range p {
			p[s] = simplex.Uniform[float64](S)
		}
		want := float64(S)
		if S == 1 {
			want = 0
		}
		if L := hit(actionIndependent(t, p, 2, 3)); !near(L, want, 1e-10) {
			t.Errorf("uniform over %d states: L = %v, want %v", S, L, want)
		}
	}
	// Deterministic 3-cycle 0 → 1 → 2 → 0: the farthest target is 2 steps.
	cycle := [][]float64{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}}
	if L := hit(actionIndependent(t, cycle, 1, 1)); L != 2 {
		t.Errorf("3-cycle: L = %v, want 2", L)
	}
	// A lazy controlled 3-cycle: under joint action (a, b) the chain moves
	// forward with probability q[a][b] and stays otherwise. Going two steps
	// forward takes 2/q on average, and the players maximise it with the
	// slowest joint action: L = 2/min q.
	q := [][]float64{{0.5, 0.4}, {0.25, 0.8}}
	r := make([][][]float64, 3)
	tr := make([][][][]float64, 3)
	for s := range 3 {
		r[s] = [][]float64{{0, 0}, {0, 0}}
		tr[s] = make([][][]float64, 2)
		for a := range 2 {
			tr[s][a] = make([][]float64, 2)
			for b := range 2 {
				row := make([]float64, 3)
				row[s] = 1 - q[a][b]
				row[(s+1)%3] = q[a][b]
				tr[s][a][b] = row
			}
		}
	}
	lazy, err := newDiscounted(r, tr, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if L := hit(lazy); !near(L, 8, 1e-10) {
		t.Errorf("lazy 3-cycle: L = %v, want 2/0.25 = 8", L)
	}
	// Make the joint action (1, 0) in state 1 a self-loop: state 1 can be
	// kept away from the others forever, so L = +Inf.
	tr[1][1][0] = []float64{0, 1, 0}
	trap, err := newDiscounted(r, tr, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if L := hit(trap); !math.IsInf(L, 1) {
		t.Errorf("trap: L = %v, want +Inf", L)
	}
	// Reaching a trap with positive probability is enough: state 0 moves to
	// 1 or 2 with probability ½ each, and 2 is absorbing under one action.
	split := [][][][]float64{
		{{{0, 0.5, 0.5}, {0, 0.5, 0.5}}},
		{{{1, 0, 0}, {1, 0, 0}}},
		{{{1, 0, 0}, {0, 0, 1}}},
	}
	rs := [][][]float64{{{0, 0}}, {{0, 0}}, {{0, 0}}}
	sg, err := newDiscounted(rs, split, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if L := hit(sg); !math.IsInf(L, 1) {
		t.Errorf("split: L = %v, want +Inf", L)
	}
	if _, err := MaxHittingTime(nil); err == nil {
		t.Errorf("nil game: no error")
	}
}

// TestMaxHittingTimeBruteForce compares MaxHittingTime with the maximum
// over every deterministic joint policy of the hitting times computed by a
// linear solve.
func TestMaxHittingTimeBruteForce(t *testing.T) {
	finite, infinite := 0, 0
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 17))
		S, A, B := 2+rng.IntN(2), 1+rng.IntN(2), 1+rng.IntN(2)
		g := mustRandom(t, S, A, B, 0.5, seed)
		// Sparsify: zero some entries to make hitting times vary more.
		for k := range S * A * B {
			row := g.kern.(*DenseKernel).p[k*S : (k+1)*S]
			j := rng.IntN(S)
			if rng.IntN(8) != 0 {
				continue
			}
			var sum float64
			for s := range row {
				if s == j && row[(s+1)%S] > 0 {
					row[s] = 0
				}
				sum += row[s]
			}
			for s := range row {
				row[s] /= sum
			}
		}
		K := A * B
		var want float64
		enumerate(S, K, func(p Stationary) {
			for target := range S {
				var idx []int
				for s := range S {
					if s != target {
						idx = append(idx, s)
					}
				}
				n := len(idx)
				m := mat.NewDense(n, n, nil)
				for i, s := range idx {
					k := slices.Index(p[s], 1)
					row := g.Transition(s, k/B, k%B)
					for j, s2 := range idx {
						v := -row[s2]
						if i == j {
							v++
						}
						m.Set(i, j, v)
					}
				}
				var h mat.VecDense
				ones := mat.NewVecDense(n, nil)
				for i := range n {
					ones.SetVec(i, 1)
				}
				if err := h.SolveVec(m, ones); err != nil {
					want = math.Inf(1)
					continue
				}
				for i := range n {
					want = max(want, h.AtVec(i))
				}
			}
		})
		got, err := MaxHittingTime(g)
		if err != nil {
			t.Fatal(err)
		}
		if math.IsInf(got, 1) {
			infinite++
		} else {
			finite++
		}
		if got != want && !near(got, want, 1e-9*max(1, want)) {
			t.Errorf("seed %d: MaxHittingTime %v, brute force %v", seed, got, want)
		}
	}
	if finite < 10 || infinite < 3 {
		t.Errorf("%d finite and %d infinite cases: the test does not cover both", finite, infinite)
	}
}
