package learner

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
)

// A Learner plays one side of a repeated game with states (a game.Game)
// under uncoupled bandit feedback (in-context-games-omd §1.3 and §3.1):
// before each round it sees the current state, after it its own action, its
// own reward and the next state, never the opponent's action, the rewards or
// the transitions. A matrix game is the one-state case: state 0 every round.
//
// Rewards follow one convention for every learner in this package: they are
// to be maximised and lie in [0,1] (noisy draws may leave it). In a zero-sum
// game the row player is fed r and the column player 1 − r (play.SelfPlay does
// this).
//
// Learners written for one state (the matrix-game learners [MWU],
// [OptimisticMWU], [Exp3IX], [RegretMatching]) reject states other than 0;
// [PerState] runs one of them per state of a larger game. [OMD] and the
// in-context learners of package learner/incontext handle any number of
// states themselves.
type Learner interface {
	// Policy returns the learner's current distribution over its actions
	// in state s. The slice belongs to the learner: the caller must not
	// modify it, and it is valid only until the next call to Observe or
	// Reset. Policy panics if s is out of range.
	Policy(s int) []float64

	// Observe feeds back one round: the state s it was played in, the
	// learner's own action, its reward in [0, 1] and the next state. It
	// returns an error, leaving the learner unchanged, if a state or the
	// action is out of range, or the reward is NaN, infinite or outside
	// [0, 1] (errors wrapping [icrl.ErrOutOfRange] or [icrl.ErrNotFinite]; each
	// implementation documents what else it rejects).
	Observe(s, action int, reward float64, next int) error

	// Reset returns the learner to its initial state.
	Reset()
}

// A FullInformationLearner is a one-state [Learner] that can also observe the
// reward every action would have earned at the last round (the full reward
// vector), not only its own. In a zero-sum matrix game the row player's
// vector is Ay_t and the column player's is 1 − x_tᵀA.
type FullInformationLearner interface {
	Learner

	// ObserveRewards feeds back the reward vector of the last round, one
	// entry per action. It returns an error, leaving the learner unchanged,
	// if the length is wrong or an entry is NaN or infinite.
	ObserveRewards(rewards []float64) error
}

// A HistoryPolicy maps one player's history of own (state, action, reward) steps
// and its current state to a distribution over its actions: the algorithm
// Alg(·|D_{t−1}, s_t) of in-context-games-omd §3.2. Learners that are
// deterministic functions of their history (such as [OMD]) are Policies
// too, which the in-context pipeline uses as experts.
type HistoryPolicy interface {
	// Distribution stores in dst the distribution over actions in state
	// after the given history (the rounds played before it) and returns
	// it; if dst is nil a new slice is allocated. It returns an error if a
	// step of the history or the state is invalid.
	Distribution(dst []float64, history []Step, state int) ([]float64, error)
}

// A StateCounter is a [Learner] that keeps a policy for a fixed number of
// states; play.SelfPlay checks the number against the game's.
type StateCounter interface {
	Learner
	// States returns the number of states.
	States() int
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
		return fmt.Errorf("%w: action %d is not in [0, %d)", icrl.ErrOutOfRange, action, n)
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return fmt.Errorf("%w: reward %v for action %d", icrl.ErrNotFinite, reward, action)
	}
	return nil
}

// checkUnitFeedback is checkFeedback for the game learners, whose rewards
// lie in [0, 1] ([Learner]).
func checkUnitFeedback(action, n int, reward float64) error {
	if err := checkFeedback(action, n, reward); err != nil {
		return err
	}
	if reward < 0 || reward > 1 {
		return fmt.Errorf("%w: reward %v for action %d is not in [0, 1] (rescale the game with game.Rescale)", icrl.ErrOutOfRange, reward, action)
	}
	return nil
}

// checkRewards validates one full-information observation.
func checkRewards(rewards []float64, n int) error {
	if len(rewards) != n {
		return fmt.Errorf("%w: reward vector has length %d, want %d", icrl.ErrShape, len(rewards), n)
	}
	for i, r := range rewards {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("%w: reward %v for action %d is not finite", icrl.ErrNotFinite, r, i)
		}
	}
	return nil
}

// checkOneState validates the states of an observation fed to a one-state
// learner.
func checkOneState(name string, s, next int) error {
	if s != 0 || next != 0 {
		return fmt.Errorf("%w: %s is a one-state learner, got state %d → %d (use PerState for a game with states)", icrl.ErrOutOfRange, name, s, next)
	}
	return nil
}

// panicState panics unless s is 0, for the Policy of a one-state learner.
func panicState(name string, s int) {
	if s != 0 {
		panic(fmt.Sprintf("learner: %s is a one-state learner, got state %d", name, s))
	}
}

// A WarmStarter is a [Learner] that can start from given policies, one
// distribution per state: the hand-over of a meta-learned initialisation
// (multi-agent-meta-rl §2) to an online learner. WarmStart makes them the
// learner's initial policies (projected onto the set the learner plays
// from, so that any distributions are accepted) and resets it; Reset then
// returns to them. [OMD], [MWU] and [OptimisticMWU] implement it.
type WarmStarter interface {
	Learner
	// WarmStart starts the learner from policies. It returns an error,
	// leaving the learner unchanged, if policies does not hold one
	// distribution over the learner's actions per state.
	WarmStart(policies [][]float64) error
}

var _ WarmStarter = (*OMD)(nil)
