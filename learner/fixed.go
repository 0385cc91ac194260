package learner

import (
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
)

// Fixed is a learner that never learns: it plays a given stationary policy,
// one distribution per state, whatever it observes. It is the
// equilibrium-playing expert of in-context-games-omd §5 (with the game's
// equilibrium), the context-free baselines of the in-context experiments
// (the uniform policy, the average of the training games' equilibria), and
// any fixed opponent.
//
// Observe validates the round (states, action, reward) and otherwise does
// nothing. A Fixed is read-only after construction and safe for concurrent
// use.
type Fixed struct {
	policy  [][]float64
	actions int
}

// Compile-time check: a fixed policy is a Learner.
var _ Learner = (*Fixed)(nil)

// NewFixed returns a learner that plays policy[s] in state s. The policy is
// copied. It returns an error wrapping [icrl.ErrInvalid] if there is no state,
// the states have different numbers of actions or a row is not a
// probability distribution.
func NewFixed(policy [][]float64) (*Fixed, error) {
	if len(policy) == 0 {
		return nil, fmt.Errorf("%w: NewFixed needs a policy for at least one state", icrl.ErrInvalid)
	}
	A := len(policy[0])
	f := &Fixed{policy: make([][]float64, len(policy)), actions: A}
	for s, p := range policy {
		if err := simplex.CheckDistribution(fmt.Sprintf("NewFixed policy in state %d", s), p, A); err != nil {
			return nil, fmt.Errorf("%w: %w", icrl.ErrInvalid, err)
		}
		f.policy[s] = append([]float64(nil), p...)
	}
	return f, nil
}

// States returns the number of states.
func (f *Fixed) States() int { return len(f.policy) }

// Actions returns the number of actions.
func (f *Fixed) Actions() int { return f.actions }

// Policy returns the fixed distribution of state s. It panics if s is out
// of range.
func (f *Fixed) Policy(s int) []float64 {
	if uint(s) >= uint(len(f.policy)) {
		panic(fmt.Sprintf("learner: Fixed.Policy state %d out of range [0, %d)", s, len(f.policy)))
	}
	return f.policy[s]
}

// Observe checks the round and ignores it. It returns an error wrapping
// [icrl.ErrOutOfRange] or [icrl.ErrNotFinite] if a state or the action is out of
// range or the reward is not in [0, 1].
func (f *Fixed) Observe(s, action int, reward float64, next int) error {
	if err := checkStates(s, next, len(f.policy)); err != nil {
		return fmt.Errorf("learner: Fixed: %w", err)
	}
	if err := checkUnitFeedback(action, f.actions, reward); err != nil {
		return fmt.Errorf("learner: Fixed: %w", err)
	}
	return nil
}

// Reset does nothing: a fixed policy has no state.
func (f *Fixed) Reset() {}
