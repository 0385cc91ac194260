// Package bufpool pools the temporary float buffers of the parallel
// kernels (partial sums and scratch that live for one call), one
// sync.Pool per float type, so that a training step allocates nothing in
// steady state.
package bufpool

import (
	"sync"

	"github.com/icrl-go/icrl/tensor"
)

var (
	pool32 = sync.Pool{New: func() any { return new([]float32) }}
	pool64 = sync.Pool{New: func() any { return new([]float64) }}
)

// Get returns a pooled buffer of length n (n ≥ 0). Its entries are
// unspecified: the caller sets them before reading them.
func Get[F tensor.Float](n int) *[]F {
	var z F
	var b *[]F
	if _, ok := any(z).(float32); ok {
		b = any(pool32.Get()).(*[]F)
	} else {
		b = any(pool64.Get()).(*[]F)
	}
	if cap(*b) < n {
		*b = make([]F, n)
	}
	*b = (*b)[:n]
	return b
}

// Put returns a buffer of Get to its pool; the caller must not use it
// afterwards.
func Put[F tensor.Float](b *[]F) {
	if pb, ok := any(b).(*[]float32); ok {
		pool32.Put(pb)
		return
	}
	pool64.Put(any(b).(*[]float64))
}
