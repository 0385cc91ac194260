package incontext

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/learner/bandit"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer"
)

// Bandit plays a linear bandit in context: a bandit.Learner whose arm
// is drawn from (or, with Greedy, is the mode of) a pretrained model's
// output at the action-set token of the round, after the rounds so far
// (nonstationary-transformers-master §2.2: the transformer as an algorithm,
// read out at the set token). It shares the sliding context of [Learner]:
// when the next round would not fit in the model's capacity, the older half
// of the rounds is dropped.
//
// Its optimistic value (what MALG and MASTER of package nonstationary
// compare) is the mean reward so far, 0 before the first round: a model has
// no confidence bound, so this makes it usable inside those wrappers but
// carries no guarantee.
//
// A Bandit is not safe for concurrent use.
type Bandit[F tensor.Float] struct {
	s      *session[F, [][]float64]
	greedy bool
	probs  []float64
	rounds int
	sum    float64
	actErr error // what Act could not do, for the next Observe to return
}

// Compile-time check: an in-context bandit learner is a bandit.Learner.
var _ bandit.Learner = (*Bandit[float32])(nil)

// NewBandit returns an in-context bandit learner over the model. It returns
// an error if the model is nil, the encoder or the temperature is invalid,
// or the model does not fit the encoder (feature width, outputs, capacity).
func NewBandit[F tensor.Float](model transformer.Transformer[F], enc BanditEncoder, cfg Config) (*Bandit[F], error) {
	if err := enc.Validate(); err != nil {
		return nil, err
	}
	s, err := newSession[F, [][]float64](model, enc, cfg)
	if err != nil {
		return nil, err
	}
	return &Bandit[F]{s: s, greedy: cfg.Greedy, probs: make([]float64, enc.Arms)}, nil
}

// BanditFactory returns a bandit.Factory of [NewBandit] learners on
// one model, for Monte Carlo runs and the wrappers that restart learners.
// It checks the configuration once and returns its error.
func BanditFactory[F tensor.Float](model transformer.Transformer[F], enc BanditEncoder, cfg Config) (bandit.Factory, error) {
	if _, err := NewBandit(model, enc, cfg); err != nil {
		return nil, err
	}
	return func() (bandit.Learner, error) { return NewBandit(model, enc, cfg) }, nil
}

// Policy returns the distribution of the last Act (zero before the first).
// The slice belongs to the learner.
func (b *Bandit[F]) Policy() []float64 { return b.probs }

// Rounds returns the number of rounds observed since the last Reset.
func (b *Bandit[F]) Rounds() int { return b.rounds }

// Context returns the number of rounds in the decoder.
// A zero Bandit has none.
func (b *Bandit[F]) Context() int {
	if b.s == nil {
		return 0
	}
	return len(b.s.hist)
}

// Reset empties the context (a restart); on a zero Bandit it does nothing.
// It panics if the model fails.
func (b *Bandit[F]) Reset() {
	if b.s == nil {
		return
	}
	if err := b.s.reset(); err != nil {
		panic(fmt.Sprintf("incontext: Bandit.Reset: %v", err))
	}
	b.rounds, b.sum, b.actErr = 0, 0, nil
	clear(b.probs)
}

// Act writes the round's action set, reads the policy and returns its arm
// (sampled from rng unless Greedy) and the mean reward so far.
// bandit.Learner's Act has no error: if the action set does not fit
// the encoder, the model fails, or rng is nil when sampling, Act returns
// arm 0, leaves the context as it was, and the next Observe returns the
// error (wrapping [ErrInput]) without observing anything — the same answer
// Observe gives for such a set itself.
func (b *Bandit[F]) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	b.actErr = nil
	if b.s == nil {
		b.actErr = fmt.Errorf("%w: Bandit.Act on a zero Bandit (build one with NewBandit)", icrl.ErrNil)
		return 0, 0
	}
	if !b.greedy && rng == nil {
		b.actErr = fmt.Errorf("%w: Bandit.Act round %d: nil random source", ErrInput, t)
		return 0, 0
	}
	logits, err := b.s.observe(actions)
	if err != nil {
		b.actErr = fmt.Errorf("%w: Bandit.Act round %d: %w", ErrInput, t, err)
		return 0, 0
	}
	b.s.policy(b.probs, logits)
	if b.greedy {
		arm = floats.MaxIdx(logits)
	} else {
		u := rng.Float64()
		arm = len(b.probs) - 1
		c := 0.0
		for k, p := range b.probs {
			c += p
			if u < c {
				arm = k
				break
			}
		}
	}
	if b.rounds > 0 {
		optimistic = b.sum / float64(b.rounds)
	}
	return arm, optimistic
}

// Observe appends the round's action token (the arm played and its reward)
// after the round's action set, writing the set first if Act was not
// called with it. It returns an error, leaving the context unchanged, if
// the set, the arm or the reward does not fit the encoder or the model
// fails.
func (b *Bandit[F]) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if err := b.actErr; err != nil {
		b.actErr = nil
		return err
	}
	if b.s == nil {
		return fmt.Errorf("%w: Bandit.Observe on a zero Bandit (build one with NewBandit)", icrl.ErrNil)
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return fmt.Errorf("%w: Bandit.Observe round %d: reward %v is not finite", ErrInput, t, reward)
	}
	if !b.s.pending {
		if _, err := b.s.observe(actions); err != nil {
			return fmt.Errorf("%w: Bandit.Observe round %d: %w", ErrInput, t, err)
		}
	}
	if err := b.s.outcome(Round[[][]float64]{Obs: actions, Action: arm, Reward: reward}); err != nil {
		return fmt.Errorf("%w: Bandit.Observe round %d: %w", ErrInput, t, err)
	}
	b.rounds++
	b.sum += reward
	return nil
}
