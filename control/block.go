package control

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/quantize"
	"github.com/icrl-go/icrl/tensor"
)

// This file is the numeric core of optimal-control-transformer-training:
// one transformer block of eq. (1) acting on N tokens, its McKean–Vlasov
// form eq. (5) acting on a token against a discrete measure, and the
// push-forward Φ of eq. (7).

// Activation is the elementwise nonlinearity σ of eq. (1), applied to the
// hidden pre-activation A x + b. Apply stores σ(src) in dst; dst may be src
// itself (in place) and has at least len(src) entries.
type Activation[F tensor.Float] interface{ Apply(dst, src []F) }

// ReLU is σ(x) = max{x, 0} elementwise, the paper's default activation
// (§1.2 and §6). NaN entries stay NaN. A [Block] with a nil Sigma uses it.
type ReLU[F tensor.Float] struct{}

// Apply stores max{src_i, 0} in dst_i. It panics if len(dst) < len(src).
func (ReLU[F]) Apply(dst, src []F) {
	dst = dst[:len(src)]
	for i, v := range src {
		if v < 0 {
			v = 0
		}
		dst[i] = v
	}
}

// Tanh is σ(x) = tanh(x) elementwise, a 1-Lipschitz alternative to [ReLU]
// (the paper only asks σ to be "usually 1-Lipschitz"; §1.2).
type Tanh[F tensor.Float] struct{}

// Apply stores tanh(src_i) in dst_i, computed in float64. It panics if
// len(dst) < len(src).
func (Tanh[F]) Apply(dst, src []F) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = F(math.Tanh(float64(v)))
	}
}

// Block is one layer of the transformer of eq. (1) with sizes Dims,
// attention temperature Beta = β and activation Sigma = σ (nil means
// [ReLU]):
//
//	x_{t+1}^i = W σ(A x_t^i + b) + Σ_j softmax_j(β⟨Q x_t^i, K x_t^j⟩) V x_t^j,
//
// a single attention head plus a feed-forward branch, added. As in the
// paper there is NO residual term and NO normalisation, so outputs may
// leave any bounded state set S (the paper types the map S → S, but two
// layers of a modest action already leave [−1,1]²). Positions never enter
// the map (eq. (1) has no positional term): a block is
// permutation-equivariant in the tokens. The weights U_t =
// (W, A, b, Q, K, V) are an [Action] with the same Dims.
type Block[F tensor.Float] struct {
	Dims  Dims
	Beta  F
	Sigma Activation[F]
}

// Validate returns nil if b.Dims is valid and β is finite and positive (the
// paper's β > 0, §1.1); otherwise the error names the bad value.
func (b Block[F]) Validate() error {
	if err := b.Dims.Validate(); err != nil {
		return err
	}
	if !finite(b.Beta) || b.Beta <= 0 {
		return fmt.Errorf("%w: attention temperature β = %v must be finite and positive", icrl.ErrInvalid, b.Beta)
	}
	return nil
}

// Scratch holds the buffers of [Block.MapToken] and [Block.Layer] so that
// repeated calls do not allocate. A Scratch grows (once) when given more
// tokens or atoms than it was made for, or a block of other sizes. It must
// not be used by two goroutines at once.
type Scratch[F tensor.Float] struct {
	dims Dims
	n    int // token/atom capacity
	h    []F // Hidden: pre-activation and activation
	q    []F // QK: β Q x
	g    []F // D: β Kᵀ Q x (MapToken scores are ⟨g, z_a⟩)
	avg  []F // D: Σ_a w_a e^{s_a − m} z_a
	ffn  []F // D: W σ(A x + b)
	sc   []F // n: scores
	qx   []F // n×QK: β Q x_i (Layer)
	kx   []F // n×QK: K x_j (Layer)
	xc   []F // n×D: copy of the input tokens (Layer, so dst may alias xs)
}

// NewScratch returns buffers for [Block.MapToken] with up to maxTokens
// atoms and [Block.Layer] with up to maxTokens tokens. maxTokens < 1 is
// treated as 1.
func (b Block[F]) NewScratch(maxTokens int) *Scratch[F] {
	return newScratch[F](b.Dims, max(maxTokens, 1))
}

func newScratch[F tensor.Float](d Dims, n int) *Scratch[F] {
	if err := d.Validate(); err != nil {
		panic(err.Error())
	}
	buf := make([]F, d.Hidden+d.QK+3*d.D+n*(1+2*d.QK+d.D))
	take := func(k int) []F {
		s := buf[:k:k]
		buf = buf[k:]
		return s
	}
	return &Scratch[F]{
		dims: d, n: n,
		h: take(d.Hidden), q: take(d.QK), g: take(d.D), avg: take(d.D), ffn: take(d.D),
		sc: take(n), qx: take(n * d.QK), kx: take(n * d.QK), xc: take(n * d.D),
	}
}

// fit returns s, grown if needed, or a new Scratch if s is nil.
func (s *Scratch[F]) fit(d Dims, n int) *Scratch[F] {
	if s == nil {
		return newScratch[F](d, max(n, 1))
	}
	if s.dims != d || s.n < n {
		*s = *newScratch[F](d, max(n, s.n))
	}
	return s
}

// MapToken stores in dst the state component of f((p, x), U, μ) of eq. (5)
// for the discrete measure μ = Σ_a w_a δ_(p_a, z_a) with z_a = atoms[a]:
//
//	dst = W σ(A x + b) + Σ_a w_a e^{β⟨Qx, K z_a⟩} V z_a / Σ_a w_a e^{β⟨Qx, K z_a⟩}.
//
// The weights enter the softmax (eq. (5) for a weighted measure), so an atom of weight 2/N acts
// like a token listed twice, and rescaling all weights changes nothing; the
// weights need not sum to one. Atoms with zero weight are skipped. The
// exponentials are computed log-sum-exp style, relative to the largest
// score among the atoms of positive weight, so scores of any magnitude stay
// finite. The positions p, p_a play no role (see [Block]). With w_a = 1/N on
// the N tokens of a sequence this is eq. (1) for token x.
//
// Every input is read before dst is written, so dst may be x or an atom.
// s may be nil
// (then buffers are allocated); with a Scratch large enough for len(atoms)
// the call does not allocate. The cost is O(Hidden·D + QK·D + D² +
// len(atoms)·D) flops plus one exp per atom of positive weight (β Kᵀ Q x is
// formed once, so each score is a D-dimensional dot product).
//
// Weights must be non-negative and finite; that is not checked. It panics
// if u.Dims != b.Dims, len(x) or len(dst) or the length of an atom of
// positive weight is not D, len(w) != len(atoms), or no weight is positive.
func (b Block[F]) MapToken(dst, x []F, u *Action[F], atoms [][]F, w []F, s *Scratch[F]) {
	d := b.Dims
	D, QK := d.D, d.QK
	if u.Dims != d {
		panic(fmt.Sprintf("control: action of dims %+v used in a block of dims %+v", u.Dims, d))
	}
	if len(x) != D || len(dst) != D {
		panic(fmt.Sprintf("control: token of length %d and destination of length %d, want D = %d", len(x), len(dst), D))
	}
	if len(w) != len(atoms) {
		panic(fmt.Sprintf("control: %d atoms with %d weights", len(atoms), len(w)))
	}
	s = s.fit(d, len(atoms))

	b.feedForward(s.ffn, x, u, s.h)

	// g = β Kᵀ (Q x): the score of atom z is ⟨g, z⟩ = β⟨Qx, Kz⟩.
	q, g := s.q, s.g
	matVec(q, u.Q, x)
	clear(g)
	for r := 0; r < QK; r++ {
		qr := b.Beta * q[r]
		row := u.K[r*D : r*D+D]
		for c, v := range row {
			g[c] += qr * v
		}
	}

	sc := s.sc[:len(atoms)]
	first := true
	var m F
	for a, z := range atoms {
		if w[a] == 0 {
			continue
		}
		if len(z) != D {
			panic(fmt.Sprintf("control: atom %d has length %d, want D = %d", a, len(z), D))
		}
		v := dot(g, z)
		sc[a] = v
		if first || v > m {
			m, first = v, false
		}
	}
	if first {
		panic("control: eq. (5) against a measure with no positive weight")
	}

	avg := s.avg
	clear(avg)
	var den F
	for a, z := range atoms {
		wa := w[a]
		if wa == 0 {
			continue
		}
		e := wa
		if t := sc[a] - m; t != 0 {
			e *= F(math.Exp(float64(t)))
		}
		den += e
		z = z[:len(avg)]
		for c := range avg {
			avg[c] += e * z[c]
		}
	}

	inv := 1 / den
	ffn := s.ffn
	for r := range D {
		dst[r] = ffn[r] + dot(u.V[r*D:r*D+D], avg)*inv
	}
}

// Layer applies one block of eq. (1) to the N = len(xs) tokens: dst[i] =
// x_{t+1}^i computed from x_t = xs, every token attending to all N tokens
// (weight 1/N each, which cancels in the softmax). Q x_i, K x_j are formed
// once per token, and the attention output is formed as V applied to the
// softmax-weighted mean of the tokens; the cost is O(N·(QK·D + Hidden·D +
// D²) + N²·(QK + D)) flops plus N² − N exps. Scores are stabilised by
// subtracting each row's maximum (log-sum-exp), so no score magnitude
// overflows. Positions are not used; outputs may leave S (see [Block]).
//
// The tokens are copied into s first, so dst may alias xs (dst = xs
// updates in place). With a Scratch for at least N tokens the call does
// not allocate; s may be nil (then buffers are allocated).
//
// It panics if u.Dims != b.Dims, len(dst) != len(xs), N = 0, or a token or
// destination does not have length D.
func (b Block[F]) Layer(dst, xs [][]F, u *Action[F], s *Scratch[F]) {
	d := b.Dims
	D, QK := d.D, d.QK
	N := len(xs)
	if u.Dims != d {
		panic(fmt.Sprintf("control: action of dims %+v used in a block of dims %+v", u.Dims, d))
	}
	if len(dst) != N || N == 0 {
		panic(fmt.Sprintf("control: layer from %d tokens into %d", N, len(dst)))
	}
	s = s.fit(d, N)
	xc, qx, kx := s.xc[:N*D], s.qx[:N*QK], s.kx[:N*QK]
	for j, x := range xs {
		if len(x) != D || len(dst[j]) != D {
			panic(fmt.Sprintf("control: token %d has length %d and destination length %d, want D = %d", j, len(x), len(dst[j]), D))
		}
		copy(xc[j*D:j*D+D], x)
	}
	for j := range N {
		x := xc[j*D : j*D+D]
		qj := qx[j*QK : j*QK+QK]
		matVec(qj, u.Q, x)
		for r := range qj {
			qj[r] *= b.Beta
		}
		matVec(kx[j*QK:j*QK+QK], u.K, x)
	}

	sc, avg := s.sc[:N], s.avg
	for i := range N {
		xi := xc[i*D : i*D+D]
		out := dst[i]
		b.feedForward(out, xi, u, s.h)

		qi := qx[i*QK : i*QK+QK]
		m := dot(qi, kx[:QK])
		sc[0] = m
		for j := 1; j < N; j++ {
			v := dot(qi, kx[j*QK:j*QK+QK])
			sc[j] = v
			if v > m {
				m = v
			}
		}
		clear(avg)
		var den F
		for j := range N {
			e := F(1)
			if t := sc[j] - m; t != 0 {
				e = F(math.Exp(float64(t)))
			}
			den += e
			xj := xc[j*D : j*D+D]
			for c := range avg {
				avg[c] += e * xj[c]
			}
		}
		inv := 1 / den
		for r := range D {
			out[r] += dot(u.V[r*D:r*D+D], avg) * inv
		}
	}
}

// Forward runs the deployed transformer: the T = len(us) blocks of eq. (1)
// with weights us[0], …, us[T−1] applied to the tokens xs in turn (the
// open-loop policy of Algorithm 1, lines 17–24, run without any
// quantisation, which is how the trained weights are tested). It
// returns new slices (one backing array) and leaves xs unchanged; with T = 0
// it returns a copy. Outputs may leave S. The cost is T times
// that of [Block.Layer]. It panics on the conditions of Layer.
func (b Block[F]) Forward(xs [][]F, us []Action[F]) [][]F {
	out := copyTokens(xs, b.Dims.D)
	s := b.NewScratch(len(xs))
	for t := range us {
		b.Layer(out, out, &us[t], s)
	}
	return out
}

// Push returns Φ(μ, U) = μ ∘ T⁻¹_{μ,U} of eq. (7) for the discrete measure
// mu: every atom (p_a, z_a) moves to (p_a, f(z_a)) with f the map of
// eq. (5) against mu itself ([Block.MapToken]), keeping its position and
// weight; atoms that land on the same point are not merged. For
// mu = [quantize.Empirical](xs) this is Empirical([Block.Layer](xs)),
// i.e. μ_{t+1} = Φ(μ_t, U_t). The result has new atom and weight slices;
// mu is not modified. The cost is len(mu.Atoms) calls of MapToken.
//
// It panics if len(mu.W) != len(mu.Atoms), an atom's state does not have
// length D, no weight is positive, or u.Dims != b.Dims.
func (b Block[F]) Push(mu quantize.Measure[F], u *Action[F]) quantize.Measure[F] {
	n := len(mu.Atoms)
	if len(mu.W) != n {
		panic(fmt.Sprintf("control: measure with %d atoms and %d weights", n, len(mu.W)))
	}
	states := make([][]F, n)
	for a, at := range mu.Atoms {
		states[a] = at.X
	}
	out := quantize.Measure[F]{Atoms: make([]quantize.Atom[F], n), W: append([]F(nil), mu.W...)}
	buf := make([]F, n*b.Dims.D)
	s := b.NewScratch(n)
	for a, at := range mu.Atoms {
		x := buf[a*b.Dims.D : (a+1)*b.Dims.D : (a+1)*b.Dims.D]
		b.MapToken(x, at.X, u, states, mu.W, s)
		out.Atoms[a] = quantize.Atom[F]{Pos: at.Pos, X: x}
	}
	return out
}

// SelfAttentionTarget returns the target map of the paper's §6 experiment
// with scale c, the paper using c = 0.3:
//
//	T(x)_i = Σ_j e^{c⟨x_i, x_j⟩} x_j / Σ_s e^{c⟨x_i, x_s⟩},
//
// computed stably (each row's largest exponent is subtracted). It equals
// one [Block.Layer] with the action of [SelfAttentionAction] (W = 0, Q = I,
// K = (c/β)·I, V = I). It returns new slices and panics if the tokens do
// not all have the same length.
func SelfAttentionTarget[F tensor.Float](xs [][]F, c F) [][]F {
	N := len(xs)
	if N == 0 {
		return nil
	}
	D := len(xs[0])
	out := copyTokens(xs, D)
	for i := range out {
		clear(out[i])
	}
	sc := make([]F, N)
	for i, xi := range xs {
		m := F(0)
		for j, xj := range xs {
			sc[j] = c * dot(xi, xj)
			if j == 0 || sc[j] > m {
				m = sc[j]
			}
		}
		var den F
		for j, xj := range xs {
			e := F(math.Exp(float64(sc[j] - m)))
			den += e
			for k, v := range xj {
				out[i][k] += e * v
			}
		}
		for k := range out[i] {
			out[i][k] /= den
		}
	}
	return out
}

// feedForward stores W σ(A x + b) in dst, using h (Hidden entries) as the
// hidden buffer.
func (b Block[F]) feedForward(dst, x []F, u *Action[F], h []F) {
	D := len(x)
	for r := range h {
		h[r] = dot(u.A[r*D:r*D+D], x) + u.B[r]
	}
	switch b.Sigma.(type) {
	case nil, ReLU[F]:
		for r, v := range h {
			if v < 0 {
				h[r] = 0
			}
		}
	default:
		b.Sigma.Apply(h, h)
	}
	H := len(h)
	for r := range dst {
		dst[r] = dot(u.W[r*H:r*H+H], h)
	}
}

// matVec stores m x in dst for the len(dst)×len(x) row-major matrix m.
func matVec[F tensor.Float](dst, m, x []F) {
	n := len(x)
	for r := range dst {
		dst[r] = dot(m[r*n:r*n+n], x)
	}
}

// dot returns Σ_i a_i b_i over len(a) entries; b has at least len(a).
func dot[F tensor.Float](a, b []F) F {
	b = b[:len(a)]
	var s F
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// copyTokens returns a copy of xs in one backing array, checking that every
// token has length D.
func copyTokens[F tensor.Float](xs [][]F, D int) [][]F {
	buf := make([]F, len(xs)*D)
	out := make([][]F, len(xs))
	for i, x := range xs {
		if len(x) != D {
			panic(fmt.Sprintf("control: token %d has length %d, want D = %d", i, len(x), D))
		}
		out[i] = buf[i*D : (i+1)*D : (i+1)*D]
		copy(out[i], x)
	}
	return out
}
