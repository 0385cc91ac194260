//go:build amd64 && !amd64.v3

package transformer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/transformer/internal/x86"
)

// softmaxRows returns test rows of length n: special values (±0, the
// clamp at −87.33, −Inf, NaN, subnormals), wide normal scores, and
// negative exponential ones.
func softmaxRows(rng *rand.Rand, n int) [][]float32 {
	special := []float32{0, float32(math.Copysign(0, -1)), -87.32, -87.33, -87.34, -88, -1e30, float32(math.Inf(-1)), float32(math.NaN()), 3, 1e-40, -1e-40}
	var rows [][]float32
	for trial := range 6 {
		x := make([]float32, n)
		for i := range x {
			switch {
			case trial == 0:
				x[i] = special[(i+n)%len(special)]
			case trial%2 == 0:
				x[i] = float32(rng.NormFloat64() * 30)
			default:
				x[i] = -float32(rng.ExpFloat64() * 10)
			}
		}
		rows = append(rows, x)
	}
	return rows
}

// sameFloat reports whether a and b have the same bits, or are both NaN.
func sameFloat(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// TestExpScaleAVX2 checks the vector exponentials bit for bit against
// expf32(s − m)·inv on rows of every length from 1 to 40 and some longer
// ones (the masked last entries included), with inv = 1 (the exponentials
// themselves) and a random inv, and that nothing past the row is written.
func TestExpScaleAVX2(t *testing.T) {
	if !x86.AVX2FMA {
		t.Skip("no AVX2 on this machine")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	lengths := []int{64, 65, 255, 256}
	for n := 1; n <= 40; n++ {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		for trial, x := range softmaxRows(rng, n) {
			m, inv := float32(rng.NormFloat64()), float32(1)
			if trial == 0 {
				m = 0 // the special values exactly
			}
			if trial > 2 {
				inv = rng.Float32()
			}
			buf := append(append([]float32(nil), x...), 7, 7, 7, 7, 7, 7, 7, 7)
			expScaleAVX2(&buf[0], n, m, inv)
			for i, v := range x {
				if want := expf32(v-m) * inv; !sameFloat(buf[i], want) {
					t.Fatalf("n=%d trial %d: exp(%g − %g)·%g: vector %g (%#x), Go %g (%#x)", n, trial, v, m, inv, buf[i], math.Float32bits(buf[i]), want, math.Float32bits(want))
				}
			}
			for _, v := range buf[n:] {
				if v != 7 {
					t.Fatalf("n=%d: wrote past the row: %v", n, buf[n:])
				}
			}
		}
	}
}

// TestSoftmaxVector32 checks the vector softmax bit for bit against
// softmaxScalar (the entries, m and inv) on rows of every length from 1 to
// 70, special values included (the lane sum of the normaliser could round
// differently from the Go code's sum, and then inv could differ in its
// last bit; on these rows it does not), that it writes nothing past the
// row, that softmaxAgain gives the same weights from the scores, and that
// the weights are within float32 rounding of a float64 softmax.
func TestSoftmaxVector32(t *testing.T) {
	if !x86.AVX2FMA {
		t.Skip("no AVX2 on this machine")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 1; n <= 70; n++ {
		for trial, s := range softmaxRows(rng, n) {
			buf := append(append([]float32(nil), s...), 7, 7, 7, 7, 7, 7, 7, 7)
			m, inv, used := softmaxVector32(buf[:n])
			if !used {
				t.Fatalf("n=%d: vector path not taken", n)
			}
			want := append([]float32(nil), s...)
			wm, winv := softmaxScalar(want)
			if trial > 0 && (!sameFloat(m, wm) || !sameFloat(inv, winv)) {
				// (with a NaN in the row, m is unspecified)
				t.Fatalf("n=%d trial %d: m, inv = %v, %v; Go %v, %v", n, trial, m, inv, wm, winv)
			}
			for i := range want {
				if !sameFloat(buf[i], want[i]) {
					t.Fatalf("n=%d trial %d: softmax[%d] = %v (%#x), Go %v (%#x)", n, trial, i, buf[i], math.Float32bits(buf[i]), want[i], math.Float32bits(want[i]))
				}
			}
			for _, v := range buf[n:] {
				if v != 7 {
					t.Fatalf("n=%d: wrote past the row: %v", n, buf[n:])
				}
			}
			again := append([]float32(nil), s...)
			softmaxAgain(again, m, inv)
			for i := range again {
				if !sameFloat(again[i], want[i]) {
					t.Fatalf("n=%d trial %d: softmaxAgain[%d] = %v, softmax %v", n, trial, i, again[i], want[i])
				}
			}
			if trial == 0 {
				continue
			}
			mx := math.Inf(-1)
			for _, v := range s {
				mx = max(mx, float64(v))
			}
			z, ref := 0.0, make([]float64, n)
			for i, v := range s {
				ref[i] = math.Exp(float64(v) - mx)
				z += ref[i]
			}
			for i := range ref {
				if d := math.Abs(float64(buf[i]) - ref[i]/z); d > 2e-7 {
					t.Fatalf("n=%d: softmax[%d] = %v, want %v", n, i, buf[i], ref[i]/z)
				}
			}
		}
	}
}

// TestSoftmaxGradVector32 compares the vector softmax gradient with a
// float64 evaluation of g_j = w_j·(g_j − Σ_k w_k g_k) on rows of every
// length from 1 to 70.
func TestSoftmaxGradVector32(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 1; n <= 70; n++ {
		w, g := make([]float32, n), make([]float32, n)
		for j := range w {
			w[j], g[j] = rng.Float32(), float32(rng.NormFloat64())
		}
		dot := 0.0
		for j := range w {
			dot += float64(w[j]) * float64(g[j])
		}
		got := append([]float32(nil), g...)
		if used := softmaxGradVector32(w, got); used != (x86.AVX2FMA && n >= 8) {
			t.Fatalf("n=%d: vector path taken = %v", n, used)
		}
		got2 := append([]float32(nil), g...)
		softmaxGrad(w, got2)
		for j := range g {
			want := float64(w[j]) * (float64(g[j]) - dot)
			if d := math.Abs(float64(got2[j]) - want); d > 1e-5*(1+math.Abs(dot)) {
				t.Fatalf("n=%d: g[%d] = %v, want %v", n, j, got2[j], want)
			}
		}
	}
}

// TestSoftmaxAVX512 checks the AVX-512 kernels bit for bit against the
// AVX2 ones (and softmaxRowAVX512's m and inv against softmaxScalar's) on
// rows of every length from 1 to 70 and some longer ones, special values
// included, and that they write nothing past the row. It runs only on
// machines with AVX-512.
func TestSoftmaxAVX512(t *testing.T) {
	if !x86.AVX512 {
		t.Skip("no AVX-512 on this machine")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	lengths := []int{127, 128, 129, 255, 256, 257, 1000}
	for n := 1; n <= 70; n++ {
		lengths = append(lengths, n)
	}
	guard := []float32{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}
	for _, n := range lengths {
		for trial, s := range softmaxRows(rng, n) {
			got := append(append([]float32(nil), s...), guard...)
			m, inv := softmaxRowAVX512(&got[0], n)
			want := append([]float32(nil), s...)
			wm, winv := softmaxRowAVX2(&want[0], n)
			if trial > 0 && (!sameFloat(m, wm) || !sameFloat(inv, winv)) {
				t.Fatalf("n=%d trial %d: m, inv = %v, %v; AVX2 %v, %v", n, trial, m, inv, wm, winv)
			}
			for i := range want {
				if !sameFloat(got[i], want[i]) {
					t.Fatalf("n=%d trial %d: softmax[%d] = %v (%#x), AVX2 %v (%#x)", n, trial, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
			for _, v := range got[n:] {
				if v != 7 {
					t.Fatalf("n=%d: softmax wrote past the row: %v", n, got[n:])
				}
			}
			if trial > 0 {
				ref := append([]float32(nil), s...)
				if rm, rinv := softmaxScalar(ref); !sameFloat(m, rm) || !sameFloat(inv, rinv) {
					t.Fatalf("n=%d trial %d: m, inv = %v, %v; Go %v, %v", n, trial, m, inv, rm, rinv)
				}
			}
			mm, ii := float32(rng.NormFloat64()), rng.Float32()
			got = append(append(got[:0], s...), guard...)
			expScaleAVX512(&got[0], n, mm, ii)
			want = append(want[:0], s...)
			expScaleAVX2(&want[0], n, mm, ii)
			for i := range want {
				if !sameFloat(got[i], want[i]) {
					t.Fatalf("n=%d trial %d: expScale[%d] = %v (%#x), AVX2 %v (%#x)", n, trial, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
			for _, v := range got[n:] {
				if v != 7 {
					t.Fatalf("n=%d: expScale wrote past the row: %v", n, got[n:])
				}
			}
		}
	}
}
