package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/learner/bandit"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/nonstationary"
	"github.com/icrl-go/icrl/transformer"
)

// The posterior-label study (-study posterior): can a transformer trained
// on the posterior probability of the best arm beat LinUCB, as
// nonstationary-transformers-master §5 reports for its LinUCB-imitating
// transformer? For each training family (low: stationary normalised
// environments; high: cosine environments with b ∈ {0.005, …, 0.02}) and
// training seed it collects trajectories played by a mix of context
// policies (a third each by LinUCB, the uniform policy and posterior
// sampling), labels every round with the posterior probability of each arm
// being the best under the family's prior (nonstationary.PosteriorSampling,
// whose Gaussian stands in for the uniform prior of w), trains the paper's
// 2 × 64 model on the soft labels and measures its final dynamic regret on
// the family's test scenarios. Beside it, on the same environments (the
// Monte Carlo seed is shared): LinUCB, TS, MASTER+LinUCB, the uniform
// policy, posterior sampling with the test scenario's prior (the reference
// a prior-aware learner is measured against: it knows the windows of the
// low scenario and the frequency b of a high one) and posterior sampling
// with the training family's prior (what the transformer's labels assume:
// no windows, b one of the four training frequencies).

type posteriorConfig struct {
	d, arms      int
	trainT       int
	trajs        int
	steps, batch int
	seeds        int
	runs         int
	labelSamples int
	freqs        []float64 // the training frequencies of the high family
	families     []string  // the training families to run: low, high
	seed         uint64
	out          string
}

// posteriorResult is one saved job: the baselines of one scenario
// (Model false) or a model trained on one family and seed with its
// evaluations on the family's scenarios.
type posteriorResult struct {
	Model     bool
	Family    string // the training family of a model: low or high
	Seed      int
	Scenarios []string
	Methods   []string
	Finals    [][]float64 // per (scenario, method) in order, the runs' final regrets
	TrainLoss float64
	ValLoss   float64
	Steps     int
	// HeldTV and UniformTV are the teacher-forced total-variation
	// distances of the model and of the uniform prediction to the posterior
	// labels on held-out trajectories collected like the training data.
	HeldTV, UniformTV float64
}

func (c posteriorConfig) version() string {
	return fmt.Sprintf("posterior v2: d=%d arms=%d T=%d trajs=%d steps=%d batch=%d runs=%d labels=%d freqs=%v seed=%d", c.d, c.arms, c.trainT, c.trajs, c.steps, c.batch, c.runs, c.labelSamples, c.freqs, c.seed)
}

// familyOf returns the training family of a test scenario.
func familyOf(scenario string) string {
	if scenario == "low" {
		return "low"
	}
	return "high"
}

// testPrior returns the prior of a test scenario for posterior sampling:
// the low family with the paper's windows, or the cosine family at the
// scenario's frequency.
func testPrior(cfg posteriorConfig, scenario string) func([][]float64) (nonstationary.LinearPrior, error) {
	if scenario == "low" {
		return func(a [][]float64) (nonstationary.LinearPrior, error) {
			c := nonstationary.PaperLowConfig(nil, nonstationary.ActionSets{})
			return nonstationary.LowPrior(a, c.NoiseStd, c.Windows, c.Shift, 4000, rand.New(rand.NewPCG(cfg.seed, 7)))
		}
	}
	b, _ := strconv.ParseFloat(strings.TrimPrefix(scenario, "high-b"), 64)
	return func([][]float64) (nonstationary.LinearPrior, error) {
		return nonstationary.HighPrior(cfg.d, 1.5, []float64{b})
	}
}

// trainPrior returns the prior of a training family.
func trainPrior(cfg posteriorConfig, family string) func([][]float64) (nonstationary.LinearPrior, error) {
	if family == "low" {
		return func(a [][]float64) (nonstationary.LinearPrior, error) {
			return nonstationary.LowPrior(a, 1.5, nil, 0, 4000, rand.New(rand.NewPCG(cfg.seed, 7)))
		}
	}
	return func([][]float64) (nonstationary.LinearPrior, error) {
		return nonstationary.HighPrior(cfg.d, 1.5, cfg.freqs)
	}
}

func posteriorFactory(prior func([][]float64) (nonstationary.LinearPrior, error), samples int) bandit.Factory {
	return func() (bandit.Learner, error) {
		return nonstationary.NewPosteriorSampling(nonstationary.PosteriorConfig{Prior: prior, LabelSamples: samples})
	}
}

func runPosterior(ctx context.Context, cfg posteriorConfig) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	scs, trainLow, _ := paperScenarios(cfg.d, cfg.arms, cfg.trainT)
	trainHigh := cosineFamily(cfg.d, cfg.arms, cfg.trainT, cfg.freqs)
	type job struct {
		model  bool
		sc     scenario // baselines
		family string   // models
		seed   int
	}
	var jobs []job
	for _, sc := range scs {
		if slices.Contains(cfg.families, familyOf(sc.name)) {
			jobs = append(jobs, job{sc: sc})
		}
	}
	for k := range cfg.seeds {
		for _, f := range []string{"low", "high"} {
			if slices.Contains(cfg.families, f) {
				jobs = append(jobs, job{model: true, family: f, seed: k})
			}
		}
	}
	label := func(i int) string {
		j := jobs[i]
		if !j.model {
			return "posterior labels: baselines on " + j.sc.name
		}
		return fmt.Sprintf("posterior labels: %s family, seed %d", j.family, j.seed)
	}
	enc := incontext.BanditEncoder{Dim: cfg.d, Arms: cfg.arms}
	return sweep.Study(ctx, filepath.Join(cfg.out, "jobs-posterior"), cfg.version(), len(jobs), label,
		func(ctx context.Context, i int) (posteriorResult, string, error) {
			j := jobs[i]
			if !j.model {
				return posteriorBaselines(ctx, cfg, j.sc)
			}
			gen := trainHigh
			if j.family == "low" {
				gen = trainLow
			}
			return posteriorModel(ctx, cfg, enc, j.family, gen, scs, j.seed)
		},
		func(rs []posteriorResult) (string, error) { return writePosterior(cfg, rs) })
}

// posteriorBaselines runs the classical learners and posterior sampling on
// one scenario.
func posteriorBaselines(ctx context.Context, cfg posteriorConfig, sc scenario) (posteriorResult, string, error) {
	r := posteriorResult{Scenarios: []string{sc.name}}
	methods := linearMethods(config{d: cfg.d}, sc.horizon)[:4] // uniform, LinUCB, TS, MASTER+LinUCB
	methods = append(methods, method{"posterior sampling", posteriorFactory(testPrior(cfg, sc.name), 0)},
		method{"posterior sampling, training prior", posteriorFactory(trainPrior(cfg, familyOf(sc.name)), 0)})
	var note []string
	defer sweep.Phase(ctx, "play the baselines")()
	for _, m := range methods {
		sum, err := nonstationary.MonteCarlo(ctx, sc.gen, m.f, cfg.runs, cfg.seed)
		if err != nil {
			return r, "", fmt.Errorf("%s on %s: %w", m.name, sc.name, err)
		}
		r.Methods = append(r.Methods, m.name)
		r.Finals = append(r.Finals, sum.Finals)
		note = append(note, fmt.Sprintf("%s %.1f", m.name, sum.FinalMean))
	}
	return r, strings.Join(note, ", "), nil
}

// posteriorModel collects the labelled trajectories of one family and
// seed, trains the model and evaluates it on the family's scenarios.
func posteriorModel(ctx context.Context, cfg posteriorConfig, enc incontext.BanditEncoder, family string, gen func(*rand.Rand) (nonstationary.Env, error), scs []scenario, seed int) (posteriorResult, string, error) {
	r := posteriorResult{Model: true, Family: family, Seed: seed, Methods: []string{"transformer"}}
	prior := trainPrior(cfg, family)
	labeler := func() (incontext.BanditLabeler, error) {
		return nonstationary.NewPosteriorSampling(nonstationary.PosteriorConfig{Prior: prior, LabelSamples: cfg.labelSamples})
	}
	behaviours := []bandit.Factory{
		func() (bandit.Learner, error) { return bandit.NewLinUCB(bandit.LinUCBConfig{Dim: cfg.d}) },
		func() (bandit.Learner, error) { return uniform{}, nil },
		posteriorFactory(prior, 0),
	}
	fam := uint64(0)
	if family == "high" {
		fam = 1
	}
	parts := make([][]incontext.Trajectory[[][]float64], len(behaviours)) // the training trajectories per behaviour
	var held []incontext.Trajectory[[][]float64]
	heldN := max(1, cfg.trajs/20/len(behaviours))
	stage := sweep.NewStages(ctx)
	defer stage.Done()
	stage.Next("collect and label the trajectories")
	for b, beh := range behaviours {
		n := cfg.trajs / len(behaviours)
		if b < cfg.trajs%len(behaviours) {
			n++
		}
		t, err := incontext.CollectBanditsLabeled(ctx, gen, beh, labeler, n+heldN, cfg.seed*1000+fam*100+uint64(seed)*10+uint64(b))
		if err != nil {
			return r, "", err
		}
		parts[b], held = t[:n], append(held, t[n:]...)
	}
	// Interleave the behaviours so that the validation split (the last
	// trajectories) holds all three.
	mixed := make([]incontext.Trajectory[[][]float64], 0, cfg.trajs)
	for i := range len(parts[0]) {
		for _, p := range parts {
			if i < len(p) {
				mixed = append(mixed, p[i])
			}
		}
	}
	model := transformer.Config{Layers: 2, Heads: 4, Width: 64, FeedForward: 256}
	tc := transformer.TrainConfig[float32]{BatchSize: cfg.batch, Steps: cfg.steps, Seed: cfg.seed*1000 + uint64(seed), TargetLoss: -1,
		EvalEvery: max(1, min(50, cfg.steps/4)), Patience: 20, RestoreBest: true}
	pc := incontext.PretrainConfig[float32]{Model: model, Train: tc, Seed: cfg.seed*1000 + uint64(seed)}
	stage.Next("train")
	m, res, err := incontext.Pretrain(ctx, mixed, enc, pc)
	if err != nil {
		return r, "", err
	}
	r.TrainLoss, r.ValLoss, r.Steps = res.Loss, res.BestValLoss, res.Steps
	stage.Next("play the scenarios")
	st, err := incontext.Imitation[float32](m, enc, held, incontext.Config{})
	if err != nil {
		return r, "", err
	}
	r.HeldTV = st.TV
	for _, tr := range held {
		for _, lab := range tr.Labels {
			var tv float64
			for _, p := range lab {
				tv += math.Abs(p - 1/float64(len(lab)))
			}
			r.UniformTV += tv / 2 / float64(len(tr.Labels)*len(held))
		}
	}
	f, err := incontext.BanditFactory(m, enc, incontext.Config{})
	if err != nil {
		return r, "", err
	}
	var note []string
	for _, sc := range scs {
		if familyOf(sc.name) != family {
			continue
		}
		sum, err := nonstationary.MonteCarlo(ctx, sc.gen, f, cfg.runs, cfg.seed)
		if err != nil {
			return r, "", fmt.Errorf("transformer on %s: %w", sc.name, err)
		}
		r.Scenarios = append(r.Scenarios, sc.name)
		r.Finals = append(r.Finals, sum.Finals)
		note = append(note, fmt.Sprintf("%s %.1f", sc.name, sum.FinalMean))
	}
	return r, fmt.Sprintf("transformer: %s; validation loss %.4f", strings.Join(note, ", "), res.BestValLoss), nil
}

// cosineFamily returns the generator of cosine environments (the paper's
// instance) with b drawn uniformly from bs.
func cosineFamily(d, arms, T int, bs []float64) func(*rand.Rand) (nonstationary.Env, error) {
	return func(rng *rand.Rand) (nonstationary.Env, error) {
		b := bs[rng.IntN(len(bs))]
		w, acts := nonstationary.SampleLBMInstance(d, arms, rng)
		set, err := nonstationary.FixedActions(acts)
		if err != nil {
			return nil, err
		}
		return nonstationary.NewCosine(w, set, 1.5, b, T)
	}
}

// paired returns the mean and the t statistic of the paired differences
// a[r] − b[r].
func paired(a, b []float64) (mean, t float64) {
	d := make([]float64, len(a))
	for r := range a {
		d[r] = a[r] - b[r]
	}
	m, s := num.MeanStd(d)
	return m, m / (s / math.Sqrt(float64(len(d))))
}

// writePosterior writes the table of the finished jobs and returns it.
func writePosterior(cfg posteriorConfig, rs []posteriorResult) (string, error) {
	base := map[string]map[string][]float64{} // scenario → method → finals
	models := map[string][][]float64{}        // scenario → per seed finals
	train := map[string][]posteriorResult{}   // family → models
	for _, r := range rs {
		for s, sc := range r.Scenarios {
			if r.Model {
				models[sc] = append(models[sc], r.Finals[s])
				continue
			}
			base[sc] = map[string][]float64{}
			for m, name := range r.Methods {
				base[sc][name] = r.Finals[m]
			}
		}
		if r.Model {
			train[r.Family] = append(train[r.Family], r)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Final dynamic regret, mean ± std over %d Monte Carlo runs (the same environments for every method); the transformer: mean over its training seeds per run. Transformers: 2 × 64, %d trajectories of %d rounds (a third each played by LinUCB, uniform and posterior sampling), labelled with the posterior probability of the best arm (%d posterior draws), %d steps of batch %d at most (best validation loss kept); the high family's training frequencies b ∈ %v.\n\n",
		cfg.runs, cfg.trajs, cfg.trainT, cfg.labelSamples, cfg.steps, cfg.batch, cfg.freqs)
	b.WriteString("| scenario | method | final regret | − LinUCB (paired) | t | ÷ posterior sampling |\n|---|---|---|---|---|---|\n")
	for _, sc := range []string{"low", "high-b0.018", "high-b0.025"} {
		bm := base[sc]
		if bm == nil && models[sc] == nil {
			continue
		}
		lin, ps := bm["LinUCB"], bm["posterior sampling"]
		row := func(name string, v []float64) {
			m, s := num.MeanStd(v)
			cells := []string{sc, name, fmt.Sprintf("%.1f ± %.1f", m, s), "", "", ""}
			if lin != nil && name != "LinUCB" {
				d, t := paired(v, lin)
				cells[3], cells[4] = fmt.Sprintf("%+.1f", d), fmt.Sprintf("%.1f", t)
			}
			if ps != nil {
				pm, _ := num.MeanStd(ps)
				cells[5] = fmt.Sprintf("%.2f", m/pm)
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
		for _, name := range []string{"uniform", "LinUCB", "TS", "MASTER+LinUCB", "posterior sampling", "posterior sampling, training prior"} {
			if v := bm[name]; v != nil {
				row(name, v)
			}
		}
		if ms := models[sc]; len(ms) > 0 {
			avg := make([]float64, len(ms[0]))
			for _, v := range ms {
				for r, x := range v {
					avg[r] += x / float64(len(ms))
				}
			}
			row(fmt.Sprintf("transformer, posterior labels (%d seeds)", len(ms)), avg)
		}
	}
	b.WriteString("\n| training family | seed | steps | train loss | best validation loss | teacher-forced TV to the labels, held out: model / uniform |\n|---|---|---|---|---|---|\n")
	for _, f := range []string{"low", "high"} {
		for _, r := range train[f] {
			fmt.Fprintf(&b, "| %s | %d | %d | %.4f | %.4f | %.3f / %.3f |\n", f, r.Seed, r.Steps, r.TrainLoss, r.ValLoss, r.HeldTV, r.UniformTV)
		}
	}
	md := b.String()
	if err := os.WriteFile(filepath.Join(cfg.out, "posterior.md"), []byte(md), 0o644); err != nil {
		return "", err
	}
	var rows [][]string
	for _, r := range rs {
		for s, sc := range r.Scenarios {
			for m, name := range r.Methods {
				v := r.Finals[s]
				if !r.Model {
					v = r.Finals[m]
				}
				for run, x := range v {
					rows = append(rows, []string{sc, name, strconv.Itoa(r.Seed), strconv.Itoa(run), fmtF(x)})
				}
				if r.Model {
					break
				}
			}
		}
	}
	return md, sweep.WriteCSV(filepath.Join(cfg.out, "posterior.csv"), []string{"scenario", "method", "training_seed", "run", "final_regret"}, rows)
}
