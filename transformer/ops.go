package transformer

import (
	"math"
	"runtime"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/icrl-go/icrl/internal/bufpool"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/internal/gemm"
)

// This file holds the fused operations the model is built from, each with a
// forward and a hand-written backward pass. Every parallel loop writes
// disjoint outputs and every reduction runs in a fixed order, so results do
// not depend on GOMAXPROCS.

// minParallelWork is the least work (roughly, floating-point operations
// or elements touched) worth handing to a goroutine: handing a chunk to a
// worker of parallel.Shared, which polls for work between loops, and
// waiting for it costs a few microseconds, as much as this work, so smaller
// loops run on the calling goroutine.
const minParallelWork = 1 << 14

// parallelChunks is the number of chunks per goroutine of the parallel
// loops that have enough items: the chunks are claimed one at a time, so a
// goroutine that starts late or runs slow (its core shared with another
// thread) takes fewer of them rather than holding the loop up by a whole
// share.
const parallelChunks = 4

// parallelFor runs fn(lo, hi) over [0, n) split into contiguous chunks, on
// the calling goroutine and up to GOMAXPROCS−1 workers of parallel.Shared,
// giving each at least minParallelWork of work when an item costs
// itemWork: loops of less than twice that run on the calling goroutine.
// Each goroutine gets up to parallelChunks chunks. fn must write only
// outputs owned by its chunk.
func parallelFor(n, itemWork int, fn func(lo, hi int)) {
	parallelGroups(n, 1, itemWork, fn)
}

// parallelGroups is parallelFor over n items that come in groups of g
// consecutive ones (n a multiple of g) that share work, such as the heads
// of one sequence: when there are at least two groups per goroutine, the
// chunks are whole groups.
func parallelGroups(n, g, itemWork int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	// runtime.GOMAXPROCS takes the scheduler's lock: loops too small to
	// share do not call it.
	most := min(n, n*max(itemWork, 1)/minParallelWork)
	if most <= 1 {
		fn(0, n)
		return
	}
	workers := min(runtime.GOMAXPROCS(0), most)
	if workers <= 1 {
		fn(0, n)
		return
	}
	if g > 1 {
		if groups := n / g; groups >= 2*workers {
			parallel.Shared.For(groups, min(groups, parallelChunks*workers), workers, func(lo, hi int) { fn(lo*g, hi*g) })
			return
		}
		// Few groups: one chunk per goroutine, as even as the items allow.
		parallel.Shared.For(n, workers, workers, fn)
		return
	}
	parallel.Shared.For(n, min(n, parallelChunks*workers), workers, fn)
}

// parallelCols is parallelFor over the columns [0, cols) of a row-major
// matrix, for loops that accumulate down the columns (a sum over rows into
// one row): the chunks' boundaries are multiples of a 64-byte cache line's
// worth of elements, so that two cores do not keep writing to one cache
// line (false sharing, which made such loops slower on 16 cores than on
// one). itemWork is the cost of one column.
func parallelCols[F tensor.Float](cols, itemWork int, fn func(lo, hi int)) {
	var z F
	w := 64 / int(unsafe.Sizeof(z))
	groups := (cols + w - 1) / w
	parallelFor(groups, itemWork*w, func(lo, hi int) { fn(lo*w, min(hi*w, cols)) })
}

// linearForward computes y = x·w + b for n rows: x is n×in, w is in×out,
// b (nil for none) has out entries, y is n×out.
func linearForward[F tensor.Float](y, x []F, n, in, out int, w, b []F) {
	linearEpilogue(y, x, n, in, out, w, b, nil, 0, nil)
}

// linearResidual computes y = (x·w + b) + res, res n×out (a residual
// connection), with the additions in one pass over the rows.
func linearResidual[F tensor.Float](y, x []F, n, in, out int, w, b, res []F) {
	linearEpilogue(y, x, n, in, out, w, b, res, 0, nil)
}

// linearActivation computes y = x·w + b and a = act(y) (both n×out), with
// the bias and the activation in one pass over the rows.
func linearActivation[F tensor.Float](act Activation, y, a, x []F, n, in, out int, w, b []F) {
	linearEpilogue(y, x, n, in, out, w, b, nil, act, a)
}

// linearEpilogue computes y = x·w, then y += b (b nil: none), y += res
// (res nil: none) and a = act(y) (a nil: none), each element's additions
// in the order of separate passes, so the result is the same: the product
// applies them to each block of y right after computing it (gemm's
// epilogue), while the block is in cache, with no second parallel loop
// and no second trip through memory.
func linearEpilogue[F tensor.Float](y, x []F, n, in, out int, w, b, res []F, act Activation, a []F) {
	if n == 1 { // no goroutine, no closure to allocate
		gemv(y, x, w, in, out, false)
		epilogueBlock(y, out, b, res, act, a, 0, 1, 0, out)
		return
	}
	if b == nil && res == nil && a == nil {
		gemm.Gemm(false, false, n, out, in, 1, x, in, w, out, 0, y, out)
		return
	}
	gemm.GemmEpilogue(false, false, n, out, in, 1, x, in, w, out, 0, y, out, func(i0, i1, j0, j1 int) {
		epilogueBlock(y, out, b, res, act, a, i0, i1, j0, j1)
	})
}

// epilogueBlock is linearEpilogue's pass on rows [i0, i1) and columns
// [j0, j1) of the out-wide y.
func epilogueBlock[F tensor.Float](y []F, out int, b, res []F, act Activation, a []F, i0, i1, j0, j1 int) {
	for i := i0; i < i1; i++ {
		lo, hi := i*out+j0, i*out+j1
		row := y[lo:hi]
		if b != nil {
			addVec(row, b[j0:j1])
		}
		if res != nil {
			addVec(row, res[lo:hi])
		}
		if a != nil {
			activate(act, a, y, lo, hi)
		}
	}
}

// linearBackward accumulates the gradients of y = x·w + b given dy:
// dw += xᵀ·dy, db += Σ_rows dy, and, if dx is non-nil, sets dx = dy·wᵀ.
func linearBackward[F tensor.Float](dx, dw, db, dy, x []F, n, in, out int, w []F) {
	gemm.Gemm(true, false, in, out, n, 1, x, in, dy, out, 1, dw, out)
	if db != nil {
		sumRows(db, dy, n, out)
	}
	if dx != nil {
		gemm.Gemm(false, true, n, in, out, 1, dy, out, w, out, 0, dx, in)
	}
}

// sumRows adds the column sums of the n×w matrix a to dst (see
// sumRowChunks for the order of the sums).
func sumRows[F tensor.Float](dst, a []F, n, w int) {
	sumRowChunks(dst, n, w, w, func(acc []F, lo, hi int) {
		addRows(acc, a[lo*w:], hi-lo, w, w)
	})
}

// rowChunk is the number of rows of a chunk of sumRowChunks: a constant,
// so that the order of every sum, and so the result, does not depend on
// the number of goroutines.
const rowChunk = 64

// sumRowChunks adds to the w-wide dst a sum over n rows: the rows are cut
// into chunks of rowChunk, add(acc, lo, hi) accumulates rows [lo, hi) into
// the zeroed w-wide acc of their chunk (chunks run in parallel; itemWork
// is the cost of one row), and the chunks' sums are added to dst in chunk
// order (in parallel over whole cache lines of columns). A sum down n rows
// thus parallelises over rows, where the columns may be too few (a width
// of 64 is four cache lines), and reads each row once.
func sumRowChunks[F tensor.Float](dst []F, n, w, itemWork int, add func(acc []F, lo, hi int)) {
	chunks := (n + rowChunk - 1) / rowChunk
	buf := bufpool.Get[F](chunks * w)
	defer bufpool.Put(buf)
	parts := *buf
	parallelFor(chunks, rowChunk*itemWork, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			acc := parts[c*w : (c+1)*w]
			clear(acc)
			add(acc, c*rowChunk, min(n, (c+1)*rowChunk))
		}
	})
	parallelCols[F](w, chunks, func(lo, hi int) {
		addRows(dst[lo:hi], parts[lo:], chunks, hi-lo, w)
	})
}

// addRows adds rows rows of a, w entries each and stride apart, to
// acc[:w], one row after the other: acc[j] += a[i·stride+j] for
// i = 0, 1, …, rows−1 in turn (so the bits do not depend on the kernel).
func addRows[F tensor.Float](acc, a []F, rows, w, stride int) {
	if addRowsVector(acc, a, rows, w, stride) {
		return
	}
	for i := range rows {
		addVec(acc[:w], a[i*stride:i*stride+w])
	}
}

// addVec sets dst[j] += x[j], on the vector kernel of addRows where it
// applies and otherwise with gonum's assembly axpy (α = 1, so every entry
// is rounded exactly as by a plain addition). It panics if x is
// shorter than dst.
func addVec[F tensor.Float](dst, x []F) {
	if n8 := len(dst) &^ 7; addRowsVector(dst, x, 1, n8, n8) {
		dst, x = dst[n8:], x[n8:]
	}
	if len(dst) == 0 {
		return
	}
	switch d := any(dst).(type) {
	case []float32:
		blas32.Axpy(1, blas32.Vector{N: len(d), Inc: 1, Data: any(x).([]float32)}, blas32.Vector{N: len(d), Inc: 1, Data: d})
	case []float64:
		blas64.Axpy(1, blas64.Vector{N: len(d), Inc: 1, Data: any(x).([]float64)}, blas64.Vector{N: len(d), Inc: 1, Data: d})
	}
}

// layerNormForward normalises each of the n rows of x (width d):
// y = (x − μ)·r·γ + β with r = 1/√(σ² + ε), storing μ and r per row.
func layerNormForward[F tensor.Float](y, mean, rstd, x []F, n, d int, gamma, beta []F, eps float64) {
	if n <= 64 { // no goroutine: avoid allocating the closure below
		layerNormRows(y, mean, rstd, x, 0, n, d, gamma, beta, eps)
		return
	}
	parallelFor(n, 6*d, func(lo, hi int) { layerNormRows(y, mean, rstd, x, lo, hi, d, gamma, beta, eps) })
}

// layerNormRows is layerNormForward on rows [lo, hi).
// It runs on the vector kernel where that applies (same bits).
func layerNormRows[F tensor.Float](y, mean, rstd, x []F, lo, hi, d int, gamma, beta []F, eps float64) {
	if !layerNormForwardVector(y, mean, rstd, x, lo, hi, d, gamma, beta, eps) {
		layerNormForwardRows(y, mean, rstd, x, lo, hi, d, gamma, beta, eps)
	}
}

// layerNormForwardRows is layerNormRows in Go.
func layerNormForwardRows[F tensor.Float](y, mean, rstd, x []F, lo, hi, d int, gamma, beta []F, eps float64) {
	for i := lo; i < hi; i++ {
		row := x[i*d : (i+1)*d]
		mu := sum4(row, 0) / float64(d)
		r := 1 / math.Sqrt(sumSq4(row, mu)/float64(d)+eps)
		mean[i], rstd[i] = F(mu), F(r)
		out := y[i*d : (i+1)*d]
		for j, v := range row {
			out[j] = F((float64(v)-mu)*r)*gamma[j] + beta[j]
		}
	}
}

// sum4 returns Σ_j (x_j − c) in float64, in four interleaved partial sums
// (j mod 4) added at the end: four independent chains of additions, where
// one chain would wait on each addition's latency.
func sum4[F tensor.Float](x []F, c float64) float64 {
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(x); j += 4 {
		v := x[j : j+4 : j+4]
		s0 += float64(v[0]) - c
		s1 += float64(v[1]) - c
		s2 += float64(v[2]) - c
		s3 += float64(v[3]) - c
	}
	for ; j < len(x); j++ {
		s0 += float64(x[j]) - c
	}
	return (s0 + s1) + (s2 + s3)
}

// sumSq4 returns Σ_j (x_j − c)² in float64, as sum4 sums.
func sumSq4[F tensor.Float](x []F, c float64) float64 {
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(x); j += 4 {
		v := x[j : j+4 : j+4]
		t0, t1, t2, t3 := float64(v[0])-c, float64(v[1])-c, float64(v[2])-c, float64(v[3])-c
		s0 += t0 * t0
		s1 += t1 * t1
		s2 += t2 * t2
		s3 += t3 * t3
	}
	for ; j < len(x); j++ {
		t := float64(x[j]) - c
		s0 += t * t
	}
	return (s0 + s1) + (s2 + s3)
}

// layerNormBackward accumulates dγ and dβ and sets dx, or adds to it
// when add is set (a residual branch's gradient; dx may alias neither x
// nor dy), for y = LayerNorm(x): with x̂ = (x − μ)·r and
// g = dy·γ, dx = r·(g − mean(g) − x̂·mean(g·x̂)), dγ += Σ_rows dy·x̂ and
// dβ += Σ_rows dy, in one pass over the rows (see sumRowChunks).
func layerNormBackward[F tensor.Float](dx, dgamma, dbeta, dy, x, mean, rstd []F, n, d int, gamma []F, add bool) {
	sums := make([]F, 2*d) // dγ then dβ
	sumRowChunks(sums, n, 2*d, 14*d, func(acc []F, lo, hi int) {
		if !layerNormBackwardVector(dx, acc, dy, x, mean, rstd, lo, hi, d, gamma, add) {
			layerNormBackwardRows(dx, acc, dy, x, mean, rstd, lo, hi, d, gamma, add)
		}
	})
	addVec(dgamma, sums[:d])
	addVec(dbeta, sums[d:])
}

// layerNormBackwardRows is the work of layerNormBackward on rows [lo, hi):
// it sets (or adds to) their dx and adds their dγ and dβ terms to acc[:d]
// and acc[d:2d].
func layerNormBackwardRows[F tensor.Float](dx, acc, dy, x, mean, rstd []F, lo, hi, d int, gamma []F, add bool) {
	accG, accB := acc[:d], acc[d:]
	for i := lo; i < hi; i++ {
		row, g := x[i*d:(i+1)*d], dy[i*d:(i+1)*d]
		mu, r := float64(mean[i]), float64(rstd[i])
		sg, sgx := gradSums4(row, g, gamma, mu, r)
		sg /= float64(d)
		sgx /= float64(d)
		out := dx[i*d : (i+1)*d]
		muF, rF := mean[i], rstd[i]
		for j, v := range row {
			xh := (float64(v) - mu) * r
			gj := float64(g[j]) * float64(gamma[j])
			if add {
				out[j] += F(r * (gj - sg - xh*sgx))
			} else {
				out[j] = F(r * (gj - sg - xh*sgx))
			}
			accG[j] += g[j] * ((v - muF) * rF)
		}
		addVec(accB, g)
	}
}

// gradSums4 returns Σ_j g_j·γ_j and Σ_j g_j·γ_j·x̂_j with x̂_j = (x_j − μ)·r,
// in float64, each in four interleaved partial sums (see sum4).
func gradSums4[F tensor.Float](x, g, gamma []F, mu, r float64) (sg, sgx float64) {
	var a0, a1, a2, a3, b0, b1, b2, b3 float64
	g, gamma = g[:len(x)], gamma[:len(x)]
	j := 0
	for ; j+4 <= len(x); j += 4 {
		g0, g1 := float64(g[j])*float64(gamma[j]), float64(g[j+1])*float64(gamma[j+1])
		g2, g3 := float64(g[j+2])*float64(gamma[j+2]), float64(g[j+3])*float64(gamma[j+3])
		a0 += g0
		a1 += g1
		a2 += g2
		a3 += g3
		b0 += g0 * ((float64(x[j]) - mu) * r)
		b1 += g1 * ((float64(x[j+1]) - mu) * r)
		b2 += g2 * ((float64(x[j+2]) - mu) * r)
		b3 += g3 * ((float64(x[j+3]) - mu) * r)
	}
	for ; j < len(x); j++ {
		gj := float64(g[j]) * float64(gamma[j])
		a0 += gj
		b0 += gj * ((float64(x[j]) - mu) * r)
	}
	return (a0 + a1) + (a2 + a3), (b0 + b1) + (b2 + b3)
}

// activationForward sets y = act(x) elementwise.
func activationForward[F tensor.Float](act Activation, y, x []F) {
	if len(x) <= 4096 { // no goroutine: avoid allocating the closure below
		activate(act, y, x, 0, len(x))
		return
	}
	parallelFor(len(x), activationWork(act), func(lo, hi int) { activate(act, y, x, lo, hi) })
}

// activate is activationForward on entries [lo, hi).
func activate[F tensor.Float](act Activation, y, x []F, lo, hi int) {
	switch act {
	case ReLU:
		for i := lo + reluVector(y, x, lo, hi); i < hi; i++ {
			y[i] = max(x[i], 0)
		}
	case GELU:
		for i := lo; i < hi; i++ {
			v := float64(x[i])
			y[i] = F(0.5 * v * (1 + math.Erf(v/math.Sqrt2)))
		}
	case GELUTanh:
		for i := lo; i < hi; i++ {
			v := float64(x[i])
			y[i] = F(0.5 * v * (1 + math.Tanh(sqrt2OverPi*(v+geluCubic*v*v*v))))
		}
	}
}

// The constants of the tanh approximation of GELU.
const (
	sqrt2OverPi = 0.7978845608028654 // √(2/π)
	geluCubic   = 0.044715
)

// activationBackward sets dx = dy·act'(x) elementwise (dx may alias dy).
// The ReLU derivative at 0 is taken as 0.
func activationBackward[F tensor.Float](act Activation, dx, dy, x []F) {
	parallelFor(len(x), activationWork(act), func(lo, hi int) { activationRowsBackward(act, dx, dy, x, lo, hi) })
}

// activationRowsBackward is activationBackward on entries [lo, hi).
func activationRowsBackward[F tensor.Float](act Activation, dx, dy, x []F, lo, hi int) {
	switch act {
	case ReLU:
		reluBackward(dx, dy, x, lo, hi)
	case GELU:
		const invSqrt2Pi = 0.3989422804014327
		for i := lo; i < hi; i++ {
			v := float64(x[i])
			cdf := 0.5 * (1 + math.Erf(v/math.Sqrt2))
			pdf := invSqrt2Pi * math.Exp(-0.5*v*v)
			dx[i] = F(float64(dy[i]) * (cdf + v*pdf))
		}
	case GELUTanh:
		// d/dv v/2·(1 + tanh u) = (1 + t)/2 + v/2·(1 − t²)·u′ with
		// u = √(2/π)(v + 0.044715v³), t = tanh u.
		for i := lo; i < hi; i++ {
			v := float64(x[i])
			t := math.Tanh(sqrt2OverPi * (v + geluCubic*v*v*v))
			du := sqrt2OverPi * (1 + 3*geluCubic*v*v)
			dx[i] = F(float64(dy[i]) * (0.5*(1+t) + 0.5*v*(1-t*t)*du))
		}
	}
}

// activationBackwardSum sets d = d·act'(x) elementwise on the n w-wide
// rows and adds their column sums to db (the bias gradient of the product
// that made x), in one pass: the sums run as sumRows runs them, on the
// rows just multiplied.
func activationBackwardSum[F tensor.Float](act Activation, d, x, db []F, n, w int) {
	sumRowChunks(db, n, w, w*(1+activationWork(act)), func(acc []F, lo, hi int) {
		activationRowsBackward(act, d, d, x, lo*w, hi*w)
		addRows(acc, d[lo*w:], hi-lo, w, w)
	})
}

// activationWork is the cost of one element of act, for parallelFor.
func activationWork(act Activation) int {
	if act == GELU || act == GELUTanh {
		return 30
	}
	return 1
}

// reluBackward sets dx = dy where x > 0 and +0 elsewhere, on entries
// [lo, hi), without branches (the sign of x is random, so a branch
// mispredicts half the time): the bits of dy are masked by the sign of
// (p−1)|p, p the bits of x as a signed integer, which is negative exactly
// when x ≤ 0 (p ≤ 0, including −0).
func reluBackward[F tensor.Float](dx, dy, x []F, lo, hi int) {
	lo += reluBackwardVector(dx, dy, x, lo, hi)
	switch xs := any(x).(type) {
	case []float32:
		xs = xs[lo:hi]
		dxs, dys := any(dx).([]float32)[lo:hi], any(dy).([]float32)[lo:hi]
		dxs, dys = dxs[:len(xs)], dys[:len(xs)]
		for i, x := range xs {
			p := int32(math.Float32bits(x))
			off := uint32(((p - 1) | p) >> 31)
			dxs[i] = math.Float32frombits(math.Float32bits(dys[i]) &^ off)
		}
	case []float64:
		xs = xs[lo:hi]
		dxs, dys := any(dx).([]float64)[lo:hi], any(dy).([]float64)[lo:hi]
		dxs, dys = dxs[:len(xs)], dys[:len(xs)]
		for i, x := range xs {
			p := int64(math.Float64bits(x))
			off := uint64(((p - 1) | p) >> 63)
			dxs[i] = math.Float64frombits(math.Float64bits(dys[i]) &^ off)
		}
	}
}

// addTo sets dst[i] += src[i].
func addTo[F tensor.Float](dst, src []F) {
	parallelFor(len(dst), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] += src[i]
		}
	})
}

// gemv sets y = x·w for one row x (in values) and the in×out row-major
// matrix w, or, if rowsDot is set, y = w·x for the out×in matrix w (one dot
// product per row). It uses gonum's BLAS (assembly, no packing): the
// matrix–vector products of online decoding.
func gemv[F tensor.Float](y, x, w []F, in, out int, rowsDot bool) {
	tr, rows, cols := blas.Trans, in, out
	if rowsDot {
		tr, rows, cols = blas.NoTrans, out, in
	}
	switch yy := any(y).(type) {
	case []float32:
		blas32.Gemv(tr, 1, blas32.General{Rows: rows, Cols: cols, Stride: cols, Data: any(w).([]float32)},
			blas32.Vector{N: in, Inc: 1, Data: any(x).([]float32)}, 0, blas32.Vector{N: out, Inc: 1, Data: yy})
	case []float64:
		blas64.Gemv(tr, 1, blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: any(w).([]float64)},
			blas64.Vector{N: in, Inc: 1, Data: any(x).([]float64)}, 0, blas64.Vector{N: out, Inc: 1, Data: yy})
	}
}
