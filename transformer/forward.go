package transformer

import (
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/internal/gemm"
)

// Sequence is one input sequence. A token model (Config.Vocab > 0) reads
// Tokens, each in [0, Vocab); a feature model (Config.Features > 0) reads
// Features, Len()×Features values row-major, one feature vector per
// position.
type Sequence[F tensor.Float] struct {
	Tokens   []int
	Features []F
}

// length returns the number of positions of s in a model with the given
// configuration.
func (s Sequence[F]) length(cfg Config) int {
	if cfg.Vocab > 0 {
		return len(s.Tokens)
	}
	return len(s.Features) / cfg.Features
}

// checkSequence validates s for the model's configuration.
func (m *Model[F]) checkSequence(k int, s Sequence[F]) error {
	cfg := m.cfg
	if cfg.Vocab > 0 {
		if s.Features != nil {
			return fmt.Errorf("%w: sequence %d has Features, but the model reads tokens", icrl.ErrShape, k)
		}
		if len(s.Tokens) == 0 {
			return fmt.Errorf("%w: sequence %d is empty", icrl.ErrInvalid, k)
		}
		for i, t := range s.Tokens {
			if t < 0 || t >= cfg.Vocab {
				return fmt.Errorf("%w: sequence %d has token %d at position %d, outside [0, %d)", icrl.ErrShape, k, t, i, cfg.Vocab)
			}
		}
	} else {
		if s.Tokens != nil {
			return fmt.Errorf("%w: sequence %d has Tokens, but the model reads feature vectors", icrl.ErrShape, k)
		}
		if len(s.Features) == 0 {
			return fmt.Errorf("%w: sequence %d is empty", icrl.ErrInvalid, k)
		}
		if len(s.Features)%cfg.Features != 0 {
			return fmt.Errorf("%w: sequence %d has %d feature values, not a multiple of the width %d", icrl.ErrShape, k, len(s.Features), cfg.Features)
		}
	}
	if n := s.length(cfg); cfg.Positions == LearnedPositions && n > cfg.MaxLen {
		return fmt.Errorf("%w: sequence %d has %d positions, more than MaxLen = %d", icrl.ErrTooLarge, k, n, cfg.MaxLen)
	}
	return nil
}

// blockCache holds one block's activations for the backward pass.
type blockCache[F tensor.Float] struct {
	in           []F // block input x, n×d
	a            []F // attention input: LN₁(x) (pre) or x
	mean1, rstd1 []F
	qkv          []F // n×3d
	att          []F // concatenated head outputs, n×d
	stats        []F // softmax maximum and inverse normaliser per row and head (softmax attention only)
	r1           []F // x + Attn (n×d): the block's h for pre/none, LN₁'s input for post
	h            []F // input of the MLP sub-layer's residual: r1 (pre/none) or LN₁(r1) (post)
	b            []F // MLP input: LN₂(h) (pre) or h
	mean2, rstd2 []F
	up           []F // n×ff pre-activation
	act          []F // n×ff
	r2           []F // h + MLP (n×d): the block output for pre/none, LN₂'s input for post
	out          []F // block output
}

// pass holds a packed batch and every activation of one forward pass.
type pass[F tensor.Float] struct {
	n      int
	spans  []span
	seqs   []Sequence[F]
	x0     []F // embedded input, n×d
	blocks []blockCache[F]
	fin    []F // final hidden states (after the final norm, if any), n×d
	fmean  []F
	frstd  []F
	logits []F           // n×outputs
	ws     *workspace[F] // where the activations live (nil: the heap)
}

// forward runs the model on a batch of validated sequences, keeping the
// activations of every block for backward when keep is set; otherwise the
// blocks take turns in two sets of buffers, so that inference holds
// O(n·(d + ff)) activations instead of O(L·n·(d + ff)). The cost is
// O(n·L·d·(d + ff) + Σ_s n_s²·L·d) for n positions in all.
func (m *Model[F]) forward(seqs []Sequence[F], ws *workspace[F], keep bool) *pass[F] {
	cfg := m.cfg
	d, ff, heads := cfg.Width, cfg.FeedForward, cfg.Heads
	p := &pass[F]{seqs: seqs, spans: make([]span, len(seqs)), ws: ws}
	for k, s := range seqs {
		n := s.length(cfg)
		p.spans[k] = span{start: p.n, n: n}
		p.n += n
	}
	n := p.n

	// Embedding: the token rows (or the read-in of the features) plus the
	// position rows, one sequence per work item.
	p.x0 = p.ws.get(n * d)
	if m.tokens == nil {
		fe := cfg.Features
		in := p.ws.get(n * fe)
		for k, s := range seqs {
			copy(in[p.spans[k].start*fe:], s.Features)
		}
		linearForward(p.x0, in, n, fe, d, m.inW.Value, valueOf(m.inB))
	}
	if m.tokens != nil || m.positions != nil {
		parallelFor(len(seqs), n/len(seqs)*d, func(lo, hi int) {
			for k := lo; k < hi; k++ {
				sp := p.spans[k]
				for i := 0; i < sp.n; i++ {
					row := p.x0[(sp.start+i)*d : (sp.start+i+1)*d]
					if m.tokens != nil {
						t := seqs[k].Tokens[i]
						copy(row, m.tokens.Value[t*d:(t+1)*d])
					}
					if m.positions != nil {
						for j, v := range m.positions.Value[i*d : (i+1)*d] {
							row[j] += v
						}
					}
				}
			}
		})
	}

	// Blocks.
	x := p.x0
	p.blocks = make([]blockCache[F], min(len(m.blocks), 2))
	if keep {
		p.blocks = make([]blockCache[F], len(m.blocks))
	}
	var sets [2][][]F // without keep: the buffers of blocks 0 and 1, in the order asked for
	for l := range m.blocks {
		b, c := &m.blocks[l], &p.blocks[l%len(p.blocks)]
		next := 0 // the next buffer of the set to hand out
		get := func(k int) []F {
			switch {
			case keep:
				return p.ws.get(k)
			case l < 2:
				sets[l] = append(sets[l], p.ws.get(k))
				return sets[l][len(sets[l])-1]
			}
			// Block l−2's buffers, whose output block l−1 has read; every
			// block asks for the same sizes in the same order.
			next++
			return sets[l%2][next-1]
		}
		c.in = x
		c.a = x
		if cfg.Norm == PreNorm {
			c.a, c.mean1, c.rstd1 = get(n*d), get(n), get(n)
			layerNormForward(c.a, c.mean1, c.rstd1, x, n, d, b.norm1W.Value, b.norm1B.Value, cfg.NormEpsilon)
		}
		c.qkv = get(n * 3 * d)
		linearForward(c.qkv, c.a, n, d, 3*d, b.qkvW.Value, valueOf(b.qkvB))
		c.att = get(n * d)
		if cfg.Attention == SoftmaxAttention {
			c.stats = get(2 * n * heads)
		}
		attnForward(cfg.Attention, c.att, c.stats, c.qkv, p.spans, d, heads)
		c.r1 = get(n * d)
		linearResidual(c.r1, c.att, n, d, d, b.outW.Value, valueOf(b.outB), x)
		c.h = c.r1
		if cfg.Norm == PostNorm {
			c.h, c.mean1, c.rstd1 = get(n*d), get(n), get(n)
			layerNormForward(c.h, c.mean1, c.rstd1, c.r1, n, d, b.norm1W.Value, b.norm1B.Value, cfg.NormEpsilon)
		}
		c.b = c.h
		if cfg.Norm == PreNorm {
			c.b, c.mean2, c.rstd2 = get(n*d), get(n), get(n)
			layerNormForward(c.b, c.mean2, c.rstd2, c.h, n, d, b.norm2W.Value, b.norm2B.Value, cfg.NormEpsilon)
		}
		c.up = get(n * ff)
		c.act = get(n * ff)
		linearActivation(cfg.Activation, c.up, c.act, c.b, n, d, ff, b.upW.Value, valueOf(b.upB))
		c.r2 = get(n * d)
		linearResidual(c.r2, c.act, n, ff, d, b.downW.Value, valueOf(b.downB), c.h)
		c.out = c.r2
		if cfg.Norm == PostNorm {
			c.out, c.mean2, c.rstd2 = get(n*d), get(n), get(n)
			layerNormForward(c.out, c.mean2, c.rstd2, c.r2, n, d, b.norm2W.Value, b.norm2B.Value, cfg.NormEpsilon)
		}
		x = c.out
	}
	p.fin = x
	if m.finalW != nil {
		p.fin, p.fmean, p.frstd = p.ws.get(n*d), p.ws.get(n), p.ws.get(n)
		layerNormForward(p.fin, p.fmean, p.frstd, x, n, d, m.finalW.Value, m.finalB.Value, cfg.NormEpsilon)
	}
	p.logits = p.ws.get(n * cfg.Outputs)
	m.readOut(p.logits, p.fin, n)
	return p
}

// readOut sets the n×Outputs logits from the n×d hidden states h: h·W + b,
// or h·Eᵀ with a tied head (E the Vocab×d token table).
func (m *Model[F]) readOut(logits, h []F, n int) {
	d, out := m.cfg.Width, m.cfg.Outputs
	if !m.cfg.TiedHead {
		linearForward(logits, h, n, d, out, m.headW.Value, valueOf(m.headB))
		return
	}
	if n == 1 {
		gemv(logits, h, m.tokens.Value, d, out, true)
		return
	}
	gemm.Gemm(false, true, n, out, d, 1, h, d, m.tokens.Value, d, 0, logits, out)
}

// readOutBackward is the backward pass of readOut: it sets dh (n×d) and
// accumulates the read-out's gradients (the token table's, with a tied
// head).
func (m *Model[F]) readOutBackward(dh, dlogits, h []F, n int) {
	d, out := m.cfg.Width, m.cfg.Outputs
	if !m.cfg.TiedHead {
		linearBackward(dh, m.headW.Grad, gradOf(m.headB), dlogits, h, n, d, out, m.headW.Value)
		return
	}
	gemm.Gemm(true, false, out, d, n, 1, dlogits, out, h, d, 1, m.tokens.Grad, d)
	gemm.Gemm(false, false, n, d, out, 1, dlogits, out, m.tokens.Value, d, 0, dh, d)
}

// backward accumulates into the parameters' Grad the gradient of a loss
// whose gradient with respect to the logits is dlogits (n×outputs).
func (m *Model[F]) backward(p *pass[F], dlogits []F) {
	cfg := m.cfg
	d, ff, heads, n := cfg.Width, cfg.FeedForward, cfg.Heads, p.n
	dx := p.ws.get(n * d) // gradient w.r.t. the current hidden state
	m.readOutBackward(dx, dlogits, p.fin, n)
	tmp := p.ws.get(n * d)
	if m.finalW != nil {
		x := p.blocks[len(p.blocks)-1].out
		layerNormBackward(tmp, m.finalW.Grad, m.finalB.Grad, dx, x, p.fmean, p.frstd, n, d, m.finalW.Value, false)
		dx, tmp = tmp, dx
	}
	dff := p.ws.get(n * ff)
	dqkv := p.ws.get(n * 3 * d)
	for l := len(m.blocks) - 1; l >= 0; l-- {
		b, c := &m.blocks[l], &p.blocks[l]
		// dx is the gradient w.r.t. c.out.
		if cfg.Norm == PostNorm { // out = LN₂(r2)
			layerNormBackward(tmp, b.norm2W.Grad, b.norm2B.Grad, dx, c.r2, c.mean2, c.rstd2, n, d, b.norm2W.Value, false)
			dx, tmp = tmp, dx
		}
		// dx is now the gradient w.r.t. r2 = h + down(act(up(b))).
		linearBackward(dff, b.downW.Grad, gradOf(b.downB), dx, c.act, n, ff, d, b.downW.Value)
		if b.upB != nil {
			activationBackwardSum(cfg.Activation, dff, c.up, b.upB.Grad, n, ff)
		} else {
			activationBackward(cfg.Activation, dff, dff, c.up)
		}
		linearBackward(tmp, b.upW.Grad, nil, dff, c.b, n, d, ff, b.upW.Value)
		// tmp is the gradient w.r.t. b; the residual passes dx to h.
		if cfg.Norm == PreNorm { // b = LN₂(h)
			layerNormBackward(dx, b.norm2W.Grad, b.norm2B.Grad, tmp, c.h, c.mean2, c.rstd2, n, d, b.norm2W.Value, true)
		} else {
			addTo(dx, tmp)
		}
		// dx is the gradient w.r.t. h.
		if cfg.Norm == PostNorm { // h = LN₁(r1)
			layerNormBackward(tmp, b.norm1W.Grad, b.norm1B.Grad, dx, c.r1, c.mean1, c.rstd1, n, d, b.norm1W.Value, false)
			dx, tmp = tmp, dx
		}
		// dx is the gradient w.r.t. r1 = x + out(att(qkv(a))).
		datt := tmp
		linearBackward(datt, b.outW.Grad, gradOf(b.outB), dx, c.att, n, d, d, b.outW.Value)
		attnBackward(cfg.Attention, dqkv, datt, c.stats, c.qkv, p.spans, d, heads)
		da := p.ws.get(n * d)
		linearBackward(da, b.qkvW.Grad, gradOf(b.qkvB), dqkv, c.a, n, d, 3*d, b.qkvW.Value)
		if cfg.Norm == PreNorm { // a = LN₁(x)
			layerNormBackward(dx, b.norm1W.Grad, b.norm1B.Grad, da, c.in, c.mean1, c.rstd1, n, d, b.norm1W.Value, true)
		} else {
			addTo(dx, da)
		}
		// dx is the gradient w.r.t. the block input.
	}
	// Embedding: each row of a table's gradient sums its positions' rows
	// of dx in batch order, one goroutine per range of rows (so no two
	// write to one row).
	if m.positions != nil {
		g := m.positions.Grad
		longest := maxLen(p.spans)
		parallelFor(longest, n/longest*d, func(lo, hi int) {
			for _, sp := range p.spans {
				for i := lo; i < min(hi, sp.n); i++ {
					addVec(g[i*d:(i+1)*d], dx[(sp.start+i)*d:(sp.start+i+1)*d])
				}
			}
		})
	}
	if m.tokens != nil {
		g := m.tokens.Grad
		parallelFor(cfg.Vocab, n*d/cfg.Vocab+n/8, func(lo, hi int) {
			for k, s := range p.seqs {
				start := p.spans[k].start
				for i, t := range s.Tokens {
					if t >= lo && t < hi {
						addVec(g[t*d:(t+1)*d], dx[(start+i)*d:(start+i+1)*d])
					}
				}
			}
		})
	} else {
		fe := cfg.Features
		in := p.ws.get(n * fe)
		for k, s := range p.seqs {
			copy(in[p.spans[k].start*fe:], s.Features)
		}
		linearBackward(nil, m.inW.Grad, gradOf(m.inB), dx, in, n, fe, d, m.inW.Value)
	}
}

func valueOf[F tensor.Float](p *Param[F]) []F {
	if p == nil {
		return nil
	}
	return p.Value
}

func gradOf[F tensor.Float](p *Param[F]) []F {
	if p == nil {
		return nil
	}
	return p.Grad
}
