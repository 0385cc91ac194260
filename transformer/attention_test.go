package transformer

import (
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/internal/gemm"
	"github.com/icrl-go/icrl/transformer/internal/x86"
)

// TestTransposePanels checks the packed transposes of the attention
// against their definition, entry by entry: head h's Kᵀ at h·dh·np, panel
// q of pw columns at q·dh·pw, zeros past n (over garbage left in the
// buffer), for lengths below, at and past a panel and both float types.
func TestTransposePanels(t *testing.T) {
	testTransposePanels[float32](t)
	testTransposePanels[float64](t)
}

func testTransposePanels[F tensor.Float](t *testing.T) {
	// d = 12 with dh = 4 runs the scalar loop; d = 64 with dh = 16 and d =
	// 24 with dh = 8 the vector transpose on float32 (for whole tiles).
	for _, dims := range [][3]int{{12, 4, 40}, {64, 16, 192}, {24, 8, 72}} {
		transposePanelsDims[F](t, dims[0], dims[1], dims[2])
	}
}

func transposePanelsDims[F tensor.Float](t *testing.T, d, dh, ld int) {
	pw := gemm.PanelWidth[F]()
	for _, n := range []int{1, pw - 1, pw, pw + 1, 3*pw + 5} {
		src := make([]F, n*ld)
		for i := range src {
			src[i] = F(i) + 0.5
		}
		np := panels(n, pw)
		dst := make([]F, d*np)
		for i := range dst {
			dst[i] = -7 // garbage the padding must overwrite
		}
		transposePanels(dst, src, n, d, dh, ld)
		for h := range d / dh {
			for l := range dh {
				for j := range np {
					got := dst[h*dh*np+(j/pw)*dh*pw+l*pw+j%pw]
					want := F(0)
					if j < n {
						want = src[j*ld+h*dh+l]
					}
					if got != want {
						t.Fatalf("d=%d dh=%d n=%d: head %d, Kᵀ[%d][%d] = %v, want %v", d, dh, n, h, l, j, got, want)
					}
				}
			}
		}
	}
}

// TestTransposeVector checks the vector transpose against its definition
// on blocks of 8 to 24 rows and columns inside larger matrices, and that
// it writes nothing outside the block.
func TestTransposeVector(t *testing.T) {
	for _, sh := range [][2]int{{8, 8}, {16, 24}, {24, 16}, {16, 16}} {
		rows, cols := sh[0], sh[1]
		lds, ldd := cols+5, rows+3
		src := make([]float32, rows*lds)
		for i := range src {
			src[i] = float32(i) + 0.25
		}
		dst := make([]float32, cols*ldd+8)
		for i := range dst {
			dst[i] = -7
		}
		if !transposeVector(dst, ldd, src, lds, rows, cols) {
			if x86.AVX2FMA {
				t.Fatalf("%d×%d: vector transpose not taken", rows, cols)
			}
			t.Skip("no vector transpose on this machine")
		}
		for k, got := range dst {
			j, i := k/ldd, k%ldd
			want := float32(-7)
			if j < cols && i < rows {
				want = src[i*lds+j]
			}
			if got != want {
				t.Fatalf("%d×%d: dst[%d] (column %d, row %d) = %v, want %v", rows, cols, k, j, i, got, want)
			}
		}
	}
	if transposeVector(make([]float32, 64), 8, make([]float32, 64), 8, 8, 4) || transposeVector(make([]float64, 64), 8, make([]float64, 64), 8, 8, 8) {
		t.Fatal("vector transpose taken for 4 columns or float64")
	}
}

// TestGatherHeads checks gatherHeads against its definition: head h's row
// i at h·n·dh + i·dh, for a width the 16-byte moves take (dh = 8, float32)
// and one they do not (dh = 3, and float64).
func TestGatherHeads(t *testing.T) {
	testGatherHeads[float32](t, 8)
	testGatherHeads[float32](t, 3)
	testGatherHeads[float64](t, 4)
}

func testGatherHeads[F tensor.Float](t *testing.T, dh int) {
	const n, heads, ld = 7, 3, 30
	d := heads * dh
	src := make([]F, n*ld)
	for i := range src {
		src[i] = F(i) + 0.25
	}
	dst := make([]F, n*d)
	gatherHeads(dst, src, n, d, dh, ld)
	for h := range heads {
		for i := range n {
			for c := range dh {
				if got, want := dst[h*n*dh+i*dh+c], src[i*ld+h*dh+c]; got != want {
					t.Fatalf("dh=%d: head %d row %d column %d = %v, want %v", dh, h, i, c, got, want)
				}
			}
		}
	}
}

// TestSoftmaxAgainScalar checks that the Go code computing the weights
// again from the scores and softmaxScalar's m and inv gives softmaxScalar's
// weights bit for bit, in float32 and float64, on rows of 1 to 40 entries
// (the vector kernels have their own tests).
func TestSoftmaxAgainScalar(t *testing.T) {
	testSoftmaxAgainScalar[float32](t)
	testSoftmaxAgainScalar[float64](t)
}

func testSoftmaxAgainScalar[F tensor.Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for n := 1; n <= 40; n++ {
		s := make([]F, n)
		for i := range s {
			s[i] = F(rng.NormFloat64() * 8)
		}
		w := append([]F(nil), s...)
		m, inv := softmaxScalar(w)
		again := append([]F(nil), s...)
		softmaxAgainScalar(again, m, inv)
		for i := range w {
			if again[i] != w[i] {
				t.Fatalf("%T n=%d: weight %d computed again %v, softmax %v", s[0], n, i, again[i], w[i])
			}
		}
	}
}
