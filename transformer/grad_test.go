package transformer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/tensor"
)

// This file checks every backward pass against central finite differences
// in float64: each fused op on its own, then whole 2-layer models of every
// configuration kind.

const fdStep = 1e-6

// relErr returns ‖a − b‖₂ / max(‖a‖₂, ‖b‖₂, tiny).
func relErr(a, b []float64) float64 {
	var d, na, nb float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	return math.Sqrt(d) / max(math.Sqrt(max(na, nb)), 1e-12)
}

func randVec(rng *rand.Rand, n int, s float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = s * rng.NormFloat64()
	}
	return v
}

// checkGradAt compares an analytic gradient with finite differences at the
// entries idx of x only (x is restored).
func checkGradAt(t *testing.T, name string, analytic, x []float64, idx []int, f func() float64) {
	t.Helper()
	an, num := make([]float64, len(idx)), make([]float64, len(idx))
	for q, j := range idx {
		an[q] = analytic[j]
		old := x[j]
		x[j] = old + fdStep
		fp := f()
		x[j] = old - fdStep
		fm := f()
		x[j] = old
		num[q] = (fp - fm) / (2 * fdStep)
	}
	if e := relErr(an, num); e > 1e-6 {
		t.Errorf("%s: relative error %.3g between backprop and finite differences", name, e)
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// checkGrad compares an analytic gradient with finite differences at every
// entry of x.
func checkGrad(t *testing.T, name string, analytic, x []float64, f func() float64) {
	t.Helper()
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	checkGradAt(t, name, analytic, x, idx, f)
}

// TestLinearGrad checks the gradients by finite differences, with one row
// chunk of the bias gradient and with several (see sumRowChunks).
func TestLinearGrad(t *testing.T) {
	for _, n := range []int{5, 2*rowChunk + 22} {
		testLinearGrad(t, n)
	}
}

func testLinearGrad(t *testing.T, n int) {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	const in, out = 4, 3
	x, w, b := randVec(rng, n*in, 1), randVec(rng, in*out, 1), randVec(rng, out, 1)
	r := randVec(rng, n*out, 1)
	f := func() float64 {
		y := make([]float64, n*out)
		linearForward(y, x, n, in, out, w, b)
		return dot(r, y)
	}
	dx, dw, db := make([]float64, n*in), make([]float64, in*out), make([]float64, out)
	linearBackward(dx, dw, db, r, x, n, in, out, w)
	checkGrad(t, "linear dx", dx, x, f)
	checkGrad(t, "linear dw", dw, w, f)
	checkGrad(t, "linear db", db, b, f)
}

// TestLayerNormGrad checks the gradients by finite differences, with one
// row chunk and with several (the last one partial; see sumRowChunks).
func TestLayerNormGrad(t *testing.T) {
	for _, n := range []int{4, 2*rowChunk + 22} {
		testLayerNormGrad(t, n)
	}
}

func testLayerNormGrad(t *testing.T, n int) {
	rng := rand.New(rand.NewPCG(2, uint64(n)))
	const d = 6
	x, g, b := randVec(rng, n*d, 2), randVec(rng, d, 1), randVec(rng, d, 1)
	r := randVec(rng, n*d, 1)
	f := func() float64 {
		y, mu, rs := make([]float64, n*d), make([]float64, n), make([]float64, n)
		layerNormForward(y, mu, rs, x, n, d, g, b, 1e-5)
		return dot(r, y)
	}
	y, mu, rs := make([]float64, n*d), make([]float64, n), make([]float64, n)
	layerNormForward(y, mu, rs, x, n, d, g, b, 1e-5)
	dx, dg, db := make([]float64, n*d), make([]float64, d), make([]float64, d)
	layerNormBackward(dx, dg, db, r, x, mu, rs, n, d, g, false)
	checkGrad(t, "layernorm dx", dx, x, f)
	checkGrad(t, "layernorm dγ", dg, g, f)
	checkGrad(t, "layernorm dβ", db, b, f)
}

func TestActivationGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	for _, act := range []Activation{ReLU, GELU, GELUTanh} {
		x := randVec(rng, 20, 1)
		for i := range x { // keep ReLU away from its kink
			if math.Abs(x[i]) < 1e-3 {
				x[i] = 0.5
			}
		}
		r := randVec(rng, 20, 1)
		f := func() float64 {
			y := make([]float64, len(x))
			activationForward(act, y, x)
			return dot(r, y)
		}
		dx := make([]float64, len(x))
		activationBackward(act, dx, r, x)
		checkGrad(t, "activation "+act.String(), dx, x, f)
	}
}

func TestAttentionGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	const d, heads = 6, 2
	spans := []span{{start: 0, n: 3}, {start: 3, n: 1}, {start: 4, n: 5}}
	n := 0
	for _, sp := range spans {
		n += sp.n
	}
	for _, kind := range []Attention{SoftmaxAttention, ReLUAttention} {
		qkv := randVec(rng, n*3*d, 1)
		r := randVec(rng, n*d, 1)
		f := func() float64 {
			att := make([]float64, n*d)
			attnForward(kind, att, make([]float64, 2*n*heads), qkv, spans, d, heads)
			return dot(r, att)
		}
		att, stats := make([]float64, n*d), make([]float64, 2*n*heads)
		attnForward(kind, att, stats, qkv, spans, d, heads)
		dqkv := make([]float64, n*3*d)
		attnBackward(kind, dqkv, r, stats, qkv, spans, d, heads)
		checkGrad(t, "attention "+kind.String(), dqkv, qkv, f)
	}
}

// TestAttentionGolden checks hand-computed ReLU masked
// attention h_i + (1/i)Σ_{j≤i} relu(⟨h_i, h_j⟩/√d)·h_j with d = 2, one head
// and K = Q = V = I (the residual is added here; in the model it is the
// block's).
func TestAttentionGolden(t *testing.T) {
	for _, tc := range []struct {
		h, want []float64
	}{
		{[]float64{1, 0, 0, 1}, []float64{1.7071067812, 0, 0, 1.3535533906}},
		{[]float64{1, 1, 1, -1}, []float64{2.4142135624, 2.4142135624, 1.7071067812, -1.7071067812}},
	} {
		const d = 2
		qkv := make([]float64, 2*3*d)
		for i := 0; i < 2; i++ {
			for j := 0; j < d; j++ {
				qkv[i*3*d+j] = tc.h[i*d+j]     // queries
				qkv[i*3*d+d+j] = tc.h[i*d+j]   // keys
				qkv[i*3*d+2*d+j] = tc.h[i*d+j] // values
			}
		}
		att := make([]float64, 2*d)
		attnForward(ReLUAttention, att, nil, qkv, []span{{n: 2}}, d, 1)
		for i := range att {
			if got := tc.h[i] + att[i]; math.Abs(got-tc.want[i]) > 1e-9 {
				t.Errorf("tokens %v: output %d = %.10f, want %.10f", tc.h, i, got, tc.want[i])
			}
		}
	}
}

func TestCrossEntropyGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	const out = 4
	p := &pass[float64]{spans: []span{{start: 0, n: 3}, {start: 3, n: 2}}, n: 5}
	p.logits = randVec(rng, 5*out, 2)
	dist := make([]float64, 2*out)
	for i := 0; i < 2; i++ {
		s := 0.0
		for c := 0; c < out; c++ {
			dist[i*out+c] = rng.Float64()
			s += dist[i*out+c]
		}
		for c := 0; c < out; c++ {
			dist[i*out+c] /= s
		}
	}
	targets := []Target[float64]{
		{Labels: []int{2, -1, 0}, Weights: []float64{0.5, 3, 2}},
		{Dist: dist},
	}
	f := func() float64 {
		l, err := crossEntropy(p, targets, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		return l.CE
	}
	dz := make([]float64, len(p.logits))
	if _, err := crossEntropy(p, targets, out, dz); err != nil {
		t.Fatal(err)
	}
	checkGrad(t, "cross-entropy", dz, p.logits, f)
	if dz[1*out] != 0 || dz[1*out+3] != 0 {
		t.Errorf("an unscored position has a non-zero gradient: %v", dz[out:2*out])
	}
}

// gradConfigs lists small 2-layer configurations covering every option.
func gradConfigs() []Config {
	base := Config{Layers: 2, Heads: 2, Width: 8, FeedForward: 12, Outputs: 4, MaxLen: 16}
	var cs []Config
	for _, att := range []Attention{SoftmaxAttention, ReLUAttention} {
		for _, norm := range []Norm{PreNorm, PostNorm, NoNorm} {
			c := base
			c.Attention, c.Norm = att, norm
			c.Vocab = 5
			cs = append(cs, c)
		}
	}
	c := base
	c.Features, c.Activation, c.FinalNorm, c.NoBias = 3, GELU, true, true
	cs = append(cs, c)
	c = base
	c.Features, c.Attention, c.Norm, c.Positions = 3, ReLUAttention, NoNorm, NoPositions
	cs = append(cs, c)
	c = base // GPT-2's language model: tied head, tanh GELU, final norm
	c.Vocab, c.Outputs, c.TiedHead, c.Activation, c.FinalNorm = 5, 5, true, GELUTanh, true
	cs = append(cs, c)
	return cs
}

func configName(c Config) string {
	in := "tokens"
	if c.Features > 0 {
		in = "features"
	}
	return fmt.Sprintf("%v-%vnorm-%s-%v-pos=%v-final=%v-nobias=%v-tied=%v", c.Attention, c.Norm, in, c.Activation, c.Positions, c.FinalNorm, c.NoBias, c.TiedHead)
}

// randomBatch returns a few sequences of lengths 1..6 and mixed targets.
func randomBatch(rng *rand.Rand, c Config) ([]Sequence[float64], []Target[float64]) {
	lens := []int{4, 1, 6}
	seqs := make([]Sequence[float64], len(lens))
	targets := make([]Target[float64], len(lens))
	for k, n := range lens {
		if c.Vocab > 0 {
			seqs[k].Tokens = make([]int, n)
			for i := range seqs[k].Tokens {
				seqs[k].Tokens[i] = rng.IntN(c.Vocab)
			}
		} else {
			seqs[k].Features = randVec(rng, n*c.Features, 1)
		}
		if k == 1 {
			d := make([]float64, n*c.Outputs)
			for i := 0; i < n; i++ {
				d[i*c.Outputs+rng.IntN(c.Outputs)] += 0.6
				d[i*c.Outputs+rng.IntN(c.Outputs)] += 0.4
			}
			targets[k].Dist = d
		} else {
			targets[k].Labels = make([]int, n)
			targets[k].Weights = make([]float64, n)
			for i := range targets[k].Labels {
				targets[k].Labels[i] = rng.IntN(c.Outputs)
				targets[k].Weights[i] = rng.Float64()
			}
		}
	}
	return seqs, targets
}

// TestModelGrad checks the gradient of the loss of a whole 2-layer model
// with respect to every parameter tensor, for every configuration kind.
func TestModelGrad(t *testing.T) {
	for i, c := range gradConfigs() {
		if raceEnabled && i%3 != 0 {
			continue // the race detector checks the concurrency: a third of the configurations (all without it)
		}
		t.Run(configName(c), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(10+i), 7))
			m, err := New[float64](c, rng)
			if err != nil {
				t.Fatal(err)
			}
			// Larger weights than the initialisation, so every path matters.
			for _, p := range m.Params() {
				for j := range p.Value {
					p.Value[j] += 0.3 * rng.NormFloat64()
				}
			}
			seqs, targets := randomBatch(rng, c)
			m.ZeroGrad()
			if _, err := m.Backprop(seqs, targets); err != nil {
				t.Fatal(err)
			}
			f := func() float64 {
				l, err := m.Loss(seqs, targets)
				if err != nil {
					t.Fatal(err)
				}
				return l.CE
			}
			sample := 48 // entries checked of a large tensor
			if raceEnabled {
				sample = 6
			}
			for _, p := range m.Params() {
				x := p.Value
				if len(x) > sample { // a random subset of large tensors
					checkGradAt(t, p.Name, p.Grad, x, rng.Perm(len(x))[:sample], f)
					continue
				}
				checkGrad(t, p.Name, p.Grad, x, f)
			}
			// Backprop accumulates: a second call without ZeroGrad
			// doubles every gradient.
			once := make([][]float64, len(m.Params()))
			for k, p := range m.Params() {
				once[k] = append([]float64(nil), p.Grad...)
			}
			if _, err := m.Backprop(seqs, targets); err != nil {
				t.Fatal(err)
			}
			for k, p := range m.Params() {
				for j, g := range p.Grad {
					if math.Abs(g-2*once[k][j]) > 1e-12*(1+math.Abs(g)) {
						t.Fatalf("%s[%d]: gradient after two Backprops %v, want twice %v", p.Name, j, g, once[k][j])
					}
				}
			}
		})
	}
}

// TestAttentionGradLong checks attention on sequences longer than
// causalBlock, where the products run block by block: the gradient against
// finite differences on a random subset of entries, and the output against
// a direct evaluation of the attention formula.
func TestAttentionGradLong(t *testing.T) {
	// d_h = 2, and d_h = 8, one float64 panel of the matrix product, where
	// the products read the gathered heads in place.
	for _, dims := range [][2]int{{4, 2}, {16, 2}} {
		testAttentionGradLong(t, dims[0], dims[1])
	}
}

func testAttentionGradLong(t *testing.T, d, heads int) {
	rng := rand.New(rand.NewPCG(6, 1))
	dh := d / heads
	spans := []span{{start: 0, n: causalBlock*2 + 5}, {start: causalBlock*2 + 5, n: causalBlock + 1}}
	n := 0
	for _, sp := range spans {
		n += sp.n
	}
	for _, kind := range []Attention{SoftmaxAttention, ReLUAttention} {
		qkv := randVec(rng, n*3*d, 1)
		r := randVec(rng, n*d, 1)
		att, stats := make([]float64, n*d), make([]float64, 2*n*heads)
		attnForward(kind, att, stats, qkv, spans, d, heads)
		// Direct evaluation.
		for _, sp := range spans {
			for h := 0; h < heads; h++ {
				for i := 0; i < sp.n; i++ {
					q := qkv[(sp.start+i)*3*d+h*dh:]
					s := make([]float64, i+1)
					for j := 0; j <= i; j++ {
						k := qkv[(sp.start+j)*3*d+d+h*dh:]
						s[j] = dot(q[:dh], k[:dh]) / math.Sqrt(float64(dh))
					}
					if kind == SoftmaxAttention {
						softmaxPrefix(s)
					} else {
						for j := range s {
							s[j] = max(s[j], 0) / float64(i+1)
						}
					}
					for c := 0; c < dh; c++ {
						var o float64
						for j := 0; j <= i; j++ {
							o += s[j] * qkv[(sp.start+j)*3*d+2*d+h*dh+c]
						}
						if got := att[(sp.start+i)*d+h*dh+c]; math.Abs(got-o) > 1e-12 {
							t.Fatalf("%v: output (%d, %d, %d) = %v, direct %v", kind, i, h, c, got, o)
						}
					}
				}
			}
		}
		f := func() float64 {
			att := make([]float64, n*d)
			attnForward(kind, att, make([]float64, 2*n*heads), qkv, spans, d, heads)
			return dot(r, att)
		}
		dqkv := make([]float64, n*3*d)
		attnBackward(kind, dqkv, r, stats, qkv, spans, d, heads)
		checkGradAt(t, "long attention "+kind.String(), dqkv, qkv, rng.Perm(len(qkv))[:80], f)
	}
}

// TestReLUBackward checks the branch-free ReLU derivative against its
// definition on signed zeros, subnormals, infinities and random values,
// in both float types.
func TestReLUBackward(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 1e-310, -1e-310, math.Inf(1), math.Inf(-1), 1, -1, 3.5, -2.25}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 100 {
		xs = append(xs, rng.NormFloat64())
	}
	dy := make([]float64, len(xs))
	for i := range dy {
		dy[i] = rng.NormFloat64()
	}
	dx := make([]float64, len(xs))
	reluBackward(dx, dy, xs, 0, len(xs))
	x32, dy32, dx32 := make([]float32, len(xs)), make([]float32, len(xs)), make([]float32, len(xs))
	for i := range xs {
		x32[i], dy32[i] = float32(xs[i]), float32(dy[i])
	}
	x32[2], x32[3] = math.Float32frombits(1), -math.Float32frombits(1) // float32 subnormals
	reluBackward(dx32, dy32, x32, 0, len(xs))
	for i, x := range xs {
		want := 0.0
		if x > 0 {
			want = dy[i]
		}
		if dx[i] != want || math.Signbit(dx[i]) != math.Signbit(want) {
			t.Errorf("float64 x = %v: dx = %v, want %v", x, dx[i], want)
		}
		want32 := float32(0)
		if x32[i] > 0 {
			want32 = dy32[i]
		}
		if dx32[i] != want32 || math.Signbit(float64(dx32[i])) != math.Signbit(float64(want32)) {
			t.Errorf("float32 x = %v: dx = %v, want %v", x32[i], dx32[i], want32)
		}
	}
}

// TestBackpropReusesScratch checks that Backprop's reused scratch memory
// leaks nothing from one call into the next: gradients after a large
// batch and then a small one equal those of a fresh copy of the model on
// the small batch alone, bit for bit.
func TestBackpropReusesScratch(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	m, err := New[float32](Config{Layers: 2, Heads: 2, Width: 16, FeedForward: 32, Vocab: 8, Outputs: 3, MaxLen: 64}, rng)
	if err != nil {
		t.Fatal(err)
	}
	fresh := m.Clone()
	big, bigT := peerBatchSized[float32](6, 40, 8, 3, rng)
	small, smallT := peerBatchSized[float32](3, 17, 8, 3, rng)
	for range 2 { // the second call runs in the reused scratch
		if _, err := m.Backprop(big, bigT); err != nil {
			t.Fatal(err)
		}
	}
	m.ZeroGrad()
	l1, err := m.Backprop(small, smallT)
	if err != nil {
		t.Fatal(err)
	}
	l0, err := fresh.Backprop(small, smallT)
	if err != nil {
		t.Fatal(err)
	}
	if l1 != l0 {
		t.Fatalf("loss %+v after a larger batch, %+v fresh", l1, l0)
	}
	for i, p := range m.Params() {
		for k, g := range p.Grad {
			if g != fresh.Params()[i].Grad[k] {
				t.Fatalf("%s gradient %d: %v after a larger batch, %v fresh", p.Name, k, g, fresh.Params()[i].Grad[k])
			}
		}
	}
}

// peerBatchSized returns b random sequences of length t over vocab tokens
// with labels in [0, outputs).
func peerBatchSized[F tensor.Float](b, t, vocab, outputs int, rng *rand.Rand) ([]Sequence[F], []Target[F]) {
	seqs := make([]Sequence[F], b)
	targets := make([]Target[F], b)
	for k := range seqs {
		seqs[k].Tokens, targets[k].Labels = make([]int, t), make([]int, t)
		for i := range t {
			seqs[k].Tokens[i], targets[k].Labels[i] = rng.IntN(vocab), rng.IntN(outputs)
		}
	}
	return seqs, targets
}

// TestExpf32 checks the float32 exponential of the softmax against
// math.Exp on a dense sweep of [−87.33, 0] and at its edges: within 2 ulp
// of the correctly rounded float32 value.
func TestExpf32(t *testing.T) {
	ulps := func(a, b float32) int64 {
		d := int64(math.Float32bits(a)) - int64(math.Float32bits(b))
		if d < 0 {
			d = -d
		}
		return d
	}
	worst := int64(0)
	for k := 0; k <= 2_000_000; k++ {
		x := float32(-87.33 * float64(k) / 2e6)
		want := float32(math.Exp(float64(x)))
		if u := ulps(expf32(x), want); u > worst {
			worst = u
			if u > 2 {
				t.Fatalf("expf32(%v) = %v, want %v (%d ulp)", x, expf32(x), want, u)
			}
		}
	}
	if expf32(0) != 1 || expf32(-100) != 0 || expf32(float32(math.Inf(-1))) != 0 || expf32(3) != 1 {
		t.Errorf("edges: expf32(0) = %v, (−100) = %v, (−Inf) = %v, (3) = %v", expf32(0), expf32(-100), expf32(float32(math.Inf(-1))), expf32(3))
	}
	if v := expf32(float32(math.NaN())); v == v {
		t.Errorf("expf32(NaN) = %v", v)
	}
	t.Logf("worst error %d ulp", worst)
}
