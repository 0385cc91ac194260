package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPenniesRewards checks the payoff table against the rules of its doc
// comment at every joint action.
func TestPenniesRewards(t *testing.T) {
	g := Pennies{Bonus: [3]float64{0.2, 0.5, 1}}
	want := [8][3]float64{ // (a₀, a₁, a₂) = binary j
		{0.75, 0.75, 0},           // HHH
		{0.75, 0, 1},              // HHT
		{0, 0 + 0.125, 0},         // HTH
		{0, 0.75 + 0.125, 1},      // HTT
		{0.05, 0.75, 0.75},        // THH
		{0.05, 0, 0.25},           // THT
		{0.8, 0.125, 0.75},        // TTH
		{0.8, 0.75 + 0.125, 0.25}, // TTT
	}
	r := make([]float64, 3)
	for j, w := range want {
		g.Play(0, []int{j >> 2, j >> 1 & 1, j & 1}, r, nil)
		for p := range 3 {
			if d := r[p] - w[p]; d > 1e-15 || d < -1e-15 {
				t.Errorf("joint %03b, player %d: reward %v, want %v", j, p, r[p], w[p])
			}
		}
	}
}

// TestRun runs the program at a tiny scale.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := run(&b, 1000, 2, 1, dir); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| regret matching | full-information |", "| OMD | bandit |", "t = 1000"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q does not contain %q", out, want)
		}
	}
	for _, f := range []string{"cce.csv", "cce.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
