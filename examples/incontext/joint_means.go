package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
)

// The means reader of the low-noise tables: the Bayes predictor of a
// Gaussian-noise model (learner.PosteriorNashConfig.NoiseStd), which reads
// only each payoff cell's count and mean, beside the exact posterior of
// the uniform noise, which also reads the range of the rewards. It tells
// whether a player that averages each cell's rewards, as one attention
// average can, could reach the exact Bayes predictor.

// wantMeansBayes reports whether the table gives job r the means reader's
// row: -bayes, low-noise rewards, a matrix family.
func wantMeansBayes(cfg jointConfig, r jointResult) bool {
	k := slices.IndexFunc(cfg.families, func(f jointFamily) bool { return f.Name == r.Family })
	return cfg.bayes > 0 && r.Noise == "low" && k >= 0 && !cfg.families[k].Markov
}

// jointMeansBayesGaps returns the mean gaps at cfg.lengths, on the unseen
// games of the low-noise matrix job r, of two Bayes predictors of a
// Gaussian-noise model with the noise's standard deviation
// (learner.PosteriorNashConfig.NoiseStd, cfg.bayes draws, streams base+7):
// the best a player that reads only each payoff cell's count and mean
// can do, where the exact posterior of the uniform noise also reads the
// range of the rewards.
func jointMeansBayesGaps(cfg jointConfig, r jointResult) ([]float64, error) {
	k := slices.IndexFunc(cfg.families, func(f jointFamily) bool { return f.Name == r.Family })
	fam := cfg.families[k]
	_, base, err := jointCollectConfig(cfg, fam, r.Noise, r.Seed)
	if err != nil {
		return nil, err
	}
	u, ok := noiseOf(r.Noise).(game.UniformNoise)
	if !ok {
		return nil, fmt.Errorf("the means reader needs uniform noise, not %q", r.Noise)
	}
	return jointPeerGaps(context.Background(), cfg, fam, r.Noise, r.Seed, func(k int) (learner.Learner, error) {
		return learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: fam.Actions, Opponents: fam.Actions, PriorWeight: posteriorWeight(u),
			Samples: cfg.bayes, Rand: rand.New(rand.NewPCG(base+7, uint64(k))), NoiseStd: u.HalfWidth / math.Sqrt(3)})
	})
}

// writeJointMeans writes, for the low-noise matrix groups with the means
// reader's row, its gaps beside the transformer's, the plug-in player's
// and the exact Bayes predictor's, or nothing.
func writeJointMeans(b *strings.Builder, cfg jointConfig, keys []jointKey, groups map[jointKey][]jointResult, pm func(m, s float64) string) {
	first := true
	for _, k := range keys {
		g := groups[k]
		if slices.ContainsFunc(g, func(r jointResult) bool { return r.MeansBayes == nil }) {
			continue
		}
		if first {
			b.WriteString("\nReading the cell means only, low-noise rewards: the Bayes predictor of a Gaussian-noise model with the noise's standard deviation (learner.PosteriorNashConfig.NoiseStd), which reads each payoff cell's count and mean, beside the exact posterior of the uniform noise, which also reads the range of the rewards:\n\n")
			b.WriteString("| family | T | transformer | plug-in posterior Nash | Bayes predictor, Gaussian model (cell means) | Bayes predictor, exact posterior |\n|---|---|---|---|---|---|\n")
			first = false
		}
		for i, T := range cfg.lengths {
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s |\n", k.fam, T,
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.Transformer[i] })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.Posterior[i] })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.MeansBayes[i] })),
				pm(sweep.MeanStd(g, func(r jointResult) float64 { return r.Bayes[i] })))
		}
	}
}
