// Package gemm is a small, deterministic dense matrix multiply for the
// transformer: C = alpha·op(A)·op(B) + beta·C on row-major float32 and
// float64 matrices with leading dimensions.
package gemm
