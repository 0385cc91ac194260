package bandit

import "math/rand/v2"

// A Learner plays a (possibly non-stationary, possibly linear)
// stochastic bandit: at round t it picks one of the arms offered, observes
// that arm's reward, and reports an optimistic value — the auxiliary
// quantity f̃_t of Wei and Luo (2021, Assumption 1) that MALG and MASTER
// (package nonstationary) compare across scales: with high probability
// f̃_t ≥ the best mean of the round, and the average of f̃_t minus the
// rewards is at most ρ(t) on a stationary stretch.
//
// For a K-armed bandit actions is nil and the arms are 0..K−1; for a linear
// bandit actions[k] is the feature vector of arm k at round t (the set may
// change every round). Times t are 1-based as in the papers. A
// Learner is not safe for concurrent use.
type Learner interface {
	// Reset returns the learner to its initial state (a restart).
	Reset()
	// Act returns the arm to play at round t and the optimistic value f̃_t.
	// It may draw from rng (Thompson sampling does).
	Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64)
	// Observe feeds back the reward of the arm played at round t. It
	// returns an error, leaving the learner unchanged, if the arm is out of
	// range, the action set has the wrong dimension, or the reward is NaN or
	// infinite.
	Observe(t int, actions [][]float64, arm int, reward float64) error
}

// A Factory makes fresh Learners, for wrappers (MALG, MASTER,
// restarts) that start new instances of a base learner.
type Factory func() (Learner, error)

// A Env is a bandit environment as a harness plays it: a horizon,
// the action set of each round (feature vectors, one per arm, or nil for a
// K-armed bandit) and a reward draw. It is the one definition of the
// bandit protocol's environment: incontext.CollectBandits plays it, and
// the environments of package nonstationary implement it.
type Env interface {
	// Horizon returns the number of rounds T.
	Horizon() int
	// Actions returns the action set of round t (1-based).
	Actions(t int) [][]float64
	// Sample draws the reward of arm k at round t from rng.
	Sample(t, k int, rng *rand.Rand) float64
}

// An OracleEnv is a [Env] that knows the mean reward of every arm at
// every round, as a simulator does: what dynamic regret and the labels of
// decision-pretrained transformers are computed from. A learner never
// reads it.
type OracleEnv interface {
	Env
	// Mean returns the mean reward of arm k at round t.
	Mean(t, k int) float64
}
