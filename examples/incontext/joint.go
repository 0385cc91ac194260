package main

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
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
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/transformer"
)

// The joint-action study (-study joint): decision-pretrained transformers
// (Lee et al. 2023) in the centralized setting of Shi et al. 2024, where a
// player sees the opponent's action as well as its own action and reward,
// so that the context can identify the game (with only its own action and
// reward, a player facing a uniform opponent cannot tell apart games whose
// rows have equal means).
//
// For every family, reward noise and seed it draws many training games
// (i.i.d. uniform A×A matrix games, or i.i.d. two-state discounted Markov
// games from markov.RandomDiscounted with γ = 0.9), plays one trajectory of
// T_max rounds on each with a context policy drawn per trajectory from the
// flat Dirichlet law (incontext.Dirichlet, the same draw every round: what
// the model must read is the opponent's and its own play, not an expert's),
// and labels every round with each player's equilibrium policy of the true
// game (incontext.NEExpert). One model (the joint-action feature read-in:
// own action, opponent's action, exact reward) is trained on both players'
// views, validation split by game; optionally (-on-policy) the model then
// plays itself on fresh games, labelled the same way, and is trained
// further on the union (on-policy context, Wang et al. 2024).
//
// On unseen games it plays itself under joint-action observation, and the
// duality gap of the policies held at round T (last iterate; the maximum
// over states in Markov games) is reported at every T of -lengths, next to
// OMD self-play (decentralized), the average training equilibrium played as
// a fixed policy, the uniform policy and, in matrix games, two plug-in
// learner.PosteriorNash players, which see the same joint-action
// observations and play the equilibrium of their posterior-mean estimate
// of the game (a greedy rule). With -bayes N (matrix games, the exact
// posterior of Bernoulli and of low-noise rewards; computed
// when the table is written, from the saved jobs' seeds) it adds the
// Bayes-optimal predictor of the training labels: two PosteriorNash
// players with N posterior samples, which play the posterior mean of the
// true game's equilibrium, the policy that minimises the expected
// cross-entropy to the equilibrium labels given the context. Jobs run with
// -bayes also swap contexts with it (joint_contexts.go): the Bayes
// predictor on the transformer's self-play histories and the transformer
// on the Bayes predictors', which tells whether the transformer's play or
// its reading of a context holds its gap.

// jointFamily is one game family of the joint study.
type jointFamily struct {
	Name    string
	Markov  bool
	Actions int
}

// parseJointFamilies parses "iidA" (i.i.d. A×A matrix games) and
// "markovS2" (i.i.d. two-state Markov games with 3 actions).
func parseJointFamilies(s string) ([]jointFamily, error) {
	var out []jointFamily
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "markovS2":
			out = append(out, jointFamily{Name: f, Markov: true, Actions: 3})
		case strings.HasPrefix(f, "iid"):
			a, err := strconv.Atoi(f[3:])
			if err != nil || a < 2 || a > 10 {
				return nil, fmt.Errorf("bad family %q (want iidA with 2 ≤ A ≤ 10, or markovS2)", f)
			}
			out = append(out, jointFamily{Name: f, Actions: a})
		default:
			return nil, fmt.Errorf("bad family %q (want iidA with 2 ≤ A ≤ 10, or markovS2)", f)
		}
	}
	return out, nil
}

// prior returns the family's prior over games.
func (f jointFamily) prior() func(*rand.Rand) (game.Model, error) {
	if f.Markov {
		return func(rng *rand.Rand) (game.Model, error) {
			return markov.RandomDiscounted(2, f.Actions, f.Actions, 0.9, rng)
		}
	}
	return func(rng *rand.Rand) (game.Model, error) { return game.RandomUniform(f.Actions, f.Actions, rng) }
}

// states returns the family's number of states.
func (f jointFamily) states() int {
	if f.Markov {
		return 2
	}
	return 1
}

type jointConfig struct {
	families    []jointFamily
	noises      []string
	lengths     []int // checkpoints; the models train and play max(lengths) rounds
	trainGames  int   // matrix families; Markov families use markovGames
	markovGames int
	valGames    int // training games held out for validation (0: a tenth)
	testGames   int
	onPolicy    float64
	cells       bool // the read-in carries each round's payoff cell (GameEncoder.Cells)
	bayes       int  // posterior samples of the Bayes-predictor baseline (0: none)
	bayesLabels int  // posterior samples of the training labels (incontext.PosteriorExpert; 0: NEExpert)
	cosine      bool // each training round decays the learning rate by a cosine (schedule)
	curriculum  bool // the first training round in stages over T (curriculumStages)
	steps       int
	batch       int
	width       int
	layers      int
	heads       int
	seeds       int
	firstSeed   int // the jobs are seeds firstSeed, …, firstSeed+seeds−1
	seed        uint64
	out         string
}

// jointResult is one (family, noise, seed) job: mean gaps over the unseen
// games at every length.
type jointResult struct {
	Family, Noise        string
	Seed                 int
	Transformer, OMD     []float64
	Posterior            []float64 // matrix games only
	AvgNE, Uniform       float64
	TrainKL, ValLoss     float64
	OnPolicyValLoss      float64
	TV, AvgTV            float64   // teacher-forced TV to the labels: model, average training NE
	PosteriorTV          float64   // the same for learner.PosteriorNash (matrix games; computed when the table is written)
	Bayes                []float64 // the Bayes predictor's gaps (-bayes, matrix games; computed when the table is written)
	Hedge                []float64 // the joint-action Hedge players' gaps (matrix games; computed when the table is written)
	BayesTV              float64   // its teacher-forced TV to the labels
	BayesOnModel         []float64 // the Bayes predictors' gaps on the transformer's self-play histories (-bayes when the job ran; nil without)
	ModelOnBayes         []float64 // the transformer's gaps on the Bayes predictors' self-play histories (the same)
	MeansBayes           []float64 // low noise, matrix games, -bayes: the Bayes predictor of a Gaussian-noise model, a reader of the cell means (computed when the table is written)
	Steps, OnPolicySteps int
	TrainGames           int
}

func runJoint(ctx context.Context, cfg jointConfig) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	type job struct {
		fam   int
		noise string
		seed  int
	}
	var jobs []job
	for k := cfg.firstSeed; k < cfg.firstSeed+cfg.seeds; k++ {
		for f := range cfg.families {
			for _, n := range cfg.noises {
				jobs = append(jobs, job{f, n, k})
			}
		}
	}
	Tmax := slices.Max(cfg.lengths)
	label := func(i int) string {
		j := jobs[i]
		return fmt.Sprintf("joint actions, %s, %s rewards, seed %d", cfg.families[j.fam].Name, j.noise, j.seed)
	}
	return sweep.Study(ctx, filepath.Join(cfg.out, "jobs-joint"), cfg.version(), len(jobs), label,
		func(ctx context.Context, i int) (jointResult, string, error) {
			j := jobs[i]
			r, err := jointOne(ctx, cfg, cfg.families[j.fam], j.noise, j.seed)
			if err != nil {
				return r, "", err
			}
			l := len(r.Transformer) - 1
			return r, fmt.Sprintf("gap at T = %d: transformer %.4f, plug-in posterior Nash %.4f, OMD %.4f, avg. training NE %.4f",
				Tmax, r.Transformer[l], r.Posterior[l], r.OMD[l], r.AvgNE), nil
		},
		func(rs []jointResult) (string, error) { return writeJoint(cfg, rs) })
}

// version identifies the configuration the saved jobs depend on, besides
// each job's family, noise and seed.
func (c jointConfig) version() string {
	v := fmt.Sprintf("joint v1: T=%v train=%d markov=%d test=%d onpolicy=%v steps=%d batch=%d model=%dx%d seed=%d",
		c.lengths, c.trainGames, c.markovGames, c.testGames, c.onPolicy, c.steps, c.batch, c.layers, c.width, c.seed)
	if c.cells {
		v += " cells"
	}
	if c.heads != 4 { // runs saved before -sizes had 4 heads
		v += fmt.Sprintf(" heads=%d", c.heads)
	}
	if c.bayesLabels > 0 {
		v += fmt.Sprintf(" bayes-labels=%d", c.bayesLabels)
	}
	if c.cosine {
		v += " lr=cosine"
	}
	if c.valGames > 0 {
		v += fmt.Sprintf(" val=%d", c.valGames)
	}
	if c.curriculum {
		v += " curriculum"
	}
	return v
}

// validationNote returns the table's note on the validation games: none
// for the default tenth.
func validationNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d held-out games and as large a share of the on-policy round's", n)
}

// gamesOf returns the training games of a family: trainGames for matrix
// families, markovGames for Markov ones.
func (c jointConfig) gamesOf(f jointFamily) int {
	if f.Markov {
		return c.markovGames
	}
	return c.trainGames
}

// validationFraction returns incontext.PretrainConfig's ValidationFraction
// for a family: 0 (Pretrain's tenth) by default, else -validation-games
// over the family's training games, which the on-policy round applies to
// its larger set too.
func (c jointConfig) validationFraction(f jointFamily) float64 {
	if c.valGames == 0 {
		return 0
	}
	return float64(c.valGames) / float64(c.gamesOf(f))
}

// schedule returns the learning rate of a training round of the given
// steps: nil (incontext.Pretrain's constant 1e-3) unless -lr cosine, which
// decays 1e-3 to 0 over the round (Loshchilov and Hutter's cosine, restarted
// at the on-policy round).
func (c jointConfig) schedule(steps int) transformer.LRSchedule {
	if !c.cosine {
		return nil
	}
	return transformer.WarmupCosine{Peak: 1e-3, Total: steps}
}

// jointOne trains and measures one (family, noise, seed).
func jointOne(ctx context.Context, cfg jointConfig, fam jointFamily, noiseName string, seed int) (jointResult, error) {
	cc, base, err := jointCollectConfig(cfg, fam, noiseName, seed)
	if err != nil {
		return jointResult{}, err
	}
	noise, games, prior := cc.Noise, cc.Games, fam.prior()
	A, S := fam.Actions, fam.states()
	enc := incontext.GameEncoder{States: S, Actions: A, Opponents: A, Features: true, Cells: cfg.cells}
	// The training data; the held-out trajectories below keep the
	// equilibrium labels whatever the training labels are.
	tcc := cc
	if cfg.bayesLabels > 0 {
		e := incontext.PosteriorExpert{Samples: cfg.bayesLabels, PriorWeight: posteriorWeight(noise)}
		if u, ok := noise.(game.UniformNoise); ok {
			e.NoiseHalfWidth = u.HalfWidth // the exact posterior of the low-noise rewards
		}
		tcc.RowExpert, tcc.ColExpert = e, e
	}
	stage := sweep.NewStages(ctx)
	defer stage.Done()
	stage.Next("collect and label the training games")
	train, err := incontext.Collect(ctx, prior, tcc)
	if err != nil {
		return jointResult{}, err
	}
	mc := transformer.Config{Layers: cfg.layers, Heads: cfg.heads, Width: cfg.width, FeedForward: 4 * cfg.width}
	tc := transformer.TrainConfig[float32]{BatchSize: cfg.batch, Steps: cfg.steps, Seed: initSeed(cfg.seed, seed), TargetLoss: -1,
		EvalEvery: evalEvery(cfg.steps), Patience: 20, RestoreBest: true, LR: cfg.schedule(cfg.steps)}
	pc := incontext.PretrainConfig[float32]{Model: mc, Train: tc, Seed: initSeed(cfg.seed, seed), ValidationGroup: 2, ValidationFraction: cfg.validationFraction(fam)}
	stage.Next("train")
	model, res, err := jointFirstRound(ctx, cfg, incontext.AllViews(train), enc, pc)
	if err != nil {
		return jointResult{}, err
	}
	r := jointResult{Family: fam.Name, Noise: noiseName, Seed: seed, TrainKL: res.KL, ValLoss: res.BestValLoss, Steps: res.Steps, TrainGames: games}
	if n := int(math.Round(cfg.onPolicy * float64(games))); n > 0 {
		player := func() (learner.Learner, error) { return incontext.NewLearner(model, enc, incontext.Config{}) }
		own := tcc
		own.Games, own.Seed, own.RowLearner, own.ColLearner = n, base+1, player, player
		stage.Next("on-policy games: play and label")
		on, err := incontext.Collect(ctx, prior, own)
		if err != nil {
			return jointResult{}, err
		}
		pc.From = model
		pc.Train.Steps = max(cfg.steps/2, 1)
		pc.Train.LR = cfg.schedule(pc.Train.Steps)
		stage.Next("on-policy round: train")
		_, res, err = incontext.Pretrain(ctx, incontext.AllViews(append(train, on...)), enc, pc)
		if err != nil {
			return jointResult{}, err
		}
		r.OnPolicySteps, r.OnPolicyValLoss = res.Steps, res.BestValLoss
	}

	stage.Next("average training equilibrium")
	models := make([]game.Model, len(train))
	for i := range train {
		models[i] = train[i].Game.(game.Model)
	}
	avgX, avgY, err := averageEquilibrium(models)
	if err != nil {
		return jointResult{}, err
	}
	// Teacher-forced: how well the model reads held-out Dirichlet-played
	// contexts, against the average equilibrium's distance to the labels.
	stage.Next("teacher-forced TV on held-out games")
	held := cc
	held.Games, held.Seed = cfg.testGames, base+2
	heldTrajs, err := incontext.Collect(ctx, prior, held)
	if err != nil {
		return jointResult{}, err
	}
	st, err := incontext.Imitation(model, enc, incontext.Views(heldTrajs, game.RowPlayer), incontext.Config{})
	if err != nil {
		return jointResult{}, err
	}
	r.TV = st.TV
	for _, tr := range heldTrajs {
		for t, lab := range tr.Players[0].Labels {
			r.AvgTV += simplex.TotalVariation(avgX[tr.Players[0].Rounds[t].Obs], lab) / float64(st.Rounds)
		}
	}
	stage.Next("play the unseen games")
	if err := jointGaps(ctx, cfg, fam, noise, prior, model, enc, base+3, avgX, avgY, &r); err != nil {
		return jointResult{}, err
	}
	if cfg.bayes > 0 && posteriorModelled(noiseName) {
		stage.Next("swap the contexts with the Bayes predictor")
		if r.BayesOnModel, r.ModelOnBayes, err = jointSwapGaps(ctx, cfg, fam, noiseName, seed, cfg.bayes, model, enc); err != nil {
			return jointResult{}, err
		}
	}
	return r, nil
}

// evalEvery returns the validation interval of a training round of the
// given steps: every 50 steps, or eight times a round if that is fewer
// steps, at least every step.
func evalEvery(steps int) int { return max(1, min(50, steps/8)) }

// curriculumStage is one stage of the first training round under
// -curriculum: Steps optimiser steps on the trajectories' first Rounds
// rounds.
type curriculumStage struct{ Rounds, Steps int }

// curriculumStages splits a first round of steps steps on trajectories of
// T rounds into three stages of equal steps (the last takes the
// remainder) on the first ⌈T/4⌉, ⌈T/2⌉ and T rounds: short contexts
// first, the full length last (Bengio et al. 2009's curriculum, here over
// the context length).
func curriculumStages(T, steps int) []curriculumStage {
	third := steps / 3
	return []curriculumStage{{(T + 3) / 4, third}, {(T + 1) / 2, third}, {T, steps - 2*third}}
}

// jointFirstRound trains the model of a job on its training trajectories:
// one incontext.Pretrain call of pc, or under -curriculum one call per
// curriculumStages stage on the trajectories cut to the stage's rounds,
// each training the last one's model further (with fresh Adam moments,
// as the on-policy round does). The model holds the full length from the
// start and every stage holds out the same games for validation, so the
// result's validation loss is the last stage's, on full trajectories; its
// Steps are summed over the stages.
func jointFirstRound(ctx context.Context, cfg jointConfig, trajs []incontext.Trajectory[int], enc incontext.GameEncoder, pc incontext.PretrainConfig[float32]) (*transformer.Model[float32], transformer.TrainResult, error) {
	if !cfg.curriculum {
		return incontext.Pretrain(ctx, trajs, enc, pc)
	}
	T := len(trajs[0].Rounds)
	pc.Model.MaxLen = enc.Positions(T)
	var (
		model *transformer.Model[float32]
		res   transformer.TrainResult
		steps int
	)
	for _, st := range curriculumStages(T, pc.Train.Steps) {
		cut := make([]incontext.Trajectory[int], len(trajs))
		for i, tr := range trajs {
			cut[i] = incontext.Trajectory[int]{Rounds: tr.Rounds[:st.Rounds], Labels: tr.Labels[:st.Rounds]}
		}
		s := pc
		s.From = model
		s.Train.Steps = max(st.Steps, 1)
		s.Train.EvalEvery = evalEvery(s.Train.Steps)
		s.Train.LR = cfg.schedule(s.Train.Steps)
		var err error
		if model, res, err = incontext.Pretrain(ctx, cut, enc, s); err != nil {
			return model, res, err
		}
		steps += res.Steps
	}
	res.Steps = steps
	return model, res, nil
}

// jointCollectConfig returns the collection of the training games of one
// (family, noise, seed) job and its base seed: every trajectory played by
// flat-Dirichlet context policies under joint-action observation. The
// held-out trajectories are the same collection with cfg.testGames games
// from seed base+2.
func jointCollectConfig(cfg jointConfig, fam jointFamily, noiseName string, seed int) (incontext.CollectConfig, uint64, error) {
	noise, err := parseNoise(noiseName)
	if err != nil {
		return incontext.CollectConfig{}, 0, err
	}
	famIndex := slices.IndexFunc(cfg.families, func(f jointFamily) bool { return f.Name == fam.Name })
	base := cfg.seed*1_000_003 + uint64(famIndex)*10_007 + uint64(seed)*101
	games := cfg.gamesOf(fam)
	ctxPolicy := incontext.Dirichlet{Alpha: 1}
	return incontext.CollectConfig{Rounds: slices.Max(cfg.lengths), Games: games, Noise: noise, RowContext: ctxPolicy, ColContext: ctxPolicy,
		Observation: learner.JointActions, Seed: base}, base, nil
}

// posteriorWeight returns the prior weight of learner.PosteriorNash for
// the noise: 0 (the Beta(1, 1) default) for Bernoulli rewards, 12σ² for
// uniform noise of standard deviation σ = 0.05.
func posteriorWeight(noise game.Noise) float64 {
	if _, low := noise.(game.UniformNoise); low {
		return 12 * 0.05 * 0.05
	}
	return 0
}

// jointPosteriorTV returns the teacher-forced distance (TV, mean over
// rounds) between the labels of the held-out trajectories of one matrix
// job and the policy a learner.PosteriorNash player holds after the same
// joint observations: how close to the labels the best plug-in reading of
// the context comes, or with samples > 0 the Bayes predictor (its policy
// drawn from rand.NewPCG(base+5, game)). It regenerates the trajectories
// from the job's seed (no model is needed); NaN for Markov families.
func jointPosteriorTV(ctx context.Context, cfg jointConfig, fam jointFamily, noiseName string, seed, samples int) (float64, error) {
	if fam.Markov {
		return math.NaN(), nil
	}
	cc, base, err := jointCollectConfig(cfg, fam, noiseName, seed)
	if err != nil {
		return 0, err
	}
	cc.Games, cc.Seed = cfg.testGames, base+2
	trajs, err := incontext.Collect(ctx, fam.prior(), cc)
	if err != nil {
		return 0, err
	}
	sums := make([]float64, len(trajs))
	err = parallel.For(len(trajs), func(k int) error {
		p, err := learner.NewPosteriorNash(posteriorConfig(fam.Actions, cc.Noise, samples, base+5, k))
		if err != nil {
			return err
		}
		row := trajs[k].Players[0]
		for t, lab := range row.Labels {
			sums[k] += simplex.TotalVariation(p.Policy(0), lab)
			r := row.Rounds[t]
			if err := p.ObserveJoint(0, r.Action, r.Opponent, r.Reward, 0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	var sum float64
	var n int
	for k, tr := range trajs {
		sum += sums[k]
		n += len(tr.Players[0].Labels)
	}
	return sum / float64(n), nil
}

// posteriorConfig returns the configuration of a learner.PosteriorNash
// player of A actions under the noise: the plug-in player for samples = 0,
// else the Bayes predictor drawing from rand.NewPCG(seed, k).
func posteriorConfig(A int, noise game.Noise, samples int, seed uint64, k int) learner.PosteriorNashConfig {
	c := learner.PosteriorNashConfig{Actions: A, Opponents: A, PriorWeight: posteriorWeight(noise)}
	if samples > 0 {
		c.Samples, c.Rand = samples, rand.New(rand.NewPCG(seed, uint64(k)))
		if u, ok := noise.(game.UniformNoise); ok {
			c.NoiseHalfWidth = u.HalfWidth // the exact posterior of the low-noise rewards
		}
	}
	return c
}

// jointBayesGaps returns the mean gaps at cfg.lengths of two Bayes
// predictors (bayesPlayers with samples posterior draws, streams base+4)
// in self-play on the unseen games of one job: the games jointGaps plays,
// regenerated from the job's seed.
func jointBayesGaps(ctx context.Context, cfg jointConfig, fam jointFamily, noiseName string, seed, samples int) ([]float64, error) {
	_, base, err := jointCollectConfig(cfg, fam, noiseName, seed)
	if err != nil {
		return nil, err
	}
	return jointPeerGaps(ctx, cfg, fam, noiseName, seed, bayesPlayers(fam, noiseName, samples, base+4))
}

// noiseOf returns the reward noise of a setting's name (parseNoise of a
// name the configuration has checked).
func noiseOf(name string) game.Noise {
	n, _ := parseNoise(name)
	return n
}

// jointPeerGaps returns the mean gaps at cfg.lengths of two players made by
// player(2k) and player(2k+1) in self-play under joint-action observation
// on the unseen games of one matrix job (game k): the games jointGaps
// plays, regenerated from the job's seed.
func jointPeerGaps(ctx context.Context, cfg jointConfig, fam jointFamily, noiseName string, seed int, player func(k int) (learner.Learner, error)) ([]float64, error) {
	cc, base, err := jointCollectConfig(cfg, fam, noiseName, seed)
	if err != nil {
		return nil, err
	}
	noise, prior := cc.Noise, fam.prior()
	joint := play.SelfPlayConfig{Rounds: slices.Max(cfg.lengths), Noise: noise, Checkpoints: cfg.lengths, Observation: learner.JointActions}
	per := make([][]float64, cfg.testGames)
	err = parallel.For(cfg.testGames, func(k int) error {
		_, res, err := playPeers(ctx, prior, base, k, player, joint)
		if err != nil {
			return err
		}
		for _, c := range res.Checkpoints {
			per[k] = append(per[k], c.LastGap)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return meanOver(per), nil
}

// playPeers plays unseen game k of a job of base seed base (the game and
// its play from rand.NewPCG(base+3, k), as jointGaps plays it) with the
// players player(2k) and player(2k+1) in self-play under c, and returns
// the game and the result.
func playPeers(ctx context.Context, prior func(*rand.Rand) (game.Model, error), base uint64, k int,
	player func(k int) (learner.Learner, error), c play.SelfPlayConfig) (game.Model, *play.SelfPlayResult, error) {
	rng := rand.New(rand.NewPCG(base+3, uint64(k)))
	g, err := prior(rng)
	if err != nil {
		return nil, nil, err
	}
	x, err := player(2 * k)
	if err != nil {
		return nil, nil, err
	}
	y, err := player(2*k + 1)
	if err != nil {
		return nil, nil, err
	}
	res, err := play.SelfPlay(ctx, g, x, y, c, rng)
	return g, res, err
}

// jointGaps plays cfg.testGames unseen games (game k from
// rand.NewPCG(seed, k)) with the model, OMD self-play and the
// posterior-Nash players, and adds their mean gaps at cfg.lengths to r,
// with those of the fixed baselines.
func jointGaps(ctx context.Context, cfg jointConfig, fam jointFamily, noise game.Noise, prior func(*rand.Rand) (game.Model, error),
	model *transformer.Model[float32], enc incontext.GameEncoder, seed uint64, avgX, avgY [][]float64, r *jointResult) error {
	A, S := fam.Actions, fam.states()
	L := len(cfg.lengths)
	r.Transformer, r.OMD, r.Posterior = make([]float64, L), make([]float64, L), make([]float64, L)
	if fam.Markov {
		for i := range r.Posterior {
			r.Posterior[i] = math.NaN()
		}
	}
	spc := play.SelfPlayConfig{Rounds: slices.Max(cfg.lengths), Noise: noise, Checkpoints: cfg.lengths}
	joint := spc
	joint.Observation = learner.JointActions
	w := posteriorWeight(noise)
	n := float64(cfg.testGames)
	uni := markov.UniformStationary(S, A)
	for k := range cfg.testGames {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		g, err := prior(rng)
		if err != nil {
			return err
		}
		tp, err := incontext.Play(ctx, g, model, model, enc, enc, joint, rng)
		if err != nil {
			return err
		}
		var gamma float64
		if d, ok := g.(game.Discounter); ok {
			gamma = d.Discount()
		}
		x, err := learner.NewOMD(learner.OMDConfig{States: S, Actions: A, Discount: gamma})
		if err != nil {
			return err
		}
		y, err := learner.NewOMD(learner.OMDConfig{States: S, Actions: A, Discount: gamma, Role: game.ColumnPlayer})
		if err != nil {
			return err
		}
		op, err := play.SelfPlay(ctx, g, x, y, spc, rng)
		if err != nil {
			return err
		}
		for i := range L {
			r.Transformer[i] += tp.Checkpoints[i].LastGap / n
			r.OMD[i] += op.Checkpoints[i].LastGap / n
		}
		if !fam.Markov {
			px, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: A, Opponents: A, PriorWeight: w})
			if err != nil {
				return err
			}
			py, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: A, Opponents: A, PriorWeight: w})
			if err != nil {
				return err
			}
			pp, err := play.SelfPlay(ctx, g, px, py, joint, rng)
			if err != nil {
				return err
			}
			for i := range L {
				r.Posterior[i] += pp.Checkpoints[i].LastGap / n
			}
		}
		for _, f := range []struct {
			dst  *float64
			x, y [][]float64
		}{{&r.AvgNE, avgX, avgY}, {&r.Uniform, uni, uni}} {
			_, gap, err := g.Gaps(f.x, f.y)
			if err != nil {
				return err
			}
			*f.dst += gap / n
		}
	}
	return nil
}

// jointTableBaselines computes the baselines of the finished jobs rs that
// the table adds without a model, from the regenerated held-out
// trajectories and unseen games: the posterior-Nash player's
// teacher-forced distance to the labels and, with -bayes, the Bayes
// predictor's gaps and distance (NaN where not computed).
func jointTableBaselines(cfg jointConfig, rs []jointResult) error {
	// The posterior-Nash player's teacher-forced distance to the labels,
	// from the regenerated held-out trajectories (no model needed). A job's
	// baselines are computed once and kept beside the saved jobs
	// (table-baselines.gob), so that a table rewrites from the saved runs
	// in seconds.
	path := filepath.Join(cfg.out, "jobs-joint", "table-baselines.gob")
	if len(tableBaselines) == 0 {
		if err := loadTableBaselines(path); err != nil {
			return err
		}
	}
	added := false
	defer func() {
		if added {
			saveTableBaselines(path)
		}
	}()
	for i := range rs {
		key := tableBaselineKey{rs[i].Family, rs[i].Noise, rs[i].Seed, cfg.bayes, cfg.version()}
		// A kept entry without the Bayes row that -bayes now gives this
		// reward model (saved before the model had one) is computed again.
		wantBayes := cfg.bayes > 0 && posteriorModelled(rs[i].Noise)
		if b, ok := tableBaselines[key]; ok && !(wantBayes && len(b.Bayes) > 0 && math.IsNaN(b.Bayes[0])) {
			rs[i].PosteriorTV, rs[i].BayesTV, rs[i].Bayes, rs[i].Hedge, rs[i].MeansBayes = b.PosteriorTV, b.BayesTV, b.Bayes, b.Hedge, b.MeansBayes
		} else {
			if err := computeTableBaselines(cfg, &rs[i], wantBayes); err != nil {
				return err
			}
			tableBaselines[key], added = rs[i], true
		}
		// The means reader's row, also for a kept entry saved before it
		// existed.
		if rs[i].MeansBayes == nil && wantMeansBayes(cfg, rs[i]) {
			var err error
			if rs[i].MeansBayes, err = jointMeansBayesGaps(cfg, rs[i]); err != nil {
				return err
			}
			tableBaselines[key], added = rs[i], true
		}
	}
	return nil
}

// computeTableBaselines computes the table baselines of the saved job r:
// the plug-in player's teacher-forced distance, the Hedge players' gaps
// (matrix games) and, with wantBayes, the Bayes predictor's gaps and
// distance (matrix games); NaN where not computed.
func computeTableBaselines(cfg jointConfig, r *jointResult, wantBayes bool) error {
	k := slices.IndexFunc(cfg.families, func(f jointFamily) bool { return f.Name == r.Family })
	if k < 0 {
		return fmt.Errorf("saved job of family %q, which -families does not list", r.Family)
	}
	fam := cfg.families[k]
	tv, err := jointPosteriorTV(context.Background(), cfg, fam, r.Noise, r.Seed, 0)
	if err != nil {
		return err
	}
	r.PosteriorTV, r.BayesTV = tv, math.NaN()
	r.Bayes = slices.Repeat([]float64{math.NaN()}, len(cfg.lengths))
	r.Hedge = slices.Repeat([]float64{math.NaN()}, len(cfg.lengths))
	if !fam.Markov {
		if r.Hedge, err = jointPeerGaps(context.Background(), cfg, fam, r.Noise, r.Seed, func(k int) (learner.Learner, error) {
			return newHedgePeer(fam.Actions, posteriorWeight(noiseOf(r.Noise)))
		}); err != nil {
			return err
		}
	}
	if wantBayes && !fam.Markov {
		if r.BayesTV, err = jointPosteriorTV(context.Background(), cfg, fam, r.Noise, r.Seed, cfg.bayes); err != nil {
			return err
		}
	}
	if wantBayes {
		if r.Bayes, err = jointBayesGaps(context.Background(), cfg, fam, r.Noise, r.Seed, cfg.bayes); err != nil {
			return err
		}
	}
	return nil
}

// posteriorModelled reports whether the posterior of the rewards named
// noise is modelled (Bernoulli rewards, and low noise by its uniform-noise
// posterior): the reward settings the Bayes predictor and posterior-mean
// labels are for.
func posteriorModelled(noise string) bool { return noise == "bernoulli" || noise == "low" }

// savedBaseline is one entry of table-baselines.gob.
type savedBaseline struct {
	Family, Noise, Version string
	Seed, Bayes            int
	PosteriorTV, BayesTV   float64
	BayesGaps, HedgeGaps   []float64
	MeansBayesGaps         []float64
}

// loadTableBaselines reads the table baselines kept beside the saved jobs,
// if any.
func loadTableBaselines(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	var saved []savedBaseline
	if err := gob.NewDecoder(f).Decode(&saved); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, b := range saved {
		tableBaselines[tableBaselineKey{b.Family, b.Noise, b.Seed, b.Bayes, b.Version}] = jointResult{PosteriorTV: b.PosteriorTV, BayesTV: b.BayesTV, Bayes: b.BayesGaps, Hedge: b.HedgeGaps, MeansBayes: b.MeansBayesGaps}
	}
	return nil
}

// saveTableBaselines writes the table baselines beside the saved jobs (a
// failure only costs their computation next time).
func saveTableBaselines(path string) {
	var saved []savedBaseline
	for k, r := range tableBaselines {
		saved = append(saved, savedBaseline{k.family, k.noise, k.version, k.seed, k.bayes, r.PosteriorTV, r.BayesTV, r.Bayes, r.Hedge, r.MeansBayes})
	}
	slices.SortFunc(saved, func(a, b savedBaseline) int {
		return strings.Compare(fmt.Sprint(a.Family, a.Noise, a.Seed, a.Bayes, a.Version), fmt.Sprint(b.Family, b.Noise, b.Seed, b.Bayes, b.Version))
	})
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(saved) == nil {
		_ = os.WriteFile(path, buf.Bytes(), 0o644)
	}
}

// tableBaselineKey identifies a job whose table baselines were computed.
type tableBaselineKey struct {
	family, noise string
	seed, bayes   int
	version       string
}

// tableBaselines holds the table baselines computed in this run of the
// program (the jointResult's PosteriorTV, BayesTV and Bayes).
var tableBaselines = map[tableBaselineKey]jointResult{}

// headsNote names the heads of a model that does not have the default 4.
func headsNote(h int) string {
	if h == 4 {
		return ""
	}
	return fmt.Sprintf(" (%d heads)", h)
}

// jointKey is one (family, noise) group of a table.
type jointKey struct{ fam, noise string }

// writeJointPaired writes, for every matrix group of two seeds or more,
// the comparisons over seeds that the table's means hide: the transformer
// minus the plug-in posterior-Nash players at the longest T, paired by
// seed, with its t statistic, and where the Bayes predictor was computed,
// the transformer's mean gap over the Bayes predictor's at every T.
func writeJointPaired(b *strings.Builder, cfg jointConfig, keys []jointKey, groups map[jointKey][]jointResult) {
	first := true
	for _, k := range keys {
		g := groups[k]
		if len(g) < 2 || math.IsNaN(g[0].Posterior[0]) {
			continue
		}
		if first {
			b.WriteString("\nPaired over the seeds:\n\n")
			first = false
		}
		l := len(cfg.lengths) - 1
		m, sd := sweep.MeanStd(g, func(r jointResult) float64 { return r.Transformer[l] - r.Posterior[l] })
		fmt.Fprintf(b, "- %s, %s rewards, T = %d: transformer − plug-in posterior Nash = %.4f ± %.4f over %d seeds, paired t = %.2f",
			k.fam, k.noise, cfg.lengths[l], m, sd, len(g), m/(sd/math.Sqrt(float64(len(g)))))
		if !math.IsNaN(g[0].Bayes[0]) {
			b.WriteString("; transformer ÷ Bayes predictor (means over the seeds):")
			for i, T := range cfg.lengths {
				t, _ := sweep.MeanStd(g, func(r jointResult) float64 { return r.Transformer[i] })
				y, _ := sweep.MeanStd(g, func(r jointResult) float64 { return r.Bayes[i] })
				fmt.Fprintf(b, " %.3f (T = %d)", t/y, T)
			}
		}
		b.WriteString("\n")
	}
}

// trainingNote returns the table header's words on the labels and the
// training schedule of the configuration.
func (c jointConfig) trainingNote() string {
	labels := "equilibrium labels"
	if c.bayesLabels > 0 {
		labels = fmt.Sprintf("labels the posterior mean of the equilibrium (incontext.PosteriorExpert, %d draws; the teacher-forced distances below are to the equilibrium labels)", c.bayesLabels)
	}
	if c.cosine {
		labels += ", the learning rate of each training round decayed by a cosine from 1e-3 to 0"
	}
	if c.curriculum {
		labels += ", the first round's steps in three equal stages on the first T/4, T/2 and T rounds"
	}
	return labels
}

// writeJoint writes the table, the CSV and one figure per (family, noise)
// of the finished jobs and returns the table.
func writeJoint(cfg jointConfig, rs []jointResult) (string, error) {
	if err := jointTableBaselines(cfg, rs); err != nil {
		return "", err
	}
	var keys []jointKey
	groups := map[jointKey][]jointResult{}
	for _, r := range rs {
		k := jointKey{r.Family, r.Noise}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	seeds := sweep.Seeds(rs, func(r jointResult) int { return r.Seed }, cfg.seeds)
	nSeeds := sweep.SeedCount(rs, func(r jointResult) int { return r.Seed })
	pm := func(m, s float64) string {
		if math.IsNaN(m) {
			return "–"
		}
		return sweep.PlusMinus(m, s, nSeeds, 4)
	}
	labels := cfg.trainingNote()
	var b strings.Builder
	fmt.Fprintf(&b, "Joint-action DPT: duality gap of the policies held at round T (the maximum over states in Markov games) on %d unseen games per seed, mean ± std over %s; "+
		"%d training games (Markov: %d) of %d rounds played by a flat-Dirichlet context policy drawn per trajectory, %s, one %d×%d%s model on both players' views (validation by game%s), %d steps of batch %d at most; on-policy round: %s of the games again, played by the model, half the steps more.\n\n",
		cfg.testGames, seeds, cfg.trainGames, cfg.markovGames, slices.Max(cfg.lengths), labels, cfg.layers, cfg.width, headsNote(cfg.heads), validationNote(cfg.valGames), cfg.steps, cfg.batch, strconv.FormatFloat(cfg.onPolicy, 'g', -1, 64))
	b.WriteString("| family | rewards | T | transformer (joint actions) | plug-in posterior Nash (greedy) | Hedge on the estimated payoffs (joint actions) | Bayes predictor (posterior-mean NE) | OMD self-play | avg. training NE | uniform |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range keys {
		g := groups[k]
		for i, T := range cfg.lengths {
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", k.fam, k.noise, T,
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.Transformer[i] })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.Posterior[i] })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.Hedge[i] })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.Bayes[i] })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.OMD[i] })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.AvgNE })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.Uniform })))
		}
	}
	writeJointPaired(&b, cfg, keys, groups)
	writeJointSwaps(&b, cfg, keys, groups, pm)
	writeJointMeans(&b, cfg, keys, groups, pm)
	b.WriteString("\nTraining, per family and rewards: training KL, best validation loss (by game) after the first round and after the on-policy round, steps, and the teacher-forced distance (TV) to the labels along held-out Dirichlet-played trajectories of the model, of the average training equilibrium, of the posterior-Nash player fed the same joint observations and of the Bayes predictor (-bayes):\n\n")
	b.WriteString("| family | rewards | train KL | val. loss | val. loss, on-policy round | steps | TV: model | TV: avg. NE | TV: posterior Nash | TV: Bayes predictor |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range keys {
		g := groups[k]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.0f + %.0f | %s | %s | %s | %s |\n", k.fam, k.noise,
			pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.TrainKL })),
			pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.ValLoss })),
			pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.OnPolicyValLoss })),
			first(sweep.MeanStd(g, func(r jointResult) float64 { return float64(r.Steps) })),
			first(sweep.MeanStd(g, func(r jointResult) float64 { return float64(r.OnPolicySteps) })),
			pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.TV })),
			pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.AvgTV })),
			pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.PosteriorTV })),
			pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.BayesTV })))
	}
	md := b.String()
	if err := os.WriteFile(filepath.Join(cfg.out, "joint.md"), []byte(md), 0o644); err != nil {
		return "", err
	}
	var rows [][]string
	for _, r := range rs {
		for i, T := range cfg.lengths {
			rows = append(rows, []string{r.Family, r.Noise, strconv.Itoa(r.Seed), strconv.Itoa(T), ff(r.Transformer[i]), ff(r.Posterior[i]), ff(r.OMD[i]),
				ff(r.AvgNE), ff(r.Uniform), ff(r.TrainKL), ff(r.ValLoss), ff(r.OnPolicyValLoss), strconv.Itoa(r.Steps), strconv.Itoa(r.OnPolicySteps), ff(r.TV), ff(r.AvgTV), ff(r.PosteriorTV), ff(r.Bayes[i]), ff(r.BayesTV), ff(r.Hedge[i])})
		}
	}
	if err := sweep.WriteCSV(filepath.Join(cfg.out, "joint.csv"), []string{"family", "rewards", "seed", "T", "transformer", "posterior_nash", "omd",
		"avg_training_ne", "uniform", "train_kl", "val_loss", "on_policy_val_loss", "steps", "on_policy_steps", "teacher_forced_tv", "avg_ne_tv", "posterior_nash_tv", "bayes", "bayes_tv", "hedge"}, rows); err != nil {
		return "", err
	}
	if err := writeJointSwapsCSV(cfg, rs); err != nil {
		return "", err
	}
	x := make([]float64, len(cfg.lengths))
	for i, T := range cfg.lengths {
		x[i] = float64(T)
	}
	for _, k := range keys {
		g := groups[k]
		curve := func(name string, f func(jointResult, int) float64) figure.Series {
			s := figure.Series{Name: name, X: x}
			for i := range cfg.lengths {
				m, sd := sweep.MeanStd(g, func(r jointResult) float64 { return f(r, i) })
				s.Mean, s.Std = append(s.Mean, m), append(s.Std, sd)
			}
			return s
		}
		series := []figure.Series{
			curve("transformer, joint actions", func(r jointResult, i int) float64 { return r.Transformer[i] }),
			curve("OMD self-play", func(r jointResult, i int) float64 { return r.OMD[i] }),
			curve("avg. training NE (fixed)", func(r jointResult, _ int) float64 { return r.AvgNE }),
			curve("uniform (fixed)", func(r jointResult, _ int) float64 { return r.Uniform }),
		}
		if !math.IsNaN(g[0].Posterior[0]) {
			series = append(series, curve("plug-in posterior Nash (greedy)", func(r jointResult, i int) float64 { return r.Posterior[i] }))
		}
		if !math.IsNaN(g[0].Hedge[0]) {
			series = append(series, curve("Hedge on the estimated payoffs (joint actions)", func(r jointResult, i int) float64 { return r.Hedge[i] }))
		}
		if !math.IsNaN(g[0].Bayes[0]) {
			series = append(series, curve("Bayes predictor (posterior-mean NE)", func(r jointResult, i int) float64 { return r.Bayes[i] }))
		}
		title := fmt.Sprintf("joint actions, %s, %s rewards: last-iterate gap (bands: std over %s)", k.fam, k.noise, seeds)
		if err := figure.LogLog(filepath.Join(cfg.out, "joint_"+k.fam+"_"+k.noise+".png"), title, "rounds played T", "duality gap", series); err != nil {
			return "", err
		}
	}
	return md, nil
}

// hedgePeer is the classical peer of the joint-action learners: optimistic
// Hedge (learner.OptimisticMWU, full information) fed, after every round,
// the posterior-mean estimate of its reward for each of its actions against
// the opponent's action of the round (the estimate of PosteriorNash with
// prior weight w). It uses the same observations as the transformer and is
// no-regret against the opponent's realised actions once the estimate
// settles.
type hedgePeer struct {
	a          int
	w          float64
	sum, count []float64 // per (own action, opponent's action)
	u          []float64
	mw         *learner.OptimisticMWU
}

func newHedgePeer(A int, w float64) (*hedgePeer, error) {
	if w == 0 {
		w = learner.DefaultPriorWeight
	}
	mw, err := learner.NewOptimisticMWU(learner.MWUConfig{Actions: A})
	if err != nil {
		return nil, err
	}
	return &hedgePeer{a: A, w: w, sum: make([]float64, A*A), count: make([]float64, A*A), u: make([]float64, A), mw: mw}, nil
}

func (h *hedgePeer) Policy(s int) []float64 { return h.mw.Policy(s) }

func (h *hedgePeer) Observe(int, int, float64, int) error {
	return errors.New("hedgePeer needs the opponent's action")
}

func (h *hedgePeer) ObserveJoint(s, action, opponent int, reward float64, next int) error {
	k := action*h.a + opponent
	h.sum[k] += reward
	h.count[k]++
	for i := range h.u {
		k := i*h.a + opponent
		h.u[i] = (h.w/2 + h.sum[k]) / (h.w + h.count[k])
	}
	return h.mw.ObserveRewards(h.u)
}

func (h *hedgePeer) Reset() {
	clear(h.sum)
	clear(h.count)
	h.mw.Reset()
}

func (h *hedgePeer) Opponents() int { return h.a }
