//go:build amd64 && !amd64.v3

// The bit-for-bit comparisons need the Go code's multiplications and
// additions rounded separately, as the compiler does below GOAMD64=v3; at
// v3 it fuses them (Go's spec allows it), and the Go code's last bits move.

package transformer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/transformer/internal/x86"
)

// TestAddRowsAVX2 checks the vector row sums bit for bit against plain
// additions row after row, on widths with and without a 64-column block, strides
// wider than the rows, and the column-group reduction of sumRowChunks.
func TestAddRowsAVX2(t *testing.T) {
	if !x86.AVX2FMA {
		t.Skip("no AVX2 on this machine")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, w := range []int{8, 16, 56, 64, 72, 128, 200, 256} {
		for _, rows := range []int{1, 2, 7, 64} {
			for _, extra := range []int{0, 8, 13} {
				stride := w + extra
				a := randRows(rng, (rows-1)*stride+w, 1)
				acc := randRows(rng, w, 1)
				want := append([]float32(nil), acc...)
				for i := range rows {
					for j := range want {
						want[j] += a[i*stride+j]
					}
				}
				if !addRowsVector(acc, a, rows, w, stride) {
					t.Fatalf("w=%d: the vector kernel declined", w)
				}
				wantBits(t, "acc", acc, want)
			}
		}
	}
	if addRowsVector(make([]float32, 12), make([]float32, 12), 1, 12, 12) {
		t.Error("w=12 (not a multiple of 8) was taken by the vector kernel")
	}
	if addRowsVector(make([]float64, 8), make([]float64, 8), 1, 8, 8) {
		t.Error("float64 rows were taken by the float32 kernel")
	}
}

// TestLayerNormBackwardAVX2 checks the vector layer-norm backward bit for
// bit against layerNormBackwardRows: dx set and added to, dγ and dβ
// accumulated onto non-zero sums, widths 4 to 100, a row range that does
// not start at 0.
func TestLayerNormBackwardAVX2(t *testing.T) {
	if !x86.AVX2FMA {
		t.Skip("no AVX2 on this machine")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, d := range []int{4, 8, 12, 64, 100} {
		for _, add := range []bool{false, true} {
			const n, lo, hi = 9, 2, 9
			x := randRows(rng, n*d, 3)
			dy := randRows(rng, n*d, 1)
			gamma := randRows(rng, d, 1)
			mean, rstd := make([]float32, n), make([]float32, n)
			for i := range n {
				mean[i] = float32(rng.NormFloat64())
				rstd[i] = float32(0.1 + rng.ExpFloat64())
			}
			dx := randRows(rng, n*d, 1)
			acc := randRows(rng, 2*d, 1)
			wantDx, wantAcc := append([]float32(nil), dx...), append([]float32(nil), acc...)
			layerNormBackwardRows(wantDx, wantAcc, dy, x, mean, rstd, lo, hi, d, gamma, add)
			if !layerNormBackwardVector(dx, acc, dy, x, mean, rstd, lo, hi, d, gamma, add) {
				t.Fatalf("d=%d: the vector kernel declined", d)
			}
			wantBits(t, "dx", dx, wantDx)
			wantBits(t, "dγ, dβ", acc, wantAcc)
		}
	}
	if layerNormBackwardVector(make([]float32, 6), make([]float32, 12), make([]float32, 6), make([]float32, 6), make([]float32, 1), make([]float32, 1), 0, 1, 6, make([]float32, 6), false) {
		t.Error("d=6 (not a multiple of 4) was taken by the vector kernel")
	}
}

// TestLnGradSumsAVX2 checks the two float64 sums of the layer-norm
// backward bit for bit against gradSums4 (the rounded float32 outputs of
// TestLayerNormBackwardAVX2 rarely show a last-bit change of these).
func TestLnGradSumsAVX2(t *testing.T) {
	if !x86.AVX2FMA {
		t.Skip("no AVX2 on this machine")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, d := range []int{4, 8, 64, 256, 1000} {
		for range 20 {
			x, dy, gamma := randRows(rng, d, 3), randRows(rng, d, 1), randRows(rng, d, 1)
			mu, r := rng.NormFloat64(), 0.1+rng.ExpFloat64()
			wantG, wantGX := gradSums4(x, dy, gamma, mu, r)
			g, gx := lnGradSumsAVX2(&x[0], &dy[0], &gamma[0], d, mu, r)
			if math.Float64bits(g) != math.Float64bits(wantG) || math.Float64bits(gx) != math.Float64bits(wantGX) {
				t.Fatalf("d=%d: sums %v, %v; gradSums4 gives %v, %v", d, g, gx, wantG, wantGX)
			}
		}
	}
}

// TestLayerNormForwardAVX2 checks the vector layer norm bit for bit
// against layerNormForwardRows: outputs, means and reciprocal deviations,
// widths 4 to 100, rows offset and scaled far from 0, ε = 1e-5 and 0.
func TestLayerNormForwardAVX2(t *testing.T) {
	if !x86.AVX2FMA {
		t.Skip("no AVX2 on this machine")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for _, d := range []int{4, 8, 12, 64, 100} {
		for _, eps := range []float64{1e-5, 0} {
			const n, lo, hi = 9, 1, 8
			x := make([]float32, n*d)
			for i := range n {
				off, scale := rng.NormFloat64()*100, rng.ExpFloat64()*10
				for j := range d {
					x[i*d+j] = float32(off + scale*rng.NormFloat64())
				}
			}
			gamma, beta := randRows(rng, d, 1), randRows(rng, d, 1)
			y, mean, rstd := randRows(rng, n*d, 1), randRows(rng, n, 1), randRows(rng, n, 1)
			wantY, wantMean, wantRstd := append([]float32(nil), y...), append([]float32(nil), mean...), append([]float32(nil), rstd...)
			layerNormForwardRows(wantY, wantMean, wantRstd, x, lo, hi, d, gamma, beta, eps)
			if !layerNormForwardVector(y, mean, rstd, x, lo, hi, d, gamma, beta, eps) {
				t.Fatalf("d=%d: the vector kernel declined", d)
			}
			wantBits(t, "y", y, wantY)
			wantBits(t, "mean", mean, wantMean)
			wantBits(t, "rstd", rstd, wantRstd)
		}
	}
}

// TestLnForwardRowSumsAVX2 checks μ and r of the vector layer norm in
// float64, bit for bit, against sum4 and sumSq4 (their float32 roundings
// in TestLayerNormForwardAVX2 rarely show a last-bit change).
func TestLnForwardRowSumsAVX2(t *testing.T) {
	if !x86.AVX2FMA {
		t.Skip("no AVX2 on this machine")
	}
	rng := rand.New(rand.NewPCG(15, 16))
	for _, d := range []int{4, 64, 1000} {
		for range 20 {
			x := make([]float32, d)
			for j := range x {
				// Exponents spread over 2⁻⁴⁰…2⁴⁰, so that the float64 sums
				// round and their order shows; no overflow of the squares.
				x[j] = float32(math.Ldexp(rng.NormFloat64(), rng.IntN(81)-40))
			}
			gamma, beta, y := randRows(rng, d, 1), randRows(rng, d, 1), make([]float32, d)
			mu, r := lnForwardRowAVX2(&y[0], &x[0], &gamma[0], &beta[0], d, float64(d), 1e-5)
			wantMu := sum4(x, 0) / float64(d)
			wantR := 1 / math.Sqrt(sumSq4(x, wantMu)/float64(d)+1e-5)
			if math.Float64bits(mu) != math.Float64bits(wantMu) || math.Float64bits(r) != math.Float64bits(wantR) {
				t.Fatalf("d=%d: μ, r = %v, %v; sum4 and sumSq4 give %v, %v", d, mu, r, wantMu, wantR)
			}
		}
	}
}
