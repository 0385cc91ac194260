package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/icrl-go/icrl/examples/internal/figure"
	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/transformer"
)

// The distillation study (-study distill): the mechanism of
// in-context-games-omd's theory, played. Theorems 4.1 and 4.3 say that a
// transformer which imitates OMD well enough converges in self-play as OMD
// does; the OMD-imitation study measures the imitation teacher-forced,
// along OMD's own trajectories, and this one puts the imitators into
// self-play, where their errors can compound.
//
// For every seed it draws i.i.d. uniform 3×3 games with rewards in [0,1],
// lets two learner.OMD players (Cai et al.'s schedule) play T_max rounds on
// each with the chosen reward noise, and labels every round with each
// player's OMD policy (incontext.OMDExpert, the expert acting). OMD is the
// same function of a player's own (action, reward) history for either
// role, so one model per size is trained on both players' views
// (incontext.AllViews), validation split by game, and plays both sides.
// Each model size is pretrained for a fixed budget of steps (the best
// validation loss is kept), then:
//
//  1. the model plays itself on unseen games of the family (both players
//     the same model, decentralized, the KV cache), and the duality gap of
//     the policies held at round T (last iterate) and of their running
//     average (average iterate) is measured at every T of -lengths, next
//     to OMD self-play on the same games, the average training equilibrium
//     played as a fixed policy and the uniform policy;
//  2. a DAgger round (Ross et al. 2011): the model plays itself on fresh
//     games, every round of that play is labelled with the OMD policy a
//     player would hold after the same own history (OMDExpert following
//     the model's play), and the model is trained further on the union;
//     the self-play gaps are measured again.
//
// The teacher-forced imitation error (mean total variation to OMD along
// held-out OMD trajectories) is reported too, so the loss from compounding
// is the difference between the two.

type distillConfig struct {
	sizes       []sweep.ModelSize
	lengths     []int // checkpoints; the models train and play max(lengths) rounds
	trainGames  int
	daggerGames int
	testGames   int
	steps       int
	batch       int
	noise       string
	seeds       int
	seed        uint64
	out         string
}

// distillResult is one (size, seed) run.
type distillResult struct {
	Size                 sweep.ModelSize
	Seed                 int
	Params               int
	Steps, DaggerSteps   int
	TrainKL, ValLoss     float64
	DaggerValLoss        float64
	TV                   float64   // teacher-forced TV to OMD over rounds 1…T_max
	Last, Avg            []float64 // model self-play, per length
	DaggerLast, DaggerAv []float64 // after the DAgger round
	OMDLast, OMDAvg      []float64 // OMD self-play on the same games
	AvgNE, Uniform       float64
}

func runDistill(ctx context.Context, cfg distillConfig) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	type job struct {
		size sweep.ModelSize
		seed int
	}
	var jobs []job
	for k := range cfg.seeds {
		for _, sz := range cfg.sizes {
			jobs = append(jobs, job{sz, k})
		}
	}
	Tmax := slices.Max(cfg.lengths)
	label := func(i int) string {
		return fmt.Sprintf("distillation, model %v, seed %d", jobs[i].size, jobs[i].seed)
	}
	return sweep.Study(ctx, filepath.Join(cfg.out, "jobs-distill"), cfg.version(), len(jobs), label,
		func(ctx context.Context, i int) (distillResult, string, error) {
			r, err := distillOne(ctx, cfg, jobs[i].size, jobs[i].seed)
			if err != nil {
				return r, "", err
			}
			l := len(r.Last) - 1
			return r, fmt.Sprintf("last-iterate gap at T = %d: model %.4f, after DAgger %.4f, OMD %.4f, avg. training NE %.4f", Tmax, r.Last[l], r.DaggerLast[l], r.OMDLast[l], r.AvgNE), nil
		},
		func(rs []distillResult) (string, error) { return writeDistill(cfg, rs) })
}

// version identifies the configuration the saved jobs depend on, besides
// each job's model size and seed.
func (c distillConfig) version() string {
	return fmt.Sprintf("distill v1: T=%v train=%d dagger=%d test=%d steps=%d batch=%d noise=%s seed=%d",
		c.lengths, c.trainGames, c.daggerGames, c.testGames, c.steps, c.batch, c.noise, c.seed)
}

// parseNoise returns the reward noise named s.
func parseNoise(s string) (game.Noise, error) {
	switch s {
	case "exact":
		return game.Exact{}, nil
	case "bernoulli":
		return game.Bernoulli{}, nil
	case "low":
		return lowNoise, nil
	}
	return nil, fmt.Errorf("unknown reward noise %q (want exact, bernoulli or low)", s)
}

// lowNoise is the low-noise reward setting: zero-mean uniform noise of
// standard deviation 0.05 (half-width 0.05·√3), narrowed near 0 and 1 so
// that the mean is exact and rewards stay in [0,1].
var lowNoise = game.UniformNoise{HalfWidth: 0.05 * 1.7320508075688772}

// distillOne trains one model size at one seed and measures it.
func distillOne(ctx context.Context, cfg distillConfig, size sweep.ModelSize, seed int) (distillResult, error) {
	const A = 3
	Tmax := slices.Max(cfg.lengths)
	noise, err := parseNoise(cfg.noise)
	if err != nil {
		return distillResult{}, err
	}
	base := cfg.seed*1_000_003 + uint64(seed)*7919
	prior := func(rng *rand.Rand) (*game.ZeroSum, error) { return game.RandomUniform(A, A, rng) }
	enc := incontext.GameEncoder{States: 1, Actions: A, Features: true}
	expert := incontext.OMDExpert{}
	stage := sweep.NewStages(ctx)
	defer stage.Done()
	stage.Next("collect the training games")
	train, err := incontext.Collect(ctx, prior, incontext.CollectConfig{Rounds: Tmax, Games: cfg.trainGames, Noise: noise,
		RowExpert: expert, ColExpert: expert, Seed: base})
	if err != nil {
		return distillResult{}, err
	}
	tc := transformer.TrainConfig[float32]{BatchSize: cfg.batch, Steps: cfg.steps, Seed: initSeed(cfg.seed, seed), TargetLoss: -1,
		EvalEvery: max(1, min(25, cfg.steps/4)), Patience: 20, RestoreBest: true}
	pc := incontext.PretrainConfig[float32]{Model: size.Config(), Train: tc, Seed: initSeed(cfg.seed, seed), ValidationGroup: 2}
	stage.Next("train")
	model, res, err := incontext.Pretrain(ctx, incontext.AllViews(train), enc, pc)
	if err != nil {
		return distillResult{}, err
	}
	r := distillResult{Size: size, Seed: seed, Params: model.NumParams(), Steps: res.Steps, TrainKL: res.KL, ValLoss: res.BestValLoss}

	stage.Next("teacher-forced TV on held-out games")
	held, err := incontext.Collect(ctx, prior, incontext.CollectConfig{Rounds: Tmax, Games: cfg.testGames, Noise: noise,
		RowExpert: expert, ColExpert: expert, Seed: base + 1})
	if err != nil {
		return distillResult{}, err
	}
	st, err := incontext.Imitation(model, enc, incontext.AllViews(held), incontext.Config{})
	if err != nil {
		return distillResult{}, err
	}
	r.TV = st.TV
	avgX, avgY, err := trainingEquilibrium(train, A)
	if err != nil {
		return distillResult{}, err
	}
	stage.Next("play the unseen games")
	ev := distillEval{cfg: cfg, prior: prior, noise: noise, seed: base + 2, enc: enc}
	if r.Last, r.Avg, err = ev.model(ctx, model); err != nil {
		return distillResult{}, err
	}
	if r.OMDLast, r.OMDAvg, r.AvgNE, r.Uniform, err = ev.baselines(ctx, avgX, avgY); err != nil {
		return distillResult{}, err
	}

	// DAgger: the model's own play, labelled by OMD along it.
	stage.Next("DAgger games")
	player := func() (learner.Learner, error) { return incontext.NewLearner(model, enc, incontext.Config{}) }
	own, err := incontext.Collect(ctx, prior, incontext.CollectConfig{Rounds: Tmax, Games: cfg.daggerGames, Noise: noise,
		RowExpert: expert, ColExpert: expert, RowLearner: player, ColLearner: player, Seed: base + 3})
	if err != nil {
		return distillResult{}, err
	}
	stage.Next("DAgger round: train")
	pc.From = model
	pc.Train.Steps = max(cfg.steps/2, 1)
	if _, res, err = incontext.Pretrain(ctx, incontext.AllViews(append(train, own...)), enc, pc); err != nil {
		return distillResult{}, err
	}
	r.DaggerSteps, r.DaggerValLoss = res.Steps, res.BestValLoss
	stage.Next("play the unseen games")
	if r.DaggerLast, r.DaggerAv, err = ev.model(ctx, model); err != nil {
		return distillResult{}, err
	}
	return r, nil
}

// distillEval plays the unseen games of one seed: game k is drawn from
// rand.NewPCG(seed, k), and each player (the model, OMD) plays it with the
// stream that follows, so every player sees the same games.
type distillEval struct {
	cfg   distillConfig
	prior func(*rand.Rand) (*game.ZeroSum, error)
	noise game.Noise
	seed  uint64
	enc   incontext.GameEncoder
}

// game returns unseen game k and the stream its play draws from.
func (e distillEval) game(k int) (*game.ZeroSum, *rand.Rand, error) {
	rng := rand.New(rand.NewPCG(e.seed, uint64(k)))
	g, err := e.prior(rng)
	return g, rng, err
}

// config is the self-play of the evaluation.
func (e distillEval) config() play.SelfPlayConfig {
	return play.SelfPlayConfig{Rounds: slices.Max(e.cfg.lengths), Noise: e.noise, Checkpoints: e.cfg.lengths}
}

// model returns the mean last- and average-iterate gaps of the model
// playing itself, per length.
func (e distillEval) model(ctx context.Context, m *transformer.Model[float32]) (last, avg []float64, err error) {
	last, avg = make([]float64, len(e.cfg.lengths)), make([]float64, len(e.cfg.lengths))
	n := float64(e.cfg.testGames)
	for k := range e.cfg.testGames {
		g, rng, err := e.game(k)
		if err != nil {
			return nil, nil, err
		}
		res, err := incontext.Play(ctx, g, m, m, e.enc, e.enc, e.config(), rng)
		if err != nil {
			return nil, nil, err
		}
		for i, cp := range res.Checkpoints {
			last[i] += cp.LastGap / n
			avg[i] += cp.AverageGap / n
		}
	}
	return last, avg, nil
}

// baselines returns, on the same unseen games, OMD self-play's mean last-
// and average-iterate gaps per length and the gaps of the average training
// equilibrium and of the uniform policy.
func (e distillEval) baselines(ctx context.Context, avgX, avgY []float64) (last, avg []float64, avgNE, uniform float64, err error) {
	last, avg = make([]float64, len(e.cfg.lengths)), make([]float64, len(e.cfg.lengths))
	n := float64(e.cfg.testGames)
	for k := range e.cfg.testGames {
		g, rng, err := e.game(k)
		if err != nil {
			return nil, nil, 0, 0, err
		}
		A, _ := g.Dims()
		x, err := learner.NewOMD(learner.OMDConfig{Actions: A})
		if err != nil {
			return nil, nil, 0, 0, err
		}
		y, err := learner.NewOMD(learner.OMDConfig{Actions: A, Role: game.ColumnPlayer})
		if err != nil {
			return nil, nil, 0, 0, err
		}
		res, err := play.SelfPlay(ctx, g, x, y, e.config(), rng)
		if err != nil {
			return nil, nil, 0, 0, err
		}
		for i, cp := range res.Checkpoints {
			last[i] += cp.LastGap / n
			avg[i] += cp.AverageGap / n
		}
		u := make([]float64, A)
		for a := range u {
			u[a] = 1 / float64(A)
		}
		for _, f := range []struct {
			dst  *float64
			x, y []float64
		}{{&avgNE, avgX, avgY}, {&uniform, u, u}} {
			gap, err := g.DualityGap(f.x, f.y)
			if err != nil {
				return nil, nil, 0, 0, err
			}
			*f.dst += gap / n
		}
	}
	return last, avg, avgNE, uniform, nil
}

// writeDistill writes the table, the CSV and the figure of the finished
// jobs and returns the table.
func writeDistill(cfg distillConfig, rs []distillResult) (string, error) {
	seeds := sweep.Seeds(rs, func(r distillResult) int { return r.Seed }, cfg.seeds)
	var b strings.Builder
	fmt.Fprintf(&b, "Distillation of OMD, played: duality gap on %d unseen i.i.d. 3×3 games per seed (%s rewards), mean ± std over %s; "+
		"%d training games of %d rounds (OMD self-play, both players' views, validation by game); %d steps of batch %d at most per model, "+
		"then DAgger: %d games of the model's own play labelled by OMD, %d steps more.\n\n",
		cfg.testGames, cfg.noise, seeds, cfg.trainGames, slices.Max(cfg.lengths), cfg.steps, cfg.batch, cfg.daggerGames, max(cfg.steps/2, 1))
	head := "| player | iterate |"
	sep := "|---|---|"
	for _, T := range cfg.lengths {
		head += fmt.Sprintf(" T = %d |", T)
		sep += "---|"
	}
	b.WriteString(head + "\n" + sep + "\n")
	nSeeds := sweep.SeedCount(rs, func(r distillResult) int { return r.Seed })
	pm := func(m, s float64) string { return sweep.PlusMinus(m, s, nSeeds, 4) }
	row := func(name, it string, runs []distillResult, f func(distillResult, int) float64) {
		fmt.Fprintf(&b, "| %s | %s |", name, it)
		for i := range cfg.lengths {
			fmt.Fprintf(&b, " %s |", pm(sweep.MeanStd(runs, func(r distillResult) float64 { return f(r, i) })))
		}
		b.WriteString("\n")
	}
	groups := distillGroups(rs)
	// The baselines depend on the seed only: one run per seed.
	var perSeed []distillResult
	for _, r := range rs {
		if !slices.ContainsFunc(perSeed, func(q distillResult) bool { return q.Seed == r.Seed }) {
			perSeed = append(perSeed, r)
		}
	}
	for _, it := range []string{"last", "average"} {
		for _, g := range groups {
			if it == "last" {
				row("model "+g[0].Size.String(), it, g, func(r distillResult, i int) float64 { return r.Last[i] })
				row("model "+g[0].Size.String()+" + DAgger", it, g, func(r distillResult, i int) float64 { return r.DaggerLast[i] })
			} else {
				row("model "+g[0].Size.String(), it, g, func(r distillResult, i int) float64 { return r.Avg[i] })
				row("model "+g[0].Size.String()+" + DAgger", it, g, func(r distillResult, i int) float64 { return r.DaggerAv[i] })
			}
		}
		if len(rs) > 0 {
			if it == "last" {
				row("OMD self-play", it, perSeed, func(r distillResult, i int) float64 { return r.OMDLast[i] })
			} else {
				row("OMD self-play", it, perSeed, func(r distillResult, i int) float64 { return r.OMDAvg[i] })
			}
		}
	}
	if len(rs) > 0 {
		row("avg. training NE (fixed)", "–", perSeed, func(r distillResult, _ int) float64 { return r.AvgNE })
		row("uniform (fixed)", "–", perSeed, func(r distillResult, _ int) float64 { return r.Uniform })
	}
	b.WriteString("\nPer model: parameters, teacher-forced TV to OMD over rounds 1…T_max on held-out OMD trajectories, training KL, best validation loss (by game) before and after DAgger, steps:\n\n")
	b.WriteString("| model | parameters | teacher-forced TV | train KL | val. loss | val. loss after DAgger | steps | DAgger steps |\n|---|---|---|---|---|---|---|---|\n")
	for _, g := range groups {
		fmt.Fprintf(&b, "| %v | %d | %s | %s | %s | %s | %.0f | %.0f |\n", g[0].Size, g[0].Params,
			pm(sweep.MeanStd(g, func(r distillResult) float64 { return r.TV })),
			pm(sweep.MeanStd(g, func(r distillResult) float64 { return r.TrainKL })),
			pm(sweep.MeanStd(g, func(r distillResult) float64 { return r.ValLoss })),
			pm(sweep.MeanStd(g, func(r distillResult) float64 { return r.DaggerValLoss })),
			first(sweep.MeanStd(g, func(r distillResult) float64 { return float64(r.Steps) })),
			first(sweep.MeanStd(g, func(r distillResult) float64 { return float64(r.DaggerSteps) })))
	}
	md := b.String()
	if err := os.WriteFile(filepath.Join(cfg.out, "distill.md"), []byte(md), 0o644); err != nil {
		return "", err
	}
	var rows [][]string
	for _, r := range rs {
		for i, T := range cfg.lengths {
			rows = append(rows, []string{r.Size.String(), strconv.Itoa(r.Seed), strconv.Itoa(T), ff(r.Last[i]), ff(r.Avg[i]), ff(r.DaggerLast[i]), ff(r.DaggerAv[i]),
				ff(r.OMDLast[i]), ff(r.OMDAvg[i]), ff(r.AvgNE), ff(r.Uniform), ff(r.TV), ff(r.TrainKL), ff(r.ValLoss), ff(r.DaggerValLoss), strconv.Itoa(r.Params)})
		}
	}
	if err := sweep.WriteCSV(filepath.Join(cfg.out, "distill.csv"), []string{"model", "seed", "T", "last", "average", "dagger_last", "dagger_average",
		"omd_last", "omd_average", "avg_training_ne", "uniform", "teacher_forced_tv", "train_kl", "val_loss", "dagger_val_loss", "params"}, rows); err != nil {
		return "", err
	}
	if len(rs) == 0 {
		return md, nil
	}
	x := make([]float64, len(cfg.lengths))
	for i, T := range cfg.lengths {
		x[i] = float64(T)
	}
	curve := func(name string, runs []distillResult, f func(distillResult, int) float64) figure.Series {
		s := figure.Series{Name: name, X: x}
		for i := range cfg.lengths {
			m, sd := sweep.MeanStd(runs, func(r distillResult) float64 { return f(r, i) })
			s.Mean, s.Std = append(s.Mean, m), append(s.Std, sd)
		}
		return s
	}
	var series []figure.Series
	for _, g := range groups {
		series = append(series, curve("model "+g[0].Size.String(), g, func(r distillResult, i int) float64 { return r.Last[i] }),
			curve("model "+g[0].Size.String()+" + DAgger", g, func(r distillResult, i int) float64 { return r.DaggerLast[i] }))
	}
	series = append(series, curve("OMD self-play", perSeed, func(r distillResult, i int) float64 { return r.OMDLast[i] }),
		curve("avg. training NE (fixed)", perSeed, func(r distillResult, _ int) float64 { return r.AvgNE }),
		curve("uniform (fixed)", perSeed, func(r distillResult, _ int) float64 { return r.Uniform }))
	title := fmt.Sprintf("OMD imitators in self-play: last-iterate gap (bands: std over %s)", seeds)
	if err := figure.LogLog(filepath.Join(cfg.out, "distill.png"), title, "rounds played T", "duality gap", series); err != nil {
		return "", err
	}
	return md, nil
}

// first returns its first argument.
func first(a, _ float64) float64 { return a }

// distillGroups collects the seeds of each model size, in order of first
// appearance.
func distillGroups(rs []distillResult) [][]distillResult {
	var out [][]distillResult
	for _, r := range rs {
		i := slices.IndexFunc(out, func(g []distillResult) bool { return g[0].Size == r.Size })
		if i < 0 {
			out = append(out, nil)
			i = len(out) - 1
		}
		out[i] = append(out[i], r)
	}
	return out
}
