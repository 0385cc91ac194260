package bandit

import (
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"gonum.org/v1/gonum/floats"
)

// LinUCBConfig configures [NewLinUCB]. Dim is required; the zero value of
// every other field selects the value of the paper's experiments.
type LinUCBConfig struct {
	// Dim is the feature dimension d ≥ 1.
	Dim int
	// Alpha is the confidence scale α > 0. Zero means 1, the value of the
	// paper's experiments (nonstationary-transformers-master §4.1 and
	// App. B). A greedy learner needs a tiny positive α.
	Alpha float64
	// Lambda is the ridge regularisation λ > 0. Zero means 1.
	Lambda float64
}

// LinUCB is the upper-confidence-bound algorithm for linear bandits with
// per-round action sets (Li, Chu, Langford and Schapire 2010, "A
// contextual-bandit approach to personalized news article recommendation")
// with one parameter vector shared by all arms and per-round feature
// vectors (Li et al.'s Algorithm 1 keeps one model per arm; the shared form
// is the one of the linear-bandit code that nonstationary-transformers-master
// builds on), the expert of that paper's experiments (§2.1 and §4.1, α = 1,
// λ = 1). With V_t = λI + Σ_{τ<t} x_τ x_τᵀ and θ̂_t = V_t⁻¹ Σ_{τ<t} r_τ x_τ,
//
//	a_t = argmax_k ⟨x_{t,k}, θ̂_t⟩ + α‖x_{t,k}‖_{V_t⁻¹},   f̃_t = the maximum,
//
// ties broken towards the lowest index (so at t = 1 it plays the arm of
// largest norm). LinUCB is [OFUL] with its bonus 2β replaced by the free
// constant α: with α = 1 its confidence set is not a valid high-probability
// set in general (it is when the noise is small, see the tests), so its f̃_t
// is an optimistic value in Wei and Luo's sense only heuristically.
//
// V⁻¹ is maintained by Sherman–Morrison rank-one updates (see
// [LinUCB.InverseGram]). Act costs O(A·d²) time for A actions (a quadratic
// form per action), Observe O(d² + A) (the update and a dimension check of
// the action set); neither allocates. Act panics if the action set is empty
// or an action's dimension is not d; it ignores t and rng, and Observe
// ignores t. A LinUCB is not safe for concurrent use.
type LinUCB struct {
	ridge
	alpha float64
}

// NewLinUCB returns a LinUCB learner with no observations. It returns an
// error naming the bad field if Dim < 1 or Alpha or Lambda is negative or
// not finite.
func NewLinUCB(cfg LinUCBConfig) (*LinUCB, error) {
	if cfg.Dim < 1 {
		return nil, fmt.Errorf("%w: LinUCB needs a positive feature dimension, got Dim = %d", icrl.ErrInvalid, cfg.Dim)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "LinUCB with Dim × Dim", cfg.Dim, cfg.Dim); err != nil {
		return nil, err
	}
	alpha, err := checkPositive("LinUCB", "confidence scale Alpha", cfg.Alpha, 1)
	if err != nil {
		return nil, err
	}
	lambda, err := checkPositive("LinUCB", "regularisation Lambda", cfg.Lambda, 1)
	if err != nil {
		return nil, err
	}
	return &LinUCB{ridge: newRidge(cfg.Dim, lambda), alpha: alpha}, nil
}

// Alpha returns the confidence scale α in use.
func (l *LinUCB) Alpha() float64 { return l.alpha }

// Index returns the upper confidence bound ⟨x, θ̂⟩ + α‖x‖_{V⁻¹} of a
// feature vector. It panics if len(x) ≠ d.
func (l *LinUCB) Index(x []float64) float64 {
	return floats.Dot(x, l.theta) + l.alpha*l.Width(x)
}

// Reset forgets every observation (a restart): V = λI, θ̂ = 0.
func (l *LinUCB) Reset() { l.reset() }

// Act returns the arm with the largest upper confidence bound and that
// bound, the optimistic value f̃_t.
func (l *LinUCB) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	return l.ucb("LinUCB", actions, l.theta, l.alpha)
}

// Observe adds the played feature vector actions[arm] and its reward to the
// ridge regression. It returns an error, leaving the learner unchanged, if
// the action set is empty, the arm is out of range, an action's dimension
// is not d, the reward is NaN or infinite, or the played features are not
// finite or overflow.
func (l *LinUCB) Observe(t int, actions [][]float64, arm int, reward float64) error {
	q, err := l.check("LinUCB", actions, arm, reward)
	if err != nil {
		return err
	}
	l.commit(actions[arm], reward, q)
	return nil
}
