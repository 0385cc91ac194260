package metalearn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/markov"
)

// This file implements the softmax policy gradient (45) of the potential of
// a Markov team in multi-agent-meta-rl, its Hessian (Lemma 15) and exact
// Hessian-vector products.

// potGame holds the constant data of a discounted Markov team for the
// policy-gradient computations, and scratch space for Hessian-vector
// products. It is used by one goroutine at a time.
type potGame struct {
	g        *markov.DiscountedGeneralSum
	kern     markov.Kernel // g's transitions
	S, N, J  int
	P        int   // number of parameters
	A, off   []int // off[i] = offset of player i's block; off[N] = P
	act      []int // act[j*N+i]
	gamma    float64
	rho      []float64
	r        []float64 // r[s*J+j], the shared reward
	pre, suf []float64
	// HVP scratch; pv[s·J+j] = Σ_{s'} P(s'|s, j) V̇(s').
	u, U, Y, Yb   []float64
	pv            []float64
	c, e, vd, wd  []float64
	cvec, evec    *mat.VecDense
	vdvec, wdvec  *mat.VecDense
	rpi, rhoCopy  []float64
	rpiVec, rhoVc *mat.VecDense
}

// potState is the evaluation of a team at one parameter θ: the policies,
// the LU factorisation of I − γP_π, the value V, the discounted occupancy
// w = ρᵀ(I − γP_π)^{−1} = d_ρ/(1−γ), Q and the averaged Q̄_i.
type potState struct {
	pi     []float64 // pi[off[i]+s*A_i+a] = π_i(a|s)
	pj     []float64 // pj[s*J+j] = π(j|s)
	m      *mat.Dense
	lu     mat.LU
	V, w   []float64
	vV, vw *mat.VecDense // views of V and w
	Q      []float64     // Q[s*J+j]
	Qbar   []float64     // Qbar[off[i]+s*A_i+a]
}

// newPotGame returns the policy-gradient data of g, or an error if g is
// nil or not a Markov team. where prefixes error messages.
func newPotGame(m markov.GeneralSumModel, where string) (*potGame, error) {
	if nilness.Is(m) {
		return nil, fmt.Errorf("%w: %snil game", icrl.ErrInvalid, where)
	}
	g, err := markov.Tabulate(m)
	if err != nil {
		return nil, fmt.Errorf("metalearn: %s%w", where, err)
	}
	if !g.Cooperative() {
		return nil, fmt.Errorf("%w: %sthe game is not a Markov team: the potential Φ is only available for teams", icrl.ErrInvalid, where)
	}
	N, S, J := g.Players(), g.States(), g.NumJoint()
	pg := &potGame{g: g, kern: g.Kernel(), S: S, N: N, J: J, gamma: g.Discount(), rho: g.Initial(),
		A: make([]int, N), off: make([]int, N+1)}
	for i := range N {
		pg.A[i] = g.Actions(game.Player(i))
		pg.off[i+1] = pg.off[i] + S*pg.A[i]
	}
	pg.P = pg.off[N]
	pg.act = potActTable(J, N, g.Split)
	pg.r = make([]float64, S*J)
	for s := range S {
		for j := range J {
			pg.r[s*J+j] = g.Reward(s, j, 0)
		}
	}
	pg.pre = make([]float64, N+1)
	pg.suf = make([]float64, N+1)
	pg.u = make([]float64, pg.P)
	pg.Yb = make([]float64, pg.P)
	pg.U = make([]float64, S*J)
	pg.Y = make([]float64, S*J)
	pg.pv = make([]float64, S*J)
	pg.c, pg.e, pg.vd, pg.wd = make([]float64, S), make([]float64, S), make([]float64, S), make([]float64, S)
	pg.cvec, pg.evec = mat.NewVecDense(S, pg.c), mat.NewVecDense(S, pg.e)
	pg.vdvec, pg.wdvec = mat.NewVecDense(S, pg.vd), mat.NewVecDense(S, pg.wd)
	pg.rpi = make([]float64, S)
	pg.rpiVec = mat.NewVecDense(S, pg.rpi)
	pg.rhoCopy = make([]float64, S)
	pg.rhoVc = mat.NewVecDense(S, pg.rhoCopy)
	return pg, nil
}

// newState allocates an evaluation state.
func (pg *potGame) newState() *potState {
	S := pg.S
	st := &potState{
		pi: make([]float64, pg.P), pj: make([]float64, S*pg.J),
		m: mat.NewDense(S, S, nil),
		V: make([]float64, S), w: make([]float64, S),
		Q: make([]float64, S*pg.J), Qbar: make([]float64, pg.P),
	}
	st.vV, st.vw = mat.NewVecDense(S, st.V), mat.NewVecDense(S, st.w)
	return st
}

// marginals adds to dst[off[i]+s*A_i+a] the contraction
// Σ_{j: a_i(j)=a} x[j] Π_{k≠i} π_k(a_k(j)|s) for every player i, by prefix
// and suffix products in O(J·N).
func (pg *potGame) marginals(st *potState, s int, x, dst []float64) {
	N := pg.N
	pre, suf := pg.pre, pg.suf
	for j, xj := range x {
		a := pg.act[j*N : (j+1)*N]
		suf[N] = 1
		for k := N - 1; k >= 0; k-- {
			suf[k] = suf[k+1] * st.pi[pg.off[k]+s*pg.A[k]+a[k]]
		}
		pre[0] = 1
		for i := range N {
			dst[pg.off[i]+s*pg.A[i]+a[i]] += pre[i] * suf[i+1] * xj
			pre[i+1] = pre[i] * st.pi[pg.off[i]+s*pg.A[i]+a[i]]
		}
	}
}

// eval evaluates the team at the flat parameter th into st: the softmax
// policies, π(j|s), the LU factorisation of I − γP_π, V = (I − γP_π)^{−1}
// r_π, w = (I − γP_π)^{−T} ρ, Q = r + γPV and Q̄_i. The cost is
// O(S·J·(S+N) + S³).
func (pg *potGame) eval(st *potState, th []float64) error {
	S, N, J := pg.S, pg.N, pg.J
	for i := range N {
		A := pg.A[i]
		for s := range S {
			k := pg.off[i] + s*A
			simplex.Softmax(st.pi[k:k+A], th[k:k+A])
		}
	}
	md := st.m.RawMatrix().Data
	clear(md)
	for s := range S {
		row := md[s*S : (s+1)*S]
		var rs float64
		for j := range J {
			x := 1.0
			for k := range N {
				x *= st.pi[pg.off[k]+s*pg.A[k]+pg.act[j*N+k]]
			}
			st.pj[s*J+j] = x
			if x == 0 {
				continue
			}
			rs += x * pg.r[s*J+j]
			markov.AddRow(row, pg.kern, s, j, -pg.gamma*x)
		}
		row[s] += 1
		pg.rpi[s] = rs
	}
	st.lu.Factorize(st.m)
	if err := st.lu.SolveVecTo(st.vV, false, pg.rpiVec); err != nil {
		return fmt.Errorf("metalearn: policy evaluation: %w", err)
	}
	copy(pg.rhoCopy, pg.rho)
	if err := st.lu.SolveVecTo(st.vw, true, pg.rhoVc); err != nil {
		return fmt.Errorf("metalearn: visitation: %w", err)
	}
	pg.kern.Expect(st.Q, st.V, 1)
	for k, ev := range st.Q {
		st.Q[k] = pg.r[k] + pg.gamma*ev
	}
	clear(st.Qbar)
	for s := range S {
		pg.marginals(st, s, st.Q[s*J:(s+1)*J], st.Qbar)
	}
	for _, x := range st.V {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: policy evaluation produced a non-finite value", icrl.ErrNotFinite)
		}
	}
	return nil
}

// phi returns Φ = ρᵀV.
func (pg *potGame) phi(st *potState) float64 { return floats.Dot(pg.rho, st.V) }

// grad stores ∇Φ in dst: (45), ∂Φ/∂θ_i(a|s) = w(s) π_i(a|s) (Q̄_i(s,a) − V(s)),
// with w = d_ρ/(1−γ).
func (pg *potGame) grad(st *potState, dst []float64) {
	for i := range pg.N {
		A := pg.A[i]
		for s := range pg.S {
			k := pg.off[i] + s*A
			for a := range A {
				dst[k+a] = st.w[s] * st.pi[k+a] * (st.Qbar[k+a] - st.V[s])
			}
		}
	}
}

// hvp stores ∇²Φ(θ)·v in dst (dst must not alias v), as the directional
// derivative of grad along v (see [PotentialHVP]). The cost is
// O(S·J·(S+N) + S²) with the factorisation of st reused.
func (pg *potGame) hvp(st *potState, v, dst []float64) error {
	S, N, J := pg.S, pg.N, pg.J
	// u = centred v: π̇_i(a|s) = π_i(a|s) u_i(s,a).
	for i := range N {
		A := pg.A[i]
		for s := range S {
			k := pg.off[i] + s*A
			mean := floats.Dot(st.pi[k:k+A], v[k:k+A])
			for a := range A {
				pg.u[k+a] = v[k+a] - mean
			}
		}
	}
	// U(s,j) = Σ_i u_i(s, a_i(j)), so π̇(j|s) = π(j|s) U(s,j), and
	// c = Σ_j π̇ Q (= ṙ_π + γṖ_π V).
	for s := range S {
		var cs float64
		for j := range J {
			x := 0.0
			for i := range N {
				x += pg.u[pg.off[i]+s*pg.A[i]+pg.act[j*N+i]]
			}
			pg.U[s*J+j] = x
			cs += st.pj[s*J+j] * x * st.Q[s*J+j]
		}
		pg.c[s] = cs
	}
	// V̇ = (I − γP_π)^{−1} c.
	if err := st.lu.SolveVecTo(pg.vdvec, false, pg.cvec); err != nil {
		return fmt.Errorf("metalearn: Hessian-vector product: %w", err)
	}
	// One pass over the transitions: Y = U·Q + Q̇ with Q̇ = γPV̇, and
	// e = γṖ_πᵀw = γ Σ_{s,j} w(s) π(j|s) U(s,j) P(·|s,j).
	clear(pg.e)
	pg.kern.Expect(pg.pv, pg.vd, 1)
	for s := range S {
		for j := range J {
			k := s*J + j
			pg.Y[k] = pg.U[k]*st.Q[k] + pg.gamma*pg.pv[k]
			if pd := st.pj[k] * pg.U[k]; pd != 0 {
				markov.AddRow(pg.e, pg.kern, s, j, pg.gamma*st.w[s]*pd)
			}
		}
	}
	// ẇ = (I − γP_π)^{−T} e; Q̄̇_i = marg_i(Y) − u_i Q̄_i.
	if err := st.lu.SolveVecTo(pg.wdvec, true, pg.evec); err != nil {
		return fmt.Errorf("metalearn: Hessian-vector product: %w", err)
	}
	clear(pg.Yb)
	for s := range S {
		pg.marginals(st, s, pg.Y[s*J:(s+1)*J], pg.Yb)
	}
	for i := range N {
		A := pg.A[i]
		for s := range S {
			k := pg.off[i] + s*A
			for a := range A {
				p, u := st.pi[k+a], pg.u[k+a]
				adv := st.Qbar[k+a] - st.V[s]
				qdot := pg.Yb[k+a] - u*st.Qbar[k+a]
				dst[k+a] = pg.wd[s]*p*adv + st.w[s]*p*u*adv + st.w[s]*p*(qdot-pg.vd[s])
			}
		}
	}
	return nil
}

// potPrepare validates g and th and evaluates the team at th.
func potPrepare(g markov.GeneralSumModel, th Logits, where string) (*potGame, *potState, []float64, error) {
	pg, err := newPotGame(g, where)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := potCheckLogits(g, th, where); err != nil {
		return nil, nil, nil, err
	}
	x := th.Vector()
	st := pg.newState()
	if err := pg.eval(st, x); err != nil {
		return nil, nil, nil, err
	}
	return pg, st, x, nil
}

// Potential returns the potential Φ(θ) = V^ρ(π_θ) = Σ_s ρ(s) V^{π_θ}(s) of
// the discounted Markov team g under the softmax policies of th (App. C;
// for a team the potential is the common value), by an LU
// solve of (I − γP_π)V = r_π.
//
// It returns an error if g is nil or not a Markov team
// (markov.DiscountedGeneralSum.Cooperative), or th does not match g's shape
// or has a non-finite entry (the error names the player and entry). The
// cost is O(S·J·(S+N) + S³).
func Potential(g markov.GeneralSumModel, th Logits) (float64, error) {
	pg, st, _, err := potPrepare(g, th, "Potential: ")
	if err != nil {
		return 0, err
	}
	return pg.phi(st), nil
}

// PotentialGrad returns the softmax policy gradient ∇Φ(θ) of the Markov
// team g, the players' blocks concatenated (layout of [Logits.Vector]),
// by the multi-agent policy gradient theorem (45) with the averaged
// advantage Ā_i = Q̄_i − V (the paper leaves Ā undefined):
//
//	∂Φ/∂θ_i(a|s) = ∂V_i^ρ/∂θ_i(a|s) = (1/(1−γ)) d_ρ^θ(s) π_{θ_i}(a|s) (Q̄_i(s, a) − V(s)),
//
// with d_ρ^θ = (1−γ)(I − γP_π)^{−T}ρ from the same LU factorisation as V.
// Lemma 13(i) bounds ‖∇Φ‖ by B_G = √(2N)/(1−γ)² for rewards in [−1, 1].
//
// It returns an error as [Potential] does. The cost is
// O(S·J·(S+N) + S³).
func PotentialGrad(g markov.GeneralSumModel, th Logits) ([]float64, error) {
	pg, st, _, err := potPrepare(g, th, "PotentialGrad: ")
	if err != nil {
		return nil, err
	}
	dst := make([]float64, pg.P)
	pg.grad(st, dst)
	return dst, nil
}

// PotentialHVP returns the exact Hessian-vector product ∇²Φ(θ)·v of the
// Markov team g without forming the Hessian, as the directional derivative
// of the gradient (45) along v, ∇²Φ·v = d/dε ∇Φ(θ + εv)|_{ε=0}
// (forward-mode differentiation of the gradient computation). With
// M = I − γP_π, w = M^{−T}ρ = d_ρ/(1−γ), and u_i(s, ·) = v_i(s, ·) −
// ⟨π_i(·|s), v_i(s, ·)⟩ (so that π̇_i = π_i u_i), U(s, j) = Σ_i u_i(s, a_i(j))
// (so that π̇(j|s) = π(j|s) U(s, j)):
//
//	V̇ = M^{−1} c,          c(s) = Σ_j π(j|s) U(s,j) Q(s,j)        (= ṙ_π + γṖ_πV),
//	ẇ = M^{−T} e,          e(s') = γ Σ_{s,j} w(s) π(j|s) U(s,j) P(s'|s,j)   (= γṖ_πᵀw),
//	Q̇(s,j) = γ Σ_{s'} P(s'|s,j) V̇(s'),
//	Q̄̇_i(s,a) = Σ_{a_{−i}} π_{−i}(a_{−i}|s) (U(s,(a,a_{−i})) Q + Q̇)(s,(a,a_{−i})) − u_i(s,a) Q̄_i(s,a),
//	(∇²Φ·v)_i(s,a) = ẇ(s) π_i (Q̄_i − V(s)) + w(s) π_i u_i (Q̄_i − V(s)) + w(s) π_i (Q̄̇_i − V̇(s)).
//
// The two extra linear solves reuse the LU factorisation of the gradient
// evaluation. The result agrees with [PotentialHessian] (Lemma 15 with the
// corrected fourth term) times v to round-off; the tests check 1e-9.
//
// It returns an error as [Potential] does, or if len(v) is not the number
// of parameters S·Σ_i A_i or v has a non-finite entry. The cost is
// O(S·J·(S+N) + S³) (the evaluation) and O(S·J·(S+N) + S²) for the
// product itself: linear in the number of parameters, never O(P²).
func PotentialHVP(g markov.GeneralSumModel, th Logits, v []float64) ([]float64, error) {
	pg, st, _, err := potPrepare(g, th, "PotentialHVP: ")
	if err != nil {
		return nil, err
	}
	if len(v) != pg.P {
		return nil, fmt.Errorf("%w: PotentialHVP: vector has %d entries, want %d parameters", icrl.ErrInvalid, len(v), pg.P)
	}
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: PotentialHVP: v[%d] = %v is not finite", icrl.ErrNotFinite, k, x)
		}
	}
	dst := make([]float64, pg.P)
	if err := pg.hvp(st, v, dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// PotentialHessian returns the policy Hessian ∇²Φ(θ) of the Markov team g
// (P×P, P = S·Σ_i A_i, blocks in the layout of [Logits.Vector]) formed
// directly from Lemma 15 of multi-agent-meta-rl with the fourth term
// with its fourth term corrected: block (i, j) is H_1 + H_2 + H_12 + H_21 with
//
//	H_1  = (1/(1−γ)) Σ_{s,a} d_ρ(s,a) Q(s,a) ∇_{θ_i} log π(a|s) ∇ᵀ_{θ_j} log π(a|s),
//	H_2  = (1/(1−γ)) Σ_{s,a} d_ρ(s,a) Q(s,a) ∇²_{θ_iθ_j} log π(a|s),
//	H_12 = (1/(1−γ)) Σ_{s,a} d_ρ(s,a) ∇_{θ_i} log π(a|s) ∇ᵀ_{θ_j} Q(s,a),
//	H_21 = (1/(1−γ)) Σ_{s,a} d_ρ(s,a) ∇_{θ_i} Q(s,a) ∇ᵀ_{θ_j} log π(a|s)    (the paper prints (H_12)ᵀ, of the wrong shape when A_i ≠ A_j),
//
// where d_ρ(s,a) = d_ρ(s)π(a|s), ∇_{θ_i} log π(a|s) is e_{a_i} − π_i(·|s)
// in the s-block of player i, ∇²_{θ_iθ_j} log π = 0 for i ≠ j and
// −(diag π_i(·|s) − π_iπ_iᵀ) in the s-block for i = j, and
// ∇_{θ_j}Q(s,a) = γ Σ_{s'} P(s'|s,a) ∇_{θ_j}V(s') with ∇_{θ_j}V(s') the
// gradient (45) from the start state s' (D.6; rows of (I − γP_π)^{−1}).
// Lemma 13(ii) bounds ‖∇²Φ‖ by L_G = 6N/(1−γ)³.
//
// It is meant for small games and for cross-checking [PotentialHVP]: the
// cost is O(S·J·(S + Σ_i A_i)·P + S³) time and O(P² + S·P) memory. It
// returns an error as [Potential] does.
func PotentialHessian(g markov.GeneralSumModel, th Logits) (*mat.SymDense, error) {
	pg, st, _, err := potPrepare(g, th, "PotentialHessian: ")
	if err != nil {
		return nil, err
	}
	S, N, J, P := pg.S, pg.N, pg.J, pg.P
	// Minv = (I − γP_π)^{−1}; G[s', k] = ∂V(s')/∂θ_k = Minv[s', s] π (Q̄ − V)(s, ·).
	var minv mat.Dense
	if err := st.lu.SolveTo(&minv, false, potIdentity(S)); err != nil {
		return nil, fmt.Errorf("metalearn: PotentialHessian: %w", err)
	}
	G := mat.NewDense(S, P, nil)
	for i := range N {
		A := pg.A[i]
		for s := range S {
			k := pg.off[i] + s*A
			for a := range A {
				loc := st.pi[k+a] * (st.Qbar[k+a] - st.V[s])
				for s1 := range S {
					G.Set(s1, k+a, minv.At(s1, s)*loc)
				}
			}
		}
	}
	h := make([]float64, P*P)
	z := make([]float64, P)
	gidx := make([]int, 0, P) // nonzero entries of ∇ log π(j|s)
	gval := make([]float64, 0, P)
	var next []int // the support of P(·|s, j)
	var prob []float64
	for s := range S {
		for j := range J {
			wt := st.w[s] * st.pj[s*J+j]
			if wt == 0 {
				continue
			}
			// ∇ log π(j|s): e_{a_i} − π_i(·|s) in each player's s-block.
			gidx, gval = gidx[:0], gval[:0]
			for i := range N {
				A := pg.A[i]
				k := pg.off[i] + s*A
				for b := range A {
					x := -st.pi[k+b]
					if b == pg.act[j*N+i] {
						x += 1
					}
					gidx = append(gidx, k+b)
					gval = append(gval, x)
				}
			}
			// z = ∇Q(s,j) = γ Σ_{s'} P(s'|s,j) G[s', ·].
			clear(z)
			next, prob = pg.kern.Row(s, j, next, prob)
			for e, s2 := range next {
				floats.AddScaled(z, pg.gamma*prob[e], G.RawRowView(s2))
			}
			q := st.Q[s*J+j]
			for x, kx := range gidx {
				row := h[kx*P : (kx+1)*P]
				// H_1.
				for y, ky := range gidx {
					row[ky] += wt * q * gval[x] * gval[y]
				}
				// H_12 (row kx) and H_21 (column kx).
				floats.AddScaled(row, wt*gval[x], z)
				for ky := range P {
					h[ky*P+kx] += wt * z[ky] * gval[x]
				}
			}
		}
	}
	// H_2: −w(s) V(s) (diag π_i − π_i π_iᵀ) in each s-block.
	for i := range N {
		A := pg.A[i]
		for s := range S {
			k := pg.off[i] + s*A
			c := st.w[s] * st.V[s]
			for a := range A {
				for b := range A {
					x := -st.pi[k+a] * st.pi[k+b]
					if a == b {
						x += st.pi[k+a]
					}
					h[(k+a)*P+k+b] -= c * x
				}
			}
		}
	}
	hs := mat.NewSymDense(P, nil)
	for a := range P {
		for b := a; b < P; b++ {
			hs.SetSym(a, b, 0.5*(h[a*P+b]+h[b*P+a]))
		}
	}
	return hs, nil
}

// potIdentity returns the n×n identity matrix.
func potIdentity(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for k := range n {
		m.Set(k, k, 1)
	}
	return m
}
