package transformer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/safetensors"
)

// ImportGPT2Dir builds a model from a folder written by Hugging Face
// transformers' save_pretrained for a GPT-2 model (GPT2LMHeadModel, or
// GPT2Model with the in-context papers' read_out): the architecture comes
// from its config.json and the weights from its model.safetensors, with no
// hint. The config.json fields read are model_type ("gpt2"), n_layer,
// n_head, n_embd, n_inner (null: 4·n_embd), n_positions, vocab_size,
// layer_norm_epsilon, activation_function ("gelu_new" and
// "gelu_pytorch_tanh" are [GELUTanh], "gelu" is [GELU], "relu" is [ReLU]),
// tie_word_embeddings, and the flags scale_attn_weights,
// scale_attn_by_inverse_layer_idx and add_cross_attention, which must have
// GPT-2's values (true, false, false); other fields (dropout, token ids,
// generation settings) do not change the forward pass and are ignored.
//
// Without a read_out tensor the model's read-out is the token embedding
// ([Config.TiedHead]; logits over the vocabulary, as GPT2LMHeadModel
// computes them), which needs tie_word_embeddings. Weights of dtype F16,
// BF16, F32 or F64 are converted to F (see [Import]); save_pretrained
// writes F32, which a float64 model holds exactly.
//
// A missing, truncated or malformed config.json, a field of the wrong type
// or out of its domain, or one that the weights contradict, is an error
// wrapping [ErrCheckpoint] that names the field; so is a missing or
// malformed model.safetensors (the error also wraps os.ErrNotExist or
// safetensors.ErrInvalid). Sharded checkpoints
// (model.safetensors.index.json) and PyTorch pickles (pytorch_model.bin)
// are not read.
func ImportGPT2Dir[F tensor.Float](dir string) (*Model[F], error) {
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	hc, err := parseGPT2Config(raw)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, WeightsFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		for _, other := range []string{"model.safetensors.index.json", "pytorch_model.bin"} {
			if _, err := os.Stat(filepath.Join(dir, other)); err == nil {
				return nil, fmt.Errorf("%w: %s has %s but no %s: only single-file safetensors weights are read", ErrCheckpoint, dir, other, WeightsFile)
			}
		}
	}
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	m, err := importLayout[F](f, GPT2Layout, Config{Heads: hc.heads, Activation: hc.activation, NormEpsilon: hc.eps}, false)
	if err != nil {
		return nil, err
	}
	if err := hc.agree(m.cfg); err != nil {
		return nil, err
	}
	return m, nil
}

// gpt2Config is what ImportGPT2Dir reads from a config.json.
type gpt2Config struct {
	layers, heads, width, inner, positions, vocab int
	eps                                           float64
	activation                                    Activation
	tied                                          bool
}

// gpt2Field is one config.json field: its name and where its value goes.
type gpt2Field struct {
	name     string
	required bool
	decode   func(json.RawMessage) error
}

// parseGPT2Config reads a GPT-2 config.json. It reads the top-level
// fields one by one, so that a file cut short still yields the fields
// before the cut and the error names the first required field missing.
func parseGPT2Config(raw []byte) (gpt2Config, error) {
	hc := gpt2Config{tied: true}
	var modelType string
	scale, byLayer, cross := true, false, false
	positive := func(name string, dst *int) func(json.RawMessage) error {
		return func(v json.RawMessage) error {
			if err := json.Unmarshal(v, dst); err != nil || *dst < 1 {
				return fmt.Errorf("%s = %s is not a positive integer", name, v)
			}
			return nil
		}
	}
	flag := func(name string, dst *bool) func(json.RawMessage) error {
		return func(v json.RawMessage) error {
			if err := json.Unmarshal(v, dst); err != nil {
				return fmt.Errorf("%s = %s is not a boolean", name, v)
			}
			return nil
		}
	}
	fields := []gpt2Field{
		{"model_type", true, func(v json.RawMessage) error {
			if err := json.Unmarshal(v, &modelType); err != nil || modelType != "gpt2" {
				return fmt.Errorf("model_type = %s, want \"gpt2\"", v)
			}
			return nil
		}},
		{"n_layer", true, positive("n_layer", &hc.layers)},
		{"n_head", true, positive("n_head", &hc.heads)},
		{"n_embd", true, positive("n_embd", &hc.width)},
		{"n_positions", true, positive("n_positions", &hc.positions)},
		{"vocab_size", true, positive("vocab_size", &hc.vocab)},
		{"n_inner", false, func(v json.RawMessage) error {
			if string(v) == "null" {
				return nil
			}
			return positive("n_inner", &hc.inner)(v)
		}},
		{"layer_norm_epsilon", true, func(v json.RawMessage) error {
			if err := json.Unmarshal(v, &hc.eps); err != nil || !(hc.eps > 0) || math.IsInf(hc.eps, 0) {
				return fmt.Errorf("layer_norm_epsilon = %s is not a positive number", v)
			}
			return nil
		}},
		{"activation_function", true, func(v json.RawMessage) error {
			var name string
			_ = json.Unmarshal(v, &name)
			switch name {
			case "gelu_new", "gelu_pytorch_tanh":
				hc.activation = GELUTanh
			case "gelu":
				hc.activation = GELU
			case "relu":
				hc.activation = ReLU
			default:
				return fmt.Errorf("activation_function = %s is not one of \"gelu_new\", \"gelu_pytorch_tanh\", \"gelu\", \"relu\"", v)
			}
			return nil
		}},
		{"tie_word_embeddings", false, flag("tie_word_embeddings", &hc.tied)},
		{"scale_attn_weights", false, flag("scale_attn_weights", &scale)},
		{"scale_attn_by_inverse_layer_idx", false, flag("scale_attn_by_inverse_layer_idx", &byLayer)},
		{"add_cross_attention", false, flag("add_cross_attention", &cross)},
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return hc, fmt.Errorf("%w: config.json is empty", ErrCheckpoint)
	}
	values, cut := jsonFields(raw)
	for _, fd := range fields {
		v, ok := values[fd.name]
		switch {
		case !ok && fd.required && cut != nil:
			return hc, fmt.Errorf("%w: config.json: %v: %s is missing", ErrCheckpoint, cut, fd.name)
		case !ok && fd.required:
			return hc, fmt.Errorf("%w: config.json: %s is missing", ErrCheckpoint, fd.name)
		case !ok:
			continue
		}
		if err := fd.decode(v); err != nil {
			return hc, fmt.Errorf("%w: config.json: %w", ErrCheckpoint, err)
		}
	}
	if cut != nil {
		return hc, fmt.Errorf("%w: config.json: %v", ErrCheckpoint, cut)
	}
	switch {
	case !scale:
		return hc, fmt.Errorf("%w: config.json: scale_attn_weights = false is not supported (attention scores are scaled by 1/√d_head)", ErrCheckpoint)
	case byLayer:
		return hc, fmt.Errorf("%w: config.json: scale_attn_by_inverse_layer_idx = true is not supported", ErrCheckpoint)
	case cross:
		return hc, fmt.Errorf("%w: config.json: add_cross_attention = true is not supported (decoder-only models)", ErrCheckpoint)
	case hc.width%hc.heads != 0:
		return hc, fmt.Errorf("%w: config.json: n_head = %d does not divide n_embd = %d", ErrCheckpoint, hc.heads, hc.width)
	}
	if hc.inner == 0 {
		hc.inner = 4 * hc.width
	}
	return hc, nil
}

// jsonFields returns the top-level fields of the JSON object raw, as many
// as could be read, and, if the object could not be read to its end, an
// error saying where and after which field it broke off.
func jsonFields(raw []byte) (map[string]json.RawMessage, error) {
	values := map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	last := ""
	broke := func(err error) error {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		if last == "" {
			return fmt.Errorf("not a JSON object (at byte %d: %v)", dec.InputOffset(), err)
		}
		return fmt.Errorf("cut short or malformed at byte %d, after field %s (%v)", dec.InputOffset(), last, err)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		if err == nil {
			err = fmt.Errorf("found %v", tok)
		}
		return values, broke(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return values, broke(err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return values, broke(err)
		}
		values[key], last = v, key
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		if err == nil {
			err = fmt.Errorf("found %v", tok)
		}
		return values, broke(err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("found %v after the object", tok)
		}
		return values, broke(err)
	}
	return values, nil
}

// agree checks the configuration the weights gave against config.json,
// naming the config.json field that disagrees.
func (hc gpt2Config) agree(c Config) error {
	for _, fd := range []struct {
		name        string
		json, model int
		what        string
	}{
		{"n_layer", hc.layers, c.Layers, "blocks"},
		{"n_embd", hc.width, c.Width, "columns in wte"},
		{"n_inner", hc.inner, c.FeedForward, "columns in h.0.mlp.c_fc"},
		{"n_positions", hc.positions, c.MaxLen, "rows in wpe"},
		{"vocab_size", hc.vocab, c.Vocab, "rows in wte"},
	} {
		if fd.json != fd.model {
			return fmt.Errorf("%w: config.json: %s = %d, but the weights have %d %s", ErrCheckpoint, fd.name, fd.json, fd.model, fd.what)
		}
	}
	if c.TiedHead && !hc.tied {
		return fmt.Errorf("%w: config.json: tie_word_embeddings = false, but the weights have no lm_head.weight or read_out", ErrCheckpoint)
	}
	return nil
}
