package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainFLOPs checks the FLOP count against the formula worked by hand
// for one token: per layer 2·64·192 + 2·64·64 + 4·64·256 + 2·1·2·64 =
// 98,560, two layers plus the read-out 2·64·8, times 3 for the backward
// pass: 594,432; and its scaling in the batch.
func TestTrainFLOPs(t *testing.T) {
	if got := trainFLOPs(peerConfig, 1, 1); got != 594432 {
		t.Fatalf("trainFLOPs(1, 1) = %v, want 594432", got)
	}
	if a, b := trainFLOPs(peerConfig, 4, 40), trainFLOPs(peerConfig, 1, 40); a != 4*b {
		t.Fatalf("trainFLOPs is not linear in the batch: %v, %v", a, b)
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-threads", "1, 2", "-sizes", "8x32,16x40", "-rounds", "2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.threads) != 2 || o.threads[1] != 2 || len(o.sizes) != 2 || o.sizes[1] != [2]int{16, 40} || o.rounds != 2 || o.steps != 20 {
		t.Fatalf("options %+v", o)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-threads", "0"}, `bad thread count "0"`},
		{[]string{"-sizes", "8by32"}, `bad size "8by32"`},
		{[]string{"-sizes", "8x2000"}, `bad size "8x2000"`},
		{[]string{"-rounds", "0"}, "-rounds = 0"},
		{[]string{"extra"}, "unexpected arguments"},
	} {
		if _, err := parseFlags(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %q", c.args, err, c.want)
		}
	}
}

// TestRunWithoutPeer runs a tiny measurement with a missing peer script:
// the Go side is measured and reported, PyTorch's cells are dashes.
func TestRunWithoutPeer(t *testing.T) {
	o, err := parseFlags([]string{"-peer", "/nonexistent/peer.py", "-threads", "1", "-sizes", "2x8", "-rounds", "1", "-steps", "1", "-play"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(o, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"GEMM peak (float32, 512³, 1 thread(s))", "PyTorch not run: no peer script", "| 2 × 8 |", "| 8 |"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

// TestParseTorch reads the peer script's lines, skipping other output,
// and rejects a line whose number does not parse.
func TestParseTorch(t *testing.T) {
	out := "warning: something\n" +
		"torch 2.11.0+cu130 sdpa cpu threads=16 B=64 T=256: 337593 tokens/s\n" +
		"torch 2.11.0+cu130 encoder cuda threads=1 B=8 T=32: 50123 tokens/s\n"
	res, err := parseTorch(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []torchResult{
		{version: "torch 2.11.0+cu130", impl: "sdpa", device: "cpu", threads: 16, b: 64, t: 256, tokens: 337593},
		{version: "torch 2.11.0+cu130", impl: "encoder", device: "cuda", threads: 1, b: 8, t: 32, tokens: 50123},
	}
	if len(res) != len(want) || res[0] != want[0] || res[1] != want[1] {
		t.Fatalf("parseTorch = %+v, want %+v", res, want)
	}
	if _, err := parseTorch("torch 2 sdpa cpu threads=99999999999999999999 B=1 T=1: 5 tokens/s"); err == nil {
		t.Error("an out-of-range thread count was accepted")
	}
}

// TestReplay rewrites the table from a saved log: the best of each side
// over rounds and threads, the implementation of PyTorch's best, the
// ratio and both sides' scaling; a log without measurements is an error.
func TestReplay(t *testing.T) {
	log := "GEMM peak (float32, 512³, 1 thread(s)): 100.0 GFLOP/s\n" +
		"GEMM peak (float32, 512³, 2 thread(s)): 150.0 GFLOP/s\n" +
		"round 1  Go       B=2 T=8 threads=1: 1000 tokens/s\n" +
		"round 1  Go       B=2 T=8 threads=2: 1500 tokens/s\n" +
		"round 1  PyTorch  B=2 T=8 threads=1: 400 tokens/s (encoder cpu, torch 2.11.0)\n" +
		"round 1  PyTorch  B=2 T=8 threads=2: 700 tokens/s (sdpa cpu, torch 2.11.0)\n" +
		"round 2  Go       B=2 T=8 threads=2: 1800 tokens/s\n" +
		"round 2  PyTorch  B=2 T=8 threads=2: 600 tokens/s (encoder cpu, torch 2.11.0)\n"
	path := filepath.Join(t.TempDir(), "log.txt")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parseFlags([]string{"-log", path})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := replay(o, &out); err != nil {
		t.Fatal(err)
	}
	want := "| 2 × 8 | 1800 (2) | 700 (sdpa, 2) | 2.57× | 1.8× | 1.8× |"
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "best of 2 interleaved rounds") {
		t.Fatalf("replay output lacks %q:\n%s", want, out.String())
	}
	if err := os.WriteFile(path, []byte("nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := replay(o, &out); err == nil {
		t.Error("a log without measurements was accepted")
	}
}

// TestDefaultThreads checks the default thread counts: powers of two below
// the core count, then the core count.
func TestDefaultThreads(t *testing.T) {
	for cpus, want := range map[int]string{1: "1", 2: "1,2", 6: "1,2,4,6", 16: "1,2,4,8,16", 0: "1"} {
		if got := defaultThreads(cpus); got != want {
			t.Errorf("defaultThreads(%d) = %q, want %q", cpus, got, want)
		}
	}
}
