package learner

import (
	"fmt"
	"math"
)

// A Learner plays a repeated game with uncoupled bandit feedback: after each
// round it observes only its own action and its own reward, never the
// opponent's action or the payoff matrix (in-context-games-omd §3.1,
// "Bandit Feedback and Uncoupled Learning Dynamics").
//
// Rewards follow one convention for every learner in this package: they are
// to be maximised and lie in [0,1]. In a zero-sum game with row payoffs in
// [0,1] the row player is fed r and the column player 1 − r (see
// [SelfPlay]).
type Learner interface {
	// Policy returns the current mixed strategy x_t, the distribution the
	// learner plays at the next round. The slice belongs to the learner: the
	// caller must not modify it, and it is valid only until the next call
	// to Observe or Reset.
	Policy() []float64

	// Observe feeds back the action played at this round and the reward it
	// earned. It returns an error, leaving the learner unchanged, if the
	// action is out of range or the reward is NaN or infinite.
	Observe(action int, reward float64) error

	// Reset returns the learner to its initial state.
	Reset()
}

// A FullInformationLearner observes the reward every action would have
// earned at the last round (the full reward vector), not only its own. In a
// zero-sum game the row player's vector is Ay_t and the column player's is
// 1 − x_tᵀA.
type FullInformationLearner interface {
	// Policy is as in Learner.
	Policy() []float64

	// ObserveRewards feeds back the reward vector of the last round, one
	// entry per action. It returns an error, leaving the learner unchanged,
	// if the length is wrong or an entry is NaN or infinite.
	ObserveRewards(rewards []float64) error

	// Reset returns the learner to its initial state.
	Reset()
}

// A Policy maps a history of one player's own (state, action, reward) steps
// to a distribution over its actions: the algorithm Alg(·|D_{t−1}) of
// in-context-games-omd §3.2. Learners that are deterministic functions of
// their history (such as [OMD]) are Policies too, which later packages use as
// experts.
type Policy interface {
	// Distribution stores in dst the distribution over actions after the
	// given history and returns it; if dst is nil a new slice is
	// allocated. It returns an error if a step of the history is invalid.
	Distribution(dst []float64, history []Step) ([]float64, error)
}

// Step is one round as a single player sees it under bandit feedback.
type Step struct {
	// State is the state observed before acting; 0 in matrix games.
	State int
	// Action is the player's own action.
	Action int
	// Reward is the player's own reward, in the maximised [0,1]
	// convention of Learner.
	Reward float64
}

// checkFeedback validates one bandit observation.
func checkFeedback(action, n int, reward float64) error {
	if action < 0 || action >= n {
		return fmt.Errorf("learner: action %d out of range [0, %d)", action, n)
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return fmt.Errorf("learner: reward %v for action %d is not finite", reward, action)
	}
	return nil
}

// checkRewards validates one full-information observation.
func checkRewards(rewards []float64, n int) error {
	if len(rewards) != n {
		return fmt.Errorf("learner: reward vector has length %d, want %d", len(rewards), n)
	}
	for i, r := range rewards {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("learner: reward %v for action %d is not finite", r, i)
		}
	}
	return nil
}
