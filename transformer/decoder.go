package transformer

import "github.com/icrl-go/icrl/tensor"

// A Decoder is a causal sequence model being decoded online: each Append
// feeds one more position (a token or a feature vector) and returns the
// logits at that position. It is what the in-context learners of package
// learner/incontext read; [*Session] is this package's implementation.
//
// The in-context learners expect as many logits at every position as the
// player has actions (their encoder's actions; the softmax of the logits
// at a prediction position is the policy), and reject a decoder that gives
// another number. They call Truncate to drop a query position (a state
// asked about but not played, or an observation whose outcome failed to
// encode) back to the rounds already committed, and Reset when the learner
// is reset or its sliding window drops the older half of the rounds, after
// which they feed the kept rounds again.
//
// The returned logits belong to the decoder and are valid until the next
// call. A Decoder need not be safe for concurrent use.
type Decoder[F tensor.Float] interface {
	// AppendToken feeds a token and returns the logits at its position.
	// It returns an error if the token is out of range, the model reads
	// feature vectors, or the decoder is full.
	AppendToken(token int) ([]F, error)
	// AppendFeatures feeds a feature vector and returns the logits at its
	// position. It returns an error if the width is wrong, the model reads
	// tokens, or the decoder is full.
	AppendFeatures(x []F) ([]F, error)
	// Len returns the number of positions fed since the last Reset.
	Len() int
	// Truncate forgets every position from n on. It returns an error if n
	// is negative or larger than Len.
	Truncate(n int) error
	// Reset forgets every position.
	Reset()
}

// A Transformer is a causal sequence model as the in-context learners
// consume it: a source of fresh decoders, each an independent online
// session, and the number of positions one decoder holds. [*Model] is this
// package's implementation; a model written by hand (for example the
// weights of a theorem's construction) or imported from elsewhere plugs in
// by implementing these two methods.
//
// NewDecoder must be safe for concurrent use when the in-context pipeline
// evaluates in parallel (Model's is: sessions share the read-only weights).
type Transformer[F tensor.Float] interface {
	// NewDecoder returns an empty decoder.
	NewDecoder() Decoder[F]
	// Capacity returns the number of positions a decoder holds, or 0 if it
	// is unbounded.
	Capacity() int
}

// Compile-time checks: a Model is a Transformer through its Session.
var (
	_ Transformer[float32] = (*Model[float32])(nil)
	_ Transformer[float64] = (*Model[float64])(nil)
	_ Decoder[float32]     = (*Session[float32])(nil)
)

// NewDecoder returns [Model.NewSession] as a [Decoder].
func (m *Model[F]) NewDecoder() Decoder[F] { return m.NewSession() }

// Capacity returns the positions a session holds: MaxLen with learned
// positions, 0 (unbounded) otherwise.
func (m *Model[F]) Capacity() int {
	if m.cfg.Positions == LearnedPositions {
		return m.cfg.MaxLen
	}
	return 0
}
