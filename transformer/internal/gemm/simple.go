package gemm

import (
	"github.com/icrl-go/icrl/tensor"
)

// scaleC sets C = beta·C over an m×n block; beta == 0 overwrites with zeros.
func scaleC[F tensor.Float](m, n int, beta F, c []F, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

func gemm32(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, epi Epilogue) {
	p := newProblem(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, mr32, nr32, kernel32)
	p.epi = epi
	run(&p)
}

func gemm64(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, epi Epilogue) {
	p := newProblem(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, mr64, nr64, kernel64)
	p.epi = epi
	run(&p)
}
