package main

import (
	"encoding/csv"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRunSmall runs every part of the example at a tiny scale and checks
// the CSV files: one row per checkpoint, gaps finite and non-negative, and
// on F.1's placeholder "pure" base meta-learning below individual learning
// at the last checkpoint.
func TestRunSmall(t *testing.T) {
	out := t.TempDir()
	cfg, err := parseFlags([]string{"-K", "3", "-H", "3", "-T", "60", "-every", "20", "-families", "2",
		"-f3K", "2", "-f3H", "2", "-f3T", "3", "-f3positions", "3", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	if err := run(cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	read := func(name string) [][]string {
		f, err := os.Open(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	for _, c := range []struct {
		name string
		rows int
	}{{"f1_pure.csv", 3}, {"f1_mixed.csv", 3}, {"f2.csv", 4}, {"f3.csv", 4}} {
		rows := read(c.name)
		if len(rows) != 1+c.rows {
			t.Fatalf("%s: %d rows, want %d", c.name, len(rows), 1+c.rows)
		}
		for _, r := range rows[1:] {
			for col := 1; col < len(r); col += 5 {
				v, err := strconv.ParseFloat(r[col], 64)
				if err != nil || math.IsNaN(v) || v < 0 {
					t.Fatalf("%s: row %v: gap %q not a finite non-negative number", c.name, r, r[col])
				}
			}
		}
	}
	last := read("f1_pure.csv")[3]
	ind, _ := strconv.ParseFloat(last[3], 64)
	meta, _ := strconv.ParseFloat(last[8], 64)
	if !(meta < ind) {
		t.Errorf("F.1 pure, t = 60: meta gap %v not below individual %v (games after the first)", meta, ind)
	}
	if rows := read("f1_pure_ne.csv"); len(rows) != 1+2*3 {
		t.Errorf("f1_pure_ne.csv: %d rows, want 7", len(rows))
	}
	for _, f := range []string{"f1_pure_gap.png", "f1_pure_ne.png", "f2_value.png", "f3_gap.png", "results.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := parseFlags([]string{"-parts", "f9"}); err == nil {
		t.Error("unknown part accepted")
	}
	if _, err := parseFlags([]string{"-f3players", "0"}); err == nil || !strings.Contains(err.Error(), "-f3players = 0") {
		t.Errorf("-f3players 0: error %v", err)
	}
	if _, err := parseFlags([]string{"-f3positions", "4"}); err == nil {
		t.Error("even number of positions accepted")
	}
}

// TestPokerSmall runs the poker part at a tiny scale: one CSV row per
// checkpoint (t = 0 and ten more), NE-gaps non-negative and below 1, values
// in [0, 1], and at t = 0 the individual learners' gap that of uniform
// play, the same in every game of a sequence with the same stack.
func TestPokerSmall(t *testing.T) {
	if testing.Short() && raceEnabled {
		t.Skip("four million-deal endgames under the race detector; run without -short")
	}
	out := t.TempDir()
	cfg, err := parseFlags([]string{"-parts", "poker", "-pokerK", "2", "-pokerT", "2000", "-pokerSigma", "0", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	if err := run(cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "poker.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 12 {
		t.Fatalf("poker.csv has %d rows, want a header and 11 checkpoints", len(rows))
	}
	for _, r := range rows[1:] {
		for i, cell := range r[1:] {
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil || v < 0 || v > 1 {
				t.Errorf("poker.csv column %s = %q", rows[0][i+1], cell)
			}
		}
	}
	// σ = 0: both games are the same endgame, so the uniform start has the
	// same gap in both (std 0), and the warm start of the second game is the
	// first game's end.
	if rows[1][2] != "0" {
		t.Errorf("individual learning's gap at t = 0 varies over identical games: std %s", rows[1][2])
	}
}
