package control

import (
	"math"

	"github.com/icrl-go/icrl/quantize"
	"github.com/icrl-go/icrl/tensor"
)

// This file holds the hot path of the solvers: the transition 𝚽^(ℓ,n,m) of
// eq. (27) on the internal state encodings and the terminal cost of
// eq. (29), using the per-action tables built by [Problem.AppendActions].
//
// Internal encodings (one []int32 per ensemble state):
//   - N-type: K·N grid indices, sample-major;
//   - general: per sample, the support size n followed by n pairs
//     (atom index a = (pos−1)·G + j, count), atoms strictly increasing.
//
// The terminal cost is always formed the same way, so that every solver and
// representation gives bit-identical values on the same state: per sample
// c_k = (Σ_atoms cnt·‖s − y‖²)/ℓ (position-locked case; for N-type states
// cnt = ℓ/N) or the exact transport cost, and 𝔆_T = (Σ_k c_k)/K.

// work is the per-goroutine scratch of the kernels.
type work[F tensor.Float] struct {
	offs  []int // table offsets of a sample's atoms
	xo    []int // point offsets of a sample's atoms
	pos   []int32
	sc    []F
	wt    []F
	avg   []F
	z     []F
	pairs []int32
	leaf  []int32
	zs    []F // N×D outputs of one sample
}

func (p *Problem[F]) newWork() *work[F] {
	w := &work[F]{avg: make([]F, p.D), z: make([]F, p.D), zs: make([]F, p.N*p.D)}
	w.grow(p.N)
	return w
}

func (w *work[F]) grow(n int) {
	if len(w.offs) >= n {
		return
	}
	w.offs = make([]int, n)
	w.xo = make([]int, n)
	w.pos = make([]int32, n)
	w.sc = make([]F, n)
	w.wt = make([]F, n)
	w.pairs = make([]int32, 2*n)
}

// sqDist returns ‖a − b‖² accumulated in float64.
func sqDist[F tensor.Float](a, b []F) float64 {
	b = b[:len(a)]
	s := 0.0
	for c, v := range a {
		e := float64(v) - float64(b[c])
		s += e * e
	}
	return s
}

// step computes the successor of src (time t) under action j, appending
// to dst[:0] (general) or filling dst[:K·N] (N-type), and returns it with
// the numbers of snapped tokens outside the grid and of snapped tokens.
func (p *Problem[F]) step(dst, src []int32, t, j int, w *work[F]) ([]int32, int, int) {
	if p.general {
		return p.stepG(dst[:0], src, t, j, w)
	}
	n := p.K * p.N
	if cap(dst) < n {
		dst = make([]int32, n)
	}
	dst = dst[:n]
	return dst, p.stepN(dst, src, t, j, w), n
}

// leaf returns the terminal cost of the successor of src (time T−1) under
// action j, with the out-of-grid and snapped counts. With a finite bound it
// may stop early once the partial sum over samples shows that the cost is
// ≥ bound (the terms are non-negative and float addition is monotone);
// then ok is false and the cost is only known to be ≥ bound. A completed
// cost is bit-identical to the unbounded one.
func (p *Problem[F]) leaf(src []int32, j int, w *work[F], bound float64) (cost float64, out, snapped int, ok bool) {
	t := p.horizon - 1
	if !p.general && p.locked {
		return p.leafN(src, j, w, bound)
	}
	if !p.general {
		var n int
		w.leaf, out, n = p.step(w.leaf, src, t, j, w)
		return p.terminalN(w.leaf, w), out, n, true
	}
	// General: sample by sample, transition then transport cost.
	K := float64(p.K)
	total := 0.0
	k := 0
	for o := 0; o < len(src); k++ {
		m := int(src[o])
		var o1, s1 int
		w.leaf, o1, s1 = p.stepSampleG(w.leaf[:0], src[o:o+1+2*m], t, j, w)
		out += o1
		snapped += s1
		total += p.terminalSampleG(k, w.leaf)
		o += 1 + 2*m
		if total/K >= bound {
			return total / K, out, snapped, false
		}
	}
	return total / K, out, snapped, true
}

// terminal returns 𝔆_T of an encoded state at time T.
func (p *Problem[F]) terminal(s []int32, w *work[F]) float64 {
	if p.general {
		return p.terminalG(s, w)
	}
	return p.terminalN(s, w)
}

// stepN is the N-type transition: eq. (1) on the snapped tokens of every
// sample, with the floating-point operations of [Block.Layer], followed by
// Nearest on the grid of time t+1. It returns the number of outputs that
// were outside the grid's box.
func (p *Problem[F]) stepN(dst, src []int32, t, j int, w *work[F]) int {
	tab := p.tabs[p.tabOf[t]][j]
	pts := p.pts[t]
	g := p.grids[t+1]
	V := p.actions[j].V
	N, D := p.N, p.D
	out := 0
	for k := range p.K {
		p.sampleZ(w.zs, src[k*N:k*N+N], tab, pts, V, w)
		d := dst[k*N : k*N+N]
		for i := range N {
			jj, inside := g.Nearest(w.zs[i*D : i*D+D])
			if !inside {
				out++
			}
			d[i] = int32(jj)
		}
	}
	return out
}

// leafN fuses stepN at time T−1 with the position-locked terminal cost
// (see leaf for the bound).
func (p *Problem[F]) leafN(src []int32, j int, w *work[F], bound float64) (float64, int, int, bool) {
	t := p.horizon - 1
	tab := p.tabs[p.tabOf[t]][j]
	pts := p.pts[t]
	ptsT := p.pts[t+1]
	g := p.grids[t+1]
	V := p.actions[j].V
	N, D := p.N, p.D
	cN := float64(p.ell / p.N)
	ell := float64(p.ell)
	K := float64(p.K)
	out := 0
	total := 0.0
	for k := range p.K {
		p.sampleZ(w.zs, src[k*N:k*N+N], tab, pts, V, w)
		acc := 0.0
		lab := p.labPts[k*N*D : (k+1)*N*D]
		for i := range N {
			jj, inside := g.Nearest(w.zs[i*D : i*D+D])
			if !inside {
				out++
			}
			acc += cN * sqDist(ptsT[jj*D:jj*D+D], lab[i*D:i*D+D])
		}
		total += acc / ell
		if total/K >= bound {
			return total / K, out, (k + 1) * N, false
		}
	}
	return total / K, out, p.K * N, true
}

// sampleZ stores in zs (N×D) the outputs of eq. (1) for the N snapped
// tokens s of one sample (grid indices of the table's grid), with the
// floating-point operations of [Block.Layer]. D = QK = 2 (the paper's §6)
// takes a specialised path.
func (p *Problem[F]) sampleZ(zs []F, s []int32, tab, pts, V []F, w *work[F]) {
	N, D, QK, st := p.N, p.D, p.QK, p.stride
	if D == 2 && QK == 2 && N <= maxFastN {
		sampleZ2(zs, s, tab, pts, V)
		return
	}
	kq := D + QK
	offs, xo, sc, avg := w.offs[:N], w.xo[:N], w.sc[:N], w.avg
	for i, gi := range s {
		offs[i] = int(gi) * st
		xo[i] = int(gi) * D
	}
	for i := range N {
		oi := offs[i]
		qi := tab[oi+D : oi+kq]
		m := scores(sc, qi, tab, offs, kq)
		clear(avg)
		var den F
		for l := range N {
			e := F(1)
			if d := sc[l] - m; d != 0 {
				e = F(math.Exp(float64(d)))
			}
			den += e
			x := pts[xo[l] : xo[l]+D]
			for c := range avg {
				avg[c] += e * x[c]
			}
		}
		inv := 1 / den
		ffn := tab[oi : oi+D]
		z := zs[i*D : i*D+D]
		for r := range D {
			z[r] = ffn[r] + dot(V[r*D:r*D+D], avg)*inv
		}
	}
}

// maxFastN is the largest N of the specialised kernel.
const maxFastN = 16

// sampleZ2 is sampleZ for D = QK = 2 (table stride 6: ffn, βQs, Ks).
func sampleZ2[F tensor.Float](zs []F, s []int32, tab, pts, V []F) {
	N := len(s)
	var kx, ky, px, py, sc [maxFastN]F
	for l, g := range s {
		o := int(g) * 6
		r := tab[o : o+6 : o+6]
		kx[l], ky[l] = r[4], r[5]
		x := pts[2*int(g) : 2*int(g)+2 : 2*int(g)+2]
		px[l], py[l] = x[0], x[1]
	}
	v := V[:4:4]
	zs = zs[: 2*N : 2*N]
	for i, g := range s {
		o := int(g) * 6
		r := tab[o : o+6 : o+6]
		qx, qy := r[2], r[3]
		m := qx*kx[0] + qy*ky[0]
		sc[0] = m
		for l := 1; l < N; l++ {
			c := qx*kx[l] + qy*ky[l]
			sc[l] = c
			if c > m {
				m = c
			}
		}
		var a0, a1, den F
		for l := range N {
			e := F(1)
			if d := sc[l] - m; d != 0 {
				e = F(math.Exp(float64(d)))
			}
			den += e
			a0 += e * px[l]
			a1 += e * py[l]
		}
		inv := 1 / den
		zs[2*i] = r[0] + (v[0]*a0+v[1]*a1)*inv
		zs[2*i+1] = r[1] + (v[2]*a0+v[3]*a1)*inv
	}
}

// terminalN is 𝔆_T of an N-type state.
func (p *Problem[F]) terminalN(s []int32, w *work[F]) float64 {
	if !p.locked {
		return p.terminalG(p.toGeneral(nil, s, p.horizon), w)
	}
	N, D := p.N, p.D
	ptsT := p.pts[p.horizon]
	cN := float64(p.ell / p.N)
	ell := float64(p.ell)
	total := 0.0
	for k := range p.K {
		acc := 0.0
		lab := p.labPts[k*N*D : (k+1)*N*D]
		for i := range N {
			jj := int(s[k*N+i])
			acc += cN * sqDist(ptsT[jj*D:jj*D+D], lab[i*D:i*D+D])
		}
		total += acc / ell
	}
	return total / float64(p.K)
}

// stepG is the general transition: per sample, every atom moves by eq. (5)
// against the sample's measure (softmax weighted by the counts), is snapped
// to the grid of time t+1, and atoms landing on the same atom of 𝕏_n merge.
func (p *Problem[F]) stepG(dst, src []int32, t, j int, w *work[F]) ([]int32, int, int) {
	out, n := 0, 0
	for o := 0; o < len(src); {
		m := int(src[o])
		var o1, s1 int
		dst, o1, s1 = p.stepSampleG(dst, src[o:o+1+2*m], t, j, w)
		out += o1
		n += s1
		o += 1 + 2*m
	}
	return dst, out, n
}

// stepSampleG applies the general transition to one sample's encoded
// measure src = [n, a_1, c_1, …] and appends the result to dst.
func (p *Problem[F]) stepSampleG(dst, src []int32, t, j int, w *work[F]) ([]int32, int, int) {
	n := int(src[0])
	w.grow(n)
	tab := p.tabs[p.tabOf[t]][j]
	pts := p.pts[t]
	g := p.grids[t+1]
	V := p.actions[j].V
	G, G1 := int32(p.gsize[t]), int32(p.gsize[t+1])
	D, QK, st := p.D, p.QK, p.stride
	kq := D + QK
	offs, xo, pos, sc, wt, avg, z := w.offs[:n], w.xo[:n], w.pos[:n], w.sc[:n], w.wt[:n], w.avg, w.z
	for b := range n {
		a, c := src[1+2*b], src[2+2*b]
		jj := int(a % G)
		offs[b], xo[b], pos[b], wt[b] = jj*st, jj*D, a/G, F(c)
	}
	pairs := w.pairs[:2*n]
	out := 0
	for b := range n {
		oi := offs[b]
		qi := tab[oi+D : oi+kq]
		m := scores(sc, qi, tab, offs, kq)
		clear(avg)
		var den F
		for l := range n {
			e := wt[l]
			if d := sc[l] - m; d != 0 {
				e *= F(math.Exp(float64(d)))
			}
			den += e
			x := pts[xo[l] : xo[l]+D]
			for c := range avg {
				avg[c] += e * x[c]
			}
		}
		inv := 1 / den
		ffn := tab[oi : oi+D]
		for r := range D {
			z[r] = ffn[r] + dot(V[r*D:r*D+D], avg)*inv
		}
		jj, inside := g.Nearest(z)
		if !inside {
			out++
		}
		// Insert (pos·G1 + jj, count) into the sorted pairs, merging.
		a := pos[b]*G1 + int32(jj)
		c := src[2+2*b]
		q := b
		for q > 0 && pairs[2*(q-1)] > a {
			pairs[2*q], pairs[2*q+1] = pairs[2*(q-1)], pairs[2*(q-1)+1]
			q--
		}
		pairs[2*q], pairs[2*q+1] = a, c
	}
	// Merge equal atoms.
	k := 0
	for b := range n {
		if k > 0 && pairs[2*(k-1)] == pairs[2*b] {
			pairs[2*(k-1)+1] += pairs[2*b+1]
			continue
		}
		pairs[2*k], pairs[2*k+1] = pairs[2*b], pairs[2*b+1]
		k++
	}
	dst = append(dst, int32(k))
	dst = append(dst, pairs[:2*k]...)
	return dst, out, n
}

// terminalG is 𝔆_T of a general state.
func (p *Problem[F]) terminalG(s []int32, w *work[F]) float64 {
	total := 0.0
	k := 0
	for o := 0; o < len(s); k++ {
		m := int(s[o])
		total += p.terminalSampleG(k, s[o:o+1+2*m])
		o += 1 + 2*m
	}
	return total / float64(p.K)
}

// terminalSampleG returns Ŵ_{2,λ}(μ̂^k, ν̂^k) for sample k's encoded measure
// src = [n, a_1, c_1, …] at time T: the position-locked sum when every
// position holds at most one atom with the label's mass and λ ≥ LambdaMin
// (Theorem 6), otherwise exact optimal transport.
func (p *Problem[F]) terminalSampleG(k int, src []int32) float64 {
	n := int(src[0])
	G := int32(p.gsize[p.horizon])
	D, N := p.D, p.N
	ptsT := p.pts[p.horizon]
	if p.locked {
		acc := 0.0
		ok := true
		prev := int32(-1)
		for b := range n {
			a, c := src[1+2*b], src[2+2*b]
			ps := a / G
			lc := p.labCnt[k*N+int(ps)]
			if ps == prev || lc <= 0 || int64(c)*int64(p.labDen) != int64(lc)*int64(p.ell) {
				ok = false
				break
			}
			prev = ps
			jj := int(a % G)
			acc += float64(c) * sqDist(ptsT[jj*D:jj*D+D], p.labPts[(k*N+int(ps))*D:(k*N+int(ps)+1)*D])
		}
		if ok {
			return acc / float64(p.ell)
		}
	}
	atoms := make([]quantize.Atom[F], n)
	cnt := make([]int, n)
	for b := range n {
		a, c := src[1+2*b], src[2+2*b]
		jj := int(a % G)
		atoms[b] = quantize.Atom[F]{Pos: int(a/G) + 1, X: ptsT[jj*D : jj*D+D]}
		cnt[b] = int(c) * p.muScale
	}
	v, err := p.cost.W2SqCounts(atoms, cnt, p.labAtoms[k], p.labCnts[k])
	if err != nil {
		// The inputs are valid by construction; an error is a bug.
		panic("control: terminal transport cost: " + err.Error())
	}
	return float64(v)
}

// scores writes the attention scores sc[l] = qi · k_l of the query qi
// against the keys k_l = tab[offs[l]+kq : offs[l]+kq+len(qi)], l <
// len(sc), and returns the largest (the softmax's shift).
func scores[F tensor.Float](sc, qi, tab []F, offs []int, kq int) F {
	QK := len(qi)
	m := dot(qi, tab[offs[0]+kq:offs[0]+kq+QK])
	sc[0] = m
	for l := 1; l < len(sc); l++ {
		v := dot(qi, tab[offs[l]+kq:offs[l]+kq+QK])
		sc[l] = v
		if v > m {
			m = v
		}
	}
	return m
}
