package main

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/transformer"
)

// TestReplayGaps checks the replay under the context swaps: players fed
// the recorded histories of a self-play hold, at every checkpoint, the
// policies the players that played it held, so for copies of the same
// players (the same random streams) the replayed gaps equal SelfPlay's
// own, bit for bit: Bayes predictors and plug-in players in a 3×3 matrix
// game, Bayes predictors in a two-state Markov game, and an in-context
// model.
func TestReplayGaps(t *testing.T) {
	lengths := []int{1, 5, 12, 30}
	fams, err := parseJointFamilies("iid3,markovS2")
	if err != nil {
		t.Fatal(err)
	}
	cfgPlay := play.SelfPlayConfig{Rounds: 30, Checkpoints: lengths, Observation: learner.JointActions, Record: true}
	check := func(name string, fam jointFamily, noise string, players func(int) (learner.Learner, error), model *transformer.Model[float32], enc incontext.GameEncoder) {
		t.Helper()
		rng := rand.New(rand.NewPCG(7, 8))
		g, err := fam.prior()(rng)
		if err != nil {
			t.Fatal(err)
		}
		c := cfgPlay
		c.Noise = noiseOf(noise)
		var res *play.SelfPlayResult
		if model != nil {
			res, err = incontext.Play(context.Background(), g, model, model, enc, enc, c, rng)
		} else {
			x, errX := players(0)
			y, errY := players(1)
			if errX != nil || errY != nil {
				t.Fatal(errX, errY)
			}
			res, err = play.SelfPlay(context.Background(), g, x, y, c, rng)
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := replayPair(g, res, players, 0, lengths)
		if err != nil {
			t.Fatal(err)
		}
		for i, cp := range res.Checkpoints {
			if got[i] != cp.LastGap {
				t.Errorf("%s: replayed gap at T = %d is %v, self-play's %v", name, cp.Round, got[i], cp.LastGap)
			}
		}
		if got[0] == got[len(got)-1] {
			t.Errorf("%s: the same gap %v at T = 1 and T = 30: nothing was replayed", name, got[0])
		}
	}
	check("Bayes predictors, 3×3, Bernoulli", fams[0], "bernoulli", bayesPlayers(fams[0], "bernoulli", 8, 3), nil, incontext.GameEncoder{})
	check("Bayes predictors, 3×3, low noise", fams[0], "low", bayesPlayers(fams[0], "low", 8, 3), nil, incontext.GameEncoder{})
	plugIn := func(int) (learner.Learner, error) {
		return learner.NewPosteriorNash(posteriorConfig(3, noiseOf("bernoulli"), 0, 0, 0))
	}
	check("plug-in players, 3×3", fams[0], "bernoulli", plugIn, nil, incontext.GameEncoder{})
	check("Bayes predictors, Markov", fams[1], "bernoulli", bayesPlayers(fams[1], "bernoulli", 4, 3), nil, incontext.GameEncoder{})
	for _, fam := range fams {
		enc := incontext.GameEncoder{States: fam.states(), Actions: 3, Opponents: 3, Features: true, Cells: true}
		vocab, width, actions := enc.Shape()
		mc := transformer.Config{Layers: 1, Heads: 2, Width: 16, FeedForward: 32, Vocab: vocab, Features: width, Outputs: actions, MaxLen: enc.Positions(30)}
		m, err := transformer.New[float32](mc, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		models := func(int) (learner.Learner, error) { return incontext.NewLearner(m, enc, incontext.Config{}) }
		check("in-context model, "+fam.Name, fam, "bernoulli", models, m, enc)
	}
}

// TestJointSwapsTable checks that a joint run with -bayes measures the
// context swaps and writes them under the table, where the transformer's
// own gaps are those of the main table.
func TestJointSwapsTable(t *testing.T) {
	md, out := jointMarkdown(t, "-families", "iid2", "-noise", "bernoulli", "-train-games", "6",
		"-lengths", "2,4", "-test-games", "2", "-steps", "3", "-seeds", "1", "-bayes", "8", "-cells")
	main, swaps, ok := strings.Cut(md, "Who holds the gap")
	if !ok {
		t.Fatalf("no context swaps under the table:\n%s", md)
	}
	for _, T := range []string{"2", "4"} {
		mainRow := rowOf(t, main, "| iid2 | bernoulli | "+T+" |")
		swapRow := rowOf(t, swaps, "| iid2 | bernoulli | "+T+" |")
		if mainRow[3] != swapRow[3] {
			t.Errorf("T = %s: transformer %s in the swaps, %s in the table", T, swapRow[3], mainRow[3])
		}
		if mainRow[6] != swapRow[6] {
			t.Errorf("T = %s: Bayes predictor %s in the swaps, %s in the table", T, swapRow[6], mainRow[6])
		}
		for _, c := range swapRow[4:6] {
			if v := num(t, c); !(v >= 0 && v <= 1) {
				t.Errorf("T = %s: swapped gap %v out of [0, 1]", T, v)
			}
		}
	}
	rows := readCSV(t, filepath.Join(out, "joint_swaps.csv"))
	if len(rows) != 3 || rows[2][3] != "4" {
		t.Fatalf("joint_swaps.csv: %v, want a header and the rows of T = 2 and 4", rows)
	}
	if got, want := num(t, rows[2][column(t, rows, "bayes_on_transformer_histories")]), num(t, rowOf(t, swaps, "| iid2 | bernoulli | 4 |")[4]); math.Abs(got-want) > 5e-5 {
		t.Errorf("joint_swaps.csv: the Bayes predictor on the transformer's histories %v, the table %v", got, want)
	}
}

// rowOf returns the cells of the first markdown row of text that starts
// with prefix.
func rowOf(t *testing.T, text, prefix string) []string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			return cells
		}
	}
	t.Fatalf("no row %q in\n%s", prefix, text)
	return nil
}

// jointMarkdown runs the joint study with the flags args into a temporary
// folder and returns its joint.md and the folder.
func jointMarkdown(t *testing.T, args ...string) (string, string) {
	t.Helper()
	out := t.TempDir()
	job, err := parseFlags(append([]string{"-study", "joint", "-out", out}, args...))
	if err != nil {
		t.Fatal(err)
	}
	if err := job(context.Background()); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "joint.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(md), out
}

// TestJointFirstSeed checks that -first-seed K -seeds 1 runs seed K of a
// saved run alone: the same row of joint.csv as the run of seeds 0 to K,
// and that other studies refuse the flag.
func TestJointFirstSeed(t *testing.T) {
	args := []string{"-study", "joint", "-families", "iid2", "-noise", "bernoulli", "-train-games", "6",
		"-lengths", "2,4", "-test-games", "2", "-steps", "3"}
	run := func(extra ...string) [][]string {
		out := t.TempDir()
		job, err := parseFlags(append(append(slices.Clone(args), "-out", out), extra...))
		if err != nil {
			t.Fatal(err)
		}
		if err := job(context.Background()); err != nil {
			t.Fatal(err)
		}
		return readCSV(t, filepath.Join(out, "joint.csv"))
	}
	both, one := run("-seeds", "2"), run("-seeds", "1", "-first-seed", "1")
	if len(one) != 3 || one[1][2] != "1" {
		t.Fatalf("-first-seed 1 -seeds 1 wrote %v, want the two rows of seed 1", one)
	}
	for i, row := range one[1:] {
		if want := both[3+i]; !slices.Equal(row, want) {
			t.Errorf("seed 1 alone:\n%v\nseed 1 of two:\n%v", row, want)
		}
	}
	if _, err := parseFlags([]string{"-study", "omd", "-first-seed", "1"}); err == nil {
		t.Error("-first-seed accepted by the omd study")
	}
}
