package control

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/icrl-go/icrl/quantize"
	"github.com/icrl-go/icrl/tensor"
)

// Golden values computed by a plain-Python transcription of eq. (1).
var (
	goldenX   = [][]float64{{0.5, -0.25}, {-1, 0.75}, {0.2, 0.9}}
	goldenOne = [][]float64{
		{0.329109861937281, 0.577039438769717},
		{-0.143916643923580, 1.465687024126888},
		{1.204091705784573, 0.959758869960874},
	}
	goldenTwo = [][]float64{
		{1.552850254025037, 1.041304250388922},
		{1.804767003030249, 1.735593502582264},
		{2.383987182921677, 1.326790050954707},
	}
	goldenTarget = [][]float64{
		{-0.024989725506473, 0.418253999826806},
		{-0.269455759953915, 0.570281473357914},
		{-0.121363872589628, 0.524092076314712},
	}
)

const goldenMSE = 0.9715828495929711 // (1/N) Σ ‖Y_i − T(X)_i‖², Y = one layer

func goldenBlock[F tensor.Float]() Block[F] {
	return Block[F]{Dims: goldenDims, Beta: 0.5, Sigma: ReLU[F]{}}
}

func tokensF[F tensor.Float](xs [][]float64) [][]F {
	out := make([][]F, len(xs))
	for i, x := range xs {
		out[i] = toF[F](x)
	}
	return out
}

func maxDiff[F tensor.Float](a [][]F, b [][]float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return math.Inf(1)
		}
		for c := range a[i] {
			m = max(m, math.Abs(float64(a[i][c])-b[i][c]))
		}
	}
	return m
}

func alloc2[F tensor.Float](n, d int) [][]F {
	out := make([][]F, n)
	for i := range out {
		out[i] = make([]F, d)
	}
	return out
}

func randTokens(n, d int, rng *rand.Rand) [][]float64 {
	xs := make([][]float64, n)
	for i := range xs {
		xs[i] = make([]float64, d)
		for c := range xs[i] {
			xs[i][c] = 2*rng.Float64() - 1
		}
	}
	return xs
}

func asF64[F tensor.Float](xs [][]F) [][]float64 {
	out := make([][]float64, len(xs))
	for i, x := range xs {
		out[i] = make([]float64, len(x))
		for c, v := range x {
			out[i][c] = float64(v)
		}
	}
	return out
}

// TestGoldenForward checks one layer against the golden values.
func TestGoldenForward(t *testing.T) {
	testGolden[float64](t, 1e-12, 1e-15)
	testGolden[float32](t, 2e-6, 1e-6)
}

func testGolden[F tensor.Float](t *testing.T, tol, tolTarget float64) {
	b := goldenBlock[F]()
	u := goldenAction[F](t)
	xs := tokensF[F](goldenX)

	one := alloc2[F](3, 2)
	b.Layer(one, xs, u, b.NewScratch(3))
	if d := maxDiff(one, goldenOne); d > tol {
		t.Errorf("%T: one layer off golden by %g: %v", F(0), d, one)
	}
	// nil Sigma means ReLU.
	one2 := alloc2[F](3, 2)
	Block[F]{Dims: goldenDims, Beta: 0.5}.Layer(one2, xs, u, nil)
	if !slices.EqualFunc(one, one2, slices.Equal) {
		t.Errorf("nil Sigma differs from ReLU: %v vs %v", one2, one)
	}
	two := b.Forward(xs, []Action[F]{*u, *u})
	if d := maxDiff(two, goldenTwo); d > 2*tol {
		t.Errorf("%T: two layers off golden by %g: %v", F(0), d, two)
	}
	// Nothing keeps tokens in S: the second layer leaves [-1,1]².
	if two[2][0] <= 1 {
		t.Errorf("golden two-layer output %v should leave [-1,1]²", two[2])
	}
	if maxDiff(xs, asF64(tokensF[F](goldenX))) != 0 {
		t.Error("Forward modified its input")
	}
	if d := maxDiff(b.Forward(xs, nil), asF64(xs)); d != 0 {
		t.Error("Forward with no layers is not the identity")
	}

	target := SelfAttentionTarget(xs, F(0.3))
	if d := maxDiff(target, goldenTarget); d > tol {
		t.Errorf("%T: target off golden by %g: %v", F(0), d, target)
	}
	// The target is one layer with W = 0, Q = I, K = 0.6 I, V = I at β = 0.5,
	// whatever A and b are.
	ua, err := SelfAttentionAction(goldenDims, F(0.3), F(0.5))
	if err != nil {
		t.Fatal(err)
	}
	if k := ua.K[0]; math.Abs(float64(k)-0.6) > 1e-7 || ua.MaxAbs() > 1 {
		t.Errorf("SelfAttentionAction K = %v", ua.K)
	}
	copy(ua.A, []F{0.3, -0.9, 0.7, 0.2})
	copy(ua.B, []F{0.5, -0.1})
	viaLayer := alloc2[F](3, 2)
	b.Layer(viaLayer, xs, ua, nil)
	if d := maxDiff(viaLayer, asF64(target)); d > tolTarget {
		t.Errorf("%T: target vs one identity layer differ by %g", F(0), d)
	}

	var mse float64
	for i := range one {
		for c := range one[i] {
			e := float64(one[i][c]) - goldenTarget[i][c]
			mse += e * e
		}
	}
	mse /= 3
	if math.Abs(mse-goldenMSE) > 10*tol {
		t.Errorf("%T: (1/N)Σ‖Y−T(X)‖² = %.16g, want %.16g", F(0), mse, goldenMSE)
	}
}

// eq. (5) with uniform weights is eq. (1); weights are
// multiplicities; rescaling does nothing; zero weights are skipped.
func TestMapTokenMatchesLayer(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		d := Dims{D: 1 + trial%4, Hidden: 1 + trial%3, QK: 1 + trial%2}
		N := 2 + trial%5
		b := Block[float64]{Dims: d, Beta: 0.1 + 2*rng.Float64()}
		if trial%2 == 1 {
			b.Sigma = Tanh[float64]{}
		}
		u := randomAction(d, -1, 1, rng)
		xs := randTokens(N, d.D, rng)
		want := alloc2[float64](N, d.D)
		s := b.NewScratch(N)
		b.Layer(want, xs, u, s)

		w := make([]float64, N)
		for i := range w {
			w[i] = 1 / float64(N)
		}
		got := make([]float64, d.D)
		for i := range N {
			b.MapToken(got, xs[i], u, xs, w, s)
			for c := range got {
				if math.Abs(got[c]-want[i][c]) > 1e-13 {
					t.Fatalf("trial %d token %d: MapToken %v, Layer %v", trial, i, got, want[i])
				}
			}
		}

		// Token 1 listed twice = atom of weight 2/(N+1).
		twice := append(slices.Clone(xs), xs[1])
		wantTw := alloc2[float64](N+1, d.D)
		b.Layer(wantTw, twice, u, s)
		wm := make([]float64, N)
		for i := range wm {
			wm[i] = 1 / float64(N+1)
		}
		wm[1] = 2 / float64(N+1)
		for i := range N {
			b.MapToken(got, xs[i], u, xs, wm, s)
			for c := range got {
				if math.Abs(got[c]-wantTw[i][c]) > 1e-13 {
					t.Fatalf("trial %d: weight 2/N atom %v, duplicated token %v", trial, got, wantTw[i])
				}
			}
		}

		// Rescaled random weights, plus a zero-weight junk atom (even NaN).
		wr := make([]float64, N)
		for i := range wr {
			wr[i] = 0.05 + rng.Float64()
		}
		ref := make([]float64, d.D)
		b.MapToken(ref, xs[0], u, xs, wr, s)
		scaled := make([]float64, N)
		for i := range wr {
			scaled[i] = 37.5 * wr[i]
		}
		junk := make([]float64, d.D)
		for c := range junk {
			junk[c] = math.NaN()
		}
		b.MapToken(got, xs[0], u, append(slices.Clone(xs), junk), append(scaled, 0), s)
		for c := range got {
			if math.Abs(got[c]-ref[c]) > 1e-13 {
				t.Fatalf("trial %d: rescaled weights %v, original %v", trial, got, ref)
			}
		}
		// In place: dst = x.
		xin := slices.Clone(xs[0])
		b.MapToken(xin, xin, u, xs, wr, s)
		if !slices.Equal(xin, ref) {
			t.Fatalf("MapToken in place %v, want %v", xin, ref)
		}
	}
}

func TestLayerInPlaceAndScratchGrowth(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := Dims{3, 4, 2}
	b := Block[float64]{Dims: d, Beta: 0.7}
	u := randomAction(d, -1, 1, rng)
	xs := randTokens(6, 3, rng)
	want := alloc2[float64](6, 3)
	b.Layer(want, xs, u, nil)
	s := b.NewScratch(1) // too small: grows once
	in := tokensF[float64](xs)
	b.Layer(in, in, u, s)
	if maxDiff(in, want) != 0 {
		t.Errorf("in-place Layer differs from out-of-place")
	}
	// After growth the calls do not allocate.
	dst := alloc2[float64](6, 3)
	w := []float64{0.1, 0.2, 0.3, 0.1, 0.2, 0.1}
	if n := testing.AllocsPerRun(100, func() { b.Layer(dst, xs, u, s) }); n != 0 {
		t.Errorf("Layer allocates %v times per call", n)
	}
	if n := testing.AllocsPerRun(100, func() { b.MapToken(dst[0], xs[0], u, xs, w, s) }); n != 0 {
		t.Errorf("MapToken allocates %v times per call", n)
	}
	// A scratch of other dims is refitted.
	b2 := Block[float64]{Dims: goldenDims, Beta: 0.5}
	one := alloc2[float64](3, 2)
	b2.Layer(one, goldenX, goldenAction[float64](t), s)
	if d := maxDiff(one, goldenOne); d > 1e-12 {
		t.Errorf("refitted scratch gives %v", one)
	}
}

// Permuting the tokens permutes the outputs (eq. (1) has no positional term).
func TestPermutationEquivariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 10 {
		d := Dims{D: 2 + trial%3, Hidden: 3, QK: 2}
		N := 3 + trial%4
		b := Block[float64]{Dims: d, Beta: 0.5 + rng.Float64()}
		us := []Action[float64]{*randomAction(d, -1, 1, rng), *randomAction(d, -1, 1, rng)}
		xs := randTokens(N, d.D, rng)
		perm := rng.Perm(N)
		px := make([][]float64, N)
		for i, p := range perm {
			px[i] = xs[p]
		}
		out, pout := b.Forward(xs, us), b.Forward(px, us)
		for i, p := range perm {
			for c := range out[p] {
				if math.Abs(pout[i][c]-out[p][c]) > 1e-13 {
					t.Fatalf("trial %d: permuted output %v, want %v", trial, pout[i], out[p])
				}
			}
		}
	}
}

// Φ(Empirical(xs)) = Empirical(Layer(xs)), and
// ∫ g dΦ(μ) = (1/N) Σ g(p_i, x_{t+1}^i).
func TestPush(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	d := Dims{2, 3, 2}
	b := Block[float64]{Dims: d, Beta: 0.5, Sigma: ReLU[float64]{}}
	for trial := range 10 {
		N := 2 + trial%4
		u := randomAction(d, -1, 1, rng)
		xs := randTokens(N, 2, rng)
		mu := empirical(t, xs)
		next := alloc2[float64](N, 2)
		b.Layer(next, xs, u, nil)
		phi := b.Push(mu, u)
		want := empirical(t, next)
		if len(phi.Atoms) != N {
			t.Fatalf("Push has %d atoms", len(phi.Atoms))
		}
		for a := range phi.Atoms {
			if phi.Atoms[a].Pos != want.Atoms[a].Pos || phi.W[a] != want.W[a] {
				t.Fatalf("Push changed position or weight of atom %d", a)
			}
			for c := range phi.Atoms[a].X {
				if math.Abs(phi.Atoms[a].X[c]-want.Atoms[a].X[c]) > 1e-13 {
					t.Fatalf("Push atom %d = %v, want %v", a, phi.Atoms[a].X, want.Atoms[a].X)
				}
			}
		}
		if maxDiff(tokensOf(mu), xs) != 0 {
			t.Fatal("Push modified its input")
		}
		for range 5 {
			a0, a1, a2, a3 := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
			g := func(p int, x []float64) float64 {
				return math.Sin(a0*x[0]+a1*x[1]+a2*float64(p)/float64(N)) + a3*x[0]*x[1]
			}
			var lhs, rhs float64
			for a, at := range phi.Atoms {
				lhs += phi.W[a] * g(at.Pos, at.X)
			}
			for i, x := range next {
				rhs += g(i+1, x) / float64(N)
			}
			if math.Abs(lhs-rhs) > 1e-13 {
				t.Fatalf("∫g dΦ(μ) = %v, (1/N)Σg = %v", lhs, rhs)
			}
		}
	}
	// A non-uniform measure: merged duplicate atoms push like the duplicates.
	u := randomAction(d, -1, 1, rng)
	xs := randTokens(3, 2, rng)
	dup := empirical(t, [][]float64{xs[0], xs[1], xs[1], xs[2]})
	merged := quantize.Measure[float64]{
		Atoms: []quantize.Atom[float64]{{Pos: 1, X: xs[0]}, {Pos: 2, X: xs[1]}, {Pos: 4, X: xs[2]}},
		W:     []float64{0.25, 0.5, 0.25},
	}
	pd, pm := b.Push(dup, u), b.Push(merged, u)
	for a, k := range []int{0, 1, 3} {
		if pm.Atoms[a].Pos != merged.Atoms[a].Pos {
			t.Errorf("position changed")
		}
		for c := range 2 {
			if math.Abs(pm.Atoms[a].X[c]-pd.Atoms[k].X[c]) > 1e-13 {
				t.Errorf("merged atom %d pushes to %v, duplicate to %v", a, pm.Atoms[a].X, pd.Atoms[k].X)
			}
		}
	}
}

func tokensOf(m quantize.Measure[float64]) [][]float64 {
	out := make([][]float64, len(m.Atoms))
	for i, a := range m.Atoms {
		out[i] = a.X
	}
	return out
}

// scores around 10³ stay finite and give the hard max.
func TestSoftmaxStability(t *testing.T) {
	testHardMax[float64](t, 1e-9)
	testHardMax[float32](t, 1e-6)
}

func testHardMax[F tensor.Float](t *testing.T, tol float64) {
	// W = 0, Q = I, K = −I, V = [[0.5,0.5],[−0.5,1]]: each token attends to
	// the token with the smallest inner product with it.
	flat := make([]float64, 22)
	copy(flat[10:], []float64{1, 0, 0, 1, -1, 0, 0, -1, 0.5, 0.5, -0.5, 1})
	u, err := NewAction(goldenDims, toF[F](flat))
	if err != nil {
		t.Fatal(err)
	}
	xs := tokensF[F](goldenX)
	pick := []int{1, 0, 0} // argmin_j ⟨x_i, x_j⟩ (margins ≥ 0.36)
	for _, beta := range []float64{1e3, 1e5} {
		b := Block[F]{Dims: goldenDims, Beta: F(beta)}
		out := alloc2[F](3, 2)
		b.Layer(out, xs, u, nil)
		w := []F{0.2, 0.5, 0.3}
		mt := make([]F, 2)
		for i, j := range pick {
			z := goldenX[j]
			want := []float64{0.5*z[0] + 0.5*z[1], -0.5*z[0] + z[1]}
			b.MapToken(mt, xs[i], u, xs, w, nil)
			for c := range 2 {
				for _, got := range []F{out[i][c], mt[c]} {
					if math.IsNaN(float64(got)) || math.Abs(float64(got)-want[c]) > tol {
						t.Errorf("%T β=%g token %d: %v, hard max %v", F(0), beta, i, got, want)
					}
				}
			}
		}
	}
}

func TestBlockValidate(t *testing.T) {
	if err := goldenBlock[float64]().Validate(); err != nil {
		t.Error(err)
	}
	for _, b := range []Block[float64]{
		{Dims: goldenDims, Beta: 0},
		{Dims: goldenDims, Beta: -1},
		{Dims: goldenDims, Beta: math.NaN()},
		{Dims: Dims{2, 2, 0}, Beta: 1},
	} {
		if b.Validate() == nil {
			t.Errorf("Validate(%+v) = nil", b)
		}
	}
	b := goldenBlock[float64]()
	u := goldenAction[float64](t)
	dst := alloc2[float64](3, 2)
	mustPanic(t, "Layer with a short token", func() { b.Layer(dst, [][]float64{{1}, {1, 2}, {3, 4}}, u, nil) })
	mustPanic(t, "Layer into too few rows", func() { b.Layer(dst[:2], goldenX, u, nil) })
	mustPanic(t, "Layer with an action of other dims", func() { b.Layer(dst, goldenX, NewZeroAction[float64](Dims{2, 3, 2}), nil) })
	mustPanic(t, "MapToken with zero weights", func() { b.MapToken(dst[0], goldenX[0], u, goldenX, []float64{0, 0, 0}, nil) })
	mustPanic(t, "MapToken with missing weights", func() { b.MapToken(dst[0], goldenX[0], u, goldenX, []float64{1, 1}, nil) })
}

func TestTanh(t *testing.T) {
	src := []float64{-2, 0, 0.5}
	dst := make([]float64, 3)
	Tanh[float64]{}.Apply(dst, src)
	for i, v := range src {
		if dst[i] != math.Tanh(v) {
			t.Errorf("Tanh(%v) = %v", v, dst[i])
		}
	}
	ReLU[float64]{}.Apply(dst, src)
	if !slices.Equal(dst, []float64{0, 0, 0.5}) {
		t.Errorf("ReLU = %v", dst)
	}
	// One Tanh layer by hand on the golden tokens: FFN W tanh(Ax+b) + attention.
	b := Block[float64]{Dims: goldenDims, Beta: 0.5, Sigma: Tanh[float64]{}}
	br := goldenBlock[float64]()
	u := goldenAction[float64](t)
	out, outR := alloc2[float64](3, 2), alloc2[float64](3, 2)
	b.Layer(out, goldenX, u, nil)
	br.Layer(outR, goldenX, u, nil)
	for i, x := range goldenX {
		h := []float64{0.5*x[0] + x[1] + 0.1, -x[0] + 0.5*x[1] - 0.2}
		hr := []float64{max(h[0], 0), max(h[1], 0)}
		ht := []float64{math.Tanh(h[0]), math.Tanh(h[1])}
		for c, row := range [][]float64{{1, -0.5}, {0.25, 0.75}} {
			want := outR[i][c] - (row[0]*hr[0] + row[1]*hr[1]) + row[0]*ht[0] + row[1]*ht[1]
			if math.Abs(out[i][c]-want) > 1e-14 {
				t.Errorf("Tanh layer token %d: %v, want %v", i, out[i][c], want)
			}
		}
	}
}

// empirical is quantize.Empirical, failing the test on an error.
func empirical(t *testing.T, xs [][]float64) quantize.Measure[float64] {
	t.Helper()
	m, err := quantize.Empirical(xs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
