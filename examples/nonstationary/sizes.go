package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/icrl-go/icrl/examples/internal/figure"
	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/learner/bandit"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/nonstationary"
	"github.com/icrl-go/icrl/transformer"
)

// The model-size study (-study sizes): does a larger transformer close the
// gap to LinUCB on the paper's low and b = 0.018 scenarios
// (nonstationary-transformers-master §5 claims that the transformer matches
// or beats the experts there)? For every scenario, labelling, model size,
// training-set size and seed it pretrains a transformer on trajectories of
// the scenario's training environments (those of the paper protocol:
// stationary normalised for low, cosine with b ∈ {0.005, …, 0.02} for high)
// played by LinUCB, labelled either by LinUCB's own arm (linucb: the
// paper's expert) or by the arm of highest mean at that round of the hidden
// environment (dpt: the labels of decision-pretrained transformers, Lee et
// al. 2023, with LinUCB's play as the context), and measures its final
// dynamic regret by Monte Carlo on the scenario next to LinUCB's and
// Thompson sampling's on the same environments. The training sets of the
// sizes asked for are nested (the first n trajectories).

type sizesConfig struct {
	d, arms    int
	scenarios  []string // "low", "high-b0.018", "high-b0.025"
	labels     []string // "linucb", "dpt"
	sizes      []sweep.ModelSize
	trainTrajs []int
	trainT     int
	steps      int
	batch      int
	seeds      int
	runs       int
	seed       uint64
	out        string
}

type sizesResult struct {
	Scenario, Labels string
	Size             sweep.ModelSize
	Trajs, Seed      int
	Params, Steps    int
	Regret           float64 // mean final regret over the Monte Carlo runs
	TrainLoss        float64
	ValLoss          float64
}

func runSizes(ctx context.Context, cfg sizesConfig) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	all, trainLow, trainHigh := paperScenarios(cfg.d, cfg.arms, cfg.trainT)
	var scs []scenario
	for _, name := range cfg.scenarios {
		i := indexOf(all, name)
		if i < 0 {
			return fmt.Errorf("unknown scenario %q (want low, high-b0.018 or high-b0.025)", name)
		}
		scs = append(scs, all[i])
	}
	// Experts on the scenarios (the same environments as the transformers').
	experts := map[string][2]nonstationary.Summary{}
	for _, sc := range scs {
		var two [2]nonstationary.Summary
		for i, m := range linearMethods(config{d: cfg.d}, sc.horizon)[1:3] { // LinUCB, TS
			sum, err := nonstationary.MonteCarlo(ctx, sc.gen, m.f, cfg.runs, cfg.seed)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", m.name, sc.name, err)
			}
			two[i] = sum
		}
		experts[sc.name] = two
		fmt.Fprintf(os.Stderr, "%s: LinUCB %.2f ± %.2f, TS %.2f ± %.2f\n", sc.name, two[0].FinalMean, two[0].FinalStd, two[1].FinalMean, two[1].FinalStd)
	}
	// Training data: per scenario, labelling and seed, the largest set.
	maxN := slices.Max(cfg.trainTrajs)
	type dataKey struct {
		scenario, labels string
		seed             int
	}
	data := map[dataKey][]incontext.Trajectory[[][]float64]{}
	linucb := func() (bandit.Learner, error) { return bandit.NewLinUCB(bandit.LinUCBConfig{Dim: cfg.d}) }
	began := time.Now()
	for si, sc := range scs {
		gen := trainHigh
		if sc.name == "low" {
			gen = trainLow
		}
		for _, lab := range cfg.labels {
			for k := range cfg.seeds {
				seed := cfg.seed*1000 + uint64(si*100+k) // the same environments for both labellings
				var trajs []incontext.Trajectory[[][]float64]
				var err error
				switch lab {
				case "linucb":
					trajs, err = incontext.CollectBandits(ctx, gen, nil, linucb, maxN, seed)
				case "dpt":
					trajs, err = incontext.CollectBanditsOptimal(ctx, gen, linucb, maxN, seed)
				default:
					err = fmt.Errorf("unknown labels %q (want linucb or dpt)", lab)
				}
				if err != nil {
					return err
				}
				data[dataKey{sc.name, lab, k}] = trajs
			}
		}
	}
	fmt.Fprintf(os.Stderr, "Collected the trajectories of every scenario, labelling and seed in %s.\n", time.Since(began).Round(time.Millisecond))
	type job struct {
		sc          scenario
		labels      string
		size        sweep.ModelSize
		trajs, seed int
	}
	var jobs []job
	// Seed-major order: a run stopped part-way has every configuration at
	// some seeds.
	for k := range cfg.seeds {
		for _, sc := range scs {
			for _, lab := range cfg.labels {
				for _, n := range cfg.trainTrajs {
					for _, sz := range cfg.sizes {
						jobs = append(jobs, job{sc, lab, sz, n, k})
					}
				}
			}
		}
	}
	enc := incontext.BanditEncoder{Dim: cfg.d, Arms: cfg.arms}
	label := func(i int) string {
		j := jobs[i]
		return fmt.Sprintf("bandit sizes, %s, %s labels, model %v, %d trajectories, seed %d", j.sc.name, j.labels, j.size, j.trajs, j.seed)
	}
	return sweep.Study(ctx, filepath.Join(cfg.out, "jobs-sizes"), cfg.version(), len(jobs), label,
		func(ctx context.Context, i int) (sizesResult, string, error) {
			j := jobs[i]
			tc := transformer.TrainConfig[float32]{BatchSize: cfg.batch, Steps: cfg.steps, Seed: uint64(j.seed), TargetLoss: -1,
				EvalEvery: max(1, min(50, cfg.steps/4)), Patience: 20, RestoreBest: true}
			pc := incontext.PretrainConfig[float32]{Model: j.size.Config(), Train: tc, Hard: true, Seed: uint64(j.seed)}
			stage := sweep.NewStages(ctx)
			defer stage.Done()
			stage.Next("train")
			m, res, err := incontext.Pretrain(ctx, data[dataKey{j.sc.name, j.labels, j.seed}][:j.trajs], enc, pc)
			if err != nil {
				return sizesResult{}, "", err
			}
			stage.Next("play the scenario")
			f, err := incontext.BanditFactory(m, enc, incontext.Config{})
			if err != nil {
				return sizesResult{}, "", err
			}
			sum, err := nonstationary.MonteCarlo(ctx, j.sc.gen, f, cfg.runs, cfg.seed)
			if err != nil {
				return sizesResult{}, "", err
			}
			r := sizesResult{Scenario: j.sc.name, Labels: j.labels, Size: j.size, Trajs: j.trajs, Seed: j.seed,
				Params: m.NumParams(), Steps: res.Steps, Regret: sum.FinalMean, TrainLoss: res.Loss, ValLoss: res.BestValLoss}
			return r, fmt.Sprintf("regret %.2f (LinUCB %.2f)", sum.FinalMean, experts[j.sc.name][0].FinalMean), nil
		},
		func(rs []sizesResult) (string, error) { return writeSizes(cfg, rs, experts) })
}

// version identifies the configuration the saved jobs depend on, besides
// each job's scenario, labels, model size, data size and seed.
func (c sizesConfig) version() string {
	return fmt.Sprintf("sizes v1: d=%d arms=%d T=%d steps=%d batch=%d runs=%d seed=%d", c.d, c.arms, c.trainT, c.steps, c.batch, c.runs, c.seed)
}

func indexOf(scs []scenario, name string) int {
	for i, s := range scs {
		if s.name == name {
			return i
		}
	}
	return -1
}

// sizesGroup collects the seeds of one (scenario, labels, size, data).
type sizesGroup struct {
	scenario, labels string
	size             sweep.ModelSize
	trajs, params    int
	runs             []sizesResult
}

// writeSizes writes the table, the CSV and the figures of the finished
// jobs and returns the table.
func writeSizes(cfg sizesConfig, rs []sizesResult, experts map[string][2]nonstationary.Summary) (string, error) {
	var gs []*sizesGroup
	for _, r := range rs {
		var g *sizesGroup
		for _, x := range gs {
			if x.scenario == r.Scenario && x.labels == r.Labels && x.size == r.Size && x.trajs == r.Trajs {
				g = x
			}
		}
		if g == nil {
			g = &sizesGroup{scenario: r.Scenario, labels: r.Labels, size: r.Size, trajs: r.Trajs, params: r.Params}
			gs = append(gs, g)
		}
		g.runs = append(g.runs, r)
	}
	seeds := sweep.Seeds(rs, func(r sizesResult) int { return r.Seed }, cfg.seeds)
	pm := func(m, s float64) string { return fmt.Sprintf("%.2f ± %.2f", m, s) }
	over := func(g *sizesGroup, prec int, f func(sizesResult) float64) string { // over the seeds
		m, s := sweep.MeanStd(g.runs, f)
		return sweep.PlusMinus(m, s, len(g.runs), prec)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Bandit transformers against model size: final dynamic regret (mean over %d Monte Carlo runs per trained model; mean ± std over %s); training trajectories of %d rounds played by LinUCB, %d steps of batch %d at most (best validation loss kept).\n\n",
		cfg.runs, seeds, cfg.trainT, cfg.steps, cfg.batch)
	b.WriteString("| scenario | labels | model | parameters | training trajectories | transformer | LinUCB | TS | train loss | best val. loss | steps |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range gs {
		e := experts[g.scenario]
		steps, _ := sweep.MeanStd(g.runs, func(r sizesResult) float64 { return float64(r.Steps) })
		fmt.Fprintf(&b, "| %s | %s | %v | %d | %d | %s | %s | %s | %s | %s | %.0f |\n", g.scenario, g.labels, g.size, g.params, g.trajs,
			over(g, 2, func(r sizesResult) float64 { return r.Regret }),
			pm(e[0].FinalMean, e[0].FinalStd), pm(e[1].FinalMean, e[1].FinalStd),
			over(g, 4, func(r sizesResult) float64 { return r.TrainLoss }),
			over(g, 4, func(r sizesResult) float64 { return r.ValLoss }), steps)
	}
	fmt.Fprintf(&b, "\nLinUCB and TS: mean ± std over the %d Monte Carlo runs (their standard errors are std/√%d; the figures draw those). Train loss: the mean training loss over the last epoch of batches, or over all steps when an epoch is longer than the run. Steps: the mean number of optimiser steps taken.\n", cfg.runs, cfg.runs)
	md := b.String()
	if err := os.WriteFile(filepath.Join(cfg.out, "sizes.md"), []byte(md), 0o644); err != nil {
		return "", err
	}
	var rows [][]string
	for _, r := range rs {
		e := experts[r.Scenario]
		rows = append(rows, []string{r.Scenario, r.Labels, strconv.Itoa(r.Size.Layers), strconv.Itoa(r.Size.Width), strconv.Itoa(r.Size.Heads), strconv.Itoa(r.Params),
			strconv.Itoa(r.Trajs), strconv.Itoa(r.Seed), fmtF(r.Regret), fmtF(e[0].FinalMean), fmtF(e[1].FinalMean), fmtF(r.TrainLoss), fmtF(r.ValLoss), strconv.Itoa(r.Steps)})
	}
	if err := sweep.WriteCSV(filepath.Join(cfg.out, "sizes.csv"), []string{"scenario", "labels", "layers", "width", "heads", "parameters", "train_trajectories", "seed", "regret", "linucb", "ts", "train_loss", "best_val_loss", "steps"}, rows); err != nil {
		return "", err
	}
	// One figure per scenario: regret against parameters, one curve per
	// (labels, data), the experts as flat lines.
	for _, sc := range cfg.scenarios {
		var series []figure.Series
		var xs []float64
		for _, lab := range cfg.labels {
			for _, n := range cfg.trainTrajs {
				var x, m, s []float64
				for _, g := range gs {
					if g.scenario == sc && g.labels == lab && g.trajs == n {
						mean, std := sweep.MeanStd(g.runs, func(r sizesResult) float64 { return r.Regret })
						x, m, s = append(x, float64(g.params)), append(m, mean), append(s, std)
					}
				}
				if len(x) > 0 {
					figure.SortByX(x, m, s)
					xs = x
					series = append(series, figure.Series{Name: fmt.Sprintf("transformer, %s labels, %d trajectories", lab, n), X: x, Mean: m, Std: s})
				}
			}
		}
		if len(series) == 0 {
			continue
		}
		e := experts[sc]
		for i, name := range []string{"LinUCB", "TS"} {
			s := figure.Series{Name: name + " (± standard error)", X: xs}
			se := e[i].FinalStd / math.Sqrt(float64(cfg.runs))
			for range xs {
				s.Mean, s.Std = append(s.Mean, e[i].FinalMean), append(s.Std, se)
			}
			series = append(series, s)
		}
		title := fmt.Sprintf("%s scenario: final dynamic regret against model size (mean ± std over %s)", sc, seeds)
		if err := figure.LogLog(filepath.Join(cfg.out, "sizes_"+sc+".png"), title, "parameters", "final dynamic regret", series); err != nil {
			return "", err
		}
	}
	return md, nil
}

// fmtF formats a number for the CSV.
func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
