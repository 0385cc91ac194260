package gemm

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/tensor"
)

// packDense writes the k×n row-major b in the packed layout of GemmPacked,
// the columns past n set to pad.
func packDense[F tensor.Float](b []F, k, n int, pad F) []F {
	w := PanelWidth[F]()
	bp := make([]F, PackedLen[F](k, n))
	for q := 0; q*w < n; q++ {
		for l := range k {
			for c := range w {
				v := pad
				if j := q*w + c; j < n {
					v = b[l*n+j]
				}
				bp[q*k*w+l*w+c] = v
			}
		}
	}
	return bp
}

// TestGemmPacked checks that a product with B given packed has the bits
// of the same product with B dense: panels whole and partial (with finite
// values, not zeros, past n), k within one block and across several, row
// counts with and without a partial tile, NN and TN, beta 0 and 1, both
// float types.
func TestGemmPacked(t *testing.T) {
	testGemmPacked[float32](t)
	testGemmPacked[float64](t)
}

func testGemmPacked[F tensor.Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	// A small C and a long k, which Gemm cuts along k (TestKChunks): a
	// packed B is not cut, and has the bits of the dense one all the same
	// only if the split is exact, so it is compared within rounding.
	{
		m, n, k := 64, 40, 4096
		if s := kChunks(m, n, k, kcBlock); s.chunks < 2 {
			t.Fatalf("%d×%d×%d is not cut along k; the case tests nothing", m, n, k)
		}
		a, b := randSlice[F](rng, m*k), randSlice[F](rng, k*n)
		got, want := make([]F, m*n), make([]F, m*n)
		GemmPacked(false, m, n, k, 1, a, k, packDense(b, k, n, 1.5), 0, got, n)
		naive(false, false, m, n, k, a, k, b, n, want, n)
		eps := 0x1p-52
		if _, ok := any(got[0]).(float32); ok {
			eps = 0x1p-23
		}
		for i := range want {
			if d := float64(got[i] - want[i]); d > eps*float64(k)*8 || -d > eps*float64(k)*8 {
				t.Fatalf("long k: C[%d] = %v, want %v", i, got[i], want[i])
			}
		}
	}
	for _, tA := range []bool{false, true} {
		for _, n := range []int{1, 8, 15, 16, 17, 40, 100} {
			for _, k := range []int{1, 16, 300} {
				for _, m := range []int{1, 7, 48} {
					for _, beta := range []F{0, 1} {
						lda := k
						if tA {
							lda = m
						}
						a, b := randSlice[F](rng, m*k), randSlice[F](rng, k*n)
						bp := packDense(b, k, n, 1.5)
						c0 := randSlice[F](rng, m*n)
						got, want := append([]F(nil), c0...), append([]F(nil), c0...)
						GemmPacked(tA, m, n, k, 0.75, a, lda, bp, beta, got, n)
						Gemm(tA, false, m, n, k, 0.75, a, lda, b, n, beta, want, n)
						for i := range want {
							if !sameBits(got[i], want[i]) {
								t.Fatalf("tA=%v m=%d n=%d k=%d beta=%v: C[%d] = %v packed, %v dense", tA, m, n, k, beta, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestGemmPackedPanics checks the argument checks: a packed B shorter
// than PackedLen, and Gemm's own checks on the dimensions, A and C.
func TestGemmPackedPanics(t *testing.T) {
	a, c := make([]float32, 4*3), make([]float32, 4*20)
	for _, tc := range []struct {
		name string
		run  func()
		want string
	}{
		{"short packed B", func() { GemmPacked(false, 4, 20, 3, 1, a, 3, make([]float32, PackedLen[float32](3, 20)-1), 0, c, 20) }, "short packed B"},
		{"negative n", func() { GemmPacked(false, 4, -1, 3, 1, a, 3, nil, 0, c, 20) }, "n < 0"},
		{"short A", func() { GemmPacked(false, 5, 20, 3, 1, a, 3, make([]float32, 64*3), 0, make([]float32, 100), 20) }, "short A"},
		{"short C", func() { GemmPacked(false, 4, 20, 3, 1, a, 3, make([]float32, 64*3), 0, c[:79], 20) }, "short C"},
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.Contains(s, tc.want) {
					t.Errorf("%s: panic %v, want one containing %q", tc.name, r, tc.want)
				}
			}()
			tc.run()
		}()
	}
	if got := PackedLen[float32](3, 20); got != 2*3*16 {
		t.Errorf("PackedLen[float32](3, 20) = %d, want 96", got)
	}
	if got := PackedLen[float64](3, 20); got != 3*3*8 {
		t.Errorf("PackedLen[float64](3, 20) = %d, want 72", got)
	}
}
