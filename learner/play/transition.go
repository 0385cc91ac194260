package play

import (
	"fmt"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
)

// A Transition is one round of a two-player zero-sum game as [SelfPlay]
// shows it to its [Recorder]: the state, both actions, the row player's
// reward and the next state (the [Round] of [Run] with the zero-sum
// convention applied). The trajectory collection of package
// learner/incontext is built on it; what each player observes of it is
// [Transition.Step] (and, in the joint-action setting,
// [Transition.Opponent]).
type Transition struct {
	// State is the state s_t the round was played in.
	State int
	// Row and Col are the actions a_t and b_t.
	Row, Col int
	// Reward is the row player's reward r_t; the column player's is 1 − r_t.
	Reward float64
	// Next is the state s_{t+1}.
	Next int
}

// RewardOf returns player p's reward of the round: r_t for the row player and
// 1 − r_t for the column player, the zero-sum convention of every learner
// of package learner ([learner.Learner]). It panics if p is not a valid player.
func (tr Transition) RewardOf(p game.Player) float64 {
	switch p {
	case game.RowPlayer:
		return tr.Reward
	case game.ColumnPlayer:
		return 1 - tr.Reward
	}
	panic(fmt.Sprintf("play: Transition of invalid player %v", p))
}

// Action returns player p's own action. It panics if p is not a valid
// player.
func (tr Transition) Action(p game.Player) int {
	switch p {
	case game.RowPlayer:
		return tr.Row
	case game.ColumnPlayer:
		return tr.Col
	}
	panic(fmt.Sprintf("play: Transition of invalid player %v", p))
}

// Opponent returns the action of player p's opponent. It panics if p is not
// a valid player.
func (tr Transition) Opponent(p game.Player) int {
	return tr.Action(1 - p)
}

// Step returns the round as player p sees it under bandit feedback: the
// state, its own action and its own reward.
func (tr Transition) Step(p game.Player) learner.Step {
	return learner.Step{State: tr.State, Action: tr.Action(p), Reward: tr.RewardOf(p)}
}

// Feed gives player p's learner l its observation of the round tr: through
// ObserveJoint if o is learner.JointActions and l is a [learner.JointLearner], through
// Observe (own action and reward) otherwise. It returns the learner's
// error.
func (tr Transition) Feed(l learner.Learner, p game.Player, o learner.Observation) error {
	if o == learner.JointActions {
		if j, ok := l.(learner.JointLearner); ok {
			return j.ObserveJoint(tr.State, tr.Action(p), tr.Opponent(p), tr.RewardOf(p), tr.Next)
		}
	}
	return l.Observe(tr.State, tr.Action(p), tr.RewardOf(p), tr.Next)
}
