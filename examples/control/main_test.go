package main

import (
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/icrl-go/icrl/control"
)

// TestRunSmall runs the example at a tiny scale and checks its files: one
// CSV row per seed and level, the quantized training value non-increasing
// in the action level for every seed (nested sets, exact DP), errors
// finite and non-negative, and the sweeps present.
func TestRunSmall(t *testing.T) {
	out := t.TempDir()
	base := control.DefaultSection6Config()
	base.Ktrain, base.Ktest, base.MaxActions = 6, 4, 30
	c := config{seeds: 2, seed: 3, big: 40, t3: 10, ell18: true, out: out, base: base, budgets: []float64{0.05, 0.1}, compareSeeds: 2}
	if err := run(context.Background(), c, io.Discard); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "section6.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+2*3 {
		t.Fatalf("section6.csv: %d rows, want 7", len(rows))
	}
	prev := map[string]float64{}
	for _, r := range rows[1:] {
		v, err1 := strconv.ParseFloat(r[2], 64)
		tr, err2 := strconv.ParseFloat(r[3], 64)
		te, err3 := strconv.ParseFloat(r[4], 64)
		if err1 != nil || err2 != nil || err3 != nil || !(v >= 0) || !(tr >= 0) || !(te >= 0) {
			t.Fatalf("row %v: bad numbers", r)
		}
		if p, ok := prev[r[0]]; ok && v > p {
			t.Errorf("seed %s: quantized value rose from %v to %v at M = %s", r[0], p, v, r[1])
		}
		prev[r[0]] = v
	}
	f, err = os.Open(filepath.Join(out, "sweeps.csv"))
	if err != nil {
		t.Fatal(err)
	}
	sw, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	runsSeen := map[string]bool{}
	for _, r := range sw[1:] {
		runsSeen[r[0]] = true
	}
	if len(runsSeen) != 3 {
		t.Errorf("sweeps.csv has runs %v, want 3 (big T = 2, T = 3, ℓ = 18)", runsSeen)
	}
	// The comparison: every method and seed of both settings, with errors
	// that are finite, and the best training error never rising along a
	// method's run for Adam (it keeps its best weights).
	f, err = os.Open(filepath.Join(out, "compare.csv"))
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	last := map[string]float64{}
	for _, r := range cmp[1:] {
		seen[r[0]+"/"+r[1]+"/"+r[2]] = true
		tr, err1 := strconv.ParseFloat(r[6], 64)
		te, err2 := strconv.ParseFloat(r[7], 64)
		if err1 != nil || err2 != nil || !(tr >= 0) || !(te >= 0) {
			t.Fatalf("compare.csv row %v: errors not finite", r)
		}
		key := r[0] + "/" + r[1] + "/" + r[2]
		if r[1] == "Adam with restarts" {
			if p, ok := last[key]; ok && tr > p {
				t.Errorf("%s: best training error rose from %v to %v", key, p, tr)
			}
			last[key] = tr
		}
	}
	if len(seen) != 2*3*2 {
		t.Errorf("compare.csv covers %d (setting, method, seed) runs, want 12", len(seen))
	}
	for _, name := range []string{"fig6.png", "fig7.png", "table.md", "compare_T2.png", "compare_T3.png", "compare_T2_work.png", "compare_T3_work.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := parseFlags([]string{"-seeds", "0"}); err == nil {
		t.Error("-seeds 0 accepted")
	}
	if _, err := parseFlags([]string{"-compare", "1,-2"}); err == nil {
		t.Error("-compare with a negative budget accepted")
	}
	if c, err := parseFlags([]string{"-compare", ""}); err != nil || len(c.budgets) != 0 {
		t.Errorf("-compare '': %v, budgets %v", err, c.budgets)
	}
}
