package learner

import (
	"errors"
	"fmt"
	"math"

	"github.com/icrl-go/icrl/game"
)

// Decoder is what the in-context learner needs from a sequence model: an
// incremental, causal decoder with a rewindable cache that returns, for
// each appended position, one logit per action. *transformer.Session[F]
// satisfies it.
//
// The logits an Append returns may be reused by the decoder at the next
// call; [InContext] copies them at once.
type Decoder[F float32 | float64] interface {
	// AppendToken feeds one token id and returns the logits at its
	// position.
	AppendToken(token int) ([]F, error)
	// AppendFeatures feeds one feature vector and returns the logits at
	// its position.
	AppendFeatures(x []F) ([]F, error)
	// Len returns the number of positions fed so far.
	Len() int
	// Truncate keeps the first n positions and forgets the rest, so that
	// later outputs are those of a decoder that never saw them.
	Truncate(n int) error
	// Reset forgets every position.
	Reset()
}

// InContextFloor is the smallest probability an [InContext] policy assigns
// to an action: the softmax of the logits is floored at InContextFloor and
// renormalised, so that the policy stays strictly inside the simplex (and
// its logarithm finite) even when the logits differ by more than ~700. For
// logits that differ by less than ln(1/InContextFloor) ≈ 27.6 the floor does
// not bind and the policy is the exact softmax.
const InContextFloor = 1e-12

// InContext turns a trained sequence model into a [MarkovLearner] (and,
// through [SingleState], a matrix-game [Learner]): it makes no parameter
// updates, and its policy comes from the context alone, the in-context
// algorithm
//
//	Alg_θ(·|D_{t−1}, s_t) = softmax(A_x·TF_θ(h(D_{t−1}, s_t)))
//
// of in-context-games-omd §3.3, with the embedding h(D_{t−1}) of §3.2,
// Eq. (2), laid out as [Encoding] documents (spec resolution A9: BOS,
// (s_1), a_1, rb_1, …, (s_t), read at the last position). The decoder's
// read-out plays the role of A_x: it must give one logit per action.
//
// The context lives in the decoder's key–value cache: Observe appends the
// round's positions, and Policy(s) of a Markov game appends the query state
// token of s, reads the logits and truncates it away again before another
// state is asked, so asking several states never changes the context. The
// policy of the current round is cached per queried state until the next
// Observe or Reset, so repeated Policy calls are free.
//
// Capacity: round t costs [Encoding.PerRound] positions (tokens: 2 in a
// matrix game, 3 in a Markov game; features: 1 and 2), and predicting round
// T+1 needs [Encoding.Positions](T) = 1 + PerRound·T (+1 for the query state
// of a Markov game) positions. When the next round would not fit (for a
// transformer.Session, the model's MaxLen with learned positions),
// Observe returns an error and leaves the learner unchanged; a Markov
// learner checks this by appending the next state's token, whose policy it
// keeps.
//
// An InContext owns its decoder: nothing else may use it meanwhile. It is
// not safe for concurrent use.
type InContext[F float32 | float64] struct {
	dec    Decoder[F]
	enc    Encoding
	markov bool

	committed int // decoder positions of the context: BOS and the rounds
	pending   int // the state whose token follows the context in the decoder, or −1
	rounds    int

	policy [][]float64 // per state: the current round's policy, if valid
	valid  []bool
	feat   []F       // one feature vector
	logits []float64 // the last logits, in float64
}

// NewInContext returns an in-context learner that plays with the model
// behind dec, encoding its history with enc. It resets dec and appends BOS.
//
// In a Markov game it also appends the query token of state 0 (computing
// Policy(0)), which checks that the first round's query fits.
//
// It returns an error if dec is nil, enc is invalid, or the decoder does
// not match the encoding: it rejects BOS (a token model given a feature
// encoding or the other way round, or a feature width other than
// enc.Width()), it rejects the largest token id enc.Vocab()−1 (a
// vocabulary too small), its logits do not have enc.Actions entries, or
// they are not finite. A vocabulary larger than enc.Vocab() cannot be
// detected.
func NewInContext[F float32 | float64](dec Decoder[F], enc Encoding) (*InContext[F], error) {
	if dec == nil {
		return nil, errors.New("learner: NewInContext needs a decoder, got nil")
	}
	if err := enc.Validate(); err != nil {
		return nil, err
	}
	enc.RewardBins = enc.Bins()
	c := &InContext[F]{
		dec:     dec,
		enc:     enc,
		markov:  enc.States > 1,
		pending: -1,
		policy:  make([][]float64, enc.States),
		valid:   make([]bool, enc.States),
		logits:  make([]float64, enc.Actions),
	}
	for s := range c.policy {
		c.policy[s] = make([]float64, enc.Actions)
	}
	if enc.Features {
		c.feat = make([]F, enc.Width())
	}
	dec.Reset()
	if !enc.Features {
		// Probe the vocabulary with its largest id, then rewind.
		if _, err := c.append(enc.Vocab() - 1); err != nil {
			return nil, fmt.Errorf("learner: NewInContext: the decoder does not accept the encoding's vocabulary of %d tokens: %w", enc.Vocab(), err)
		}
		dec.Reset()
	}
	if err := c.appendBOS(); err != nil {
		dec.Reset()
		return nil, fmt.Errorf("learner: NewInContext: %w", err)
	}
	return c, nil
}

// Encoding returns the learner's encoding, with RewardBins resolved.
func (c *InContext[F]) Encoding() Encoding { return c.enc }

// Rounds returns the number of rounds observed since the start or the last
// Reset.
func (c *InContext[F]) Rounds() int { return c.rounds }

// States returns the number of states.
func (c *InContext[F]) States() int { return c.enc.States }

// Actions returns the number of actions.
func (c *InContext[F]) Actions() int { return c.enc.Actions }

// Len returns the number of positions of the context: BOS and PerRound per
// observed round (not counting a transient query state).
func (c *InContext[F]) Len() int { return c.committed }

// appendBOS appends BOS to an empty decoder and sets the policy of the
// first round: in a matrix game from the logits of BOS, in a Markov game
// from those of the query token of state 0, which it leaves pending.
func (c *InContext[F]) appendBOS() error {
	var (
		out []F
		err error
	)
	if c.enc.Features {
		putBOS(c.feat)
		out, err = c.dec.AppendFeatures(c.feat)
	} else {
		out, err = c.dec.AppendToken(BOSToken)
	}
	if err != nil {
		return fmt.Errorf("the decoder rejects BOS: %w", err)
	}
	if err := c.read(out); err != nil {
		return err
	}
	c.committed, c.pending, c.rounds = 1, -1, 0
	clear(c.valid)
	if !c.markov {
		c.setPolicy(0)
		return nil
	}
	// Query state 0, which checks that the first round's query fits.
	if err := c.appendState(0); err != nil {
		return err
	}
	c.pending = 0
	c.setPolicy(0)
	return nil
}

// append feeds one token (token mode) or c.feat (feature mode, tok
// ignored).
func (c *InContext[F]) append(tok int) ([]F, error) {
	if c.enc.Features {
		return c.dec.AppendFeatures(c.feat)
	}
	return c.dec.AppendToken(tok)
}

// appendState feeds the state token of s and reads its logits.
func (c *InContext[F]) appendState(s int) error {
	if c.enc.Features {
		putStateF(c.feat, s)
	}
	out, err := c.append(c.enc.StateToken(s))
	if err != nil {
		return fmt.Errorf("state %d: %w", s, err)
	}
	return c.read(out)
}

// read copies the logits to c.logits, checking their number and
// finiteness.
func (c *InContext[F]) read(out []F) error {
	if len(out) != c.enc.Actions {
		return fmt.Errorf("the decoder gives %d logits, the encoding has %d actions", len(out), c.enc.Actions)
	}
	for i, v := range out {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("logit %d of the decoder is %v", i, f)
		}
		c.logits[i] = f
	}
	return nil
}

// setPolicy stores softmax(c.logits), floored at InContextFloor, as the
// policy of state s.
func (c *InContext[F]) setPolicy(s int) {
	p := game.Softmax(c.policy[s], c.logits)
	floor := false
	for _, v := range p {
		if v < InContextFloor {
			floor = true
			break
		}
	}
	if floor {
		var sum float64
		for i, v := range p {
			p[i] = max(v, InContextFloor)
			sum += p[i]
		}
		for i := range p {
			p[i] /= sum
		}
	}
	c.valid[s] = true
}

// rewind truncates the decoder back to the committed context.
func (c *InContext[F]) rewind() error {
	c.pending = -1
	if c.dec.Len() == c.committed {
		return nil
	}
	return c.dec.Truncate(c.committed)
}

// Policy returns the model's distribution over actions at the current round
// in state s: the softmax (floored at [InContextFloor]) of the logits at the
// prediction position of Encode(history, s). In a Markov game the first
// call for s in a round appends the query token of s to the cached context
// (truncating the token of an earlier query first) and reads its logits;
// later calls in the same round return the cached policy. In a matrix game
// (States = 1) the policy was computed by the last Observe.
//
// The slice belongs to the learner and is valid until the next Observe or
// Reset. Policy panics if s is out of range, or if the decoder fails or
// returns non-finite logits for the query state, which NewInContext and
// Observe rule out for the capacity and the vocabulary of a
// transformer.Session; only a model whose weights produce NaN or infinite
// logits can make it panic.
func (c *InContext[F]) Policy(s int) []float64 {
	if s < 0 || s >= c.enc.States {
		panic(fmt.Sprintf("learner: InContext.Policy state %d out of range [0, %d)", s, c.enc.States))
	}
	if c.valid[s] {
		return c.policy[s]
	}
	// Only a Markov game can get here: a matrix game's policy is always
	// valid.
	err := c.rewind()
	if err == nil {
		err = c.appendState(s)
	}
	if err != nil {
		c.rewind()
		panic(fmt.Sprintf("learner: InContext.Policy(%d): %v", s, err))
	}
	c.pending = s
	c.setPolicy(s)
	return c.policy[s]
}

// Observe appends one round to the context: in a Markov game the state
// token of s (unless it is already there, as after Policy(s)), then the
// action and its reward (two tokens, or one action–reward vector in feature
// mode). In a Markov game it then appends the query token of next and
// caches Policy(next), which also checks that the next round's query fits.
// The cost is PerRound (+1 in a Markov game) decoder appends.
//
// It returns an error, leaving the learner unchanged, if s or next is out
// of range, the action is out of range, the reward is NaN, infinite or
// outside [0,1], or the decoder fails (typically because the context is
// full: see the capacity on [InContext]) or returns non-finite logits. In a
// matrix game s and next must be 0.
func (c *InContext[F]) Observe(s, action int, reward float64, next int) error {
	if err := checkStates(s, next, c.enc.States); err != nil {
		return err
	}
	if action < 0 || action >= c.enc.Actions {
		return fmt.Errorf("learner: InContext action %d out of range [0, %d)", action, c.enc.Actions)
	}
	if err := checkUnitReward(reward); err != nil {
		return fmt.Errorf("learner: InContext action %d: %w", action, err)
	}
	if err := c.observe(s, action, reward, next); err != nil {
		if rerr := c.rewind(); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return fmt.Errorf("learner: InContext round %d: %w", c.rounds+1, err)
	}
	return nil
}

// observe does the appends of Observe; on error the caller rewinds.
func (c *InContext[F]) observe(s, action int, reward float64, next int) error {
	if c.markov && c.pending != s {
		if err := c.rewind(); err != nil {
			return err
		}
		if err := c.appendState(s); err != nil {
			return err
		}
		c.pending = s
	}
	var (
		out []F
		err error
	)
	if c.enc.Features {
		putActionF(c.enc, c.feat, action, reward)
		out, err = c.dec.AppendFeatures(c.feat)
		if err != nil {
			return fmt.Errorf("action %d with reward %v: %w", action, reward, err)
		}
	} else {
		if _, err = c.dec.AppendToken(c.enc.ActionToken(action)); err != nil {
			return fmt.Errorf("action %d: %w", action, err)
		}
		if out, err = c.dec.AppendToken(c.enc.RewardToken(reward)); err != nil {
			return fmt.Errorf("reward %v: %w", reward, err)
		}
	}
	if err := c.read(out); err != nil {
		return err
	}
	if c.markov {
		round := c.dec.Len()
		if err := c.appendState(next); err != nil {
			return fmt.Errorf("next %w", err)
		}
		clear(c.valid)
		c.committed, c.pending = round, next
		c.setPolicy(next)
	} else {
		c.committed = c.dec.Len()
		c.setPolicy(0)
	}
	c.rounds++
	return nil
}

// StationaryPolicy returns a copy of Policy(s) for every state s: the
// policy the model would play at the current round in each state. In a
// Markov game it costs one decoder append per state not queried yet this
// round. It panics where Policy does.
func (c *InContext[F]) StationaryPolicy() [][]float64 {
	out := make([][]float64, c.enc.States)
	for s := range out {
		out[s] = append([]float64(nil), c.Policy(s)...)
	}
	return out
}

// Reset empties the context (resets the decoder and appends BOS) and
// returns the learner to round 1. It panics if the decoder rejects BOS,
// which NewInContext ruled out.
func (c *InContext[F]) Reset() {
	c.dec.Reset()
	if err := c.appendBOS(); err != nil {
		panic(fmt.Sprintf("learner: InContext.Reset: %v", err))
	}
}

// SingleState adapts a MarkovLearner to the matrix-game [Learner]
// interface by playing its state 0 only: Policy() is m.Policy(0),
// Observe(a, r) is m.Observe(0, a, r, 0) and Reset is m.Reset. It is meant
// for learners with one state (an [InContext] with States = 1, a
// [MarkovOMD] with one state), so that they plug into [SelfPlay] next to
// [OMD] and [Exp3IX]. It panics if m is nil.
func SingleState(m MarkovLearner) Learner {
	if m == nil {
		panic("learner: SingleState of a nil MarkovLearner")
	}
	return singleState{m}
}

// singleState is the Learner of SingleState.
type singleState struct{ m MarkovLearner }

// Policy returns the policy of state 0.
func (l singleState) Policy() []float64 { return l.m.Policy(0) }

// Observe feeds the round to state 0, with next state 0.
func (l singleState) Observe(action int, reward float64) error {
	return l.m.Observe(0, action, reward, 0)
}

// Reset resets the Markov learner.
func (l singleState) Reset() { l.m.Reset() }
