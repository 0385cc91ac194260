package gemm

import (
	"github.com/icrl-go/icrl/internal/bufpool"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/tensor"
)

// Products with a small C and a long k, the weight gradients Xᵀ·dY of a
// layer (C is the weight's shape, k the number of tokens), are split along
// k: a split of their few tiles of C among many goroutines has several
// of them read every element of both operands (four for a 64 × 192 C on
// 16 goroutines), while chunks of k read every operand row once. Chunk j
// computes P_j = alpha·op(A)[:, K_j]·op(B)[K_j, :] by the usual blocked
// loops (chunk 0 straight into C, with beta), and then
// C = (…((C + P_1) + P_2) + …) + P_{J−1}. The chunks depend on the shape
// only (kChunks), so the result is the same for any GOMAXPROCS.
const (
	// kSplitMinDepth is the least depth of a k chunk (but the last may
	// hold a partial k block): a multiple of both k blocks, and deep
	// enough that a chunk's product outweighs adding its partial C.
	kSplitMinDepth = 512
	// kSplitMaxChunks is the most chunks a product is cut into.
	kSplitMaxChunks = 16
	// kSplitMaxC is the most elements of C for which k is split; larger
	// products have enough tiles of C to share out, and their partials
	// would not stay in cache.
	kSplitMaxC = 1 << 16
)

// kSplitOn is whether products are split along k; BenchmarkKSplit turns
// it off to measure what the split buys.
var kSplitOn = true

// kSplit cuts k into chunks of whole k blocks, as even as the blocks
// allow; chunks is 1 when k is not cut.
type kSplit struct {
	chunks, blocks, kc, k int
}

// kChunks returns the split of k for an m×n C and k blocks of kc: the
// largest power of two of chunks, at most kSplitMaxChunks, that leaves
// each at least kSplitMinDepth deep. A power of two shares out evenly
// among the usual thread counts (three chunks on two threads took as long
// as four).
func kChunks(m, n, k, kc int) kSplit {
	blocks := (k + kc - 1) / kc
	s := kSplit{chunks: 1, blocks: blocks, kc: kc, k: k}
	if kSplitOn && m*n <= kSplitMaxC {
		for c := min(kSplitMaxChunks, blocks/(kSplitMinDepth/kc)); s.chunks*2 <= c; {
			s.chunks *= 2
		}
	}
	return s
}

// bounds returns chunk j's range [lo, hi) of k: blocks
// [j·blocks/chunks, (j+1)·blocks/chunks).
func (s kSplit) bounds(j int) (lo, hi int) {
	return j * s.blocks / s.chunks * s.kc, min(s.k, (j+1)*s.blocks/s.chunks*s.kc)
}

// chunk returns the problem of chunk j of s: chunk 0 writes C with the
// product's beta, chunk j > 0 writes partial j−1 in buf (m×n, beta 0, so
// that the buffer's previous contents are ignored).
func (p *problem[F]) chunk(s kSplit, j int, buf []F) problem[F] {
	q := *p
	lo, hi := s.bounds(j)
	q.k = hi - lo
	q.a, q.b = p.a[lo*p.csA:], p.b[lo*p.rsB:]
	q.epi = nil // C is final only once the partials are added
	if j > 0 {
		q.beta, q.c, q.ldc = 0, buf[(j-1)*p.m*p.n:j*p.m*p.n], p.n
	}
	return q
}

// runChunks computes the product cut along k by s, on up to workers
// goroutines: every chunk's C is split by grid among workers/chunks of
// them, and the partials are added into C in chunk order.
func (p *problem[F]) runChunks(s kSplit, workers int) {
	chunks := s.chunks
	parts := bufpool.Get[F]((chunks - 1) * p.m * p.n)
	defer bufpool.Put(parts)
	buf := *parts
	mTiles := (p.m + p.mr - 1) / p.mr
	nTiles := (p.n + p.nr - 1) / p.nr
	gr, gc := grid(mTiles, nTiles, p.mr, p.nr, max(1, workers/chunks))
	if tasks := chunks * gr * gc; workers > 1 {
		sp := new(problem[F])
		*sp = *p
		parallel.Shared.For(tasks, tasks, tasks, func(lo, hi int) {
			for t := lo; t < hi; t++ {
				q := sp.chunk(s, t/(gr*gc), buf)
				r, c := t%(gr*gc)/gc, t%gc
				i0, i1 := r*mTiles/gr*q.mr, min(q.m, (r+1)*mTiles/gr*q.mr)
				j0, j1 := c*nTiles/gc*q.nr, min(q.n, (c+1)*nTiles/gc*q.nr)
				q.block(i0, i1, j0, j1)
			}
		})
	} else {
		for j := range chunks {
			q := p.chunk(s, j, buf)
			q.block(0, q.m, 0, q.n)
		}
	}
	addPartials(p.c, p.ldc, buf, chunks-1, p.m, p.n, workers, p.epi)
}

// addPartials adds the parts m×n partials in buf to C (leading dimension
// ldc), in order, in parallel over rows when there are enough additions
// to share (each element's sums run in the same order whatever the split),
// and then applies epi (nil: none) to the rows each goroutine added.
func addPartials[F tensor.Float](c []F, ldc int, buf []F, parts, m, n, workers int, epi Epilogue) {
	threads := min(workers, max(1, parts*m*n/minAddsPerWorker))
	if threads <= 1 {
		addPartialRows(c, ldc, buf, parts, m, n, 0, m)
		if epi != nil {
			epi(0, m, 0, n)
		}
		return
	}
	parallel.Shared.For(m, threads, threads, func(lo, hi int) {
		addPartialRows(c, ldc, buf, parts, m, n, lo, hi)
		if epi != nil {
			epi(lo, hi, 0, n)
		}
	})
}

// addPartialRows is addPartials on rows [lo, hi) of C.
func addPartialRows[F tensor.Float](c []F, ldc int, buf []F, parts, m, n, lo, hi int) {
	for i := lo; i < hi; i++ {
		row := c[i*ldc : i*ldc+n]
		for j := range parts {
			s := buf[j*m*n+i*n : j*m*n+i*n+n]
			for x, v := range s {
				row[x] += v
			}
		}
	}
}

// minAddsPerWorker is the least number of partial additions worth giving
// to a goroutine.
const minAddsPerWorker = 1 << 14
