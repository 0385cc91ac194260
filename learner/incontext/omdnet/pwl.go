package omdnet

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
)

// maxKnots bounds the knots of one interpolant, so that an accuracy too
// fine for the construction fails with an error instead of exhausting
// memory.
const maxKnots = 1 << 14

// pwl is a continuous piecewise-linear interpolant of a function f through
// the knots t_0 < t_1 < … < t_M with values f(t_m), written as a sum of
// ReLUs (in-context-games-omd Def. A.1):
//
//	g(x) = f(t_0) + s_0·(x − t_0) + Σ_{m=1}^{M−1} (s_m − s_{m−1})·σ(x − t_m)
//
// with s_m the slope of piece m. It extends linearly past both ends.
type pwl struct {
	knots  []float64 // t_0 … t_M
	values []float64 // f(t_m)
}

// slope returns the slope s_m of piece m.
func (p pwl) slope(m int) float64 {
	return (p.values[m+1] - p.values[m]) / (p.knots[m+1] - p.knots[m])
}

// hinges returns the inner knots t_1 … t_{M−1} and their coefficients
// s_m − s_{m−1}.
func (p pwl) hinges() (at, coef []float64) {
	for m := 1; m+1 < len(p.knots); m++ {
		at = append(at, p.knots[m])
		coef = append(coef, p.slope(m)-p.slope(m-1))
	}
	return at, coef
}

// eval returns g(x), the reference the tests compare the network with.
func (p pwl) eval(x float64) float64 {
	g := p.values[0] + p.slope(0)*(x-p.knots[0])
	at, coef := p.hinges()
	for i, t := range at {
		g += coef[i] * max(0, x-t)
	}
	return g
}

// interpolate returns the interpolant of f on [lo, hi] with the fewest
// knots that a greedy sweep from lo finds, such that |f − g| ≤ tol(t') on
// every piece [t, t'], for f convex or concave on [lo, hi] with derivative
// df (monotone there). tol must be positive and non-increasing in its
// argument, which it is called with at the right end of each piece. It
// fails with an error wrapping [icrl.ErrTooLarge] past maxKnots knots.
func interpolate(name string, f, df func(float64) float64, lo, hi float64, tol func(float64) float64) (pwl, error) {
	p := pwl{knots: []float64{lo}, values: []float64{f(lo)}}
	// chordErr is the largest |f − chord| on [a, b]: for convex or concave
	// f it is reached where f' equals the chord's slope.
	chordErr := func(a, b float64) float64 {
		fa, fb := f(a), f(b)
		s := (fb - fa) / (b - a)
		x0, x1 := a, b
		inc := df(b) > df(a)
		for range 64 {
			m := 0.5 * (x0 + x1)
			if (df(m) < s) == inc {
				x0 = m
			} else {
				x1 = m
			}
		}
		xi := 0.5 * (x0 + x1)
		return math.Abs(f(xi) - (fa + s*(xi-a)))
	}
	for t := lo; t < hi; {
		if len(p.knots) > maxKnots {
			return pwl{}, fmt.Errorf("%w: the %s interpolant needs more than %d knots: accuracy too fine", icrl.ErrTooLarge, name, maxKnots)
		}
		next := hi
		if chordErr(t, hi) > tol(hi) {
			a, b := t, hi // chordErr(t, a) ≤ tol(a), chordErr(t, b) > tol(b)
			for range 52 {
				m := 0.5 * (a + b)
				if chordErr(t, m) <= tol(m) {
					a = m
				} else {
					b = m
				}
			}
			next = a
			if !(next > t) {
				return pwl{}, fmt.Errorf("%w: the %s interpolant cannot reach accuracy %v at %v", icrl.ErrInvalid, name, tol(t), t)
			}
		}
		p.knots = append(p.knots, next)
		p.values = append(p.values, f(next))
		t = next
	}
	return p, nil
}
