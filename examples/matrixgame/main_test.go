package main

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/icrl-go/icrl/examples/internal/runs"
)

// TestRunSmall runs the example at a tiny scale and checks the CSV: one row
// per learner and checkpoint, gaps non-negative, the paper schedule's last
// iterate still at the uniform pair's gap.
func TestRunSmall(t *testing.T) {
	out := t.TempDir()
	cfg := config{game: "g1", learners: "omd,omd-paper,omwu,mwu,exp3ix,rm,rm+", feedback: "bandit",
		noise: "exact", out: out, size: 3, rounds: 500, seeds: 2, seed: 7}
	if err := run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "gap.png")); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "gap.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	cps := runs.Checkpoints(cfg.rounds)
	if want := 1 + 7*len(cps); len(rows) != want {
		t.Fatalf("CSV has %d rows, want %d", len(rows), want)
	}
	for _, r := range rows[1:] {
		for _, k := range []int{2, 4} {
			v, err := strconv.ParseFloat(r[k], 64)
			if err != nil || v < 0 {
				t.Fatalf("row %v: gap %q is not a non-negative number", r, r[k])
			}
		}
		if r[0] == "omd-paper" && r[1] == "500" {
			// G1 = [[1,0],[0,0.5]]: the uniform pair has gap 0.25 and the
			// paper's step sizes do not move the policy (η = T^{−5/3}, schedule.Paper).
			if v, _ := strconv.ParseFloat(r[2], 64); v < 0.24 || v > 0.26 {
				t.Errorf("omd-paper last-iterate gap at T=500 is %v, want about 0.25", v)
			}
		}
	}
}

func TestLogCheckpoints(t *testing.T) {
	got := runs.Checkpoints(1000)
	want := []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}
	if len(got) != len(want) {
		t.Fatalf("runs.Checkpoints(1000) = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("runs.Checkpoints(1000) = %v, want %v", got, want)
		}
	}
	if got := runs.Checkpoints(1); len(got) != 1 || got[0] != 1 {
		t.Fatalf("runs.Checkpoints(1) = %v, want [1]", got)
	}
	if got := runs.Checkpoints(7); len(got) != 4 || got[3] != 7 {
		t.Fatalf("runs.Checkpoints(7) = %v, want [1 2 5 7]", got)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	base := config{game: "g1", learners: "omd", feedback: "bandit", noise: "exact", out: t.TempDir(), size: 3, rounds: 10, seeds: 1}
	for _, mod := range []func(*config){
		func(c *config) { c.game = "chess" },
		func(c *config) { c.learners = "sgd" },
		func(c *config) { c.feedback = "partial" },
		func(c *config) { c.noise = "pink" },
		func(c *config) { c.rounds = 0 },
	} {
		c := base
		mod(&c)
		if err := run(context.Background(), c); err == nil {
			t.Errorf("run(context.Background(), %+v) succeeded, want an error", c)
		}
	}
}
