package transformer

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/icrl-go/icrl/transformer/internal/gemm"
)

// randVec32 returns n float32 normal draws of scale s.
func randVec32(rng *rand.Rand, n int, s float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(s * rng.NormFloat64())
	}
	return v
}

// sameBits reports the first index where a and b differ in their bits, or
// −1.
func sameBits(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

// separateLinear computes y = x·w + b as separate passes: the product
// (by gemv for one row, as linearForward does), then the bias added row
// by row.
func separateLinear(y, x []float32, n, in, out int, w, b []float32) {
	if n == 1 {
		gemv(y, x, w, in, out, false)
	} else {
		gemm.Gemm(false, false, n, out, in, 1, x, in, w, out, 0, y, out)
	}
	for i := range n {
		addVec(y[i*out:(i+1)*out], b)
	}
}

// TestFusedEpilogues checks that each fused pass gives the bits of the
// separate passes it replaces, on one row, on enough rows to run in
// parallel (split by rows, or, 64 × 512 on 4 goroutines, by columns) and
// on few
// enough to run on the calling goroutine.
func TestFusedEpilogues(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range [][4]int{{1, 1, 24, 40}, {3, 1, 24, 40}, {1000, 1, 24, 40}, {1000, 2, 24, 40}, {64, 4, 64, 512}} {
		n, in, out := c[0], c[2], c[3]
		runtime.GOMAXPROCS(c[1])
		rng := rand.New(rand.NewPCG(7, uint64(n)))
		x, w, b := randVec32(rng, n*in, 1), randVec32(rng, in*out, 0.3), randVec32(rng, out, 1)
		res := randVec32(rng, n*out, 1)

		want := make([]float32, n*out)
		separateLinear(want, x, n, in, out, w, b)
		plain := make([]float32, n*out)
		linearForward(plain, x, n, in, out, w, b)
		if i := sameBits(plain, want); i >= 0 {
			t.Errorf("n=%d: linearForward[%d] = %v, separate passes %v", n, i, plain[i], want[i])
		}
		for i := range want {
			want[i] += res[i]
		}
		got := make([]float32, n*out)
		linearResidual(got, x, n, in, out, w, b, res)
		if i := sameBits(got, want); i >= 0 {
			t.Errorf("n=%d: linearResidual[%d] = %v, separate passes %v", n, i, got[i], want[i])
		}

		for _, act := range []Activation{ReLU, GELU, GELUTanh} {
			wantY, wantA := make([]float32, n*out), make([]float32, n*out)
			separateLinear(wantY, x, n, in, out, w, b)
			activationForward(act, wantA, wantY)
			y, a := make([]float32, n*out), make([]float32, n*out)
			linearActivation(act, y, a, x, n, in, out, w, b)
			if i := sameBits(y, wantY); i >= 0 {
				t.Errorf("n=%d %v: linearActivation y[%d] = %v, separate passes %v", n, act, i, y[i], wantY[i])
			}
			if i := sameBits(a, wantA); i >= 0 {
				t.Errorf("n=%d %v: linearActivation a[%d] = %v, separate passes %v", n, act, i, a[i], wantA[i])
			}

			dy := randVec32(rng, n*out, 1)
			wantD, wantB := slices.Clone(dy), slices.Clone(b)
			activationBackward(act, wantD, wantD, y)
			sumRows(wantB, wantD, n, out)
			d, db := slices.Clone(dy), slices.Clone(b)
			activationBackwardSum(act, d, y, db, n, out)
			if i := sameBits(d, wantD); i >= 0 {
				t.Errorf("n=%d %v: activationBackwardSum d[%d] = %v, separate passes %v", n, act, i, d[i], wantD[i])
			}
			if i := sameBits(db, wantB); i >= 0 {
				t.Errorf("n=%d %v: activationBackwardSum db[%d] = %v, separate passes %v", n, act, i, db[i], wantB[i])
			}
		}

		// LayerNorm backward adding into a residual gradient.
		d := out
		xs, g, beta := randVec32(rng, n*d, 2), randVec32(rng, d, 1), randVec32(rng, d, 1)
		y, mu, rs := make([]float32, n*d), make([]float32, n), make([]float32, n)
		layerNormForward(y, mu, rs, xs, n, d, g, beta, 1e-5)
		dy, acc := randVec32(rng, n*d, 1), randVec32(rng, n*d, 1)
		tmp, dg1, db1 := make([]float32, n*d), make([]float32, d), make([]float32, d)
		layerNormBackward(tmp, dg1, db1, dy, xs, mu, rs, n, d, g, false)
		wantAcc := slices.Clone(acc)
		for i := range wantAcc {
			wantAcc[i] += tmp[i]
		}
		dg2, db2 := make([]float32, d), make([]float32, d)
		layerNormBackward(acc, dg2, db2, dy, xs, mu, rs, n, d, g, true)
		if i := sameBits(acc, wantAcc); i >= 0 {
			t.Errorf("n=%d: layerNormBackward with add: dx[%d] = %v, separate passes %v", n, i, acc[i], wantAcc[i])
		}
		if sameBits(dg1, dg2) >= 0 || sameBits(db1, db2) >= 0 {
			t.Errorf("n=%d: layerNormBackward's dγ, dβ depend on add", n)
		}
	}
}

// TestEpilogueSerialNoAlloc checks that a small product with a bias, a
// residual and an activation (one row: the KV-cached session's step)
// allocates nothing: the serial path builds no closure.
func TestEpilogueSerialNoAlloc(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	const in, out = 16, 32
	x, w, b, res := randVec32(rng, in, 1), randVec32(rng, in*out, 1), randVec32(rng, out, 1), randVec32(rng, out, 1)
	y, a := make([]float32, out), make([]float32, out)
	if n := testing.AllocsPerRun(20, func() {
		linearResidual(y, x, 1, in, out, w, b, res)
		linearActivation(ReLU, y, a, x, 1, in, out, w, b)
	}); n != 0 {
		t.Errorf("one-row products with epilogues allocate %v times, want 0", n)
	}
}

// TestForwardWithoutKeeping checks that inference, whose blocks take turns
// in two sets of buffers, gives the logits of the training pass that keeps
// every block's activations, bit for bit, for every norm placement and
// attention kind, and that the training pass still keeps L blocks.
func TestForwardWithoutKeeping(t *testing.T) {
	for _, norm := range []Norm{PreNorm, PostNorm, NoNorm} {
		for _, att := range []Attention{SoftmaxAttention, ReLUAttention} {
			cfg := Config{Layers: 5, Heads: 2, Width: 8, FeedForward: 12, Features: 3, Outputs: 4, MaxLen: 16, Norm: norm, Attention: att}
			m, err := New[float64](cfg, rand.New(rand.NewPCG(5, uint64(norm))))
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(6, 6))
			seqs := make([]Sequence[float64], 3)
			for k := range seqs {
				f := make([]float64, 3*(4+3*k))
				for i := range f {
					f[i] = rng.NormFloat64()
				}
				seqs[k] = Sequence[float64]{Features: f}
			}
			kept, turns := m.forward(seqs, nil, true), m.forward(seqs, nil, false)
			if len(kept.blocks) != 5 || len(turns.blocks) != 2 {
				t.Fatalf("%v, %v: %d and %d block caches, want 5 and 2", norm, att, len(kept.blocks), len(turns.blocks))
			}
			for i, v := range kept.logits {
				if turns.logits[i] != v {
					t.Fatalf("%v, %v: logit %d is %v without keeping, %v with", norm, att, i, turns.logits[i], v)
				}
			}
		}
	}
}
