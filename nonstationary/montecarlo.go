package nonstationary

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/internal/parallel"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/learner/bandit"
)

// Summary aggregates the dynamic regret of independent runs: the mean
// curve and its ±std band, as the figures of §5 of
// nonstationary-transformers-master plot them. Slices are per round, index t−1. The
// standard deviations are sample standard deviations (divisor runs−1; 0 when
// runs = 1) computed by the two-pass formula, summing over runs in order
// r = 0, 1, ….
type Summary struct {
	Runs, Horizon int
	// MeanCumRegret and StdCumRegret are the mean and standard deviation
	// over runs of the cumulative regret after round t.
	MeanCumRegret, StdCumRegret []float64
	// MeanInstRegret is the mean over runs of the per-round regret
	// f*_t − f_t(a_t) (the "suboptimality" curves of §4.4).
	MeanInstRegret []float64
	// FinalMean and FinalStd are the mean and standard deviation of the
	// regret after the last round T.
	FinalMean, FinalStd float64
	// Finals holds each run's regret after the last round, in run order:
	// two methods run with the same seed and generator play the same
	// environments, so their Finals pair run by run.
	Finals []float64
}

// MonteCarlo runs runs independent plays and summarises their dynamic
// regret. Run r (r = 0..runs−1) uses rng = rand.New(rand.NewPCG(seed, r))
// for everything: first envGen(rng) draws the environment, then a fresh
// learner from f plays it with [Run](env, learner, rng). Once ctx is done no
// new run starts and MonteCarlo returns ctx.Err(). Runs are spread
// over runtime.GOMAXPROCS(0) goroutines; since each run owns its generator
// and the summary adds the runs in index order, the result is bit-identical
// for any GOMAXPROCS. All environments must have the same horizon.
//
// It returns an error if runs < 1, envGen or f is nil, or any run fails
// (envGen, f, a horizon mismatch, or [Run]); the error of the lowest failing
// run index is returned. Memory: 16·runs·T bytes for the per-run curves
// plus one environment and one learner per goroutine at a time.
//
// envGen and f are called concurrently from several goroutines; they must
// be safe for that (the learners and environments they return are used by
// one goroutine each).
func MonteCarlo(ctx context.Context, envGen func(*rand.Rand) (Env, error), f bandit.Factory, runs int, seed uint64) (Summary, error) {
	if runs < 1 {
		return Summary{}, fmt.Errorf("%w: Monte Carlo needs runs ≥ 1, got %d", icrl.ErrInvalid, runs)
	}
	if ctx == nil || envGen == nil || f == nil {
		return Summary{}, fmt.Errorf("%w: Monte Carlo needs a non-nil environment generator and learner factory", icrl.ErrNil)
	}
	cum := make([][]float64, runs)
	inst := make([][]float64, runs)
	err := parallel.Items(ctx, 0, runs, func(_, r int) error {
		c, in, err := oneRun(ctx, envGen, f, r, seed)
		cum[r], inst[r] = c, in
		return err
	})
	if err != nil {
		return Summary{}, err
	}
	T := len(cum[0])
	if T == 0 {
		return Summary{}, fmt.Errorf("%w: environments have horizon 0", icrl.ErrInvalid)
	}
	for r := range cum {
		if len(cum[r]) != T {
			return Summary{}, fmt.Errorf("%w: run %d has horizon %d, run 0 has %d", icrl.ErrInvalid, r, len(cum[r]), T)
		}
	}
	s := Summary{Runs: runs, Horizon: T,
		MeanCumRegret:  make([]float64, T),
		StdCumRegret:   make([]float64, T),
		MeanInstRegret: make([]float64, T),
	}
	n := float64(runs)
	for r := range runs {
		for t, x := range cum[r] {
			s.MeanCumRegret[t] += x
		}
		for t, x := range inst[r] {
			s.MeanInstRegret[t] += x
		}
	}
	for t := range s.MeanCumRegret {
		s.MeanCumRegret[t] /= n
		s.MeanInstRegret[t] /= n
	}
	if runs > 1 {
		for r := range runs {
			for t, x := range cum[r] {
				d := x - s.MeanCumRegret[t]
				s.StdCumRegret[t] += d * d
			}
		}
		for t := range s.StdCumRegret {
			s.StdCumRegret[t] = math.Sqrt(s.StdCumRegret[t] / (n - 1))
		}
	}
	s.FinalMean, s.FinalStd = s.MeanCumRegret[T-1], s.StdCumRegret[T-1]
	s.Finals = make([]float64, runs)
	for r := range runs {
		s.Finals[r] = cum[r][T-1]
	}
	return s, nil
}

// oneRun performs run r of a Monte Carlo and returns its cumulative and
// per-round regret.
func oneRun(ctx context.Context, envGen func(*rand.Rand) (Env, error), f bandit.Factory, r int, seed uint64) (cum, inst []float64, err error) {
	rng := rand.New(rand.NewPCG(seed, uint64(r)))
	e, err := envGen(rng)
	if err != nil {
		return nil, nil, fmt.Errorf("nonstationary: run %d: environment: %w", r, err)
	}
	if nilness.Is(e) {
		return nil, nil, fmt.Errorf("%w: run %d: environment generator returned nil", icrl.ErrNil, r)
	}
	l, err := f()
	if err != nil {
		return nil, nil, fmt.Errorf("nonstationary: run %d: learner factory: %w", r, err)
	}
	if nilness.Is(l) {
		return nil, nil, fmt.Errorf("%w: run %d: learner factory returned nil", icrl.ErrNil, r)
	}
	res, err := Run(ctx, e, l, rng)
	if err != nil {
		return nil, nil, fmt.Errorf("nonstationary: run %d: %w", r, err)
	}
	return res.CumRegret, res.InstRegret, nil
}
