package transformer

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// Target is the supervision of one sequence for the cross-entropy loss.
// Set either Labels (hard targets, one class per position) or Dist (soft
// targets, a distribution over the outputs per position).
type Target[F tensor.Float] struct {
	// Labels holds the target class of each position, in [0, Outputs); a
	// negative label leaves the position out of the loss.
	Labels []int
	// Dist holds a target distribution per position, Len×Outputs
	// row-major; each row must be a probability vector (or all zeros, which
	// leaves the position out).
	Dist []F
	// Weights holds a non-negative weight per position; nil means weight 1
	// for every scored position. Use it so that only the positions that
	// predict an action count.
	Weights []F
}

// Loss is the value of the weighted cross-entropy over a batch:
//
//	CE = Σ_i w_i·(−Σ_c p_ic log softmax(z_i)_c) / Σ_i w_i
//
// over every scored position i of every sequence, with target
// distribution p_i (one-hot for a label). Entropy is the same weighted mean
// of the targets' entropies H(p_i), so CE − Entropy is the weighted mean
// KL(p_i ‖ softmax(z_i)) ≥ 0, the quantity to drive to zero when the
// targets are soft (cross-entropy cannot fall below the targets' entropy).
type Loss struct {
	CE, Entropy float64
	// Weight is Σ_i w_i, the total weight of the scored positions.
	Weight float64
}

// KL returns CE − Entropy, the weighted mean KL divergence from the targets
// to the model.
func (l Loss) KL() float64 { return max(l.CE-l.Entropy, 0) }

// checkTarget validates t for a sequence of n positions.
func (m *Model[F]) checkTarget(k, n int, t Target[F]) error {
	out := m.cfg.Outputs
	switch {
	case t.Labels != nil && t.Dist != nil:
		return fmt.Errorf("%w: target %d sets both Labels and Dist", icrl.ErrInvalid, k)
	case t.Labels == nil && t.Dist == nil:
		return fmt.Errorf("%w: target %d sets neither Labels nor Dist", icrl.ErrInvalid, k)
	case t.Labels != nil && len(t.Labels) != n:
		return fmt.Errorf("%w: target %d has %d labels for a sequence of %d positions", icrl.ErrShape, k, len(t.Labels), n)
	case t.Dist != nil && len(t.Dist) != n*out:
		return fmt.Errorf("%w: target %d has %d distribution values, want %d positions × %d outputs", icrl.ErrShape, k, len(t.Dist), n, out)
	case t.Weights != nil && len(t.Weights) != n:
		return fmt.Errorf("%w: target %d has %d weights for a sequence of %d positions", icrl.ErrShape, k, len(t.Weights), n)
	}
	for i, c := range t.Labels {
		if c >= out {
			return fmt.Errorf("%w: target %d has label %d at position %d, outside [0, %d)", icrl.ErrShape, k, c, i, out)
		}
	}
	for i := 0; t.Dist != nil && i < n; i++ {
		var s float64
		for c, v := range t.Dist[i*out : (i+1)*out] {
			if !(v >= 0) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("%w: target %d has Dist[%d][%d] = %v, not a probability", icrl.ErrInvalid, k, i, c, v)
			}
			s += float64(v)
		}
		if s != 0 && math.Abs(s-1) > 1e-4 {
			return fmt.Errorf("%w: target %d has a distribution at position %d that sums to %v, not 1", icrl.ErrInvalid, k, i, s)
		}
	}
	for i, w := range t.Weights {
		if !(w >= 0) || math.IsInf(float64(w), 0) {
			return fmt.Errorf("%w: target %d has weight %v at position %d; weights must be finite and non-negative", icrl.ErrInvalid, k, w, i)
		}
	}
	return nil
}

// crossEntropy computes the batch loss of the logits of pass p against
// targets and, if dlogits is non-nil, its gradient with respect to the
// logits: dz_i = w_i/W·(softmax(z_i) − p_i). It returns an error if no
// position carries weight.
func crossEntropy[F tensor.Float](p *pass[F], targets []Target[F], outputs int, dlogits []F) (Loss, error) {
	var loss Loss
	// First pass: total weight.
	for k, t := range targets {
		for i := 0; i < p.spans[k].n; i++ {
			loss.Weight += positionWeight(t, i, outputs)
		}
	}
	if !(loss.Weight > 0) {
		return Loss{}, fmt.Errorf("%w: no position of the batch carries loss weight", icrl.ErrInvalid)
	}
	// Second pass, in parallel over sequences: each position's weighted
	// cross-entropy and entropy, and the gradient. The sums are then taken
	// in batch order, so the loss does not depend on the split.
	ces, hs := make([]float64, p.n), make([]float64, p.n)
	parallelFor(len(targets), p.n/len(targets)*outputs*20, func(lo, hi int) {
		probs := make([]float64, outputs)
		for k := lo; k < hi; k++ {
			crossEntropySeq(p, targets[k], k, outputs, loss.Weight, probs, ces, hs, dlogits)
		}
	})
	for row := range p.n {
		loss.CE += ces[row]
		loss.Entropy += hs[row]
	}
	loss.CE /= loss.Weight
	loss.Entropy /= loss.Weight
	return loss, nil
}

// crossEntropySeq is the second pass of crossEntropy for sequence k with
// target t: it sets ces and hs at the sequence's rows to each position's
// weighted cross-entropy and target entropy, and its rows of dlogits (if
// non-nil), with total the batch's loss weight and probs scratch of
// outputs entries.
func crossEntropySeq[F tensor.Float](p *pass[F], t Target[F], k, outputs int, total float64, probs, ces, hs []float64, dlogits []F) {
	sp := p.spans[k]
	for i := 0; i < sp.n; i++ {
		w := positionWeight(t, i, outputs)
		row := sp.start + i
		z := p.logits[row*outputs : (row+1)*outputs]
		if w == 0 {
			ces[row], hs[row] = 0, 0
			if dlogits != nil {
				clear(dlogits[row*outputs : (row+1)*outputs])
			}
			continue
		}
		// log-softmax in float64.
		mx := float64(z[0])
		for _, v := range z[1:] {
			mx = max(mx, float64(v))
		}
		var sum float64
		for c, v := range z {
			e := math.Exp(float64(v) - mx)
			probs[c] = e
			sum += e
		}
		lse := mx + math.Log(sum)
		var ce, h float64
		if t.Labels != nil {
			ce = lse - float64(z[t.Labels[i]])
		} else {
			for c, pc := range t.Dist[i*outputs : (i+1)*outputs] {
				if pc > 0 {
					ce += float64(pc) * (lse - float64(z[c]))
					h -= float64(pc) * math.Log(float64(pc))
				}
			}
		}
		ces[row], hs[row] = w*ce, w*h
		if dlogits != nil {
			g := dlogits[row*outputs : (row+1)*outputs]
			scale := w / total
			for c := range g {
				q := probs[c] / sum
				if t.Labels != nil {
					if c == t.Labels[i] {
						q--
					}
				} else {
					q -= float64(t.Dist[i*outputs+c])
				}
				g[c] = F(scale * q)
			}
		}
	}
}

// positionWeight returns the loss weight of position i of target t: zero
// for an unscored position (negative label or all-zero distribution).
func positionWeight[F tensor.Float](t Target[F], i, outputs int) float64 {
	if t.Labels != nil && t.Labels[i] < 0 {
		return 0
	}
	if t.Dist != nil {
		var s F
		for _, v := range t.Dist[i*outputs : (i+1)*outputs] {
			s += v
		}
		if s == 0 {
			return 0
		}
	}
	if t.Weights != nil {
		return float64(t.Weights[i])
	}
	return 1
}

// Forward returns the logits of every position of every sequence: out[k]
// holds len×Outputs values row-major for sequence k. It returns an error
// naming the bad sequence if one is invalid (empty, a token out of range, a
// wrong feature width, longer than MaxLen). Sequences and heads are
// processed in parallel; the result does not depend on GOMAXPROCS.
func (m *Model[F]) Forward(seqs []Sequence[F]) ([][]F, error) {
	if err := m.checkBatch(seqs, nil); err != nil {
		return nil, err
	}
	p := m.forward(seqs, nil, false)
	out := make([][]F, len(seqs))
	o := m.cfg.Outputs
	for k, sp := range p.spans {
		out[k] = p.logits[sp.start*o : (sp.start+sp.n)*o : (sp.start+sp.n)*o]
	}
	return out, nil
}

// Loss returns the weighted cross-entropy of the model on a batch (see
// [Loss]) without touching the gradients. It returns an error if a sequence
// or a target is invalid, the counts differ, or no position carries weight.
func (m *Model[F]) Loss(seqs []Sequence[F], targets []Target[F]) (Loss, error) {
	if err := m.checkBatch(seqs, targets); err != nil {
		return Loss{}, err
	}
	return crossEntropy(m.forward(seqs, nil, false), targets, m.cfg.Outputs, nil)
}

// Backprop computes the weighted cross-entropy of the model on a batch and
// adds its gradient with respect to every parameter to the parameters'
// Grad (call [Model.ZeroGrad] first for a fresh gradient). It returns an
// error, changing nothing, if a sequence or target is invalid, the counts
// differ, or no position carries weight.
func (m *Model[F]) Backprop(seqs []Sequence[F], targets []Target[F]) (Loss, error) {
	if err := m.checkBatch(seqs, targets); err != nil {
		return Loss{}, err
	}
	if m.ws == nil {
		m.ws = new(workspace[F])
	}
	m.ws.reset()
	p := m.forward(seqs, m.ws, true)
	dlogits := p.ws.get(len(p.logits))
	loss, err := crossEntropy(p, targets, m.cfg.Outputs, dlogits)
	if err != nil {
		return Loss{}, err
	}
	m.backward(p, dlogits)
	return loss, nil
}

// checkBatch validates a batch; targets may be nil.
func (m *Model[F]) checkBatch(seqs []Sequence[F], targets []Target[F]) error {
	if len(m.params) == 0 {
		return ErrZeroModel
	}
	if len(seqs) == 0 {
		return fmt.Errorf("%w: empty batch", icrl.ErrInvalid)
	}
	if targets != nil && len(targets) != len(seqs) {
		return fmt.Errorf("%w: %d targets for %d sequences", icrl.ErrShape, len(targets), len(seqs))
	}
	for k, s := range seqs {
		if err := m.checkSequence(k, s); err != nil {
			return err
		}
		if targets != nil {
			if err := m.checkTarget(k, s.length(m.cfg), targets[k]); err != nil {
				return err
			}
		}
	}
	return nil
}
