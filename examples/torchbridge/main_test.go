package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/transformer"
	"github.com/icrl-go/icrl/transformer/dataset"
)

// TestExportEval exports a small dataset (one file and shards), then
// evaluates a model written in the torch layout by Go, standing in for
// PyTorch's weights, so that the test needs no Python.
func TestExportEval(t *testing.T) {
	dir := t.TempDir()
	small := []string{"-out", dir, "-d", "2", "-arms", "3", "-T", "6", "-traj", "10", "-runs", "3"}
	var out bytes.Buffer
	if err := run(context.Background(), append(small, "export"), &out); err != nil {
		t.Fatal(err)
	}
	exs, meta, err := dataset.ReadFile[float32](filepath.Join(dir, "data.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	// Width d·A + d + A + 2 = 13; 2(T−1)+1 = 11 positions a sequence.
	if len(exs) != 10 || meta.Width != 13 || meta.Outputs != 3 || meta.Positions != 110 || meta.Params["T"] != "6" {
		t.Fatalf("dataset: %d examples, meta %+v", len(exs), meta)
	}
	if err := run(context.Background(), append(small, "-shard", "4", "export"), &out); err != nil {
		t.Fatal(err)
	}
	ix, err := dataset.ReadIndex(filepath.Join(dir, "data.json"))
	if err != nil || len(ix.Shards) != 3 {
		t.Fatalf("shards: %v, %+v", err, ix)
	}
	m, err := transformer.New[float32](transformer.Config{Layers: 1, Heads: 2, Width: 8, FeedForward: 16, Features: 13, Outputs: 3, MaxLen: 13},
		rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SaveTorch(filepath.Join(dir, "weights.safetensors"), transformer.TorchLayout); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run(context.Background(), append(small, "eval"), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| LinUCB |", "| transformer (trained in PyTorch) |", "torch layout, 1 layers, width 8"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("eval output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run(context.Background(), append(small, "fly"), &out); err == nil {
		t.Fatal("unknown command: no error")
	}
	if err := run(context.Background(), []string{"-out", dir, "-arms", "1", "export"}, &out); err == nil {
		t.Fatal("one arm: no error")
	}
}
