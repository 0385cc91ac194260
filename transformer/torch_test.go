package transformer

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

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
func fixtureLogits[F Float](t *testing.T, name string) float64 {
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
