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
	"time"

	"github.com/icrl-go/icrl/examples/internal/figure"
	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/transformer"
)

// The OMD-imitation study (-study omd): how closely a pretrained
// transformer tracks the theory's expert, online mirror descent, as the
// model and the training set grow (in-context-games-omd Theorems 4.1 and
// 4.3 bound this error by a quantity that falls with the model's size;
// Remark 4.3 says longer T helps given a large enough model).
//
// For every seed it draws i.i.d. uniform 3×3 games with rewards in [0,1],
// lets two learner.OMD players (Cai et al.'s schedule, which does not depend
// on T) play T_max rounds on each, and labels every round with the row
// player's OMD policy (incontext.OMDExpert, the expert acting: on-policy
// distillation). The training sets of the sizes asked for are nested (the
// first n games); the held-out games are the same for every model. Each
// model size is pretrained on the row player's view for a fixed budget of
// optimiser steps (the best validation loss is kept) and then replayed,
// teacher-forced, along the held-out trajectories: the error at T is the
// mean total-variation distance between the model's policy and OMD's over
// rounds 1…T (incontext.Imitation). One model per (size, data, seed) serves
// every T ≤ T_max, which is exact here because OMD's rounds do not depend
// on the horizon: a trajectory of T rounds is the first T rounds of one of
// T_max.
//
// The feature read-in (exact rewards) is the default, because OMD's policy
// is a function of the exact rewards: with binned rewards (-omd-tokens) no
// model can imitate it exactly.

type omdConfig struct {
	sizes      []sweep.ModelSize
	trainGames []int // nested training-set sizes
	lengths    []int // T at which the error is reported; training at the largest
	testGames  int
	actions    int
	steps      int
	batch      int
	tokens     bool
	seeds      int
	seed       uint64
	out        string
}

// omdResult is one (size, training set, seed) run.
type omdResult struct {
	Size          sweep.ModelSize
	Games, Seed   int
	Params, Steps int
	TV            []float64 // per length
	UniformTV     []float64 // per length: the uniform policy's distance to OMD
	TrainKL       float64
	TrainLoss     float64
	ValLoss       float64
}

func runOMD(ctx context.Context, cfg omdConfig) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	Tmax := slices.Max(cfg.lengths)
	maxGames := slices.Max(cfg.trainGames)
	A := cfg.actions
	enc := incontext.GameEncoder{States: 1, Actions: A, Features: !cfg.tokens}
	prior := func(rng *rand.Rand) (*game.ZeroSum, error) { return game.RandomUniform(A, A, rng) }
	expert := incontext.OMDExpert{}
	collect := func(games int, seed uint64) ([]incontext.Trajectory[int], error) {
		trajs, err := incontext.Collect(ctx, prior, incontext.CollectConfig{Rounds: Tmax, Games: games, Noise: game.Exact{},
			RowExpert: expert, ColExpert: expert, Seed: seed})
		if err != nil {
			return nil, err
		}
		return incontext.Views(trajs, game.RowPlayer), nil
	}
	// The data of every seed: the largest training set (smaller ones are
	// its prefixes) and the held-out trajectories.
	began := time.Now()
	train := make([][]incontext.Trajectory[int], cfg.seeds)
	test := make([][]incontext.Trajectory[int], cfg.seeds)
	for k := range cfg.seeds {
		var err error
		if train[k], err = collect(maxGames, cfg.seed*1000+uint64(k)); err != nil {
			return err
		}
		if test[k], err = collect(cfg.testGames, cfg.seed*1000+uint64(k)+500); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "Collected the training and held-out trajectories of every seed in %s.\n", time.Since(began).Round(time.Millisecond))
	type job struct {
		size        sweep.ModelSize
		games, seed int
	}
	var jobs []job
	// Seed-major order: a run stopped part-way has every configuration at
	// some seeds.
	for k := range cfg.seeds {
		for _, n := range cfg.trainGames {
			for _, sz := range cfg.sizes {
				jobs = append(jobs, job{sz, n, k})
			}
		}
	}
	label := func(i int) string {
		j := jobs[i]
		return fmt.Sprintf("OMD imitation, model %v, %d games, seed %d", j.size, j.games, j.seed)
	}
	return sweep.Study(ctx, filepath.Join(cfg.out, "jobs-omd"), cfg.version(), len(jobs), label,
		func(ctx context.Context, i int) (omdResult, string, error) {
			j := jobs[i]
			r, err := omdOne(ctx, cfg, enc, j.size, train[j.seed][:j.games], test[j.seed], j.seed)
			if err != nil {
				return r, "", err
			}
			r.Games, r.Seed = j.games, j.seed
			return r, fmt.Sprintf("TV %.4f at T = %d", r.TV[len(r.TV)-1], Tmax), nil
		},
		func(rs []omdResult) (string, error) { return writeOMD(cfg, rs) })
}

// version identifies the configuration the saved jobs depend on, besides
// each job's model size, training-set size and seed.
func (c omdConfig) version() string {
	return fmt.Sprintf("omd v1: A=%d T=%v test=%d steps=%d batch=%d tokens=%v seed=%d", c.actions, c.lengths, c.testGames, c.steps, c.batch, c.tokens, c.seed)
}

// omdOne trains one model and measures its imitation error.
func omdOne(ctx context.Context, cfg omdConfig, enc incontext.GameEncoder, size sweep.ModelSize, train, test []incontext.Trajectory[int], seed int) (omdResult, error) {
	tc := transformer.TrainConfig[float32]{BatchSize: cfg.batch, Steps: cfg.steps, Seed: initSeed(cfg.seed, seed),
		TargetLoss: -1, EvalEvery: max(1, min(25, cfg.steps/4)), Patience: 20, RestoreBest: true}
	pc := incontext.PretrainConfig[float32]{Model: size.Config(), Train: tc, Seed: initSeed(cfg.seed, seed)}
	stage := sweep.NewStages(ctx)
	defer stage.Done()
	stage.Next("train")
	model, res, err := incontext.Pretrain(ctx, train, enc, pc)
	if err != nil {
		return omdResult{}, err
	}
	stage.Next("teacher-forced TV on held-out games")
	st, err := incontext.Imitation(model, enc, test, incontext.Config{})
	if err != nil {
		return omdResult{}, err
	}
	r := omdResult{Size: size, Params: model.NumParams(), Steps: res.Steps, TrainKL: res.KL, TrainLoss: res.Loss, ValLoss: res.BestValLoss}
	u := make([]float64, cfg.actions)
	for i := range u {
		u[i] = 1 / float64(cfg.actions)
	}
	for _, T := range cfg.lengths {
		r.TV = append(r.TV, prefixMean(st.TVByRound, T))
		var sum float64
		for _, tr := range test {
			for t := range T {
				sum += simplex.TotalVariation(u, tr.Labels[t])
			}
		}
		r.UniformTV = append(r.UniformTV, sum/float64(T*len(test)))
	}
	return r, nil
}

// prefixMean is the mean of v[:T].
func prefixMean(v []float64, T int) float64 {
	var s float64
	for _, x := range v[:T] {
		s += x
	}
	return s / float64(T)
}

// omdGroup collects the seeds of one (size, training set).
type omdGroup struct {
	size   sweep.ModelSize
	games  int
	params int
	runs   []omdResult
}

func groupOMD(rs []omdResult) []*omdGroup {
	var gs []*omdGroup
	for _, r := range rs {
		var g *omdGroup
		for _, x := range gs {
			if x.size == r.Size && x.games == r.Games {
				g = x
			}
		}
		if g == nil {
			g = &omdGroup{size: r.Size, games: r.Games, params: r.Params}
			gs = append(gs, g)
		}
		g.runs = append(g.runs, r)
	}
	return gs
}

// writeOMD writes the table, the CSV and the figures of the finished jobs
// and returns the table.
func writeOMD(cfg omdConfig, rs []omdResult) (string, error) {
	gs := groupOMD(rs)
	seeds := sweep.Seeds(rs, func(r omdResult) int { return r.Seed }, cfg.seeds)
	var b strings.Builder
	enc := "features (exact rewards)"
	if cfg.tokens {
		enc = "tokens (10 reward bins)"
	}
	fmt.Fprintf(&b, "OMD imitation: mean total-variation distance between the transformer's policy and OMD's over rounds 1…T of %d held-out %d×%d games (teacher-forced), mean ± std over %s; %s; %d steps of batch %d at most (best validation loss kept).\n\n",
		cfg.testGames, cfg.actions, cfg.actions, seeds, enc, cfg.steps, cfg.batch)
	b.WriteString("| model | parameters | training games |")
	for _, T := range cfg.lengths {
		fmt.Fprintf(&b, " T = %d |", T)
	}
	b.WriteString(" train KL | best val. loss | steps |\n|---|---|---|")
	for range cfg.lengths {
		b.WriteString("---|")
	}
	b.WriteString("---|---|---|\n")
	nSeeds := sweep.SeedCount(rs, func(r omdResult) int { return r.Seed })
	pm := func(m, s float64) string { return sweep.PlusMinus(m, s, nSeeds, 4) }
	for _, g := range gs {
		fmt.Fprintf(&b, "| %v | %d | %d |", g.size, g.params, g.games)
		for i := range cfg.lengths {
			fmt.Fprintf(&b, " %s |", pm(sweep.MeanStd(g.runs, func(r omdResult) float64 { return r.TV[i] })))
		}
		m, _ := sweep.MeanStd(g.runs, func(r omdResult) float64 { return float64(r.Steps) })
		fmt.Fprintf(&b, " %s | %s | %.0f |\n", pm(sweep.MeanStd(g.runs, func(r omdResult) float64 { return r.TrainKL })),
			pm(sweep.MeanStd(g.runs, func(r omdResult) float64 { return r.ValLoss })), m)
	}
	if len(rs) > 0 {
		b.WriteString("| uniform policy | 0 | – |")
		for i := range cfg.lengths {
			fmt.Fprintf(&b, " %s |", pm(sweep.MeanStd(rs, func(r omdResult) float64 { return r.UniformTV[i] })))
		}
		b.WriteString(" | | |\n")
	}
	md := b.String()
	if err := os.WriteFile(filepath.Join(cfg.out, "omd.md"), []byte(md), 0o644); err != nil {
		return "", err
	}
	var rows [][]string
	for _, r := range rs {
		for i, T := range cfg.lengths {
			rows = append(rows, []string{strconv.Itoa(r.Size.Layers), strconv.Itoa(r.Size.Width), strconv.Itoa(r.Size.Heads), strconv.Itoa(r.Params),
				strconv.Itoa(r.Games), strconv.Itoa(r.Seed), strconv.Itoa(T), ff(r.TV[i]), ff(r.UniformTV[i]), ff(r.TrainKL), ff(r.TrainLoss), ff(r.ValLoss), strconv.Itoa(r.Steps)})
		}
	}
	if err := sweep.WriteCSV(filepath.Join(cfg.out, "omd.csv"), []string{"layers", "width", "heads", "parameters", "train_games", "seed", "T", "tv", "uniform_tv", "train_kl", "train_loss", "best_val_loss", "steps"}, rows); err != nil {
		return "", err
	}
	// One figure per training-set size: error against parameters, one
	// curve per T.
	for _, n := range cfg.trainGames {
		var series []figure.Series
		for i, T := range cfg.lengths {
			var x, m, s []float64
			for _, g := range gs {
				if g.games == n {
					mean, std := sweep.MeanStd(g.runs, func(r omdResult) float64 { return r.TV[i] })
					x, m, s = append(x, float64(g.params)), append(m, mean), append(s, std)
				}
			}
			if len(x) > 0 {
				figure.SortByX(x, m, s)
				series = append(series, figure.Series{Name: fmt.Sprintf("T = %d", T), X: x, Mean: m, Std: s})
			}
		}
		if len(series) == 0 {
			continue
		}
		title := fmt.Sprintf("imitating OMD: TV distance to OMD's policy on held-out games (%d training games, mean ± std over %s)", n, seeds)
		if err := figure.LogLog(filepath.Join(cfg.out, fmt.Sprintf("omd_%dgames.png", n)), title, "parameters", "mean TV distance over rounds 1…T", series); err != nil {
			return "", err
		}
	}
	return md, nil
}
