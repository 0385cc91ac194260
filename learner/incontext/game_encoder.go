package incontext

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
)

// DefaultRewardBins is the number of reward bins an [GameEncoder] uses when
// RewardBins is 0: K = 10 equal-width bins on [0,1] (in-context-games-omd's
// experiments use a discrete vocabulary without giving it).
const DefaultRewardBins = 10

// GameEncoder turns one player's history into the input of a sequence model:
// the embedding h(D_{x,t−1}) of in-context-games-omd §3.2, Eq. (2), in the
// layout described below (the paper's experiments use a discrete "unified
// vocabulary" without giving it). The zero value is not usable: States and
// Actions must be positive.
//
// With Opponents = 0 (the default) it encodes the decentralized setting of
// the paper: each round, the player's own action and reward. With
// Opponents = B > 0 it is the joint-action encoder of the centralized
// setting (Shi et al. 2024, arXiv 2410.09701), in which the player also
// sees the opponent's action b_t (of B) after each round: the layouts below
// gain the opponent's action, and the in-context [Learner] must then be fed
// joint observations (learner.JointActions). With B = 0 the joint layout
// reduces exactly to the decentralized one.
//
// # Token layout (Features false)
//
// A history of T rounds followed by the query state s_{T+1} is the sequence
//
//	BOS, [s_1], a_1, (b_1), rb_1, …, [s_T], a_T, (b_T), rb_T, [s_{T+1}]
//
// where the bracketed state tokens appear only in Markov games (States > 1),
// the opponent's action tokens (b_t) only in the joint-action layout, and
// rb_t is the bin of the reward r_t. With S' = S if S > 1 and 0 otherwise,
// and B = Opponents, the token ids are
//
//	BOS        0
//	state s    1 + s                    (s < S', Markov games only)
//	action a   1 + S' + a               (a < A)
//	opponent b 1 + S' + A + b           (b < B, joint-action layout only)
//	bin k      1 + S' + A + B + k       (k < K)
//
// so Vocab = 1 + S' + A + B + K. A reward r ∈ [0,1] goes to bin
// min(⌊r·K⌋, K−1): K equal-width bins, the last one closed.
//
// # Feature layout (Features true)
//
// The feature read-in (the theory's continuous embedding h(a, o) of §3.3)
// uses the same positions as the tokens, each a vector of
// Width = S' + A + B + 2 values:
//
//	index 0                    BOS flag: 1 at BOS, 0 elsewhere
//	indices 1 … S'             one-hot of the state (state positions only)
//	indices S'+1 … S'+A        one-hot of the action (outcome positions only)
//	indices S'+A+1 … S'+A+B    one-hot of the opponent's action (joint-action layout, outcome positions only)
//	index S'+A+B+1             the reward r ∈ [0,1] itself (outcome positions only)
//
// so BOS = [1, 0, …, 0], a state s = e_{1+s} and an outcome
// (a, b, r) = e_{1+S'+a} + e_{1+S'+A+b} + r·e_{S'+A+B+1} (no b term in the
// decentralized layout). The outcome of a round takes one position, h(a, o)
// in the paper's notation, where the token layout spends two (three with
// the opponent's action). At every position the indicators of one kind
// (BOS, state or own action) sum to 1, so a constant (bias) coordinate is
// available to a linear read-in without a dedicated entry.
//
// With Cells set (joint-action feature layout only) every outcome position
// also carries its payoff cell: with C = S·A·B cells numbered
// c = (s·A + a)·B + b for the state s of the round, 2C more coordinates
//
//	indices W₀ … W₀+C−1        one-hot of the cell c (outcome positions only)
//	indices W₀+C … W₀+2C−1     the reward r in coordinate c, 0 in the others
//
// where W₀ = S'+A+B+2, so Width = W₀ + 2C. Each cell's count and reward
// sum, from which a player estimates the game, are then linear in the
// inputs: one attention average away, where the plain layout needs a
// product of the action, opponent and reward coordinates first.
//
// # Where the prediction is read
//
// The model's output at the last position predicts the next action (A8, A9):
// the query state s_{t} in a Markov game, otherwise the last reward (token
// rb_{t−1} or the action–reward vector of round t−1), or BOS when t = 1.
// Per round the token layout spends [GameEncoder.PerRound] positions: 2 in a
// matrix game and 3 in a Markov game, one more in the joint-action layout
// (the feature layout: 1 and 2).
//
// A GameEncoder is a value; it is safe for concurrent use.
type GameEncoder struct {
	// States is the number of states S ≥ 1; 1 means a matrix game, whose
	// sequences carry no state tokens.
	States int
	// Actions is the player's own number of actions A ≥ 1.
	Actions int
	// RewardBins is the number of reward bins K of the token layout; 0
	// means DefaultRewardBins (10). It is ignored in feature mode.
	RewardBins int
	// Features selects the feature read-in (the theory's continuous
	// embedding h(a, o)) instead of a token vocabulary.
	Features bool
	// Opponents is the opponent's number of actions B in the joint-action
	// layout; 0 (the default) means the decentralized layout, which does
	// not encode the opponent's action.
	Opponents int
	// Cells adds the payoff cell (state, own action, opponent's action) of
	// every outcome and the reward in that cell to the feature layout (see
	// the type's documentation). It needs Features and Opponents > 0.
	Cells bool
}

// Compile-time check: the game encoder is an Encoder of states.
var _ ValidatingEncoder[int] = GameEncoder{}

// Validate returns an error naming the first invalid field of e: one out
// of its domain ([icrl.ErrInvalid]) or, checked without overflow, a size past
// [MaxEncoderSize] ([icrl.ErrTooLarge]).
func (e GameEncoder) Validate() error {
	for _, f := range [...]struct {
		name string
		v    int
	}{{"States", e.States}, {"Actions", e.Actions}} {
		if f.v < 1 {
			return fmt.Errorf("%w: GameEncoder %s = %d must be at least 1", icrl.ErrInvalid, f.name, f.v)
		}
	}
	for _, f := range [...]struct {
		name string
		v    int
	}{{"States", e.States}, {"Actions", e.Actions}, {"Opponents", e.Opponents}, {"RewardBins", e.RewardBins}} {
		if f.v > MaxEncoderSize {
			return fmt.Errorf("%w: GameEncoder %s = %d is more than MaxEncoderSize = %d", icrl.ErrTooLarge, f.name, f.v, MaxEncoderSize)
		}
	}
	if e.Cells && e.Features && e.Opponents > 0 {
		if err := num.CheckSize(icrl.ErrTooLarge, MaxEncoderSize/2, "GameEncoder Cells: States × Actions × Opponents", e.States, e.Actions, e.Opponents); err != nil {
			return err
		}
	}
	if e.Opponents < 0 {
		return fmt.Errorf("%w: GameEncoder Opponents = %d must not be negative (0 means the decentralized layout)", icrl.ErrInvalid, e.Opponents)
	}
	if e.Cells && (!e.Features || e.Opponents == 0) {
		return fmt.Errorf("%w: GameEncoder Cells needs the joint-action feature layout (Features = %v, Opponents = %d)", icrl.ErrInvalid, e.Features, e.Opponents)
	}
	if e.RewardBins < 0 {
		return fmt.Errorf("%w: GameEncoder RewardBins = %d must not be negative (0 means %d)", icrl.ErrInvalid, e.RewardBins, DefaultRewardBins)
	}
	return nil
}

// MaxEncoderSize bounds every size of a [GameEncoder] (its States, Actions,
// Opponents, RewardBins and 2·S·A·B payoff cells), so that its vocabulary
// and width are computed without overflow and checked before an encoding
// is allocated.
const MaxEncoderSize = 1 << 24

// markov reports whether sequences carry state positions.
func (e GameEncoder) markov() bool { return e.States > 1 }

// stateSlots is S' of the layout: S in a Markov game, 0 in a matrix game.
func (e GameEncoder) stateSlots() int {
	if e.markov() {
		return e.States
	}
	return 0
}

// Bins returns the number of reward bins K (RewardBins or its default).
func (e GameEncoder) Bins() int {
	if e.RewardBins == 0 {
		return DefaultRewardBins
	}
	return e.RewardBins
}

// Joint reports whether e is the joint-action encoder (Opponents > 0).
func (e GameEncoder) Joint() bool { return e.Opponents > 0 }

// Vocab returns the vocabulary size 1 + S' + A + B + K of the token layout,
// or 0 in feature mode.
func (e GameEncoder) Vocab() int {
	if e.Features {
		return 0
	}
	return 1 + e.stateSlots() + e.Actions + e.Opponents + e.Bins()
}

// Width returns the feature width S' + A + B + 2 of the feature layout
// (plus 2·S·A·B with Cells), or 0 in token mode.
func (e GameEncoder) Width() int {
	if !e.Features {
		return 0
	}
	w := e.stateSlots() + e.Actions + e.Opponents + 2
	if e.Cells {
		w += 2 * e.cells()
	}
	return w
}

// cells returns the number of payoff cells S·A·B of the Cells layout.
func (e GameEncoder) cells() int { return e.States * e.Actions * e.Opponents }

// Shape returns Vocab, Width and Actions.
func (e GameEncoder) Shape() (vocab, width, actions int) { return e.Vocab(), e.Width(), e.Actions }

// PerRound returns the positions one round takes: 2 (action, reward bin) in
// token mode, 3 with the opponent's action, and 1 in feature mode, plus 1
// for the state in a Markov game.
func (e GameEncoder) PerRound() int {
	n := 2
	if e.Joint() {
		n = 3
	}
	if e.Features {
		n = 1
	}
	if e.markov() {
		n++
	}
	return n
}

// Positions returns the length 1 + PerRound·rounds (+1 for the query state
// in a Markov game) of BOS, rounds rounds and the next round's state.
func (e GameEncoder) Positions(rounds int) int {
	n := 1 + e.PerRound()*rounds
	if e.markov() {
		n++
	}
	return n
}

// MaxRounds returns the largest number of complete rounds whose sequence
// (with the query state) fits in maxLen positions, or −1 if not even BOS
// and the query fit.
func (e GameEncoder) MaxRounds(maxLen int) int {
	fixed := e.Positions(0)
	if maxLen < fixed {
		return -1
	}
	return (maxLen - fixed) / e.PerRound()
}

// Bin returns the reward bin min(⌊r·K⌋, K−1) of r, clamping r to [0,1].
func (e GameEncoder) Bin(r float64) int {
	k := e.Bins()
	if !(r > 0) {
		return 0
	}
	if r >= 1 {
		return k - 1
	}
	return min(int(math.Floor(r*float64(k))), k-1)
}

// BOSToken is the token that starts every game sequence.
const BOSToken = 0

// StateToken returns the token of state s (Markov games only).
func (e GameEncoder) StateToken(s int) int { return 1 + s }

// ActionToken returns the token of action a.
func (e GameEncoder) ActionToken(a int) int { return 1 + e.stateSlots() + a }

// OpponentToken returns the token of the opponent's action b (joint-action
// layout only).
func (e GameEncoder) OpponentToken(b int) int { return 1 + e.stateSlots() + e.Actions + b }

// RewardToken returns the token of reward r's bin.
func (e GameEncoder) RewardToken(r float64) int {
	return 1 + e.stateSlots() + e.Actions + e.Opponents + e.Bin(r)
}

// Prefix writes BOS.
func (e GameEncoder) Prefix(w Writer) {
	if !e.Features {
		w.Token(BOSToken)
		return
	}
	x := w.Scratch(e.Width())
	x[0] = 1
	w.Features(x)
}

// Observe writes the state s in a Markov game and nothing in a matrix game.
// It returns an error if s is out of range.
func (e GameEncoder) Observe(w Writer, s int) error {
	if s < 0 || s >= e.States {
		return fmt.Errorf("%w: state %d out of range [0, %d)", ErrInput, s, e.States)
	}
	if !e.markov() {
		return nil
	}
	if !e.Features {
		w.Token(e.StateToken(s))
		return nil
	}
	x := w.Scratch(e.Width())
	x[1+s] = 1
	w.Features(x)
	return nil
}

// Outcome writes the round's own action, the opponent's action in the
// joint-action layout, and the reward (two or three tokens, or one feature
// vector); r.Obs, the state, was written by Observe. It returns an error if
// an action is out of range or the reward is not in [0,1].
func (e GameEncoder) Outcome(w Writer, r Round[int]) error {
	if r.Action < 0 || r.Action >= e.Actions {
		return fmt.Errorf("%w: action %d out of range [0, %d)", ErrInput, r.Action, e.Actions)
	}
	if e.Joint() && (r.Opponent < 0 || r.Opponent >= e.Opponents) {
		return fmt.Errorf("%w: opponent's action %d out of range [0, %d)", ErrInput, r.Opponent, e.Opponents)
	}
	if !(r.Reward >= 0 && r.Reward <= 1) {
		return fmt.Errorf("%w: reward %v is not in [0, 1]", ErrInput, r.Reward)
	}
	if !e.Features {
		w.Token(e.ActionToken(r.Action))
		if e.Joint() {
			w.Token(e.OpponentToken(r.Opponent))
		}
		w.Token(e.RewardToken(r.Reward))
		return nil
	}
	x := w.Scratch(e.Width())
	o := 1 + e.stateSlots()
	x[o+r.Action] = 1
	if e.Joint() {
		x[o+e.Actions+r.Opponent] = 1
	}
	x[o+e.Actions+e.Opponents] = r.Reward
	if e.Cells {
		if r.Obs < 0 || r.Obs >= e.States {
			return fmt.Errorf("%w: state %d out of range [0, %d)", ErrInput, r.Obs, e.States)
		}
		c := (r.Obs*e.Actions+r.Action)*e.Opponents + r.Opponent
		w0 := o + e.Actions + e.Opponents + 1
		x[w0+c] = 1
		x[w0+e.cells()+c] = r.Reward
	}
	w.Features(x)
	return nil
}
