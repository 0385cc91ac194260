// Command incontext reproduces the experiment of in-context-games-omd §5
// (Figure 1): decoder transformers pretrained on game trajectories labelled
// by a Nash-equilibrium expert play unseen games from the same family in
// context, and their exploitability is reported against the trajectory
// length, for matrix games with 2, 3 and 5 actions and Markov games with 2, 3
// and 5 states and 3 actions.
//
// For every setting, trajectory length T and seed it:
//
//  1. draws a base game and the family of games around it perturbed with
//     magnitude ρ = 0.1 (game.Perturbed for matrix games, rewards uniform on
//     [0,1]; markov.PerturbedDiscounted for Markov games, γ = 0.9);
//  2. draws the training games (5, as in the paper) and collects
//     trajectories of T rounds on them with the expert acting (on-policy
//     distillation), each player seeing only its own (state,) action and
//     reward, labelled with the expert's distribution (soft labels);
//  3. pretrains one transformer per player with the paper's model (2 layers,
//     4 heads, width 64, feed-forward 256, Adam at 1e-3), stopping when the
//     KL divergence to the expert falls below 0.01 or at a step cap;
//  4. on unseen games of the same family, lets the two models play each
//     other for T rounds with the KV cache (no parameter updates) and
//     measures the duality gap of the policies they hold at the last round
//     (the maximum over states for Markov games).
//
// On the same unseen games it reports, side by side: the transformers; the
// uniform policy; OMD self-play for T rounds with the canonical schedule
// (learner.OMD, Cai exponents per visit; for a matrix game it is the
// matrix OMD); the average of the training games' equilibria played as a
// fixed policy (the best a context-free imitation of the expert can do); the
// expert, which is the exact equilibrium of each unseen game (gap 0 up to the
// LP tolerance); and a transformer-vs-OMD match (the row model against an
// OMD column player). It also compares the theory's ReLU attention with
// softmax attention on one setting.
//
// Every choice the paper leaves open is a flag or a
// documented default: base games uniform on [0,1] (matrix) or
// markov.RandomDiscounted (Markov), uniform perturbations ξ ∈ [−1, 1],
// γ = 0.9, exact rewards (no Bernoulli noise), tokens BOS, (s), a, r-bin
// with 10 equal reward bins, learned positions, pre-LN softmax attention,
// soft labels, early stopping on KL < 0.01 (cross-entropy cannot fall below
// the expert's entropy), evaluation of the last iterate after T rounds of
// self-play between the two trained models, and the exploitability as the
// full duality gap (not halved).
//
// Two more studies run with -study (their protocols are documented in
// omd.go and adapt.go and in examples/incontext/README.md): -study omd measures how closely
// transformers of several sizes imitate OMD, the expert of the paper's
// theory, against the number of parameters, the training data and T;
// -study adapt asks where the transformers beat the best fixed policy (the
// average training equilibrium) and improve with T, over families from
// ρ = 0.1 to i.i.d. games, token and exact-reward feature read-ins, and the
// paper's NE-played context against decision-pretrained (OMD-played and
// on-policy) context. Every study saves each finished run under its output
// folder, so a stopped run resumes when the same command is run again, and
// Ctrl-C writes the results so far.
//
// Usage:
//
//	go run ./examples/incontext [-study figure1|omd|adapt] [-scale quick|paper] [flags]
//
// The quick scale (default) finishes in a few minutes on 2 cores and prints
// a progress line; -scale paper uses more trajectories, longer training and
// longer trajectories. It writes results.md, results.csv and one plot per
// kind (matrix.png, markov.png) to -out.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/icrl-go/icrl/learner/incontext"

	"github.com/icrl-go/icrl/examples/internal/figure"
	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/transformer"
)

// setting is one game family: a kind and its size.
type setting struct {
	Markov bool
	Size   int // actions (matrix) or states (Markov, 3 actions)
}

func (s setting) String() string {
	if s.Markov {
		return fmt.Sprintf("markov-S%d", s.Size)
	}
	return fmt.Sprintf("matrix-A%d", s.Size)
}

type config struct {
	settings      []setting
	lengths       []int
	seeds         int
	trainGames    int
	trajPerGame   int
	testGames     int
	steps         int
	batch         int
	rho, gamma    float64
	reluCompare   string
	out           string
	seed          uint64
	width, layers int
}

func main() { sweep.Main("incontext", parseFlags) }

// parseFlags reads the command line and returns the study to run.
func parseFlags(args []string) (func(context.Context) error, error) {
	fs := flag.NewFlagSet("incontext", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: go run ./examples/incontext [-study figure1|omd|adapt|distill|joint] [-scale quick|paper] [flags]

Studies:
  figure1  the paper's Figure 1 (default): NE-expert pretraining on 5 games of a
           ρ = 0.1 family, exploitability against the trajectory length T
  omd      imitating OMD against model size and training-set size: TV distance
           to OMD's policy on held-out games at every T of -lengths
  adapt    adaptation that pays: families from ρ = 0.1 to i.i.d. games, token
           and feature read-ins, NE labels with expert play (ne) or with
           OMD-played and on-policy context (dpt), against every baseline
  distill  OMD imitators of several sizes playing themselves on unseen games
           (decentralized), with a DAgger round, against OMD self-play
  joint    joint-action DPT: models that see both players' actions, trained on
           Dirichlet-played and on-policy context with equilibrium or
           posterior-mean labels, against the plug-in posterior-Nash players,
           the Bayes predictor, OMD self-play and the average equilibrium

Flags (0 or empty means the study's default at the chosen scale):
`)
		fs.PrintDefaults()
	}
	var fl studyFlags
	fs.StringVar(&fl.study, "study", "figure1", "figure1, omd, adapt, distill or joint")
	fs.StringVar(&fl.scale, "scale", "quick", "quick or paper")
	fs.StringVar(&fl.settings, "settings", "matrix:2,matrix:3,matrix:5,markov:2,markov:3,markov:5", "figure1: comma-separated kind:size")
	fs.StringVar(&fl.lengths, "lengths", "", "comma-separated trajectory lengths T (figure1: 10,40 quick, 10,20,50,100,200 paper; omd, distill: 10,20,40 quick, 20,50,100,200 paper; adapt, joint: 5,10,20,40 quick, 10,20,50,100,200 paper; omd, adapt, distill, joint train at the largest and measure at each)")
	fs.IntVar(&fl.seeds, "seeds", 0, "seeds per configuration (figure1: 3 quick, 2 paper; omd, distill, joint: 2 quick, 3 paper; adapt: 2 quick, 5 paper)")
	fs.StringVar(&fl.relu, "relu", "matrix:3", "figure1: setting on which to compare ReLU with softmax attention (empty: none)")
	fs.StringVar(&fl.sizes, "sizes", "", "omd, distill: model sizes LAYERSxWIDTH[hHEADS], comma-separated, heads default to width/16 (omd: 1x16h2,2x32h4 quick, 1x32,2x32,2x64h1,2x64,4x64,4x128 paper; distill: 1x16h2,2x32h4 quick, 1x64,2x64,4x64 paper); joint: one size (1x32h4 quick, 2x64h4 paper)")
	fs.StringVar(&fl.trainGames, "train-games", "", "training games: omd: comma-separated nested sizes (32,128 quick, 250,1000 paper); adapt, distill, joint: one size (adapt 128 / 1000, distill 64 / 1000, joint 256 / 10000)")
	fs.IntVar(&fl.testGames, "test-games", 0, "unseen games per seed (figure1: 20 quick, 100 paper; omd, distill, joint: 16 quick, 100 paper; adapt: 16 quick, 50 paper)")
	fs.IntVar(&fl.steps, "steps", 0, "optimiser steps per model at most (figure1: 150, batch 16 quick, 32 paper; omd: 200 quick, 1500 paper; adapt: 200 quick, 500 paper; distill: 150 quick, 1500 paper; joint: 150 quick, 2000 paper)")
	fs.BoolVar(&fl.omdTokens, "omd-tokens", false, "omd: the token read-in with binned rewards instead of exact-reward features")
	fs.StringVar(&fl.families, "families", "", "adapt: comma-separated families: rhoX (a base game perturbed by ρ = X) or iid (rho0.1,rho1,iid quick, rho0.1,rho0.5,rho1,iid paper); joint: iidA (i.i.d. A×A matrix games) or markovS2 (iid2,iid3,markovS2 quick, iid3,markovS2 paper)")
	fs.StringVar(&fl.modes, "modes", "", "adapt: comma-separated read-in and labels: tokens-ne, features-ne, features-dpt, tokens-dpt (default tokens-ne,features-ne,features-dpt)")
	fs.StringVar(&fl.noise, "noise", "", "distill: reward noise, exact (default), bernoulli or low (uniform noise of standard deviation 0.05); joint: comma-separated (default bernoulli,low)")
	fs.IntVar(&fl.firstSeed, "first-seed", 0, "joint: index of the first seed: the jobs are seeds FIRST to FIRST + seeds − 1 (with -seeds 1, one seed of a saved run: the same games and initialisation; default 0)")
	fs.IntVar(&fl.valGames, "validation-games", 0, "joint: training games held out for validation (early stopping and the model kept), both players' views of each; the on-policy round holds out the same fraction of its games (0: a tenth)")
	fs.StringVar(&fl.lr, "lr", "constant", "joint: the learning rate of each training round: constant (1e-3) or cosine (1e-3 decayed to 0 over the round's steps, transformer.WarmupCosine without warm-up)")
	fs.BoolVar(&fl.curriculum, "curriculum", false, "joint: a curriculum over T: the first training round's steps in three equal stages on the trajectories' first T/4, T/2 and T rounds (the on-policy round on full trajectories)")
	fs.BoolVar(&fl.cells, "cells", false, "joint: add each round's payoff cell and the reward in it to the read-in (incontext.GameEncoder.Cells)")
	fs.IntVar(&fl.bayes, "bayes", 0, "joint: posterior samples of the Bayes-predictor baseline (matrix games: the exact posterior of Bernoulli and of low-noise rewards; Markov games: games drawn per round by markov.PosteriorNash, the same two reward models; computed when the table is written; 0: none); jobs run with it also swap contexts with the Bayes predictor (its policies on the transformer's self-play histories, the transformer's on its)")
	fs.IntVar(&fl.bayesLabels, "bayes-labels", 0, "joint: train on the posterior mean of the equilibrium from this many posterior samples (incontext.PosteriorExpert; the exact posterior of Bernoulli or of low-noise rewards, and in Markov games of the transitions too, markov.PosteriorNash: as many games solved a label) instead of the true game's equilibrium (0)")
	fs.IntVar(&fl.markovGames, "markov-games", 0, "joint: training games of the Markov families (128 quick, 2000 paper)")
	fs.IntVar(&fl.daggerGames, "dagger-games", 0, "distill: games of the model's own play in the DAgger round (32 quick, 500 paper)")
	fs.Float64Var(&fl.onPolicy, "on-policy", 0.5, "adapt (dpt modes), joint: games collected by the models themselves after the first training round, as a fraction of the training games")
	fs.StringVar(&fl.out, "out", filepath.Join("out", "incontext"), "output folder")
	fs.Uint64Var(&fl.seed, "seed", 1, "base seed")
	fs.StringVar(&fl.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof reads it)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	study, err := fl.selected()
	if err != nil {
		return nil, err
	}
	return sweep.Profiled(fl.cpuProfile, study), nil
}

// selected returns the study the flags select.
func (fl *studyFlags) selected() (func(context.Context) error, error) {
	if fl.scale != "quick" && fl.scale != "paper" {
		return nil, fmt.Errorf("unknown -scale %q (want quick or paper)", fl.scale)
	}
	fl.paper = fl.scale == "paper"
	if fl.seeds < 0 || fl.testGames < 0 || fl.steps < 0 || fl.firstSeed < 0 {
		return nil, errors.New("-seeds, -first-seed, -test-games and -steps must not be negative")
	}
	if fl.firstSeed != 0 && fl.study != "joint" {
		return nil, fmt.Errorf("-first-seed = %d: the joint study's flag, not %s's", fl.firstSeed, fl.study)
	}
	switch fl.study {
	case "figure1":
		return fl.figure1()
	case "omd":
		return fl.omd()
	case "adapt":
		return fl.adapt()
	case "distill":
		return fl.distill()
	case "joint":
		return fl.joint()
	}
	return nil, fmt.Errorf("unknown -study %q (want figure1, omd, adapt, distill or joint)", fl.study)
}

// studyFlags holds the parsed command line; paper selects the paper
// scale's defaults for the flags left at zero.
type studyFlags struct {
	study, scale, settings, lengths, relu, sizes, trainGames              string
	families, modes, out, noise, cpuProfile, lr                           string
	seeds, testGames, steps, daggerGames, markovGames, bayes, bayesLabels int
	firstSeed, valGames                                                   int
	omdTokens, paper, cells, curriculum                                   bool
	onPolicy                                                              float64
	seed                                                                  uint64
}

// initSeed returns the seed of the models of seed index k under the base
// seed -seed: k itself under the default base 1 (the seeds of the saved
// runs), so that another base draws fresh initialisations as it draws fresh
// games.
func initSeed(base uint64, k int) uint64 {
	return uint64(k) + (base-1)*1_000_003
}

// pick returns v if positive, else the scale's default.
func (fl *studyFlags) pick(v, quick, paper int) int {
	if v > 0 {
		return v
	}
	if fl.paper {
		return paper
	}
	return quick
}

// ints parses v if set, else returns the scale's default.
func (fl *studyFlags) ints(v string, quick, paper []int) ([]int, error) {
	if v != "" {
		return sweep.ParseInts(v)
	}
	if fl.paper {
		return paper, nil
	}
	return quick, nil
}

// str returns v if set, else the scale's default.
func (fl *studyFlags) str(v, quick, paper string) string {
	if v != "" {
		return v
	}
	if fl.paper {
		return paper
	}
	return quick
}

// figure1 builds the Figure 1 study. The paper scale's budget: 5 training
// games × 200 trajectories at T ∈ {10, …, 200}, at most 150 steps of batch
// 32 per model (about 5 epochs), 2 seeds. Its cost is dominated by the
// Markov settings at T = 200 (601 tokens a sequence): one seed trains on
// about 62M tokens in all, an hour on 2 cores, so the paper scale stays
// within the hour or two an example may take.
func (fl *studyFlags) figure1() (func(context.Context) error, error) {
	cfg := config{seeds: fl.pick(fl.seeds, 3, 2), rho: 0.1, gamma: 0.9, out: fl.out, seed: fl.seed, width: 64, layers: 2, reluCompare: fl.relu,
		steps: fl.pick(fl.steps, 150, 150), testGames: fl.pick(fl.testGames, 20, 100)}
	if fl.paper {
		cfg.lengths, cfg.trainGames, cfg.trajPerGame, cfg.batch = []int{10, 20, 50, 100, 200}, 5, 200, 32
	} else {
		cfg.lengths, cfg.trainGames, cfg.trajPerGame, cfg.batch = []int{10, 40}, 5, 24, 16
	}
	var err error
	if fl.lengths != "" {
		if cfg.lengths, err = sweep.ParseInts(fl.lengths); err != nil {
			return nil, err
		}
	}
	if cfg.settings, err = parseSettings(fl.settings); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return run(ctx, cfg) }, nil
}

// omd builds the OMD-imitation study.
func (fl *studyFlags) omd() (func(context.Context) error, error) {
	cfg := omdConfig{actions: 3, tokens: fl.omdTokens, out: fl.out, seed: fl.seed,
		seeds: fl.pick(fl.seeds, 2, 3), testGames: fl.pick(fl.testGames, 16, 100), steps: fl.pick(fl.steps, 200, 1500), batch: fl.pick(0, 8, 16)}
	var err error
	if cfg.sizes, err = sweep.ParseSizes(fl.str(fl.sizes, "1x16h2,2x32h4", "1x32,2x32,2x64h1,2x64,4x64,4x128")); err != nil {
		return nil, err
	}
	if cfg.trainGames, err = fl.ints(fl.trainGames, []int{32, 128}, []int{250, 1000}); err != nil {
		return nil, err
	}
	if cfg.lengths, err = fl.ints(fl.lengths, []int{10, 20, 40}, []int{20, 50, 100, 200}); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return runOMD(ctx, cfg) }, nil
}

// adapt builds the adaptation study.
func (fl *studyFlags) adapt() (func(context.Context) error, error) {
	cfg := adaptConfig{actions: 3, out: fl.out, seed: fl.seed, onPolicy: fl.onPolicy,
		seeds: fl.pick(fl.seeds, 2, 5), testGames: fl.pick(fl.testGames, 16, 50), steps: fl.pick(fl.steps, 200, 500),
		batch: fl.pick(0, 8, 16), width: fl.pick(0, 32, 64), layers: fl.pick(0, 1, 2)}
	if !(cfg.onPolicy >= 0) || math.IsInf(cfg.onPolicy, 0) {
		return nil, fmt.Errorf("-on-policy = %v must be a non-negative fraction", cfg.onPolicy)
	}
	var err error
	if cfg.families, err = parseFamilies(fl.str(fl.families, "rho0.1,rho1,iid", "rho0.1,rho0.5,rho1,iid")); err != nil {
		return nil, err
	}
	if cfg.modes, err = parseModes(fl.str(fl.modes, "tokens-ne,features-ne,features-dpt", "tokens-ne,features-ne,features-dpt")); err != nil {
		return nil, err
	}
	tg, err := fl.ints(fl.trainGames, []int{128}, []int{1000})
	if err != nil {
		return nil, err
	}
	if len(tg) != 1 {
		return nil, fmt.Errorf("-train-games %q: the adapt study takes one training-set size", fl.trainGames)
	}
	cfg.trainGames = tg[0]
	if cfg.lengths, err = fl.ints(fl.lengths, []int{5, 10, 20, 40}, []int{10, 20, 50, 100, 200}); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return runAdapt(ctx, cfg) }, nil
}

// distill builds the distillation study: OMD imitators in self-play.
func (fl *studyFlags) distill() (func(context.Context) error, error) {
	noise := fl.str(fl.noise, "exact", "exact")
	if _, err := parseNoise(noise); err != nil {
		return nil, err
	}
	if fl.daggerGames < 0 {
		return nil, errors.New("-dagger-games must not be negative")
	}
	cfg := distillConfig{out: fl.out, seed: fl.seed, noise: noise, seeds: fl.pick(fl.seeds, 2, 3), testGames: fl.pick(fl.testGames, 16, 100),
		steps: fl.pick(fl.steps, 150, 1500), batch: fl.pick(0, 8, 16), daggerGames: fl.pick(fl.daggerGames, 32, 500)}
	var err error
	if cfg.sizes, err = sweep.ParseSizes(fl.str(fl.sizes, "1x16h2,2x32h4", "1x64,2x64,4x64")); err != nil {
		return nil, err
	}
	tg, err := fl.ints(fl.trainGames, []int{64}, []int{1000})
	if err != nil {
		return nil, err
	}
	if len(tg) != 1 {
		return nil, fmt.Errorf("-train-games %q: the distill study takes one training-set size", fl.trainGames)
	}
	cfg.trainGames = tg[0]
	if cfg.lengths, err = fl.ints(fl.lengths, []int{10, 20, 40}, []int{20, 50, 100, 200}); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return runDistill(ctx, cfg) }, nil
}

// joint builds the joint-action DPT study.
func (fl *studyFlags) joint() (func(context.Context) error, error) {
	if fl.markovGames < 0 {
		return nil, errors.New("-markov-games must not be negative")
	}
	if fl.bayes < 0 || fl.bayes > learner.MaxSamples {
		return nil, fmt.Errorf("-bayes = %d must be in [0, %d]", fl.bayes, learner.MaxSamples)
	}
	if fl.bayesLabels < 0 || fl.bayesLabels > learner.MaxSamples {
		return nil, fmt.Errorf("-bayes-labels = %d must be in [0, %d]", fl.bayesLabels, learner.MaxSamples)
	}
	if !(fl.onPolicy >= 0) || math.IsInf(fl.onPolicy, 0) {
		return nil, fmt.Errorf("-on-policy = %v must be a non-negative fraction", fl.onPolicy)
	}
	if fl.lr != "constant" && fl.lr != "cosine" {
		return nil, fmt.Errorf("unknown -lr %q (want constant or cosine)", fl.lr)
	}
	cfg := jointConfig{cosine: fl.lr == "cosine", curriculum: fl.curriculum, out: fl.out, seed: fl.seed, firstSeed: fl.firstSeed, onPolicy: fl.onPolicy, cells: fl.cells, bayes: fl.bayes, bayesLabels: fl.bayesLabels, seeds: fl.pick(fl.seeds, 2, 3), testGames: fl.pick(fl.testGames, 16, 100),
		steps: fl.pick(fl.steps, 150, 2000), batch: fl.pick(0, 8, 32), width: fl.pick(0, 32, 64), layers: fl.pick(0, 1, 2),
		markovGames: fl.pick(fl.markovGames, 64, 2000)}
	var err error
	if cfg.families, err = parseJointFamilies(fl.str(fl.families, "iid2,iid3,markovS2", "iid3,markovS2")); err != nil {
		return nil, err
	}
	cfg.noises = strings.Split(fl.str(fl.noise, "bernoulli,low", "bernoulli,low"), ",")
	for _, n := range cfg.noises {
		if _, err := parseNoise(n); err != nil {
			return nil, err
		}
		if cfg.bayesLabels > 0 && !posteriorModelled(n) {
			return nil, fmt.Errorf("-bayes-labels: the posterior of %s rewards is not modelled (use -noise bernoulli or low)", n)
		}
	}
	tg, err := fl.ints(fl.trainGames, []int{256}, []int{10000})
	if err != nil {
		return nil, err
	}
	if len(tg) != 1 {
		return nil, fmt.Errorf("-train-games %q: the joint study takes one training-set size", fl.trainGames)
	}
	cfg.trainGames = tg[0]
	if fl.valGames < 0 {
		return nil, fmt.Errorf("-validation-games = %d must not be negative", fl.valGames)
	}
	cfg.valGames = fl.valGames
	for _, f := range cfg.families {
		if n := cfg.gamesOf(f); cfg.valGames >= n {
			return nil, fmt.Errorf("-validation-games = %d must be below the %d training games of %s", cfg.valGames, n, f.Name)
		}
	}
	if cfg.lengths, err = fl.ints(fl.lengths, []int{5, 10, 20, 40}, []int{10, 20, 50, 100, 200}); err != nil {
		return nil, err
	}
	cfg.heads = 4
	if fl.sizes != "" {
		sz, err := sweep.ParseSizes(fl.sizes)
		if err != nil {
			return nil, err
		}
		if len(sz) != 1 {
			return nil, fmt.Errorf("-sizes %q: the joint study takes one model size", fl.sizes)
		}
		cfg.layers, cfg.width, cfg.heads = sz[0].Layers, sz[0].Width, sz[0].Heads
	}
	return func(ctx context.Context) error { return runJoint(ctx, cfg) }, nil
}

func parseSettings(s string) ([]setting, error) {
	var out []setting
	for _, f := range strings.Split(s, ",") {
		kind, size, ok := strings.Cut(strings.TrimSpace(f), ":")
		n, err := strconv.Atoi(size)
		if !ok || err != nil || n < 1 || (kind != "matrix" && kind != "markov") {
			return nil, fmt.Errorf("bad setting %q (want matrix:A or markov:S)", f)
		}
		out = append(out, setting{Markov: kind == "markov", Size: n})
	}
	return out, nil
}

// outcome is the evaluation of one (setting, length, seed, attention) run:
// mean gaps over the unseen games.
type outcome struct {
	Transformer, Uniform, OMD, AvgNE, Expert, VsOMD float64
	// TransformerAvg and OMDAvg are the average iterate's gaps (matrix
	// games; NaN in Markov games, which have no average iterate).
	TransformerAvg, OMDAvg float64
	TrainSteps             int
	TrainKL                float64
	// ValLoss is the best validation loss, on the trajectories of a
	// held-out game of the family (mean of the two models).
	ValLoss float64
}

// row is one line of the results table.
type row struct {
	set       setting
	length    int
	attention transformer.Attention
	runs      []outcome
	seeds     []int // of the runs
}

func run(ctx context.Context, cfg config) error {
	if cfg.seeds < 1 {
		return errors.New("-seeds must be positive")
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	// Seed-major order: a run stopped part-way has every configuration at
	// some seeds.
	var jobs []figure1Job
	for k := range cfg.seeds {
		for _, s := range cfg.settings {
			for _, T := range cfg.lengths {
				atts := []transformer.Attention{transformer.SoftmaxAttention}
				if s.String() == strings.ReplaceAll(strings.ReplaceAll(cfg.reluCompare, "matrix:", "matrix-A"), "markov:", "markov-S") {
					atts = append(atts, transformer.ReLUAttention)
				}
				for _, att := range atts {
					jobs = append(jobs, figure1Job{Set: s, T: T, Att: att, Seed: k})
				}
			}
		}
	}
	label := func(i int) string {
		j := jobs[i]
		return fmt.Sprintf("%v T=%d %v seed %d", j.Set, j.T, j.Att, j.Seed)
	}
	return sweep.Study(ctx, filepath.Join(cfg.out, "jobs-figure1"), cfg.version(), len(jobs), label,
		func(ctx context.Context, i int) (figure1Job, string, error) {
			j := jobs[i]
			var err error
			j.Out, err = runOne(ctx, cfg, j.Set, j.T, j.Att, j.Seed)
			return j, fmt.Sprintf("transformer %.4f, uniform %.4f", j.Out.Transformer, j.Out.Uniform), err
		},
		func(done []figure1Job) (string, error) { return writeFigure1(cfg, done) })
}

// figure1Job is one (setting, length, attention, seed) run and its outcome.
type figure1Job struct {
	Set  setting
	T    int
	Att  transformer.Attention
	Seed int
	Out  outcome
}

// version identifies the configuration the saved jobs depend on, besides
// each job's setting, length, attention and seed.
func (c config) version() string {
	return fmt.Sprintf("figure1 v2: games=%d traj=%d test=%d steps=%d batch=%d rho=%v gamma=%v model=%dx%d seed=%d",
		c.trainGames, c.trajPerGame, c.testGames, c.steps, c.batch, c.rho, c.gamma, c.layers, c.width, c.seed)
}

// writeFigure1 writes the table, the CSV and the figures of the finished
// runs and returns the table.
func writeFigure1(cfg config, done []figure1Job) (string, error) {
	var rows []*row
	for _, j := range done {
		var r *row
		for _, x := range rows {
			if x.set == j.Set && x.length == j.T && x.attention == j.Att {
				r = x
			}
		}
		if r == nil {
			r = &row{set: j.Set, length: j.T, attention: j.Att}
			rows = append(rows, r)
		}
		r.runs, r.seeds = append(r.runs, j.Out), append(r.seeds, j.Seed)
	}
	seeds := sweep.Seeds(done, func(j figure1Job) int { return j.Seed }, cfg.seeds)
	md := table(rows, cfg, seeds)
	if err := os.WriteFile(filepath.Join(cfg.out, "results.md"), []byte(md), 0o644); err != nil {
		return "", err
	}
	if err := writeCSV(filepath.Join(cfg.out, "results.csv"), rows); err != nil {
		return "", err
	}
	// One figure per setting: the transformers' last and average iterate
	// against T, with every baseline: OMD self-play (last iterate), the
	// average training equilibrium and the uniform policy.
	for _, set := range cfg.settings {
		var x []float64
		var cur [6]figure.Series
		names := [6]string{"transformers, last iterate", "transformers, average iterate", "OMD self-play, last iterate", "OMD self-play, average iterate", "avg. training NE (fixed)", "uniform (fixed)"}
		fields := [6]func(o outcome) float64{
			func(o outcome) float64 { return o.Transformer }, func(o outcome) float64 { return o.TransformerAvg },
			func(o outcome) float64 { return o.OMD }, func(o outcome) float64 { return o.OMDAvg },
			func(o outcome) float64 { return o.AvgNE }, func(o outcome) float64 { return o.Uniform }}
		for k := range cur {
			cur[k].Name = names[k]
		}
		for _, r := range rows {
			if r.set != set || r.attention != transformer.SoftmaxAttention {
				continue
			}
			x = append(x, float64(r.length))
			for k := range cur {
				m, sd := sweep.MeanStd(r.runs, fields[k])
				cur[k].Mean, cur[k].Std = append(cur[k].Mean, m), append(cur[k].Std, sd)
			}
		}
		if len(x) == 0 {
			continue
		}
		var series []figure.Series
		for k := range cur {
			if set.Markov && (k == 1 || k == 3) { // no average iterate in Markov games
				continue
			}
			cur[k].X = x
			series = append(series, cur[k])
		}
		title := fmt.Sprintf("%v: duality gap on unseen games (bands: std over %s)", set, seeds)
		if err := figure.LogLog(filepath.Join(cfg.out, set.String()+".png"), title, "trajectory length T", "duality gap", series); err != nil {
			return "", err
		}
	}
	return md, nil
}

// runOne trains and evaluates one (setting, length, attention, seed).
func runOne(ctx context.Context, cfg config, set setting, T int, att transformer.Attention, seed int) (outcome, error) {
	rng := rand.New(rand.NewPCG(cfg.seed, uint64(seed)))
	prior, err := figure1Family(set, cfg, rng)
	if err != nil {
		return outcome{}, err
	}
	// The training games: Collect draws game k of the family from the
	// stream (seed, k) and plays PerGame trajectories on it. One more game
	// (k = trainGames) is the validation game: validation by game, so that
	// early stopping sees a failure to generalise to unseen games.
	st := sweep.NewStages(ctx)
	defer st.Done()
	st.Next("collect the training games")
	all, err := incontext.Collect(ctx, prior, incontext.CollectConfig{Rounds: T, Games: cfg.trainGames + 1, PerGame: cfg.trajPerGame, Noise: game.Exact{}, Seed: cfg.seed*1000 + uint64(seed)})
	if err != nil {
		return outcome{}, err
	}
	trajs, valTrajs := all[:cfg.trainGames*cfg.trajPerGame], all[cfg.trainGames*cfg.trajPerGame:]
	var train []game.Model
	for _, tr := range trajs {
		if g := tr.Game.(game.Model); !slices.Contains(train, g) {
			train = append(train, g)
		}
	}
	S, A, B := train[0].States(), train[0].Actions(game.RowPlayer), train[0].Actions(game.ColumnPlayer)
	encRow := incontext.GameEncoder{States: S, Actions: A}
	encCol := incontext.GameEncoder{States: S, Actions: B}
	mcfg := transformer.Config{Layers: cfg.layers, Heads: 4, Width: cfg.width, FeedForward: 4 * cfg.width, Attention: att}
	tcfg := transformer.TrainConfig[float32]{BatchSize: cfg.batch, Steps: cfg.steps, Seed: uint64(seed), TargetLoss: 0.01, StopOnKL: true, Patience: 10}
	pretrain := func(p game.Player, enc incontext.GameEncoder) (*transformer.Model[float32], transformer.TrainResult, error) {
		pc := incontext.PretrainConfig[float32]{Model: mcfg, Train: tcfg, Seed: uint64(seed)}
		var err error
		if pc.Train.Validation, err = incontext.Examples[float32](incontext.Views(valTrajs, p), enc, false, nil); err != nil {
			return nil, transformer.TrainResult{}, err
		}
		return incontext.Pretrain(ctx, incontext.Views(trajs, p), enc, pc)
	}
	st.Next("train")
	rowModel, rowRes, err := pretrain(game.RowPlayer, encRow)
	if err != nil {
		return outcome{}, err
	}
	colModel, colRes, err := pretrain(game.ColumnPlayer, encCol)
	if err != nil {
		return outcome{}, err
	}
	st.Next("play the unseen games")
	avgX, avgY, err := averageEquilibrium(train)
	if err != nil {
		return outcome{}, err
	}
	omd := func(g game.Model, p game.Player) (*learner.OMD, error) { return horizonOMD(g, p, T) }
	o := outcome{TrainSteps: rowRes.Steps + colRes.Steps, TrainKL: (rowRes.KL + colRes.KL) / 2, ValLoss: (rowRes.BestValLoss + colRes.BestValLoss) / 2}
	n := float64(cfg.testGames)
	for range cfg.testGames {
		g, err := prior(rng)
		if err != nil {
			return outcome{}, err
		}
		spc := play.SelfPlayConfig{Rounds: T, Noise: game.Exact{}}
		res, err := incontext.Play(ctx, g, rowModel, colModel, encRow, encCol, spc, rng)
		if err != nil {
			return outcome{}, err
		}
		o.Transformer += res.LastGap / n
		o.TransformerAvg += res.AverageGap / n
		_, ug, err := g.Gaps(markov.UniformStationary(S, A), markov.UniformStationary(S, B))
		if err != nil {
			return outcome{}, err
		}
		o.Uniform += ug / n
		x, err := omd(g, game.RowPlayer)
		if err != nil {
			return outcome{}, err
		}
		y, err := omd(g, game.ColumnPlayer)
		if err != nil {
			return outcome{}, err
		}
		om, err := play.SelfPlay(ctx, g, x, y, spc, rng)
		if err != nil {
			return outcome{}, err
		}
		o.OMD += om.LastGap / n
		o.OMDAvg += om.AverageGap / n
		_, ag, err := g.Gaps(avgX, avgY)
		if err != nil {
			return outcome{}, err
		}
		o.AvgNE += ag / n
		ex, ey, err := g.Nash()
		if err != nil {
			return outcome{}, err
		}
		_, eg, err := g.Gaps(ex, ey)
		if err != nil {
			return outcome{}, err
		}
		o.Expert += eg / n
		// Transformer (row) against OMD (column).
		tx, err := incontext.NewLearner(rowModel, encRow, incontext.Config{})
		if err != nil {
			return outcome{}, err
		}
		oy, err := omd(g, game.ColumnPlayer)
		if err != nil {
			return outcome{}, err
		}
		vs, err := play.SelfPlay(ctx, g, tx, oy, spc, rng)
		if err != nil {
			return outcome{}, err
		}
		o.VsOMD += vs.LastGap / n
	}
	return o, nil
}

// horizonOMD returns player p's OMD learner for T rounds of g (its
// discount if g is a discounted Markov game).
func horizonOMD(g game.Model, p game.Player, T int) (*learner.OMD, error) {
	c := learner.OMDConfig{States: g.States(), Actions: g.Actions(p), Horizon: T, Role: p}
	if d, ok := g.(*markov.Discounted); ok {
		c.Discount = d.Discount()
	}
	return learner.NewOMD(c)
}

// averageEquilibrium returns the average of the games' equilibrium
// policies, state by state.
func averageEquilibrium(games []game.Model) (avgX, avgY [][]float64, err error) {
	S, A, B := games[0].States(), games[0].Actions(game.RowPlayer), games[0].Actions(game.ColumnPlayer)
	avgX, avgY = markov.UniformStationary(S, A), markov.UniformStationary(S, B)
	for s := range S {
		clear(avgX[s])
		clear(avgY[s])
	}
	for _, g := range games {
		x, y, err := g.Nash()
		if err != nil {
			return nil, nil, err
		}
		for s := range S {
			for a := range A {
				avgX[s][a] += x[s][a] / float64(len(games))
			}
			for b := range B {
				avgY[s][b] += y[s][b] / float64(len(games))
			}
		}
	}
	return avgX, avgY, nil
}

// figure1Family returns the prior Λ of a setting: a base game drawn from rng and
// its perturbed family (ρ = cfg.rho).
func figure1Family(set setting, cfg config, rng *rand.Rand) (func(*rand.Rand) (game.Model, error), error) {
	if !set.Markov {
		base, err := game.RandomUniform(set.Size, set.Size, rng)
		if err != nil {
			return nil, err
		}
		fam, err := game.NewPerturbed(base, cfg.rho, game.PerturbUniform)
		if err != nil {
			return nil, err
		}
		return func(r *rand.Rand) (game.Model, error) { return fam.Sample(r), nil }, nil
	}
	base, err := markov.RandomDiscounted(set.Size, 3, 3, cfg.gamma, rng)
	if err != nil {
		return nil, err
	}
	fam, err := markov.NewPerturbedDiscounted(base, cfg.rho, game.PerturbUniform)
	if err != nil {
		return nil, err
	}
	return func(r *rand.Rand) (game.Model, error) { return fam.Sample(r), nil }, nil
}

func table(rows []*row, cfg config, seeds string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Duality gap on %d unseen games per run, of the last iterate and (matrix games) of the average iterate, mean ± std over %s; training on %d games × %d trajectories, validation on the trajectories of one more game of the family (by game), at most %d steps per model; train KL and the best validation loss are the means of the two models.\n\n",
		cfg.testGames, seeds, cfg.trainGames, cfg.trajPerGame, cfg.steps)
	b.WriteString("| setting | T | attention | transformer | transformer, avg. iterate | uniform | OMD self-play | OMD, avg. iterate | avg. training NE | expert (= NE) | transformer vs OMD | train KL | val. loss (held-out game) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	slices.SortStableFunc(rows, func(a, b *row) int {
		if c := strings.Compare(a.set.String(), b.set.String()); c != 0 {
			return c
		}
		if a.length != b.length {
			return a.length - b.length
		}
		return int(a.attention) - int(b.attention)
	})
	pm := func(r *row, f func(outcome) float64) string {
		m, s := sweep.MeanStd(r.runs, f)
		if math.IsNaN(m) {
			return "–"
		}
		return sweep.PlusMinus(m, s, len(r.runs), 4)
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %v | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.set, r.length, r.attention,
			pm(r, func(o outcome) float64 { return o.Transformer }),
			pm(r, func(o outcome) float64 { return o.TransformerAvg }),
			pm(r, func(o outcome) float64 { return o.Uniform }),
			pm(r, func(o outcome) float64 { return o.OMD }),
			pm(r, func(o outcome) float64 { return o.OMDAvg }),
			pm(r, func(o outcome) float64 { return o.AvgNE }),
			pm(r, func(o outcome) float64 { return o.Expert }),
			pm(r, func(o outcome) float64 { return o.VsOMD }),
			pm(r, func(o outcome) float64 { return o.TrainKL }),
			pm(r, func(o outcome) float64 { return o.ValLoss }))
	}
	return b.String()
}

func writeCSV(path string, rows []*row) error {
	var out [][]string
	for _, r := range rows {
		for k, o := range r.runs {
			out = append(out, []string{r.set.String(), strconv.Itoa(r.length), r.attention.String(), strconv.Itoa(r.seeds[k]),
				ff(o.Transformer), ff(o.TransformerAvg), ff(o.Uniform), ff(o.OMD), ff(o.OMDAvg), ff(o.AvgNE), ff(o.Expert), ff(o.VsOMD), strconv.Itoa(o.TrainSteps), ff(o.TrainKL), ff(o.ValLoss)})
		}
	}
	return sweep.WriteCSV(path, []string{"setting", "T", "attention", "seed", "transformer", "transformer_average", "uniform", "omd", "omd_average", "avg_training_ne", "expert", "transformer_vs_omd", "train_steps", "train_kl", "val_loss"}, out)
}

func ff(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', 8, 64)
}
