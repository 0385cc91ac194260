package incontext

import (
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer"
)

// Learner plays one side of a game in context: a learner.Learner whose
// policy is a pretrained sequence model's output on the player's own history
// so far, with no parameter update (in-context-games-omd §3.2, the induced
// algorithm Alg_Θ). Any [transformer.Transformer] plays, through a
// [GameEncoder] (or any Encoder of states).
//
// At round t in state s_t the decoder holds the prefix, the earlier rounds
// and the state; the policy is the softmax of the logits at the last
// position (floored at [Floor]). When the next round would not fit in the
// model's capacity, the older half of the rounds is dropped and the rest
// re-encoded (a sliding context), so a model plays any number of rounds.
// Policy for another state than the last observed one re-reads that
// state's position (one decoder step); each round costs one decoder step
// per position it adds (2–3), plus, once per half window, the re-encoding
// of the kept rounds.
//
// A Learner is not safe for concurrent use; make one per goroutine (their
// model may be shared if its NewDecoder is safe for concurrent use).
type Learner[F tensor.Float] struct {
	s         *session[F, int]
	states    int
	actions   int
	opponents int         // the joint encoder's opponent actions; 0 decentralized
	joint     bool        // the encoder reads the opponent's action
	policy    [][]float64 // per state: the current round's policy, if valid
	valid     []bool
	cur       int // the state observed last, or −1
	rounds    int
}

// Compile-time check: an in-context learner is a learner.Learner, and can
// take the joint action for its encoder's number of opponent actions.
var _ learner.JointLearner = (*Learner[float32])(nil)

// NewLearner returns an in-context learner for a game with states states
// (enc.States when enc is a GameEncoder) over the model. It returns an
// error if the model is nil, the encoder is invalid, the temperature is
// invalid, the model does not read the encoder's tokens or holds fewer
// positions than one round, or the prefix cannot be written.
func NewLearner[F tensor.Float](model transformer.Transformer[F], enc GameEncoder, cfg Config) (*Learner[F], error) {
	if err := enc.Validate(); err != nil {
		return nil, err
	}
	s, err := newSession[F, int](model, enc, cfg)
	if err != nil {
		return nil, err
	}
	l := &Learner[F]{s: s, states: enc.States, actions: enc.Actions, opponents: enc.Opponents, joint: enc.Joint(), cur: -1,
		policy: make([][]float64, enc.States), valid: make([]bool, enc.States)}
	for i := range l.policy {
		l.policy[i] = make([]float64, enc.Actions)
	}
	return l, nil
}

// States returns the number of states.
func (l *Learner[F]) States() int { return l.states }

// Actions returns the number of actions.
func (l *Learner[F]) Actions() int { return l.actions }

// Opponents returns the joint-action encoder's number of opponent actions,
// or 0 for a decentralized encoder (learner.JointLearner: the rollout
// engine checks it against the game's).
func (l *Learner[F]) Opponents() int { return l.opponents }

// Rounds returns the number of rounds observed since the last Reset.
func (l *Learner[F]) Rounds() int { return l.rounds }

// Context returns the number of rounds currently in the decoder (fewer than
// Rounds once the window has slid).
// A zero Learner has none.
func (l *Learner[F]) Context() int {
	if l.s == nil {
		return 0
	}
	return len(l.s.hist)
}

// Policy returns the model's policy in state s after the rounds observed so
// far. The slice belongs to the learner and is valid until the next call to
// Observe or Reset. It panics if s is out of range or the model fails (a
// non-finite logit, a decoder error).
func (l *Learner[F]) Policy(s int) []float64 {
	if s < 0 || s >= l.states {
		panic(fmt.Sprintf("incontext: Learner.Policy state %d out of range [0, %d)", s, l.states))
	}
	if l.valid[s] {
		return l.policy[s]
	}
	logits, err := l.s.observe(s)
	if err != nil {
		panic(fmt.Sprintf("incontext: Learner.Policy(%d): %v", s, err))
	}
	l.cur = s
	l.s.policy(l.policy[s], logits)
	l.valid[s] = true
	return l.policy[s]
}

// Observe appends the round (state s, own action and reward) to the
// context: the decentralized setting. It returns an error, leaving the
// context unchanged, if a state or the action is out of range, the reward
// is not in [0,1] (the encoder's range), the model fails, or the encoder is
// the joint-action one (which needs ObserveJoint: play it under
// learner.JointActions observation).
func (l *Learner[F]) Observe(s, action int, reward float64, next int) error {
	if l.joint {
		return fmt.Errorf("%w: Learner.Observe: the joint-action encoder needs the opponent's action (play under learner.JointActions, which calls ObserveJoint)", icrl.ErrInvalid)
	}
	return l.observe(Round[int]{Obs: s, Action: action, Reward: reward}, next)
}

// ObserveJoint appends the round (state s, own action, the opponent's
// action and own reward) to the context: the joint-action setting
// (learner.JointLearner). A decentralized encoder ignores the opponent's
// action. It returns an error, leaving the context unchanged, as Observe
// does, or if the opponent's action is out of the joint encoder's range.
func (l *Learner[F]) ObserveJoint(s, action, opponent int, reward float64, next int) error {
	return l.observe(Round[int]{Obs: s, Action: action, Opponent: opponent, Reward: reward}, next)
}

// observe appends the round r, followed by state next, to the context.
func (l *Learner[F]) observe(r Round[int], next int) error {
	s := r.Obs
	if l.s == nil {
		return fmt.Errorf("%w: Learner.Observe on a zero Learner (build one with NewLearner)", icrl.ErrNil)
	}
	if s < 0 || s >= l.states || next < 0 || next >= l.states {
		return fmt.Errorf("%w: Learner.Observe state %d or next state %d out of range [0, %d)", ErrInput, s, next, l.states)
	}
	if l.cur != s {
		if _, err := l.s.observe(s); err != nil {
			return fmt.Errorf("incontext: Learner round %d: %w", l.rounds+1, err)
		}
		l.cur = s
	}
	if err := l.s.outcome(r); err != nil {
		l.cur = -1 // the observation was rewound with the outcome
		return fmt.Errorf("incontext: Learner round %d: %w", l.rounds+1, err)
	}
	clear(l.valid)
	l.cur = -1
	l.rounds++
	return nil
}

// Reset empties the context; on a zero Learner it does nothing. It panics
// if the model fails on the prefix.
func (l *Learner[F]) Reset() {
	if l.s == nil {
		return
	}
	if err := l.s.reset(); err != nil {
		panic(fmt.Sprintf("incontext: Learner.Reset: %v", err))
	}
	clear(l.valid)
	l.cur = -1
	l.rounds = 0
}
