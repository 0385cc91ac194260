package learner

import (
	"fmt"

	"github.com/icrl-go/icrl/game"
)

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
	// Opponents returns the number of opponent actions the learner was
	// built for (its payoff estimate or its encoder has one slot per
	// opponent action), or 0 if it does not model them. Under JointActions
	// observation the rollout engine checks a positive count against the
	// opponent's actions in the game, so that a learner sized for another
	// game is refused rather than playing against phantom actions.
	Opponents() int
}

// A ProfileLearner is a [Learner] that can observe every player's action of
// a round, not only its own: the N-player form of [JointLearner]. The rollout engine (package learner/play)
// calls ObserveProfile under [JointActions] observation and Observe
// otherwise.
type ProfileLearner interface {
	Learner
	// ObserveProfile feeds back one round: the state s, the learner's
	// own player index self, every player's action (actions[self] is its
	// own; the slice is valid only during the call), its own reward in
	// [0, 1] and the next state. It returns an error, leaving the learner
	// unchanged, if an argument is out of range, like Observe.
	ObserveProfile(s int, self game.Player, actions []int, reward float64, next int) error
}
