package incontext

import (
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
)

// A Writer receives the positions of a sequence as an [Encoder] produces
// them: a token or a feature vector per position. The dataset builder writes
// them into training examples, the in-context learners into a
// transformer.Decoder. A Writer copies what it needs: the encoder may reuse
// the feature slice after the call.
type Writer interface {
	// Token appends a token position.
	Token(t int)
	// Scratch returns a zeroed vector of length n for the encoder to fill
	// and pass to Features, valid until that call; it saves an allocation
	// per position.
	Scratch(n int) []float64
	// Features appends a feature-vector position.
	Features(x []float64)
}

// An Encoder turns one player's rounds into the positions of a sequence, for
// one setting: [GameEncoder] for game histories (in-context-games-omd
// §3.2, Eq. (2)), [BanditEncoder] for linear bandits with action sets
// (nonstationary-transformers-master §2.2). The observation type O is what
// the player sees before acting: the state (int) in a game, the action set
// ([][]float64) in a bandit.
//
// A sequence is Prefix, then per round Observe and Outcome, then the
// Observe of the round whose action is to be predicted. The model's output
// at the last position written after an Observe predicts the action of that
// round (Observe may write nothing, as in a matrix game, where the previous
// round's outcome or the prefix holds the prediction).
//
// Encoders are values, safe for concurrent use.
type Encoder[O any] interface {
	// Shape returns the model inputs and outputs the encoder needs: the
	// vocabulary (0 if it writes feature vectors), the feature width (0 if
	// it writes tokens) and the number of actions (the model's outputs).
	Shape() (vocab, width, actions int)
	// Positions returns the length of a sequence of rounds complete
	// rounds followed by the next round's observation.
	Positions(rounds int) int
	// Prefix writes the start of every sequence (possibly nothing).
	Prefix(w Writer)
	// Observe writes what the player sees before acting. It returns an
	// error, writing nothing, if o is invalid for the encoder.
	Observe(w Writer, o O) error
	// Outcome writes what the player observed of round r after acting
	// (r.Obs is the observation Observe wrote): its own action and reward,
	// and the opponent's action for an encoder of the joint-action
	// setting. It returns an error, writing nothing, if a field it reads
	// is invalid.
	Outcome(w Writer, r Round[O]) error
}

// Round is one round as one player saw it: the observation before acting,
// its own action and its own reward, and in a two-player game the
// opponent's action, which only the joint-action (centralized) encoders
// read.
type Round[O any] struct {
	// Obs is the observation (a state, an action set).
	Obs O
	// Action is the player's own action.
	Action int
	// Opponent is the opponent's action in a two-player game ([Collect]
	// records it); the decentralized encoders ignore it, and it is 0
	// where there is no opponent (bandits).
	Opponent int
	// Reward is the player's own reward.
	Reward float64
}

// RoundsOf returns a player's own history (a learner.OMD history, a
// recorded self-play's steps of one player) as the rounds of a game
// encoder: state, own action and reward; Opponent is 0 (a decentralized
// history holds no opponent's action).
func RoundsOf(history []learner.Step) []Round[int] {
	rs := make([]Round[int], len(history))
	for i, st := range history {
		rs[i] = Round[int]{Obs: st.State, Action: st.Action, Reward: st.Reward}
	}
	return rs
}

// Trajectory is one player's rounds with an expert's label of each: the
// augmented trajectory D̄_T of in-context-games-omd §1.5, the unit of a
// pretraining dataset. Labels[t] is the expert's distribution over the
// player's actions at round t+1 (0-based t), given the rounds before it and
// its observation.
type Trajectory[O any] struct {
	// Rounds are the player's rounds, in order.
	Rounds []Round[O]
	// Labels[t] is the expert's distribution over actions at round t+1.
	Labels [][]float64
}

// check returns an error if the trajectory's labels do not match its
// rounds or are not distributions over actions actions.
func (tr *Trajectory[O]) check(actions int) error {
	if len(tr.Rounds) == 0 {
		return fmt.Errorf("%w: no rounds", ErrInput)
	}
	if len(tr.Labels) != len(tr.Rounds) {
		return fmt.Errorf("%w: %d rounds but %d labels", ErrInput, len(tr.Rounds), len(tr.Labels))
	}
	for t, l := range tr.Labels {
		if err := simplex.CheckDistribution(fmt.Sprintf("label of round %d", t+1), l, actions); err != nil {
			return err
		}
	}
	return nil
}

// sequence is a Writer that records positions in memory, as tokens or
// float32/float64 feature rows.
type sequence struct {
	width  int
	tokens []int
	feats  []float64
	n      int
	buf    []float64
}

func (s *sequence) Token(t int) { s.tokens = append(s.tokens, t); s.n++ }

func (s *sequence) Scratch(n int) []float64 {
	if cap(s.buf) < n {
		s.buf = make([]float64, n)
	}
	s.buf = s.buf[:n]
	clear(s.buf)
	return s.buf
}

func (s *sequence) Features(x []float64) {
	s.feats = append(s.feats, x...)
	s.n++
}

// encode writes the prefix, the rounds (observation and outcome) and the
// observation of next to a fresh sequence, and returns it with the
// position of each round's prediction (len(rounds)+1 of them: the last is
// next's).
func encode[O any](enc Encoder[O], rounds []Round[O], next O) (*sequence, []int, error) {
	if err := validate(enc); err != nil {
		return nil, nil, err
	}
	_, width, _ := enc.Shape()
	s := &sequence{width: width}
	predict := make([]int, 0, len(rounds)+1)
	enc.Prefix(s)
	for t, r := range rounds {
		if err := enc.Observe(s, r.Obs); err != nil {
			return nil, nil, fmt.Errorf("round %d: %w", t+1, err)
		}
		predict = append(predict, s.n-1)
		if err := enc.Outcome(s, r); err != nil {
			return nil, nil, fmt.Errorf("round %d: %w", t+1, err)
		}
	}
	if err := enc.Observe(s, next); err != nil {
		return nil, nil, fmt.Errorf("round %d: %w", len(rounds)+1, err)
	}
	predict = append(predict, s.n-1)
	if predict[0] < 0 {
		return nil, nil, fmt.Errorf("%w: the encoder writes no position before the first prediction", icrl.ErrInvalid)
	}
	return s, predict, nil
}

// Encode returns the sequence of the given rounds followed by the
// observation next, as tokens (features nil) or as feature vectors of the
// encoder's width, row after row (tokens nil), and the position whose
// output predicts each round's action (len(rounds)+1 of them; the last is
// the next round's). It returns an error naming the round if an
// observation, action or reward is invalid for the encoder.
func Encode[O any](enc Encoder[O], rounds []Round[O], next O) (tokens []int, features []float64, predict []int, err error) {
	s, predict, err := encode(enc, rounds, next)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("incontext: Encode: %w", err)
	}
	return s.tokens, s.feats, predict, nil
}

// A ValidatingEncoder is an [Encoder] that can check its own settings
// (the encoders of this package are); Encode, Examples and Pretrain call
// Validate before they use it.
type ValidatingEncoder[O any] interface {
	Encoder[O]
	// Validate returns an error naming the first bad setting.
	Validate() error
}

// validate calls enc's Validate method if it is a ValidatingEncoder.
func validate[O any](enc Encoder[O]) error {
	if v, ok := enc.(ValidatingEncoder[O]); ok {
		return v.Validate()
	}
	return nil
}
