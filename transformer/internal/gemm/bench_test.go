package gemm

import (
	"github.com/icrl-go/icrl/tensor"

	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// benchShape is one product of the transformer (see the package doc): the
// name gives the transposes and m×n×k.
type benchShape struct {
	tA, tB  bool
	m, n, k int
	what    string
}

var benchShapes = []benchShape{
	{false, false, 16384, 192, 64, "QKV projection X·W"},
	{false, false, 16384, 256, 64, "feed-forward in X·W"},
	{false, false, 16384, 64, 256, "feed-forward out X·W"},
	{false, false, 16384, 64, 64, "attention out X·W"},
	{false, false, 4096, 16, 64, "narrow head X·W"},
	{false, true, 16384, 64, 256, "dX = dY·Wᵀ"},
	{false, true, 16384, 256, 64, "dX = dY·Wᵀ"},
	{true, false, 64, 256, 16384, "dW = Xᵀ·dY"},
	{true, false, 256, 64, 16384, "dW = Xᵀ·dY"},
	{false, true, 256, 256, 16, "Q·Kᵀ"},
	{false, false, 256, 16, 256, "P·V"},
	{true, true, 256, 64, 256, "Aᵀ·Bᵀ"},
}

func (s benchShape) name() string {
	return fmt.Sprintf("%s_%dx%dx%d", tname(s.tA, s.tB), s.m, s.n, s.k)
}

func benchOperands[F tensor.Float](s benchShape) (a []F, lda int, b []F, ldb int, c []F) {
	rng := rand.New(rand.NewPCG(5, 6))
	lda, ldb = s.k, s.n
	if s.tA {
		lda = s.m
	}
	if s.tB {
		ldb = s.k
	}
	return randSlice[F](rng, s.m*s.k), lda, randSlice[F](rng, s.k*s.n), ldb, randSlice[F](rng, s.m*s.n)
}

func reportFlops(b *testing.B, s benchShape) {
	b.ReportMetric(2*float64(s.m)*float64(s.n)*float64(s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func benchGemm[F tensor.Float](b *testing.B) {
	for _, s := range benchShapes {
		a, lda, bb, ldb, c := benchOperands[F](s)
		for _, procs := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/procs=%d", s.name(), procs), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				for b.Loop() {
					Gemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n)
				}
				reportFlops(b, s)
			})
		}
	}
}

// BenchmarkFloat32 measures Float32 on the transformer's shapes with one
// and two goroutines.
func BenchmarkFloat32(b *testing.B) { benchGemm[float32](b) }

// BenchmarkFloat64 measures Float64 on the transformer's shapes.
func BenchmarkFloat64(b *testing.B) { benchGemm[float64](b) }

// naive is the textbook triple loop (i, l, j order for the NN case).
func naive[F tensor.Float](tA, tB bool, m, n, k int, a []F, lda int, b []F, ldb int, c []F, ldc int) {
	for i := 0; i < m; i++ {
		crow := c[i*ldc : i*ldc+n]
		clear(crow)
		for l := 0; l < k; l++ {
			var av F
			if tA {
				av = a[l*lda+i]
			} else {
				av = a[i*lda+l]
			}
			if !tB {
				for j, bv := range b[l*ldb : l*ldb+n] {
					crow[j] += av * bv
				}
				continue
			}
			for j := range crow {
				crow[j] += av * b[j*ldb+l]
			}
		}
	}
}

// BenchmarkNaive32 measures a naive triple loop, single-threaded, for
// comparison.
func BenchmarkNaive32(b *testing.B) {
	for _, s := range benchShapes {
		a, lda, bb, ldb, c := benchOperands[float32](s)
		b.Run(s.name(), func(b *testing.B) {
			for b.Loop() {
				naive(s.tA, s.tB, s.m, s.n, s.k, a, lda, bb, ldb, c, s.n)
			}
			reportFlops(b, s)
		})
	}
}

func gonumTrans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// BenchmarkGonum32 measures gonum's pure-Go Sgemm (row-major, with its own
// parallelism) on the same problems.
func BenchmarkGonum32(b *testing.B) {
	var impl gonum.Implementation
	for _, s := range benchShapes {
		a, lda, bb, ldb, c := benchOperands[float32](s)
		for _, procs := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/procs=%d", s.name(), procs), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				for b.Loop() {
					impl.Sgemm(gonumTrans(s.tA), gonumTrans(s.tB), s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n)
				}
				reportFlops(b, s)
			})
		}
	}
}

// BenchmarkGonum64 measures gonum's pure-Go Dgemm on the same problems.
func BenchmarkGonum64(b *testing.B) {
	var impl gonum.Implementation
	for _, s := range benchShapes {
		a, lda, bb, ldb, c := benchOperands[float64](s)
		for _, procs := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/procs=%d", s.name(), procs), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				for b.Loop() {
					impl.Dgemm(gonumTrans(s.tA), gonumTrans(s.tB), s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n)
				}
				reportFlops(b, s)
			})
		}
	}
}

// BenchmarkKSplit measures the weight gradients' products (C the weight,
// k the tokens of a 64 × 256 batch) with and without the split along k,
// on 1 to 16 goroutines.
func BenchmarkKSplit(b *testing.B) {
	for _, s := range []benchShape{
		{true, false, 64, 192, 16384, "dW of the QKV projection"},
		{true, false, 64, 256, 16384, "dW of the feed-forward in"},
		{true, false, 256, 64, 16384, "dW of the feed-forward out"},
	} {
		a, lda, bm, ldb, c := benchOperands[float32](s)
		for _, on := range []bool{true, false} {
			for _, procs := range []int{1, 2, 4, 8, 16} {
				b.Run(fmt.Sprintf("%s/split=%v/procs=%d", s.name(), on, procs), func(b *testing.B) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					defer func(v bool) { kSplitOn = v }(kSplitOn)
					kSplitOn = on
					for b.Loop() {
						Float32(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 1, c, s.n)
					}
					reportFlops(b, s)
				})
			}
		}
	}
}
