package omdnet

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl/learner/schedule"
)

// markovLayout is the residual stream of the Markov construction: the
// matrix layout's coordinates for the updated state's policy, and per
// state the policy, the value estimate and the visit count.
type markovLayout struct {
	layout
	state  []int   // the input's one-hot state (state positions)
	xs     [][]int // x(s) for every state
	value  []int   // V(s)
	visits []int   // n(s)
	cur    []int   // the retrieved one-hot of s_k
	next   []int   // the retrieved one-hot of s_{k+1}
	xk     []int   // x(s_k)
	tau    int     // τ − 1 = n(s_k) before round k
	vk     int     // V(s_k)
	vnext  int     // V(s_{k+1})
	xa     int     // x_{a_k}(s_k)
	sizes  [6]int  // β_τ, η_τ, ε_τ, α_τ, δ_τ, η_τ·ε_τ
	p1     int     // ℓ·φ/Φ
	p2     int     // α_τ·(q − V(s_k))/U
	p3     int     // η_τ·p1/η_max
	own    []int   // the policy of the position's own state, for the read-out
	u      float64 // U = 1/(1 − γ)
}

// Indices of markovLayout.sizes.
const (
	sizeBeta = iota
	sizeEta
	sizeEps
	sizeAlpha
	sizeDelta
	sizeEtaEps
)

// markovSteps returns, for every round k, the step sizes of its visits
// τ = 1 … k (steps[k−1][τ−1]), validated as learner.OMD validates them.
func (c Config) markovSteps(sched schedule.Schedule) ([][]schedule.StepSizes, error) {
	A, T := c.OMD.Actions, c.OMD.Horizon
	steps := make([][]schedule.StepSizes, T)
	for k := 1; k <= T; k++ {
		steps[k-1] = make([]schedule.StepSizes, k)
		for tau := 1; tau <= k; tau++ {
			s := sched.At(k, tau, T, A)
			if c.OMD.Eta > 0 {
				s.Eta = c.OMD.Eta
			}
			if err := checkStep(s, A, k); err != nil {
				return nil, fmt.Errorf("%w (visit %d)", err, tau)
			}
			if !(s.Alpha >= 0 && s.Alpha <= 1) {
				return nil, badConfig("the schedule gives α = %v at round %d, visit %d: must lie in [0, 1]", s.Alpha, k, tau)
			}
			steps[k-1][tau-1] = s
		}
	}
	return steps, nil
}

// interpolateInts returns a piecewise-linear interpolant of f on the
// integers lo … hi with knots at integers, each piece as long as f stays
// within tol of its chord at every integer it spans.
func interpolateInts(f func(int) float64, lo, hi int, tol float64) pwl {
	if hi <= lo {
		return pwl{knots: []float64{float64(lo), float64(lo) + 1}, values: []float64{f(lo), f(lo)}}
	}
	p := pwl{knots: []float64{float64(lo)}, values: []float64{f(lo)}}
	for i := lo; i < hi; {
		j := i + 1
		for j < hi {
			ok := true
			for m := i + 1; m <= j; m++ { // the piece [i, j+1]
				chord := f(i) + (f(j+1)-f(i))*float64(m-i)/float64(j+1-i)
				if math.Abs(f(m)-chord) > tol {
					ok = false
					break
				}
			}
			if !ok {
				break
			}
			j++
		}
		p.knots = append(p.knots, float64(j))
		p.values = append(p.values, f(j))
		i = j
	}
	return p
}

// addPWL adds to stage st the units that add w·g(x) to coordinate dst,
// for g an interpolant and x an affine function of the residual stream
// (extended linearly past the knots).
func (st *stage) addPWL(g pwl, x linear, dst int, w float64) {
	s0 := g.slope(0)
	st.constants = append(st.constants, term{dst, w * (g.values[0] - s0*g.knots[0])})
	st.unit(x.c, x.terms, term{dst, w * s0})
	st.unit(-x.c, scale(x.terms, -1), term{dst, -w * s0})
	at, coef := g.hinges()
	for i, t := range at {
		st.unit(x.c-t, x.terms, term{dst, w * coef[i]})
	}
}

// product adds to stage st the units that add w·u·v to each of out's
// coordinates (times its weight), for |u| ≤ uMax and |v| ≤ vMax (u, v ≥ 0
// when not signed), through u·v = uMax·vMax·((u' + v')² − (u' − v')²)/4
// with u' = u/uMax, v' = v/vMax and the interpolant sq of z² on [0, 2.2]
// (each square within its accuracy).
func (st *stage) product(u linear, uMax float64, v linear, vMax float64, signed bool, sq pwl, out ...term) {
	s0 := sq.slope(0)
	at, coef := sq.hinges()
	sum := func(a, b float64) linear { // a·u' + b·v'
		l := linear{c: a*u.c/uMax + b*v.c/vMax}
		l.terms = append(scale(u.terms, a/uMax), scale(v.terms, b/vMax)...)
		return l
	}
	outs := func(w float64) []term {
		o := make([]term, len(out))
		for i, t := range out {
			o[i] = term{t.c, t.w * w * uMax * vMax / 4}
		}
		return o
	}
	for _, side := range [...]struct {
		z     linear
		sign  float64
		reach float64 // the largest |z|
		both  bool    // z may be negative
	}{{sum(1, 1), 1, 2.2, signed}, {sum(1, -1), -1, 1.1, true}} {
		if signed {
			side.reach = 2.2
		}
		halves := []float64{1}
		if side.both {
			halves = append(halves, -1)
		}
		for _, h := range halves {
			z := linear{c: h * side.z.c, terms: scale(side.z.terms, h)}
			st.unit(z.c, z.terms, outs(side.sign*s0)...)
			for i, t := range at {
				if t <= side.reach {
					st.unit(z.c-t, z.terms, outs(side.sign*coef[i])...)
				}
			}
		}
	}
}

// selectBy adds to stage st the units that add Σ_s 1{s}·value[s] to dst,
// for one-hot indicators ind and values in [0, bound]: each product is the
// exact gate σ(value − bound·(1 − ind)).
func (st *stage) selectBy(ind, value []int, bound float64, dst int) {
	for s := range ind {
		st.unit(-bound, []term{{value[s], 1}, {ind[s], bound}}, term{dst, 1})
	}
}

// buildMarkov lays out the Markov construction: Algorithm 1 of
// in-context-games-omd §4.3 as learner.OMD runs it (see the package
// documentation).
func (c Config) buildMarkov(sched schedule.Schedule, init [][]float64, eps float64) (*net, embedding, error) {
	S, A, T := c.OMD.States, c.OMD.Actions, c.OMD.Horizon
	steps, err := c.markovSteps(sched)
	if err != nil {
		return nil, embedding{}, err
	}
	prox := c.OMD.ProxFactor
	if prox == 0 {
		prox = 0.5
	}
	n := &net{}
	var L markovLayout
	L.u = 1 / (1 - c.OMD.Discount)
	L.state = n.block("state", S)
	L.act = n.block("action", A)
	L.reward = n.coord("reward")
	L.one = n.coord("one")
	L.posI = n.coord("i")
	L.posI2 = n.coord("i²")
	for s := range S {
		L.xs = append(L.xs, n.block(fmt.Sprintf("x(%d)", s), A))
	}
	L.value = n.block("V", S)
	L.visits = n.block("n", S)
	L.cur = n.block("s_k", S)
	L.ind = n.block("a_k", A)
	L.rew = n.coord("r_k")
	L.next = n.block("s_{k+1}", S)
	L.xk = n.block("x(s_k)", A)
	L.tau = n.coord("τ − 1")
	L.vk = n.coord("V(s_k)")
	L.vnext = n.coord("V(s_{k+1})")
	L.xa = n.coord("x_{a_k}(s_k)")
	for i := range L.sizes {
		L.sizes[i] = n.coord(fmt.Sprintf("step size %d", i))
	}
	L.v = n.coord("importance weight")
	L.p1 = n.coord("ℓ·weight")
	L.p2 = n.coord("α·(q − V)")
	L.p3 = n.coord("η·ℓ·weight")
	L.y = n.block("y", A)
	L.projectionScratch(n)
	L.own = L.xk // free after the last round
	L.logits = L.y

	width := S + A + 2
	emb := embedding{features: make([]int, width), posI: L.posI, posI2: L.posI2, one: L.one, logits: L.logits,
		width: width, outputs: A, maxLen: 2*T + 2}
	emb.features[0] = -1
	for s := range S {
		emb.features[1+s] = L.state[s]
		for a := range A {
			emb.consts = append(emb.consts, term{L.xs[s][a], init[s][a]})
		}
		emb.consts = append(emb.consts, term{L.value[s], L.u / 2})
	}
	for a := range A {
		emb.features[1+S+a] = L.act[a]
	}
	emb.features[S+A+1] = L.reward
	emb.consts = append(emb.consts, term{L.one, 1})

	sq, err := interpolate("square", func(z float64) float64 { return z * z }, func(z float64) float64 { return 2 * z },
		0, 2.2, func(float64) float64 { return eps })
	if err != nil {
		return nil, embedding{}, err
	}
	lo := 1.0
	for s := range S {
		lo = min(lo, slicesMin(init[s]))
	}
	for k := 1; k <= T; k++ {
		if err := L.markovRound(n, k, steps[k-1], prox, c.OMD.Discount, lo, eps, sq); err != nil {
			return nil, embedding{}, err
		}
		for _, s := range steps[k-1] {
			lo = min(lo, s.Delta)
		}
	}
	// Read-out: the policy of the position's own state, then its logarithm.
	sel := n.add(0, "own state", false)
	for a := range A {
		col := make([]int, S)
		for s := range S {
			col[s] = L.xs[s][a]
		}
		sel.selectBy(L.state, col, 1, L.own[a])
	}
	if err := L.readoutOf(n, L.own, eps); err != nil {
		return nil, embedding{}, err
	}
	return n, emb, nil
}

// write adds the last block of round k: x(s_k) ← δ + σ(y − δ − λ), each
// term gated by 1{s = s_k} and the flag, and every scratch coordinate
// cleared.
func (L *markovLayout) write(n *net, k int, lambda linear, read int, flag func(w float64) []term) {
	gate := func(s int, w float64) []term { return append(flag(w), term{L.cur[s], w}) }
	S, A := len(L.xs), len(L.y)
	w := n.add(k, "write", false)
	const Bw = 8 // |y_a − δ − λ| ≤ Bw where the gate is 0
	for s := range S {
		for a := range A {
			x := L.xs[s][a]
			in := append(append([]term{{L.y[a], 1}, {L.sizes[sizeDelta], -1}}, gate(s, Bw)...), scale(lambda.terms, -1)...)
			w.unit(-lambda.c-2*Bw, in, term{x, 1})
			w.unit(-2, append(gate(s, 1), term{L.sizes[sizeDelta], 1}), term{x, 1})
			w.unit(-2, append(gate(s, 1), term{x, 1}), term{x, -1})
		}
	}
	for _, c := range [][]int{L.cur, L.ind, L.next, L.xk, L.y, L.sorted, L.sizes[:]} {
		for _, x := range c {
			w.clear(x, true)
		}
	}
	for _, x := range []int{L.rew, L.tau, L.vk, L.vnext, L.xa, L.v, L.p1, L.p2, L.p3} {
		w.clear(x, true)
	}
	if read >= 0 {
		w.clear(L.bank[read][0], true)
	}
}

// stepFunctions returns the step sizes of the visits τ = 1 … k as
// interpolants of τ − 1 through the integers, each within ε of its
// largest value there, and their largest values (indexed as
// markovLayout.sizes).
func stepFunctions(steps []schedule.StepSizes, eps float64) ([6]pwl, [6]float64) {
	get := [...]func(s schedule.StepSizes) float64{
		sizeBeta:   func(s schedule.StepSizes) float64 { return s.Beta },
		sizeEta:    func(s schedule.StepSizes) float64 { return s.Eta },
		sizeEps:    func(s schedule.StepSizes) float64 { return s.Epsilon },
		sizeAlpha:  func(s schedule.StepSizes) float64 { return s.Alpha },
		sizeDelta:  func(s schedule.StepSizes) float64 { return s.Delta },
		sizeEtaEps: func(s schedule.StepSizes) float64 { return s.Eta * s.Epsilon },
	}
	var fns [6]pwl
	var top [6]float64
	for i, g := range get {
		for _, s := range steps {
			top[i] = max(top[i], g(s))
		}
		fns[i] = interpolateInts(func(m int) float64 { return g(steps[m]) }, 0, len(steps)-1, eps*max(top[i], 1e-300))
	}
	return fns, top
}

// markovRound adds the blocks of round k of Algorithm 1 (learner.OMD with
// S states and discount γ): with s = s_k, τ = n(s) + 1, q = r_k + γ·V(s_{k+1})
// and ℓ = 1 − q/U,
//
//	ĝ_a = ℓ·1{a = a_k}/(x_a(s) + β_τ) + ε_τ·x_a(s),
//	x(s) ← Π_{Ω_δτ}(x(s) − c·η_τ·ĝ),   V(s) ← V(s) + α_τ·(q − V(s)),   n(s) ← τ,
//
// at every position that sees s_{k+1} (position 2k+2), and nothing elsewhere.
func (L *markovLayout) markovRound(n *net, k int, steps []schedule.StepSizes, prox, gamma, lo, eps float64, sq pwl) error {
	S, A, maxVisits := len(L.xs), len(L.y), float64(len(steps))
	U := L.u
	fns, top := stepFunctions(steps, eps)
	betaMin := math.Inf(1)
	for _, s := range steps {
		betaMin = min(betaMin, s.Beta)
	}
	uLo, uHi := lo+betaMin, 1+top[sizeBeta]
	if !(uLo > 0) {
		return badConfig("the schedule gives β = 0 at round %d while the policy may reach 0: the importance weight 1/(x + β) is unbounded", k)
	}
	flag := func(w float64) []term {
		t := make([]term, S)
		for s := range S {
			t[s] = term{L.next[s], w}
		}
		return t
	}
	links := func(src, dst []int) []link {
		l := make([]link, len(src))
		for i := range src {
			l[i] = link{src[i], dst[i]}
		}
		return l
	}
	// 1. Read s_k; select x(s_k), τ − 1 and V(s_k).
	b1 := n.add(k, "state", false)
	b1.attn = &retrieval{pos: 2 * k, links: links(L.state, L.cur)}
	for a := range A {
		col := make([]int, S)
		for s := range S {
			col[s] = L.xs[s][a]
		}
		b1.selectBy(L.cur, col, 1, L.xk[a])
	}
	b1.selectBy(L.cur, L.visits, maxVisits, L.tau)
	b1.selectBy(L.cur, L.value, U, L.vk)
	// 2. Read (a_k, r_k); the step sizes of visit τ; x_{a_k}(s_k).
	b2 := n.add(k, "outcome", true)
	b2.attn = &retrieval{pos: 2*k + 1, links: append(links(L.act, L.ind), link{L.reward, L.rew})}
	for i := range fns {
		b2.addPWL(fns[i], linear{terms: []term{{L.tau, 1}}}, L.sizes[i], 1)
	}
	b2.selectBy(L.ind, L.xk, 1, L.xa)
	// 3. Read s_{k+1}; V(s_{k+1}); φ(x_{a_k} + β_τ)/Φ; y = x(s_k) − c·η_τε_τ·x(s_k).
	b3 := n.add(k, "next state", true)
	b3.attn = &retrieval{pos: 2*k + 2, links: links(L.state, L.next)}
	b3.selectBy(L.next, L.value, U, L.vnext)
	phi, err := interpolate("importance weight", func(u float64) float64 { return uLo / u }, func(u float64) float64 { return -uLo / (u * u) },
		uLo, uHi, func(float64) float64 { return eps })
	if err != nil {
		return err
	}
	b3.addPWL(phi, linear{terms: []term{{L.xa, 1}, {L.sizes[sizeBeta], 1}}}, L.v, 1)
	for a := range A {
		b3.copyTo(L.xk[a], L.y[a], 1, false)
		b3.product(linear{terms: []term{{L.sizes[sizeEtaEps], 1}}}, max(top[sizeEtaEps], 1e-300), linear{terms: []term{{L.xk[a], 1}}}, 1, false, sq, term{L.y[a], -prox})
	}
	// 4. ℓ·φ/Φ and α_τ·(q − V(s_k))/U, with q = r_k + γ·V(s_{k+1}) and
	// ℓ = flag − q/U (1 − q/U where s_{k+1} is visible).
	b4 := n.add(k, "products", true)
	ell := linear{terms: append(flag(1), term{L.rew, -1 / U}, term{L.vnext, -gamma / U})}
	b4.product(ell, 1, linear{terms: []term{{L.v, 1}}}, 1, false, sq, term{L.p1, 1})
	dq := linear{terms: []term{{L.rew, 1 / U}, {L.vnext, gamma / U}, {L.vk, -1 / U}}}
	b4.product(linear{terms: []term{{L.sizes[sizeAlpha], 1}}}, 1, dq, 1, true, sq, term{L.p2, 1})
	// 5. η_τ·ℓ·φ/Φ; V(s_k) += U·p2 and n(s_k) += 1, gated by 1{s = s_k} and
	// the flag (each gate an exact σ(u − B·(1 − 1{s = s_k}) − B·(1 − flag))).
	etaMax := max(top[sizeEta], 1e-300)
	b5 := n.add(k, "step size", false)
	b5.product(linear{terms: []term{{L.sizes[sizeEta], 1}}}, etaMax, linear{terms: []term{{L.p1, 1}}}, 1, false, sq, term{L.p3, 1 / etaMax})
	B := 4 * U
	gate := func(s int, w float64) []term { return append(flag(w), term{L.cur[s], w}) }
	for s := range S {
		b5.unit(-2*B, append(gate(s, B), term{L.p2, U}), term{L.value[s], 1})
		b5.unit(-2*B, append(gate(s, B), term{L.p2, -U}), term{L.value[s], -1})
		b5.unit(-1, gate(s, 1), term{L.visits[s], 1})
	}
	// 6. y_{a_k} −= c·η_τ·Φ·ℓ·φ, gated by the one-hot of a_k.
	b6 := n.add(k, "step", false)
	cp := prox * etaMax / uLo
	Bs := 1.1 * cp
	for a := range A {
		out := []term{{L.y[a], -1}}
		if L.sorted != nil {
			out = append(out, term{L.sorted[a], -1})
		}
		b6.unit(-Bs, []term{{L.p3, cp}, {L.ind[a], Bs}}, out...)
	}
	for a := range L.sorted {
		b6.copyTo(L.y[a], L.sorted[a], 1, true)
	}
	// 7. The projection onto Ω_δτ, written into x(s_k) through the gates.
	lambda, read := L.maxTree(n, k, L.forms(n, k, linear{terms: []term{{L.sizes[sizeDelta], 1}}}))
	L.write(n, k, lambda, read, flag)
	return nil
}
