package transformer

import (
	"testing"

	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/internal/gemm"
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
	pw := gemm.PanelWidth[F]()
	const d, dh, ld = 12, 4, 40
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
						t.Fatalf("n=%d: head %d, Kᵀ[%d][%d] = %v, want %v", n, h, l, j, got, want)
					}
				}
			}
		}
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
