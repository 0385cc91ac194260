package transformer

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// Session decodes online with a key–value cache: each Append feeds one more
// position and returns the logits at that position, equal (up to rounding)
// to the logits the full forward pass gives at the same position of the
// whole sequence. It is how a trained model plays a game in context: append
// the newest observation, read the policy, act.
//
// Appending the t-th position costs O(L·(d² + d·ff + t·d)), against
// O(L·t·(d² + d·ff) + L·t²·d) for re-running the model on the whole history.
// The cache holds 2·L·t·d values.
//
// A Session reads its model's parameters: do not train the model while a
// session is in use. A Session is not safe for concurrent use; several
// sessions may share one model.
type Session[F tensor.Float] struct {
	m    *Model[F]
	t    int   // positions so far
	keys [][]F // per block and head (index l·H + h): t×d_h keys
	vals [][]F // per block and head: t×d_h values

	x, a, r, h, b, tmp []F // d-wide rows
	qkv                []F // 3d
	att                []F // d
	up, act            []F // ff
	w                  []F // attention weights, grows with t
	stat               []F // LayerNorm mean and rstd (unused afterwards)
	logits             []F
}

// NewSession returns an empty session on m.
func (m *Model[F]) NewSession() *Session[F] {
	d, ff := m.cfg.Width, m.cfg.FeedForward
	s := &Session[F]{
		m:    m,
		keys: make([][]F, len(m.blocks)*m.cfg.Heads), vals: make([][]F, len(m.blocks)*m.cfg.Heads),
		x: make([]F, d), a: make([]F, d), r: make([]F, d), h: make([]F, d), b: make([]F, d), tmp: make([]F, d),
		qkv: make([]F, 3*d), att: make([]F, d),
		up: make([]F, ff), act: make([]F, ff),
		stat:   make([]F, 2),
		logits: make([]F, m.cfg.Outputs),
	}
	return s
}

// Len returns the number of positions appended so far.
func (s *Session[F]) Len() int { return s.t }

// Reset empties the session, keeping its buffers.
func (s *Session[F]) Reset() {
	s.t = 0
	for l := range s.keys {
		s.keys[l] = s.keys[l][:0]
		s.vals[l] = s.vals[l][:0]
	}
}

// Truncate drops every position from n on, keeping the first n, so that a
// caller can try several continuations of one history (for example, the
// policy in each state of a Markov game) without re-running the prefix. The
// logits of a later Append are exactly those of a session that never held
// the dropped positions. It returns an error if n is negative or larger
// than Len.
func (s *Session[F]) Truncate(n int) error {
	if n < 0 || n > s.t {
		return fmt.Errorf("%w: Truncate(%d) on a session of %d positions", icrl.ErrInvalid, n, s.t)
	}
	dh := s.m.cfg.Width / s.m.cfg.Heads
	for k := range s.keys {
		s.keys[k] = s.keys[k][:n*dh]
		s.vals[k] = s.vals[k][:n*dh]
	}
	s.t = n
	return nil
}

// AppendToken feeds one token and returns the logits at its position. The
// slice belongs to the session and is valid until the next Append or
// Reset. It returns an error if the model reads feature vectors, the token
// is out of range, or the session already holds MaxLen positions of a
// model with learned positions.
func (s *Session[F]) AppendToken(token int) ([]F, error) {
	if err := s.checkModel(); err != nil {
		return nil, err
	}
	cfg := s.m.cfg
	if cfg.Vocab == 0 {
		return nil, fmt.Errorf("%w: AppendToken on a model that reads %d-wide feature vectors", icrl.ErrShape, cfg.Features)
	}
	if token < 0 || token >= cfg.Vocab {
		return nil, fmt.Errorf("%w: token %d outside [0, %d)", icrl.ErrShape, token, cfg.Vocab)
	}
	if err := s.checkRoom(); err != nil {
		return nil, err
	}
	d := cfg.Width
	copy(s.x, s.m.tokens.Value[token*d:(token+1)*d])
	return s.step(), nil
}

// AppendFeatures feeds one feature vector (of the model's Features width)
// and returns the logits at its position, as [Session.AppendToken]. It
// returns an error if the model reads tokens, the width is wrong, a value
// is not finite, or the session is full.
func (s *Session[F]) AppendFeatures(x []F) ([]F, error) {
	if err := s.checkModel(); err != nil {
		return nil, err
	}
	cfg := s.m.cfg
	if cfg.Features == 0 {
		return nil, fmt.Errorf("%w: AppendFeatures on a model that reads tokens", icrl.ErrShape)
	}
	if len(x) != cfg.Features {
		return nil, fmt.Errorf("%w: feature vector has %d values, want %d", icrl.ErrShape, len(x), cfg.Features)
	}
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("%w: feature %d = %v is not finite", icrl.ErrNotFinite, i, v)
		}
	}
	if err := s.checkRoom(); err != nil {
		return nil, err
	}
	linearForward(s.x, x, 1, cfg.Features, cfg.Width, s.m.inW.Value, valueOf(s.m.inB))
	return s.step(), nil
}

// checkModel returns ErrZeroModel for a zero Session or a session of a
// zero Model.
func (s *Session[F]) checkModel() error {
	if s.m == nil || len(s.m.params) == 0 {
		return fmt.Errorf("%w: a Session not built by Model.NewSession of a built Model", ErrZeroModel)
	}
	return nil
}

func (s *Session[F]) checkRoom() error {
	if cfg := s.m.cfg; cfg.Positions == LearnedPositions && s.t >= cfg.MaxLen {
		return fmt.Errorf("%w: session holds %d positions, the model's MaxLen", icrl.ErrTooLarge, s.t)
	}
	return nil
}

// step runs the blocks on the embedded input row s.x at position s.t.
func (s *Session[F]) step() []F {
	m, cfg := s.m, s.m.cfg
	d, ff, heads := cfg.Width, cfg.FeedForward, cfg.Heads
	dh := d / heads
	eps := cfg.NormEpsilon
	t := s.t
	if m.positions != nil {
		for j, v := range m.positions.Value[t*d : (t+1)*d] {
			s.x[j] += v
		}
	}
	ln := func(y, x []F, w, b *Param[F]) {
		layerNormForward(y, s.stat[:1], s.stat[1:], x, 1, d, w.Value, b.Value, eps)
	}
	if cap(s.w) < t+1 {
		s.w = make([]F, t+1, 2*(t+1))
	}
	w := s.w[:t+1]
	scale := 1 / math.Sqrt(float64(dh))
	for l := range m.blocks {
		b := &m.blocks[l]
		a := s.x
		if cfg.Norm == PreNorm {
			ln(s.a, s.x, b.norm1W, b.norm1B)
			a = s.a
		}
		linearForward(s.qkv, a, 1, d, 3*d, b.qkvW.Value, valueOf(b.qkvB))
		for h := 0; h < heads; h++ {
			kh := l*heads + h
			s.keys[kh] = append(s.keys[kh], s.qkv[d+h*dh:d+(h+1)*dh]...)
			s.vals[kh] = append(s.vals[kh], s.qkv[2*d+h*dh:2*d+(h+1)*dh]...)
			// Scores w = K_h·q/√d_h over the cached keys (a (t+1)×d_h matrix).
			gemv(w, s.qkv[h*dh:(h+1)*dh], s.keys[kh], dh, t+1, true)
			for j := range w {
				w[j] *= F(scale)
			}
			switch cfg.Attention {
			case SoftmaxAttention:
				softmaxPrefix(w)
			case ReLUAttention:
				inv := 1 / F(t+1)
				for j := range w {
					w[j] = max(w[j], 0) * inv
				}
			}
			// o = V_hᵀ·w.
			gemv(s.att[h*dh:(h+1)*dh], w, s.vals[kh], t+1, dh, false)
		}
		linearForward(s.r, s.att, 1, d, d, b.outW.Value, valueOf(b.outB))
		for j := range s.r {
			s.r[j] += s.x[j]
		}
		hrow := s.r
		if cfg.Norm == PostNorm {
			ln(s.h, s.r, b.norm1W, b.norm1B)
			hrow = s.h
		}
		brow := hrow
		if cfg.Norm == PreNorm {
			ln(s.b, hrow, b.norm2W, b.norm2B)
			brow = s.b
		}
		linearForward(s.up, brow, 1, d, ff, b.upW.Value, valueOf(b.upB))
		activationForward(cfg.Activation, s.act, s.up)
		linearForward(s.tmp, s.act, 1, ff, d, b.downW.Value, valueOf(b.downB))
		for j := range s.tmp {
			s.tmp[j] += hrow[j]
		}
		if cfg.Norm == PostNorm {
			ln(s.x, s.tmp, b.norm2W, b.norm2B)
		} else {
			copy(s.x, s.tmp)
		}
	}
	fin := s.x
	if m.finalW != nil {
		ln(s.a, s.x, m.finalW, m.finalB)
		fin = s.a
	}
	m.readOut(s.logits, fin, 1)
	s.t++
	return s.logits
}
