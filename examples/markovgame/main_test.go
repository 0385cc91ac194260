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

// TestRunSmall runs the example at a tiny scale on each game kind and checks
// the CSV: one row per learner and checkpoint, gaps non-negative and at
// most 1/(1−γ), and the paper's schedule still at the uniform policies' gap
// on a two-state game.
func TestRunSmall(t *testing.T) {
	for _, g := range []string{"t6", "random", "perturbed"} {
		out := t.TempDir()
		cfg := config{game: g, learners: "omd,omd-paper,omd-raw,perstate", noise: "exact", out: out,
			states: 3, actions: 2, gamma: 0.9, rho: 0.1, rounds: 300, seeds: 2, seed: 3}
		if err := run(context.Background(), cfg); err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		f, err := os.Open(filepath.Join(out, "gap.csv"))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 + 4*len(runs.Checkpoints(cfg.rounds)); len(rows) != want {
			t.Fatalf("%s: CSV has %d rows, want %d", g, len(rows), want)
		}
		for _, r := range rows[1:] {
			v, err := strconv.ParseFloat(r[2], 64)
			if err != nil || v < 0 || v > 10+1e-9 {
				t.Fatalf("%s: row %v: gap %q outside [0, 1/(1−γ)]", g, r, r[2])
			}
			if g == "t6" && r[0] == "omd-paper" && r[1] == "300" && (v < 1.36 || v > 1.39) {
				t.Errorf("paper schedule on T6: gap %v at T=300, want about 1.375", v)
			}
		}
		if _, err := os.Stat(filepath.Join(out, "gap.png")); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	base := config{game: "t6", learners: "omd", noise: "exact", out: t.TempDir(), states: 2, actions: 2, gamma: 0.9, rounds: 10, seeds: 1}
	for _, mod := range []func(*config){
		func(c *config) { c.game = "go" },
		func(c *config) { c.learners = "sgd" },
		func(c *config) { c.noise = "pink" },
		func(c *config) { c.rounds = 0 },
		func(c *config) { c.game, c.gamma = "random", 1 },
		func(c *config) { c.game, c.states = "random", 0 },
	} {
		c := base
		mod(&c)
		if err := run(context.Background(), c); err == nil {
			t.Errorf("run(context.Background(), %+v) succeeded, want an error", c)
		}
	}
}
