package incontext

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
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
	return collectBandits(ctx, "CollectBandits", envGen, behavior, func(E) (BanditLabeler, error) {
		l, err := newBandit(expert, "expert")
		return oneHot{l}, err
	}, n, seed)
}

// A BanditLabeler labels the rounds of a bandit trajectory with a
// distribution over the arms, following the trajectory as it is played:
// the expert of [CollectBanditsLabeled]. nonstationary.PosteriorSampling is
// one (the posterior probability of each arm being the best).
type BanditLabeler interface {
	// Label stores in dst the label of round t, a distribution over the
	// arms of actions given the rounds observed before, and returns it
	// (allocated if dst is nil or too short). It may draw from rng.
	Label(dst []float64, t int, actions [][]float64, rng *rand.Rand) ([]float64, error)
	// Observe feeds back the arm played at round t and its reward.
	Observe(t int, actions [][]float64, arm int, reward float64) error
}

// CollectBanditsLabeled is [CollectBandits] with soft labels: every round
// is labelled with the distribution labeler gives after the same history
// (a fresh labeler per trajectory, from the factory), while behavior
// plays. The labeler draws from the expert stream rand.New(rand.NewPCG(seed,
// k^0x9e3779b97f4a7c15)) and never sees the environment. With
// nonstationary.PosteriorSampling the labels are the posterior
// probabilities of the best arm: the labels whose cross-entropy minimiser
// is the Bayes-optimal prediction of the best arm, with less variance than
// the best arm itself (CollectBanditsOptimal).
//
// It returns an error if n < 1, envGen, behavior or labeler is nil, a
// label is not a distribution over the round's arms, or an environment,
// learner or labeler fails.
func CollectBanditsLabeled[E bandit.Env](ctx context.Context, envGen func(*rand.Rand) (E, error), behavior bandit.Factory, labeler func() (BanditLabeler, error), n int, seed uint64) ([]Trajectory[[][]float64], error) {
	if behavior == nil || labeler == nil {
		return nil, fmt.Errorf("%w: CollectBanditsLabeled needs a behaviour and a labeler factory", icrl.ErrNil)
	}
	return collectBandits(ctx, "CollectBanditsLabeled", envGen, behavior, func(E) (BanditLabeler, error) {
		l, err := labeler()
		if err != nil {
			return nil, fmt.Errorf("labeler: %w", err)
		}
		if nilness.Is(l) {
			return nil, fmt.Errorf("%w: labeler factory returned nil", icrl.ErrNil)
		}
		return l, nil
	}, n, seed)
}

// oneHot labels a round with the arm a bandit learner would play.
type oneHot struct{ l bandit.Learner }

func (o oneHot) Label(dst []float64, t int, actions [][]float64, rng *rand.Rand) ([]float64, error) {
	k, _ := o.l.Act(t, actions, rng)
	if k < 0 || k >= len(actions) {
		return nil, fmt.Errorf("%w: round %d: label %d not in [0, %d)", ErrInput, t, k, len(actions))
	}
	dst = dst[:0]
	dst = append(dst, make([]float64, len(actions))...)
	dst[k] = 1
	return dst, nil
}

func (o oneHot) Observe(t int, actions [][]float64, arm int, reward float64) error {
	return o.l.Observe(t, actions, arm, reward)
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
	return collectBandits(ctx, "CollectBanditsOptimal", envGen, behavior, func(e E) (BanditLabeler, error) { return oneHot{oracle[E]{e}}, nil }, n, seed)
}

// argmax returns the first index of p's largest entry.
func argmax(p []float64) int {
	best := 0
	for i, v := range p {
		if v > p[best] {
			best = i
		}
	}
	return best
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

// collectBandits is the loop of CollectBandits, CollectBanditsOptimal and
// CollectBanditsLabeled: expertFor makes the labeller of one environment.
func collectBandits[E bandit.Env](ctx context.Context, name string, envGen func(*rand.Rand) (E, error), behavior bandit.Factory, expertFor func(E) (BanditLabeler, error), n int, seed uint64) ([]Trajectory[[][]float64], error) {
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
			label, err := ex.Label(make([]float64, 0, K), t, acts, xrng)
			if err != nil {
				return fmt.Errorf("incontext: bandit trajectory %d round %d: expert: %w", k, t, err)
			}
			if err := simplex.CheckDistribution("expert label", label, K); err != nil {
				return fmt.Errorf("%w: bandit trajectory %d round %d: %w", ErrInput, k, t, err)
			}
			arm := argmax(label)
			if beh != nil {
				arm, _ = beh.Act(t, acts, rng)
			}
			if arm < 0 || arm >= K {
				return fmt.Errorf("%w: bandit trajectory %d round %d: arm %d not in [0, %d)", ErrInput, k, t, arm, K)
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
			tr.Labels[t-1] = label
		}
		out[k] = tr
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
