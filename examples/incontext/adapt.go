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

	"github.com/icrl-go/icrl/examples/internal/figure"
	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/transformer"
)

// The adaptation study (-study adapt): is there a regime in which the
// pretrained transformers beat the best fixed policy the training data
// gives — the average of the training games' equilibria — and in which
// their exploitability falls as they play longer? That needs a context that
// carries what a fixed policy cannot know: games that differ enough for
// their equilibria to differ (families from the paper's ρ = 0.1 to ρ = 1,
// and i.i.d. uniform games), enough training games (1,000 at the paper
// scale), and rewards the model can read exactly (the feature read-in)
// besides the paper's binned tokens.
//
// Two kinds of labels, both the equilibrium of the hidden game that only
// the collector knows:
//
//   - ne: the paper's protocol (in-context-games-omd §5): the expert, the
//     exact equilibrium (incontext.NEExpert), labels every round and also
//     plays it, so the context is equilibrium play.
//   - dpt: the decision-pretrained kind (Lee et al. 2023, arXiv 2306.14892;
//     Wang et al. 2024, arXiv 2405.14219): the same equilibrium labels, but
//     the context is played by learners — first by two learner.OMD players
//     (exploring, non-equilibrium play), then, after a first training
//     round, by the two models themselves, and the models are trained
//     further on the union (on-policy context, as DAgger). For a zero-sum
//     game the equilibrium of the true game is the action distribution
//     that is optimal against an unknown opponent, so it is the zero-sum
//     counterpart of DPT's optimal action; a best response to the
//     opponent's current play would chase a policy the player cannot see
//     and cycle in self-play.
//
// Every job (family, mode, seed) trains two models on trajectories of T_max
// rounds (the row and the column player) and plays them against each other
// for T_max rounds on unseen games of the family, recording the duality gap
// of the policies they hold at every T of -lengths (one model serves every
// T ≤ T_max: it was trained on every prefix). On the same unseen games it
// reports OMD self-play at the same rounds, the average training
// equilibrium, the uniform policy and the exact equilibrium. All modes of a
// (family, seed) train on the same games and play the same unseen games.

// family is a prior over games: a function of a seed's rng returning the
// prior (for a perturbed family it first draws the base game).
type family struct {
	name string
	make func(rng *rand.Rand, actions int) (func(*rand.Rand) (*game.ZeroSum, error), error)
}

func parseFamilies(s string) ([]family, error) {
	var out []family
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "iid" {
			out = append(out, family{name: "iid", make: func(_ *rand.Rand, A int) (func(*rand.Rand) (*game.ZeroSum, error), error) {
				return func(r *rand.Rand) (*game.ZeroSum, error) { return game.RandomUniform(A, A, r) }, nil
			}})
			continue
		}
		rho, err := strconv.ParseFloat(strings.TrimPrefix(f, "rho"), 64)
		if !strings.HasPrefix(f, "rho") || err != nil || !(rho > 0) || math.IsInf(rho, 0) {
			return nil, fmt.Errorf("bad family %q (want iid or rhoX with X > 0, e.g. rho0.5)", f)
		}
		out = append(out, family{name: f, make: func(rng *rand.Rand, A int) (func(*rand.Rand) (*game.ZeroSum, error), error) {
			base, err := game.RandomUniform(A, A, rng)
			if err != nil {
				return nil, err
			}
			fam, err := game.NewPerturbed(base, rho, game.PerturbUniform)
			if err != nil {
				return nil, err
			}
			return func(r *rand.Rand) (*game.ZeroSum, error) { return fam.Sample(r), nil }, nil
		}})
	}
	return out, nil
}

// adaptMode is a read-in and a kind of labels.
type adaptMode struct{ Features, DPT bool }

func (m adaptMode) String() string {
	enc, lab := "tokens", "ne"
	if m.Features {
		enc = "features"
	}
	if m.DPT {
		lab = "dpt"
	}
	return enc + "-" + lab
}

func parseModes(s string) ([]adaptMode, error) {
	var out []adaptMode
	for _, f := range strings.Split(s, ",") {
		enc, lab, ok := strings.Cut(strings.TrimSpace(f), "-")
		if !ok || (enc != "tokens" && enc != "features") || (lab != "ne" && lab != "dpt") {
			return nil, fmt.Errorf("bad mode %q (want tokens-ne, tokens-dpt, features-ne or features-dpt)", f)
		}
		out = append(out, adaptMode{Features: enc == "features", DPT: lab == "dpt"})
	}
	return out, nil
}

type adaptConfig struct {
	families   []family
	modes      []adaptMode
	actions    int
	lengths    []int // checkpoints; the models train and play max(lengths) rounds
	trainGames int
	testGames  int
	onPolicy   float64 // dpt: games of the on-policy round, as a fraction of trainGames
	steps      int     // optimiser steps of the first round (the on-policy round takes half)
	batch      int
	width      int
	layers     int
	seeds      int
	seed       uint64
	out        string
}

// adaptResult is one (family, mode, seed) job: mean gaps over the unseen
// games at every length.
type adaptResult struct {
	Family                      string
	Mode                        adaptMode
	Seed                        int
	Transformer, OMD            []float64
	AvgNE, Uniform, Exact       float64
	TrainKL, TrainLoss, ValLoss float64
	// ImitTV and AvgTV are the row model's and the average equilibrium's
	// mean total-variation distance to the labels (the hidden game's
	// equilibrium) along held-out trajectories collected as the first
	// training round's (teacher-forced): how well the model reads the
	// context it was trained on, apart from the shift to its own play.
	ImitTV, AvgTV float64
	// CopyTV is that distance for the frequencies of the player's own
	// earlier actions (uniform at round 1): a policy that reads nothing
	// about the game from the context, only what the player did.
	CopyTV float64
	Steps  int
}

func runAdapt(ctx context.Context, cfg adaptConfig) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	type job struct {
		fam  int
		mode adaptMode
		seed int
	}
	var jobs []job
	// Seed-major order: a run stopped part-way has every family and mode
	// at some seeds rather than some families at every seed.
	for k := range cfg.seeds {
		for f := range cfg.families {
			for _, m := range cfg.modes {
				jobs = append(jobs, job{f, m, k})
			}
		}
	}
	Tmax := slices.Max(cfg.lengths)
	label := func(i int) string {
		j := jobs[i]
		return fmt.Sprintf("adaptation, %s, %v, seed %d", cfg.families[j.fam].name, j.mode, j.seed)
	}
	return sweep.Study(ctx, filepath.Join(cfg.out, "jobs-adapt"), cfg.version(), len(jobs), label,
		func(ctx context.Context, i int) (adaptResult, string, error) {
			j := jobs[i]
			r, err := adaptOne(ctx, cfg, j.fam, j.mode, j.seed)
			if err != nil {
				return r, "", err
			}
			last := len(r.Transformer) - 1
			return r, fmt.Sprintf("gap at T = %d: transformers %.4f, avg. training NE %.4f, OMD %.4f", Tmax, r.Transformer[last], r.AvgNE, r.OMD[last]), nil
		},
		func(rs []adaptResult) (string, error) { return writeAdapt(cfg, rs) })
}

// version identifies the configuration the saved jobs depend on, besides
// each job's family, mode and seed.
func (c adaptConfig) version() string {
	return fmt.Sprintf("adapt v1: A=%d T=%v train=%d test=%d onpolicy=%v steps=%d batch=%d model=%dx%d seed=%d",
		c.actions, c.lengths, c.trainGames, c.testGames, c.onPolicy, c.steps, c.batch, c.layers, c.width, c.seed)
}

// adaptOne runs one (family, mode, seed).
func adaptOne(ctx context.Context, cfg adaptConfig, fam int, mode adaptMode, seed int) (adaptResult, error) {
	A := cfg.actions
	Tmax := slices.Max(cfg.lengths)
	// Streams: the family's base game and the games depend on (family,
	// seed) only, so every mode sees the same training and unseen games.
	base := cfg.seed*1_000_003 + uint64(fam)*1000 + uint64(seed)
	prior, err := cfg.families[fam].make(rand.New(rand.NewPCG(base, 0)), A)
	if err != nil {
		return adaptResult{}, err
	}
	enc := incontext.GameEncoder{States: 1, Actions: A, Features: mode.Features}
	omd := func() (learner.Learner, error) { return learner.NewOMD(learner.OMDConfig{Actions: A, Horizon: Tmax}) }
	cc := incontext.CollectConfig{Rounds: Tmax, Games: cfg.trainGames, Noise: game.Exact{}, Seed: base*4 + 1}
	if mode.DPT {
		cc.RowLearner, cc.ColLearner = omd, omd
	}
	stage := sweep.NewStages(ctx)
	defer stage.Done()
	stage.Next("collect the training games")
	trajs, err := incontext.Collect(ctx, prior, cc)
	if err != nil {
		return adaptResult{}, err
	}
	mc := transformer.Config{Layers: cfg.layers, Heads: 4, Width: cfg.width, FeedForward: 4 * cfg.width}
	tc := transformer.TrainConfig[float32]{BatchSize: cfg.batch, Steps: cfg.steps, Seed: initSeed(cfg.seed, seed), TargetLoss: -1,
		EvalEvery: max(1, min(25, cfg.steps/4)), Patience: 20, RestoreBest: true}
	var models [2]*transformer.Model[float32]
	var res transformer.TrainResult
	train := func(trajs []incontext.GameTrajectory) error {
		for p := range models {
			pc := incontext.PretrainConfig[float32]{Model: mc, Train: tc, Seed: initSeed(cfg.seed, seed), From: models[p]}
			m, r, err := incontext.Pretrain(ctx, incontext.Views(trajs, game.Player(p)), enc, pc)
			if err != nil {
				return err
			}
			models[p] = m
			if p == 0 {
				res = r
			}
		}
		return nil
	}
	stage.Next("train")
	if err := train(trajs); err != nil {
		return adaptResult{}, err
	}
	if n := int(math.Round(cfg.onPolicy * float64(cfg.trainGames))); mode.DPT && n > 0 {
		player := func(p int) func() (learner.Learner, error) {
			return func() (learner.Learner, error) { return incontext.NewLearner(models[p], enc, incontext.Config{}) }
		}
		stage.Next("on-policy games")
		on, err := incontext.Collect(ctx, prior, incontext.CollectConfig{Rounds: Tmax, Games: n, Noise: game.Exact{},
			RowLearner: player(0), ColLearner: player(1), Seed: base*4 + 2})
		if err != nil {
			return adaptResult{}, err
		}
		stage.Next("on-policy round: train")
		tc.Steps = max(cfg.steps/2, 1)
		if err := train(append(trajs, on...)); err != nil {
			return adaptResult{}, err
		}
	}

	stage.Next("teacher-forced TV on held-out games")
	avgX, avgY, err := trainingEquilibrium(trajs, A)
	if err != nil {
		return adaptResult{}, err
	}

	held := cc
	held.Games, held.Seed = cfg.testGames, base*4+4
	heldTrajs, err := incontext.Collect(ctx, prior, held)
	if err != nil {
		return adaptResult{}, err
	}
	st, err := incontext.Imitation(models[0], enc, incontext.Views(heldTrajs, game.RowPlayer), incontext.Config{})
	if err != nil {
		return adaptResult{}, err
	}
	avgTV, copyTV := baselineTV(heldTrajs, avgX, A, st.Rounds)

	r := adaptResult{Family: cfg.families[fam].name, Mode: mode, Seed: seed, Steps: res.Steps, ImitTV: st.TV, AvgTV: avgTV, CopyTV: copyTV,
		TrainKL: res.KL, TrainLoss: res.Loss, ValLoss: res.BestValLoss,
		Transformer: make([]float64, len(cfg.lengths)), OMD: make([]float64, len(cfg.lengths))}
	stage.Next("play the unseen games")
	if err := adaptGaps(ctx, cfg, prior, models, enc, base, avgX, avgY, &r); err != nil {
		return adaptResult{}, err
	}
	return r, nil
}

// trainingEquilibrium returns the average of the training games' equilibria,
// the best fixed policy the data gives (every training draw counted once:
// one trajectory per draw).
func trainingEquilibrium(trajs []incontext.GameTrajectory, A int) (avgX, avgY []float64, err error) {
	avgX, avgY = make([]float64, A), make([]float64, A)
	for i := range trajs {
		x, y, err := trajs[i].Game.(*game.ZeroSum).Nash()
		if err != nil {
			return nil, nil, err
		}
		for a := range A {
			avgX[a] += x[0][a]
			avgY[a] += y[0][a]
		}
	}
	for a := range A {
		avgX[a] /= float64(len(trajs))
		avgY[a] /= float64(len(trajs))
	}
	return avgX, avgY, nil
}

// baselineTV returns the mean total variation between the held-out labels
// and two baselines: the average training equilibrium avgX, and the
// frequencies of the actions played so far (uniform at the first round).
func baselineTV(held []incontext.GameTrajectory, avgX []float64, A, rounds int) (avgTV, copyTV float64) {
	freq := make([]float64, A)
	for _, tr := range held {
		counts := make([]float64, A)
		for t, lab := range tr.Players[0].Labels {
			avgTV += simplex.TotalVariation(avgX, lab)
			for a := range freq {
				freq[a] = 1 / float64(A)
				if t > 0 {
					freq[a] = counts[a] / float64(t)
				}
			}
			copyTV += simplex.TotalVariation(freq, lab)
			counts[tr.Players[0].Rounds[t].Action]++
		}
	}
	return avgTV / float64(rounds), copyTV / float64(rounds)
}

// adaptGaps plays cfg.testGames unseen games with the two models and with
// OMD self-play, and adds to r the mean duality gaps at cfg.lengths and
// those of the fixed baselines (average training equilibrium, uniform,
// exact equilibrium).
func adaptGaps(ctx context.Context, cfg adaptConfig, prior func(*rand.Rand) (*game.ZeroSum, error), models [2]*transformer.Model[float32], enc incontext.GameEncoder, base uint64, avgX, avgY []float64, r *adaptResult) error {
	A, Tmax := cfg.actions, slices.Max(cfg.lengths)
	omd := func() (learner.Learner, error) { return learner.NewOMD(learner.OMDConfig{Actions: A, Horizon: Tmax}) }
	uni := make([]float64, A)
	for a := range uni {
		uni[a] = 1 / float64(A)
	}
	spc := play.SelfPlayConfig{Rounds: Tmax, Noise: game.Exact{}, Checkpoints: cfg.lengths}
	nt := float64(cfg.testGames)
	for k := range cfg.testGames {
		rng := rand.New(rand.NewPCG(base*4+3, uint64(k)))
		g, err := prior(rng)
		if err != nil {
			return err
		}
		tp, err := incontext.Play(ctx, g, models[0], models[1], enc, enc, spc, rng)
		if err != nil {
			return err
		}
		x, err := omd()
		if err != nil {
			return err
		}
		y, err := omd()
		if err != nil {
			return err
		}
		op, err := play.SelfPlay(ctx, g, x, y, spc, rng)
		if err != nil {
			return err
		}
		for i := range cfg.lengths {
			r.Transformer[i] += tp.Checkpoints[i].LastGap / nt
			r.OMD[i] += op.Checkpoints[i].LastGap / nt
		}
		for _, f := range []struct {
			dst  *float64
			x, y []float64
		}{{&r.AvgNE, avgX, avgY}, {&r.Uniform, uni, uni}} {
			gap, err := g.DualityGap(f.x, f.y)
			if err != nil {
				return err
			}
			*f.dst += gap / nt
		}
		ex, ey, err := g.Nash()
		if err != nil {
			return err
		}
		gap, err := g.DualityGap(ex[0], ey[0])
		if err != nil {
			return err
		}
		r.Exact += gap / nt
	}
	return nil
}

// adaptGroup collects the seeds of one (family, mode).
type adaptGroup struct {
	family string
	mode   adaptMode
	runs   []adaptResult
}

// writeAdapt writes the table, the CSV and the figures of the finished
// jobs and returns the table.
func writeAdapt(cfg adaptConfig, rs []adaptResult) (string, error) {
	var gs []*adaptGroup
	for _, r := range rs {
		var g *adaptGroup
		for _, x := range gs {
			if x.family == r.Family && x.mode == r.Mode {
				g = x
			}
		}
		if g == nil {
			g = &adaptGroup{family: r.Family, mode: r.Mode}
			gs = append(gs, g)
		}
		g.runs = append(g.runs, r)
	}
	seeds := sweep.Seeds(rs, func(r adaptResult) int { return r.Seed }, cfg.seeds)
	nSeeds := sweep.SeedCount(rs, func(r adaptResult) int { return r.Seed })
	pm := func(m, s float64) string { return sweep.PlusMinus(m, s, nSeeds, 4) }
	var b strings.Builder
	fmt.Fprintf(&b, "Adaptation: duality gap of the policies held at round T on %d unseen %d×%d games per run, mean ± std over %s; %d training games of %d rounds; %d steps of batch %d at most per model (dpt: then %s of the games again, collected by the models themselves, and half the steps more); model %d×%d.\n\n",
		cfg.testGames, cfg.actions, cfg.actions, seeds, cfg.trainGames, slices.Max(cfg.lengths), cfg.steps, cfg.batch,
		strconv.FormatFloat(cfg.onPolicy, 'g', -1, 64), cfg.layers, cfg.width)
	b.WriteString("| family | mode | T | transformers | OMD self-play | avg. training NE | uniform | exact NE | train KL | best val. loss | teacher-forced TV: model | avg. NE | own-action frequencies |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range gs {
		for i, T := range cfg.lengths {
			fmt.Fprintf(&b, "| %s | %v | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", g.family, g.mode, T,
				pm(sweep.MeanStd(g.runs, func(r adaptResult) float64 { return r.Transformer[i] })),
				pm(sweep.MeanStd(g.runs, func(r adaptResult) float64 { return r.OMD[i] })),
				pm(sweep.MeanStd(g.runs, func(r adaptResult) float64 { return r.AvgNE })),
				pm(sweep.MeanStd(g.runs, func(r adaptResult) float64 { return r.Uniform })),
				pm(sweep.MeanStd(g.runs, func(r adaptResult) float64 { return r.Exact })),
				pm(sweep.MeanStd(g.runs, func(r adaptResult) float64 { return r.TrainKL })),
				pm(sweep.MeanStd(g.runs, func(r adaptResult) float64 { return r.ValLoss })),
				pm(sweep.MeanStd(g.runs, func(r adaptResult) float64 { return r.ImitTV })),
				pm(sweep.MeanStd(g.runs, func(r adaptResult) float64 { return r.AvgTV })),
				pm(sweep.MeanStd(g.runs, func(r adaptResult) float64 { return r.CopyTV })))
		}
	}
	md := b.String()
	if err := os.WriteFile(filepath.Join(cfg.out, "adapt.md"), []byte(md), 0o644); err != nil {
		return "", err
	}
	var rows [][]string
	for _, r := range rs {
		for i, T := range cfg.lengths {
			rows = append(rows, []string{r.Family, r.Mode.String(), strconv.Itoa(r.Seed), strconv.Itoa(T), ff(r.Transformer[i]), ff(r.OMD[i]),
				ff(r.AvgNE), ff(r.Uniform), ff(r.Exact), ff(r.TrainKL), ff(r.TrainLoss), ff(r.ValLoss), strconv.Itoa(r.Steps), ff(r.ImitTV), ff(r.AvgTV), ff(r.CopyTV)})
		}
	}
	if err := sweep.WriteCSV(filepath.Join(cfg.out, "adapt.csv"), []string{"family", "mode", "seed", "T", "transformers", "omd", "avg_training_ne", "uniform", "exact_ne", "train_kl", "train_loss", "best_val_loss", "steps", "teacher_forced_tv", "avg_ne_tv", "own_frequency_tv"}, rows); err != nil {
		return "", err
	}
	// One figure per family: the gap against T, every mode and baseline.
	x := make([]float64, len(cfg.lengths))
	for i, T := range cfg.lengths {
		x[i] = float64(T)
	}
	for _, fam := range cfg.families {
		var series []figure.Series
		var runs []adaptResult
		for _, g := range gs {
			if g.family != fam.name {
				continue
			}
			runs = append(runs, g.runs...)
			s := figure.Series{Name: "transformers, " + g.mode.String(), X: x}
			for i := range cfg.lengths {
				m, sd := sweep.MeanStd(g.runs, func(r adaptResult) float64 { return r.Transformer[i] })
				s.Mean, s.Std = append(s.Mean, m), append(s.Std, sd)
			}
			series = append(series, s)
		}
		if len(runs) == 0 {
			continue
		}
		omdS := figure.Series{Name: "OMD self-play", X: x}
		for i := range cfg.lengths {
			m, sd := sweep.MeanStd(runs, func(r adaptResult) float64 { return r.OMD[i] })
			omdS.Mean, omdS.Std = append(omdS.Mean, m), append(omdS.Std, sd)
		}
		series = append(series, omdS)
		for _, c := range []struct {
			name string
			f    func(adaptResult) float64
		}{{"avg. training NE (best fixed policy)", func(r adaptResult) float64 { return r.AvgNE }}, {"uniform", func(r adaptResult) float64 { return r.Uniform }}} {
			m, sd := sweep.MeanStd(runs, c.f)
			s := figure.Series{Name: c.name, X: x}
			for range cfg.lengths {
				s.Mean, s.Std = append(s.Mean, m), append(s.Std, sd)
			}
			series = append(series, s)
		}
		title := fmt.Sprintf("adaptation, %s games: gap of the policies held at round T (mean ± std over %s; exact NE: 0)", fam.name, seeds)
		if err := figure.LogLog(filepath.Join(cfg.out, "adapt_"+fam.name+".png"), title, "rounds played T", "duality gap", series); err != nil {
			return "", err
		}
	}
	return md, nil
}
