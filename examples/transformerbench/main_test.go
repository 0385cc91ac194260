package main

import (
	"bytes"
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
