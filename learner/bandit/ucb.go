package bandit

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
)

var _ Learner = (*UCB1)(nil)

// DefaultUCB1C is the default bonus constant c of [UCB1]: the Hoeffding
// constant √½, for which a mean of n rewards in [0,1] lies within
// c·sqrt(log(1/δ')/n) of its expectation with probability 1 − 2δ' by
// Hoeffding's inequality (Wei and Luo only say "a universal constant from
// Azuma's inequality").
var DefaultUCB1C = math.Sqrt(0.5)

// UCB1Config configures [NewUCB1]. Arms and Horizon are required; the zero
// value of every other field selects the documented default.
type UCB1Config struct {
	// Arms is the number of arms A ≥ 1.
	Arms int
	// Horizon is the number of rounds T ≥ 1 that sets the confidence level
	// log(T/δ). The learner may keep playing past it.
	Horizon int
	// Delta is the confidence parameter δ ∈ (0, 1]. Zero means 1, the
	// level of the seed paper's Assumption 1 (probability 1 − 1/T) and of
	// its MALG example (§2.4 of nonstationary-transformers-master), under
	// which log(T/δ) = log T.
	Delta float64
	// C is the bonus constant c > 0. Zero means [DefaultUCB1C] = √½.
	C float64
}

// UCB1 is the upper-confidence-bound algorithm for A-armed stochastic
// bandits (Auer, Cesa-Bianchi and Fischer 2002) in the form of Wei and Luo
// (2021, Algorithm 7, App. I.1; nonstationary-transformers-master §2.1). With N_{t,a} the number of plays of arm a before round t,
// N⁺ = max{1, N_{t,a}} and r̂_{t,a} the mean of its rewards (0 if unplayed),
//
//	r̃_{t,a} = r̂_{t,a} + c·sqrt(log(T/δ)/N⁺_{t,a}),
//	a_t = argmax_a r̃_{t,a},   f̃_t = max_a r̃_{t,a},
//
// ties broken towards the lowest index. Because N⁺ ≥ 1, an unplayed arm has
// index c·sqrt(log(T/δ)) and is not forced first: an arm that has earned
// high rewards can outrank it, exactly as in Algorithm 7. The optimistic
// value f̃_t is the largest index and is not clipped to [0,1] (the paper
// does not say; clipping would hide the optimism MASTER's tests compare). With rewards in [0,1] UCB1 satisfies Wei and Luo's Assumption 1 with
// ρ = [RhoUCB1] and Δ(t) = max_a |f_t(a) − f_{t+1}(a)|.
//
// Act costs O(A) time (A square roots), Observe O(1); neither allocates.
// The action sets passed to Act and Observe are ignored (they may be nil, or
// hold one entry per arm), and so is the round t: the learner counts its own
// plays. A UCB1 is not safe for concurrent use.
type UCB1 struct {
	arms    int
	horizon int
	delta   float64
	c       float64
	scale   float64 // c·sqrt(log(T/δ))

	counts []int
	sums   []float64
}

// NewUCB1 returns a UCB1 learner with no plays. It returns an error naming
// the bad field if Arms < 1, Horizon < 1, Delta is not in (0, 1] (0 for the
// default) or C is negative or not finite.
func NewUCB1(cfg UCB1Config) (*UCB1, error) {
	if cfg.Arms < 1 {
		return nil, fmt.Errorf("%w: UCB1 needs at least one arm, got Arms = %d", icrl.ErrInvalid, cfg.Arms)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "UCB1 with Arms", cfg.Arms); err != nil {
		return nil, err
	}
	if cfg.Horizon < 1 {
		return nil, fmt.Errorf("%w: UCB1 horizon Horizon = %d must be at least 1", icrl.ErrInvalid, cfg.Horizon)
	}
	delta := cfg.Delta
	if delta == 0 {
		delta = 1
	}
	if !(delta > 0 && delta <= 1) {
		return nil, fmt.Errorf("%w: UCB1 confidence Delta = %v must be in (0, 1] (0 for the default 1)", icrl.ErrInvalid, cfg.Delta)
	}
	c := cfg.C
	if c == 0 {
		c = DefaultUCB1C
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("%w: UCB1 bonus constant C = %v must be positive and finite (0 for the default √½)", icrl.ErrInvalid, cfg.C)
	}
	return &UCB1{
		arms:    cfg.Arms,
		horizon: cfg.Horizon,
		delta:   delta,
		c:       c,
		scale:   c * math.Sqrt(math.Log(float64(cfg.Horizon)/delta)),
		counts:  make([]int, cfg.Arms),
		sums:    make([]float64, cfg.Arms),
	}, nil
}

// Arms returns the number of arms A.
func (u *UCB1) Arms() int { return u.arms }

// Delta returns the confidence parameter δ in use.
func (u *UCB1) Delta() float64 { return u.delta }

// C returns the bonus constant c in use.
func (u *UCB1) C() float64 { return u.c }

// Count returns N_a, the number of times arm a has been observed. It panics
// if a is out of range.
func (u *UCB1) Count(a int) int { return u.counts[a] }

// Mean returns r̂_a, the mean reward of arm a (0 if unplayed). It panics if
// a is out of range.
func (u *UCB1) Mean(a int) float64 { return u.sums[a] / float64(max(1, u.counts[a])) }

// Index returns the upper confidence index r̃_a that the next Act uses. It
// panics if a is out of range.
func (u *UCB1) Index(a int) float64 {
	n := float64(max(1, u.counts[a]))
	return u.sums[a]/n + u.scale/math.Sqrt(n)
}

// Reset forgets every play (a restart).
func (u *UCB1) Reset() {
	clear(u.counts)
	clear(u.sums)
}

// Act returns the arm with the largest index and that index, the optimistic
// value f̃_t. It ignores t, actions and rng.
func (u *UCB1) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	best := math.Inf(-1)
	for a := range u.arms {
		if v := u.Index(a); v > best {
			best, arm = v, a
		}
	}
	return arm, best
}

// Observe records the reward of the played arm. It returns an error,
// leaving the learner unchanged, if the arm is out of range, the reward is
// NaN or infinite, actions is neither nil nor of length A, or the running
// sum of the arm's rewards would overflow.
func (u *UCB1) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if actions != nil && len(actions) != u.arms {
		return fmt.Errorf("%w: UCB1 plays %d arms, got an action set of %d arms", icrl.ErrShape, u.arms, len(actions))
	}
	if err := checkFeedback(arm, u.arms, reward); err != nil {
		return err
	}
	s := u.sums[arm] + reward
	if math.IsInf(s, 0) {
		return fmt.Errorf("%w: UCB1 reward sum of arm %d overflows (reward %v)", icrl.ErrNotFinite, arm, reward)
	}
	u.sums[arm] = s
	u.counts[arm]++
	return nil
}

// RhoUCB1 returns the function ρ of Wei and Luo's Assumption 1 for [UCB1]
// with A arms, horizon T and confidence δ (Wei and Luo App. I.1;
// nonstationary-transformers-master §2.1):
//
//	ρ(t) = sqrt(A·log(T/δ)/t) + A·log(T/δ)/t,
//
// which is non-increasing with C(t) = tρ(t) non-decreasing. The returned
// function gives +Inf for t < 1. RhoUCB1 panics if arms < 1, horizon < 1 or
// delta is not in (0, 1]: the arguments are constants of a configuration,
// not data (callers validating user input should check them first).
func RhoUCB1(arms, horizon int, delta float64) func(t int) float64 {
	if arms < 1 || horizon < 1 || !(delta > 0 && delta <= 1) {
		panic(fmt.Sprintf("learner: RhoUCB1(arms = %d, horizon = %d, delta = %v): need arms ≥ 1, horizon ≥ 1 and delta in (0, 1]", arms, horizon, delta))
	}
	k := float64(arms) * math.Log(float64(horizon)/delta)
	return func(t int) float64 {
		if t < 1 {
			return math.Inf(1)
		}
		x := k / float64(t)
		return math.Sqrt(x) + x
	}
}
