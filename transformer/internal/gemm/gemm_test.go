package gemm

import (
	"github.com/icrl-go/icrl/tensor"

	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// refGemm computes the product with float64 accumulation, and also the sum of
// absolute values of the terms (for an error bound).
func refGemm[F tensor.Float](transA, transB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) (want, mag []float64) {
	want = make([]float64, m*n)
	mag = make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s, sa float64
			for l := 0; l < k; l++ {
				var av, bv float64
				if transA {
					av = float64(a[l*lda+i])
				} else {
					av = float64(a[i*lda+l])
				}
				if transB {
					bv = float64(b[j*ldb+l])
				} else {
					bv = float64(b[l*ldb+j])
				}
				s += av * bv
				sa += math.Abs(av * bv)
			}
			cv := 0.0
			if beta != 0 {
				cv = float64(beta) * float64(c[i*ldc+j])
			}
			want[i*n+j] = float64(alpha)*s + cv
			mag[i*n+j] = math.Abs(float64(alpha))*sa + math.Abs(cv)
		}
	}
	return want, mag
}

func randSlice[F tensor.Float](rng *rand.Rand, n int) []F {
	s := make([]F, n)
	for i := range s {
		s[i] = F(rng.Float64()*2 - 1)
	}
	return s
}

type tcase[F tensor.Float] struct {
	tA, tB        bool
	m, n, k       int
	alpha, beta   F
	a, b, c       []F
	lda, ldb, ldc int
}

func newCase[F tensor.Float](rng *rand.Rand, tA, tB bool, m, n, k, pad int, alpha, beta F) tcase[F] {
	p := tcase[F]{tA: tA, tB: tB, m: m, n: n, k: k, alpha: alpha, beta: beta}
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	p.lda = max(1, ac) + pad
	p.ldb = max(1, bc) + pad
	p.ldc = max(1, n) + pad
	p.a = randSlice[F](rng, max(0, ar*p.lda))
	p.b = randSlice[F](rng, max(0, br*p.ldb))
	p.c = randSlice[F](rng, max(0, m*p.ldc))
	return p
}

func checkProblem[F tensor.Float](t *testing.T, p tcase[F], eps float64) {
	t.Helper()
	if p.beta == 0 {
		for i := range p.c {
			p.c[i] = F(math.NaN())
		}
	}
	orig := append([]F(nil), p.c...)
	want, mag := refGemm(p.tA, p.tB, p.m, p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, p.c, p.ldc)
	Gemm(p.tA, p.tB, p.m, p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, p.c, p.ldc)
	for i := 0; i < p.m; i++ {
		for j := 0; j < p.ldc; j++ {
			idx := i*p.ldc + j
			got := float64(p.c[idx])
			if j >= p.n {
				if !sameBits(p.c[idx], orig[idx]) {
					t.Fatalf("%s: padding C[%d,%d] changed", p.name(), i, j)
				}
				continue
			}
			w, tol := want[i*p.n+j], eps*(float64(p.k)+4)*mag[i*p.n+j]+1e-30
			if !(math.Abs(got-w) <= tol) {
				t.Fatalf("%s: C[%d,%d] = %v, want %v (tol %g)", p.name(), i, j, got, w, tol)
			}
		}
	}
}

func sameBits[F tensor.Float](x, y F) bool {
	switch v := any(x).(type) {
	case float32:
		return math.Float32bits(v) == math.Float32bits(any(y).(float32)) || (v != v && y != y)
	default:
		return math.Float64bits(any(x).(float64)) == math.Float64bits(any(y).(float64)) || (x != x && y != y)
	}
}

func (p tcase[F]) name() string {
	return fmt.Sprintf("%s_%dx%dx%d_lda%d_ldb%d_ldc%d_alpha%v_beta%v", tname(p.tA, p.tB), p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.alpha, p.beta)
}

func tname(tA, tB bool) string {
	s := [2]string{"N", "T"}
	x, y := 0, 0
	if tA {
		x = 1
	}
	if tB {
		y = 1
	}
	return s[x] + s[y]
}

var transCases = [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}}

func testRandom[F tensor.Float](t *testing.T, eps float64, iters int, large bool) {
	if raceEnabled {
		iters /= 4 // the race detector checks the concurrency, which every size exercises
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ab := [][2]F{{1, 0}, {1, 1}, {-0.5, 0}, {2, -1.5}, {0, 0.5}, {0.75, 0.25}}
	for iter := 0; iter < iters; iter++ {
		tr := transCases[iter%4]
		m, n, k := 1+rng.IntN(70), 1+rng.IntN(70), 1+rng.IntN(70)
		if iter%7 == 0 {
			k = rng.IntN(3)
		}
		pad := 0
		if iter%3 == 1 {
			pad = 1 + rng.IntN(5)
		}
		x := ab[rng.IntN(len(ab))]
		checkProblem(t, newCase[F](rng, tr[0], tr[1], m, n, k, pad, x[0], x[1]), eps)
	}
	if !large {
		return
	}
	// Some larger products that go through blocking and the parallel path.
	for i, s := range [][3]int{{300, 200, 150}, {517, 67, 263}, {64, 1100, 33}, {1030, 16, 256}, {130, 257, 300}, {37, 70, 2900}} {
		for j, tr := range transCases {
			if raceEnabled && j != i%len(transCases) {
				continue // one transposition case a shape, each case on some shape
			}
			checkProblem(t, newCase[F](rng, tr[0], tr[1], s[0], s[1], s[2], 3, 1, 0), eps)
			checkProblem(t, newCase[F](rng, tr[0], tr[1], s[0], s[1], s[2], 0, -0.5, 1), eps)
		}
	}
}

func TestFloat32(t *testing.T) { testRandom[float32](t, 0x1p-23, 600, true) }
func TestFloat64(t *testing.T) { testRandom[float64](t, 0x1p-52, 600, true) }

func TestZeroSizes(t *testing.T) {
	for _, tr := range transCases {
		// lds returns valid leading dimensions for an m×n×k problem.
		lds := func(m, n, k int) (int, int) {
			lda, ldb := max(1, k), max(1, n)
			if tr[0] {
				lda = max(1, m)
			}
			if tr[1] {
				ldb = max(1, k)
			}
			return lda, ldb
		}
		// k == 0: C = beta·C.
		lda, ldb := lds(2, 2, 0)
		c := []float32{1, float32(math.NaN()), 3, 4}
		Float32(tr[0], tr[1], 2, 2, 0, 1, nil, lda, nil, ldb, 0, c, 2)
		for _, v := range c {
			if v != 0 {
				t.Fatalf("k=0 beta=0: got %v", c)
			}
		}
		c = []float32{1, 2, 3, 4}
		Float32(tr[0], tr[1], 2, 2, 0, 1, nil, lda, nil, ldb, 2, c, 2)
		if c[3] != 8 {
			t.Fatalf("k=0 beta=2: got %v", c)
		}
		lda, ldb = lds(0, 3, 4)
		Float32(tr[0], tr[1], 0, 3, 4, 1, nil, lda, nil, ldb, 0, nil, 3)
		lda, ldb = lds(3, 0, 4)
		Float64(tr[0], tr[1], 3, 0, 4, 1, nil, lda, nil, ldb, 0, nil, 1)
	}
}

func TestPanics(t *testing.T) {
	a := make([]float32, 6)
	cases := []struct {
		name string
		f    func()
	}{
		{"m<0", func() { Float32(false, false, -1, 2, 3, 1, a, 3, a, 2, 0, a, 2) }},
		{"lda", func() { Float32(false, false, 2, 2, 3, 1, a, 2, a, 2, 0, a, 2) }},
		{"ldb", func() { Float32(false, false, 2, 2, 3, 1, a, 3, a, 1, 0, a, 2) }},
		{"ldc", func() { Float32(false, false, 2, 2, 3, 1, a, 3, a, 2, 0, a, 1) }},
		{"shortA", func() { Float32(false, false, 3, 2, 3, 1, a, 3, a, 2, 0, a, 2) }},
		{"shortB", func() { Float32(false, true, 2, 4, 3, 1, a, 3, a, 3, 0, make([]float32, 8), 4) }},
		{"shortC", func() { Float32(false, false, 2, 3, 2, 1, a, 2, a, 3, 0, a[:5], 3) }},
	}
	for _, tc := range cases {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "gemm: ") {
					t.Errorf("%s: recovered %v, want gemm: panic", tc.name, r)
				}
			}()
			tc.f()
		}()
	}
}

func testDeterminism[F tensor.Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// 8200 × 64 × 64 is cut into more row blocks than goroutines (see
	// rowSplit); 600 × 300 × 300 has its B packed once for all its row
	// blocks (sharedPackMin), the last panel partial.
	shapes := [][3]int{{2048, 64, 256}, {1000, 256, 64}, {256, 256, 16}, {64, 192, 4000}, {256, 64, 2000}, {333, 700, 77}, {8200, 64, 64}, {600, 300, 300}}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, s := range shapes {
		for _, tr := range transCases {
			p := newCase[F](rng, tr[0], tr[1], s[0], s[1], s[2], 1, 1, 0.5)
			var ref []F
			for _, procs := range []int{1, 2, 4, 3, 16} {
				runtime.GOMAXPROCS(procs)
				c := append([]F(nil), p.c...)
				Gemm(p.tA, p.tB, p.m, p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, c, p.ldc)
				if ref == nil {
					ref = c
					continue
				}
				for i := range c {
					if !sameBits(c[i], ref[i]) {
						t.Fatalf("%s: GOMAXPROCS=%d differs at %d: %v vs %v", p.name(), procs, i, c[i], ref[i])
					}
				}
			}
		}
	}
}

func TestDeterminism32(t *testing.T) { testDeterminism[float32](t) }
func TestDeterminism64(t *testing.T) { testDeterminism[float64](t) }

type kernelVariant struct {
	name string
	k32  kernelFunc[float32]
	k64  kernelFunc[float64]
	mr   int
}

// TestKernelVariants runs the random tests with every micro-kernel the
// machine supports, including the portable one.
func TestKernelVariants(t *testing.T) {
	k32, k64, m32, m64 := kernel32, kernel64, mr32, mr64
	defer func() { kernel32, kernel64, mr32, mr64 = k32, k64, m32, m64 }()
	for _, v := range kernelVariants() {
		kernel32, kernel64, mr32, mr64 = v.k32, v.k64, v.mr, v.mr
		t.Run(v.name, func(t *testing.T) {
			testRandom[float32](t, 0x1p-23, 300, false)
			testRandom[float64](t, 0x1p-52, 300, false)
			if !testing.Short() {
				testDeterminism[float32](t)
			}
		})
	}
}

// TestGrid checks the split of C into blocks: within the tile counts and
// the worker count, every worker used when the tiles allow, and the
// choices for the transformer's shapes (a tall product splits its rows
// only, so that B is packed once per worker; a product with a long k and
// a small C splits both ways, so that each worker packs a quarter of B
// instead of all of it).
func TestGrid(t *testing.T) {
	for _, c := range []struct{ m, n, mr, nr, workers, gr, gc int }{
		{1024, 12, 16, 16, 16, 16, 1}, // 16384 × 192
		{16, 4, 16, 16, 16, 4, 4},     // 256 × 64, k = 16384
		{4, 4, 16, 16, 16, 4, 4},      // 64 × 64
		{4, 16, 16, 16, 16, 1, 16},    // 64 × 256
		{4, 1, 16, 16, 16, 4, 1},      // 64 × 8
		{4, 4, 16, 16, 1, 1, 1},
	} {
		gr, gc := grid(c.m, c.n, c.mr, c.nr, c.workers)
		if gr != c.gr || gc != c.gc {
			t.Errorf("grid(%d, %d, %d, %d, %d) = %d × %d, want %d × %d", c.m, c.n, c.mr, c.nr, c.workers, gr, gc, c.gr, c.gc)
		}
	}
	for m := 1; m <= 40; m++ {
		for n := 1; n <= 40; n++ {
			for w := 1; w <= 17; w++ {
				gr, gc := grid(m, n, 16, 16, w)
				if gr < 1 || gc < 1 || gr > m || gc > n || gr*gc > w {
					t.Fatalf("grid(%d, %d, w=%d) = %d × %d", m, n, w, gr, gc)
				}
			}
		}
	}
}

// TestRowSplit checks the parts of the row blocks: up to blocksPerWorker,
// none shorter than minBlockRows.
func TestRowSplit(t *testing.T) {
	for _, c := range []struct{ m, gr, want int }{
		{16384, 16, 4}, // the 64 × 256 step's products on 16 threads
		{4096, 16, 2},
		{2048, 16, 1},
		{8200, 16, 4},
		{8200, 4, 4},
		{1 << 20, 2, 4},
		{100, 1, 1},
		{255, 1, 1},
		{256, 1, 2},
	} {
		if got := rowSplit(c.m, c.gr); got != c.want {
			t.Errorf("rowSplit(%d, %d) = %d, want %d", c.m, c.gr, got, c.want)
		}
	}
}

// TestSharesB checks when a product packs B once for all its row blocks:
// several blocks, and k·n from 2¹⁶ to 2²².
func TestSharesB(t *testing.T) {
	for _, c := range []struct {
		gr, k, n int
		want     bool
	}{
		{4, 512, 512, true},   // the 512³ peak on 16 threads
		{1, 512, 512, false},  // one row block: nothing to share
		{64, 64, 192, false},  // the transformer's QKV weights
		{2, 256, 256, true},   // 2¹⁶
		{2, 255, 256, false},  // just below
		{2, 2048, 2048, true}, // 2²²
		{2, 2048, 2049, false},
	} {
		if got := sharesB(c.gr, c.k, c.n); got != c.want {
			t.Errorf("sharesB(%d, %d, %d) = %v, want %v", c.gr, c.k, c.n, got, c.want)
		}
	}
}

// TestSerialNoAlloc checks that a product small enough to run on the
// calling goroutine allocates nothing (the attention runs thousands of
// them per step; its packing buffers come from a pool).
func TestSerialNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops pooled buffers at random under the race detector")
	}
	a, b, c := make([]float32, 48*16), make([]float32, 16*256), make([]float32, 48*256)
	Float32(false, false, 48, 256, 16, 1, a, 16, b, 256, 0, c, 256) // fill the pool
	if n := testing.AllocsPerRun(20, func() {
		Float32(false, false, 48, 256, 16, 1, a, 16, b, 256, 0, c, 256)
	}); n != 0 {
		t.Errorf("a 48×256×16 product allocates %v times, want 0", n)
	}
	// A product split along k, on one goroutine: its partials are pooled.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	a, b, c = make([]float32, 2048*64), make([]float32, 2048*48), make([]float32, 64*48)
	Float32(true, false, 64, 48, 2048, 1, a, 64, b, 48, 1, c, 48)
	if n := testing.AllocsPerRun(20, func() {
		Float32(true, false, 64, 48, 2048, 1, a, 64, b, 48, 1, c, 48)
	}); n != 0 {
		t.Errorf("a 64×48×2048 product split along k allocates %v times on one goroutine, want 0", n)
	}
}

// TestKChunks checks the chunks of k for the transformer's weight
// gradients and the limits of the split: chunks of whole k blocks that
// cover k in order, a power of two of them, none shallower than
// kSplitMinDepth but the last one's partial block.
func TestKChunks(t *testing.T) {
	for _, c := range []struct {
		m, n, k, kc, chunks int
		first               [2]int // chunk 0's bounds
	}{
		{64, 192, 16384, 128, 16, [2]int{0, 1024}}, // 64 × 256 tokens
		{64, 192, 4096, 128, 8, [2]int{0, 512}},    // 32 × 128
		{256, 64, 1600, 128, 2, [2]int{0, 768}},    // 16 × 100: 13 blocks as 6, 7
		{64, 64, 896, 128, 1, [2]int{0, 896}},      // 7 blocks: too short to split
		{64, 64, 897, 128, 2, [2]int{0, 512}},      // 7 blocks and a partial one
		{64, 64, 1024, 256, 2, [2]int{0, 512}},
		{64, 64, 100000, 256, 16, [2]int{0, 6144}},  // 391 blocks: 24 or 25 a chunk
		{64, 64, 3000, 128, 4, [2]int{0, 768}},      // 24 blocks: 6 chunks fit, 4 taken
		{256, 257, 16384, 128, 1, [2]int{0, 16384}}, // C too large
	} {
		s := kChunks(c.m, c.n, c.k, c.kc)
		lo, hi := s.bounds(0)
		if s.chunks != c.chunks || lo != c.first[0] || hi != c.first[1] {
			t.Errorf("kChunks(%d, %d, %d, %d): %d chunks, the first [%d, %d); want %d, %v", c.m, c.n, c.k, c.kc, s.chunks, lo, hi, c.chunks, c.first)
		}
		end := 0
		for j := range s.chunks {
			lo, hi := s.bounds(j)
			if lo != end || lo%c.kc != 0 || (hi-lo < kSplitMinDepth && hi != c.k && s.chunks > 1) || (hi-lo <= kSplitMinDepth-c.kc && s.chunks > 1) {
				t.Errorf("kChunks(%d, %d, %d, %d): chunk %d is [%d, %d) after %d", c.m, c.n, c.k, c.kc, j, lo, hi, end)
			}
			end = hi
		}
		if s.chunks&(s.chunks-1) != 0 {
			t.Errorf("kChunks(%d, %d, %d, %d): %d chunks, not a power of two", c.m, c.n, c.k, c.kc, s.chunks)
		}
		if end != c.k {
			t.Errorf("kChunks(%d, %d, %d, %d): the chunks end at %d", c.m, c.n, c.k, c.kc, end)
		}
	}
}

// TestKSplitOrder checks the bits of a product split along k against its
// definition: chunk 0 into C with beta, each later chunk on its own with
// beta 0, then the partials added to C in chunk order.
func TestKSplitOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tr := range transCases {
		const m, n, k = 40, 35, 2100
		p := newCase[float32](rng, tr[0], tr[1], m, n, k, 2, 0.75, -0.5)
		sp := kChunks(m, n, k, newProblem(p.tA, p.tB, m, n, k, p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, p.c, p.ldc, mr32, nr32, kernel32).kc)
		if sp.chunks != 4 {
			t.Fatalf("%d chunks, want 4", sp.chunks)
		}
		want := append([]float32(nil), p.c...)
		part := make([]float32, m*n)
		for j := range sp.chunks {
			lo, hi := sp.bounds(j)
			kj := hi - lo
			// op(A)'s column lo and op(B)'s row lo, the start of the chunk.
			ao, bo := lo, lo*p.ldb
			if p.tA {
				ao = lo * p.lda
			}
			if p.tB {
				bo = lo
			}
			a, b := p.a[ao:], p.b[bo:]
			if j == 0 {
				Float32(p.tA, p.tB, m, n, kj, p.alpha, a, p.lda, b, p.ldb, p.beta, want, p.ldc)
				continue
			}
			Float32(p.tA, p.tB, m, n, kj, p.alpha, a, p.lda, b, p.ldb, 0, part, n)
			for i := range m {
				for x := range n {
					want[i*p.ldc+x] += part[i*n+x]
				}
			}
		}
		Float32(p.tA, p.tB, m, n, k, p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, p.c, p.ldc)
		for i := range p.c {
			if !sameBits(p.c[i], want[i]) {
				t.Fatalf("%s: C[%d] = %v, want %v (the chunks added in order)", p.name(), i, p.c[i], want[i])
			}
		}
	}
}

// TestEpilogue checks GemmEpilogue: the epilogue sees every element of C
// once, after its final value is written (C·2 + 1 applied there has the
// bits of Gemm's C·2 + 1), on products that run serially, split C in
// blocks, cut k, have several k and n blocks, or do not read A and B.
func TestEpilogue(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, s := range [][3]int{{7, 9, 5}, {300, 200, 150}, {40, 35, 1700}, {130, 1100, 600}, {2048, 64, 64}, {20, 30, 0}} {
		for _, procs := range []int{1, 4} {
			runtime.GOMAXPROCS(procs)
			for _, tr := range transCases {
				p := newCase[float32](rng, tr[0], tr[1], s[0], s[1], s[2], 2, 0.5, 1)
				want := append([]float32(nil), p.c...)
				Gemm(p.tA, p.tB, p.m, p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, want, p.ldc)
				seen := make([]int32, p.m*p.n)
				GemmEpilogue(p.tA, p.tB, p.m, p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, p.c, p.ldc, func(i0, i1, j0, j1 int) {
					for i := i0; i < i1; i++ {
						for j := j0; j < j1; j++ {
							seen[i*p.n+j]++
							p.c[i*p.ldc+j] = p.c[i*p.ldc+j]*2 + 1
						}
					}
				})
				for i := range p.m {
					for j := range p.n {
						if seen[i*p.n+j] != 1 {
							t.Fatalf("%s, GOMAXPROCS=%d: the epilogue saw C[%d,%d] %d times", p.name(), procs, i, j, seen[i*p.n+j])
						}
						if w := want[i*p.ldc+j]*2 + 1; !sameBits(p.c[i*p.ldc+j], w) {
							t.Fatalf("%s, GOMAXPROCS=%d: C[%d,%d] = %v, want %v", p.name(), procs, i, j, p.c[i*p.ldc+j], w)
						}
					}
				}
			}
		}
	}
}

// TestDirectB checks the products whose B is one panel wide with rows one
// panel apart (n = ldb = nr, not transposed), which the kernel reads in
// place instead of packing: bit for bit the same C as with B packed (the
// same values with ldb = nr + 3), and within rounding of the textbook
// product, for k across several k blocks and row counts with and without
// a partial row tile, NN and TN, with beta 0 and 1.
func TestDirectB(t *testing.T) {
	testDirectB[float32](t, nr32, 0x1p-23)
	testDirectB[float64](t, nr64, 0x1p-52)
}

func testDirectB[F tensor.Float](t *testing.T, nr int, eps float64) {
	rng := rand.New(rand.NewPCG(21, 22))
	// Narrower than a panel with rows a panel apart: packed (zero-padded),
	// not read in place, whose last row would run past the end of B.
	{
		m, n, k := 9, nr-3, 600
		a, b := randSlice[F](rng, m*k), randSlice[F](rng, (k-1)*nr+n)
		c, want := make([]F, m*n), make([]F, m*n)
		Gemm(false, false, m, n, k, 1, a, k, b, nr, 0, c, n)
		naive(false, false, m, n, k, a, k, b, nr, want, n)
		for i := range c {
			if math.Abs(float64(c[i]-want[i])) > eps*float64(k+4)*float64(k) {
				t.Fatalf("n=%d, ldb=%d: C[%d] = %v, want %v", n, nr, i, c[i], want[i])
			}
		}
	}
	for _, tA := range []bool{false, true} {
		for _, m := range []int{1, 7, 48, 100} {
			for _, k := range []int{1, 5, 300, 700} {
				for _, beta := range []F{0, 1} {
					lda := k
					if tA {
						lda = m
					}
					a := randSlice[F](rng, m*k)
					b := randSlice[F](rng, k*nr)
					ldb2 := nr + 3
					b2 := make([]F, k*ldb2)
					for l := range k {
						copy(b2[l*ldb2:l*ldb2+nr], b[l*nr:(l+1)*nr])
					}
					c0 := randSlice[F](rng, m*nr)
					direct, packed := append([]F(nil), c0...), append([]F(nil), c0...)
					Gemm(tA, false, m, nr, k, 1, a, lda, b, nr, beta, direct, nr)
					Gemm(tA, false, m, nr, k, 1, a, lda, b2, ldb2, beta, packed, nr)
					want := make([]F, m*nr)
					naive(tA, false, m, nr, k, a, lda, b, nr, want, nr)
					for i := range direct {
						if !sameBits(direct[i], packed[i]) {
							t.Fatalf("tA=%v m=%d k=%d beta=%v: C[%d] = %v in place, %v packed", tA, m, k, beta, i, direct[i], packed[i])
						}
						w := float64(want[i]) + float64(beta)*float64(c0[i])
						if math.Abs(float64(direct[i])-w) > eps*float64(k+4)*float64(k) {
							t.Fatalf("tA=%v m=%d k=%d beta=%v: C[%d] = %v, want %v", tA, m, k, beta, i, direct[i], w)
						}
					}
				}
			}
		}
	}
}
