package metalearn

import ()

// scaledProduct stores c(a)·e(a)/Σ_b c(b)·e(b) in dst and reports true,
// or reports false (leaving dst undefined) if the sum or a term of an
// entry with c(a) > 0 is below 1e-250, where the product form could lose
// precision or underflow.
func scaledProduct(dst, c, e []float64) bool {
	const tiny = 1e-250
	var sum float64
	for a, ca := range c {
		x := ca * e[a]
		if ca > 0 && x < tiny {
			return false
		}
		dst[a] = x
		sum += x
	}
	if sum < tiny {
		return false
	}
	inv := 1 / sum
	for a := range dst {
		dst[a] *= inv
	}
	return true
}

// constant reports whether every entry of g equals the first.
func constant(g []float64) bool {
	for _, v := range g[1:] {
		if v != g[0] {
			return false
		}
	}
	return true
}
