package gemm

import (
	"github.com/icrl-go/icrl/tensor"
)

// PanelWidth returns the width w of the column panels in which the
// products read B for float type F: 16 for float32, 8 for float64.
func PanelWidth[F tensor.Float]() int {
	var z F
	if _, ok := any(z).(float32); ok {
		return nr32
	}
	return nr64
}

// PackedLen returns the length of a k×n matrix in the packed layout of
// [GemmPacked]: ⌈n/w⌉ panels of k×w values, w = PanelWidth.
func PackedLen[F tensor.Float](k, n int) int {
	w := PanelWidth[F]()
	return (n + w - 1) / w * k * w
}

// GemmPacked computes C = alpha·op(A)·B + beta·C as [Gemm] does with B not
// transposed, for a B (k×n) given in the layout in which the product
// packs it: ⌈n/w⌉ panels of w = PanelWidth columns, panel q holding
// columns q·w … q·w+w−1 as a k×w row-major block at bp[q·k·w:], columns
// past n set to any finite value (they are computed into a scratch tile
// and dropped). Code that can write B in this layout directly (a
// transpose, say) saves the product its packing; the result has the bits
// of Gemm on the same B. A, C, the panics and the guarantees are Gemm's;
// it panics if bp is shorter than PackedLen(k, n).
func GemmPacked[F tensor.Float](transA bool, m, n, k int, alpha F, a []F, lda int, bp []F, beta F, c []F, ldc int) {
	// The dimensions, A and C as Gemm checks them (B as a dense k×n
	// matrix, whose length is the packed one's to check).
	checkArgs(transA, false, m, n, k, len(a), lda, k*n, max(1, n), len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if len(bp) < PackedLen[F](k, n) {
		panic("gemm: short packed B")
	}
	switch cs := any(c).(type) {
	case []float32:
		p := newProblem(transA, false, m, n, k, float32(alpha), any(a).([]float32), lda, any(bp).([]float32), nr32, float32(beta), cs, ldc, mr32, nr32, kernel32)
		p.packedB = true
		run(&p)
	case []float64:
		p := newProblem(transA, false, m, n, k, float64(alpha), any(a).([]float64), lda, any(bp).([]float64), nr64, float64(beta), cs, ldc, mr64, nr64, kernel64)
		p.packedB = true
		run(&p)
	default:
		panic("gemm: unsupported element type")
	}
}
