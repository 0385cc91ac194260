package metalearn

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// maxOf returns the largest entry of x (−∞ for an empty x).
func maxOf(x []float64) float64 {
	best := math.Inf(-1)
	for _, v := range x {
		best = max(best, v)
	}
	return best
}

// zsGradients stores gm = [Q ν](s,·) and gn = −[μᵀQ](s,·) for the
// row-major A×B matrix q and returns ⟨μ, Q ν⟩.
func zsGradients(gm, gn, q, m, n []float64) float64 {
	B := len(n)
	clear(gn)
	var v float64
	for a, pa := range m {
		row := q[a*B : (a+1)*B]
		var x float64
		for b, pb := range n {
			x += row[b] * pb
			gn[b] -= pa * row[b]
		}
		gm[a] = x
		v += pa * x
	}
	return v
}

// hindsightBR stores in dst the KL-minimal maximiser of ⟨x, score⟩ over
// the simplex (klMinBestResponse, Algorithm 1). If every score is equal, as
// in stage 1 where Q ≡ 0, the whole simplex maximises and the result is
// init itself, copied exactly (tested).
func hindsightBR(dst, init, score []float64, tol float64) {
	for _, v := range score[1:] {
		if v != score[0] {
			klMinBestResponse(dst, init, score, tol)
			return
		}
	}
	copy(dst, init)
}

// oomdStep performs the two entropic steps of lines 5 and 6 of
// Algorithm 1 for one player, step and state: with the gradient g (the
// same in both lines), it replaces the prox centre hat = μ̂^{t−1} by
//
//	μ̂^t ∝ μ̂^{t−1}·exp(η g)
//
// and stores the played policy μ^t ∝ μ̂^t·exp(η g) in x. Each line is
// mwuStep's closed form (Algorithm 1); the two share the factors
// exp(η(g(a) − max g)), computed once, so the pair costs one exponential
// per action and no logarithm. The maximum runs over the support of hat,
// so both normalisers are at least the mass of a maximising action of the
// support; entries outside the support stay 0. A gradient that is constant
// over the actions (in particular zero, as in stage 1 where Q ≡ 0) leaves
// the centre unchanged exactly and copies it to x, which the closed form
// guarantees only up to round-off. e is scratch space of
// length ≥ len(g).
func oomdStep(hat, x, g []float64, eta float64, e []float64) {
	constant := true
	for _, v := range g[1:] {
		if v != g[0] {
			constant = false
			break
		}
	}
	if constant {
		copy(x, hat)
		return
	}
	m := math.Inf(-1)
	for a, c := range hat {
		if c > 0 && g[a] > m {
			m = g[a]
		}
	}
	e = e[:len(g)]
	var z float64
	for a, c := range hat {
		if c > 0 {
			e[a] = math.Exp(eta * (g[a] - m))
			z += c * e[a]
		} else {
			e[a] = 0
		}
	}
	var z2 float64
	for a, c := range hat {
		c = c * e[a] / z
		hat[a] = c
		z2 += c * e[a]
	}
	for a, c := range hat {
		x[a] = c * e[a] / z2
	}
}

// addTo adds x to dst element-wise.
func addTo(dst, x []float64) {
	for i, v := range x {
		dst[i] += v
	}
}

// averagePolicy returns the H×S×A Markov policy sum/n of the flat sums.
func averagePolicy(sum []float64, n, H, S, A int) *markov.Policy {
	inv := 1 / float64(n)
	flat := make([]float64, len(sum))
	for i, v := range sum {
		flat[i] = v * inv
	}
	p, err := tensor.FromData(flat, H, S, A)
	if err != nil {
		panic(fmt.Sprintf("metalearn: average policy of %d×%d×%d: %v", H, S, A, err))
	}
	return p
}

// zsCheckpoint evaluates the running average of the first t iterations.
func zsCheckpoint(g *markov.Episodic, t int, tMu, tNu []float64) (ZeroSumCheckpoint, error) {
	H, S := g.Horizon(), g.States()
	mu := averagePolicy(tMu, t, H, S, g.Actions(0))
	nu := averagePolicy(tNu, t, H, S, g.Actions(1))
	gap, err := g.ZeroSumNEGap(mu, nu)
	if err != nil {
		return ZeroSumCheckpoint{}, fmt.Errorf("metalearn: checkpoint t = %d: %w", t, err)
	}
	V, err := g.Values(markov.Product{mu, nu})
	if err != nil {
		return ZeroSumCheckpoint{}, fmt.Errorf("metalearn: checkpoint t = %d: %w", t, err)
	}
	return ZeroSumCheckpoint{T: t, Gap: gap, Value: V.At(0, 0, g.Start())}, nil
}
