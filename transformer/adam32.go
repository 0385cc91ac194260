package transformer

import (
	"math"

	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/tensor"
)

// adam32 holds the constants of one [Adam.Step] for float32 parameters,
// which update in float32 arithmetic, as PyTorch's Adam does for float32
// tensors (the moments are float32 either way).
type adam32 struct {
	// The first seven fields are read by the assembly kernel, in this
	// order: keep them first.
	b1, b2, c1, c2, negStep, bc2sqrt, eps float32
	shrink, wd                            float32
	l2, decoupled                         bool
}

// update applies the step to val, m and v from grad (all of one length),
// with vector instructions where the machine has them and there is no
// weight decay (the results are the same bits as [adam32.updateGo]).
func (k *adam32) update(val, grad, m, v []float32) {
	grad, m, v = grad[:len(val)], m[:len(val)], v[:len(val)]
	if !k.l2 && !k.decoupled {
		if done := adamVector(k, val, grad, m, v); done > 0 {
			val, grad, m, v = val[done:], grad[done:], m[done:], v[done:]
		}
	}
	k.updateGo(val, grad, m, v)
}

// updateGo is update in Go, the reference of the vector kernel. Every
// product is converted to float32 explicitly so that no compiler fuses a
// multiply and an add: the kernel rounds each operation, and so must this.
func (k *adam32) updateGo(val, grad, m, v []float32) {
	grad, m, v = grad[:len(val)], m[:len(val)], v[:len(val)]
	for i := range val {
		th, g := val[i], grad[i]
		if k.decoupled {
			th *= k.shrink
		} else if k.l2 {
			g += float32(k.wd * th)
		}
		mi := float32(m[i]*k.b1) + float32(k.c1*g)
		vi := float32(v[i]*k.b2) + float32(float32(k.c2*g)*g)
		m[i], v[i] = mi, vi
		den := float32(math.Sqrt(float64(vi)))/k.bc2sqrt + k.eps
		val[i] = th + float32(k.negStep*mi)/den
	}
}

// firstNonFinite returns the index of the first NaN or infinite entry of
// x, or −1 if every entry is finite: [num.FirstNonFinite], after a prefix
// that vector instructions found finite for float32 where the machine has
// them.
func firstNonFinite[F tensor.Float](x []F) int {
	start := 0
	if x32, ok := any(x).([]float32); ok {
		start = allFiniteVector(x32) // a prefix known finite, or 0
	}
	if i := num.FirstNonFinite(x[start:]); i >= 0 {
		return start + i
	}
	return -1
}
