package main

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/examples/internal/sweep"
)

// TestRunTiny runs the whole program at a tiny scale (small dimension, few
// runs, a tiny transformer) and checks that every output is written and
// that the oracle beats plain UCB1 on SMPyBandits' problem 1.
func TestRunTiny(t *testing.T) {
	out := t.TempDir()
	cfg := config{d: 4, arms: 3, runs: 3, trainTraj: 20, trainT: 20, epochs: 1, width: 16, layers: 1, smpyRuns: 5, seed: 1, out: out}
	if err := run(context.Background(), cfg); err != nil {
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

// TestSizesTiny runs the model-size study at a tiny scale and checks its
// outputs: one CSV row per (labels, data, size, seed), regrets between 0
// and the horizon's worst, the experts' regret the same in every row (the
// same environments), the two labellings trained on the same
// environments, and the figure written.
func TestSizesTiny(t *testing.T) {
	out := t.TempDir()
	cfg := sizesConfig{d: 4, arms: 3, scenarios: []string{"high-b0.018"}, labels: []string{"linucb", "dpt"},
		sizes: []sweep.ModelSize{{Layers: 1, Width: 8, Heads: 2}}, trainTrajs: []int{4, 8}, trainT: 20, steps: 2, batch: 4,
		seeds: 2, runs: 2, seed: 1, out: out}
	if err := runSizes(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "sizes.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+2*2*2 {
		t.Fatalf("sizes.csv has %d rows, want 9", len(rows))
	}
	for _, r := range rows[1:] {
		reg, err := strconv.ParseFloat(r[8], 64)
		if err != nil || !(reg >= 0 && reg <= 2*200) {
			t.Errorf("regret %q in %v", r[8], r)
		}
		if r[9] != rows[1][9] || r[10] != rows[1][10] {
			t.Errorf("the experts' regret differs across rows: %v against %v", r, rows[1])
		}
	}
	for _, name := range []string{"sizes.md", "sizes_high-b0.018.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := parseFlags([]string{"-study", "sizes", "-labels", "oracle"}); err == nil {
		t.Error("unknown labels accepted")
	}
	if _, err := parseFlags([]string{"-study", "sizes", "-sizes", "3x"}); err == nil {
		t.Error("bad size accepted")
	}
	if err := runSizes(context.Background(), sizesConfig{scenarios: []string{"mid"}, out: out, trainTrajs: []int{1}}); err == nil {
		t.Error("unknown scenario accepted")
	}
}

// TestSizesDeterministic checks that the model-size study's numbers do not
// depend on GOMAXPROCS.
func TestSizesDeterministic(t *testing.T) {
	var got [2][]byte
	for i, procs := range []int{1, 2} {
		out := t.TempDir()
		cfg := sizesConfig{d: 3, arms: 3, scenarios: []string{"high-b0.025"}, labels: []string{"dpt"},
			sizes: []sweep.ModelSize{{Layers: 1, Width: 8, Heads: 2}}, trainTrajs: []int{6}, trainT: 10, steps: 2, batch: 4,
			seeds: 2, runs: 3, seed: 2, out: out}
		prev := runtime.GOMAXPROCS(procs)
		err := runSizes(context.Background(), cfg)
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		if got[i], err = os.ReadFile(filepath.Join(out, "sizes.csv")); err != nil {
			t.Fatal(err)
		}
	}
	if string(got[0]) != string(got[1]) {
		t.Errorf("sizes.csv differs between GOMAXPROCS 1 and 2:\n%s\n%s", got[0], got[1])
	}
}

// TestPosteriorTiny runs the posterior-label study at a tiny scale: every
// scenario has its baselines and a transformer row over both seeds,
// posterior sampling with the scenario's prior beats the uniform policy
// on every scenario, and a second run rewrites the same table from the
// saved jobs.
func TestPosteriorTiny(t *testing.T) {
	out := t.TempDir()
	cfg := posteriorConfig{d: 4, arms: 3, trainT: 20, trajs: 6, steps: 2, batch: 4, seeds: 2, runs: 4, labelSamples: 8, freqs: []float64{0.005, 0.01, 0.015, 0.02}, families: []string{"low", "high"}, seed: 1, out: out}
	if err := runPosterior(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "posterior.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []string{"low", "high-b0.018", "high-b0.025"} {
		for _, m := range []string{"LinUCB", "MASTER+LinUCB", "posterior sampling", "posterior sampling, training prior", "transformer, posterior labels (2 seeds)"} {
			if !strings.Contains(string(md), "| "+sc+" | "+m+" |") {
				t.Errorf("posterior.md lacks the row %s, %s", sc, m)
			}
		}
	}
	f, err := os.Open(filepath.Join(out, "posterior.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	mean := map[string]float64{}
	for _, r := range rows[1:] {
		v, err := strconv.ParseFloat(r[4], 64)
		if err != nil {
			t.Fatal(err)
		}
		mean[r[0]+"/"+r[1]] += v / float64(cfg.runs)
	}
	for _, sc := range []string{"low", "high-b0.018", "high-b0.025"} {
		if ps, u := mean[sc+"/posterior sampling"], mean[sc+"/uniform"]; !(ps < u) {
			t.Errorf("%s: posterior sampling's regret %v is not below the uniform policy's %v", sc, ps, u)
		}
	}
	if err := runPosterior(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(out, "posterior.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(md) {
		t.Error("the table rewritten from the saved jobs differs")
	}
}
