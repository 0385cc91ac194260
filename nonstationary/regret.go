package nonstationary

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/learner/bandit"
)

// RunResult records one play of a learner on an [Env]; every slice has one
// entry per round, index t−1.
type RunResult struct {
	// Arms are the arms a_t played.
	Arms []int
	// Rewards are the realised rewards r_t.
	Rewards []float64
	// InstRegret is the per-round pseudo-regret f*_t − f_t(a_t) (nonstationary-transformers-master eq. (3),
	// the "suboptimality" of §4.4), always ≥ 0.
	InstRegret []float64
	// CumRegret is the dynamic pseudo-regret Σ_{τ≤t} (f*_τ − f_τ(a_τ))
	// (nonstationary-transformers-master eq. (3); WL's D-REG on the means).
	CumRegret []float64
	// Optimistic are the optimistic values f̃_t the learner reported.
	Optimistic []float64
}

// Run plays l on e for rounds t = 1..T: at each round it offers A_t =
// e.Actions(t), asks l.Act(t, A_t, rng) for an arm, draws the reward with
// e.Sample(t, arm, rng) and feeds it back with l.Observe. The learner and the
// environment draw from the same rng, in that order, so a seed fixes the
// whole run. The regret is the pseudo dynamic regret of nonstationary-transformers-master eq. (3):
// InstRegret_t = f*_t − f_t(a_t) with f*_t from [OptimalMean]. Run does not
// call l.Reset: pass a fresh or reset learner.
//
// It returns an error (with the partial result discarded) if ctx, e, l or
// rng is nil (a typed nil included), the learner returns an arm outside
// [0, e.Arms()), Observe fails, or ctx is done (checked every 256 rounds;
// ctx's error is returned). Cost: T calls of Act and Observe plus O(T) for
// the environments of this package.
func Run(ctx context.Context, e Env, l bandit.Learner, rng *rand.Rand) (RunResult, error) {
	if ctx == nil || nilness.Is(e) || nilness.Is(l) || rng == nil {
		return RunResult{}, fmt.Errorf("%w: Run needs a context, an environment, a learner and a random source (got %v, %T, %T, %v)", icrl.ErrNil, ctx, e, l, rng)
	}
	T, K := e.Horizon(), e.Arms()
	res := RunResult{
		Arms:       make([]int, T),
		Rewards:    make([]float64, T),
		InstRegret: make([]float64, T),
		CumRegret:  make([]float64, T),
		Optimistic: make([]float64, T),
	}
	cum := 0.0
	for t := 1; t <= T; t++ {
		if t%256 == 0 {
			if err := ctx.Err(); err != nil {
				return RunResult{}, err
			}
		}
		acts := e.Actions(t)
		arm, opt := l.Act(t, acts, rng)
		if arm < 0 || arm >= K {
			return RunResult{}, fmt.Errorf("%w: learner chose arm %d at round %d, not in [0,%d)", icrl.ErrInvalid, arm, t, K)
		}
		r := e.Sample(t, arm, rng)
		if err := l.Observe(t, acts, arm, r); err != nil {
			return RunResult{}, fmt.Errorf("nonstationary: round %d: %w", t, err)
		}
		best, _ := OptimalMean(e, t)
		inst := best - e.Mean(t, arm)
		cum += inst
		res.Arms[t-1] = arm
		res.Rewards[t-1] = r
		res.InstRegret[t-1] = inst
		res.CumRegret[t-1] = cum
		res.Optimistic[t-1] = opt
	}
	return res, nil
}
