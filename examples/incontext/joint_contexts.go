package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/transformer"
)

// Who holds the gap: the transformer's gap in self-play mixes two things,
// the information its own play gathers and how well it reads a context.
// With -bayes the job separates them by swapping contexts: the Bayes
// predictor is fed the transformer's self-play histories and the
// transformer the Bayes predictors' self-play histories, and each is
// measured by the policies it would hold there. If the Bayes predictor on
// the transformer's contexts comes close to the transformer, those
// contexts carry less information (the play is what falls short); if the
// transformer on the Bayes predictors' contexts stays above the Bayes
// predictor, the reading falls short.

// bayesPlayers returns the factory of the Bayes-predictor players of one
// job: player k draws its samples posterior games from
// rand.NewPCG(stream, k) (learner.PosteriorNash in matrix games,
// markov.PosteriorNash in two-state Markov games; the exact posterior of
// Bernoulli or of low-noise rewards).
func bayesPlayers(fam jointFamily, noiseName string, samples int, stream uint64) func(k int) (learner.Learner, error) {
	noise := noiseOf(noiseName)
	if !fam.Markov {
		return func(k int) (learner.Learner, error) {
			return learner.NewPosteriorNash(posteriorConfig(fam.Actions, noise, samples, stream, k))
		}
	}
	var half float64
	if u, ok := noise.(game.UniformNoise); ok {
		half = u.HalfWidth // the exact posterior of the low-noise rewards
	}
	return func(k int) (learner.Learner, error) {
		return markov.NewPosteriorNash(markov.PosteriorNashConfig{States: 2, Actions: fam.Actions, Opponents: fam.Actions, Discount: 0.9,
			Samples: samples, NoiseHalfWidth: half, Rand: rand.New(rand.NewPCG(stream, uint64(k)))})
	}
}

// replayGaps feeds the histories of a recorded self-play (res, played
// with SelfPlayConfig.Record under joint-action observation) to the fresh
// learners x and y, and returns the duality gap on g of the policies they
// hold at every round of lengths: at round t, after rounds 1, …, t−1, as
// play.SelfPlay measures its own players (for the same players, the same
// numbers).
func replayGaps(g game.Model, res *play.SelfPlayResult, x, y learner.Learner, lengths []int) ([]float64, error) {
	if len(res.Row) != len(res.Col) || len(res.Row) < slices.Max(lengths) {
		return nil, fmt.Errorf("replay: histories of %d and %d rounds, want %d (play with Record)", len(res.Row), len(res.Col), slices.Max(lengths))
	}
	S := g.States()
	gaps := make([]float64, 0, len(lengths))
	next := 0
	for t := 1; next < len(lengths); t++ {
		// The calls of play.SelfPlay, in its order: each player's policy
		// in the round's state, then at a checkpoint every state's (a
		// learner that draws at Policy time draws the same numbers).
		r, c := res.Row[t-1], res.Col[t-1]
		x.Policy(r.State)
		y.Policy(r.State)
		if t == lengths[next] {
			_, gap, err := g.Gaps(play.Stationary(x, S), play.Stationary(y, S))
			if err != nil {
				return nil, err
			}
			gaps = append(gaps, gap)
			next++
		}
		tr := play.Transition{State: r.State, Row: r.Action, Col: c.Action, Reward: r.Reward, Next: res.Final}
		if t < len(res.Row) {
			tr.Next = res.Row[t].State
		}
		if err := tr.Feed(x, game.RowPlayer, learner.JointActions); err != nil {
			return nil, err
		}
		if err := tr.Feed(y, game.ColumnPlayer, learner.JointActions); err != nil {
			return nil, err
		}
	}
	return gaps, nil
}

// jointSwapGaps plays the unseen games of one job (game k and its play
// from rand.NewPCG(base+3, k), as jointGaps and jointPeerGaps do) and
// returns the mean gaps at cfg.lengths of the two context swaps:
// onModel, the Bayes predictors (samples draws, streams base+6) fed the
// transformer's self-play histories; onBayes, the transformer fed the
// histories of the Bayes predictors' self-play (streams base+4: the
// trajectories of the table's Bayes-predictor row).
func jointSwapGaps(ctx context.Context, cfg jointConfig, fam jointFamily, noiseName string, seed, samples int,
	model *transformer.Model[float32], enc incontext.GameEncoder) (onModel, onBayes []float64, err error) {
	cc, base, err := jointCollectConfig(cfg, fam, noiseName, seed)
	if err != nil {
		return nil, nil, err
	}
	prior := fam.prior()
	cfgPlay := play.SelfPlayConfig{Rounds: slices.Max(cfg.lengths), Noise: cc.Noise, Checkpoints: cfg.lengths, Observation: learner.JointActions, Record: true}
	shadow, actor := bayesPlayers(fam, noiseName, samples, base+6), bayesPlayers(fam, noiseName, samples, base+4)
	models := func(int) (learner.Learner, error) { return incontext.NewLearner(model, enc, incontext.Config{}) }
	perModel, perBayes := make([][]float64, cfg.testGames), make([][]float64, cfg.testGames)
	err = parallel.For(cfg.testGames, func(k int) error {
		// The transformer's own play, replayed to two Bayes predictors.
		rng := rand.New(rand.NewPCG(base+3, uint64(k)))
		g, err := prior(rng)
		if err != nil {
			return err
		}
		res, err := incontext.Play(ctx, g, model, model, enc, enc, cfgPlay, rng)
		if err != nil {
			return err
		}
		if perModel[k], err = replayPair(g, res, shadow, 2*k, cfg.lengths); err != nil {
			return err
		}
		// The Bayes predictors' play, replayed to the transformer.
		if g, res, err = playPeers(ctx, prior, base, k, actor, cfgPlay); err != nil {
			return err
		}
		perBayes[k], err = replayPair(g, res, models, 0, cfg.lengths)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return meanOver(perModel), meanOver(perBayes), nil
}

// replayPair builds the players newPlayer(k) and newPlayer(k+1) and
// returns their gaps on the replayed histories of res (replayGaps).
func replayPair(g game.Model, res *play.SelfPlayResult, newPlayer func(int) (learner.Learner, error), k int, lengths []int) ([]float64, error) {
	x, err := newPlayer(k)
	if err != nil {
		return nil, err
	}
	y, err := newPlayer(k + 1)
	if err != nil {
		return nil, err
	}
	return replayGaps(g, res, x, y, lengths)
}

// meanOver returns the entrywise mean of equal-length rows.
func meanOver(rows [][]float64) []float64 {
	out := make([]float64, len(rows[0]))
	for _, r := range rows {
		for i, v := range r {
			out[i] += v / float64(len(rows))
		}
	}
	return out
}

// writeJointSwapsCSV writes joint_swaps.csv, one row per job and T, if
// any job measured the context swaps.
func writeJointSwapsCSV(cfg jointConfig, rs []jointResult) error {
	var rows [][]string
	for _, r := range rs {
		for i, T := range cfg.lengths {
			if r.BayesOnModel != nil {
				rows = append(rows, []string{r.Family, r.Noise, strconv.Itoa(r.Seed), strconv.Itoa(T), ff(r.Transformer[i]), ff(r.BayesOnModel[i]), ff(r.ModelOnBayes[i]), ff(r.Bayes[i])})
			}
		}
	}
	if rows == nil {
		return nil
	}
	return sweep.WriteCSV(filepath.Join(cfg.out, "joint_swaps.csv"), []string{"family", "rewards", "seed", "T", "transformer", "bayes_on_transformer_histories", "transformer_on_bayes_histories", "bayes"}, rows)
}

// writeJointSwaps writes the table of the context swaps of the groups
// whose jobs measured them (-bayes when the jobs ran), or nothing.
func writeJointSwaps(b *strings.Builder, cfg jointConfig, keys []jointKey, groups map[jointKey][]jointResult, pm func(m, s float64) string) {
	first := true
	for _, k := range keys {
		g := groups[k]
		if slices.ContainsFunc(g, func(r jointResult) bool { return r.BayesOnModel == nil }) {
			continue
		}
		if first {
			b.WriteString("\nWho holds the gap, on the same unseen games: the Bayes predictor fed the transformer's self-play histories, and the transformer fed the Bayes predictors' self-play histories (the trajectories of the Bayes-predictor column above), each measured by the policies it holds there:\n\n")
			b.WriteString("| family | rewards | T | transformer, own play | Bayes predictor on the transformer's histories | transformer on the Bayes predictors' histories | Bayes predictor, own play |\n|---|---|---|---|---|---|---|\n")
			first = false
		}
		for i, T := range cfg.lengths {
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s |\n", k.fam, k.noise, T,
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.Transformer[i] })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.BayesOnModel[i] })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.ModelOnBayes[i] })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.Bayes[i] })))
		}
	}
}
