package gemm

import (
	"github.com/icrl-go/icrl/tensor"
)

// Float32 computes C = alpha·op(A)·op(B) + beta·C for row-major float32
// matrices, where op(X) is X when transX is false and Xᵀ when it is true,
// op(A) is m×k, op(B) is k×n and C is m×n.
//
// A is stored as an m×k matrix (k×m when transA) with leading dimension lda,
// B as a k×n matrix (n×k when transB) with leading dimension ldb, and C as an
// m×n matrix with leading dimension ldc. When beta is zero C is overwritten
// and its previous contents (even NaN) are ignored; when alpha is zero or k is
// zero A and B are not read.
//
// Float32 panics with a "gemm: " message if a dimension is negative, a leading
// dimension is smaller than the row width of its matrix, or a slice is too
// short (slice lengths are not checked when m or n is zero). The result is bit-identical for any GOMAXPROCS. It is safe to call
// concurrently as long as the C arguments do not overlap.
func Float32(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	gemm32(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil)
}

// Float64 computes C = alpha·op(A)·op(B) + beta·C for row-major float64
// matrices. Its arguments, panics and guarantees are those of [Float32].
func Float64(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	checkArgs(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	gemm64(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil)
}

// Gemm computes C = alpha·op(A)·op(B) + beta·C for code that is generic over
// the float type: [GemmEpilogue] with no epilogue, which computes as
// [Float32] or [Float64] for the element type; its arguments, panics and
// guarantees are theirs. Gemm panics if F
// is a named type whose underlying type is float32 or float64 other than the
// predeclared types themselves.
func Gemm[F tensor.Float](transA, transB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	GemmEpilogue(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil)
}

// An Epilogue finishes a block of C, rows [i0, i1) and columns [j0, j1),
// after the product has written its final values there (a bias, a residual
// or an activation applied elementwise). [GemmEpilogue] calls it on
// disjoint blocks that together cover C, each on the goroutine that
// computed the block, right after it did (while the block is in its
// cache), and concurrently with other blocks; which blocks, and on which
// goroutine, depends on GOMAXPROCS, so it must treat every element on its
// own.
type Epilogue func(i0, i1, j0, j1 int)

// GemmEpilogue computes C = alpha·op(A)·op(B) + beta·C as [Gemm] does and
// then epi on every block of C (see [Epilogue]): one pass over C instead
// of a second trip through memory and a second parallel loop. A nil epi
// is no epilogue. Its arguments, panics and guarantees are Gemm's.
func GemmEpilogue[F tensor.Float](transA, transB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int, epi Epilogue) {
	checkArgs(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	switch cs := any(c).(type) {
	case []float32:
		gemm32(transA, transB, m, n, k, float32(alpha), any(a).([]float32), lda, any(b).([]float32), ldb, float32(beta), cs, ldc, epi)
	case []float64:
		gemm64(transA, transB, m, n, k, float64(alpha), any(a).([]float64), lda, any(b).([]float64), ldb, float64(beta), cs, ldc, epi)
	default:
		panic("gemm: unsupported element type")
	}
}

// checkArgs panics if the dimensions, leading dimensions or slice lengths
// are inconsistent, following the checks of gonum's blas implementation.
func checkArgs(transA, transB bool, m, n, k, la, lda, lb, ldb, lc, ldc int) {
	if m < 0 {
		panic("gemm: m < 0")
	}
	if n < 0 {
		panic("gemm: n < 0")
	}
	if k < 0 {
		panic("gemm: k < 0")
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	if lda < max(1, ac) {
		panic("gemm: bad lda")
	}
	if ldb < max(1, bc) {
		panic("gemm: bad ldb")
	}
	if ldc < max(1, n) {
		panic("gemm: bad ldc")
	}
	if m == 0 || n == 0 {
		return // nothing is read or written
	}
	if ar > 0 && ac > 0 && la < lda*(ar-1)+ac {
		panic("gemm: short A")
	}
	if br > 0 && bc > 0 && lb < ldb*(br-1)+bc {
		panic("gemm: short B")
	}
	if lc < ldc*(m-1)+n {
		panic("gemm: short C")
	}
}
