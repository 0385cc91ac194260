package main

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/examples/internal/sweep"
)

// TestRunTiny runs the whole example at a tiny scale (a small model, a few
// steps) on a matrix and a Markov setting, with the ReLU comparison, and
// checks the outputs: one CSV row per run, gaps non-negative, the expert's
// gap (the exact equilibrium) zero.
func TestRunTiny(t *testing.T) {
	out := t.TempDir()
	cfg := config{
		settings: []setting{{Markov: false, Size: 2}, {Markov: true, Size: 2}},
		lengths:  []int{4}, seeds: 1, trainGames: 2, trajPerGame: 4, testGames: 2,
		steps: 5, batch: 4, rho: 0.1, gamma: 0.9, reluCompare: "matrix:2", out: out, seed: 1,
		width: 16, layers: 1,
	}
	if err := run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3 { // matrix softmax, matrix relu, markov softmax
		t.Fatalf("results.csv has %d rows, want 4", len(rows))
	}
	for _, r := range rows[1:] {
		for k, name := range rows[0] {
			switch name {
			case "transformer", "uniform", "omd", "avg_training_ne", "expert", "transformer_vs_omd", "transformer_average", "omd_average":
			default:
				continue
			}
			v, err := strconv.ParseFloat(r[k], 64)
			markov := strings.HasPrefix(r[0], "markov")
			if strings.HasSuffix(name, "_average") && markov {
				if !math.IsNaN(v) {
					t.Errorf("row %v: %s = %q in a Markov game, want NaN (no average iterate)", r, name, r[k])
				}
				continue
			}
			if err != nil || !(v >= 0) {
				t.Fatalf("row %v: column %s = %q is not a non-negative number", r, name, r[k])
			}
			if name == "expert" && v > 1e-6 {
				t.Errorf("row %v: the expert (the exact equilibrium) has gap %v", r, v)
			}
		}
	}
	for _, name := range []string{"results.md", "matrix-A2.png", "markov-S2.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
}

func TestParse(t *testing.T) {
	if _, err := parseSettings("matrix:2,markov:3"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"matrix", "poker:2", "matrix:0", "markov:x"} {
		if _, err := parseSettings(bad); err == nil {
			t.Errorf("parseSettings(%q) accepted", bad)
		}
	}
	if _, err := sweep.ParseInts("10,x"); err == nil {
		t.Error("parseInts accepted x")
	}
}
