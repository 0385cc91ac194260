package incontext

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/learner/bandit"
)

// CollectBandits generates n labelled bandit trajectories: environment k
// (k = 0, …, n−1) is drawn by envGen from rng = rand.New(rand.NewPCG(seed,
// k)) and played for its horizon by behavior (or by the expert itself if
// behavior is nil), and every round is labelled with the arm the expert
// chooses after the same history (one-hot labels; the expert observes the
// arms actually played). With a behaviour policy the expert draws from its
// own stream rand.New(rand.NewPCG(seed, k^0x9e3779b97f4a7c15)). The output
// does not depend on GOMAXPROCS; the trajectories are spread over the
// cores, and envGen and the factories are called concurrently. Once ctx is
// done no new trajectory starts and it returns ctx's error.
//
// It returns an error if ctx is nil, n < 1, envGen or expert is nil, or an environment
// or learner fails; the error of the lowest failing trajectory is returned.
func CollectBandits[E bandit.Env](ctx context.Context, envGen func(*rand.Rand) (E, error), behavior, expert bandit.Factory, n int, seed uint64) ([]Trajectory[[][]float64], error) {
	if expert == nil {
		return nil, fmt.Errorf("%w: CollectBandits needs a non-nil expert factory", icrl.ErrNil)
	}
	return collectBandits(ctx, "CollectBandits", envGen, behavior, func(E) (bandit.Learner, error) { return newBandit(expert, "expert") }, n, seed)
}

// CollectBanditsOptimal is [CollectBandits] with the labels of
// decision-pretrained transformers (DPT; Lee et al. 2023, arXiv
// 2306.14892): every round is labelled with the arm of highest mean reward
// at that round of the hidden environment (the lowest such arm on ties),
// which only the context can reveal to the learner. The behaviour policy
// plays and is required: the optimal arm itself would make a context that
// shows nothing about the other arms. Environment k draws from
// rand.New(rand.NewPCG(seed, k)), so the output does not depend on
// GOMAXPROCS.
//
// It returns an error if n < 1, envGen or behavior is nil, or an
// environment or learner fails. Each round costs one Mean call per arm.
func CollectBanditsOptimal[E bandit.OracleEnv](ctx context.Context, envGen func(*rand.Rand) (E, error), behavior bandit.Factory, n int, seed uint64) ([]Trajectory[[][]float64], error) {
	if behavior == nil {
		return nil, fmt.Errorf("%w: CollectBanditsOptimal needs a non-nil behaviour factory", icrl.ErrNil)
	}
	return collectBandits(ctx, "CollectBanditsOptimal", envGen, behavior, func(e E) (bandit.Learner, error) { return oracle[E]{e}, nil }, n, seed)
}

// oracle plays the arm of highest mean of its environment.
type oracle[E bandit.OracleEnv] struct{ e E }

func (o oracle[E]) Act(t int, actions [][]float64, _ *rand.Rand) (int, float64) {
	best, bv := 0, math.Inf(-1)
	for k := range actions {
		if v := o.e.Mean(t, k); v > bv {
			best, bv = k, v
		}
	}
	return best, bv
}

func (oracle[E]) Observe(int, [][]float64, int, float64) error { return nil }
func (oracle[E]) Reset()                                       {}

// collectBandits is the loop of CollectBandits and CollectBanditsOptimal:
// expertFor makes the labeller of one environment.
func collectBandits[E bandit.Env](ctx context.Context, name string, envGen func(*rand.Rand) (E, error), behavior bandit.Factory, expertFor func(E) (bandit.Learner, error), n int, seed uint64) ([]Trajectory[[][]float64], error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: %s needs a context, got nil", icrl.ErrNil, name)
	}
	if n < 1 {
		return nil, fmt.Errorf("%w: %s needs n ≥ 1, got %d", icrl.ErrInvalid, name, n)
	}
	if envGen == nil {
		return nil, fmt.Errorf("%w: %s needs a non-nil environment generator", icrl.ErrNil, name)
	}
	out := make([]Trajectory[[][]float64], n)
	err := parallel.Items(ctx, 0, n, func(_, k int) error {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		e, err := envGen(rng)
		if err != nil {
			return fmt.Errorf("incontext: bandit trajectory %d: environment: %w", k, err)
		}
		if nilness.Is(e) {
			return fmt.Errorf("%w: bandit trajectory %d: the environment generator returned nil", icrl.ErrNil, k)
		}
		ex, err := expertFor(e)
		if err != nil {
			return fmt.Errorf("incontext: bandit trajectory %d: %w", k, err)
		}
		var beh bandit.Learner
		xrng := rng
		if behavior != nil {
			if beh, err = newBandit(behavior, "behaviour"); err != nil {
				return fmt.Errorf("incontext: bandit trajectory %d: %w", k, err)
			}
			xrng = rand.New(rand.NewPCG(seed, uint64(k)^num.ExpertStream))
		}
		T := e.Horizon()
		tr := Trajectory[[][]float64]{Rounds: make([]Round[[][]float64], T), Labels: make([][]float64, T)}
		for t := 1; t <= T; t++ {
			acts := e.Actions(t)
			K := len(acts)
			label, _ := ex.Act(t, acts, xrng)
			arm := label
			if beh != nil {
				arm, _ = beh.Act(t, acts, rng)
			}
			if arm < 0 || arm >= K || label < 0 || label >= K {
				return fmt.Errorf("%w: bandit trajectory %d round %d: arm %d or label %d not in [0, %d)", ErrInput, k, t, arm, label, K)
			}
			r := e.Sample(t, arm, rng)
			if beh != nil {
				if err := beh.Observe(t, acts, arm, r); err != nil {
					return fmt.Errorf("incontext: bandit trajectory %d round %d: behaviour: %w", k, t, err)
				}
			}
			if err := ex.Observe(t, acts, arm, r); err != nil {
				return fmt.Errorf("incontext: bandit trajectory %d round %d: expert: %w", k, t, err)
			}
			tr.Rounds[t-1] = Round[[][]float64]{Obs: acts, Action: arm, Reward: r}
			tr.Labels[t-1] = make([]float64, K)
			tr.Labels[t-1][label] = 1
		}
		out[k] = tr
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
