package transformer

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// block holds the parameters of one transformer block. Linear weights are
// stored input-major ([in, out]) so that a layer computes Y = X·W + b on
// row-major activations X. Biases and norms are nil when the configuration
// has none.
type block[F tensor.Float] struct {
	norm1W, norm1B *Param[F] // LayerNorm before (pre) or after (post) attention
	qkvW, qkvB     *Param[F] // [d, 3d]: queries, keys, values (heads side by side)
	outW, outB     *Param[F] // [d, d]: attention output projection
	norm2W, norm2B *Param[F] // LayerNorm of the MLP sub-layer
	upW, upB       *Param[F] // [d, ff]
	downW, downB   *Param[F] // [ff, d]
}

// Model is a decoder-only transformer with float type F (float32 or
// float64). See the package documentation for the equations.
//
// A Model's parameters may be read concurrently (for example by several
// [Session]s and Forward calls), but training or loading must not run at
// the same time as any other use.
type Model[F tensor.Float] struct {
	cfg Config

	tokens    *Param[F] // [vocab, d] embedding table, or nil
	inW, inB  *Param[F] // [features, d] read-in, or nil
	positions *Param[F] // [maxLen, d], or nil
	blocks    []block[F]
	finalW    *Param[F] // final LayerNorm, or nil
	finalB    *Param[F]
	headW     *Param[F] // [d, outputs] read-out, or nil with a tied head
	headB     *Param[F]

	params []*Param[F] // every parameter, in a fixed order

	ws *workspace[F] // Backprop's scratch, kept between calls
}

// New returns a model with the given configuration and freshly initialised
// parameters drawn from rng (GPT-2's scheme, Radford et al. 2019: weights
// and embeddings N(0, 0.02²), the two residual output projections of each
// block N(0, (0.02/√(2L))²), biases 0, LayerNorm gains 1). It returns an
// error naming the bad field if the configuration is invalid.
func New[F tensor.Float](cfg Config, rng *rand.Rand) (*Model[F], error) {
	if rng == nil {
		return nil, fmt.Errorf("%w: New needs a random source", icrl.ErrNil)
	}
	m, err := newZero[F](cfg)
	if err != nil {
		return nil, err
	}
	m.init(rng)
	return m, nil
}

// newZero returns a model of the given configuration with zero
// parameters.
func newZero[F tensor.Float](cfg Config) (*Model[F], error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	d, ff := cfg.Width, cfg.FeedForward
	m := &Model[F]{cfg: cfg}
	add := func(name string, shape ...int) *Param[F] {
		p := newParam[F](name, shape...)
		m.params = append(m.params, p)
		return p
	}
	bias := func(name string, n int) *Param[F] {
		if cfg.NoBias {
			return nil
		}
		return add(name, n)
	}
	if cfg.Vocab > 0 {
		m.tokens = add("embed.tokens", cfg.Vocab, d)
	} else {
		m.inW = add("embed.features.weight", cfg.Features, d)
		m.inB = bias("embed.features.bias", d)
	}
	if cfg.Positions == LearnedPositions {
		m.positions = add("embed.positions", cfg.MaxLen, d)
	}
	m.blocks = make([]block[F], cfg.Layers)
	for l := range m.blocks {
		b := &m.blocks[l]
		pre := fmt.Sprintf("layers.%d.", l)
		if cfg.Norm != NoNorm {
			b.norm1W = add(pre+"attn.norm.weight", d)
			b.norm1B = add(pre+"attn.norm.bias", d)
		}
		b.qkvW = add(pre+"attn.qkv.weight", d, 3*d)
		b.qkvB = bias(pre+"attn.qkv.bias", 3*d)
		b.outW = add(pre+"attn.out.weight", d, d)
		b.outB = bias(pre+"attn.out.bias", d)
		if cfg.Norm != NoNorm {
			b.norm2W = add(pre+"mlp.norm.weight", d)
			b.norm2B = add(pre+"mlp.norm.bias", d)
		}
		b.upW = add(pre+"mlp.up.weight", d, ff)
		b.upB = bias(pre+"mlp.up.bias", ff)
		b.downW = add(pre+"mlp.down.weight", ff, d)
		b.downB = bias(pre+"mlp.down.bias", d)
	}
	if cfg.FinalNorm {
		m.finalW = add("final_norm.weight", d)
		m.finalB = add("final_norm.bias", d)
	}
	if !cfg.TiedHead {
		m.headW = add("head.weight", d, cfg.Outputs)
		m.headB = bias("head.bias", cfg.Outputs)
	}
	return m, nil
}

func (m *Model[F]) init(rng *rand.Rand) {
	const std = 0.02
	resid := std / math.Sqrt(2*float64(m.cfg.Layers))
	normal := func(p *Param[F], s float64) {
		for i := range p.Value {
			p.Value[i] = F(s * rng.NormFloat64())
		}
	}
	ones := func(p *Param[F]) {
		if p != nil {
			for i := range p.Value {
				p.Value[i] = 1
			}
		}
	}
	for _, p := range []*Param[F]{m.tokens, m.inW, m.positions, m.headW} {
		if p != nil {
			normal(p, std)
		}
	}
	for l := range m.blocks {
		b := &m.blocks[l]
		normal(b.qkvW, std)
		normal(b.outW, resid)
		normal(b.upW, std)
		normal(b.downW, resid)
		ones(b.norm1W)
		ones(b.norm2W)
	}
	ones(m.finalW)
}

// Config returns the model's configuration, with defaults filled in.
func (m *Model[F]) Config() Config { return m.cfg }

// Params returns every parameter of the model in a fixed order (the order
// of the configuration: embeddings, then each block, then the read-out).
// The slice is the model's own; do not modify it, but the tensors' Value
// and Grad may be changed in place.
func (m *Model[F]) Params() []*Param[F] { return m.params }

// Param returns the parameter with the given name, or nil.
func (m *Model[F]) Param(name string) *Param[F] {
	for _, p := range m.params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// NumParams returns the total number of parameter entries.
func (m *Model[F]) NumParams() int {
	var n int
	for _, p := range m.params {
		n += len(p.Value)
	}
	return n
}

// ZeroGrad sets every gradient to zero.
func (m *Model[F]) ZeroGrad() {
	for _, p := range m.params {
		clear(p.Grad)
	}
}

// Clone returns a deep copy of the model (values and gradients).
func (m *Model[F]) Clone() *Model[F] {
	c, err := newZero[F](m.cfg)
	if err != nil {
		panic("transformer: internal error: " + err.Error())
	}
	for i, p := range m.params {
		copy(c.params[i].Value, p.Value)
		copy(c.params[i].Grad, p.Grad)
	}
	return c
}

// Convert returns a copy of m with float type G, gradients zero: float32
// parameters widen to float64 exactly, float64 ones narrow to float32 by
// rounding to nearest (ties to even). It returns an error wrapping
// [ErrZeroModel] for a nil or zero model, and one wrapping [icrl.ErrNotFinite]
// naming the parameter if a value is beyond float32's range.
func Convert[G, F tensor.Float](m *Model[F]) (*Model[G], error) {
	if m == nil || len(m.params) == 0 {
		return nil, ErrZeroModel
	}
	c, err := newZero[G](m.cfg)
	if err != nil {
		return nil, err
	}
	for i, p := range m.params {
		dst := c.params[i].Value
		for j, v := range p.Value {
			dst[j] = G(v)
		}
		if j := firstNonFinite(dst); j >= 0 {
			return nil, fmt.Errorf("%w: parameter %q entry %d is %v after conversion (%v)", icrl.ErrNotFinite, p.Name, j, dst[j], p.Value[j])
		}
	}
	return c, nil
}
