package learner

import (
	"fmt"

	"github.com/icrl-go/icrl/game"
)

// A Transition is one round of a two-player game as the harness sees it:
// the state, both actions, the row player's reward and the next state. It
// is the one round type of the module's rollouts ([SelfPlay], and the
// trajectory collection of package learner/incontext built on it); what
// each player observes of it is [Transition.Step] (and, in the joint-action
// setting, [Transition.Opponent]).
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
// of this package ([Learner]). It is the one place the module applies that
// convention. It panics if p is not a valid player.
func (tr Transition) RewardOf(p game.Player) float64 {
	switch p {
	case game.RowPlayer:
		return tr.Reward
	case game.ColumnPlayer:
		return 1 - tr.Reward
	}
	panic(fmt.Sprintf("learner: Transition of invalid player %v", p))
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
	panic(fmt.Sprintf("learner: Transition of invalid player %v", p))
}

// Opponent returns the action of player p's opponent. It panics if p is not
// a valid player.
func (tr Transition) Opponent(p game.Player) int {
	return tr.Action(1 - p)
}

// Step returns the round as player p sees it under bandit feedback: the
// state, its own action and its own reward.
func (tr Transition) Step(p game.Player) Step {
	return Step{State: tr.State, Action: tr.Action(p), Reward: tr.RewardOf(p)}
}

// Observation selects what a player observes after each round of a
// rollout: the decentralized setting, in which it sees its own action and
// reward only (in-context-games-omd §1.3, the default), or the joint-action
// (centralized) setting, in which it also sees the opponent's action (the
// centralized setting of Shi, Yang, Yang and Shen, "Transformers as Game
// Players", NeurIPS 2024, arXiv 2410.09701).
type Observation int

const (
	// Decentralized observation: each learner is fed its own action and
	// reward through [Learner.Observe] (the default).
	Decentralized Observation = iota
	// JointActions observation: a learner that implements [JointLearner]
	// is fed the opponent's action too, through ObserveJoint; any other
	// learner is fed as under Decentralized.
	JointActions
)

// String returns the observation setting's name.
func (o Observation) String() string {
	switch o {
	case Decentralized:
		return "decentralized"
	case JointActions:
		return "joint-actions"
	}
	return fmt.Sprintf("Observation(%d)", int(o))
}

// Valid reports whether o is Decentralized or JointActions.
func (o Observation) Valid() bool { return o == Decentralized || o == JointActions }

// A JointLearner is a [Learner] that can observe the opponent's action as
// well as its own: the harness's way to give a learner the joint action in
// the centralized setting (Shi et al. 2024, arXiv 2410.09701). A caller's learner opts in
// by implementing ObserveJoint; the harnesses call it only under
// [JointActions] observation, and call Observe otherwise, so a JointLearner
// documents what its Observe does (the in-context joint learners reject it:
// their model needs the opponent's action).
type JointLearner interface {
	Learner

	// ObserveJoint feeds back one round with the opponent's action: the
	// state s, the learner's own action, the opponent's action, its own
	// reward in [0, 1] and the next state. It returns an error, leaving
	// the learner unchanged, if an argument is out of range, like Observe.
	ObserveJoint(s, action, opponent int, reward float64, next int) error
}

// An OpponentCounter is a [JointLearner] built for a fixed number of
// opponent actions (its payoff estimate or its encoder has one slot per
// opponent action): under [JointActions] observation the rollout engine
// checks it against the opponent's actions in the game, so that a learner
// sized for another game is refused rather than playing against phantom
// actions. Opponents returns 0 for a learner that does not model the
// opponent's action (it is then not checked).
type OpponentCounter interface {
	JointLearner
	// Opponents returns the number of opponent actions the learner was
	// built for.
	Opponents() int
}

// Feed gives player p's learner l its observation of the round tr: through
// ObserveJoint if o is JointActions and l is a [JointLearner], through
// Observe (own action and reward) otherwise. It returns the learner's
// error.
func (o Observation) Feed(l Learner, p game.Player, tr Transition) error {
	if o == JointActions {
		if j, ok := l.(JointLearner); ok {
			return j.ObserveJoint(tr.State, tr.Action(p), tr.Opponent(p), tr.RewardOf(p), tr.Next)
		}
	}
	return l.Observe(tr.State, tr.Action(p), tr.RewardOf(p), tr.Next)
}
