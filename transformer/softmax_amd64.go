//go:build amd64

package transformer

import "github.com/icrl-go/icrl/transformer/internal/x86"

// maxAVX2 returns the largest of the first n entries of s, n a positive
// multiple of 8 (with a NaN among them the result is unspecified; the row
// then turns to NaN in expSumAVX2 either way).
//
//go:noescape
func maxAVX2(s *float32, n int) float32

// expSumAVX2 sets s[i] = expf32(s[i] − m) for the first n entries, n a
// positive multiple of 8, and returns their sum in float64, accumulated in
// eight lanes added in a fixed order.
//
//go:noescape
func expSumAVX2(s *float32, n int, m float32) float64

// scaleAVX2 multiplies the first n entries of s by a, n a positive multiple
// of 8.
//
//go:noescape
func scaleAVX2(s *float32, n int, a float32)

// softmaxVector32 is softmaxPrefix for a float32 row on the vector kernels:
// it reports false, doing nothing, if the machine lacks AVX2 or the row is
// shorter than 8.
func softmaxVector32(s []float32) bool {
	n8 := len(s) &^ 7
	if !x86.AVX2FMA || n8 == 0 {
		return false
	}
	m := maxAVX2(&s[0], n8)
	for _, v := range s[n8:] {
		m = max(m, v)
	}
	z := expSumAVX2(&s[0], n8, m)
	for j := n8; j < len(s); j++ {
		e := expf32(s[j] - m)
		s[j] = e
		z += float64(e)
	}
	inv := float32(1 / z)
	scaleAVX2(&s[0], n8, inv)
	for j := n8; j < len(s); j++ {
		s[j] *= inv
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
