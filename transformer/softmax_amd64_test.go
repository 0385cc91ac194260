//go:build amd64 && !amd64.v3

package transformer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/transformer/internal/x86"
)

// TestExpSumAVX2 checks the vector exponentials bit for bit against expf32,
// including the clamp below −87.33, −Inf, NaN and +0/−0, and the lane sum
// against a float64 sum.
func TestExpSumAVX2(t *testing.T) {
	if !x86.AVX2FMA {
		t.Skip("no AVX2 on this machine")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	special := []float32{0, float32(math.Copysign(0, -1)), -87.32, -87.33, -87.34, -88, -1e30, float32(math.Inf(-1)), float32(math.NaN()), 3, 1e-40, -1e-40}
	for _, n := range []int{8, 16, 64, 256} {
		for trial := range 50 {
			x := make([]float32, n)
			for i := range x {
				switch {
				case trial == 0:
					x[i] = special[i%len(special)]
				case trial%2 == 0:
					x[i] = float32(rng.NormFloat64() * 30)
				default:
					x[i] = -float32(rng.ExpFloat64() * 10)
				}
			}
			m := float32(rng.NormFloat64())
			if trial == 0 {
				m = 0 // the special values exactly
			}
			got := append([]float32(nil), x...)
			sum := expSumAVX2(&got[0], n, m)
			want := 0.0
			for i, v := range x {
				e := expf32(v - m)
				if math.Float32bits(e) != math.Float32bits(got[i]) && !(e != e && got[i] != got[i]) {
					t.Fatalf("n=%d trial %d: exp(%g − %g): vector %g (%#x), expf32 %g (%#x)", n, trial, v, m, got[i], math.Float32bits(got[i]), e, math.Float32bits(e))
				}
				want += float64(e)
			}
			if math.IsNaN(want) != math.IsNaN(sum) || (!math.IsNaN(want) && math.Abs(sum-want) > 1e-12*math.Abs(want)) {
				t.Fatalf("n=%d trial %d: sum %v, want %v", n, trial, sum, want)
			}
		}
	}
}

// TestSoftmaxVector32 compares the vector softmax with a float64 softmax
// on rows of every length from 1 to 70 and checks that the vector path is
// taken exactly from length 8.
func TestSoftmaxVector32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 1; n <= 70; n++ {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(rng.NormFloat64() * 5)
		}
		ref := make([]float64, n)
		mx := math.Inf(-1)
		for _, v := range s {
			mx = max(mx, float64(v))
		}
		z := 0.0
		for i, v := range s {
			ref[i] = math.Exp(float64(v) - mx)
			z += ref[i]
		}
		got := append([]float32(nil), s...)
		used := softmaxVector32(got)
		if used != (x86.AVX2FMA && n >= 8) {
			t.Fatalf("n=%d: vector path taken = %v", n, used)
		}
		if !used {
			softmaxPrefix(got)
		}
		for i := range got {
			if d := math.Abs(float64(got[i]) - ref[i]/z); d > 2e-7 {
				t.Fatalf("n=%d: softmax[%d] = %v, want %v", n, i, got[i], ref[i]/z)
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
