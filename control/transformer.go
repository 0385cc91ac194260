package control

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer"
)

// Transformer is a block of eq. (1) with one action per layer — a solver's
// [Solution.Weights], [TrainAdam]'s result or actions of one's own —
// deployed as a causal sequence model. It implements
// transformer.Transformer, so the block plays, is evaluated and is compared
// like any other model: through incontext.NewLearner, incontext.Play and
// incontext.Imitation, with any feature encoder whose width is the
// block's token dimension D.
//
// Eq. (1) lets every token attend to every token of its sequence; a
// decoder sees one position at a time and never the future. At layer t
// the state of position i is therefore eq. (1) applied to position i's
// state at layer t−1 with the attention over positions 0, …, i of layer
// t−1 (the causal restriction of eq. (1), each prefix an empirical
// measure with equal weights). After a one-layer block the output at
// position i is exactly [Block.Forward] of positions 0, …, i at position
// i; with more layers it differs from Forward of the prefix, whose
// earlier positions would attend to later ones. The logits at a position
// are the first Outputs coordinates of its state after the last layer (an
// in-context learner needs as many as the player has actions).
//
// A Transformer holds copies of its actions; it is safe for concurrent
// use (its decoders share the read-only weights).
type Transformer[F tensor.Float] struct {
	block   Block[F]
	weights []Action[F]
	outputs int
}

// Compile-time check: the deployed block is a transformer.Transformer.
var _ transformer.Transformer[float64] = (*Transformer[float64])(nil)

// NewTransformer returns the block b with weights[t] at layer t, reading
// its logits from the first outputs coordinates of the final states; 0
// means all D. The weights are copied. It returns an error wrapping
// [icrl.ErrInvalid] if the block is invalid, there are no weights, a weight is
// invalid or has other sizes than the block, or outputs is negative or
// larger than D.
func NewTransformer[F tensor.Float](b Block[F], weights []Action[F], outputs int) (*Transformer[F], error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if len(weights) == 0 {
		return nil, fmt.Errorf("%w: NewTransformer needs at least one layer's weights", icrl.ErrInvalid)
	}
	D := b.Dims.D
	if outputs < 0 || outputs > D {
		return nil, fmt.Errorf("%w: NewTransformer outputs = %d, want 0 (all) to D = %d", icrl.ErrInvalid, outputs, D)
	}
	if outputs == 0 {
		outputs = D
	}
	m := &Transformer[F]{block: b, weights: make([]Action[F], len(weights)), outputs: outputs}
	for t := range weights {
		u := &weights[t]
		if u.Dims != b.Dims {
			return nil, fmt.Errorf("%w: NewTransformer weights %d have dims %+v, the block %+v", icrl.ErrInvalid, t, u.Dims, b.Dims)
		}
		if err := u.Validate(); err != nil {
			return nil, fmt.Errorf("NewTransformer weights %d: %w", t, err)
		}
		m.weights[t] = *u.Clone()
	}
	return m, nil
}

// Layers returns the number of layers T.
func (m *Transformer[F]) Layers() int { return len(m.weights) }

// Outputs returns the number of logits at every position.
func (m *Transformer[F]) Outputs() int { return m.outputs }

// Capacity returns 0: a decoder holds any number of positions (each one
// costs O(T·D) memory and its append O(T·i·D) time at position i).
func (m *Transformer[F]) Capacity() int { return 0 }

// NewDecoder returns an empty decoder of the causal block.
func (m *Transformer[F]) NewDecoder() transformer.Decoder[F] {
	return &decoder[F]{m: m, states: make([][][]F, len(m.weights)+1)}
}

// decoder is the online session of a Transformer: states[t][i] is the
// state of position i after layer t (states[0] are the inputs).
type decoder[F tensor.Float] struct {
	m       *Transformer[F]
	states  [][][]F
	ones    []F // the equal weights of the prefix measure
	scratch *Scratch[F]
	out     []F
}

// AppendToken returns an error: the block reads feature vectors.
func (d *decoder[F]) AppendToken(token int) ([]F, error) {
	return nil, fmt.Errorf("%w: AppendToken(%d) on a control block, which reads feature vectors of width D = %d", icrl.ErrInvalid, token, d.m.block.Dims.D)
}

// AppendFeatures feeds the token x ∈ R^D and returns the logits at its
// position. It returns an error if len(x) ≠ D or a value is not finite.
func (d *decoder[F]) AppendFeatures(x []F) ([]F, error) {
	m := d.m
	D := m.block.Dims.D
	if len(x) != D {
		return nil, fmt.Errorf("%w: feature vector has %d values, want D = %d", icrl.ErrInvalid, len(x), D)
	}
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("%w: feature %d = %v", icrl.ErrNotFinite, i, v)
		}
	}
	n := len(d.states[0]) + 1
	if len(d.ones) < n {
		c := max(2*len(d.ones), 16, n)
		d.ones = make([]F, c)
		for i := range d.ones {
			d.ones[i] = 1
		}
		d.scratch = m.block.NewScratch(c)
	}
	d.states[0] = append(d.states[0], append([]F(nil), x...))
	for t := range m.weights {
		prev := d.states[t]
		y := make([]F, D)
		m.block.MapToken(y, prev[n-1], &m.weights[t], prev, d.ones[:n], d.scratch)
		d.states[t+1] = append(d.states[t+1], y)
	}
	d.out = append(d.out[:0], d.states[len(m.weights)][n-1][:m.outputs]...)
	return d.out, nil
}

// Len returns the number of positions fed since the last Reset.
func (d *decoder[F]) Len() int { return len(d.states[0]) }

// Truncate forgets every position from n on.
func (d *decoder[F]) Truncate(n int) error {
	if n < 0 || n > d.Len() {
		return fmt.Errorf("%w: Truncate(%d) of a decoder holding %d positions", icrl.ErrInvalid, n, d.Len())
	}
	for t := range d.states {
		clear(d.states[t][n:])
		d.states[t] = d.states[t][:n]
	}
	return nil
}

// Reset forgets every position.
func (d *decoder[F]) Reset() {
	for t := range d.states {
		clear(d.states[t])
		d.states[t] = d.states[t][:0]
	}
}
