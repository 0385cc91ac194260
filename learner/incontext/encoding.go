package learner

import (
	"fmt"
	"math"
)

// DefaultRewardBins is the number of reward bins an [Encoding] uses when
// RewardBins is 0 (spec in-context-games-omd A9: K = 10 equal-width bins on
// [0,1]).
const DefaultRewardBins = 10

// Encoding turns one player's history into the input of a sequence model:
// the embedding h(D_{x,t−1}) of in-context-games-omd §3.2, Eq. (2), in the
// layout of spec resolution A9. The zero value is not usable: States and
// Actions must be positive.
//
// # Token layout (Features false)
//
// A history of T rounds followed by the query state s_{T+1} is the sequence
//
//	BOS, [s_1], a_1, rb_1, [s_2], a_2, rb_2, …, [s_T], a_T, rb_T, [s_{T+1}]
//
// where the bracketed state tokens appear only in Markov games (States > 1)
// and rb_t is the bin of the reward r_t. With S' = S if S > 1 and 0
// otherwise, the token ids are
//
//	BOS        0
//	state s    1 + s                    (s < S', Markov games only)
//	action a   1 + S' + a               (a < A)
//	bin b      1 + S' + A + b           (b < K)
//
// so Vocab = 1 + S' + A + K. A reward r ∈ [0,1] goes to bin
// min(⌊r·K⌋, K−1): K equal-width bins, the last one closed.
//
// # Feature layout (Features true)
//
// The feature read-in (the theory's continuous embedding h(a, o) of §3.3)
// uses the same positions as the tokens, each a vector of Width = S' + A + 2
// values:
//
//	index 0                 BOS flag: 1 at BOS, 0 elsewhere
//	indices 1 … S'          one-hot of the state (state positions only)
//	indices S'+1 … S'+A     one-hot of the action (action–reward positions only)
//	index S'+A+1            the reward r ∈ [0,1] itself (action–reward positions only)
//
// so BOS = [1, 0, …, 0], a state s = e_{1+s} and an action–reward pair
// (a, r) = e_{1+S'+a} + r·e_{S'+A+1}. The action and its reward share one
// position, h(a, o) in the paper's notation, where the token layout spends
// two. Exactly one indicator coordinate is 1 at every position, so a
// constant (bias) coordinate is available to a linear read-in without a
// dedicated entry.
//
// # Where the prediction is read
//
// The model's output at the last position predicts the next action (A8, A9):
// the query state s_{t} in a Markov game, otherwise the last reward (token
// rb_{t−1} or the action–reward vector of round t−1), or BOS when t = 1.
// Per round the token layout spends [Encoding.PerRound] positions: 2 in a
// matrix game and 3 in a Markov game (the feature layout: 1 and 2).
//
// An Encoding is a value; it is safe for concurrent use.
type Encoding struct {
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
}

// Validate returns an error naming the first invalid field of e.
func (e Encoding) Validate() error {
	switch {
	case e.States < 1:
		return fmt.Errorf("learner: encoding States = %d must be at least 1", e.States)
	case e.Actions < 1:
		return fmt.Errorf("learner: encoding Actions = %d must be at least 1", e.Actions)
	case e.RewardBins < 0:
		return fmt.Errorf("learner: encoding RewardBins = %d must not be negative (0 means %d)", e.RewardBins, DefaultRewardBins)
	}
	return nil
}

// markov reports whether sequences carry state tokens.
func (e Encoding) markov() bool { return e.States > 1 }

// stateSlots returns S': S in a Markov game, 0 in a matrix game.
func (e Encoding) stateSlots() int {
	if e.markov() {
		return e.States
	}
	return 0
}

// Bins returns the number of reward bins K, with the default applied.
func (e Encoding) Bins() int {
	if e.RewardBins == 0 {
		return DefaultRewardBins
	}
	return e.RewardBins
}

// Vocab returns the size of the token vocabulary, 1 + S' + A + K with
// S' = S if S > 1 and 0 otherwise; 0 in feature mode.
func (e Encoding) Vocab() int {
	if e.Features {
		return 0
	}
	return 1 + e.stateSlots() + e.Actions + e.Bins()
}

// Width returns the width S' + A + 2 of the feature vectors in feature
// mode (see the layout on [Encoding]); 0 in token mode.
func (e Encoding) Width() int {
	if !e.Features {
		return 0
	}
	return e.stateSlots() + e.Actions + 2
}

// PerRound returns the number of positions one round adds: in token mode 2
// (action, reward) plus 1 for the state token of a Markov game; in feature
// mode 1 (the action–reward vector) plus 1 for the state.
func (e Encoding) PerRound() int {
	n := 2
	if e.Features {
		n = 1
	}
	if e.markov() {
		n++
	}
	return n
}

// Positions returns the length of the sequence Encode builds for a history
// of the given number of rounds and a query: 1 (BOS) + PerRound·rounds, plus
// 1 for the query state of a Markov game. A model with learned positions
// needs MaxLen ≥ Positions(T) to predict the action of round T+1.
func (e Encoding) Positions(rounds int) int {
	n := 1 + e.PerRound()*rounds
	if e.markov() {
		n++
	}
	return n
}

// MaxRounds returns the largest number of rounds T whose history and query
// fit in maxLen positions (Positions(T) ≤ maxLen), or −1 if not even the
// empty history fits.
func (e Encoding) MaxRounds(maxLen int) int {
	fixed := e.Positions(0)
	if maxLen < fixed {
		return -1
	}
	return (maxLen - fixed) / e.PerRound()
}

// Bin returns the reward bin min(⌊r·K⌋, K−1) of a reward r ∈ [0,1]. Rewards
// outside [0,1] are clamped to the first or last bin; NaN goes to bin 0 (use
// Encode or the learners, which reject both).
func (e Encoding) Bin(r float64) int {
	k := e.Bins()
	if !(r > 0) {
		return 0
	}
	if r >= 1 {
		return k - 1
	}
	return min(int(math.Floor(r*float64(k))), k-1)
}

// BOSToken is the id of the beginning-of-sequence token of every token
// [Encoding].
const BOSToken = 0

// StateToken returns the id 1 + s of the token of state s. It is meaningful
// only in a Markov game (States > 1); s is not checked.
func (e Encoding) StateToken(s int) int { return 1 + s }

// ActionToken returns the id 1 + S' + a of the token of action a; a is not
// checked.
func (e Encoding) ActionToken(a int) int { return 1 + e.stateSlots() + a }

// RewardToken returns the id 1 + S' + A + Bin(r) of the token of reward r.
func (e Encoding) RewardToken(r float64) int { return 1 + e.stateSlots() + e.Actions + e.Bin(r) }

// putBOS writes the BOS feature vector into dst (Width values).
func putBOS[F float32 | float64](dst []F) {
	clear(dst)
	dst[0] = 1
}

// putStateF writes the feature vector of state s into dst.
func putStateF[F float32 | float64](dst []F, s int) {
	clear(dst)
	dst[1+s] = 1
}

// putActionF writes the feature vector of the action–reward pair (a, r)
// into dst.
func putActionF[F float32 | float64](e Encoding, dst []F, a int, r float64) {
	clear(dst)
	s := e.stateSlots()
	dst[1+s+a] = 1
	dst[1+s+e.Actions] = F(r)
}

// checkStep validates one round of a history against e. k is the index of
// the step in its history, for the message.
func (e Encoding) checkStep(k int, st Step) error {
	if st.State < 0 || st.State >= e.States {
		return fmt.Errorf("learner: history step %d: state %d out of range [0, %d)", k, st.State, e.States)
	}
	if st.Action < 0 || st.Action >= e.Actions {
		return fmt.Errorf("learner: history step %d: action %d out of range [0, %d)", k, st.Action, e.Actions)
	}
	if err := checkUnitReward(st.Reward); err != nil {
		return fmt.Errorf("learner: history step %d: %w", k, err)
	}
	return nil
}

// checkUnitReward reports an error if r is NaN, infinite or outside [0,1].
func checkUnitReward(r float64) error {
	if !(r >= 0 && r <= 1) {
		return fmt.Errorf("reward %v is not in [0, 1]", r)
	}
	return nil
}

// Encode returns the model input for a player's history of T rounds (its
// own Steps, rewards in [0,1]) followed by the query state s_{T+1} (ignored
// when States == 1), in the layout documented on [Encoding], and the
// prediction positions: len(predict) == T+1 and predict[k] is the position
// whose output predicts the player's action of round k+1 (k = 0, …, T).
//
// In token mode it returns tokens (features nil); in feature mode it returns
// features, Positions(T)×Width values row-major (tokens nil). For the token
// layout predict[k] = 2k in a matrix game (BOS, then the reward tokens) and
// 3k+1 in a Markov game (the state tokens); for the feature layout k and
// 2k+1. The last position is always predict[T].
//
// It returns an error naming the first invalid step (a state or action out
// of range, a reward NaN, infinite or outside [0,1]), an invalid query state
// of a Markov game, or an invalid Encoding. The cost is O(T·Width) in
// feature mode and O(T) in token mode.
func (e Encoding) Encode(history []Step, query int) (tokens []int, features []float64, predict []int, err error) {
	if err := e.Validate(); err != nil {
		return nil, nil, nil, err
	}
	for k, st := range history {
		if err := e.checkStep(k, st); err != nil {
			return nil, nil, nil, err
		}
	}
	mk := e.markov()
	if mk && (query < 0 || query >= e.States) {
		return nil, nil, nil, fmt.Errorf("learner: query state %d out of range [0, %d)", query, e.States)
	}
	T := len(history)
	n := e.Positions(T)
	predict = make([]int, 0, T+1)
	if !e.Features {
		tokens = make([]int, 0, n)
		tokens = append(tokens, BOSToken)
		for _, st := range history {
			if mk {
				tokens = append(tokens, e.StateToken(st.State))
			}
			predict = append(predict, len(tokens)-1)
			tokens = append(tokens, e.ActionToken(st.Action), e.RewardToken(st.Reward))
		}
		if mk {
			tokens = append(tokens, e.StateToken(query))
		}
		predict = append(predict, len(tokens)-1)
		return tokens, nil, predict, nil
	}
	w := e.Width()
	features = make([]float64, n*w)
	pos := 0
	row := func() []float64 {
		r := features[pos*w : (pos+1)*w]
		pos++
		return r
	}
	putBOS(row())
	for _, st := range history {
		if mk {
			putStateF(row(), st.State)
		}
		predict = append(predict, pos-1)
		putActionF(e, row(), st.Action, st.Reward)
	}
	if mk {
		putStateF(row(), query)
	}
	predict = append(predict, pos-1)
	return nil, features, predict, nil
}
