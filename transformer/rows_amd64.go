//go:build amd64

package transformer

import (
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/internal/x86"
)

// addRowsAVX2 adds rows rows of a (w entries each, stride apart) to the
// first w entries of acc, one row after the other; w is a positive
// multiple of 8 and rows ≥ 1.
//
//go:noescape
func addRowsAVX2(acc, a *float32, rows, w, stride int)

// lnGradSumsAVX2 is gradSums4 on the first n entries, n a positive
// multiple of 4, with the same bits.
//
//go:noescape
func lnGradSumsAVX2(x, dy, gamma *float32, n int, mu, r float64) (sg, sgx float64)

// lnBackwardRowAVX2 is the inner loop of layerNormBackwardRows on the
// first n entries of a row, n a positive multiple of 4, with the same bits.
//
//go:noescape
func lnBackwardRowAVX2(out, x, dy, gamma, accG, accB *float32, n int, mu, r, sg, sgx float64, muF, rF float32, add bool)

// addRowsVector is addRows on the vector kernel: it reports false, doing
// nothing, unless the entries are float32, the machine has AVX2 and w is
// a multiple of 8.
func addRowsVector[F tensor.Float](acc, a []F, rows, w, stride int) bool {
	acc32, ok := any(acc).([]float32)
	if !ok || !x86.AVX2FMA || w%8 != 0 || w == 0 || rows <= 0 {
		return false
	}
	a32 := any(a).([]float32)
	_, _ = acc32[w-1], a32[(rows-1)*stride+w-1] // bounds, checked once
	addRowsAVX2(&acc32[0], &a32[0], rows, w, stride)
	return true
}

// layerNormBackwardVector is layerNormBackwardRows on the vector kernels:
// it reports false, doing nothing, unless the entries are float32, the
// machine has AVX2 and d is a multiple of 4.
func layerNormBackwardVector[F tensor.Float](dx, acc, dy, x, mean, rstd []F, lo, hi, d int, gamma []F, add bool) bool {
	x32, ok := any(x).([]float32)
	if !ok || !x86.AVX2FMA || d%4 != 0 || d == 0 || hi <= lo {
		return false
	}
	dx32, dy32, g32 := any(dx).([]float32), any(dy).([]float32), any(gamma).([]float32)
	mean32, rstd32, acc32 := any(mean).([]float32), any(rstd).([]float32), any(acc).([]float32)
	_, _, _, _ = dx32[hi*d-1], dy32[hi*d-1], x32[hi*d-1], g32[d-1] // bounds, checked once
	_, _, _ = acc32[2*d-1], mean32[hi-1], rstd32[hi-1]
	accG, accB := &acc32[0], &acc32[d]
	for i := lo; i < hi; i++ {
		o := i * d
		mu, r := float64(mean32[i]), float64(rstd32[i])
		sg, sgx := lnGradSumsAVX2(&x32[o], &dy32[o], &g32[0], d, mu, r)
		sg /= float64(d)
		sgx /= float64(d)
		lnBackwardRowAVX2(&dx32[o], &x32[o], &dy32[o], &g32[0], accG, accB, d, mu, r, sg, sgx, mean32[i], rstd32[i], add)
	}
	return true
}

// lnForwardRowAVX2 is layerNormRows on one row of n entries, n a positive
// multiple of 4 and dn = float64(n), with the same bits; it returns μ and r.
//
//go:noescape
func lnForwardRowAVX2(y, x, gamma, beta *float32, n int, dn, eps float64) (mu, r float64)

// layerNormForwardVector is layerNormRows on the vector kernel: it
// reports false, doing nothing, unless the entries are float32, the
// machine has AVX2 and d is a multiple of 4.
func layerNormForwardVector[F tensor.Float](y, mean, rstd, x []F, lo, hi, d int, gamma, beta []F, eps float64) bool {
	x32, ok := any(x).([]float32)
	if !ok || !x86.AVX2FMA || d%4 != 0 || d == 0 || hi <= lo {
		return false
	}
	y32, m32, r32 := any(y).([]float32), any(mean).([]float32), any(rstd).([]float32)
	g32, b32 := any(gamma).([]float32), any(beta).([]float32)
	_, _, _, _ = y32[hi*d-1], x32[hi*d-1], g32[d-1], b32[d-1] // bounds, checked once
	_, _ = m32[hi-1], r32[hi-1]
	for i := lo; i < hi; i++ {
		mu, r := lnForwardRowAVX2(&y32[i*d], &x32[i*d], &g32[0], &b32[0], d, float64(d), eps)
		m32[i], r32[i] = float32(mu), float32(r)
	}
	return true
}
