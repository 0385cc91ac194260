package learner

import (
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/num"
)

// PerState plays a game with states with one independent one-state
// [Learner] per state (a matrix-game learner such as [MWU] or [Exp3IX]):
// the learner of state s plays in s as if in state 0 and observes only the rounds
// played in s, with their immediate reward. It ignores the future (the next
// state and the continuation value), so it learns the equilibrium of each
// stage game's immediate rewards r(s,·,·), not of the Markov game's
// Q-functions: a myopic baseline for [OMD], which adds the value
// estimate r + γV(s') of Algorithm 1 of in-context-games-omd §4.3.
//
// Its cost per Observe is that of the state's learner plus O(1). A PerState
// is not safe for concurrent use.
type PerState struct {
	learners []Learner
	actions  int
}

// NewPerState returns a PerState over states states whose learner for state
// s is factory(s). It returns an error if states < 1, factory is nil or
// fails, returns a nil learner, or the learners' initial policies are not
// distributions over one common number of actions.
func NewPerState(states int, factory func(state int) (Learner, error)) (*PerState, error) {
	if states < 1 {
		return nil, fmt.Errorf("%w: PerState needs at least one state, got states = %d", icrl.ErrInvalid, states)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "PerState with states", states); err != nil {
		return nil, err
	}
	if factory == nil {
		return nil, fmt.Errorf("%w: PerState needs a learner factory, got nil", icrl.ErrNil)
	}
	p := &PerState{learners: make([]Learner, states)}
	for s := range p.learners {
		l, err := factory(s)
		if err != nil {
			return nil, fmt.Errorf("learner: PerState learner of state %d: %w", s, err)
		}
		if l == nil {
			return nil, fmt.Errorf("%w: PerState factory returned a nil learner for state %d", icrl.ErrNil, s)
		}
		x := l.Policy(0)
		if s == 0 {
			p.actions = len(x)
		}
		if err := simplex.CheckDistribution(fmt.Sprintf("PerState initial policy of state %d", s), x, p.actions); err != nil {
			return nil, fmt.Errorf("learner: %w", err)
		}
		p.learners[s] = l
	}
	return p, nil
}

// States returns the number of states.
func (p *PerState) States() int { return len(p.learners) }

// Actions returns the number of actions.
func (p *PerState) Actions() int { return p.actions }

// Learner returns the learner of state s. It panics if s is out of range.
func (p *PerState) Learner(s int) Learner {
	p.checkState(s)
	return p.learners[s]
}

func (p *PerState) checkState(s int) {
	if uint(s) >= uint(len(p.learners)) {
		panic(fmt.Sprintf("learner: state %d out of range [0, %d)", s, len(p.learners)))
	}
}

// Policy returns the policy of state s's learner. It panics if s is out of
// range.
func (p *PerState) Policy(s int) []float64 {
	p.checkState(s)
	return p.learners[s].Policy(0)
}

// Observe feeds (action, reward) to the learner of state s only; next is
// checked but otherwise ignored. It returns an error, leaving the learner
// unchanged, if s or next is out of range or state s's learner rejects the
// observation (every learner of this package rejects an out-of-range action
// and a NaN or infinite reward).
func (p *PerState) Observe(s, action int, reward float64, next int) error {
	if err := checkStates(s, next, len(p.learners)); err != nil {
		return err
	}
	if err := p.learners[s].Observe(0, action, reward, 0); err != nil {
		return fmt.Errorf("learner: PerState state %d: %w", s, err)
	}
	return nil
}

// Reset resets every state's learner.
func (p *PerState) Reset() {
	for _, l := range p.learners {
		l.Reset()
	}
}

// Distribution implements [HistoryPolicy]: it returns the policy the learner of
// state would hold after the history's steps played in that state, by
// replaying them through that learner's own Distribution (as a one-state
// history), so every state's learner must be a [HistoryPolicy]. It allocates the
// filtered history and does not change the learner. It returns an error if
// a state is out of range, the learner of state is not a HistoryPolicy, or its
// replay fails, and panics if dst has the wrong length.
func (p *PerState) Distribution(dst []float64, history []Step, state int) ([]float64, error) {
	if uint(state) >= uint(len(p.learners)) {
		return nil, fmt.Errorf("%w: PerState query state %d out of range [0, %d)", icrl.ErrOutOfRange, state, len(p.learners))
	}
	for k, st := range history {
		if uint(st.State) >= uint(len(p.learners)) {
			return nil, fmt.Errorf("%w: PerState history step %d: state %d out of range [0, %d)", icrl.ErrOutOfRange, k, st.State, len(p.learners))
		}
	}
	pol, ok := p.learners[state].(HistoryPolicy)
	if !ok {
		return nil, fmt.Errorf("%w: PerState learner %T of state %d is not a HistoryPolicy and cannot replay a history", icrl.ErrInvalid, p.learners[state], state)
	}
	var sub []Step
	for _, st := range history {
		if st.State == state {
			sub = append(sub, Step{Action: st.Action, Reward: st.Reward})
		}
	}
	if dst != nil && len(dst) != p.actions {
		panic(fmt.Sprintf("learner: PerState distribution destination has length %d, want %d", len(dst), p.actions))
	}
	return pol.Distribution(dst, sub, 0)
}

// checkStates validates the current and next states of an observation.
func checkStates(s, next, states int) error {
	if s < 0 || s >= states {
		return fmt.Errorf("%w: state %d is not in [0, %d)", icrl.ErrOutOfRange, s, states)
	}
	if next < 0 || next >= states {
		return fmt.Errorf("%w: next state %d is not in [0, %d)", icrl.ErrOutOfRange, next, states)
	}
	return nil
}
