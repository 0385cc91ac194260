package bandit

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"gonum.org/v1/gonum/floats"
)

// OFULConfig configures [NewOFUL]. Dim and Horizon are required; the zero
// value of every other field selects the value of Wei and Luo's
// Algorithm 8.
type OFULConfig struct {
	// Dim is the feature dimension d ≥ 1.
	Dim int
	// Horizon is the number of rounds T ≥ 1 in the confidence level
	// log(T/δ). The learner may keep playing past it.
	Horizon int
	// Delta is the confidence parameter δ ∈ (0, 1]. Zero means 1 (the
	// seed paper's Assumption 1 level, as for [UCB1Config]).
	Delta float64
	// Lambda is the ridge regularisation λ > 0. Zero means 1, Wei and
	// Luo's Λ_t = I + Σ a aᵀ.
	Lambda float64
	// Beta overrides the confidence radius β > 0; the bonus is 2β. Zero
	// means Wei and Luo's β = 4·sqrt(d·log(T/δ)), which is very
	// conservative at moderate horizons (see [OFUL]).
	Beta float64
}

// OFUL is optimism in the face of uncertainty for linear bandits
// (Abbasi-Yadkori, Pál and Szepesvári 2011) in the form of Wei and Luo
// (2021, Algorithm 8, App. I.2; nonstationary-transformers-master §2.1), which assumes ‖x‖₂ ≤ 1 and ‖θ‖₂ ≤ 1:
//
//	β = 4·sqrt(d·log(T/δ)),   Λ_t = I + Σ_{τ<t} x_τ x_τᵀ,   θ̂_t = Λ_t⁻¹ Σ_{τ<t} r_τ x_τ,
//	a_t = argmax_k ⟨x_{t,k}, θ̂_t⟩ + 2β‖x_{t,k}‖_{Λ_t⁻¹},   f̃_t = the maximum,
//
// ties towards the lowest index. With ρ = [RhoOFUL] it satisfies
// Assumption 1 with Δ(t) = d·sqrt(log(T/δ))·‖θ_t − θ_{t+1}‖₂. Wei and Luo
// state it for a fixed action set; this implementation accepts a new set
// every round. The bonus 2β is large (2β ≈ 125 for d = 32, T = 2000, δ = 1)
// and makes OFUL explore almost uniformly for thousands of rounds; Beta in
// [OFULConfig] overrides it.
//
// The state and costs are those of [LinUCB]: Sherman–Morrison updates of
// Λ⁻¹, Act O(A·d²), Observe O(d² + A), no allocation; Act panics on an
// empty action set or an action of the wrong dimension. An OFUL is not safe
// for concurrent use.
type OFUL struct {
	ridge
	beta float64
}

// NewOFUL returns an OFUL learner with no observations. It returns an error
// naming the bad field if Dim < 1, Horizon < 1, Delta is not in (0, 1]
// (0 for the default), or Lambda or Beta is negative or not finite.
func NewOFUL(cfg OFULConfig) (*OFUL, error) {
	if cfg.Dim < 1 {
		return nil, fmt.Errorf("%w: OFUL needs a positive feature dimension, got Dim = %d", icrl.ErrInvalid, cfg.Dim)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "OFUL with Dim × Dim", cfg.Dim, cfg.Dim); err != nil {
		return nil, err
	}
	if cfg.Horizon < 1 {
		return nil, fmt.Errorf("%w: OFUL horizon Horizon = %d must be at least 1", icrl.ErrInvalid, cfg.Horizon)
	}
	delta := cfg.Delta
	if delta == 0 {
		delta = 1
	}
	if !(delta > 0 && delta <= 1) {
		return nil, fmt.Errorf("%w: OFUL confidence Delta = %v must be in (0, 1] (0 for the default 1)", icrl.ErrInvalid, cfg.Delta)
	}
	lambda, err := checkPositive("OFUL", "regularisation Lambda", cfg.Lambda, 1)
	if err != nil {
		return nil, err
	}
	def := 4 * math.Sqrt(float64(cfg.Dim)*math.Log(float64(cfg.Horizon)/delta))
	beta := cfg.Beta
	if beta == 0 {
		beta = def
	} else if !(beta > 0) || math.IsInf(beta, 0) {
		return nil, fmt.Errorf("%w: OFUL confidence radius Beta = %v must be positive and finite (0 for the default %v)", icrl.ErrInvalid, cfg.Beta, def)
	}
	return &OFUL{ridge: newRidge(cfg.Dim, lambda), beta: beta}, nil
}

// Beta returns the confidence radius β in use; the bonus is 2β.
func (o *OFUL) Beta() float64 { return o.beta }

// Index returns the upper confidence bound ⟨x, θ̂⟩ + 2β‖x‖_{Λ⁻¹} of a
// feature vector. It panics if len(x) ≠ d.
func (o *OFUL) Index(x []float64) float64 {
	return floats.Dot(x, o.theta) + 2*o.beta*o.Width(x)
}

// Reset forgets every observation (a restart).
func (o *OFUL) Reset() { o.reset() }

// Act returns the arm with the largest upper confidence bound and that
// bound, the optimistic value f̃_t.
func (o *OFUL) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	return o.ucb("OFUL", actions, o.theta, 2*o.beta)
}

// Observe adds the played feature vector and its reward to the ridge
// regression, with the errors of [LinUCB.Observe].
func (o *OFUL) Observe(t int, actions [][]float64, arm int, reward float64) error {
	q, err := o.check("OFUL", actions, arm, reward)
	if err != nil {
		return err
	}
	o.commit(actions[arm], reward, q)
	return nil
}

// RhoOFUL returns the function ρ of Wei and Luo's Assumption 1 for [OFUL]
// in dimension d with horizon T and confidence δ (Wei and Luo App. I.2;
// nonstationary-transformers-master §2.1):
//
//	ρ(t) = β·sqrt(d·log(T/δ)/t) = 4·d·log(T/δ)/√t.
//
// The returned function gives +Inf for t < 1. RhoOFUL panics if d < 1,
// horizon < 1 or delta is not in (0, 1], like [RhoUCB1].
func RhoOFUL(d, horizon int, delta float64) func(t int) float64 {
	if d < 1 || horizon < 1 || !(delta > 0 && delta <= 1) {
		panic(fmt.Sprintf("learner: RhoOFUL(d = %d, horizon = %d, delta = %v): need d ≥ 1, horizon ≥ 1 and delta in (0, 1]", d, horizon, delta))
	}
	k := 4 * float64(d) * math.Log(float64(horizon)/delta)
	return func(t int) float64 {
		if t < 1 {
			return math.Inf(1)
		}
		return k / math.Sqrt(float64(t))
	}
}
