package transformer

import (
	"math"

	"github.com/icrl-go/icrl/internal/bufpool"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/internal/gemm"
)

// causalBlock is the row-block size of the causal attention products: a
// block of rows [r0, r0+causalBlock) multiplies only the columns up to its
// last row, which skips most of the zero upper triangle for long sequences.
// 48 is a whole number of the matrix product's row tiles on every kernel
// (6 rows with AVX2 and in the portable kernel, 16 with AVX-512), so that
// no block ends in a partial tile, which costs as much as a whole one and
// a copy.
const causalBlock = 48

// span locates one sequence in a packed batch: its rows are
// [start, start+n) of every n×width activation.
type span struct {
	start, n int
}

// attnForward computes causal multi-head attention for every sequence of a
// packed batch. qkv holds, per row, the queries, keys and values (each d
// wide, heads side by side); att receives the concatenated head outputs
// (rows of width d):
//
//	softmax: w_ij = exp(s_ij)/Σ_{k≤i} exp(s_ik),  s_ij = ⟨q_i, k_j⟩/√d_h
//	relu:    w_ij = relu(s_ij)/(i+1)                (0-based i)
//
// and o_i = Σ_{j≤i} w_ij v_j. Sequences and heads run in parallel; each
// writes only its own outputs. The weights w of a block of causalBlock
// rows live in a scratch buffer of the goroutine, in cache from the scores
// to the product with V, and are not kept: with softmax attention, stats
// (2·heads entries per row, nil for ReLU attention) receives each row's
// maximum score and inverse normaliser (see softmaxPrefix), from which
// attnBackward computes the weights again, to the same bits, in one pass
// over the scores.
func attnForward[F tensor.Float](kind Attention, att, stats, qkv []F, spans []span, d, heads int) {
	dh := d / heads
	scale := F(1 / math.Sqrt(float64(dh)))
	ld := 3 * d
	maxN := maxLen(spans)
	pw := gemm.PanelWidth[F]()
	parallelGroups(len(spans)*heads, heads, 2*meanSq(spans)*dh, func(lo, hi int) {
		kbuf, vbuf, wbuf := bufpool.Get[F](d*(maxN+pw)), bufpool.Get[F](d*maxN), bufpool.Get[F](causalBlock*maxN)
		defer bufpool.Put(kbuf)
		defer bufpool.Put(vbuf)
		defer bufpool.Put(wbuf)
		kts, vs, w := *kbuf, *vbuf, *wbuf
		last := -1
		for it := lo; it < hi; it++ {
			sp, h := spans[it/heads], it%heads
			n := sp.n
			q := qkv[sp.start*ld+h*dh:]
			o := att[sp.start*d+h*dh:]
			if it/heads != last {
				last = it / heads
				// Kᵀ of every head of the sequence in one pass over its
				// rows, d-wide reads rather than dh-wide ones 3d apart
				// (which left the reads of K waiting on memory), written
				// in the product's packed layout (see transposePanels);
				// V the same way, each head's n×dh block contiguous (see
				// gatherHeads).
				transposePanels(kts, qkv[sp.start*ld+d:], n, d, dh, ld)
				gatherHeads(vs, qkv[sp.start*ld+2*d:], n, d, dh, ld)
			}
			kt, v := kts[h*dh*panels(n, pw):], vs[h*dh*n:]
			for r0 := 0; r0 < n; r0 += causalBlock {
				r1 := min(r0+causalBlock, n)
				attnWeights(kind, w, q, kt, r0, r1, n, ld, dh, scale, headStats(stats, sp, h, heads), heads, false)
				gemm.Gemm(false, false, r1-r0, dh, r1, 1, w, n, v, dh, 0, o[r0*d:], d)
			}
		}
	})
}

// attnWeights sets rows [r0, r1) of one head's attention weights (see
// attnForward) in w, rows n apart starting at w[0]: the scores of the rows
// against keys [0, r1) by one product with Kᵀ (kt, dh×n in the packed
// layout of gemm.GemmPacked, as transposePanels writes it), then the softmax
// (or ReLU) of each row's causal prefix, and zeros from the diagonal to
// column r1 (the columns right of r1 are neither read nor written). Rows
// [r0, r1) attend only to columns [0, r1), which skips most of the zero
// upper triangle for long sequences. With softmax attention, row i's
// maximum and inverse normaliser are at st[2·heads·i] and the entry after
// it: the softmax sets them, or, again, the weights are computed from
// them in one pass (softmaxAgain), with the same bits.
func attnWeights[F tensor.Float](kind Attention, w, q, kt []F, r0, r1, n, ld, dh int, scale F, st []F, heads int, again bool) {
	gemm.GemmPacked(false, r1-r0, r1, dh, scale, q[r0*ld:], ld, kt, 0, w, n)
	for i := r0; i < r1; i++ {
		row := w[(i-r0)*n : (i-r0+1)*n]
		switch kind {
		case SoftmaxAttention:
			mi := st[2*heads*i:]
			if again {
				softmaxAgain(row[:i+1], mi[0], mi[1])
			} else {
				mi[0], mi[1] = softmaxPrefix(row[:i+1])
			}
		case ReLUAttention:
			inv := 1 / F(i+1)
			for j := 0; j <= i; j++ {
				row[j] = max(row[j], 0) * inv
			}
		}
		clear(row[i+1 : r1])
	}
}

// transposePanels writes n rows of width d, ld apart in src, as the
// transposes of their heads (dh columns each) in the packed layout of
// gemm.GemmPacked: head h's dh×n transpose at h·dh·np (np = n rounded up
// to the panel width pw), as np/pw panels of dh×pw values, panel q holding
// rows q·pw … q·pw+pw−1 of src; the entries past n are zero. The products
// with Kᵀ and Vᵀ then read them in place, with no packing at every row
// block, where the gathering of a transposed operand element by element
// would cost more than the product.
func transposePanels[F tensor.Float](dst, src []F, n, d, dh, ld int) {
	pw := gemm.PanelWidth[F]()
	np := panels(n, pw)
	// A tile of pw source rows at a time: the pw values of one column of
	// the tile are one cache line of dst, filled while it is in cache.
	for q := 0; q < np/pw; q++ {
		j0 := q * pw
		rows := min(pw, n-j0)
		if rows == pw && transposeVector(dst[q*dh*pw:], pw, src[j0*ld:], ld, pw, dh) {
			// Whole tiles of float32 heads 8k wide: the vector
			// transpose, head by head.
			for h := 1; h < d/dh; h++ {
				transposeVector(dst[h*dh*np+q*dh*pw:], pw, src[j0*ld+h*dh:], ld, pw, dh)
			}
			continue
		}
		for f := range d {
			h, l := f/dh, f%dh
			out := dst[h*dh*np+q*dh*pw+l*pw : h*dh*np+q*dh*pw+(l+1)*pw]
			for c := range rows {
				out[c] = src[(j0+c)*ld+f]
			}
			clear(out[rows:])
		}
	}
}

// headStats returns the softmax statistics of head h's rows of the
// sequence sp (see attnForward), row i's at 2·heads·i; nil for nil.
func headStats[F tensor.Float](stats []F, sp span, h, heads int) []F {
	if stats == nil {
		return nil
	}
	return stats[2*(sp.start*heads+h):]
}

// panels returns n rounded up to a multiple of the panel width pw.
func panels(n, pw int) int { return (n + pw - 1) / pw * pw }

// gatherHeads copies n rows of width d, ld apart in src, into dst as the
// heads' n×dh blocks one after the other (head h's row i at h·n·dh+i·dh),
// in one pass over the rows. A head's block then has its rows dh apart:
// where dh is the matrix product's panel width (16 float32 values), the
// products that take it as B read it in place rather than packing it at
// every row block.
func gatherHeads[F tensor.Float](dst, src []F, n, d, dh, ld int) {
	heads := d / dh
	if d32, ok := any(dst).([]float32); ok && dh%4 == 0 {
		// 16 bytes per move: copy's memmove call costs as much as a
		// head's row.
		s32 := any(src).([]float32)
		for i := range n {
			row := s32[i*ld : i*ld+d]
			for h := range heads {
				out := d32[h*n*dh+i*dh : h*n*dh+(i+1)*dh]
				in := row[h*dh : (h+1)*dh]
				for c := 0; c < dh; c += 4 {
					*(*[4]float32)(out[c:]) = *(*[4]float32)(in[c:])
				}
			}
		}
		return
	}
	for i := range n {
		row := src[i*ld : i*ld+d]
		for h := range heads {
			copy(dst[h*n*dh+i*dh:h*n*dh+(i+1)*dh], row[h*dh:(h+1)*dh])
		}
	}
}

// maxLen returns the length of the longest sequence.
func maxLen(spans []span) int {
	m := 0
	for _, sp := range spans {
		m = max(m, sp.n)
	}
	return m
}

// meanSq returns the mean of n² over the sequences, the attention work of
// one (sequence, head) pair per unit of head width.
func meanSq(spans []span) int {
	t := 0
	for _, sp := range spans {
		t += sp.n * sp.n
	}
	return t / max(len(spans), 1)
}

// softmaxPrefix replaces s (not empty) by softmax(s), computed stably: the
// maximum m is subtracted and the normaliser z summed in float64, and
// returns m and inv = 1/z rounded to F, so that s_j = exp(s_j − m)·inv
// (softmaxAgain computes the weights again from the scores by these).
// float64 rows use math.Exp; float32 rows use expf32, which is within 1 ulp
// of the correctly rounded float32 exponential and several times faster,
// eight at a time on CPUs with AVX2 and sixteen with AVX-512
// (softmaxVector32: the same exponentials bit for bit, the normaliser
// summed in eight float64 lanes).
func softmaxPrefix[F tensor.Float](s []F) (m, inv F) {
	if s32, ok := any(s).([]float32); ok {
		if m, inv, ok := softmaxVector32(s32); ok {
			return F(m), F(inv)
		}
	}
	return softmaxScalar(s)
}

// softmaxScalar is softmaxPrefix without the vector kernel.
func softmaxScalar[F tensor.Float](s []F) (m, inv F) {
	m = s[0]
	for _, v := range s[1:] {
		m = max(m, v)
	}
	var z float64
	if s32, ok := any(s).([]float32); ok {
		m32 := float32(m)
		for j, v := range s32 {
			e := expf32(v - m32)
			s32[j] = e
			z += float64(e)
		}
	} else {
		for j, v := range s {
			e := math.Exp(float64(v - m))
			s[j] = F(e)
			z += e
		}
	}
	inv = F(1 / z)
	for j := range s {
		s[j] *= inv
	}
	return m, inv
}

// softmaxAgain replaces the scores s by the weights that softmaxPrefix
// computed from the same scores when it returned m and inv, bit for bit,
// in one pass: s_j = exp(s_j − m)·inv.
func softmaxAgain[F tensor.Float](s []F, m, inv F) {
	if s32, ok := any(s).([]float32); ok && softmaxAgainVector32(s32, float32(m), float32(inv)) {
		return
	}
	softmaxAgainScalar(s, m, inv)
}

// softmaxAgainScalar is softmaxAgain without the vector kernel.
func softmaxAgainScalar[F tensor.Float](s []F, m, inv F) {
	if s32, ok := any(s).([]float32); ok {
		m32, inv32 := float32(m), float32(inv)
		for j, v := range s32 {
			s32[j] = expf32(v-m32) * inv32
		}
		return
	}
	for j, v := range s {
		s[j] = F(math.Exp(float64(v-m))) * inv
	}
}

// expf32 returns e^x in float32 for x ≤ 0 (larger x are clamped to 0,
// the arguments of a softmax after its maximum is subtracted): Cody and
// Waite's reduction x = n·ln 2 + r, |r| ≤ ln 2/2, with ln 2 split in two
// so that n·ln 2 is exact, then Cephes' degree-5 minimax polynomial for
// e^r (Moshier 1989, expf.c) and the exponent n put in by its bits. Below
// −87.33 (where e^x is below the smallest normal float32) it returns 0;
// NaN stays NaN.
func expf32(x float32) float32 {
	const (
		log2e = 1.44269504088896341
		ln2hi = 0.693359375
		ln2lo = -2.12194440e-4
	)
	if !(x >= -87.33) {
		if x != x { // NaN
			return x
		}
		return 0
	}
	x = min(x, 0)
	n := float32(math.Floor(float64(log2e*x + 0.5)))
	r := x - n*ln2hi - n*ln2lo
	z := r * r
	p := ((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+1.6666665459e-1)*r + 5.0000001201e-1
	y := p*z + r + 1
	return y * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// attnBackward sets dqkv (same layout as qkv) from the gradient datt of the
// concatenated head outputs, given the forward's qkv, with the weights w of
// each (sequence, head) computed again from the scores and stats as
// attnForward computed them:
//
//	dw = dO·Vᵀ,  dV = wᵀ·dO,
//	softmax: ds_ij = w_ij (dw_ij − Σ_k w_ik dw_ik)
//	relu:    ds_ij = dw_ij/(i+1) if w_ij > 0 else 0
//	dQ = ds·K/√d_h,  dK = dsᵀ·Q/√d_h.
//
// Computing w again costs the forward's product with Kᵀ and one pass of
// exponentials, and saves keeping every head's n×n weights from the
// forward to here (heads·n² values a sequence, more than the rest of the
// layer's activations for long sequences) and reading them back from
// memory.
func attnBackward[F tensor.Float](kind Attention, dqkv, datt, stats, qkv []F, spans []span, d, heads int) {
	dh := d / heads
	scale := F(1 / math.Sqrt(float64(dh)))
	ld := 3 * d
	maxN := maxLen(spans)
	pw := gemm.PanelWidth[F]()
	parallelGroups(len(spans)*heads, heads, 6*meanSq(spans)*dh, func(lo, hi int) {
		gbuf, wbuf := bufpool.Get[F](maxN*maxN), bufpool.Get[F](maxN*maxN)
		var bufs [5]*[]F
		for i := range bufs {
			bufs[i] = bufpool.Get[F](d * (maxN + pw))
		}
		defer func() {
			bufpool.Put(gbuf)
			bufpool.Put(wbuf)
			for _, b := range bufs {
				bufpool.Put(b)
			}
		}()
		ds, ws := *gbuf, *wbuf
		kts, vts, qs, ks, dos := *bufs[0], *bufs[1], *bufs[2], *bufs[3], *bufs[4]
		last := -1
		for it := lo; it < hi; it++ {
			sp, h := spans[it/heads], it%heads
			n := sp.n
			off := sp.start*ld + h*dh
			dq, dk, dv := dqkv[off:], dqkv[off+d:], dqkv[off+2*d:]
			w, g := ws[:n*n], ds[:n*n]
			if it/heads != last {
				last = it / heads
				// Kᵀ and Vᵀ of every head of the sequence, as in
				// attnForward, and Q, K and dO in contiguous blocks per
				// head.
				base := qkv[sp.start*ld:]
				transposePanels(kts, base[d:], n, d, dh, ld)
				transposePanels(vts, base[2*d:], n, d, dh, ld)
				gatherHeads(qs, base, n, d, dh, ld)
				gatherHeads(ks, base[d:], n, d, dh, ld)
				gatherHeads(dos, datt[sp.start*d:], n, d, dh, d)
			}
			hb, hp := h*dh*n, h*dh*panels(n, pw)
			kt, vt, q, k, do := kts[hp:], vts[hp:], qs[hb:], ks[hb:], dos[hb:]
			st := headStats(stats, sp, h, heads)
			for r0 := 0; r0 < n; r0 += causalBlock {
				attnWeights(kind, w[r0*n:], q, kt, r0, min(r0+causalBlock, n), n, dh, dh, scale, st, heads, true)
			}
			// dw = dO·Vᵀ on the causal part, by row blocks; dV = wᵀ·dO by
			// column blocks [c0, c1), which only rows i ≥ c0 reach.
			for r0 := 0; r0 < n; r0 += causalBlock {
				r1 := min(r0+causalBlock, n)
				gemm.GemmPacked(false, r1-r0, r1, dh, 1, do[r0*dh:], dh, vt, 0, g[r0*n:], n)
				gemm.Gemm(true, false, r1-r0, dh, n-r0, 1, w[r0*n+r0:], n, do[r0*dh:], dh, 0, dv[r0*ld:], ld)
			}
			for i := 0; i < n; i++ {
				gr, wr := g[i*n:(i+1)*n], w[i*n:(i+1)*n]
				switch kind {
				case SoftmaxAttention:
					softmaxGrad(wr[:i+1], gr[:i+1])
				case ReLUAttention:
					inv := 1 / F(i+1)
					for j := 0; j <= i; j++ {
						if wr[j] > 0 {
							gr[j] *= inv
						} else {
							gr[j] = 0
						}
					}
				}
				clear(gr[i+1 : min((i/causalBlock+1)*causalBlock, n)])
			}
			for r0 := 0; r0 < n; r0 += causalBlock {
				r1 := min(r0+causalBlock, n)
				gemm.Gemm(false, false, r1-r0, dh, r1, scale, g[r0*n:], n, k, dh, 0, dq[r0*ld:], ld)
				gemm.Gemm(true, false, r1-r0, dh, n-r0, scale, g[r0*n+r0:], n, q[r0*dh:], dh, 0, dk[r0*ld:], ld)
			}
		}
	})
}

// softmaxGrad sets g[j] = w[j]·(g[j] − Σ_k w[k]·g[k]): the gradient of the
// scores of one softmax row w from the gradient g of its weights. float32
// rows of 8 or more entries run on the vector kernel (softmaxGradVector32,
// whose sum runs in eight lanes).
func softmaxGrad[F tensor.Float](w, g []F) {
	if w32, ok := any(w).([]float32); ok && softmaxGradVector32(w32, any(g).([]float32)) {
		return
	}
	var dot F
	for j := range w {
		dot += w[j] * g[j]
	}
	for j := range w {
		g[j] = w[j] * (g[j] - dot)
	}
}
