package nonstationary

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/learner/bandit"
)

// An Env is an oblivious non-stationary stochastic bandit: the mean reward
// f_t(k) of every arm k at every round t is fixed before play and does not
// depend on the learner (nonstationary-transformers-master §2 and §5). Rounds are 1-based,
// t = 1..Horizon(), and arms are 0..Arms()−1.
//
// A K-armed bandit has Dim() == 0 and Actions(t) == nil. A linear bandit has
// Dim() == d and Actions(t) returns the action set A_t = s_t as Arms() rows
// of length d (nonstationary-transformers-master §5); the returned slices belong to the Env and must not
// be modified. The behaviour of Actions, Mean and Sample for t outside
// [1, Horizon()] or k outside [0, Arms()) is undefined (the implementations
// in this package panic).
//
// The implementations in this package are immutable after construction and
// safe for concurrent use; Sample draws only from the rng it is given.
//
// An Env is the bandit protocol's environment, bandit.OracleEnv (Horizon,
// the action set A_t = Actions(t), Arms() × Dim() or nil for a K-armed
// bandit, Mean f_t(k) = E[r_t | a_t = k] and Sample), with its numbers of
// arms and features.
type Env interface {
	bandit.OracleEnv
	// Arms is the number of arms (actions per round), K or A.
	Arms() int
	// Dim is the feature dimension d of a linear bandit, 0 for K-armed.
	Dim() int
}

// A FeatureMeaner is a linear Env whose mean-reward function f_t can be
// evaluated at any feature vector, not only at the actions offered at round
// t. [Variation] uses it to compare f_t and f_{t+1} on the same actions when
// the action set changes from round to round (nonstationary-transformers-master Definition 1). All linear
// environments of this package implement it.
type FeatureMeaner interface {
	Env
	// MeanOf returns f_t(a) for a feature vector a of length Dim().
	MeanOf(t int, a []float64) float64
}

// optimaler is implemented by environments that precompute f*_t.
type optimaler interface {
	optimal(t int) (best float64, arm int)
}

// OptimalMean returns f*_t = max_k f_t(k) and the lowest-indexed arm that
// attains it (nonstationary-transformers-master eq. (3); the maximum is over the arms offered at
// round t). It costs O(Arms()) calls to Mean, or O(1) for the environments
// of this package, which precompute it.
func OptimalMean(e Env, t int) (best float64, arm int) {
	if o, ok := e.(optimaler); ok {
		return o.optimal(t)
	}
	return argmaxMean(e, t)
}

func argmaxMean(e Env, t int) (best float64, arm int) {
	best = math.Inf(-1)
	for k := 0; k < e.Arms(); k++ {
		if m := e.Mean(t, k); m > best {
			best, arm = m, k
		}
	}
	return best, arm
}

// Variation returns the non-stationarity measure Δ(t) for t = 1..T−1 (the
// slice index is t−1; it is empty when T = 1), the smallest measure
// satisfying Definition 1 of the paper (Wei and Luo 2021, Def. 1):
//
//	Δ(t) = max_π |f_t(π) − f_{t+1}(π)|.
//
// For a K-armed bandit, and for a linear bandit whose action set does not
// change, π ranges over the arms: Δ(t) = max_k |f_t(k) − f_{t+1}(k)|. For a
// linear bandit whose action sets differ between rounds (a [FeatureMeaner]
// with Actions(t) ≠ Actions(t+1)), arm k at round t and arm k at round t+1
// are different feature vectors, so comparing indices would report a change
// even in a stationary bandit. Following §1.3 (π ranges over actions and
// f_t(a) = E[r_t | a_t = a]), Δ(t) is then the change of the mean-reward
// function on every action that can be played at t or t+1:
//
//	Δ(t) = max_{a ∈ A_t ∪ A_{t+1}} |f_t(a) − f_{t+1}(a)|.
//
// A linear Env that does not implement FeatureMeaner falls back to the
// index-wise formula. Cost O(T·K) calls to Mean (O(T·K·d) for changing
// linear sets).
func Variation(e Env) []float64 {
	T := e.Horizon()
	if T < 2 {
		return []float64{}
	}
	v := make([]float64, T-1)
	fm, isFeature := e.(FeatureMeaner)
	for t := 1; t < T; t++ {
		if isFeature && e.Dim() > 0 {
			at, an := e.Actions(t), e.Actions(t+1)
			if !sameSet(at, an) {
				d := 0.0
				for _, set := range [2][][]float64{at, an} {
					for _, a := range set {
						if x := math.Abs(fm.MeanOf(t, a) - fm.MeanOf(t+1, a)); x > d {
							d = x
						}
					}
				}
				v[t-1] = d
				continue
			}
		}
		d := 0.0
		for k := 0; k < e.Arms(); k++ {
			if x := math.Abs(e.Mean(t, k) - e.Mean(t+1, k)); x > d {
				d = x
			}
		}
		v[t-1] = d
	}
	return v
}

// sameSet reports whether two action sets are the same slice.
func sameSet(a, b [][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || &a[0] == &b[0]
}

// TotalVariation returns the amount of change Δ = Δ_{[1,T]} = Σ_{t=1}^{T−1}
// Δ(t) (nonstationary-transformers-master Definition 1), with Δ(t) as in [Variation], summed in order of t.
func TotalVariation(e Env) float64 {
	s := 0.0
	for _, x := range Variation(e) {
		s += x
	}
	return s
}

// Pieces returns the number of stationary pieces J = J_{[1,T]} =
// 1 + #{t ∈ [1,T−1] : Δ(t) > tol} (Definition 1, where the condition is
// Δ(t) ≠ 0; tol absorbs floating-point rounding, and a negative tol is
// treated as 0). WL call this number L; J = 1 + the number of switches.
// Consecutive declared pieces with equal means count as one.
func Pieces(e Env, tol float64) int {
	if tol < 0 {
		tol = 0
	}
	j := 1
	for _, x := range Variation(e) {
		if x > tol {
			j++
		}
	}
	return j
}

// checkHorizon validates a horizon T.
func checkHorizon(T int) error {
	if T <= 0 {
		return fmt.Errorf("%w: horizon %d must be positive", icrl.ErrInvalid, T)
	}
	return num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "horizon", T)
}

// checkStarts validates the first rounds of n pieces: starts[0] = 1,
// strictly increasing, all ≤ T. It returns, for each round t, the index of
// the piece containing t (slice index t−1).
func checkStarts(starts []int, n, T int) ([]int32, error) {
	if len(starts) != n {
		return nil, fmt.Errorf("%w: %d piece starts for %d pieces", icrl.ErrInvalid, len(starts), n)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: no pieces", icrl.ErrInvalid)
	}
	if starts[0] != 1 {
		return nil, fmt.Errorf("%w: starts[0] = %d, the first piece must start at round 1", icrl.ErrInvalid, starts[0])
	}
	for j := 1; j < n; j++ {
		if starts[j] <= starts[j-1] {
			return nil, fmt.Errorf("%w: starts[%d] = %d is not after starts[%d] = %d (change points out of order)", icrl.ErrInvalid, j, starts[j], j-1, starts[j-1])
		}
		if starts[j] > T {
			return nil, fmt.Errorf("%w: starts[%d] = %d is beyond the horizon %d", icrl.ErrInvalid, j, starts[j], T)
		}
	}
	idx := make([]int32, T)
	j := 0
	for t := 1; t <= T; t++ {
		if j+1 < n && t == starts[j+1] {
			j++
		}
		idx[t-1] = int32(j)
	}
	return idx, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
