package transformer

import "github.com/icrl-go/icrl/tensor"

// workspace is the scratch memory of [Model.Backprop], reused from one
// call to the next so that a training step does not allocate (and the
// garbage collector does not clear and return) its activations. get hands
// out consecutive pieces of one buffer without clearing them, so every
// user must overwrite what it reads; reset starts a new step, growing the
// buffer to the previous step's total if that did not fit.
type workspace[F tensor.Float] struct {
	buf       []F
	off, need int
}

// reset starts a new step.
func (w *workspace[F]) reset() {
	if w.need > len(w.buf) {
		w.buf = make([]F, w.need)
	}
	w.off, w.need = 0, 0
}

// get returns n entries of uninitialised scratch; a nil workspace
// allocates (zeroed) memory.
func (w *workspace[F]) get(n int) []F {
	if w == nil {
		return make([]F, n)
	}
	w.need += n
	if w.off+n <= len(w.buf) {
		s := w.buf[w.off : w.off+n : w.off+n]
		w.off += n
		return s
	}
	return make([]F, n)
}
