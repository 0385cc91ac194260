package transformer

import "math"

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
// x, or −1 if every entry is finite. It tests the exponent bits without a
// branch per entry (adding one to an all-ones exponent field carries into
// the sign bit, and only then), with vector instructions for float32 where
// the machine has them.
func firstNonFinite[F Float](x []F) int {
	const block = 256
	switch x := any(x).(type) {
	case []float32:
		start := allFiniteVector(x) // a prefix known finite, or 0
		for lo := start; lo < len(x); lo += block {
			hi := min(lo+block, len(x))
			var acc uint32
			for _, f := range x[lo:hi] {
				acc |= math.Float32bits(f)&0x7f800000 + 0x00800000
			}
			if acc&0x80000000 != 0 {
				for i, f := range x[lo:hi] {
					if math.Float32bits(f)&0x7f800000 == 0x7f800000 {
						return lo + i
					}
				}
			}
		}
	case []float64:
		for lo := 0; lo < len(x); lo += block {
			hi := min(lo+block, len(x))
			var acc uint64
			for _, f := range x[lo:hi] {
				acc |= math.Float64bits(f)&0x7ff0000000000000 + 0x0010000000000000
			}
			if acc&0x8000000000000000 != 0 {
				for i, f := range x[lo:hi] {
					if math.Float64bits(f)&0x7ff0000000000000 == 0x7ff0000000000000 {
						return lo + i
					}
				}
			}
		}
	}
	return -1
}
