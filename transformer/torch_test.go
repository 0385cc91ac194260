package transformer

import (
	"bytes"
	"errors"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/safetensors"
)

// The fixtures in testdata/torch were written by PyTorch with
//
//	python3 examples/torchbridge/train.py fixtures transformer/testdata/torch
//
// (Debian's torch 1.13): small models (2,600–7,000 parameters) in the
// torch and GPT-2 layouts, with inputs and the logits PyTorch computed.
var torchFixtures = []string{
	"torch_pre_tokens", "torch_post_features", "torch_pre_features_f64", "torch_relu_nonorm",
	"gpt2_features", "gpt2_tokens",
}

func readFixture(t *testing.T, name string) (*safetensors.File, *safetensors.File, Layout) {
	t.Helper()
	f, err := safetensors.ReadFile(filepath.Join("testdata", "torch", name+".safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	io, err := safetensors.ReadFile(filepath.Join("testdata", "torch", name+"_io.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	layout := TorchLayout
	if f.Metadata["layout"] == "gpt2" {
		layout = GPT2Layout
	}
	return f, io, layout
}

// fixtureLogits imports a fixture's model as F and returns the largest
// difference between its logits and PyTorch's.
func fixtureLogits[F tensor.Float](t *testing.T, name string) float64 {
	t.Helper()
	f, io, layout := readFixture(t, name)
	m, err := Import[F](f, layout, Config{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	in, _ := io.Tensor("input")
	want, _ := io.Tensor("logits")
	wantV, err := want.AsFloat64()
	if err != nil {
		t.Fatal(err)
	}
	B, T := in.Shape[0], in.Shape[1]
	seqs := make([]Sequence[F], B)
	if in.DType == safetensors.I64 {
		toks, _ := in.AsInt64()
		for b := range seqs {
			seqs[b].Tokens = make([]int, T)
			for i := range T {
				seqs[b].Tokens[i] = int(toks[b*T+i])
			}
		}
	} else {
		x, _ := in.AsFloat64()
		W := in.Shape[2]
		for b := range seqs {
			seqs[b].Features = make([]F, T*W)
			for i := range T * W {
				seqs[b].Features[i] = F(x[b*T*W+i])
			}
		}
	}
	got, err := m.Forward(seqs)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for b := range B {
		for i, v := range got[b] {
			worst = max(worst, math.Abs(float64(v)-wantV[b*len(got[b])+i]))
		}
	}
	return worst
}

func TestImportMatchesPyTorch(t *testing.T) {
	for _, name := range torchFixtures {
		if strings.HasSuffix(name, "_f64") {
			d := fixtureLogits[float64](t, name)
			t.Logf("%s: largest difference %.3g", name, d)
			if d > 1e-9 {
				t.Errorf("%s: logits differ from PyTorch's by %.3g (float64), want ≤ 1e-9", name, d)
			}
			continue
		}
		d := fixtureLogits[float32](t, name)
		t.Logf("%s: largest difference %.3g", name, d)
		if d > 1e-5 {
			t.Errorf("%s: logits differ from PyTorch's by %.3g (float32), want ≤ 1e-5", name, d)
		}
	}
}

// editFixture returns the tensors and metadata of a fixture after edit.
func editFixture(t *testing.T, name string, edit func(ts map[string]safetensors.Tensor, md map[string]string)) *safetensors.File {
	t.Helper()
	f, _, _ := readFixture(t, name)
	ts := map[string]safetensors.Tensor{}
	for _, tn := range f.Tensors() {
		ts[tn.Name] = tn
	}
	md := map[string]string{}
	for k, v := range f.Metadata {
		md[k] = v
	}
	edit(ts, md)
	var list []safetensors.Tensor
	for _, tn := range ts {
		list = append(list, tn)
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, list, md); err != nil {
		t.Fatal(err)
	}
	out, err := safetensors.ReadBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportRejects(t *testing.T) {
	cases := []struct {
		name, fixture string
		layout        Layout
		hint          Config
		edit          func(ts map[string]safetensors.Tensor, md map[string]string)
		wants         string
	}{
		{"missing tensor", "torch_pre_tokens", TorchLayout, Config{}, func(ts map[string]safetensors.Tensor, _ map[string]string) {
			delete(ts, "layers.1.mlp.down.bias")
		}, `tensor "layers.1.mlp.down.bias" (parameter "layers.1.mlp.down.bias") is missing`},
		{"wrong shape", "torch_pre_tokens", TorchLayout, Config{}, func(ts map[string]safetensors.Tensor, _ map[string]string) {
			w := ts["layers.1.mlp.down.weight"]
			w.Shape = []int{w.Shape[1], w.Shape[0]} // stored [in, out] by mistake
			ts[w.Name] = w
		}, `tensor "layers.1.mlp.down.weight" has shape [32 16], the model needs [16 32]`},
		{"wrong dtype", "torch_pre_tokens", TorchLayout, Config{}, func(ts map[string]safetensors.Tensor, _ map[string]string) {
			w := ts["head.bias"]
			ts["head.bias"] = safetensors.FromInt64("head.bias", w.Shape, make([]int64, w.Shape[0]))
		}, `tensor "head.bias" has dtype I64, the model needs a float`},
		{"extra tensor", "torch_pre_tokens", TorchLayout, Config{}, func(ts map[string]safetensors.Tensor, _ map[string]string) {
			ts["layers.0.attn.extra"] = safetensors.FromFloat32("layers.0.attn.extra", []int{1}, []float32{0})
		}, `tensor "layers.0.attn.extra" is not a parameter`},
		{"layout", "gpt2_tokens", TorchLayout, Config{}, nil, "no tensor of a block (layers.0.…)"},
		{"hint disagrees", "torch_post_features", TorchLayout, Config{Heads: 4}, nil, "Heads is 2 in the tensors, 4 in the hint"},
		{"metadata disagrees", "torch_pre_tokens", TorchLayout, Config{}, func(_ map[string]safetensors.Tensor, md map[string]string) {
			md["config"] = strings.Replace(md["config"], `"feed_forward": 32`, `"feed_forward": 64`, 1)
		}, "FeedForward is 32 in the tensors, 64 in the configuration"},
		{"no heads", "torch_pre_tokens", TorchLayout, Config{}, func(_ map[string]safetensors.Tensor, md map[string]string) {
			delete(md, "config")
		}, "number of heads is not in the tensors"},
		{"huge hint", "torch_pre_tokens", TorchLayout, Config{Width: 1 << 40}, nil, "Width is 16 in the tensors"},
	}
	for _, c := range cases {
		f, _, _ := readFixture(t, c.fixture)
		if c.edit != nil {
			f = editFixture(t, c.fixture, c.edit)
		}
		_, err := Import[float32](f, c.layout, c.hint)
		if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), c.wants) {
			t.Errorf("%s: got %v, want ErrCheckpoint with %q", c.name, err, c.wants)
		}
	}
	// Without metadata, a hint with the heads suffices.
	f := editFixture(t, "torch_pre_tokens", func(_ map[string]safetensors.Tensor, md map[string]string) { delete(md, "config") })
	if _, err := ImportTorch[float32](f, Config{Heads: 2}); err != nil {
		t.Fatalf("hint with heads: %v", err)
	}
}

// TestExportRoundTrip writes models in both layouts and imports them back
// bit-exactly.
func TestExportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"gpt2_features", "torch_post_features", "torch_relu_nonorm"} {
		f, _, layout := readFixture(t, name)
		m, err := Import[float32](f, layout, Config{})
		if err != nil {
			t.Fatal(err)
		}
		layouts := []Layout{TorchLayout}
		if layout == GPT2Layout {
			layouts = append(layouts, GPT2Layout)
		} else if _, err := m.GPT2Tensors(); err == nil {
			t.Errorf("%s: GPT2Tensors of a non-GPT-2 model: no error", name)
		}
		for _, l := range layouts {
			path := filepath.Join(dir, name+"-"+l.String()+".safetensors")
			if err := m.SaveTorch(path, l); err != nil {
				t.Fatal(err)
			}
			g, err := safetensors.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Import[float32](g, l, Config{})
			if err != nil {
				t.Fatalf("%s in %s: %v", name, l, err)
			}
			if back.Config() != m.Config() {
				t.Fatalf("%s in %s: config %+v, want %+v", name, l, back.Config(), m.Config())
			}
			for i, p := range m.Params() {
				q := back.Params()[i]
				for j := range p.Value {
					if math.Float32bits(p.Value[j]) != math.Float32bits(q.Value[j]) {
						t.Fatalf("%s in %s: %s[%d] is %v, want %v", name, l, p.Name, j, q.Value[j], p.Value[j])
					}
				}
			}
		}
		// The same file as the fixture, in its own layout.
		if layout == TorchLayout {
			ts := m.TorchTensors()
			for _, tn := range ts {
				orig, ok := f.Tensor(tn.Name)
				if !ok || !bytes.Equal(orig.Data, tn.Data) {
					t.Fatalf("%s: exported tensor %q differs from PyTorch's", name, tn.Name)
				}
			}
		}
	}
}

// TestImportGPT2Prefixed reads a GPT-2 checkpoint saved from a wrapper
// module (names under "transformer.", as GPT2LMHeadModel and DPT save
// them) with GPT-2's causal-mask buffers, which are ignored.
func TestImportGPT2Prefixed(t *testing.T) {
	f, _, _ := readFixture(t, "gpt2_tokens")
	want, err := ImportGPT2[float32](f, Config{})
	if err != nil {
		t.Fatal(err)
	}
	g := editFixture(t, "gpt2_tokens", func(ts map[string]safetensors.Tensor, _ map[string]string) {
		renamed := map[string]safetensors.Tensor{}
		for name, tn := range ts {
			if !strings.HasPrefix(name, "read_") {
				tn.Name = "transformer." + name
			}
			renamed[tn.Name] = tn
		}
		clear(ts)
		maps.Copy(ts, renamed)
		ts["transformer.h.0.attn.bias"] = safetensors.Tensor{Name: "transformer.h.0.attn.bias", DType: safetensors.BOOL, Shape: []int{1}, Data: []byte{1}}
	})
	got, err := ImportGPT2[float32](g, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range want.Params() {
		if !slices.Equal(p.Value, got.Params()[i].Value) {
			t.Fatalf("%s differs with the prefix", p.Name)
		}
	}
}
