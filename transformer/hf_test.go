package transformer

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/safetensors"
)

// The fixtures of testdata/hf-gpt2 (see its README) are tiny random GPT-2
// models written by Hugging Face transformers 5.17 with PyTorch 2.11, and
// the logits transformers computed for them in float64 from the float32
// weights.
const hfDir = "testdata/hf-gpt2"

// hfLogits is testdata/hf-gpt2/logits.json.
type hfLogits struct {
	Tokens []int `json:"tokens"`
	Cases  map[string]struct {
		Kind   string      `json:"kind"`
		Logits [][]float64 `json:"logits"`
	} `json:"cases"`
}

func readHFLogits(t *testing.T) hfLogits {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(hfDir, "logits.json"))
	if err != nil {
		t.Fatal(err)
	}
	var l hfLogits
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Cases) != 4 || len(l.Tokens) == 0 {
		t.Fatalf("logits.json has %d cases and %d tokens", len(l.Cases), len(l.Tokens))
	}
	return l
}

// importHF imports fixture case name into a model of float type F: a
// save_pretrained folder by ImportGPT2Dir, a backbone-plus-read-out state
// dict by ImportGPT2 with the hint that its missing config.json would give.
func importHF[F tensor.Float](t *testing.T, name string) *Model[F] {
	t.Helper()
	if strings.HasPrefix(name, "lmhead_") {
		m, err := ImportGPT2Dir[F](filepath.Join(hfDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	f, err := safetensors.ReadFile(filepath.Join(hfDir, name+".safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	act := GELU
	if strings.HasSuffix(name, "gelu_new") {
		act = GELUTanh
	}
	m, err := ImportGPT2[F](f, Config{Heads: 4, Activation: act, NormEpsilon: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// maxDiff returns the largest |got − want| over the logits, got row-major.
func maxDiff[F tensor.Float](got []F, want [][]float64) float64 {
	d := 0.0
	w := len(want[0])
	for i := range want {
		for j := range want[i] {
			d = max(d, math.Abs(float64(got[i*w+j])-want[i][j]))
		}
	}
	return d
}

// TestHFGPT2Fixtures imports every fixture in float32 and float64 and
// checks its logits against transformers' within 1e-5 (float32) and 1e-9
// (float64), the KV-cached Session against them too, and the configuration
// read from config.json and the tensors.
func TestHFGPT2Fixtures(t *testing.T) {
	ref := readHFLogits(t)
	for name, c := range ref.Cases {
		t.Run(name, func(t *testing.T) {
			m64 := importHF[float64](t, name)
			m32 := importHF[float32](t, name)
			cfg := m64.Config()
			wantAct, wantOut, tied := GELU, 5, false
			if strings.HasSuffix(name, "gelu_new") {
				wantAct = GELUTanh
			}
			if strings.HasPrefix(name, "lmhead_") {
				wantOut, tied = 24, true
			}
			if cfg.Layers != 2 || cfg.Heads != 4 || cfg.Width != 32 || cfg.FeedForward != 128 || cfg.Vocab != 24 || cfg.MaxLen != 32 ||
				cfg.Activation != wantAct || cfg.Outputs != wantOut || cfg.TiedHead != tied || !cfg.FinalNorm || cfg.NormEpsilon != 1e-5 {
				t.Fatalf("config %+v", cfg)
			}
			if len(c.Logits) != len(ref.Tokens) || len(c.Logits[0]) != wantOut {
				t.Fatalf("reference logits are %d×%d", len(c.Logits), len(c.Logits[0]))
			}
			seq64 := []Sequence[float64]{{Tokens: ref.Tokens}}
			out64, err := m64.Forward(seq64)
			if err != nil {
				t.Fatal(err)
			}
			d64 := maxDiff(out64[0], c.Logits)
			if d64 > 1e-9 {
				t.Errorf("float64 logits differ from transformers' by %.3g, want ≤ 1e-9", d64)
			}
			out32, err := m32.Forward([]Sequence[float32]{{Tokens: ref.Tokens}})
			if err != nil {
				t.Fatal(err)
			}
			d32 := maxDiff(out32[0], c.Logits)
			if d32 > 1e-5 {
				t.Errorf("float32 logits differ from transformers' by %.3g, want ≤ 1e-5", d32)
			}
			t.Logf("largest logit difference from transformers': %.2g (float64), %.2g (float32)", d64, d32)
			s := m32.NewSession()
			var online []float32
			for _, tok := range ref.Tokens {
				l, err := s.AppendToken(tok)
				if err != nil {
					t.Fatal(err)
				}
				online = append(online, l...)
			}
			if d := maxDiff(online, c.Logits); d > 1e-5 {
				t.Errorf("KV-cached float32 logits differ from transformers' by %.3g, want ≤ 1e-5", d)
			}
		})
	}
}

// roundBF16 returns the bfloat16 bits nearest to v (ties to even).
func roundBF16(v float32) uint16 {
	b := math.Float32bits(v)
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// TestHFGPT2BFloat16 writes a bfloat16 copy of a save_pretrained folder
// (how most checkpoints are published) and checks that it imports into
// float32 and float64 models with every weight equal to its bfloat16
// rounding, so within 2⁻⁸ relative of the float32 original (bfloat16's
// unit roundoff, with 8 significant bits), and that the
// model still computes transformers' logits to within that rounding's
// effect.
func TestHFGPT2BFloat16(t *testing.T) {
	src := filepath.Join(hfDir, "lmhead_gelu_new")
	f, err := safetensors.ReadFile(filepath.Join(src, WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var half []safetensors.Tensor
	rounded := map[string][]float32{}
	for _, tn := range f.Tensors() {
		v, err := tn.AsFloat32()
		if err != nil {
			t.Fatal(err)
		}
		data := make([]byte, 2*len(v))
		r := make([]float32, len(v))
		for i, x := range v {
			b := roundBF16(x)
			data[2*i], data[2*i+1] = byte(b), byte(b>>8)
			r[i] = safetensors.BFloat16(b)
			if math.Abs(float64(r[i]-x)) > 0x1p-8*math.Abs(float64(x)) {
				t.Fatalf("%s[%d]: bfloat16 %v of %v is off by more than 2⁻⁸", tn.Name, i, r[i], x)
			}
		}
		rounded[tn.Name] = r
		half = append(half, safetensors.Tensor{Name: tn.Name, DType: safetensors.BF16, Shape: tn.Shape, Data: data})
	}
	if err := safetensors.WriteFile(filepath.Join(dir, WeightsFile), half, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	cfgRaw, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfgRaw, 0o644); err != nil {
		t.Fatal(err)
	}
	m32, err := ImportGPT2Dir[float32](dir)
	if err != nil {
		t.Fatal(err)
	}
	m64, err := ImportGPT2Dir[float64](dir)
	if err != nil {
		t.Fatal(err)
	}
	emb := rounded["transformer.wte.weight"]
	for i, v := range m32.Param("embed.tokens").Value {
		if v != emb[i] || m64.Param("embed.tokens").Value[i] != float64(emb[i]) {
			t.Fatalf("embed.tokens[%d] = %v (float32), %v (float64), want the bfloat16 value %v", i, v, m64.Param("embed.tokens").Value[i], emb[i])
		}
	}
	up := rounded["transformer.h.1.mlp.c_fc.weight"]
	for i, v := range m64.Param("layers.1.mlp.up.weight").Value {
		if v != float64(up[i]) {
			t.Fatalf("layers.1.mlp.up.weight[%d] = %v, want the bfloat16 value %v", i, v, up[i])
		}
	}
	ref := readHFLogits(t)
	out, err := m64.Forward([]Sequence[float64]{{Tokens: ref.Tokens}})
	if err != nil {
		t.Fatal(err)
	}
	// Weights rounded by up to 2⁻⁸ move these logits (of size about 1) by
	// a few hundredths at most; a wrong conversion moves them by far more.
	if d := maxDiff(out[0], ref.Cases["lmhead_gelu_new"].Logits); d > 0.05 || d == 0 {
		t.Errorf("bfloat16 model's logits differ from the float32 model's by %.3g, want in (0, 0.05]", d)
	}
}

// writeHFCopy copies the lmhead_gelu_new fixture to a temporary folder
// with config.json replaced by cfg.
func writeHFCopy(t *testing.T, cfg []byte) string {
	t.Helper()
	dir := t.TempDir()
	w, err := os.ReadFile(filepath.Join(hfDir, "lmhead_gelu_new", WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, WeightsFile), w, 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg != nil {
		if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestHFGPT2ConfigErrors checks that a config.json cut short at any byte,
// or with a field changed to a wrong type, a value out of its domain or
// one the weights contradict, is an error wrapping ErrCheckpoint that
// names the field.
func TestHFGPT2ConfigErrors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(hfDir, "lmhead_gelu_new", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	fields := []string{"model_type", "n_layer", "n_head", "n_embd", "n_positions", "vocab_size", "n_inner",
		"layer_norm_epsilon", "activation_function", "tie_word_embeddings", "scale_attn_weights"}
	for cut := range len(raw) - 2 { // the last bytes are "}\n"
		_, err := parseGPT2Config(raw[:cut])
		if !errors.Is(err, ErrCheckpoint) {
			t.Fatalf("config.json cut at byte %d: %v, want ErrCheckpoint", cut, err)
		}
		named := cut == 0 && strings.HasSuffix(err.Error(), "config.json is empty") || cut < 2 && strings.Contains(err.Error(), "not a JSON object")
		for _, f := range fields {
			named = named || strings.Contains(err.Error(), f)
		}
		if !named {
			t.Fatalf("config.json cut at byte %d: %q names no field", cut, err)
		}
	}
	if _, err := ImportGPT2Dir[float32](writeHFCopy(t, raw[:len(raw)/2])); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "is missing") {
		t.Errorf("ImportGPT2Dir of a truncated config.json: %v", err)
	}
	edit := func(from, to string) []byte {
		if !strings.Contains(string(raw), from) {
			t.Fatalf("config.json has no %q", from)
		}
		return []byte(strings.Replace(string(raw), from, to, 1))
	}
	for _, c := range []struct {
		name string
		cfg  []byte
		want string
	}{
		{"no config.json", nil, "config.json: no such file"},
		{"layers", edit(`"n_layer": 2`, `"n_layer": 3`), "n_layer = 3, but the weights have 2 blocks"},
		{"width", edit(`"n_embd": 32`, `"n_embd": 64`), "n_embd = 64, but the weights have 32"},
		{"heads", edit(`"n_head": 4`, `"n_head": 5`), "n_head = 5 does not divide n_embd = 32"},
		{"heads type", edit(`"n_head": 4`, `"n_head": "4"`), `n_head = "4" is not a positive integer`},
		{"zero layers", edit(`"n_layer": 2`, `"n_layer": 0`), "n_layer = 0 is not a positive integer"},
		{"inner", edit(`"n_inner": null`, `"n_inner": 100`), "n_inner = 100, but the weights have 128"},
		{"positions", edit(`"n_positions": 32`, `"n_positions": 16`), "n_positions = 16, but the weights have 32"},
		{"vocab", edit(`"vocab_size": 24`, `"vocab_size": 50257`), "vocab_size = 50257, but the weights have 24"},
		{"epsilon", edit(`"layer_norm_epsilon": 1e-05`, `"layer_norm_epsilon": -1`), "layer_norm_epsilon = -1 is not a positive number"},
		{"activation", edit(`"activation_function": "gelu_new"`, `"activation_function": "swish"`), `activation_function = "swish"`},
		{"model type", edit(`"model_type": "gpt2"`, `"model_type": "llama"`), `model_type = "llama", want "gpt2"`},
		{"layer scaling", edit(`"scale_attn_by_inverse_layer_idx": false`, `"scale_attn_by_inverse_layer_idx": true`), "scale_attn_by_inverse_layer_idx = true"},
		{"untied", edit(`"tie_word_embeddings": true`, `"tie_word_embeddings": false`), "tie_word_embeddings = false"},
		{"missing field", edit(`"n_layer": 2,`, ``), "config.json: n_layer is missing"},
		{"trailing garbage", append(append([]byte(nil), raw...), '{'), "config.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ImportGPT2Dir[float32](writeHFCopy(t, c.cfg))
			if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want ErrCheckpoint naming %q", err, c.want)
			}
		})
	}
}

// TestHFGPT2LMHead checks lm_head.weight: accepted when it equals the
// token embedding (a tied head saved twice), an error naming it when it
// does not, and a sharded folder is an error naming its index.
func TestHFGPT2LMHead(t *testing.T) {
	src := filepath.Join(hfDir, "lmhead_gelu")
	f, err := safetensors.ReadFile(filepath.Join(src, WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	cfgRaw, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	wte, _ := f.Tensor("transformer.wte.weight")
	for _, untied := range []bool{false, true} {
		head := wte
		head.Name = lmHead
		if untied {
			head.Data = append([]byte(nil), wte.Data...)
			head.Data[5] ^= 1
		}
		dir := t.TempDir()
		if err := safetensors.WriteFile(filepath.Join(dir, WeightsFile), append(f.Tensors(), head), nil); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "config.json"), cfgRaw, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ImportGPT2Dir[float64](dir)
		switch {
		case !untied && err != nil:
			t.Errorf("tied lm_head.weight saved twice: %v", err)
		case untied && (!errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), `"lm_head.weight" differs from the token embedding`)):
			t.Errorf("untied lm_head.weight: %v", err)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfgRaw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors.index.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ImportGPT2Dir[float32](dir); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "model.safetensors.index.json") {
		t.Errorf("sharded folder: %v", err)
	}
}

// TestTiedHeadSaveTorch checks that a tied-head model round-trips through
// the GPT-2 layout (the read-out inferred from the missing read_out) and
// is refused in the PyTorch layout, which has no tied head.
func TestTiedHeadSaveTorch(t *testing.T) {
	m := importHF[float32](t, "lmhead_gelu")
	dir := t.TempDir()
	if err := m.SaveTorch(filepath.Join(dir, "t.safetensors"), TorchLayout); !errors.Is(err, icrl.ErrInvalid) || !strings.Contains(err.Error(), "tied head") {
		t.Errorf("SaveTorch(TorchLayout) of a tied model: %v", err)
	}
	path := filepath.Join(dir, "g.safetensors")
	if err := m.SaveTorch(path, GPT2Layout); err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ImportGPT2[float32](f, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Config() != m.Config() || !sameParams(m, back) {
		t.Errorf("GPT-2 layout round trip: config %+v, want %+v", back.Config(), m.Config())
	}
}

// TestHFGPT2WeightErrors: a folder whose weights are missing, malformed,
// short of the token embedding, carry a stray block tensor or a transposed
// attention weight is an error wrapping ErrCheckpoint that names what is
// wrong.
func TestHFGPT2WeightErrors(t *testing.T) {
	src := filepath.Join(hfDir, "lmhead_gelu")
	f, err := safetensors.ReadFile(filepath.Join(src, WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	cfgRaw, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	folder := func(tensors []safetensors.Tensor, raw []byte) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.json"), cfgRaw, 0o644); err != nil {
			t.Fatal(err)
		}
		switch {
		case raw != nil:
			err = os.WriteFile(filepath.Join(dir, WeightsFile), raw, 0o644)
		case tensors != nil:
			err = safetensors.WriteFile(filepath.Join(dir, WeightsFile), tensors, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
	without := func(name string) []safetensors.Tensor {
		var out []safetensors.Tensor
		for _, x := range f.Tensors() {
			if x.Name != name {
				out = append(out, x)
			}
		}
		return out
	}
	attn, _ := f.Tensor("transformer.h.0.attn.c_attn.weight")
	transposed := attn
	transposed.Shape = []int{attn.Shape[1], attn.Shape[0]}
	stray := safetensors.FromFloat32("transformer.h.7.mlp.c_fc.weight", []int{2, 2}, make([]float32, 4))
	for _, c := range []struct {
		name string
		dir  string
		also error
		want string
	}{
		{"no weights", folder(nil, nil), os.ErrNotExist, "model.safetensors"},
		{"malformed weights", folder(nil, []byte("not a safetensors file")), safetensors.ErrInvalid, ""},
		{"no token embedding", folder(without("transformer.wte.weight"), nil), nil, `neither "transformer.wte.weight"`},
		{"stray block tensor", folder(append(f.Tensors(), stray), nil), nil, `"transformer.h.7.mlp.c_fc.weight"`},
		{"transposed attention", folder(append(without(attn.Name), transposed), nil), nil, `"transformer.h.0.attn.c_attn.weight" has shape`},
	} {
		_, err := ImportGPT2Dir[float32](c.dir)
		if !errors.Is(err, ErrCheckpoint) || (c.also != nil && !errors.Is(err, c.also)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrCheckpoint (and %v) naming %q", c.name, err, c.also, c.want)
		}
	}
}

// TestImportGPT2DefaultActivation: a GPT-2 checkpoint imported with a hint
// that names no activation gets GPT-2's gelu_new, not ReLU (the hint's
// zero value), and computes the same logits as the explicit import.
func TestImportGPT2DefaultActivation(t *testing.T) {
	f, err := safetensors.ReadFile(filepath.Join(hfDir, "backbone_readout_gelu_new.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ImportGPT2[float64](f, Config{Heads: 4, NormEpsilon: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if m.Config().Activation != GELUTanh {
		t.Errorf("activation %v, want GELUTanh", m.Config().Activation)
	}
	want := importHF[float64](t, "backbone_readout_gelu_new")
	seq := []Sequence[float64]{{Tokens: []int{1, 2, 3}}}
	a, err := m.Forward(seq)
	if err != nil {
		t.Fatal(err)
	}
	b, err := want.Forward(seq)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a[0], b[0]) {
		t.Error("logits differ from the explicit gelu_new import")
	}
}
