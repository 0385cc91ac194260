package transformer

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
)

// Attention selects the attention of every layer.
type Attention int

const (
	// SoftmaxAttention is causal scaled dot-product attention (Vaswani et
	// al. 2017; GPT): o_i = Σ_{j≤i} softmax_j(⟨q_i, k_j⟩/√d_h) v_j. It is
	// what the papers' experiments trained (the default).
	SoftmaxAttention Attention = iota
	// ReLUAttention is causal ReLU attention normalised by position, the
	// theory model of in-context-games-omd (§3.3) and of Lin, Bai and Mei
	// (2024): o_i = (1/i) Σ_{j≤i} relu(⟨q_i, k_j⟩/√d_h) v_j for the 1-based
	// position i.
	ReLUAttention
)

// String returns the attention's name.
func (a Attention) String() string {
	switch a {
	case SoftmaxAttention:
		return "softmax"
	case ReLUAttention:
		return "relu"
	}
	return fmt.Sprintf("Attention(%d)", int(a))
}

// Norm selects where each layer applies LayerNorm (Ba et al. 2016).
type Norm int

const (
	// PreNorm normalises the input of each sub-layer:
	// h = x + Attn(LN₁(x)), y = h + MLP(LN₂(h)) (GPT-2; the default).
	PreNorm Norm = iota
	// PostNorm normalises after each residual sum:
	// h = LN₁(x + Attn(x)), y = LN₂(h + MLP(h)) (Vaswani et al. 2017; Lin et
	// al.'s in-context RL model).
	PostNorm
	// NoNorm uses no LayerNorm: h = x + Attn(x), y = h + MLP(h), the theory
	// model of the papers.
	NoNorm
)

// String returns the placement's name.
func (n Norm) String() string {
	switch n {
	case PreNorm:
		return "pre"
	case PostNorm:
		return "post"
	case NoNorm:
		return "none"
	}
	return fmt.Sprintf("Norm(%d)", int(n))
}

// Positions selects the positional encoding.
type Positions int

const (
	// LearnedPositions adds a learned vector per position to the input
	// embedding (the default).
	LearnedPositions Positions = iota
	// NoPositions adds nothing: order is visible only through the causal
	// mask (and, for ReLU attention, the 1/i normalisation).
	NoPositions
)

// String returns the encoding's name.
func (p Positions) String() string {
	switch p {
	case LearnedPositions:
		return "learned"
	case NoPositions:
		return "none"
	}
	return fmt.Sprintf("Positions(%d)", int(p))
}

// Activation selects the non-linearity of the feed-forward blocks.
type Activation int

const (
	// ReLU is max(0, x) (the default, and the papers' σ).
	ReLU Activation = iota
	// GELU is x·Φ(x) with the exact normal CDF Φ (Hendrycks and Gimpel
	// 2016), PyTorch's default GELU.
	GELU
	// GELUTanh is Hendrycks and Gimpel's tanh approximation of GELU,
	// x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³))): GPT-2's activation
	// ("gelu_new" in Hugging Face's configurations), PyTorch's
	// F.gelu(x, approximate="tanh").
	GELUTanh
)

// String returns the activation's name.
func (a Activation) String() string {
	switch a {
	case ReLU:
		return "relu"
	case GELU:
		return "gelu"
	case GELUTanh:
		return "gelu_tanh"
	}
	return fmt.Sprintf("Activation(%d)", int(a))
}

// Config describes a decoder-only transformer. The zero value of every
// optional field selects the documented default; Layers, Heads, Width,
// FeedForward, Outputs and exactly one of Vocab and Features are required.
//
// Field names are also the keys of the JSON config written by [Model.Save].
type Config struct {
	// Layers is the number of transformer blocks L ≥ 1.
	Layers int `json:"layers"`
	// Heads is the number of attention heads per layer; it must divide
	// Width.
	Heads int `json:"heads"`
	// Width is the model width d (the residual stream).
	Width int `json:"width"`
	// FeedForward is the hidden width of each MLP block.
	FeedForward int `json:"feed_forward"`

	// Vocab is the number of input tokens, for a model that reads token
	// indices through an embedding table. Set either Vocab or Features.
	Vocab int `json:"vocab,omitempty"`
	// Features is the width of the input feature vectors, for a model that
	// reads real vectors through a linear read-in. Set either Vocab or
	// Features.
	Features int `json:"features,omitempty"`
	// Outputs is the number of logits of the linear read-out at every
	// position.
	Outputs int `json:"outputs"`
	// TiedHead makes the read-out the token embedding, transposed and
	// without a bias: logits = h·Eᵀ for the Vocab × Width table E, as in
	// GPT-2's language-model head (Hugging Face's GPT2LMHeadModel with
	// tie_word_embeddings). It needs Vocab > 0 and Outputs = Vocab; the
	// table's gradient then sums both uses.
	TiedHead bool `json:"tied_head,omitempty"`
	// MaxLen is the longest sequence the model accepts; 0 means 1024. It
	// sizes the learned position table.
	MaxLen int `json:"max_len"`

	// Attention is the attention kind (default SoftmaxAttention).
	Attention Attention `json:"attention"`
	// Norm is the LayerNorm placement (default PreNorm).
	Norm Norm `json:"norm"`
	// FinalNorm applies a LayerNorm to the output of the last block, before
	// the read-out (GPT-2 does; PyTorch's nn.TransformerEncoder does not
	// unless given a norm). Not allowed with NoNorm.
	FinalNorm bool `json:"final_norm"`
	// Positions is the positional encoding (default LearnedPositions).
	Positions Positions `json:"positions"`
	// Activation is the MLP non-linearity (default ReLU).
	Activation Activation `json:"activation"`
	// NoBias removes the bias vectors of every linear map (the papers'
	// theory model has none); by default they are present, as in PyTorch.
	NoBias bool `json:"no_bias"`
	// NormEpsilon is the ε of LayerNorm; 0 means 1e-5 (PyTorch's default).
	NormEpsilon float64 `json:"norm_epsilon"`
	// MaxParams is the largest number of parameters that Validate (and so
	// New, Load and Import) accepts, checked before anything is allocated;
	// 0 means [DefaultMaxParams]. Raise it for a larger model.
	MaxParams int64 `json:"max_params,omitempty"`
}

// DefaultMaxParams is the parameter limit of a Config whose MaxParams is
// zero: 2³¹ parameters, 8 GiB in float32.
const DefaultMaxParams = 1 << 31

// withDefaults returns c with the zero-value defaults filled in.
func (c Config) withDefaults() Config {
	if c.MaxLen == 0 {
		c.MaxLen = 1024
	}
	if c.NormEpsilon == 0 {
		c.NormEpsilon = 1e-5
	}
	return c
}

// Validate returns an error naming the first invalid field of c, after the
// defaults are applied.
func (c Config) Validate() error {
	c = c.withDefaults()
	pos := func(name string, v int) error {
		if v < 1 {
			return fmt.Errorf("%w: config %s = %d must be positive", icrl.ErrInvalid, name, v)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Layers", c.Layers}, {"Heads", c.Heads}, {"Width", c.Width}, {"FeedForward", c.FeedForward}, {"Outputs", c.Outputs}, {"MaxLen", c.MaxLen}} {
		if err := pos(f.name, f.v); err != nil {
			return err
		}
	}
	if c.Width%c.Heads != 0 {
		return fmt.Errorf("%w: config Heads = %d does not divide Width = %d", icrl.ErrInvalid, c.Heads, c.Width)
	}
	switch {
	case c.Vocab < 0 || c.Features < 0:
		return fmt.Errorf("%w: config Vocab = %d and Features = %d must not be negative", icrl.ErrInvalid, c.Vocab, c.Features)
	case c.Vocab > 0 && c.Features > 0:
		return fmt.Errorf("%w: config sets both Vocab = %d and Features = %d; set exactly one", icrl.ErrInvalid, c.Vocab, c.Features)
	case c.Vocab == 0 && c.Features == 0:
		return fmt.Errorf("%w: config sets neither Vocab nor Features; set exactly one", icrl.ErrInvalid)
	}
	if c.Attention != SoftmaxAttention && c.Attention != ReLUAttention {
		return fmt.Errorf("%w: config Attention = %v is unknown", icrl.ErrInvalid, c.Attention)
	}
	if c.Norm != PreNorm && c.Norm != PostNorm && c.Norm != NoNorm {
		return fmt.Errorf("%w: config Norm = %v is unknown", icrl.ErrInvalid, c.Norm)
	}
	if c.FinalNorm && c.Norm == NoNorm {
		return fmt.Errorf("%w: config FinalNorm needs a LayerNorm placement other than NoNorm", icrl.ErrInvalid)
	}
	if c.Positions != LearnedPositions && c.Positions != NoPositions {
		return fmt.Errorf("%w: config Positions = %v is unknown", icrl.ErrInvalid, c.Positions)
	}
	if c.TiedHead && (c.Vocab == 0 || c.Outputs != c.Vocab) {
		return fmt.Errorf("%w: config TiedHead needs a token model with Outputs = Vocab, got Outputs = %d, Vocab = %d", icrl.ErrInvalid, c.Outputs, c.Vocab)
	}
	if c.Activation != ReLU && c.Activation != GELU && c.Activation != GELUTanh {
		return fmt.Errorf("%w: config Activation = %v is unknown", icrl.ErrInvalid, c.Activation)
	}
	if !(c.NormEpsilon > 0) || math.IsInf(c.NormEpsilon, 0) {
		return fmt.Errorf("%w: config NormEpsilon = %v must be positive and finite", icrl.ErrInvalid, c.NormEpsilon)
	}
	if c.MaxParams < 0 {
		return fmt.Errorf("%w: config MaxParams = %d must not be negative", icrl.ErrInvalid, c.MaxParams)
	}
	limit := c.MaxParams
	if limit == 0 {
		limit = DefaultMaxParams
	}
	switch n := c.numParams(); {
	case n < 0:
		return fmt.Errorf("%w: the parameter count of Layers = %d, Width = %d, FeedForward = %d, Vocab = %d, Features = %d, MaxLen = %d overflows int64",
			icrl.ErrTooLarge, c.Layers, c.Width, c.FeedForward, c.Vocab, c.Features, c.MaxLen)
	case n > limit:
		return fmt.Errorf("%w: %d parameters (Width = %d, Layers = %d, FeedForward = %d), above MaxParams = %d", icrl.ErrTooLarge, n, c.Width, c.Layers, c.FeedForward, limit)
	}
	return nil
}

// numParams returns the number of parameter entries of a model with this
// (valid, defaulted) configuration, or −1 if it overflows an int64.
func (c Config) numParams() int64 {
	var total int64
	add := func(f ...int) {
		if total < 0 {
			return
		}
		p := int64(1)
		for _, v := range f {
			if v == 0 {
				return
			}
			if p > math.MaxInt64/int64(v) {
				total = -1
				return
			}
			p *= int64(v)
		}
		if total > math.MaxInt64-p {
			total = -1
			return
		}
		total += p
	}
	d, ff := c.Width, c.FeedForward
	bias := 1
	if c.NoBias {
		bias = 0
	}
	norms := 0
	if c.Norm != NoNorm {
		norms = 4 * d
	}
	if c.Vocab > 0 {
		add(c.Vocab, d)
	} else {
		add(c.Features, d)
		add(bias, d)
	}
	if c.Positions == LearnedPositions {
		add(c.MaxLen, d)
	}
	for range c.Layers {
		if total < 0 {
			break
		}
		add(d, 3*d)
		add(d, d)
		add(d, ff)
		add(ff, d)
		add(bias, 3*d+d+ff+d)
		add(norms)
	}
	if c.FinalNorm {
		add(2 * d)
	}
	if !c.TiedHead {
		add(d+bias, c.Outputs)
	}
	return total
}
