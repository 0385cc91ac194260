package omdnet

import (
	"math"

	"github.com/icrl-go/icrl/learner/schedule"
)

// layout is the residual stream of the construction.
type layout struct {
	act    []int // the input's one-hot action (of the position's own outcome)
	reward int   // the input's reward
	one    int   // 1 at every position
	posI   int   // i, the position counted from 1
	posI2  int   // i²
	x      []int // the policy x held by the position
	ind    []int // the retrieved one-hot action a_k of the round being applied
	rew    int   // the retrieved reward r_k
	y      []int // y = x − c·η·ĝ, before the projection
	sorted []int // the copy of y that the projection sorts (nil: no sort)
	v      int   // (1/(x_{a_k} + β))/Φ
	w      int   // ℓ·v
	bank   [2][]int
	logits []int // the read-out's logits (the coordinates of y)
}

// maxSubsets is the largest number of actions whose projection takes the
// maximum over subsets (2^A − 1 affine functions, ⌈log₂(2^A − 1)⌉ blocks);
// larger games sort a copy of y (Batcher's network) and take the maximum
// over A prefix sums, which keeps the width linear in A.
const maxSubsets = 3

// linear is an affine function of the residual stream: Σ terms + c.
type linear struct {
	terms []term
	c     float64
}

// build lays out the residual stream and the stages of the construction.
func (c Config) build() (*net, embedding, error) {
	sched, inits, eps, err := c.validate()
	if err != nil {
		return nil, embedding{}, err
	}
	if c.OMD.States > 1 {
		return c.buildMarkov(sched, inits, eps)
	}
	init := inits[0]
	steps, err := c.matrixSteps(sched, init)
	if err != nil {
		return nil, embedding{}, err
	}
	A, T := c.OMD.Actions, c.OMD.Horizon
	prox := c.OMD.ProxFactor
	if prox == 0 {
		prox = 0.5
	}
	n := &net{}
	var L layout
	L.act = n.block("action", A)
	L.reward = n.coord("reward")
	L.one = n.coord("one")
	L.posI = n.coord("i")
	L.posI2 = n.coord("i²")
	L.x = n.block("x", A)
	L.ind = n.block("retrieved action", A)
	L.rew = n.coord("retrieved reward")
	L.y = n.block("y", A)
	L.v = n.coord("importance weight")
	L.w = n.coord("ℓ·weight")
	L.projectionScratch(n)
	L.logits = L.y // free after the last round

	emb := embedding{features: make([]int, A+2), posI: L.posI, posI2: L.posI2, one: L.one, logits: L.logits,
		width: A + 2, outputs: A, maxLen: T + 1}
	emb.features[0] = -1 // the BOS flag is not needed
	for a := range A {
		emb.features[1+a] = L.act[a]
		emb.consts = append(emb.consts, term{L.x[a], init[a]})
	}
	emb.features[A+1] = L.reward
	emb.consts = append(emb.consts, term{L.one, 1})

	sq, err := interpolate("square", func(z float64) float64 { return z * z }, func(z float64) float64 { return 2 * z },
		0, 2.2, func(float64) float64 { return eps })
	if err != nil {
		return nil, embedding{}, err
	}
	lo := slicesMin(init)
	for k, s := range steps {
		if err := L.round(n, k+1, s.Eta*prox, s, lo, eps, sq); err != nil {
			return nil, embedding{}, err
		}
		lo = s.Delta
	}
	if err := L.readoutOf(n, L.x, eps); err != nil {
		return nil, embedding{}, err
	}
	return n, emb, nil
}

// round adds the stages of the update of round k (in-context-games-omd
// §4.1; learner.OMD) with step sizes s and ce = c·η:
//
//	ĝ_a = ℓ·1{a = a_k}/(x_a + β) + ε·x_a,  ℓ = 1 − r_k,
//	y   = x − c·η·ĝ,  x ← Π_{Ω_δ}(y).
//
// lo is the floor of the policies the update sees and sq the interpolant of
// z² on [0, 2.2].
func (L *layout) round(n *net, k int, ce float64, s schedule.StepSizes, lo, eps float64, sq pwl) error {
	A := len(L.x)
	flag := func(w float64) []term { // w·Σ_b ind_b: 1 where round k is visible
		t := make([]term, A)
		for b := range A {
			t[b] = term{L.ind[b], w}
		}
		return t
	}
	// Gather: read round k's outcome, start y = x − cηε·x and weigh the
	// importance v = φ(x_{a_k})/Φ with φ(x) = 1/(x + β), Φ = φ(lo), as
	// Σ_a ind_a·φ̂(x_a)/Φ: every ReLU σ(x_a − t) of the interpolant φ̂ is
	// gated exactly by σ(x_a − t + ind_a − 1), since x_a − t ≤ 1.
	hi := 1.0
	if lo >= hi {
		hi = lo + 1
	}
	phi := func(x float64) float64 { return (lo + s.Beta) / (x + s.Beta) }
	dphi := func(x float64) float64 { return -(lo + s.Beta) / ((x + s.Beta) * (x + s.Beta)) }
	p, err := interpolate("importance weight", phi, dphi, lo, hi, func(float64) float64 { return eps })
	if err != nil {
		return err
	}
	g := n.add(k, "gather", true)
	g.attn = &retrieval{pos: k + 1, links: []link{{L.reward, L.rew}}}
	for a := range A {
		g.attn.links = append(g.attn.links, link{L.act[a], L.ind[a]})
	}
	ceps := ce * s.Epsilon
	g.unit(0, flag(1), term{L.v, p.values[0] - p.slope(0)*p.knots[0]})
	at, coef := p.hinges()
	for a := range A {
		g.copyTo(L.x[a], L.y[a], 1, false)
		if ceps > 0 { // cηε·x_a gated by the flag: σ(cηε·x_a − cηε·(1 − flag))
			g.unit(-ceps, append([]term{{L.x[a], ceps}}, flag(ceps)...), term{L.y[a], -1})
		}
		sel := []term{{L.x[a], 1}, {L.ind[a], 1}}
		g.unit(-1, sel, term{L.v, p.slope(0)})
		for i, t := range at {
			g.unit(-1-t, sel, term{L.v, coef[i]})
		}
	}
	// Product: w = ℓ·v = ((ℓ + v)² − (ℓ − v)²)/4 with ℓ = flag − r_k.
	pr := n.add(k, "product", true)
	plus := append(flag(1), term{L.rew, -1}, term{L.v, 1})
	minus := append(flag(1), term{L.rew, -1}, term{L.v, -1})
	neg := func(t []term) []term {
		u := make([]term, len(t))
		for i, x := range t {
			u[i] = term{x.c, -x.w}
		}
		return u
	}
	s0 := sq.slope(0)
	at, coef = sq.hinges()
	pr.unit(0, plus, term{L.w, s0 / 4})
	pr.unit(0, minus, term{L.w, -s0 / 4})
	pr.unit(0, neg(minus), term{L.w, -s0 / 4})
	for i, t := range at {
		pr.unit(-t, plus, term{L.w, coef[i] / 4})
		if t <= 1.1 { // |ℓ − v| ≤ 1 + ε
			pr.unit(-t, minus, term{L.w, -coef[i] / 4})
			pr.unit(-t, neg(minus), term{L.w, -coef[i] / 4})
		}
	}
	// Step: y_{a_k} −= cη·Φ·w, gated by the retrieved one-hot.
	st := n.add(k, "step", false)
	if cp := ce / (lo + s.Beta); cp > 0 {
		B := 1.1 * cp // w ≤ 1 + ε < 1.1
		for a := range A {
			out := []term{{L.y[a], -1}}
			if L.sorted != nil {
				out = append(out, term{L.sorted[a], -1})
			}
			st.unit(-B, []term{{L.w, cp}, {L.ind[a], B}}, out...)
		}
	}
	for a := range L.sorted { // the copy of y that the projection sorts
		st.copyTo(L.y[a], L.sorted[a], 1, true)
	}
	st.clear(L.w, true)
	st.clear(L.v, true)
	// Projection onto Ω_δ: x = δ + σ(y − δ − λ).
	delta := s.Delta
	lambda, read := L.maxTree(n, k, L.forms(n, k, linear{c: delta}))
	pj := n.add(k, "project", false)
	for a := range A {
		in := append([]term{{L.y[a], 1}}, scale(lambda.terms, -1)...)
		pj.unit(-delta-lambda.c, in, term{L.x[a], 1})
		pj.copyTo(L.x[a], L.x[a], -1, false)
		pj.constants = append(pj.constants, term{L.x[a], delta})
		pj.clear(L.y[a], true)
		pj.clear(L.ind[a], false)
	}
	pj.clear(L.rew, true)
	for _, c := range L.sorted {
		pj.clear(c, true)
	}
	if read >= 0 {
		pj.clear(L.bank[read][0], true)
	}
	return nil
}

// projectionScratch allocates the coordinates the projection of y needs
// besides y: the sorted copy (past maxSubsets actions) and the two banks of
// the maximum tree, sized for its first two levels.
func (L *layout) projectionScratch(n *net) {
	A := len(L.y)
	forms := 1<<A - 1
	if A > maxSubsets {
		L.sorted = n.block("sorted y", A)
		forms = A
	}
	L.bank[0] = n.block("max bank 0", (forms+1)/2)
	L.bank[1] = n.block("max bank 1", (forms+3)/4)
}

// maxTree adds the blocks that compute the maximum of the affine functions
// in level by pairwise maxima max(f, g) = f + σ(g − f), in the two banks in
// turn (each block clears the bank it reads), and returns the maximum as
// an affine function and the bank that holds it (−1: none, level has one
// function).
func (L *layout) maxTree(n *net, k int, level []linear) (linear, int) {
	read := -1 // the bank the current level lives in (−1: none)
	for len(level) > 1 {
		b := 0
		if read == 0 {
			b = 1
		}
		mx := n.add(k, "max", false)
		var next []linear
		for i := 0; i < len(level); i += 2 {
			dst := L.bank[b][i/2]
			f := level[i]
			mx.unit(f.c, f.terms, term{dst, 1})
			mx.unit(-f.c, scale(f.terms, -1), term{dst, -1})
			if i+1 < len(level) { // max(f, g) = f + σ(g − f)
				g := level[i+1]
				mx.unit(g.c-f.c, append(append([]term(nil), g.terms...), scale(f.terms, -1)...), term{dst, 1})
			}
			next = append(next, linear{terms: []term{{dst, 1}}})
		}
		if read >= 0 {
			for i := range level {
				mx.clear(L.bank[read][i], true)
			}
		}
		level, read = next, b
	}
	return level[0], read
}

// forms returns the affine functions of y whose maximum is the threshold λ
// of the projection onto Ω_δ, x = δ + σ(y − δ − λ), adding the stages of
// the sorting network when the layout sorts: with u = y − δ and
// r = 1 − A·δ, λ = max over k of (Σ_{i≤k} u_(i) − r)/k for u sorted in
// decreasing order (the threshold of the Euclidean projection onto the
// simplex of radius r), which equals the maximum over the non-empty subsets
// I of (Σ_{i∈I} u_i − r)/|I|.
func (L *layout) forms(n *net, k int, delta linear) []linear {
	A := len(L.y)
	// (Σ_{i∈I} y_i)/|I| − δ − (1 − A·δ)/|I| = (Σ_{i∈I} y_i)/|I| + (A/|I| − 1)·δ − 1/|I|.
	form := func(ys []int) linear {
		m := float64(len(ys))
		f := linear{c: -1/m + (float64(A)/m-1)*delta.c}
		for _, c := range ys {
			f.terms = append(f.terms, term{c, 1 / m})
		}
		f.terms = append(f.terms, scale(delta.terms, float64(A)/m-1)...)
		return f
	}
	var level []linear
	if L.sorted == nil {
		for set := 1; set < 1<<A; set++ {
			var ys []int
			for a := range A {
				if set>>a&1 == 1 {
					ys = append(ys, L.y[a])
				}
			}
			level = append(level, form(ys))
		}
		return level
	}
	for _, layer := range sortingNetwork(A) {
		so := n.add(k, "sort", false)
		for _, c := range layer { // (p, q) ← (max, min) = (p + σ(q − p), q − σ(q − p))
			p, q := L.sorted[c[0]], L.sorted[c[1]]
			so.unit(0, []term{{q, 1}, {p, -1}}, term{p, 1}, term{q, -1})
		}
	}
	for m := 1; m <= A; m++ {
		level = append(level, form(L.sorted[:m]))
	}
	return level
}

// sortingNetwork returns Batcher's odd–even merge sort on n wires (Knuth,
// TAOCP vol. 3, §5.3.4), its comparators (p, q), p < q, grouped into
// layers of disjoint comparators in order: after them every input is in
// decreasing order when each comparator puts the larger value on p.
func sortingNetwork(n int) [][][2]int {
	var layers [][][2]int
	depth := make([]int, n) // the layer after the last comparator on each wire
	for p := 1; p < n; p *= 2 {
		for k := p; k >= 1; k /= 2 {
			for j := k % p; j+k < n; j += 2 * k {
				for i := 0; i < k && i+j+k < n; i++ {
					if (i+j)/(2*p) != (i+j+k)/(2*p) {
						continue
					}
					a, b := i+j, i+j+k
					l := max(depth[a], depth[b])
					if l == len(layers) {
						layers = append(layers, nil)
					}
					layers[l] = append(layers[l], [2]int{a, b})
					depth[a], depth[b] = l+1, l+1
				}
			}
		}
	}
	return layers
}

// scale returns the terms multiplied by w.
func scale(t []term, w float64) []term {
	u := make([]term, len(t))
	for i, x := range t {
		u[i] = term{x.c, w * x.w}
	}
	return u
}

// readoutOf adds the stage that writes the logits z_a = log max(x_a, θ) of
// the policy in coordinates xs
// with θ = ε/(8A), each to within ε/(8A·x_a) where x_a ≥ θ: the softmax
// of the logits is then within ε/2 of x in ℓ1 (see the package
// documentation).
func (L *layout) readoutOf(n *net, xs []int, eps float64) error {
	A := len(xs)
	theta := eps / (8 * float64(A))
	p, err := interpolate("logarithm", math.Log, func(x float64) float64 { return 1 / x }, theta, 1,
		func(x float64) float64 { return eps / (8 * float64(A) * x) })
	if err != nil {
		return err
	}
	ro := n.add(0, "read-out", true)
	at, coef := p.hinges()
	for a := range A {
		ro.constants = append(ro.constants, term{L.logits[a], p.values[0]})
		ro.unit(-theta, []term{{xs[a], 1}}, term{L.logits[a], p.slope(0)})
		for i, t := range at {
			ro.unit(-t, []term{{xs[a], 1}}, term{L.logits[a], coef[i]})
		}
	}
	return nil
}
