package markov

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
)

// t6Game is a two-state example with known values: γ = 0.9, R_0 = [[1,0],[0,1]],
// R_1 = [[1,0],[0,0.5]], every transition uniform over the two states.
func t6Game(t testing.TB) *Discounted {
	t.Helper()
	half := []float64{0.5, 0.5}
	p := [][][]float64{{half, half}, {half, half}}
	g, err := newDiscounted(
		[][][]float64{{{1, 0}, {0, 1}}, {{1, 0}, {0, 0.5}}},
		[][][][]float64{p, p}, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// singleState returns the one-state game with stage matrix m.
func singleState(t testing.TB, m [][]float64, gamma float64) *Discounted {
	t.Helper()
	p := make([][][]float64, len(m))
	for a := range m {
		p[a] = make([][]float64, len(m[a]))
		for b := range m[a] {
			p[a][b] = []float64{1}
		}
	}
	g, err := newDiscounted([][][]float64{m}, [][][][]float64{p}, gamma)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustRandom(t testing.TB, s, a, b int, gamma float64, seed uint64) *Discounted {
	t.Helper()
	g, err := RandomDiscounted(s, a, b, gamma, rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// randomPolicy returns a random mixed stationary policy.
func randomPolicy(states, actions int, rng *rand.Rand) Stationary {
	p := make(Stationary, states)
	for s := range p {
		p[s] = make([]float64, actions)
		var sum float64
		for a := range p[s] {
			p[s][a] = rng.ExpFloat64()
			sum += p[s][a]
		}
		for a := range p[s] {
			p[s][a] /= sum
		}
	}
	return p
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func assertVec(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %v, want %v", name, got, want)
	}
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Fatalf("%s = %v, want %v (±%g)", name, got, want, tol)
		}
	}
}

func TestT6Golden(t *testing.T) {
	g := t6Game(t)
	sol, err := ShapleyValueIteration(g, 1e-12, 10000)
	if err != nil {
		t.Fatal(err)
	}
	assertVec(t, "V*", sol.V, []float64{4.25, 4.25 - 1.0/6}, 1e-8)
	assertVec(t, "X[0]", sol.X[0], []float64{0.5, 0.5}, 1e-8)
	assertVec(t, "Y[0]", sol.Y[0], []float64{0.5, 0.5}, 1e-8)
	assertVec(t, "X[1]", sol.X[1], []float64{1.0 / 3, 2.0 / 3}, 1e-8)
	assertVec(t, "Y[1]", sol.Y[1], []float64{1.0 / 3, 2.0 / 3}, 1e-8)
	for s, q := range sol.Q {
		if v, _ := game.Solve(q); !near(v.Value, sol.V[s], 1e-12) {
			t.Errorf("val(Q[%d]) = %v, V[%d] = %v", s, v.Value, s, sol.V[s])
		}
	}

	gap, mx, err := g.Gap(sol.X, sol.Y)
	if err != nil {
		t.Fatal(err)
	}
	assertVec(t, "gap at NE", gap, []float64{0, 0}, 1e-8)
	if mx > 1e-8 {
		t.Errorf("max gap at NE = %v", mx)
	}
	v, err := g.Evaluate(sol.X, sol.Y)
	if err != nil {
		t.Fatal(err)
	}
	assertVec(t, "V^{x*,y*}", v, sol.V, 1e-9)

	u := UniformStationary(2, 2)
	gap, mx, err = g.Gap(u, u)
	if err != nil {
		t.Fatal(err)
	}
	assertVec(t, "gap(uniform)", gap, []float64{1.125, 1.375}, 1e-12)
	if !near(mx, 1.375, 1e-12) {
		t.Errorf("max gap(uniform) = %v, want 1.375", mx)
	}
	vmax, brx, err := g.BestResponse(u, game.RowPlayer)
	if err != nil {
		t.Fatal(err)
	}
	assertVec(t, "BR-max value", vmax, []float64{5, 5}, 1e-12)
	// Against uniform y both rows give 0.5 in s0 (tie: action 0); in s1 the
	// rows give 0.5 and 0.25: action 0.
	if !slices.Equal(brx[0], []float64{1, 0}) || !slices.Equal(brx[1], []float64{1, 0}) {
		t.Errorf("BR-max policy = %v, want [[1 0] [1 0]]", brx)
	}
	vmin, bry, err := g.BestResponse(u, game.ColumnPlayer)
	if err != nil {
		t.Fatal(err)
	}
	assertVec(t, "BR-min value", vmin, []float64{3.875, 3.625}, 1e-12)
	// s0: columns tie at 0.5 (action 0); s1: columns 0.5 and 0.25 (action 1).
	if !slices.Equal(bry[0], []float64{1, 0}) || !slices.Equal(bry[1], []float64{0, 1}) {
		t.Errorf("BR-min policy = %v, want [[1 0] [0 1]]", bry)
	}
	vu, err := g.Evaluate(u, u)
	if err != nil {
		t.Fatal(err)
	}
	// r_uu = (0.5, 0.375), so V = r + 0.45(V0+V1)·1: V0+V1 = 0.875/0.1.
	assertVec(t, "V^{u,u}", vu, []float64{0.5 + 0.45*8.75, 0.375 + 0.45*8.75}, 1e-12)
}

func TestSingleState(t *testing.T) {
	m := [][]float64{{0.9, 0.1}, {0.2, 0.6}}
	g := singleState(t, m, 0)
	sol, err := ShapleyValueIteration(g, 1e-12, 10)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Iterations != 1 {
		t.Errorf("γ = 0 took %d sweeps, want 1", sol.Iterations)
	}
	assertVec(t, "x*", sol.X[0], []float64{1.0 / 3, 2.0 / 3}, 1e-12)
	assertVec(t, "y*", sol.Y[0], []float64{5.0 / 12, 7.0 / 12}, 1e-12)
	assertVec(t, "V*", sol.V, []float64{13.0 / 30}, 1e-12)

	for _, c := range []struct {
		m     [][]float64
		gamma float64
	}{
		{m, 0.5}, {m, 0.9}, {[][]float64{{0.5, 0, 1}, {1, 0.5, 0}, {0, 1, 0.5}}, 0.8},
		{[][]float64{{1, 0}, {0, 0.5}}, 0.95},
	} {
		g := singleState(t, c.m, c.gamma)
		sol, err := ShapleyValueIteration(g, 1e-11, 100000)
		if err != nil {
			t.Fatal(err)
		}
		val, err := game.Solve(game.MustZeroSum(c.m))
		if err != nil {
			t.Fatal(err)
		}
		want := val.Value / (1 - c.gamma)
		if !near(sol.V[0], want, 1e-10) {
			t.Errorf("γ = %v, M = %v: V* = %v, want val(M)/(1−γ) = %v", c.gamma, c.m, sol.V[0], want)
		}
		if _, mx, _ := g.Gap(sol.X, sol.Y); mx > 1e-10 {
			t.Errorf("γ = %v, M = %v: gap %v", c.gamma, c.m, mx)
		}
	}
}

func TestShapleyRandomGap(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 1))
		S, A, B := 1+rng.IntN(4), 1+rng.IntN(3), 1+rng.IntN(3)
		gamma := []float64{0, 0.5, 0.9, 0.95}[seed%4]
		g := mustRandom(t, S, A, B, gamma, seed)
		const tol = 1e-11
		sol, err := ShapleyValueIteration(g, tol, 100000)
		if err != nil {
			t.Fatal(err)
		}
		gap, mx, err := g.Gap(sol.X, sol.Y)
		if err != nil {
			t.Fatal(err)
		}
		if mx > 1e-9 {
			t.Errorf("seed %d (S=%d, A=%d, B=%d, γ=%v): NE-gap %v (per state %v)", seed, S, A, B, gamma, mx, gap)
		}
		v, err := g.Evaluate(sol.X, sol.Y)
		if err != nil {
			t.Fatal(err)
		}
		assertVec(t, "V^{x*,y*} vs V*", v, sol.V, 1e-9)
		// V* is a fixed point of the Shapley operator.
		for s := range S {
			z := g.Stage(s, sol.V)
			val, err := game.Solve(z)
			if err != nil {
				t.Fatal(err)
			}
			if !near(val.Value, sol.V[s], 1e-9) {
				t.Errorf("seed %d: val(Q_%d(V*)) = %v, V*(%d) = %v", seed, s, val.Value, s, sol.V[s])
			}
		}
	}
}

// TestShapleySymmetric checks a symmetric game: A = B and
// r(s,a,b) = 1 − r(s,b,a). For a constant V ≡ c the stage matrix
// Q_s = R_s + γc·11ᵀ satisfies Q_s + Q_sᵀ = (1 + 2γc)·11ᵀ, and a matrix game M
// with M + Mᵀ = k·11ᵀ has value k/2 (each player can play the other's
// optimal strategy and pᵀMp = k/2). So val(Q_s) = ½ + γc for every s, and the
// constant c = 1/(2(1−γ)) is the fixed point of the Shapley operator, for any
// transitions (they need not be symmetric).
func TestShapleySymmetric(t *testing.T) {
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 3))
		S, A := 1+rng.IntN(4), 1+rng.IntN(4)
		gamma := []float64{0.3, 0.9}[seed%2]
		base := mustRandom(t, S, A, A, gamma, seed)
		r := make([][][]float64, S)
		p := make([][][][]float64, S)
		for s := range S {
			r[s] = make([][]float64, A)
			p[s] = make([][][]float64, A)
			for a := range A {
				r[s][a] = make([]float64, A)
				p[s][a] = make([][]float64, A)
				for b := range A {
					switch {
					case a < b:
						r[s][a][b] = base.Reward(s, a, b)
					case a == b:
						r[s][a][b] = 0.5
					default:
						r[s][a][b] = 1 - base.Reward(s, b, a)
					}
					p[s][a][b] = base.Transition(s, a, b)
				}
			}
		}
		g, err := newDiscounted(r, p, gamma)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := ShapleyValueIteration(g, 1e-11, 100000)
		if err != nil {
			t.Fatal(err)
		}
		want := 1 / (2 * (1 - gamma))
		for s, v := range sol.V {
			if !near(v, want, 1e-9) {
				t.Errorf("seed %d: V*(%d) = %v, want 1/(2(1−γ)) = %v", seed, s, v, want)
			}
		}
	}
}

// TestShapleyDeterministic checks that the parallel sweep gives the same
// bits on one and on two goroutines.
func TestShapleyDeterministic(t *testing.T) {
	g := mustRandom(t, 60, 8, 9, 0.5, 11) // S·A·B ≥ shapleyParallelWork
	if 60*8*9 < shapleyParallelWork {
		t.Fatal("game too small to exercise the parallel sweep")
	}
	old := runtime.GOMAXPROCS(1)
	one, err1 := ShapleyValueIteration(g, 1e-10, 1000)
	runtime.GOMAXPROCS(max(old, 2))
	two, err2 := ShapleyValueIteration(g, 1e-10, 1000)
	runtime.GOMAXPROCS(old)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !slices.Equal(one.V, two.V) || one.Iterations != two.Iterations {
		t.Fatalf("V differs between 1 and 2 goroutines")
	}
	for s := range one.X {
		if !slices.Equal(one.X[s], two.X[s]) || !slices.Equal(one.Y[s], two.Y[s]) {
			t.Fatalf("policies differ at state %d", s)
		}
	}
	if _, mx, _ := g.Gap(one.X, one.Y); mx > 1e-10 {
		t.Errorf("gap %v", mx)
	}
}

func TestShapleyErrors(t *testing.T) {
	g := t6Game(t)
	sol, err := ShapleyValueIteration(g, 1e-8, 3)
	if err == nil || !strings.Contains(err.Error(), "3 sweeps") || !strings.Contains(err.Error(), "residual") {
		t.Errorf("maxIter error = %v", err)
	}
	if sol.Iterations != 3 || len(sol.V) != 2 {
		t.Errorf("partial solution %+v", sol)
	}
	for _, c := range []struct {
		g       *Discounted
		tol     float64
		maxIter int
		want    string
	}{
		{nil, 1e-8, 10, "nil or zero"},
		{g, 0, 10, "tolerance 0"},
		{g, -1, 10, "tolerance -1"},
		{g, math.NaN(), 10, "tolerance NaN"},
		{g, math.Inf(1), 10, "tolerance +Inf"},
		{g, 1e-8, 0, "got 0"},
	} {
		if _, err := ShapleyValueIteration(c.g, c.tol, c.maxIter); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ShapleyValueIteration(tol %v, maxIter %d) error %v, want %q", c.tol, c.maxIter, err, c.want)
		}
	}
	// A stage game that overflows.
	big, err := newDiscounted([][][]float64{{{math.MaxFloat64}}}, [][][][]float64{{{{1}}}}, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ShapleyValueIteration(big, 1e-8, 100); err == nil || !strings.Contains(err.Error(), "state 0") {
		t.Errorf("overflowing game: error %v", err)
	}
}

// enumerate calls f with every deterministic stationary policy over the
// given states and actions.
func enumerate(states, actions int, f func(Stationary)) {
	idx := make([]int, states)
	for {
		p := make(Stationary, states)
		for s, k := range idx {
			p[s] = make([]float64, actions)
			p[s][k] = 1
		}
		f(p)
		s := 0
		for ; s < states; s++ {
			idx[s]++
			if idx[s] < actions {
				break
			}
			idx[s] = 0
		}
		if s == states {
			return
		}
	}
}

func TestBestResponseBruteForce(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 5))
		S, A, B := 1+rng.IntN(4), 1+rng.IntN(3), 1+rng.IntN(3)
		gamma := []float64{0, 0.6, 0.9}[seed%3]
		g := mustRandom(t, S, A, B, gamma, seed)
		x, y := randomPolicy(S, A, rng), randomPolicy(S, B, rng)
		for _, row := range []bool{true, false} {
			opp, K, sign := y, A, 1.0
			if !row {
				opp, K, sign = x, B, -1
			}
			v, pol, err := g.BestResponse(opp, player(row))
			if err != nil {
				t.Fatal(err)
			}
			for s := range S {
				if math.Abs(floatsSum(pol[s])-1) != 0 || slices.Max(pol[s]) != 1 {
					t.Fatalf("seed %d: policy %v is not deterministic", seed, pol)
				}
			}
			eval := func(p Stationary) []float64 {
				var w []float64
				var err error
				if row {
					w, err = g.Evaluate(p, y)
				} else {
					w, err = g.Evaluate(x, p)
				}
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			assertVec(t, "value of the best response", eval(pol), v, 1e-10)
			best := make([]float64, S)
			for s := range best {
				best[s] = math.Inf(-1)
			}
			enumerate(S, K, func(p Stationary) {
				w := eval(p)
				for s := range S {
					if sign*w[s] > sign*v[s]+1e-10 {
						t.Fatalf("seed %d row=%v: policy %v beats the best response in state %d: %v vs %v", seed, row, p, s, w[s], v[s])
					}
					best[s] = max(best[s], sign*w[s])
				}
			})
			for s := range S {
				if !near(best[s], sign*v[s], 1e-10) {
					t.Errorf("seed %d row=%v: best deterministic value %v, best response %v", seed, row, sign*best[s], v[s])
				}
			}
			// Mixed policies cannot do better either.
			for range 5 {
				w := eval(randomPolicy(S, K, rng))
				for s := range S {
					if sign*w[s] > sign*v[s]+1e-10 {
						t.Fatalf("seed %d: a mixed policy beats the best response", seed)
					}
				}
			}
		}
	}
}

func floatsSum(p []float64) float64 {
	var s float64
	for _, v := range p {
		s += v
	}
	return s
}

// TestBestResponseTies checks that ties go to the smallest action index:
// in a game whose rewards do not depend on the actions every action is
// optimal.
func TestBestResponseTies(t *testing.T) {
	g := singleState(t, [][]float64{{0.3, 0.3, 0.3}, {0.3, 0.3, 0.3}}, 0.9)
	for _, row := range []bool{true, false} {
		opp := UniformStationary(1, 3)
		if !row {
			opp = UniformStationary(1, 2)
		}
		v, pol, err := g.BestResponse(opp, player(row))
		if err != nil {
			t.Fatal(err)
		}
		if pol[0][0] != 1 || !near(v[0], 3, 1e-12) {
			t.Errorf("row=%v: value %v, policy %v; want 3 and action 0", row, v, pol)
		}
	}
	// A tie up to round-off: the two rows differ by one ulp-level error.
	g = singleState(t, [][]float64{{0.1 + 0.2}, {0.3}}, 0.9)
	_, pol, _ := g.BestResponse(UniformStationary(1, 1), game.RowPlayer)
	if pol[0][0] != 1 {
		t.Errorf("near-tie: policy %v, want action 0", pol)
	}
}

// TestBestResponseFallback forces the value-iteration fallback and checks
// that it finds the same solution.
func TestBestResponseFallback(t *testing.T) {
	g := mustRandom(t, 4, 3, 3, 0.9, 99)
	y := randomPolicy(4, 3, rand.New(rand.NewPCG(1, 2)))
	want, wantPol, err := g.BestResponse(y, game.RowPlayer)
	if err != nil {
		t.Fatal(err)
	}
	old := brMaxPolicyIter
	brMaxPolicyIter = 1
	defer func() { brMaxPolicyIter = old }()
	got, gotPol, err := g.BestResponse(y, game.RowPlayer)
	if err != nil {
		t.Fatal(err)
	}
	assertVec(t, "value", got, want, 1e-9)
	for s := range gotPol {
		if !slices.Equal(gotPol[s], wantPol[s]) {
			t.Fatalf("fallback policy %v, want %v", gotPol, wantPol)
		}
	}
}

// TestEvaluateMonteCarlo compares Evaluate with discounted returns of
// simulated episodes truncated at a horizon h with γ^h/(1−γ) < 1e-9. The
// mean must lie within 4 standard errors (plus the truncation bias).
func TestEvaluateMonteCarlo(t *testing.T) {
	const n = 20000
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 9))
		S, A, B := 3, 2, 3
		gamma := 0.8
		g := mustRandom(t, S, A, B, gamma, seed)
		x, y := randomPolicy(S, A, rng), randomPolicy(S, B, rng)
		v, err := g.Evaluate(x, y)
		if err != nil {
			t.Fatal(err)
		}
		h := int(math.Ceil(math.Log(1e-9*(1-gamma)) / math.Log(gamma)))
		for s0 := range S {
			var sum, sum2 float64
			for range n {
				s, disc, ret := s0, 1.0, 0.0
				for range h {
					a := simplex.SampleCategorical(x[s], rng)
					b := simplex.SampleCategorical(y[s], rng)
					r, next := g.StepNoise(s, a, b, game.Exact{}, rng)
					ret += disc * r
					disc *= gamma
					s = next
				}
				sum += ret
				sum2 += ret * ret
			}
			mean := sum / n
			sd := math.Sqrt((sum2/n - mean*mean) / (n - 1))
			if math.Abs(mean-v[s0]) > 4*sd+1e-9 {
				t.Errorf("seed %d state %d: Monte Carlo %v ± %v, Evaluate %v", seed, s0, mean, sd, v[s0])
			}
		}
	}
}

func TestPolicyErrors(t *testing.T) {
	g := t6Game(t)
	u := UniformStationary(2, 2)
	bad := []struct {
		name string
		p    Stationary
		want string
	}{
		{"too few states", UniformStationary(1, 2), "has 1 states, want 2"},
		{"too many actions", Stationary{{0.5, 0.5}, {0.2, 0.3, 0.5}}, "[1] has length 3, want 2"},
		{"off simplex", Stationary{{0.5, 0.6}, {0.5, 0.5}}, "[0] sums to 1.1"},
		{"negative", Stationary{{0.5, 0.5}, {1.5, -0.5}}, "[1][1] = -0.5 is negative"},
		{"NaN", Stationary{{math.NaN(), 1}, {0.5, 0.5}}, "[0][0] = NaN"},
		{"empty state", Stationary{{}, {0.5, 0.5}}, "[0] has length 0"},
	}
	for _, c := range bad {
		check := func(what string, err error, who string) {
			t.Helper()
			if err == nil || !strings.Contains(err.Error(), who) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s with %s %s: error %v, want %q naming %q", what, who, c.name, err, c.want, who)
			}
		}
		_, err := g.Evaluate(c.p, u)
		check("Evaluate", err, "row policy x")
		_, err = g.Evaluate(u, c.p)
		check("Evaluate", err, "column policy y")
		_, _, err = g.BestResponse(c.p, game.RowPlayer)
		check("BestResponse", err, "column policy y")
		_, _, err = g.BestResponse(c.p, game.ColumnPlayer)
		check("BestResponse", err, "row policy x")
		_, _, err = g.Gap(c.p, u)
		check("Gap", err, "row policy x")
		_, _, err = g.Gap(u, c.p)
		check("Gap", err, "column policy y")
	}
}

// TestGapProperties checks Gap ≥ 0 and V^{x,†} ≤ V^{x,y} ≤ V^{†,y} for random
// policies of random games.
func TestGapProperties(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 13))
		S, A, B := 1+rng.IntN(5), 1+rng.IntN(4), 1+rng.IntN(4)
		g := mustRandom(t, S, A, B, 0.9, seed)
		x, y := randomPolicy(S, A, rng), randomPolicy(S, B, rng)
		gap, mx, err := g.Gap(x, y)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := g.Evaluate(x, y)
		hi, _, _ := g.BestResponse(y, game.RowPlayer)
		lo, _, _ := g.BestResponse(x, game.ColumnPlayer)
		for s := range S {
			if !(lo[s] <= v[s]+1e-10 && v[s] <= hi[s]+1e-10) || gap[s] < 0 || gap[s] > mx {
				t.Errorf("seed %d state %d: V^{x,†} %v, V %v, V^{†,y} %v, gap %v (max %v)", seed, s, lo[s], v[s], hi[s], gap[s], mx)
			}
		}
	}
}

// TestShapleyWarmStartMatchesLP compares the warm-started sweeps with sweeps
// that solve every stage game by LP.
func TestShapleyWarmStartMatchesLP(t *testing.T) {
	for seed := range uint64(8) {
		g := mustRandom(t, 6, 1+int(seed%4), 2+int(seed%3), 0.9, seed)
		warm, err := ShapleyValueIteration(g, 1e-10, 10000)
		if err != nil {
			t.Fatal(err)
		}
		shapleyWarmStart = false
		cold, err := ShapleyValueIteration(g, 1e-10, 10000)
		shapleyWarmStart = true
		if err != nil {
			t.Fatal(err)
		}
		assertVec(t, "warm V vs LP V", warm.V, cold.V, 1e-10)
		if warm.Iterations != cold.Iterations {
			t.Errorf("seed %d: %d sweeps warm, %d cold", seed, warm.Iterations, cold.Iterations)
		}
		for _, sol := range []ShapleyResult{warm, cold} {
			if _, mx, _ := g.Gap(sol.X, sol.Y); mx > 1e-9 {
				t.Errorf("seed %d: gap %v", seed, mx)
			}
		}
	}
}

func TestWarmStart(t *testing.T) {
	// Shifted RPS: unique NE uniform, value 0.5.
	q := []float64{0.5, 0, 1, 1, 0.5, 0, 0, 1, 0.5}
	var w warmStart
	u := []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	// Supports that are right but weights that are not: solve rewrites them.
	x, y := []float64{0.5, 0.25, 0.25}, []float64{0.2, 0.2, 0.6}
	v, ok := w.solve(q, 3, 3, x, y)
	if !ok || !near(v, 0.5, 1e-14) {
		t.Fatalf("right supports: ok %v, v %v", ok, v)
	}
	assertVec(t, "x", x, u, 1e-14)
	assertVec(t, "y", y, u, 1e-14)
	// Wrong supports: the indifference solution is not an equilibrium.
	if _, ok := w.solve(q, 3, 3, []float64{0.5, 0.5, 0}, []float64{0.5, 0.5, 0}); ok {
		t.Errorf("wrong supports accepted")
	}
	// Supports of different sizes.
	if _, ok := w.solve(q, 3, 3, []float64{1, 0, 0}, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}); ok {
		t.Errorf("unequal supports accepted")
	}
	// A pure saddle point: [[0.9, 0.1],[0.2, 0.05]] has saddle (0, 1).
	x, y = []float64{1, 0}, []float64{0, 1}
	v, ok = w.solve([]float64{0.9, 0.1, 0.2, 0.05}, 2, 2, x, y)
	if !ok || v != 0.1 || x[0] != 1 || y[1] != 1 {
		t.Errorf("saddle: ok %v, x %v, y %v, v %v", ok, x, y, v)
	}
	// Non-finite payoffs are left to game.Solve.
	if _, ok := w.solve([]float64{math.Inf(1), 0, 0, 1}, 2, 2, []float64{0.5, 0.5}, []float64{0.5, 0.5}); ok {
		t.Errorf("infinite payoff accepted")
	}
}

// player maps the tests' row flag to the player index.
func player(row bool) game.Player {
	if row {
		return game.RowPlayer
	}
	return game.ColumnPlayer
}
