//go:build amd64

package transformer

import (
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/internal/x86"
)

// reluAVX2 sets y[i] = max(x[i], 0) for the first n entries, n a positive
// multiple of 8, with the bits of Go's max (for a NaN, a NaN: x's own).
//
//go:noescape
func reluAVX2(y, x *float32, n int)

// reluBackwardAVX2 is reluBackward on the first n entries, n a positive
// multiple of 8, with the same bits.
//
//go:noescape
func reluBackwardAVX2(dx, dy, x *float32, n int)

// reluVector applies the ReLU to entries [lo, lo+m) of x into y on the
// vector kernel, m the largest multiple of 8 in hi − lo, and returns m (0,
// doing nothing, unless the entries are float32 and the machine has AVX2).
func reluVector[F tensor.Float](y, x []F, lo, hi int) int {
	x32, ok := any(x).([]float32)
	m := (hi - lo) &^ 7
	if !ok || !x86.AVX2FMA || m <= 0 {
		return 0
	}
	y32 := any(y).([]float32)
	_, _ = x32[lo+m-1], y32[lo+m-1] // bounds, checked once
	reluAVX2(&y32[lo], &x32[lo], m)
	return m
}

// reluBackwardVector is reluVector for reluBackward.
func reluBackwardVector[F tensor.Float](dx, dy, x []F, lo, hi int) int {
	x32, ok := any(x).([]float32)
	m := (hi - lo) &^ 7
	if !ok || !x86.AVX2FMA || m <= 0 {
		return 0
	}
	dx32, dy32 := any(dx).([]float32), any(dy).([]float32)
	_, _, _ = x32[lo+m-1], dx32[lo+m-1], dy32[lo+m-1] // bounds, checked once
	reluBackwardAVX2(&dx32[lo], &dy32[lo], &x32[lo], m)
	return m
}
