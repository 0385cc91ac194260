// Command nonstationary reproduces the experiments of
// nonstationary-transformers-master (§5 and App. B; Figures 3–7) and compares
// MASTER with change-detection baselines on SMPyBandits' piecewise-stationary
// problems.
//
// Part 1, the paper's linear bandits (d = 32, 10 actions, noise σ = 1.5,
// w* ~ U[0,1]^d and actions ~ U[−1,1]^d, one fixed action set per
// environment): LinUCB (α = 1), linear Thompson sampling (v² = 0.3),
// MASTER+LinUCB and MASTER+TS, and a pretrained transformer, on
//
//   - the low non-stationarity scenario (1,000 rounds, rewards normalised to
//     [0,1] and elevated by 3 in rounds [50,100] and [350,400]; Figures 3
//     and 4);
//   - the high non-stationarity scenario r = (⟨a,w⟩ + ε)·cos(2πbt) with
//     b = 0.018 (200 rounds; Figures 3 and 5) and b = 0.025 (Figures 6 and
//     7).
//
// For each it writes the cumulative regret (cumregret_*.png) and the
// per-round suboptimality f*_t − f_t(a_t) (subopt_*.png) with ±1 std bands
// over the Monte Carlo runs.
//
// The transformers are trained as the paper describes: for the low scenario
// on stationary environments with normalised rewards, for the high one on
// cosine environments with b ∈ {0.005, 0.01, 0.015, 0.02}, imitating LinUCB
// (hard labels: LinUCB's arm on the same history, with LinUCB acting). The
// paper's model (GPT-2, 16 layers, 16 heads, 200 epochs on 100,000
// trajectories) does not train on 2 CPU cores in minutes; the quick scale
// uses 2 layers, 4 heads, width 64 and a few hundred trajectories of 200
// rounds, and plays the 1,000-round low scenario with a sliding context of
// the last rounds that fit (incontext.Bandit). -scale paper raises the
// data, the epochs and the number of runs; it is still far below the
// paper's model.
//
// MASTER uses the scaled test constants of nonstationary.ScaledMasterConfig
// with ρ = bandit.RhoOFUL; the paper does not state its constants, and with
// the literal ones (Wei and Luo 2021) the tests never fire at these horizons
// (see also Gerogiannis et al. 2024), so MASTER then reduces to MALG's
// multi-scale restarts.
//
// Part 2, SMPyBandits' problems 1 and 2 (Bernoulli, 3 arms, 4 change points,
// T = 2000): UCB1, MASTER+UCB1 (scaled constants), CUSUM restart, sliding-
// window UCB, discounted UCB and the oracle that restarts UCB1 at the true
// change points (smpy_*.png).
//
// -study sizes sweeps the transformer's size and training data on the low
// and b = 0.018 scenarios, with LinUCB's labels and with optimal-arm (DPT)
// labels, next to LinUCB and TS (sizes.go); it saves each finished run
// under its output folder and resumes when run again.
//
// Usage:
//
//	go run ./examples/nonstationary [-study paper|sizes] [-scale quick|paper] [-runs N] [-out DIR]
//
// It prints a table of the final cumulative regret (mean ± std over runs)
// and writes results.md, curves.csv and the figures. Every Monte Carlo run r
// uses the PCG stream (seed, r), so the numbers do not depend on GOMAXPROCS.
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/icrl-go/icrl/examples/internal/figure"
	"github.com/icrl-go/icrl/examples/internal/progress"
	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/learner/bandit"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/nonstationary"
	"github.com/icrl-go/icrl/transformer"
)

type config struct {
	d, arms       int
	runs          int
	trainTraj     int
	trainT        int
	epochs        int
	width, layers int
	smpyRuns      int
	seed          uint64
	out           string
	skipTF        bool
}

func main() { sweep.Main("nonstationary", parseFlags) }

// parseFlags reads the command line and returns the study to run.
func parseFlags(args []string) (func(context.Context) error, error) {
	fs := flag.NewFlagSet("nonstationary", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: go run ./examples/nonstationary [-study paper|sizes] [-scale quick|paper] [flags]

Studies:
  paper  the paper's experiments (default): LinUCB, TS, MASTER and a transformer on
         the low and high non-stationarity scenarios, and SMPyBandits' problems
  sizes  transformers against model size and training data on the low and
         b = 0.018 scenarios, with LinUCB's labels and with optimal-arm (DPT)
         labels, next to LinUCB and TS
  posterior
         transformers trained on the posterior probability of the best arm
         (trajectories played by LinUCB, uniform and posterior sampling) on
         the low, b = 0.018 and b = 0.025 scenarios, next to LinUCB, TS,
         MASTER+LinUCB, uniform and posterior sampling, paired over the runs

Flags (0 or empty means the default at the chosen scale):
`)
		fs.PrintDefaults()
	}
	study := fs.String("study", "paper", "paper, sizes or posterior")
	scale := fs.String("scale", "quick", "quick or paper")
	runs := fs.Int("runs", 0, "Monte Carlo runs per method and scenario (paper: 20 quick, 100 paper; sizes: 5 quick, 20 paper; posterior: 20 quick, 100 paper)")
	out := fs.String("out", filepath.Join("out", "nonstationary"), "output folder")
	seed := fs.Uint64("seed", 1, "base seed")
	noTF := fs.Bool("no-transformer", false, "paper: skip the transformer (expert algorithms only)")
	sizes := fs.String("sizes", "", "sizes: model sizes LAYERSxWIDTH[hHEADS], comma-separated (heads default to width/16)")
	trajs := fs.String("train-trajs", "", "sizes: comma-separated (nested) numbers of training trajectories; posterior: one number (300 quick, 4000 paper)")
	labelSamples := fs.Int("label-samples", 0, "posterior: posterior draws per label (64 quick, 256 paper)")
	families := fs.String("families", "low,high", "posterior: the training families to run, low and high (the high one serves b = 0.018 and 0.025)")
	freqs := fs.String("train-freqs", "paper", "posterior: the high family's training frequencies b, comma-separated, or paper (0.005,0.01,0.015,0.02) or grid (16 evenly spaced from 0.005 to 0.02)")
	labels := fs.String("labels", "linucb,dpt", "sizes: comma-separated labellings: linucb (the paper's expert) and dpt (the optimal arm)")
	scen := fs.String("scenarios", "low,high-b0.018", "sizes: comma-separated scenarios: low, high-b0.018, high-b0.025")
	steps := fs.Int("steps", 0, "sizes: optimiser steps per model, batch 8 (20 quick, 500 paper); posterior: batch 8 quick, 16 paper (150 quick, 2000 paper)")
	seeds := fs.Int("seeds", 0, "training seeds (sizes: 2; posterior: 1 quick, 2 paper)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *scale != "quick" && *scale != "paper" {
		return nil, fmt.Errorf("unknown -scale %q (want quick or paper)", *scale)
	}
	if *runs < 0 || *steps < 0 || *seeds < 0 || *labelSamples < 0 {
		return nil, errors.New("-runs, -steps, -seeds and -label-samples must not be negative")
	}
	paper := *scale == "paper"
	pick := func(v, quick, paperV int) int {
		switch {
		case v > 0:
			return v
		case paper:
			return paperV
		}
		return quick
	}
	switch *study {
	case "paper":
		cfg := config{d: 32, arms: 10, seed: *seed, out: *out, skipTF: *noTF, width: 64, layers: 2}
		if paper {
			cfg.runs, cfg.trainTraj, cfg.trainT, cfg.epochs, cfg.smpyRuns = 100, 4000, 200, 20, 200
		} else {
			cfg.runs, cfg.trainTraj, cfg.trainT, cfg.epochs, cfg.smpyRuns = 20, 400, 200, 16, 50
		}
		if *runs > 0 {
			cfg.runs = *runs
		}
		return func(ctx context.Context) error { return run(ctx, cfg) }, nil
	case "sizes":
		cfg := sizesConfig{d: 32, arms: 10, trainT: 200, batch: 8, seed: *seed, out: *out,
			runs: pick(*runs, 5, 20), steps: pick(*steps, 20, 500), seeds: pick(*seeds, 2, 2)}
		sz, tr := "1x16h2,2x32h4", "32,64"
		if paper {
			sz, tr = "2x64h4,4x128h8,6x128h8", "1000,4000"
		}
		if *sizes != "" {
			sz = *sizes
		}
		if *trajs != "" {
			tr = *trajs
		}
		var err error
		if cfg.sizes, err = sweep.ParseSizes(sz); err != nil {
			return nil, err
		}
		if cfg.trainTrajs, err = sweep.ParseInts(tr); err != nil {
			return nil, err
		}
		cfg.labels = strings.Split(*labels, ",")
		cfg.scenarios = strings.Split(*scen, ",")
		for _, l := range cfg.labels {
			if l != "linucb" && l != "dpt" {
				return nil, fmt.Errorf("unknown -labels item %q (want linucb or dpt)", l)
			}
		}
		return func(ctx context.Context) error { return runSizes(ctx, cfg) }, nil
	case "posterior":
		cfg, err := parsePosterior(paper, pick, *runs, *steps, *seeds, *labelSamples, *trajs, *families, *freqs, *seed, *out)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context) error { return runPosterior(ctx, cfg) }, nil
	}
	return nil, fmt.Errorf("unknown -study %q (want paper, sizes or posterior)", *study)
}

// curve is one method's Monte Carlo summary on one scenario.
type curve struct {
	scenario, method string
	sum              nonstationary.Summary
}

// scenario is an environment family of the paper.
type scenario struct {
	name    string
	horizon int
	gen     func(rng *rand.Rand) (nonstationary.Env, error)
}

// run runs the paper's experiments. On cancellation it writes the table,
// CSV and figures of the finished (scenario, method) pairs and returns the
// context's error.
func run(ctx context.Context, cfg config) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	start := time.Now()
	ctx, stage, report := sweep.TimePhases(ctx, os.Stderr)
	defer report()
	scenarios, trainLow, trainHigh := paperScenarios(cfg.d, cfg.arms, cfg.trainT)

	// Transformers.
	var tfLow, tfHigh bandit.Factory
	if !cfg.skipTF {
		stage.Next("train the transformers")
		var err error
		if tfLow, err = train(ctx, cfg, "low (stationary, normalised)", trainLow); err != nil {
			return err
		}
		if tfHigh, err = train(ctx, cfg, "high (cosine, b ∈ {0.005, 0.01, 0.015, 0.02})", trainHigh); err != nil {
			return err
		}
	}

	var curves []curve
	bar := progress.Stderr()
	defer bar.Clear()
	for _, sc := range scenarios {
		methods := linearMethods(cfg, sc.horizon)
		if !cfg.skipTF {
			tf := tfHigh
			if sc.name == "low" {
				tf = tfLow
			}
			methods = append(methods, method{"transformer", tf})
		}
		for _, m := range methods {
			stage.Next("play: " + m.name)
			sum, err := nonstationary.MonteCarlo(ctx, sc.gen, m.f, cfg.runs, cfg.seed)
			if err != nil {
				return finishRun(ctx, cfg, curves, start, fmt.Errorf("%s on %s: %w", m.name, sc.name, err))
			}
			curves = append(curves, curve{sc.name, m.name, sum})
			bar.Done("%s, %s: final regret %.2f ± %.2f (%s)", sc.name, m.name, sum.FinalMean, sum.FinalStd, time.Since(start).Round(time.Second))
		}
	}
	for p := 1; p <= 2; p++ {
		name := fmt.Sprintf("smpy-problem%d", p)
		methods, err := smpyMethods(p, 2000)
		if err != nil {
			return err
		}
		gen := func(*rand.Rand) (nonstationary.Env, error) { return nonstationary.NewSMPyProblem(p, 2000) }
		for _, m := range methods {
			stage.Next("SMPy problems: " + m.name)
			sum, err := nonstationary.MonteCarlo(ctx, gen, m.f, cfg.smpyRuns, cfg.seed)
			if err != nil {
				return finishRun(ctx, cfg, curves, start, fmt.Errorf("%s on %s: %w", m.name, name, err))
			}
			curves = append(curves, curve{name, m.name, sum})
			bar.Done("%s, %s: final regret %.2f ± %.2f (%s)", name, m.name, sum.FinalMean, sum.FinalStd, time.Since(start).Round(time.Second))
		}
	}
	stage.Next("write the table and figures")
	return finishRun(ctx, cfg, curves, start, nil)
}

// finishRun prints and writes the table, CSV and figures of the curves
// computed so far, unless err is a failure rather than a cancellation, and
// returns err.
func finishRun(ctx context.Context, cfg config, curves []curve, start time.Time, err error) error {
	if err != nil && (ctx.Err() == nil || len(curves) == 0) {
		return err
	}
	md := table(curves, cfg)
	fmt.Print(md)
	if err := os.WriteFile(filepath.Join(cfg.out, "results.md"), []byte(md), 0o644); err != nil {
		return err
	}
	if err := writeCSV(filepath.Join(cfg.out, "curves.csv"), curves); err != nil {
		return err
	}
	if err := plots(cfg, curves); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s in %s\n", cfg.out, time.Since(start).Round(time.Second))
	return err
}

// paperScenarios returns the paper's three linear scenarios (low, b = 0.018
// and b = 0.025) and the environments the transformers train on for the low
// scenario (stationary, normalised rewards) and the high ones (cosine with
// b ∈ {0.005, 0.01, 0.015, 0.02}), of trainT rounds.
func paperScenarios(d, A, trainT int) (scenarios []scenario, trainLow, trainHigh func(*rand.Rand) (nonstationary.Env, error)) {
	fixed := func(rng *rand.Rand) ([]float64, nonstationary.ActionSets, error) {
		w, acts := nonstationary.SampleLBMInstance(d, A, rng)
		set, err := nonstationary.FixedActions(acts)
		return w, set, err
	}
	low := scenario{"low", 1000, func(rng *rand.Rand) (nonstationary.Env, error) {
		w, set, err := fixed(rng)
		if err != nil {
			return nil, err
		}
		return nonstationary.NewLowNonStationary(nonstationary.PaperLowConfig(w, set))
	}}
	cosine := func(b float64, T int) func(*rand.Rand) (nonstationary.Env, error) {
		return func(rng *rand.Rand) (nonstationary.Env, error) {
			w, set, err := fixed(rng)
			if err != nil {
				return nil, err
			}
			return nonstationary.NewCosine(w, set, 1.5, b, T)
		}
	}
	scenarios = []scenario{low, {"high-b0.018", 200, cosine(0.018, 200)}, {"high-b0.025", 200, cosine(0.025, 200)}}
	trainLow = func(rng *rand.Rand) (nonstationary.Env, error) {
		w, set, err := fixed(rng)
		if err != nil {
			return nil, err
		}
		c := nonstationary.PaperLowConfig(w, set)
		c.Horizon, c.Windows = trainT, nil // normalised rewards, no elevation
		return nonstationary.NewLowNonStationary(c)
	}
	bs := []float64{0.005, 0.01, 0.015, 0.02}
	trainHigh = func(rng *rand.Rand) (nonstationary.Env, error) {
		return cosine(bs[rng.IntN(len(bs))], trainT)(rng)
	}
	return scenarios, trainLow, trainHigh
}

type method struct {
	name string
	f    bandit.Factory
}

// linearMethods returns the paper's expert algorithms and their MASTER
// variants for a horizon.
func linearMethods(cfg config, T int) []method {
	linucb := func() (bandit.Learner, error) { return bandit.NewLinUCB(bandit.LinUCBConfig{Dim: cfg.d}) }
	lints := func() (bandit.Learner, error) { return bandit.NewLinTS(bandit.LinTSConfig{Dim: cfg.d}) }
	rho := nonstationary.RhoFunc(bandit.RhoOFUL(cfg.d, T, 1))
	mc := nonstationary.ScaledMasterConfig(T, rho)
	return []method{
		{"uniform", func() (bandit.Learner, error) { return uniform{}, nil }},
		{"LinUCB", linucb},
		{"TS", lints},
		{"MASTER+LinUCB", nonstationary.MasterFactory(mc, linucb)},
		{"MASTER+TS", nonstationary.MasterFactory(mc, lints)},
	}
}

// smpyMethods returns the K-armed methods for SMPyBandits' problem p.
func smpyMethods(p, T int) ([]method, error) {
	_, starts, err := nonstationary.SMPyProblem(p, T)
	if err != nil {
		return nil, err
	}
	const K = 3
	ucb := func() (bandit.Learner, error) { return bandit.NewUCB1(bandit.UCB1Config{Arms: K, Horizon: T}) }
	rho := nonstationary.RhoFunc(bandit.RhoUCB1(K, T, 1))
	breaks := len(starts) - 1
	return []method{
		{"UCB1", ucb},
		{"MASTER+UCB1", nonstationary.MasterFactory(nonstationary.ScaledMasterConfig(T, rho), ucb)},
		{"CUSUM-UCB1", func() (bandit.Learner, error) {
			return nonstationary.NewCUSUMRestart(ucb, nonstationary.CUSUMConfig{Arms: K, Horizon: T, Breakpoints: breaks})
		}},
		{"SW-UCB", func() (bandit.Learner, error) {
			return nonstationary.NewSlidingWindowUCB(nonstationary.SlidingWindowUCBConfig{Arms: K, Horizon: T, Breakpoints: breaks})
		}},
		{"D-UCB", func() (bandit.Learner, error) {
			return nonstationary.NewDiscountedUCB(nonstationary.DiscountedUCBConfig{Arms: K})
		}},
		{"oracle-UCB1", func() (bandit.Learner, error) { return nonstationary.NewOracleRestart(ucb, starts) }},
	}, nil
}

// train pretrains a transformer on LinUCB-labelled trajectories of the
// given environments and returns a factory of in-context bandit learners (incontext.Bandit).
func train(ctx context.Context, cfg config, what string, gen func(*rand.Rand) (nonstationary.Env, error)) (bandit.Factory, error) {
	t0 := time.Now()
	linucb := func() (bandit.Learner, error) { return bandit.NewLinUCB(bandit.LinUCBConfig{Dim: cfg.d}) }
	trajs, err := incontext.CollectBandits(ctx, gen, nil, linucb, cfg.trainTraj, cfg.seed+1000)
	if err != nil {
		return nil, err
	}
	enc := incontext.BanditEncoder{Dim: cfg.d, Arms: cfg.arms}
	bar := progress.Stderr()
	model := transformer.Config{Layers: cfg.layers, Heads: 4, Width: cfg.width, FeedForward: 4 * cfg.width}
	tc := transformer.TrainConfig[float32]{BatchSize: 16, Epochs: cfg.epochs, Seed: cfg.seed, TargetLoss: -1,
		Progress: func(p transformer.Progress) {
			bar.Update("training the transformer on %s: step %d, epoch %.1f, loss %.4f, %.0f tokens/s", what, p.Step, p.Epoch, p.Loss, p.TokensPerSec)
		}, ProgressEvery: 20}
	// The expert's arms are the labels (hard targets), every trajectory
	// trains (no validation split) and training runs for the epochs given.
	pc := incontext.PretrainConfig[float32]{Model: model, Train: tc, Hard: true, ValidationFraction: -1, Seed: cfg.seed}
	m, res, err := incontext.Pretrain(ctx, trajs, enc, pc)
	bar.Clear()
	if err != nil {
		return nil, err
	}
	fmt.Printf("trained the transformer on %s: %d steps, loss %.4f, %s\n", what, res.Steps, res.Loss, time.Since(t0).Round(time.Second))
	return incontext.BanditFactory(m, enc, incontext.Config{})
}

func table(curves []curve, cfg config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Final cumulative (dynamic) regret, mean ± std over %d runs (linear scenarios) and %d runs (SMPyBandits problems).\n\n", cfg.runs, cfg.smpyRuns)
	b.WriteString("| scenario | method | final regret |\n|---|---|---|\n")
	for _, c := range curves {
		fmt.Fprintf(&b, "| %s | %s | %.2f ± %.2f |\n", c.scenario, c.method, c.sum.FinalMean, c.sum.FinalStd)
	}
	return b.String()
}

func writeCSV(path string, curves []curve) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"scenario", "method", "t", "cum_regret_mean", "cum_regret_std", "suboptimality_mean"})
	for _, c := range curves {
		for t := range c.sum.MeanCumRegret {
			w.Write([]string{c.scenario, c.method, strconv.Itoa(t + 1),
				strconv.FormatFloat(c.sum.MeanCumRegret[t], 'g', 8, 64),
				strconv.FormatFloat(c.sum.StdCumRegret[t], 'g', 8, 64),
				strconv.FormatFloat(c.sum.MeanInstRegret[t], 'g', 8, 64)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// plots writes the cumulative-regret and suboptimality figures.
func plots(cfg config, curves []curve) error {
	byScenario := map[string][]curve{}
	var order []string
	for _, c := range curves {
		if _, ok := byScenario[c.scenario]; !ok {
			order = append(order, c.scenario)
		}
		byScenario[c.scenario] = append(byScenario[c.scenario], c)
	}
	for _, sc := range order {
		var cum, sub []figure.Series
		for _, c := range byScenario[sc] {
			n := len(c.sum.MeanCumRegret)
			x := make([]float64, n)
			zero := make([]float64, n)
			for t := range x {
				x[t] = float64(t + 1)
			}
			cum = append(cum, figure.Series{Name: c.method, X: x, Mean: c.sum.MeanCumRegret, Std: c.sum.StdCumRegret})
			sub = append(sub, figure.Series{Name: c.method, X: x, Mean: smooth(c.sum.MeanInstRegret, 10), Std: zero})
		}
		prefix := "cumregret_"
		if strings.HasPrefix(sc, "smpy") {
			prefix = "smpy_"
		}
		title := fmt.Sprintf("%s: cumulative dynamic regret (mean ± std)", sc)
		if err := figure.Lines(filepath.Join(cfg.out, prefix+sc+".png"), title, "round t", "cumulative regret", cum); err != nil {
			return err
		}
		if !strings.HasPrefix(sc, "smpy") {
			title := fmt.Sprintf("%s: suboptimality f*_t − f_t(a_t) (mean over runs, moving average of 10 rounds)", sc)
			if err := figure.Lines(filepath.Join(cfg.out, "subopt_"+sc+".png"), title, "round t", "suboptimality", sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// smooth returns the trailing moving average of v over w values.
func smooth(v []float64, w int) []float64 {
	out := make([]float64, len(v))
	var s float64
	for i, x := range v {
		s += x
		if i >= w {
			s -= v[i-w]
		}
		out[i] = s / float64(min(i+1, w))
	}
	return out
}

// uniform plays a uniformly random arm: the no-learning reference.
type uniform struct{}

func (uniform) Reset() {}

func (uniform) Act(t int, actions [][]float64, rng *rand.Rand) (int, float64) {
	return rng.IntN(len(actions)), 0
}

func (uniform) Observe(int, [][]float64, int, float64) error { return nil }

// parsePosterior returns the configuration of the posterior study from its
// flags.
func parsePosterior(paper bool, pick func(v, quick, paper int) int, runs, steps, seeds, labelSamples int, trajs, families, freqs string, seed uint64, out string) (posteriorConfig, error) {
	cfg := posteriorConfig{d: 32, arms: 10, trainT: 200, seed: seed, out: out,
		runs: pick(runs, 20, 100), steps: pick(steps, 150, 2000), batch: pick(0, 8, 16), seeds: pick(seeds, 1, 2),
		trajs: 300, labelSamples: pick(labelSamples, 64, 256)}
	if paper {
		cfg.trajs = 4000
	}
	for _, f := range strings.Split(families, ",") {
		if f != "low" && f != "high" {
			return cfg, fmt.Errorf("unknown -families item %q (want low or high)", f)
		}
		cfg.families = append(cfg.families, f)
	}
	switch freqs {
	case "paper":
		cfg.freqs = []float64{0.005, 0.01, 0.015, 0.02}
	case "grid":
		for i := range 16 {
			cfg.freqs = append(cfg.freqs, 0.005+0.001*float64(i))
		}
	default:
		for _, f := range strings.Split(freqs, ",") {
			b, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || !(b >= 0) || math.IsInf(b, 0) {
				return cfg, fmt.Errorf("-train-freqs item %q is not a frequency", f)
			}
			cfg.freqs = append(cfg.freqs, b)
		}
	}
	if trajs != "" {
		n, err := strconv.Atoi(trajs)
		if err != nil || n < 3 {
			return cfg, fmt.Errorf("-train-trajs = %q: posterior takes one number ≥ 3", trajs)
		}
		cfg.trajs = n
	}
	return cfg, nil
}
