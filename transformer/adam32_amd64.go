//go:build amd64

package transformer

import "github.com/icrl-go/icrl/transformer/internal/x86"

// adamAVX2 applies the Adam step of k (without weight decay) to the first
// n entries of val, m and v, n a positive multiple of 8, eight at a time
// with the operations of [adam32.updateGo] in the same order.
//
//go:noescape
func adamAVX2(val, grad, m, v *float32, n int, k *adam32)

// adamVector runs the vector kernel on the longest prefix it handles and
// returns its length (0 if the machine lacks AVX2).
func adamVector(k *adam32, val, grad, m, v []float32) int {
	n := len(val) &^ 7
	if !x86.AVX2FMA || n == 0 {
		return 0
	}
	adamAVX2(&val[0], &grad[0], &m[0], &v[0], n, k)
	return n
}

// nonFiniteAVX2 reports whether any of the first n entries of x, n a
// positive multiple of 8, is NaN or infinite.
//
//go:noescape
func nonFiniteAVX2(x *float32, n int) bool

// allFiniteVector reports the length of the prefix of x that the vector
// kernel found free of NaN and infinities: len(x) rounded down to a
// multiple of 8 when it is, else 0 (and 0 without AVX2).
func allFiniteVector(x []float32) int {
	n := len(x) &^ 7
	if !x86.AVX2FMA || n == 0 || nonFiniteAVX2(&x[0], n) {
		return 0
	}
	return n
}
