package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/transformer"
)

// twoGames is a family of two 2×2 games with pure equilibria at opposite
// corners, (0,0) and (1,1), both of value 0.5, so that the average of their
// equilibria, uniform play, has duality gap 0.4 in each; a player's reward
// for each action tells the games apart.
func twoGames(*rand.Rand, int) (func(*rand.Rand) (*game.ZeroSum, error), error) {
	g1, err := game.NewZeroSum([][]float64{{0.5, 0.9}, {0.1, 0.7}})
	if err != nil {
		return nil, err
	}
	g2, err := game.NewZeroSum([][]float64{{0.7, 0.1}, {0.9, 0.5}})
	if err != nil {
		return nil, err
	}
	return func(r *rand.Rand) (*game.ZeroSum, error) {
		if r.IntN(2) == 0 {
			return g1, nil
		}
		return g2, nil
	}, nil
}

// TestAdaptBeatsAverageEquilibrium is the claim of the adaptation study on
// a family where it must hold: two training games with different
// equilibria. Models trained on the equilibrium labels with OMD-played and
// on-policy context (dpt, exact rewards) identify the game from the
// rewards of the first rounds and play its equilibrium, so their gap after
// a few rounds is far below that of the average equilibrium (0.4), which
// the table reports exactly.
func TestAdaptBeatsAverageEquilibrium(t *testing.T) {
	if raceEnabled && testing.Short() {
		t.Skip("a learning test of 300 training steps, a minute under the race detector; the adapt study's code runs under it in TestAdaptTiny, and this test runs in every suite without -race")
	}
	cfg := adaptConfig{
		families: []family{{name: "two", make: twoGames}}, modes: []adaptMode{{Features: true, DPT: true}},
		actions: 2, lengths: []int{1, 4, 8}, trainGames: 64, testGames: 16, onPolicy: 0.5,
		steps: 300, batch: 16, width: 16, layers: 1, seeds: 1, seed: 1,
	}
	r, err := adaptOne(context.Background(), cfg, 0, cfg.modes[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	// With a fraction f of the first game among the training draws, the
	// average equilibrium x = y = (f, 1−f) has gap 0.8(1−f) in the first
	// game and 0.8f in the second: about 0.4 on a balanced test set.
	if !(r.AvgNE > 0.3) {
		t.Errorf("average equilibrium gap %v, want about 0.4", r.AvgNE)
	}
	if r.Exact > 1e-9 {
		t.Errorf("exact equilibrium gap %v, want 0", r.Exact)
	}
	t.Logf("transformers' gap at T = 1, 4, 8: %.4f; OMD %.4f; avg NE %.4f; uniform %.4f", r.Transformer, r.OMD, r.AvgNE, r.Uniform)
	if last := r.Transformer[len(r.Transformer)-1]; !(last < 0.1) {
		t.Errorf("transformers' gap at T = 8 is %.4f, want below 0.1 (a quarter of the average equilibrium's)", last)
	}
	if !(r.Transformer[2] < r.Transformer[0]) {
		t.Errorf("transformers' gap does not fall from T = 1 (%.4f) to T = 8 (%.4f)", r.Transformer[0], r.Transformer[2])
	}
}

// readCSV returns the rows of a CSV file.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
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

func column(t *testing.T, rows [][]string, name string) int {
	t.Helper()
	for i, h := range rows[0] {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %q in %v", name, rows[0])
	return -1
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestAdaptTiny runs the adaptation study at a tiny scale through its
// flags and checks the outputs: one CSV row per (family, mode, seed, T),
// gaps in [0, 1], the exact equilibrium's gap zero, the baselines equal
// across the modes of a (family, seed) (the same unseen games), and the
// figures written.
func TestAdaptTiny(t *testing.T) {
	out := t.TempDir()
	job, err := parseFlags([]string{"-study", "adapt", "-families", "rho0.5,iid", "-modes", "tokens-ne,features-dpt",
		"-train-games", "8", "-lengths", "2,4", "-test-games", "3", "-steps", "4", "-seeds", "2", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	if err := job(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(out, "adapt.csv"))
	if len(rows) != 1+2*2*2*2 {
		t.Fatalf("adapt.csv has %d rows, want 17", len(rows))
	}
	avg := map[string]string{}
	for _, r := range rows[1:] {
		for _, c := range []string{"transformers", "omd", "avg_training_ne", "uniform"} {
			if v := num(t, r[column(t, rows, c)]); !(v >= 0 && v <= 1) {
				t.Errorf("%s = %v outside [0, 1] in %v", c, v, r)
			}
		}
		if v := num(t, r[column(t, rows, "exact_ne")]); v > 1e-9 {
			t.Errorf("exact equilibrium gap %v in %v", v, r)
		}
		key := r[0] + "/" + r[2] + "/" + r[3]
		base := r[column(t, rows, "omd")] + " " + r[column(t, rows, "uniform")]
		if prev, ok := avg[key]; ok && prev != base {
			t.Errorf("%s: the baselines differ across modes: %s and %s", key, prev, base)
		}
		avg[key] = base
	}
	for _, name := range []string{"adapt.md", "adapt_rho0.5.png", "adapt_iid.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
}

// TestOMDTiny runs the OMD-imitation study at a tiny scale and checks the
// outputs against what can be computed independently: the uniform
// policy's distance to OMD's labels is the same for every model of a seed,
// OMD's first policy is uniform (so that distance is 0 at T = 1), and every
// distance lies in [0, 1].
func TestOMDTiny(t *testing.T) {
	out := t.TempDir()
	job, err := parseFlags([]string{"-study", "omd", "-sizes", "1x8h2,1x16", "-train-games", "4,8",
		"-lengths", "1,3", "-test-games", "3", "-steps", "3", "-seeds", "1", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	if err := job(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(out, "omd.csv"))
	if len(rows) != 1+2*2*2 {
		t.Fatalf("omd.csv has %d rows, want 9", len(rows))
	}
	for _, r := range rows[1:] {
		tv, u := num(t, r[column(t, rows, "tv")]), num(t, r[column(t, rows, "uniform_tv")])
		if !(tv >= 0 && tv <= 1) || !(u >= 0 && u <= 1) {
			t.Errorf("distances outside [0, 1] in %v", r)
		}
		if r[column(t, rows, "T")] == "1" && u != 0 {
			t.Errorf("uniform policy's distance to OMD's first (uniform) policy is %v", u)
		}
		if r[column(t, rows, "uniform_tv")] != rows[1+boolIndex(r[column(t, rows, "T")] == "3")][column(t, rows, "uniform_tv")] {
			t.Errorf("the uniform distance differs across models: %v", r)
		}
	}
	for _, name := range []string{"omd.md", "omd_4games.png", "omd_8games.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestStudiesDeterministic checks that the studies' numbers do not depend
// on GOMAXPROCS: the CSVs of runs at 1 and 2 threads are identical.
func TestStudiesDeterministic(t *testing.T) {
	for _, args := range [][]string{
		{"-study", "adapt", "-families", "rho1", "-modes", "features-dpt", "-train-games", "6", "-lengths", "3", "-test-games", "2", "-steps", "3", "-seeds", "2"},
		{"-study", "omd", "-sizes", "1x8h2", "-train-games", "6", "-lengths", "3", "-test-games", "2", "-steps", "3", "-seeds", "2"},
		{"-study", "omd", "-omd-tokens", "-sizes", "1x8h2", "-train-games", "6", "-lengths", "3", "-test-games", "2", "-steps", "3", "-seeds", "2"},
		{"-study", "distill", "-sizes", "1x8h2", "-train-games", "4", "-dagger-games", "2", "-lengths", "3", "-test-games", "2", "-steps", "3", "-seeds", "2"},
		{"-study", "joint", "-families", "iid2", "-noise", "low", "-train-games", "4", "-lengths", "3", "-test-games", "2", "-steps", "3", "-seeds", "2"},
	} {
		if testing.Short() && (args[1] == "distill" || args[1] == "joint" || raceEnabled && args[1] != "omd") {
			continue // the race suite's budget; `go test ./...` checks them
		}
		var got [2][]byte
		for i, procs := range []int{1, 2} {
			out := t.TempDir()
			prev := runtime.GOMAXPROCS(procs)
			job, err := parseFlags(append(args, "-out", out))
			if err == nil {
				err = job(context.Background())
			}
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatal(err)
			}
			name := args[1] + ".csv"
			if got[i], err = os.ReadFile(filepath.Join(out, name)); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got[0], got[1]) {
			t.Errorf("%v: the results differ between GOMAXPROCS 1 and 2:\n%s\n%s", args, got[0], got[1])
		}
	}
}

// TestStudiesCancel checks Ctrl-C: a cancelled study returns the
// cancellation and still writes its (empty) tables.
func TestStudiesCancel(t *testing.T) {
	out := t.TempDir()
	job, err := parseFlags([]string{"-study", "adapt", "-families", "iid", "-modes", "features-ne", "-train-games", "4",
		"-lengths", "2", "-test-games", "2", "-steps", "2", "-seeds", "1", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := job(ctx); !sweep.Cancelled(err) {
		t.Fatalf("cancelled study returned %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "adapt.md")); err != nil {
		t.Error(err)
	}
}

func TestParseFlags(t *testing.T) {
	for _, bad := range [][]string{
		{"-study", "poker"}, {"-scale", "huge"}, {"-study", "omd", "-sizes", "2x"}, {"-study", "omd", "-sizes", "2x64h5"},
		{"-study", "adapt", "-families", "rho-1"}, {"-study", "adapt", "-modes", "features"}, {"-study", "adapt", "-train-games", "5,6"},
		{"-study", "adapt", "-on-policy", "-1"}, {"-seeds", "-2"}, {"-study", "omd", "-lengths", "0"},
		{"-study", "distill", "-noise", "gauss"}, {"-study", "distill", "-dagger-games", "-1"}, {"-study", "distill", "-train-games", "4,5"},
		{"-study", "joint", "-families", "iid1"}, {"-study", "joint", "-families", "markovS3"}, {"-study", "joint", "-noise", "bernoulli,exotic"},
		{"-study", "joint", "-markov-games", "-1"}, {"-study", "joint", "-bayes", "-1"}, {"-study", "joint", "-bayes-labels", "4", "-noise", "exact"},
	} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("parseFlags(%q) accepted", bad)
		}
	}
}

// TestDistillTiny runs the distillation study at a tiny scale: one CSV row
// per (size, seed, T), gaps in [0, 1], the baselines the same for every
// size of a seed, and OMD's first policy uniform (so at T = 1 OMD and the
// uniform policy have the same last-iterate gap).
func TestDistillTiny(t *testing.T) {
	out := t.TempDir()
	job, err := parseFlags([]string{"-study", "distill", "-sizes", "1x8h2,2x8h2", "-train-games", "6", "-dagger-games", "3",
		"-lengths", "1,3", "-test-games", "3", "-steps", "3", "-seeds", "2", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	if err := job(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(out, "distill.csv"))
	if len(rows) != 1+2*2*2 {
		t.Fatalf("distill.csv has %d rows, want 9", len(rows))
	}
	base := map[string]string{}
	for _, r := range rows[1:] {
		for _, c := range []string{"last", "average", "dagger_last", "dagger_average", "omd_last", "omd_average", "avg_training_ne", "uniform"} {
			if v := num(t, r[column(t, rows, c)]); !(v >= 0 && v <= 1) {
				t.Errorf("%s = %v outside [0, 1] in %v", c, v, r)
			}
		}
		key := r[1] + "/" + r[2]
		b := r[column(t, rows, "omd_last")] + " " + r[column(t, rows, "avg_training_ne")]
		if prev, ok := base[key]; ok && prev != b {
			t.Errorf("seed/T %s: the baselines differ across sizes: %s and %s", key, prev, b)
		}
		base[key] = b
		if r[2] == "1" && r[column(t, rows, "omd_last")] != r[column(t, rows, "uniform")] {
			t.Errorf("T = 1: OMD's gap %s is not the uniform policy's %s", r[column(t, rows, "omd_last")], r[column(t, rows, "uniform")])
		}
	}
	for _, name := range []string{"distill.md", "distill.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
}

// TestJointTiny runs the joint-action study at a tiny scale: one CSV row
// per (family, rewards, seed, T), gaps non-negative, the plug-in posterior Nash
// defined in matrix games only, the Bayes predictor (-bayes) in matrix
// games (Bernoulli and low-noise rewards) and in Markov games (Bernoulli
// rewards; its teacher-forced distance in matrix games only), and the baselines of a (family, seed) the
// same for both reward settings where they do not depend on the rewards.
func TestJointTiny(t *testing.T) {
	out := t.TempDir()
	job, err := parseFlags([]string{"-study", "joint", "-families", "iid2,markovS2", "-noise", "bernoulli,low", "-train-games", "6",
		"-markov-games", "4", "-lengths", "2,4", "-test-games", "2", "-steps", "3", "-seeds", "1", "-bayes", "8", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	if err := job(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(out, "joint.csv"))
	if len(rows) != 1+2*2*2 {
		t.Fatalf("joint.csv has %d rows, want 9", len(rows))
	}
	fixed := map[string]string{}
	for _, r := range rows[1:] {
		markov := r[0] == "markovS2"
		for _, c := range []string{"transformer", "omd", "avg_training_ne", "uniform", "posterior_nash", "posterior_nash_tv", "teacher_forced_tv", "bayes", "bayes_tv", "hedge"} {
			v := num(t, r[column(t, rows, c)])
			if (c == "posterior_nash" || c == "posterior_nash_tv" || c == "hedge") && markov {
				if !math.IsNaN(v) {
					t.Errorf("plug-in posterior Nash %v in a Markov game", v)
				}
				continue
			}
			if c == "bayes_tv" && markov {
				if !math.IsNaN(v) {
					t.Errorf("%s %v in %s, %s rewards", c, v, r[0], r[1])
				}
				continue
			}
			if c == "bayes" && markov { // markov.PosteriorNash, Bernoulli and low-noise rewards
				if !(v >= 0) {
					t.Errorf("Bayes predictor %v in %s, %s rewards", v, r[0], r[1])
				}
				continue
			}
			if !(v >= 0) || (!markov && v > 1) {
				t.Errorf("%s = %v out of range in %v", c, v, r)
			}
		}
		key := r[0] + "/" + r[2]
		u := r[column(t, rows, "uniform")]
		if prev, ok := fixed[key]; ok && prev != u {
			t.Errorf("%s: the uniform policy's gap differs between reward settings: %s and %s", key, prev, u)
		}
		fixed[key] = u
	}
	for _, name := range []string{"joint.md", "joint_iid2_bernoulli.png", "joint_markovS2_low.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	// The means reader's row (low noise, the matrix family only).
	md, err := os.ReadFile(filepath.Join(out, "joint.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, means, ok := strings.Cut(string(md), "Reading the cell means only")
	means, _, _ = strings.Cut(means, "\nTraining, per family")
	if !ok {
		t.Fatalf("no means reader's row under the table:\n%s", md)
	}
	for _, T := range []string{"2", "4"} {
		row := rowOf(t, means, "| iid2 | "+T+" |")
		if v := num(t, row[4]); !(v >= 0 && v <= 1) {
			t.Errorf("T = %s: the means reader's gap %v out of [0, 1]", T, v)
		}
	}
	if strings.Contains(means, "markovS2") {
		t.Error("a means reader's row for the Markov family")
	}
	// Training on the Bayes labels (incontext.PosteriorExpert), in matrix
	// and in Markov games.
	out2 := t.TempDir()
	job, err = parseFlags([]string{"-study", "joint", "-families", "iid2,markovS2", "-noise", "bernoulli", "-train-games", "6", "-markov-games", "4",
		"-lengths", "2,4", "-test-games", "2", "-steps", "3", "-seeds", "1", "-bayes-labels", "4", "-out", out2})
	if err != nil {
		t.Fatal(err)
	}
	if err := job(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rows := readCSV(t, filepath.Join(out2, "joint.csv")); len(rows) != 1+2*2 {
		t.Errorf("joint.csv with Bayes labels has %d rows, want 5", len(rows))
	}
}

// TestHedgePeer checks the joint-action Hedge baseline against
// learner.OptimisticMWU fed the estimates by hand: after the reward 1 of
// (0, 1) with prior weight 2, the estimates against the opponent's action 1
// are (1 + 1)/(2 + 1) = 2/3 for action 0 and ½ for action 1.
func TestHedgePeer(t *testing.T) {
	h, err := newHedgePeer(2, 2)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := learner.NewOptimisticMWU(learner.MWUConfig{Actions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.ObserveJoint(0, 0, 1, 1, 0); err != nil {
		t.Fatal(err)
	}
	if err := ref.ObserveRewards([]float64{2.0 / 3, 0.5}); err != nil {
		t.Fatal(err)
	}
	if got, want := h.Policy(0), ref.Policy(0); math.Abs(got[0]-want[0]) > 1e-15 || got[0] <= 0.5 {
		t.Errorf("policy %v, want %v (favouring action 0)", got, want)
	}
	if h.Observe(0, 0, 1, 0) == nil {
		t.Error("Observe without the opponent's action succeeded")
	}
}

// TestJointSizes checks that the joint study takes one model size and
// names the heads of a model without the default four in its table.
func TestJointSizes(t *testing.T) {
	if _, err := parseFlags([]string{"-study", "joint", "-sizes", "1x16h2,2x32h4"}); err == nil || !strings.Contains(err.Error(), "one model size") {
		t.Errorf("two sizes: error %v, want one model size", err)
	}
	md, _ := jointMarkdown(t, "-families", "iid2", "-noise", "bernoulli", "-train-games", "6",
		"-lengths", "2", "-test-games", "2", "-steps", "2", "-seeds", "1", "-sizes", "1x16h2")
	if !strings.Contains(md, "one 1×16 (2 heads) model") {
		t.Errorf("the table does not name the 1×16 model with 2 heads:\n%s", md)
	}
}

// TestJointCosine checks -lr: cosine decays 1e-3 to 0 over each round's
// steps (half-way 5e-4), reaches the training (the validation loss moves),
// keys the saved jobs apart from the constant rate's and is named in the
// table; constant keeps Pretrain's default; anything else is refused.
func TestJointCosine(t *testing.T) {
	if _, err := parseFlags([]string{"-study", "joint", "-lr", "linear"}); err == nil {
		t.Error("-lr linear accepted")
	}
	cfg := jointConfig{cosine: true}
	s := cfg.schedule(100)
	for _, c := range []struct {
		step int
		want float64
	}{{0, 1e-3}, {50, 5e-4}, {100, 0}} {
		if got := s.LR(c.step); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("cosine LR(%d) = %v, want %v", c.step, got, c.want)
		}
	}
	if (jointConfig{}).schedule(100) != nil {
		t.Error("the constant rate is not Pretrain's default (nil)")
	}
	if cfg.version() == (jointConfig{}).version() {
		t.Error("the cosine and the constant runs share their saved jobs' key")
	}
	constMD, cosMD := jointLever(t, "-lr", "cosine")
	if !strings.Contains(cosMD, "decayed by a cosine") || strings.Contains(constMD, "cosine") {
		t.Error("the tables do not say which learning rate trained them")
	}
}

// jointLever runs a tiny joint study without and with the lever's flags
// and returns both tables, failing the test if the lever leaves the
// validation loss unchanged.
func jointLever(t *testing.T, lever ...string) (baseMD, leverMD string) {
	t.Helper()
	args := []string{"-families", "iid2", "-noise", "bernoulli", "-train-games", "6", "-lengths", "2", "-test-games", "2", "-steps", "4", "-seeds", "1"}
	baseMD, baseOut := jointMarkdown(t, args...)
	leverMD, leverOut := jointMarkdown(t, append(args, lever...)...)
	a, b := readCSV(t, filepath.Join(baseOut, "joint.csv")), readCSV(t, filepath.Join(leverOut, "joint.csv"))
	if c := column(t, a, "val_loss"); a[1][c] == b[1][c] {
		t.Errorf("the same validation loss %s without and with %v", a[1][c], lever)
	}
	return baseMD, leverMD
}

// TestJointPaired checks the paired comparison under the joint table:
// differences −0.01, −0.02, −0.03 at the longest T give mean −0.0200, sd
// 0.0100 and t = −0.02/(0.01/√3) = −3.46; the ratio to the Bayes
// predictor is the ratio of the means; Markov groups and single seeds are
// left out.
func TestJointPaired(t *testing.T) {
	cfg := jointConfig{lengths: []int{10, 20}}
	var g []jointResult
	for i, d := range []float64{0.01, 0.02, 0.03} {
		g = append(g, jointResult{Seed: i, Transformer: []float64{0.3, 0.1 - d}, Posterior: []float64{0.3, 0.1}, Bayes: []float64{0.15, 0.04}})
	}
	mk := jointKey{"markovS2", "bernoulli"}
	one := jointKey{"iid2", "low"}
	groups := map[jointKey][]jointResult{{"iid3", "bernoulli"}: g, mk: {{Posterior: []float64{math.NaN()}}, {Posterior: []float64{math.NaN()}}}, one: g[:1]}
	var b strings.Builder
	writeJointPaired(&b, cfg, []jointKey{{"iid3", "bernoulli"}, mk, one}, groups)
	want := "- iid3, bernoulli rewards, T = 20: transformer − plug-in posterior Nash = -0.0200 ± 0.0100 over 3 seeds, paired t = -3.46; transformer ÷ Bayes predictor (means over the seeds): 2.000 (T = 10) 2.000 (T = 20)\n"
	if !strings.HasSuffix(b.String(), want) || strings.Count(b.String(), "\n- ") != 1 {
		t.Errorf("paired lines:\n%s\nwant one line:\n%s", b.String(), want)
	}
}

// TestJointValidationGames checks -validation-games: its bounds, the
// fraction that holds out exactly that many games (and as large a share of
// the on-policy round's), its own saved-jobs key, the table's wording and
// a validation set that changes the validation loss.
func TestJointValidationGames(t *testing.T) {
	for _, bad := range [][]string{{"-validation-games", "-1"}, {"-train-games", "6", "-validation-games", "6", "-families", "iid2"}, {"-markov-games", "4", "-validation-games", "4", "-families", "markovS2"}} {
		if _, err := parseFlags(append([]string{"-study", "joint"}, bad...)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	iid, mk := jointFamily{Name: "iid3"}, jointFamily{Name: "markovS2", Markov: true}
	cfg := jointConfig{trainGames: 30000, markovGames: 2000, valGames: 1000}
	if f := cfg.validationFraction(iid); math.Round(f*30000) != 1000 || math.Round(f*45000) != 1500 {
		t.Errorf("fraction %v holds out %v of 30,000 games and %v of 45,000, want 1,000 and 1,500", f, f*30000, f*45000)
	}
	if f := cfg.validationFraction(mk); f != 0.5 {
		t.Errorf("Markov fraction %v, want 1,000 of 2,000 games", f)
	}
	if f := (jointConfig{trainGames: 30000}).validationFraction(iid); f != 0 {
		t.Errorf("default fraction %v, want 0 (Pretrain's tenth)", f)
	}
	if cfg.version() == (jointConfig{trainGames: 30000, markovGames: 2000}).version() {
		t.Error("-validation-games and the default share their saved jobs' key")
	}
	defMD, valMD := jointLever(t, "-validation-games", "3")
	if !strings.Contains(valMD, "validation by game, 3 held-out games") || strings.Contains(defMD, "held-out games and") {
		t.Error("the tables do not say how many games validated them")
	}
}

// TestJointCurriculum checks -curriculum: the three stages' rounds and
// steps, its own saved-jobs key, the table's wording, a first round whose
// steps add up over the stages and a model that differs from the
// full-length round's.
func TestJointCurriculum(t *testing.T) {
	for _, c := range []struct {
		T, steps int
		want     []curriculumStage
	}{
		{200, 4000, []curriculumStage{{50, 1333}, {100, 1333}, {200, 1334}}},
		{10, 7, []curriculumStage{{3, 2}, {5, 2}, {10, 3}}},
		{2, 4, []curriculumStage{{1, 1}, {1, 1}, {2, 2}}},
	} {
		if got := curriculumStages(c.T, c.steps); !slices.Equal(got, c.want) {
			t.Errorf("curriculumStages(%d, %d) = %v, want %v", c.T, c.steps, got, c.want)
		}
	}
	if (jointConfig{curriculum: true}).version() == (jointConfig{}).version() {
		t.Error("the curriculum and the full-length runs share their saved jobs' key")
	}
	baseMD, curMD := jointLever(t, "-curriculum") // T = 2, 4 steps: stages of 1, 1 and 2 steps on 1, 1 and 2 rounds
	if !strings.Contains(curMD, "three equal stages") || strings.Contains(baseMD, "stages") {
		t.Error("the tables do not say whether a curriculum trained them")
	}
	if !strings.Contains(curMD, "| 4 + 2 |") {
		t.Errorf("the curriculum's steps do not add up to 4 + 2:\n%s", curMD)
	}
}

// TestJointFirstRoundStages checks that -curriculum trains its stages on
// cut trajectories: the composition of incontext.Pretrain calls on the
// first 2, 3 and 5 rounds, each training the last model further, gives
// bit for bit the model and validation loss of jointFirstRound.
func TestJointFirstRoundStages(t *testing.T) {
	cfg := jointConfig{families: []jointFamily{{Name: "iid2", Actions: 2}}, lengths: []int{5}, trainGames: 8, curriculum: true}
	cc, _, err := jointCollectConfig(cfg, cfg.families[0], "bernoulli", 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	train, err := incontext.Collect(ctx, cfg.families[0].prior(), cc)
	if err != nil {
		t.Fatal(err)
	}
	trajs := incontext.AllViews(train)
	enc := incontext.GameEncoder{States: 1, Actions: 2, Opponents: 2, Features: true}
	pc := incontext.PretrainConfig[float32]{Model: transformer.Config{Layers: 1, Heads: 2, Width: 16, FeedForward: 64},
		Train: transformer.TrainConfig[float32]{BatchSize: 4, Steps: 6, TargetLoss: -1, EvalEvery: 1, RestoreBest: true}, ValidationGroup: 2}
	got, res, err := jointFirstRound(ctx, cfg, trajs, enc, pc)
	if err != nil {
		t.Fatal(err)
	}
	var want *transformer.Model[float32]
	var wantRes transformer.TrainResult
	for _, n := range []int{2, 3, 5} {
		cut := make([]incontext.Trajectory[int], len(trajs))
		for i, tr := range trajs {
			cut[i] = incontext.Trajectory[int]{Rounds: tr.Rounds[:n], Labels: tr.Labels[:n]}
		}
		s := pc
		s.Model.MaxLen, s.From, s.Train.Steps = enc.Positions(5), want, 2
		if want, wantRes, err = incontext.Pretrain(ctx, cut, enc, s); err != nil {
			t.Fatal(err)
		}
	}
	if res.BestValLoss != wantRes.BestValLoss || res.Steps != 6 {
		t.Errorf("curriculum: validation loss %v after %d steps, want %v after 6", res.BestValLoss, res.Steps, wantRes.BestValLoss)
	}
	if a, b := got.Params(), want.Params(); !slices.EqualFunc(a, b, func(x, y *transformer.Param[float32]) bool { return slices.Equal(x.Value, y.Value) }) {
		t.Error("the curriculum's model differs from the stages' composition")
	}
}
