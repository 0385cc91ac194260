package transformer

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/safetensors"
)

// Layout names a foreign checkpoint layout.
type Layout int

const (
	// TorchLayout is the layout of the PyTorch module of
	// examples/torchbridge/train.py, which mirrors [Config]: the same names
	// as [Param] with ".weight" appended to the embeddings
	// ("embed.tokens.weight", "embed.positions.weight"), and every linear
	// weight stored as nn.Linear stores it, [out, in] (this package stores
	// [in, out]).
	TorchLayout Layout = iota
	// GPT2Layout is the layout of GPT-2 (Radford et al. 2019) as Hugging
	// Face's GPT2Model saves it: wte, wpe, h.N.ln_1, h.N.attn.c_attn (the
	// fused query-key-value map), h.N.attn.c_proj, h.N.ln_2, h.N.mlp.c_fc,
	// h.N.mlp.c_proj, ln_f, whose Conv1D weights are stored [in, out]; with
	// the read-in and read-out of the in-context papers' models around it:
	// read_in (an nn.Linear from feature vectors to the width, when the
	// inputs are features rather than wte tokens) and read_out (an
	// nn.Linear from the width to the outputs), or, without read_out,
	// GPT2LMHeadModel's language-model head tied to wte. A "transformer."
	// prefix on the GPT-2 names (GPT2LMHeadModel, DPT's model) is accepted;
	// GPT-2's causal-mask buffers (attn.bias, attn.masked_bias) are
	// ignored.
	GPT2Layout
)

// String returns the layout's name, as the reference script writes it in
// the checkpoint's "layout" metadata.
func (l Layout) String() string {
	switch l {
	case TorchLayout:
		return "torch"
	case GPT2Layout:
		return "gpt2"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// foreign is where a parameter lives in a foreign layout.
type foreign struct {
	name      string
	transpose bool // stored [out, in]
}

// foreignName maps a parameter name of this package to its name and
// orientation in layout l; prefix is the GPT-2 names' prefix.
func foreignName(l Layout, name, prefix string) (foreign, error) {
	if l == TorchLayout {
		switch name {
		case "embed.tokens", "embed.positions":
			return foreign{name: name + ".weight"}, nil
		}
		linear := strings.HasSuffix(name, ".weight") && !strings.HasSuffix(name, "norm.weight")
		return foreign{name: name, transpose: linear}, nil
	}
	switch name {
	case "embed.tokens":
		return foreign{name: prefix + "wte.weight"}, nil
	case "embed.positions":
		return foreign{name: prefix + "wpe.weight"}, nil
	case "embed.features.weight":
		return foreign{name: "read_in.weight", transpose: true}, nil
	case "embed.features.bias":
		return foreign{name: "read_in.bias"}, nil
	case "head.weight":
		return foreign{name: "read_out.weight", transpose: true}, nil
	case "head.bias":
		return foreign{name: "read_out.bias"}, nil
	case "final_norm.weight", "final_norm.bias":
		return foreign{name: prefix + "ln_f." + strings.TrimPrefix(name, "final_norm.")}, nil
	}
	rest, ok := strings.CutPrefix(name, "layers.")
	if ok {
		l, sub, _ := strings.Cut(rest, ".")
		gpt := map[string]string{
			"attn.norm.weight": "ln_1.weight", "attn.norm.bias": "ln_1.bias",
			"attn.qkv.weight": "attn.c_attn.weight", "attn.qkv.bias": "attn.c_attn.bias",
			"attn.out.weight": "attn.c_proj.weight", "attn.out.bias": "attn.c_proj.bias",
			"mlp.norm.weight": "ln_2.weight", "mlp.norm.bias": "ln_2.bias",
			"mlp.up.weight": "mlp.c_fc.weight", "mlp.up.bias": "mlp.c_fc.bias",
			"mlp.down.weight": "mlp.c_proj.weight", "mlp.down.bias": "mlp.c_proj.bias",
		}[sub]
		if gpt != "" {
			return foreign{name: prefix + "h." + l + "." + gpt}, nil
		}
	}
	return foreign{}, fmt.Errorf("%w: parameter %q has no place in the %s layout", ErrCheckpoint, name, GPT2Layout)
}

// ImportTorch builds a model from a checkpoint in [TorchLayout] (a
// PyTorch state_dict of this package's architecture saved as
// safetensors). See [Import].
func ImportTorch[F tensor.Float](f *safetensors.File, hint Config) (*Model[F], error) {
	return Import[F](f, TorchLayout, hint)
}

// ImportGPT2 builds a model from a GPT-2-style checkpoint ([GPT2Layout]).
// See [Import]. GPT-2 fixes the architecture to pre-LayerNorm blocks with a
// final LayerNorm, learned positions, softmax attention and biases; the
// activation comes from hint or the checkpoint's metadata, and is GPT-2's
// "gelu_new" ([GELUTanh]) when neither gives one. For a folder written by
// save_pretrained, whose
// config.json gives every field, use [ImportGPT2Dir].
func ImportGPT2[F tensor.Float](f *safetensors.File, hint Config) (*Model[F], error) {
	return Import[F](f, GPT2Layout, hint)
}

// Import builds a model from the tensors of f in the given layout.
//
// The configuration is inferred from the tensors where they determine it:
// Layers, Width, FeedForward, Vocab or Features, Outputs, MaxLen and
// Positions, NoBias, FinalNorm, and whether there are LayerNorms. What the
// tensors cannot tell — Heads, the placement of the LayerNorms (pre or
// post), Attention, Activation, NormEpsilon — comes from f's metadata entry
// "config" (a JSON [Config], as examples/torchbridge/train.py writes) or,
// without one, from hint. Every non-zero field of hint, and every field of
// the metadata's config, must agree with what the tensors say; a
// disagreement is an error naming the field and both values.
//
// In the GPT-2 layout, without a metadata config, a hint whose Activation
// is its zero value (ReLU) means GPT-2's own activation, [GELUTanh]
// ("gelu_new"): the hint cannot say ReLU by omission. A GPT-2 checkpoint
// with ReLU feed-forward blocks says so in its metadata config, or in the
// config.json that [ImportGPT2Dir] reads.
//
// A token model without a read-out tensor (head.weight, read_out.weight)
// gets a tied head ([Config.TiedHead]): GPT2LMHeadModel as save_pretrained
// writes it, whose lm_head is the token embedding; an lm_head.weight in
// the file is accepted only if it equals the embedding.
//
// Every tensor must be there with a float dtype and the shape the
// configuration implies (transposed for nn.Linear weights), and no other
// tensor may be (GPT-2's mask buffers aside); errors wrap [ErrCheckpoint]
// and name the tensor and both shapes. Tensors are converted to F: F16,
// BF16 and F32 exactly, F64 into float32 by rounding to nearest. The
// model's size is checked against the tensors' bytes before it is
// allocated. Memory: the model.
func Import[F tensor.Float](f *safetensors.File, layout Layout, hint Config) (*Model[F], error) {
	return importLayout[F](f, layout, hint, true)
}

// importLayout is Import; gpt2Default makes a GPT-2 checkpoint whose
// activation neither the metadata nor the hint gives (the hint's zero
// value, ReLU) GPT-2's GELUTanh. ImportGPT2Dir, whose config.json names
// the activation, passes false.
func importLayout[F tensor.Float](f *safetensors.File, layout Layout, hint Config, gpt2Default bool) (*Model[F], error) {
	if f == nil {
		return nil, fmt.Errorf("%w: Import of a nil safetensors file", icrl.ErrNil)
	}
	if layout != TorchLayout && layout != GPT2Layout {
		return nil, fmt.Errorf("%w: unknown layout %d", icrl.ErrInvalid, int(layout))
	}
	prefix := ""
	if layout == GPT2Layout {
		if _, ok := f.Tensor("transformer.wpe.weight"); ok {
			prefix = "transformer."
		}
	}
	if _, meta := f.Metadata["config"]; layout == GPT2Layout && gpt2Default && !meta && hint.Activation == ReLU {
		hint.Activation = GELUTanh
	}
	cfg, err := inferConfig(f, layout, prefix, hint)
	if err != nil {
		return nil, err
	}
	if have, want := fitsIn(f, cfg); want < 0 || want > have {
		return nil, fmt.Errorf("%w: the tensors hold %d bytes, too few for the %d parameters of the configuration", ErrCheckpoint, have, want)
	}
	m, err := newZero[F](cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	used := map[string]bool{}
	for _, p := range m.params {
		fn, err := foreignName(layout, p.Name, prefix)
		if err != nil {
			return nil, err
		}
		used[fn.name] = true
		if err := readForeign(f, fn, p); err != nil {
			return nil, err
		}
	}
	if layout == GPT2Layout && cfg.TiedHead {
		if err := checkTiedHead(f, m); err != nil {
			return nil, err
		}
		used[lmHead] = true
	}
	for _, name := range f.Names() {
		if used[name] || layout == GPT2Layout && (strings.HasSuffix(name, ".attn.bias") || strings.HasSuffix(name, ".attn.masked_bias")) {
			continue
		}
		return nil, fmt.Errorf("%w: tensor %q is not a parameter of the %s layout's model", ErrCheckpoint, name, layout)
	}
	return m, nil
}

// lmHead is the name of GPT2LMHeadModel's read-out, which
// save_pretrained leaves out when it is tied to the token embedding.
const lmHead = "lm_head.weight"

// checkTiedHead accepts a GPT-2 checkpoint's lm_head.weight only if it is
// the token embedding (a tied head saved twice): an untied head has no
// place in a model whose read-out is its embedding.
func checkTiedHead[F tensor.Float](f *safetensors.File, m *Model[F]) error {
	if _, ok := f.Tensor(lmHead); !ok {
		return nil
	}
	head := make([]F, len(m.tokens.Value))
	if err := readTensor(f, lmHead, m.tokens.Shape, head); err != nil {
		return fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	for i, v := range head {
		if v != m.tokens.Value[i] {
			return fmt.Errorf("%w: tensor %q differs from the token embedding at entry %d (%v, %v): untied language-model heads are not supported", ErrCheckpoint, lmHead, i, v, m.tokens.Value[i])
		}
	}
	return nil
}

// readForeign copies the foreign tensor of fn into p, transposing an
// [out, in] weight.
func readForeign[F tensor.Float](f *safetensors.File, fn foreign, p *Param[F]) error {
	shape := p.Shape
	if fn.transpose {
		shape = []int{p.Shape[1], p.Shape[0]}
	}
	if _, ok := f.Tensor(fn.name); !ok {
		return fmt.Errorf("%w: tensor %q (parameter %q) is missing", ErrCheckpoint, fn.name, p.Name)
	}
	// readTensor checks the dtype, the shape and finiteness.
	dst := p.Value
	if fn.transpose {
		dst = make([]F, len(p.Value))
	}
	if err := readTensor(f, fn.name, shape, dst); err != nil {
		return fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	if !fn.transpose {
		return nil
	}
	in, out := p.Shape[0], p.Shape[1]
	for o := range out {
		for i := range in {
			p.Value[i*out+o] = dst[o*in+i]
		}
	}
	return nil
}

// axisOf names the tensor and axis a configuration field is read from.
type axisOf struct {
	name string
	axis int
}

// layoutShape lists, for a layout, where its tensors hold the shape fields
// of a [Config]; every tensor is a matrix.
type layoutShape struct {
	blocks                                       string // prefix of the block tensors
	width, ff, outputs, tokens, features, maxLen axisOf
}

// shapeOf returns where layout l (with GPT-2 names under prefix) holds the
// shape fields.
func shapeOf(l Layout, prefix string) layoutShape {
	if l == TorchLayout {
		return layoutShape{blocks: "layers.",
			width: axisOf{"layers.0.attn.qkv.weight", 1}, ff: axisOf{"layers.0.mlp.up.weight", 0},
			outputs: axisOf{"head.weight", 0}, tokens: axisOf{"embed.tokens.weight", 0},
			features: axisOf{"embed.features.weight", 1}, maxLen: axisOf{"embed.positions.weight", 0}}
	}
	return layoutShape{blocks: prefix + "h.",
		width: axisOf{prefix + "h.0.attn.c_attn.weight", 0}, ff: axisOf{prefix + "h.0.mlp.c_fc.weight", 1},
		outputs: axisOf{"read_out.weight", 0}, tokens: axisOf{prefix + "wte.weight", 0},
		features: axisOf{"read_in.weight", 1}, maxLen: axisOf{prefix + "wpe.weight", 0}}
}

// dim returns the size of axis a.axis of the matrix a.name of f.
func dim(f *safetensors.File, a axisOf) (int, error) {
	t, ok := f.Tensor(a.name)
	if !ok || len(t.Shape) != 2 {
		return 0, fmt.Errorf("%w: tensor %q is missing or not a matrix (shape %v)", ErrCheckpoint, a.name, t.Shape)
	}
	return t.Shape[a.axis], nil
}

// checkBlocks returns an error naming a tensor whose block index has no
// attention weight of its own (a stray or misnamed tensor, which would
// otherwise add a block the file has no bytes for).
func checkBlocks(f *safetensors.File, sh layoutShape, layers int, layout Layout) error {
	suffix := strings.TrimPrefix(sh.width.name, sh.blocks+"0")
	for l := range layers {
		if _, ok := f.Tensor(sh.blocks + strconv.Itoa(l) + suffix); ok {
			continue
		}
		// Name a tensor of block l or, if there is none, of a later
		// block: the tensor that makes the blocks run past l.
		stray, at := "", -1
		for _, name := range f.Names() {
			rest, _ := strings.CutPrefix(name, sh.blocks)
			num, _, _ := strings.Cut(rest, ".")
			if b, err := strconv.Atoi(num); err == nil && strings.HasPrefix(name, sh.blocks) && b >= l && (at < 0 || b < at) {
				stray, at = name, b
			}
		}
		return fmt.Errorf("%w: tensor %q names block %d of the %s layout, but block %d has no %q: not a parameter of the layout's model", ErrCheckpoint, stray, at, layout, l, sh.blocks+strconv.Itoa(l)+suffix)
	}
	return nil
}

// checkAttnShape returns an error naming the first block's attention
// weight if its shape is not the layout's (d × 3d in GPT-2's Conv1D
// layout, 3d × d in nn.Linear's): a transposed tensor would otherwise be
// read as a model three times as wide.
func checkAttnShape(f *safetensors.File, sh layoutShape, layout Layout, width int) error {
	t, _ := f.Tensor(sh.width.name)
	want := []int{width, 3 * width}
	if layout == TorchLayout {
		want = []int{3 * width, width}
	}
	if !slices.Equal(t.Shape, want) {
		return fmt.Errorf("%w: tensor %q has shape %v, want %v in the %s layout (transposed?)", ErrCheckpoint, sh.width.name, t.Shape, want, layout)
	}
	return nil
}

// countBlocks returns one more than the highest block index among the
// tensors named prefix+"N.…".
func countBlocks(f *safetensors.File, prefix string) (int, error) {
	layers := 0
	for _, name := range f.Names() {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, ".")
		l, err := strconv.Atoi(num)
		if err != nil || l < 0 || l > 1<<16 {
			return 0, fmt.Errorf("%w: tensor %q has a bad block index", ErrCheckpoint, name)
		}
		layers = max(layers, l+1)
	}
	return layers, nil
}

// inferConfig determines the configuration of a foreign checkpoint: the
// shape fields from the tensors, the rest from the metadata's config or,
// without one, the hint, which must agree with them.
func inferConfig(f *safetensors.File, layout Layout, prefix string, hint Config) (Config, error) {
	base := hint
	if raw, ok := f.Metadata["config"]; ok {
		mc, err := parseConfig([]byte(raw))
		if err != nil {
			return Config{}, fmt.Errorf("%w: metadata config: %w", ErrCheckpoint, err)
		}
		if err := agree(mc, hint, "hint"); err != nil {
			return Config{}, err
		}
		base = mc
	}
	has := func(name string) bool { _, ok := f.Tensor(name); return ok }
	sh := shapeOf(layout, prefix)
	var got Config
	var err error
	if got.Layers, err = countBlocks(f, sh.blocks); err != nil {
		return Config{}, err
	}
	if got.Layers == 0 {
		return Config{}, fmt.Errorf("%w: no tensor of a block (%s0.…) in the %s layout", ErrCheckpoint, sh.blocks, layout)
	}
	if err := checkBlocks(f, sh, got.Layers, layout); err != nil {
		return Config{}, err
	}
	input, inputAxis := &got.Features, sh.features
	switch {
	case has(sh.tokens.name):
		input, inputAxis = &got.Vocab, sh.tokens
	case !has(sh.features.name):
		return Config{}, fmt.Errorf("%w: no input embedding in the %s layout: neither %q (tokens) nor %q (features) is there", ErrCheckpoint, layout, sh.tokens.name, sh.features.name)
	}
	fields := []struct {
		dst *int
		at  axisOf
	}{{&got.Width, sh.width}, {&got.FeedForward, sh.ff}, {input, inputAxis}}
	// Without a read-out, a token model's read-out is its embedding
	// (GPT-2's language-model head).
	got.TiedHead = !has(sh.outputs.name) && has(sh.tokens.name)
	if !got.TiedHead {
		fields = append(fields, struct {
			dst *int
			at  axisOf
		}{&got.Outputs, sh.outputs})
	}
	for _, fd := range fields {
		if *fd.dst, err = dim(f, fd.at); err != nil {
			return Config{}, err
		}
	}
	if err := checkAttnShape(f, sh, layout, got.Width); err != nil {
		return Config{}, err
	}
	if got.TiedHead {
		got.Outputs = got.Vocab
	}
	if layout == GPT2Layout || has(sh.maxLen.name) {
		if got.MaxLen, err = dim(f, sh.maxLen); err != nil {
			return Config{}, err
		}
	} else {
		got.Positions, got.MaxLen = NoPositions, base.MaxLen
	}
	if layout == TorchLayout {
		got.NoBias = !has("layers.0.attn.qkv.bias")
		got.FinalNorm = has("final_norm.weight")
		switch {
		case !has("layers.0.attn.norm.weight"):
			got.Norm = NoNorm
		case base.Norm == NoNorm:
			got.Norm = PreNorm // the tensors have norms; agree reports the contradiction
		default:
			got.Norm = base.Norm
		}
	} else {
		got.Norm, got.FinalNorm = PreNorm, true
	}
	// What the tensors cannot tell comes from the base; GPT-2 attends by
	// softmax.
	got.Heads, got.Attention, got.Activation, got.NormEpsilon = base.Heads, base.Attention, base.Activation, base.NormEpsilon
	if layout == GPT2Layout {
		got.Attention = SoftmaxAttention
	}
	if err := agree(got, base, "configuration"); err != nil {
		return Config{}, err
	}
	if got.Heads == 0 {
		return Config{}, fmt.Errorf("%w: the number of heads is not in the tensors: give it in the hint or the metadata config", ErrCheckpoint)
	}
	if err := got.Validate(); err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	return got.withDefaults(), nil
}

// agree checks that every non-zero field of claim equals the field of cfg,
// naming the first that does not. Fields whose zero value is a valid
// choice (Attention, Norm, Positions, Activation, NoBias, FinalNorm) are
// checked only when claim differs from its zero value.
func agree(cfg, claim Config, what string) error {
	type field struct {
		name      string
		got, want any
		set       bool
	}
	cfg = cfg.withDefaults()
	fields := []field{
		{"Layers", cfg.Layers, claim.Layers, claim.Layers != 0},
		{"Heads", cfg.Heads, claim.Heads, claim.Heads != 0},
		{"Width", cfg.Width, claim.Width, claim.Width != 0},
		{"FeedForward", cfg.FeedForward, claim.FeedForward, claim.FeedForward != 0},
		{"Vocab", cfg.Vocab, claim.Vocab, claim.Vocab != 0},
		{"Features", cfg.Features, claim.Features, claim.Features != 0},
		{"Outputs", cfg.Outputs, claim.Outputs, claim.Outputs != 0},
		{"MaxLen", cfg.MaxLen, claim.MaxLen, claim.MaxLen != 0},
		{"Attention", cfg.Attention, claim.Attention, claim.Attention != 0},
		{"Norm", cfg.Norm, claim.Norm, claim.Norm != 0},
		{"FinalNorm", cfg.FinalNorm, claim.FinalNorm, claim.FinalNorm},
		{"Positions", cfg.Positions, claim.Positions, claim.Positions != 0},
		{"Activation", cfg.Activation, claim.Activation, claim.Activation != 0},
		{"NoBias", cfg.NoBias, claim.NoBias, claim.NoBias},
		{"TiedHead", cfg.TiedHead, claim.TiedHead, claim.TiedHead},
		{"NormEpsilon", cfg.NormEpsilon, claim.NormEpsilon, claim.NormEpsilon != 0},
	}
	for _, fl := range fields {
		if fl.set && fl.got != fl.want {
			return fmt.Errorf("%w: %s is %v in the tensors, %v in the %s", ErrCheckpoint, fl.name, fl.got, fl.want, what)
		}
	}
	return nil
}

// TorchTensors returns the model's parameters in [TorchLayout], for
// PyTorch to load (examples/torchbridge/train.py): the inverse of
// [ImportTorch]. Write them with safetensors.WriteFile, with the
// JSON-encoded [Config] as metadata "config" so that the import needs no
// hint (as [Model.SaveTorch] does).
func (m *Model[F]) TorchTensors() []safetensors.Tensor {
	out, _ := m.foreignTensors(TorchLayout)
	return out
}

// GPT2Tensors returns the model's parameters in [GPT2Layout]: the inverse
// of [ImportGPT2]. It returns an error if the model is not GPT-2-shaped
// (pre-LayerNorm, final LayerNorm, learned positions, softmax attention,
// biases).
func (m *Model[F]) GPT2Tensors() ([]safetensors.Tensor, error) {
	c := m.cfg
	if c.Norm != PreNorm || !c.FinalNorm || c.Positions != LearnedPositions || c.Attention != SoftmaxAttention || c.NoBias {
		return nil, fmt.Errorf("%w: a model with %s norm (final %v), %s positions, %s attention and no-bias %v has no GPT-2 layout", icrl.ErrInvalid,
			c.Norm, c.FinalNorm, c.Positions, c.Attention, c.NoBias)
	}
	return m.foreignTensors(GPT2Layout)
}

func (m *Model[F]) foreignTensors(l Layout) ([]safetensors.Tensor, error) {
	out := make([]safetensors.Tensor, 0, len(m.params))
	for _, p := range m.params {
		fn, err := foreignName(l, p.Name, "")
		if err != nil {
			return nil, err
		}
		v, shape := p.Value, p.Shape
		if fn.transpose {
			in, o := p.Shape[0], p.Shape[1]
			v = make([]F, len(p.Value))
			for i := range in {
				for j := range o {
					v[j*in+i] = p.Value[i*o+j]
				}
			}
			shape = []int{o, in}
		}
		p2 := &Param[F]{Name: fn.name, Shape: shape, Value: v}
		out = append(out, tensorsOf("", []*Param[F]{p2}, false)...)
	}
	return out, nil
}

// SaveTorch writes the model's parameters in the given layout to the
// safetensors file path (atomically), with the configuration as metadata
// "config" and the layout as "layout", for PyTorch to load
// (examples/torchbridge/train.py reads both) and for [Import] to read back
// without a hint.
func (m *Model[F]) SaveTorch(path string, layout Layout) error {
	var ts []safetensors.Tensor
	var err error
	switch layout {
	case TorchLayout:
		if m.cfg.TiedHead {
			return fmt.Errorf("%w: a model with a tied head has no %s layout (examples/torchbridge/train.py has no tied head); save it in the %s layout", icrl.ErrInvalid, TorchLayout, GPT2Layout)
		}
		ts = m.TorchTensors()
	case GPT2Layout:
		ts, err = m.GPT2Tensors()
	default:
		err = fmt.Errorf("%w: unknown layout %d", icrl.ErrInvalid, int(layout))
	}
	if err != nil {
		return err
	}
	cfg, err := json.Marshal(m.cfg)
	if err != nil {
		return err
	}
	return safetensors.WriteFile(path, ts, map[string]string{"config": string(cfg), "layout": layout.String()})
}
