//go:build amd64

package transformer

import "github.com/icrl-go/icrl/transformer/internal/x86"

// softmaxRowAVX2 replaces the first n ≥ 1 entries of s by their softmax,
// by softmaxScalar's operations (the normaliser summed in eight lanes, see
// the assembly), and returns its maximum m and inverse normaliser inv
// (s_i = expf32(s_i − m)·inv).
//
//go:noescape
func softmaxRowAVX2(s *float32, n int) (m, inv float32)

// expScaleAVX2 sets s_i = expf32(s_i − m)·inv for the first n ≥ 1 entries.
//
//go:noescape
func expScaleAVX2(s *float32, n int, m, inv float32)

// softmaxRowAVX512 is softmaxRowAVX2 sixteen entries at a time, with the
// same bits.
//
//go:noescape
func softmaxRowAVX512(s *float32, n int) (m, inv float32)

// expScaleAVX512 is expScaleAVX2 sixteen entries at a time, with the same
// bits.
//
//go:noescape
func expScaleAVX512(s *float32, n int, m, inv float32)

// softmaxVector32 is softmaxPrefix for a float32 row on the vector kernel
// (AVX-512 where the machine has it, else AVX2): it reports false, doing
// nothing, if the machine lacks AVX2.
func softmaxVector32(s []float32) (m, inv float32, ok bool) {
	switch {
	case len(s) == 0 || !x86.AVX2FMA:
		return 0, 0, false
	case x86.AVX512:
		m, inv = softmaxRowAVX512(&s[0], len(s))
	default:
		m, inv = softmaxRowAVX2(&s[0], len(s))
	}
	return m, inv, true
}

// softmaxAgainVector32 is softmaxAgain for a float32 row on the vector
// kernel: it reports false, doing nothing, if the machine lacks AVX2.
func softmaxAgainVector32(s []float32, m, inv float32) bool {
	switch {
	case len(s) == 0 || !x86.AVX2FMA:
		return false
	case x86.AVX512:
		expScaleAVX512(&s[0], len(s), m, inv)
	default:
		expScaleAVX2(&s[0], len(s), m, inv)
	}
	return true
}

// dotAVX2 returns the dot product of the first n entries of x and y, n a
// positive multiple of 8, summed in eight lanes added in a fixed order.
//
//go:noescape
func dotAVX2(x, y *float32, n int) float32

// gradSubAVX2 sets dg[i] = w[i]·(dg[i] − dot) for the first n entries, n a
// positive multiple of 8.
//
//go:noescape
func gradSubAVX2(w, dg *float32, n int, dot float32)

// softmaxGradVector32 is the softmax step of attnBackward for one float32
// row on the vector kernels: with the weights w and their gradient g,
// g[j] = w[j]·(g[j] − Σ_k w[k]·g[k]). It reports false, doing nothing, if
// the machine lacks AVX2 or the row is shorter than 8.
func softmaxGradVector32(w, g []float32) bool {
	n8 := len(w) &^ 7
	if !x86.AVX2FMA || n8 == 0 {
		return false
	}
	g = g[:len(w)]
	dot := dotAVX2(&w[0], &g[0], n8)
	for j := n8; j < len(w); j++ {
		dot += w[j] * g[j]
	}
	gradSubAVX2(&w[0], &g[0], n8, dot)
	for j := n8; j < len(w); j++ {
		g[j] = w[j] * (g[j] - dot)
	}
	return true
}
