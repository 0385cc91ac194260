package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunTiny runs the whole program at a tiny scale (small dimension, few
// runs, a tiny transformer) and checks that every output is written and
// that the oracle beats plain UCB1 on SMPyBandits' problem 1.
func TestRunTiny(t *testing.T) {
	out := t.TempDir()
	cfg := config{d: 4, arms: 3, runs: 3, trainTraj: 20, trainT: 20, epochs: 1, width: 16, layers: 1, smpyRuns: 5, seed: 1, out: out}
	if err := run(cfg); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"results.md", "curves.csv", "cumregret_low.png", "subopt_high-b0.018.png", "cumregret_high-b0.025.png", "smpy_smpy-problem1.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"| low | transformer |", "| high-b0.025 | MASTER+TS |", "| smpy-problem2 | oracle-UCB1 |"} {
		if !strings.Contains(string(md), m) {
			t.Errorf("results.md lacks %q", m)
		}
	}
}
