package quantize

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

func positive(mu Measure[float64]) Measure[float64] {
	var out Measure[float64]
	for a, w := range mu.W {
		if w > 0 {
			out.Atoms = append(out.Atoms, mu.Atoms[a])
			out.W = append(out.W, w)
		}
	}
	return out
}

func randMeasure(rng *rand.Rand, m, N, d int) Measure[float64] {
	mu := Measure[float64]{}
	s := 0.0
	for range m {
		x := make([]float64, d)
		for k := range x {
			x[k] = 2*rng.Float64() - 1
		}
		mu.Atoms = append(mu.Atoms, Atom[float64]{Pos: 1 + rng.IntN(N), X: x})
		w := rng.ExpFloat64()
		mu.W = append(mu.W, w)
		s += w
	}
	for a := range mu.W {
		mu.W[a] /= s
	}
	return mu
}

// lpW2Sq solves the transportation LP with gonum's simplex (the last
// column constraint is dropped: it is implied; atoms of zero weight are
// dropped too, as gonum's phase 1 can report such problems infeasible).
func lpW2Sq(t *testing.T, c Cost[float64], mu, nu Measure[float64]) float64 {
	mu, nu = positive(mu), positive(nu)
	m, n := len(mu.W), len(nu.W)
	cost := make([]float64, m*n)
	A := mat.NewDense(m+n-1, m*n, nil)
	b := make([]float64, m+n-1)
	for i := range m {
		for j := range n {
			cost[i*n+j] = c.Ground(mu.Atoms[i], nu.Atoms[j])
			A.Set(i, i*n+j, 1)
			if j < n-1 {
				A.Set(m+j, i*n+j, 1)
			}
		}
		b[i] = mu.W[i]
	}
	for j := range n - 1 {
		b[m+j] = nu.W[j]
	}
	v, _, err := lp.Simplex(cost, A, b, 1e-12, nil)
	if err != nil {
		t.Fatalf("gonum lp: %v", err)
	}
	return v
}

// Test 6a: zero on equal measures, symmetric, triangle inequality.
func TestW2SqMetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	trials := 400
	if testing.Short() {
		trials = 100
	}
	for range trials {
		N, d := 1+rng.IntN(3), 1+rng.IntN(3)
		c := Cost[float64]{Lambda: 3 * rng.Float64(), N: N}
		mu := randMeasure(rng, 1+rng.IntN(6), N, d)
		nu := randMeasure(rng, 1+rng.IntN(6), N, d)
		rho := randMeasure(rng, 1+rng.IntN(6), N, d)
		w := func(a, b Measure[float64]) float64 {
			v, err := c.W2Sq(a, b)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		if v := w(mu, mu); math.Abs(v) > 1e-14 {
			t.Fatalf("W²(μ, μ) = %v", v)
		}
		ab, ba := w(mu, nu), w(nu, mu)
		if math.Abs(ab-ba) > 1e-12 {
			t.Fatalf("asymmetric: %v vs %v", ab, ba)
		}
		if ac, cb := w(mu, rho), w(rho, nu); math.Sqrt(ab) > math.Sqrt(ac)+math.Sqrt(cb)+1e-9 {
			t.Fatalf("triangle: %v > %v + %v", math.Sqrt(ab), math.Sqrt(ac), math.Sqrt(cb))
		}
		if v := lpW2Sq(t, c, mu, nu); math.Abs(v-ab) > 1e-10 {
			t.Fatalf("W2Sq = %v, gonum LP = %v", ab, v)
		}
	}
}

// Test 6b: on random rational measures the ℓ×ℓ assignment equals the
// transportation simplex and gonum's LP to 1e-10.
func TestW2SqCountsEqualsLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 2))
	worst := 0.0
	for trial := range 300 {
		N, d := 1+rng.IntN(4), 1+rng.IntN(3)
		c := Cost[float64]{Lambda: 4 * rng.Float64(), N: N}
		ell := 1 + rng.IntN(25)
		mk := func(m int) ([]Atom[float64], []int, Measure[float64]) {
			mu := randMeasure(rng, m, N, d)
			cnt := make([]int, m)
			for range ell {
				cnt[rng.IntN(m)]++
			}
			for a := range cnt {
				mu.W[a] = float64(cnt[a]) / float64(ell)
			}
			return mu.Atoms, cnt, mu
		}
		aa, ca, mu := mk(1 + rng.IntN(8))
		ab, cb, nu := mk(1 + rng.IntN(8))
		hv, err := c.w2Counts(aa, ca, ab, cb, countsAssignment)
		if err != nil {
			t.Fatal(err)
		}
		if av, err := c.W2SqCounts(aa, ca, ab, cb); err != nil || math.Abs(av-hv) > 1e-10 {
			t.Fatalf("W2SqCounts (auto) = %v, %v; assignment %v", av, err, hv)
		}
		tv, err := c.W2Sq(mu, nu)
		if err != nil {
			t.Fatal(err)
		}
		lv := lpW2Sq(t, c, mu, nu)
		if math.Abs(hv-tv) > 1e-10 || math.Abs(hv-lv) > 1e-10 {
			t.Fatalf("trial %d: assignment %v, transport simplex %v, gonum LP %v", trial, hv, tv, lv)
		}
		worst = max(worst, math.Abs(hv-tv), math.Abs(hv-lv))
	}
	t.Logf("largest disagreement assignment/simplex/LP: %.2e", worst)
}

// The transportation simplex on larger random instances against gonum's LP,
// including degenerate ones (equal weights, repeated atoms).
func TestTransportSimplexLarger(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 3))
	for trial := range 40 {
		m, n := 2+rng.IntN(25), 2+rng.IntN(25)
		c := Cost[float64]{Lambda: 1, N: 3}
		mu, nu := randMeasure(rng, m, 3, 2), randMeasure(rng, n, 3, 2)
		if trial%2 == 0 { // degenerate: uniform weights, repeated states
			for a := range mu.W {
				mu.W[a] = 1 / float64(m)
				mu.Atoms[a].X = mu.Atoms[a%3].X
			}
			for b := range nu.W {
				nu.W[b] = 1 / float64(n)
			}
		}
		v, err := c.W2Sq(mu, nu)
		if err != nil {
			t.Fatal(err)
		}
		if w := lpW2Sq(t, c, mu, nu); math.Abs(v-w) > 1e-10 {
			t.Fatalf("%d×%d: simplex %v, gonum %v", m, n, v, w)
		}
	}
}

func TestHungarianBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 4))
	for range 200 {
		n := 1 + rng.IntN(6)
		w := make([]float64, n*n)
		for i := range w {
			w[i] = rng.Float64()
		}
		if rng.IntN(3) == 0 {
			for i := range w {
				w[i] = float64(rng.IntN(3)) // many ties
			}
		}
		got := hungarian(n, w)
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		best := math.Inf(1)
		var rec func(k int)
		rec = func(k int) {
			if k == n {
				s := 0.0
				for r, c := range perm {
					s += w[r*n+c]
				}
				best = min(best, s)
				return
			}
			for i := k; i < n; i++ {
				perm[k], perm[i] = perm[i], perm[k]
				rec(k + 1)
				perm[k], perm[i] = perm[i], perm[k]
			}
		}
		rec(0)
		if math.Abs(got-best) > 1e-12 {
			t.Fatalf("hungarian %v, brute force %v", got, best)
		}
	}
}

// Large ℓ (> 256) goes to the transportation simplex; same value.
func TestW2SqCountsLargeEll(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 5))
	c := Cost[float64]{Lambda: 1, N: 2}
	mu, nu := randMeasure(rng, 5, 2, 2), randMeasure(rng, 4, 2, 2)
	ca := []int{100, 80, 60, 59, 1}
	cb := []int{200, 1, 49, 50}
	big, err := c.W2SqCounts(mu.Atoms, ca, nu.Atoms, cb)
	if err != nil {
		t.Fatal(err)
	}
	// Forcing the 300×300 assignment gives the same value.
	hv, err := c.w2Counts(mu.Atoms, ca, nu.Atoms, cb, countsAssignment)
	if err != nil || math.Abs(hv-big) > 1e-10 {
		t.Fatalf("assignment %v (%v), transport %v", hv, err, big)
	}
	for a := range ca {
		mu.W[a] = float64(ca[a]) / 300
	}
	for b := range cb {
		nu.W[b] = float64(cb[b]) / 300
	}
	if v := lpW2Sq(t, c, mu, nu); math.Abs(v-big) > 1e-10 {
		t.Fatalf("ℓ = 300: %v, LP %v", big, v)
	}
}

// Test 6c: for λ > LambdaMin, W² of two N-atom empirical measures is the
// sequence MSE (and so is the position-locked value).
func TestW2SqEqualsSeqMSE(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for range 300 {
		N, d := 1+rng.IntN(6), 1+rng.IntN(3)
		xs, ys := make([][]float64, N), make([][]float64, N)
		for i := range N {
			xs[i], ys[i] = make([]float64, d), make([]float64, d)
			for k := range d {
				xs[i][k], ys[i][k] = 2*rng.Float64()-1, 2*rng.Float64()-1
			}
		}
		diam := 2 * math.Sqrt(float64(d)) // of [-1,1]^d
		c := Cost[float64]{Lambda: LambdaMin(diam, N) * (1 + rng.Float64()), N: N}
		w, err := c.W2Sq(mustEmpirical(t, xs), mustEmpirical(t, ys))
		if err != nil {
			t.Fatal(err)
		}
		mse := SeqMSE(xs, ys)
		pl, ok := PositionLockedW2Sq(mustEmpirical(t, xs), mustEmpirical(t, ys))
		if !ok || math.Abs(w-mse) > 1e-12 || math.Abs(pl-mse) > 1e-12 {
			t.Fatalf("W² = %v, SeqMSE = %v, position-locked = %v (%v)", w, mse, pl, ok)
		}
	}
}

// Position-locked = W2Sq for general position-balanced measures with
// λ ≥ LambdaMin; ok = false when positions are unbalanced.
func TestPositionLocked(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	balanced := func(N, per, d int) Measure[float64] {
		mu := Measure[float64]{}
		for i := 1; i <= N; i++ {
			m := 1 + rng.IntN(per)
			q := randProb(rng, m, false)
			for _, w := range q {
				x := make([]float64, d)
				for k := range x {
					x[k] = 2*rng.Float64() - 1
				}
				mu.Atoms = append(mu.Atoms, Atom[float64]{Pos: i, X: x})
				mu.W = append(mu.W, w/float64(N))
			}
		}
		return mu
	}
	for range 200 {
		N, d := 1+rng.IntN(4), 1+rng.IntN(2)
		mu, nu := balanced(N, 4, d), balanced(N, 4, d)
		c := Cost[float64]{Lambda: LambdaMin(2*math.Sqrt(float64(d)), N), N: N}
		w, err := c.W2Sq(mu, nu)
		if err != nil {
			t.Fatal(err)
		}
		pl, ok := PositionLockedW2Sq(mu, nu)
		if !ok || math.Abs(w-pl) > 1e-10 {
			t.Fatalf("W² = %v, position-locked %v (%v)", w, pl, ok)
		}
		// Below the threshold, crossing positions can only be cheaper.
		c.Lambda = 0
		if w0, _ := c.W2Sq(mu, nu); w0 > pl+1e-12 {
			t.Fatalf("λ = 0 gives %v > %v", w0, pl)
		}
	}
	mu := Measure[float64]{Atoms: []Atom[float64]{{1, []float64{0}}, {2, []float64{1}}}, W: []float64{0.7, 0.3}}
	if _, ok := PositionLockedW2Sq(mu, mu); ok {
		t.Error("unbalanced positions accepted")
	}
	mu.W = []float64{0.5, math.NaN()}
	if _, ok := PositionLockedW2Sq(mu, mu); ok {
		t.Error("NaN weight accepted")
	}
}

// Test 6d, the A1 counterexample: N = 2, λ = 2D² meets the paper's
// λ > (N/2)·D² but W² = λ/4 = D²/2 ≠ SeqMSE = D².
func TestA1Counterexample(t *testing.T) {
	a, b := []float64{0, 0}, []float64{3, 4} // D = 5
	D2 := 25.0
	xs, ys := [][]float64{a, b}, [][]float64{b, a}
	c := Cost[float64]{Lambda: 2 * D2, N: 2}
	if !(c.Lambda > float64(c.N)/2*D2) {
		t.Fatal("does not meet the paper's Assumption 7")
	}
	w, err := c.W2Sq(mustEmpirical(t, xs), mustEmpirical(t, ys))
	if err != nil {
		t.Fatal(err)
	}
	if mse := SeqMSE(xs, ys); math.Abs(w-c.Lambda/4) > 1e-12 || math.Abs(w-0.5*D2) > 1e-12 || mse != D2 {
		t.Fatalf("W² = %v (want λ/4 = %v), SeqMSE = %v (want %v)", w, c.Lambda/4, mse, D2)
	}
	// With λ ≥ LambdaMin = N²D² = 100 the positions lock.
	c.Lambda = LambdaMin(5.0, 2)
	if c.Lambda != 100 {
		t.Fatalf("LambdaMin = %v", c.Lambda)
	}
	if w, _ := c.W2Sq(mustEmpirical(t, xs), mustEmpirical(t, ys)); math.Abs(w-D2) > 1e-12 {
		t.Fatalf("λ = LambdaMin: W² = %v, want %v", w, D2)
	}
}

func TestW2SqFloat32(t *testing.T) {
	xs := [][]float32{{0, 0}, {1, 0}, {0, 1}}
	ys := [][]float32{{0.5, 0}, {1, 1}, {0, 0}}
	c := Cost[float32]{Lambda: LambdaMin[float32](2, 3), N: 3}
	w, err := c.W2Sq(mustEmpirical(t, xs), mustEmpirical(t, ys))
	if err != nil {
		t.Fatal(err)
	}
	if mse := SeqMSE(xs, ys); math.Abs(float64(w-mse)) > 1e-6 {
		t.Fatalf("float32: W² = %v, SeqMSE = %v", w, mse)
	}
	if g := c.Ground(Atom[float32]{1, xs[0]}, Atom[float32]{2, xs[0]}); math.Abs(float64(g)-36.0/9) > 1e-6 {
		t.Fatalf("Ground = %v, want λ/9 = 4", g)
	}
}

func TestTransportErrors(t *testing.T) {
	nan := math.NaN()
	at := func(p int, x ...float64) Atom[float64] { return Atom[float64]{Pos: p, X: x} }
	good := Measure[float64]{Atoms: []Atom[float64]{at(1, 0), at(2, 1)}, W: []float64{0.5, 0.5}}
	c := Cost[float64]{Lambda: 1, N: 2}
	w2 := func(c Cost[float64], a, b Measure[float64]) error { _, err := c.W2Sq(a, b); return err }
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"λ<0", w2(Cost[float64]{Lambda: -1, N: 2}, good, good), "λ = -1"},
		{"λ nan", w2(Cost[float64]{Lambda: nan, N: 2}, good, good), "λ = NaN"},
		{"N=0", w2(Cost[float64]{Lambda: 1}, good, good), "N = 0"},
		{"empty", w2(c, Measure[float64]{}, good), "measure mu has no atoms"},
		{"lengths", w2(c, good, Measure[float64]{Atoms: good.Atoms, W: []float64{1}}), "measure nu has 2 atoms and 1 weights"},
		{"pos", w2(c, good, Measure[float64]{Atoms: []Atom[float64]{at(3, 0)}, W: []float64{1}}), "position 3 outside [1, 2]"},
		{"dim", w2(c, good, Measure[float64]{Atoms: []Atom[float64]{at(1, 0, 0)}, W: []float64{1}}), "state length 2, want 1"},
		{"x nan", w2(c, good, Measure[float64]{Atoms: []Atom[float64]{at(1, nan)}, W: []float64{1}}), "nu atom 0 state[0] = NaN"},
		{"w neg", w2(c, good, Measure[float64]{Atoms: good.Atoms, W: []float64{1.5, -0.5}}), "W[1] = -0.5"},
		{"w inf", w2(c, good, Measure[float64]{Atoms: good.Atoms, W: []float64{math.Inf(1), 0}}), "W[0] = +Inf"},
		{"w sum", w2(c, good, Measure[float64]{Atoms: good.Atoms, W: []float64{0.5, 0.6}}), "sum to 1.1"},
	}
	cnt := func(ca, cb []int) error {
		_, err := c.W2SqCounts(good.Atoms, ca, good.Atoms, cb)
		return err
	}
	cases = append(cases, []struct {
		name string
		err  error
		want string
	}{
		{"cnt len", cnt([]int{1}, []int{1, 1}), "2 atoms A with 1 counts"},
		{"cnt neg", cnt([]int{2, -1}, []int{1, 0}), "cntA[1] = -1"},
		{"cnt sums", cnt([]int{2, 1}, []int{1, 1}), "ℓ = 3 for A and 2 for B"},
		{"cnt zero", cnt([]int{0, 0}, []int{0, 0}), "ℓ = 0"},
		{"cnt huge", cnt([]int{math.MaxInt32, math.MaxInt32}, []int{1, 1}), "sum to more than"},
	}...)
	for _, tc := range cases {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, tc.err, tc.want)
		}
	}
	big := Measure[float64]{}
	for i := range 1100 {
		big.Atoms = append(big.Atoms, at(1, float64(i)))
		big.W = append(big.W, 1.0/1100)
	}
	if err := w2(c, big, big); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("1100×1100 transport: %v", err)
	}
}

func TestSeqMSEAndEmpirical(t *testing.T) {
	xs := [][]float64{{1, 2}, {3, 4}}
	ys := [][]float64{{1, 0}, {0, 4}}
	if got := SeqMSE(xs, ys); got != (4.0+9.0)/2 {
		t.Fatalf("SeqMSE = %v", got)
	}
	if SeqMSE[float64](nil, nil) != 0 {
		t.Fatal("SeqMSE of empty sequences")
	}
	e := mustEmpirical(t, xs)
	if e.Atoms[1].Pos != 2 || !slices.Equal(e.W, []float64{0.5, 0.5}) {
		t.Fatalf("Empirical = %+v", e)
	}
	defer func() {
		if recover() == nil {
			t.Error("SeqMSE of mismatched lengths did not panic")
		}
	}()
	SeqMSE(xs, ys[:1])
}

// mustEmpirical is Empirical, failing the test on an error.
func mustEmpirical[F tensor.Float](tb testing.TB, xs [][]F) Measure[F] {
	tb.Helper()
	m, err := Empirical(xs)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestEmpiricalRejects: tokens with NaN, +Inf or −Inf entries, ragged
// tokens and no token are refused with the right sentinel.
func TestEmpiricalRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		xs   [][]float64
		want error
	}{
		{"NaN", [][]float64{{0, 1}, {math.NaN(), 0}}, icrl.ErrNotFinite},
		{"+Inf", [][]float64{{0, 1}, {math.Inf(1), 0}}, icrl.ErrNotFinite},
		{"−Inf", [][]float64{{0, math.Inf(-1)}}, icrl.ErrNotFinite},
		{"ragged", [][]float64{{0, 1}, {0}}, icrl.ErrInvalid},
		{"empty", nil, icrl.ErrInvalid},
	} {
		if _, err := Empirical(c.xs); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	m, err := Empirical([][]float64{{0, 1}, {2, 3}})
	if err != nil || len(m.Atoms) != 2 || m.W[0] != 0.5 || m.Atoms[1].Pos != 2 {
		t.Errorf("Empirical of two tokens: %+v, %v", m, err)
	}
}
