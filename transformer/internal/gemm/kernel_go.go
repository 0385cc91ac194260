package gemm

import (
	"unsafe"

	"github.com/icrl-go/icrl/tensor"
)

// goKernel is the portable micro-kernel. It computes the mr×nr tile
//
//	C[r,j] = alpha·Σ_l A[r,l]·B[l,j] + beta·C[r,j]   (beta == 0: C is not read)
//
// where A[r,l] is at a[r*rsA + l*csA], the packed B[l,j] at b[l*nr + j] and
// C[r,j] at c[r*ldc + j]. The sum runs over l = 0, 1, …, kc-1 in order, in
// an accumulator of the element type. It is the fallback when the assembly
// kernels are unavailable and must follow the same contract.
func goKernel[F tensor.Float](mr, nr, kc int, a *F, rsA, csA int, b *F, c *F, ldc int, alpha, beta F) {
	var acc [goMR * nr32]F
	av := unsafe.Slice(a, (mr-1)*rsA+(kc-1)*csA+1)
	bv := unsafe.Slice(b, kc*nr)
	for l := 0; l < kc; l++ {
		brow := bv[l*nr : l*nr+nr]
		for r := 0; r < mr; r++ {
			x := av[r*rsA+l*csA]
			arow := acc[r*nr : r*nr+nr]
			for j, y := range brow {
				arow[j] += x * y
			}
		}
	}
	cv := unsafe.Slice(c, (mr-1)*ldc+nr)
	for r := 0; r < mr; r++ {
		crow := cv[r*ldc : r*ldc+nr]
		arow := acc[r*nr : r*nr+nr]
		for j := range crow {
			v := alpha * arow[j]
			if beta != 0 {
				v += beta * crow[j]
			}
			crow[j] = v
		}
	}
}

func goKernel32(kc int, a *float32, rsA, csA int, b *float32, c *float32, ldc int, alpha, beta float32) {
	goKernel(goMR, nr32, kc, a, rsA, csA, b, c, ldc, alpha, beta)
}

func goKernel64(kc int, a *float64, rsA, csA int, b *float64, c *float64, ldc int, alpha, beta float64) {
	goKernel(goMR, nr64, kc, a, rsA, csA, b, c, ldc, alpha, beta)
}
