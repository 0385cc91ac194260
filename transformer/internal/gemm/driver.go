package gemm

import (
	"runtime"
	"sync"

	"github.com/icrl-go/icrl/internal/bufpool"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/tensor"
)

// Tile and block sizes. A micro-kernel computes an mr×nr tile of C; the k
// dimension is cut into blocks of kc, the n dimension into blocks of nc, and
// the rows of C into blocks of mc (see the package documentation).
// The row count mr of the tile depends on the kernel chosen at start-up.
var (
	mr32 = goMR
	mr64 = goMR
)

const (
	nr32, nr64 = 16, 8
	goMR       = 6  // rows of the portable kernel's tile
	maxMR      = 16 // the largest mr of any kernel

	kcBlock = 256
	// kcTransA is the k block when A is transposed: op(A) is then read with
	// a stride of lda per step of l, and a shallower block keeps the A
	// panel in L1.
	kcTransA = 128
	ncBlock  = 1024
	mcBlock  = 96

	// parallelThreshold is the m·n·k below which a product runs on the
	// calling goroutine only. The products above it run on
	// parallel.Shared, whose workers poll for work between products, so
	// that handing a block to a second core costs a few microseconds.
	parallelThreshold = 1 << 18
	// minWorkPerWorker is the least m·n·k worth giving to a goroutine.
	minWorkPerWorker = 1 << 17
)

// kernelFunc is the micro-kernel contract; see goKernel.
type kernelFunc[F tensor.Float] func(kc int, a *F, rsA, csA int, b *F, c *F, ldc int, alpha, beta F)

// problem describes one call after argument checking, with op(A)[i,l] at
// a[i*rsA + l*csA] and op(B)[l,j] at b[l*rsB + j*csB].
type problem[F tensor.Float] struct {
	m, n, k     int
	alpha, beta F
	a           []F
	rsA, csA    int
	b           []F
	rsB, csB    int
	c           []F
	ldc         int
	kc          int // depth of a k block: a function of the shape only
	mr, nr      int
	kern        kernelFunc[F]
	epi         Epilogue // nil: none
	// packedB: b is in the packed layout of GemmPacked (rsB = nr, csB = 1
	// within each k×nr panel, panels k·nr apart).
	packedB bool
}

func newProblem[F tensor.Float](transA, transB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int, mr, nr int, kern kernelFunc[F]) problem[F] {
	p := problem[F]{m: m, n: n, k: k, alpha: alpha, beta: beta, a: a, b: b, c: c, ldc: ldc, mr: mr, nr: nr, kern: kern}
	p.rsA, p.csA, p.kc = lda, 1, kcBlock
	if transA {
		p.rsA, p.csA, p.kc = 1, lda, kcTransA
	}
	p.rsB, p.csB = ldb, 1
	if transB {
		p.rsB, p.csB = 1, ldb
	}
	return p
}

// run computes the product, in parallel over disjoint blocks of C when the
// problem is large enough. Every element of C is computed by the same
// sequence of operations whatever the split, so the result does not depend
// on the number of goroutines.
func run[F tensor.Float](p *problem[F]) {
	if p.k == 0 || p.alpha == 0 {
		scaleC(p.m, p.n, p.beta, p.c, p.ldc)
		if p.epi != nil {
			p.epi(0, p.m, 0, p.n)
		}
		return
	}
	// runtime.GOMAXPROCS takes the scheduler's lock: the small products
	// (the attention's, thousands a step, run by many goroutines at once)
	// do not call it.
	work := p.m * p.n * p.k
	workers := 1
	if work >= parallelThreshold {
		workers = min(runtime.GOMAXPROCS(0), work/minWorkPerWorker)
	}
	if s := kChunks(p.m, p.n, p.k, p.kc); s.chunks > 1 && !p.packedB {
		p.runChunks(s, workers)
		return
	}
	mTiles := (p.m + p.mr - 1) / p.mr
	nTiles := (p.n + p.nr - 1) / p.nr
	gr, gc := grid(mTiles, nTiles, p.mr, p.nr, workers)
	if gr*gc <= 1 {
		p.block(0, p.m, 0, p.n)
		return
	}
	threads := gr * gc
	gr *= rowSplit(mTiles*p.mr, gr)
	// The closure escapes to the workers: copy the problem for it, so that
	// a product run on the calling goroutine alone (most of the attention's
	// small ones) allocates nothing.
	sp := new(problem[F])
	*sp = *p
	if !p.packedB && sharesB(gr, p.k, p.n) {
		// Every row block would pack the same columns of B: pack B once,
		// in parallel over its panels, in GemmPacked's layout, and let
		// the blocks read it there (the kernels see the same values, so
		// the bits do not change).
		buf := bufpool.Get[F](nTiles * p.nr * p.k)
		defer bufpool.Put(buf)
		packed := *buf
		parallel.Shared.For(nTiles, nTiles, threads, func(lo, hi int) {
			sp.packB(packed[lo*sp.nr*sp.k:], 0, sp.k, lo*sp.nr, min(sp.n, hi*sp.nr)-lo*sp.nr)
		})
		sp.b, sp.packedB = packed, true
	}
	parallel.Shared.For(gr*gc, gr*gc, threads, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			r, q := c/gc, c%gc
			i0, i1 := r*mTiles/gr*sp.mr, min(sp.m, (r+1)*mTiles/gr*sp.mr)
			j0, j1 := q*nTiles/gc*sp.nr, min(sp.n, (q+1)*nTiles/gc*sp.nr)
			sp.block(i0, i1, j0, j1)
		}
	})
}

// The sizes of B packed once for all the row blocks of a product (see
// sharesB).
const (
	// sharedPackMin is the least k·n: below it (the transformer's
	// weights as B) a block's own packing costs less than the extra
	// parallel loop.
	sharedPackMin = 1 << 16
	// sharedPackMax is the most k·n: the packed copy is as large as B
	// (16 MiB of float32 at the most), where a block's own packing needs
	// only its kc×nc buffer.
	sharedPackMax = 1 << 22
)

// sharesB reports whether a product with gr row blocks and a k×n B packs
// B once, for all the blocks, rather than once per block.
func sharesB(gr, k, n int) bool {
	return gr > 1 && k*n >= sharedPackMin && k*n <= sharedPackMax
}

// Row blocks per goroutine (see rowSplit).
const (
	blocksPerWorker = 4
	minBlockRows    = 128
)

// rowSplit returns how many parts to cut each of gr row blocks of a C of
// m rows into, at most blocksPerWorker, keeping at least minBlockRows
// rows a part: the blocks are claimed one at a time, so a goroutine that
// starts late or runs slow takes fewer of them rather than holding the
// product up by a whole block. Each part packs its own copy of B's
// columns, a small cost next to its minBlockRows rows of products.
func rowSplit(m, gr int) int {
	return max(1, min(blocksPerWorker, m/(gr*minBlockRows)))
}

// The cost model of grid, per step of k, in units of one element of C
// computed: a block of C with r rows and c columns costs about
// c·(r + packRows) + readCols·r, its share of the product, its own packed
// copy of the columns of B it needs, and its reads of its rows of A.
const (
	packRows = 12
	readCols = 4
)

// grid returns the split of C's mTiles × nTiles tiles (mr × nr each) into
// gr × gc blocks for at most workers goroutines that minimises the cost
// of the largest block (see packRows); ties go to fewer column blocks.
func grid(mTiles, nTiles, mr, nr, workers int) (gr, gc int) {
	gr, gc = 1, 1
	bestCost := -1
	for c := 1; c <= min(workers, nTiles); c++ {
		r := min(mTiles, workers/c)
		rows := (mTiles + r - 1) / r * mr
		cost := (nTiles+c-1)/c*nr*(rows+packRows) + readCols*rows
		if bestCost < 0 || cost < bestCost {
			gr, gc, bestCost = r, c, cost
		}
	}
	return gr, gc
}

// scratch holds one goroutine's packing buffers.
type scratch[F tensor.Float] struct {
	b    []F                // packed B block, kcBlock×ncBlock
	a    [maxMR * kcBlock]F // zero-padded copy of a partial row panel of A
	ctmp [maxMR * nr32]F    // C tile for partial tiles
}

var (
	pool32 = sync.Pool{New: func() any { return &scratch[float32]{b: make([]float32, kcBlock*ncBlock)} }}
	pool64 = sync.Pool{New: func() any { return &scratch[float64]{b: make([]float64, kcBlock*ncBlock)} }}
)

func getScratch[F tensor.Float]() *scratch[F] {
	var z F
	if _, ok := any(z).(float32); ok {
		return pool32.Get().(*scratch[F])
	}
	return pool64.Get().(*scratch[F])
}

func putScratch[F tensor.Float](s *scratch[F]) {
	if ps, ok := any(s).(*scratch[float32]); ok {
		pool32.Put(ps)
		return
	}
	pool64.Put(any(s).(*scratch[float64]))
}

// block computes C[i0:i1, j0:j1] (the loops of Goto & van de Geijn: nc
// columns, then kc-deep slices of k with B packed, then mc rows, then nr-wide
// column panels, then mr-high row panels handled by the micro-kernel).
func (p *problem[F]) block(i0, i1, j0, j1 int) {
	s := getScratch[F]()
	defer putScratch(s)
	mr, nr := p.mr, p.nr
	// A B of exactly one panel's width, rows nr apart, is already in the
	// packed layout (kc×nr, row-major), as is one given packed
	// (GemmPacked): the kernel reads it in place, panel q's rows from pc
	// at q·k·nr + pc·nr.
	inPlace := p.packedB || (p.csB == 1 && p.rsB == nr && p.n == nr)
	for jc := j0; jc < j1; jc += ncBlock {
		nc := min(ncBlock, j1-jc)
		for pc := 0; pc < p.k; pc += p.kc {
			kc := min(p.kc, p.k-pc)
			// Panel jr/nr of this block starts at packed[jr*stride].
			packed, stride := s.b, kc
			if inPlace {
				packed, stride = p.b[jc*p.k+pc*nr:], p.k
			} else {
				p.packB(s.b, pc, kc, jc, nc)
			}
			beta := p.beta
			if pc > 0 {
				beta = 1
			}
			for ic := i0; ic < i1; ic += mcBlock {
				ie := min(ic+mcBlock, i1)
				if tail := (ie - ic) % mr; tail != 0 {
					// Copy the partial row panel at the end, zero-padded,
					// once for all the column panels.
					ir := ie - tail
					clear(s.a[:mr*kc])
					for r := 0; r < tail; r++ {
						for l := 0; l < kc; l++ {
							s.a[l*mr+r] = p.a[(ir+r)*p.rsA+(pc+l)*p.csA]
						}
					}
				}
				for jr := 0; jr < nc; jr += nr {
					nw := min(nr, nc-jr)
					bp := &packed[jr*stride]
					for ir := ic; ir < ie; ir += mr {
						mh := min(mr, ie-ir)
						ap, rsA, csA := &s.a[0], 1, mr
						if mh == mr {
							ap, rsA, csA = &p.a[ir*p.rsA+pc*p.csA], p.rsA, p.csA
						}
						ci := ir*p.ldc + jc + jr
						if mh == mr && nw == nr {
							p.kern(kc, ap, rsA, csA, bp, &p.c[ci], p.ldc, p.alpha, beta)
							continue
						}
						t := s.ctmp[:mr*nr]
						if beta != 0 {
							for r := 0; r < mh; r++ {
								copy(t[r*nr:r*nr+nw], p.c[ci+r*p.ldc:ci+r*p.ldc+nw])
							}
						}
						p.kern(kc, ap, rsA, csA, bp, &t[0], nr, p.alpha, beta)
						for r := 0; r < mh; r++ {
							copy(p.c[ci+r*p.ldc:ci+r*p.ldc+nw], t[r*nr:r*nr+nw])
						}
					}
				}
				if p.epi != nil && pc+kc == p.k {
					p.epi(ic, ie, jc, jc+nc)
				}
			}
		}
	}
}

// packB copies op(B)[pc:pc+kc, jc:jc+nc] into dst as nr-wide column panels,
// each kc×nr row-major and zero-padded on the right.
func (p *problem[F]) packB(dst []F, pc, kc, jc, nc int) {
	nr := p.nr
	if p.csB == 1 {
		full := nc / nr * nr
		if full > 0 {
			packPanels(dst, p.b[pc*p.rsB+jc:], kc, full, nr, p.rsB)
		}
		if nw := nc - full; nw > 0 {
			panel := dst[full*kc : full*kc+kc*nr]
			for l := 0; l < kc; l++ {
				src := p.b[(pc+l)*p.rsB+jc+full:]
				row := panel[l*nr : l*nr+nr]
				copy(row, src[:nw])
				clear(row[nw:])
			}
		}
		return
	}
	for jr := 0; jr < nc; jr += nr {
		nw := min(nr, nc-jr)
		panel := dst[jr*kc : jr*kc+kc*nr]
		if nw < nr {
			clear(panel)
		}
		for j := 0; j < nw; j++ {
			src := p.b[(jc+jr+j)*p.csB+pc:]
			src = src[:kc]
			for l, v := range src {
				panel[l*nr+j] = v
			}
		}
	}
}

// packPanels copies kc rows of nc consecutive elements (nc a multiple of
// nr = 16 or 8), the rows rs apart in src, into nc/nr column panels of
// dst, panel q (columns q·nr…) at q·nr·kc and each kc×nr row-major. It
// walks src row by row, one sequential stream for the prefetcher rather
// than one strided stream per panel, and moves 16 bytes at a time: the
// compiler turns a 16-byte array copy into one vector load and store,
// where it sends a larger one through memmove (whose call costs as much
// as such a short copy).
func packPanels[F tensor.Float](dst, src []F, kc, nc, nr, rs int) {
	_ = src[(kc-1)*rs+nc-1]
	_ = dst[nc*kc-1]
	switch d := any(dst).(type) {
	case []float32:
		if nr == 16 {
			s := any(src).([]float32)
			for l := range kc {
				row := s[l*rs : l*rs+nc]
				for q := 0; q < nc; q += 16 {
					o := q*kc + l*16
					*(*[4]float32)(d[o:]) = *(*[4]float32)(row[q:])
					*(*[4]float32)(d[o+4:]) = *(*[4]float32)(row[q+4:])
					*(*[4]float32)(d[o+8:]) = *(*[4]float32)(row[q+8:])
					*(*[4]float32)(d[o+12:]) = *(*[4]float32)(row[q+12:])
				}
			}
			return
		}
	case []float64:
		if nr == 8 {
			s := any(src).([]float64)
			for l := range kc {
				row := s[l*rs : l*rs+nc]
				for q := 0; q < nc; q += 8 {
					o := q*kc + l*8
					*(*[2]float64)(d[o:]) = *(*[2]float64)(row[q:])
					*(*[2]float64)(d[o+2:]) = *(*[2]float64)(row[q+2:])
					*(*[2]float64)(d[o+4:]) = *(*[2]float64)(row[q+4:])
					*(*[2]float64)(d[o+6:]) = *(*[2]float64)(row[q+6:])
				}
			}
			return
		}
	}
	for l := range kc {
		for q := 0; q < nc; q += nr {
			copy(dst[q*kc+l*nr:q*kc+l*nr+nr], src[l*rs+q:l*rs+q+nr])
		}
	}
}
