package incontext

import (
	"errors"
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer"
)

// Config configures the in-context learners ([NewLearner], [NewBandit]).
// The zero value is ready: temperature 1, sampled play.
type Config struct {
	// Temperature divides the logits before the softmax; 0 means 1. It
	// must be positive and finite.
	Temperature float64
	// Greedy makes a bandit learner play the most likely arm instead of
	// sampling (game learners report a policy; the harness samples).
	Greedy bool
}

// Floor is the smallest probability an in-context policy gives an action:
// the softmax is floored at Floor and renormalised, so that the policy
// stays a valid distribution for importance-weighted opponents.
const Floor = 1e-12

// temperature returns the validated temperature of cfg.
func (cfg Config) temperature() (float64, error) {
	return positiveOrOne("Config Temperature", cfg.Temperature)
}

// positiveOrOne returns v, or 1 if v is 0 (a zero-value default), and an
// error naming what if v is not positive and finite.
func positiveOrOne(what string, v float64) (float64, error) {
	if v == 0 {
		return 1, nil
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %s = %v must be positive and finite", icrl.ErrInvalid, what, v)
	}
	return v, nil
}

// decoderWriter feeds an encoder's positions to a transformer.Decoder and
// keeps the logits of the last one. Its first error sticks.
type decoderWriter[F tensor.Float] struct {
	dec     transformer.Decoder[F]
	feat    []F
	buf     []float64
	logits  []float64
	written int
	err     error
}

func (w *decoderWriter[F]) Token(t int) {
	if w.err != nil {
		return
	}
	out, err := w.dec.AppendToken(t)
	w.read(out, err)
}

func (w *decoderWriter[F]) Scratch(n int) []float64 {
	if cap(w.buf) < n {
		w.buf = make([]float64, n)
	}
	w.buf = w.buf[:n]
	clear(w.buf)
	return w.buf
}

func (w *decoderWriter[F]) Features(x []float64) {
	if w.err != nil {
		return
	}
	if cap(w.feat) < len(x) {
		w.feat = make([]F, len(x))
	}
	w.feat = w.feat[:len(x)]
	for i, v := range x {
		w.feat[i] = F(v)
	}
	out, err := w.dec.AppendFeatures(w.feat)
	w.read(out, err)
}

func (w *decoderWriter[F]) read(out []F, err error) {
	if err != nil {
		w.err = err
		return
	}
	if len(out) != len(w.logits) {
		w.err = fmt.Errorf("%w: the model gives %d logits, the encoder has %d actions", ErrInput, len(out), len(w.logits))
		return
	}
	for i, v := range out {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			w.err = fmt.Errorf("%w: logit %d of the model is %v", ErrInput, i, f)
			return
		}
		w.logits[i] = f
	}
	w.written++
}

// session is what the in-context learners share: a decoder on the model,
// the encoder, the rounds in the decoder, and a sliding window that drops
// the older half of the rounds when the next round would not fit.
type session[F tensor.Float, O any] struct {
	model transformer.Transformer[F]
	enc   Encoder[O]
	w     decoderWriter[F]
	temp  float64

	capacity  int        // positions a decoder holds; 0 if unbounded
	obs       int        // positions an observation takes
	keep      int        // rounds kept when the window slides
	hist      []Round[O] // the rounds in the decoder after the prefix
	committed int        // decoder length after the prefix and hist
	base      []float64  // logits at position committed−1
	hasBase   bool
	pending   bool // an observation is in the decoder after committed
	slides    int
}

// newSession opens a decoder on model for enc and writes the prefix.
func newSession[F tensor.Float, O any](model transformer.Transformer[F], enc Encoder[O], cfg Config) (*session[F, O], error) {
	if nilness.Is(model) {
		return nil, fmt.Errorf("%w: needs a model, got nil (%T)", icrl.ErrNil, model)
	}
	if err := validate(enc); err != nil {
		return nil, err
	}
	temp, err := cfg.temperature()
	if err != nil {
		return nil, err
	}
	_, _, actions := enc.Shape()
	if actions < 1 {
		return nil, fmt.Errorf("%w: the encoder has %d actions", icrl.ErrInvalid, actions)
	}
	s := &session[F, O]{model: model, enc: enc, temp: temp, base: make([]float64, actions)}
	s.w = decoderWriter[F]{dec: model.NewDecoder(), logits: make([]float64, actions)}
	if s.w.dec == nil {
		return nil, fmt.Errorf("%w: the model's NewDecoder returned nil", icrl.ErrNil)
	}
	s.capacity = model.Capacity()
	// Check the input once, so that a model that does not fit the encoder
	// fails here rather than mid-game: the largest token, or a feature
	// vector of the encoder's width (and, either way, the outputs).
	if vocab, width, _ := enc.Shape(); vocab > 0 {
		s.w.Token(vocab - 1)
		if s.w.err != nil {
			return nil, fmt.Errorf("incontext: the model does not fit the encoder (a vocabulary of %d tokens, %d actions): %w", vocab, actions, s.w.err)
		}
	} else {
		s.w.Features(make([]float64, width))
		if s.w.err != nil {
			return nil, fmt.Errorf("incontext: the model does not fit the encoder (feature vectors of width %d, %d actions): %w", width, actions, s.w.err)
		}
	}
	if err := s.reset(); err != nil {
		return nil, err
	}
	s.obs = enc.Positions(0) - s.committed
	if c := s.capacity; c > 0 {
		if s.outcomeEnd(1) > c {
			return nil, fmt.Errorf("%w: the model holds %d positions, fewer than the %d of one round", icrl.ErrInvalid, c, s.outcomeEnd(1))
		}
		most := 1 // rounds that fit, with their outcomes
		for s.outcomeEnd(most+1) <= c {
			most++
		}
		s.keep = most / 2
	}
	return s, nil
}

// outcomeEnd returns the decoder length after the outcome of round r: the
// prefix, r complete rounds, without the next observation.
func (s *session[F, O]) outcomeEnd(r int) int { return s.enc.Positions(r) - s.obs }

// slide drops all but the last keep rounds and rebuilds the decoder.
func (s *session[F, O]) slide() error {
	s.hist = append(s.hist[:0], s.hist[len(s.hist)-s.keep:]...)
	s.w.dec.Reset()
	s.w.err = nil
	s.pending = false
	s.slides++
	return s.rebuild()
}

// reset empties the decoder and writes the prefix.
func (s *session[F, O]) reset() error {
	s.w.dec.Reset()
	s.w.err = nil
	s.hist = s.hist[:0]
	s.pending = false
	return s.rebuild()
}

// rebuild writes the prefix and the kept rounds into the empty decoder.
func (s *session[F, O]) rebuild() error {
	s.w.written = 0
	s.enc.Prefix(&s.w)
	for _, r := range s.hist {
		if err := s.enc.Observe(&s.w, r.Obs); err != nil {
			return err
		}
		if err := s.enc.Outcome(&s.w, r); err != nil {
			return err
		}
	}
	if s.w.err != nil {
		return fmt.Errorf("incontext: %w", s.w.err)
	}
	s.committed = s.w.dec.Len()
	s.hasBase = s.w.written > 0
	copy(s.base, s.w.logits)
	return nil
}

// rewind drops a pending observation.
func (s *session[F, O]) rewind() error {
	s.w.err = nil
	if s.pending || s.w.dec.Len() != s.committed {
		s.pending = false
		if err := s.w.dec.Truncate(s.committed); err != nil {
			return fmt.Errorf("incontext: %w", err)
		}
	}
	return nil
}

// observe writes the observation o after the committed rounds (sliding the
// window first if the round would not fit) and returns the logits that
// predict the action.
func (s *session[F, O]) observe(o O) ([]float64, error) {
	if err := s.rewind(); err != nil {
		return nil, err
	}
	if s.capacity > 0 && s.enc.Positions(len(s.hist)) > s.capacity {
		if err := s.slide(); err != nil {
			return nil, err
		}
	}
	s.w.written = 0
	if err := s.enc.Observe(&s.w, o); err != nil {
		return nil, err
	}
	if s.w.err != nil {
		err := s.w.err
		s.rewind()
		return nil, fmt.Errorf("incontext: %w", err)
	}
	if s.w.written > 0 {
		s.pending = true
		return s.w.logits, nil
	}
	if !s.hasBase {
		return nil, fmt.Errorf("%w: the encoder wrote no position to predict from", icrl.ErrInvalid)
	}
	return s.base, nil
}

// outcome writes the outcome of the round observed last (the caller has
// just called observe(r.Obs)) and commits the round.
func (s *session[F, O]) outcome(r Round[O]) error {
	o := r.Obs
	if s.capacity > 0 && s.outcomeEnd(len(s.hist)+1) > s.capacity {
		if err := s.slide(); err != nil {
			return err
		}
		if _, err := s.observe(o); err != nil {
			return err
		}
	}
	s.w.written = 0
	if err := s.enc.Outcome(&s.w, r); err != nil {
		return err
	}
	if s.w.err != nil {
		err := s.w.err
		s.pending = true // force the truncation back to the committed rounds
		if rerr := s.rewind(); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return fmt.Errorf("incontext: %w", err)
	}
	s.hist = append(s.hist, r)
	s.committed = s.w.dec.Len()
	s.pending = false
	if s.w.written > 0 {
		copy(s.base, s.w.logits)
		s.hasBase = true
	}
	return nil
}

// policy stores in dst the softmax of logits/temperature, floored at
// [Floor] and renormalised.
func (s *session[F, O]) policy(dst, logits []float64) {
	if s.temp == 1 {
		simplex.Softmax(dst, logits)
	} else {
		for i, v := range logits {
			dst[i] = v / s.temp
		}
		simplex.Softmax(dst, dst)
	}
	floor := false
	for _, v := range dst {
		if v < Floor {
			floor = true
			break
		}
	}
	if floor {
		var sum float64
		for i, v := range dst {
			dst[i] = max(v, Floor)
			sum += dst[i]
		}
		for i := range dst {
			dst[i] /= sum
		}
	}
}
