// Package gemm is a small, fast and deterministic dense matrix multiply for
// the transformer:
//
//	C = alpha·op(A)·op(B) + beta·C
//
// on row-major float32 and float64 matrices with leading dimensions, where
// op(X) is X or Xᵀ. [Float32] and [Float64] have the argument order of BLAS
// gemm (row-major, like gonum's blas); [Gemm] dispatches on the element type
// for code that is generic over tensor.Float, [GemmEpilogue] adds an
// elementwise pass on each block of C, and [GemmPacked] takes a B that its
// caller has already written in the packed panel layout below.
//
// # Algorithm
//
// The loops follow Goto and van de Geijn, "Anatomy of high-performance
// matrix multiplication", ACM TOMS 34(3), 2008, as refined by BLIS (Van Zee
// and van de Geijn, "BLIS: a framework for rapidly instantiating BLAS
// functionality", ACM TOMS 41(3), 2015):
//
//	for jc in steps of nc (1024 columns of C)
//	  for pc in steps of kc (256 of k; 128 when A is transposed)
//	    pack op(B)[pc:pc+kc, jc:jc+nc] into nr-wide column panels
//	      (read in place when B is one panel wide with rows nr apart,
//	      or given packed to GemmPacked)
//	    for ic in steps of mc (96 rows of C)
//	      for jr in steps of nr          (the B panel stays in L1)
//	        for ir in steps of mr        (op(A) rows come from L1/L2)
//	          micro-kernel: C[ir:ir+mr, jr:jr+nr] from kc rank-1 updates
//
// The micro-kernel keeps an mr×nr tile of C in vector registers, loads one
// row of the packed B panel per step and broadcasts the op(A) elements of
// that step into fused multiply-adds. On amd64 it is written in assembly:
// with AVX-512 a 16×16 float32 (16×8 float64) tile in Z16–Z31 using
// embedded-broadcast VFMADD231PS/PD, otherwise with AVX2 and FMA a 6×16
// float32 (6×8 float64) tile in twelve YMM registers; the CPU features are
// read with CPUID and XGETBV at start-up (package x86). Other CPUs use a portable Go
// kernel with a 6-row tile. Unlike BLIS, op(A) is not packed: the kernel
// reads it in place through a row and a column stride, which saves a pass
// over A when n is as small as the transformer's widths (16 to 256) and
// makes every transpose combination cost about the same. Partial tiles at
// the right and bottom edges go through zero-padded copies and the same
// kernel.
//
// # Parallelism and determinism
//
// Products with m·n·k of at least 2¹⁸ are split into up to GOMAXPROCS
// disjoint blocks of C (rows, columns or both, whichever a cost model of
// each block's share of the product and of its packing finds cheapest),
// each cut along its rows into up to four parts of at least 128 rows,
// run by the calling goroutine and the persistent workers of the module's
// shared parallel.Team (whichever claims a part computes it, so that a
// goroutine that starts late takes fewer); smaller ones run on the
// calling goroutine. When several row blocks would each pack the same
// columns of a large B (2¹⁶ ≤ k·n ≤ 2²²), B is packed once, in parallel
// over its panels, in GemmPacked's layout, and every block reads it there. Every element of C is computed by the same
// sequence of floating-point operations whatever the split: a sum over l in
// increasing order within each k block, in an accumulator of the element
// type, then C = fma(beta, C, alpha·sum) for the first block (C = alpha·sum
// when beta is zero) and C = C + alpha·sum for the later ones, and the
// block depth is a function of the shape and transposes only.
//
// Products with a small C (at most 2¹⁶ elements) and a long k (room for
// two chunks), the weight gradients Xᵀ·dY of a layer, are also cut along k
// into 2, 4, 8 or 16 chunks of whole k blocks, at least 512 deep and as
// even as the blocks allow, whatever GOMAXPROCS: chunk 0 is
// computed into C as above, every later chunk j into a partial P_j with
// beta zero, and then C = (…((C + P_1) + P_2) + …) + P_{J−1}, so that the
// goroutines read each row of the operands once rather than each reading
// the rows its block of C needs. The chunks are a function of the shape
// only. The result is therefore bit-identical for any GOMAXPROCS. It may
// differ between the assembly and the portable kernels, and between this
// package and other BLAS implementations, by rounding.
//
// # Cost
//
// 2·m·n·k flops, plus O(k·n) to pack B per block of C (once per product
// for a large B); memory is a per-goroutine packing buffer of 1 MiB
// (float32) or 2 MiB (float64), a k×n packed B (at most 2²² values) for
// products that share it, and for products cut along k up to 15 partials
// of C, reused through sync.Pools. transformer.PeakGFLOPS measures the
// product's speed; the measurements are in examples/transformerbench/README.md.
package gemm
