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

// QAscentDiscountedCheckpoint is the state of a run of discounted
// projected Q-ascent after iteration T.
type QAscentDiscountedCheckpoint struct {
	T int
	// Gap is the NE-gap of App. D.1, max_i (max_{π'_i} V_i^ρ(π'_i, π_{−i})
	// − V_i^ρ(π)) (markov.DiscountedGeneralSum.NEGap).
	Gap float64
	// Potential is Φ(π) = V^ρ(π), the common value, when the game is a
	// Markov team, and NaN otherwise (the potential is known only for
	// teams, where it is the common value).
	Potential float64
	// Values[i] is V_i^ρ(π).
	Values []float64
}

// QAscentDiscountedResult is the outcome of [QAscentDiscounted].
type QAscentDiscountedResult struct {
	// Last is the last iterate π^T, one stationary policy per player.
	Last []markov.Stationary
	// Checkpoints holds the records requested by QAscentConfig.Checkpoints.
	Checkpoints []QAscentDiscountedCheckpoint
}

// QAscentDiscounted runs independent projected Q-ascent (7) of
// multi-agent-meta-rl §4.1 (Ding et al. [15]; §4.1) on the discounted
// game m (any markov.GeneralSumModel, tabulated once by markov.Tabulate)
// from the stationary policies init:
//
//	π_i^t(·|s) ← Proj_Δ(π_i^{t−1}(·|s) + α Q̄_i^{π^{t−1}}(s, ·)),   for all s, i,
//
// where Q̄_i^π(s, a_i) = Σ_{a_{−i}} π_{−i}(a_{−i}|s) Q_i^π(s, (a_i, a_{−i}))
// is computed exactly: V_i^π = (I − γP_π)^{−1} r_{i,π} by one LU
// factorisation per iteration shared by all players, then
// Q_i = r_i + γPV_i. There is no d_ρ weighting. Prop. 1 bounds the average
// NE-gap of a Markov potential game when α ≤ (1−γ)⁴/(8κ³N·A_max); set
// cfg.Kappa to have that checked.
//
// The cost per iteration is O(S·J·(S·N + N) + S³ + N·S²) time; the
// buffers are reused across iterations. Checkpoints add an evaluation and
// N best responses (markov.DiscountedGeneralSum.NEGap).
//
// It returns an error if m is nil or not a valid game (markov.Tabulate's
// errors), init is not a valid product of
// stationary policies (the error names the player and state), the
// configuration is invalid (see [QAscentConfig]), α exceeds the Prop. 1
// bound for a positive cfg.Kappa, or a value is not finite.
func QAscentDiscounted(m markov.GeneralSumModel, init []markov.Stationary, cfg QAscentConfig) (*QAscentDiscountedResult, error) {
	if nilness.Is(m) {
		return nil, fmt.Errorf("%w: QAscentDiscounted: nil game", icrl.ErrNil)
	}
	g, err := markov.Tabulate(m)
	if err != nil {
		return nil, fmt.Errorf("metalearn: QAscentDiscounted: %w", err)
	}
	if err := checkQAscentConfig(cfg); err != nil {
		return nil, err
	}
	if err := g.CheckPolicies(init); err != nil {
		return nil, err
	}
	r := newQADRun(g, init, cfg)
	if cfg.Kappa != 0 {
		if err := CheckQAscentStepSize(cfg.Alpha, cfg.Kappa, r.N, len(r.y), g.Discount()); err != nil {
			return nil, err
		}
	}
	if err := r.record(0); err != nil {
		return nil, err
	}
	for t := 1; t <= cfg.T; t++ {
		if err := r.evaluate(t); err != nil {
			return nil, err
		}
		for s := range r.S {
			if err := r.ascend(t, s); err != nil {
				return nil, err
			}
		}
		if err := r.record(t); err != nil {
			return nil, err
		}
	}
	return r.res, nil
}

// qadRun is the state of one run of [QAscentDiscounted].
type qadRun struct {
	g       *markov.DiscountedGeneralSum
	cfg     QAscentConfig
	N, S, J int
	A       []int
	act     []int // act[j·N + i] = a_i of joint action j
	pol     []markov.Stationary
	m, rm   *mat.Dense // I − γP_π and r_π
	vm      mat.Dense
	lu      mat.LU
	v       []float64 // v[i·S + s]
	e       []float64 // e[i·S·J + s·J + j] = Σ_{s'} P(s'|s, j) v[i·S + s']
	q       []float64 // q[j·N + i]
	qbar    [][]float64
	y       []float64 // len max_i A_i
	p, suf  []float64
	ck      int
	res     *QAscentDiscountedResult
}

// newQADRun copies init into the working policies and allocates the run.
func newQADRun(g *markov.DiscountedGeneralSum, init []markov.Stationary, cfg QAscentConfig) *qadRun {
	N, S, J := g.Players(), g.States(), g.NumJoint()
	r := &qadRun{g: g, cfg: cfg, N: N, S: S, J: J, A: make([]int, N)}
	amax := 0
	for i := range N {
		r.A[i] = g.Actions(game.Player(i))
		amax = max(amax, r.A[i])
	}
	r.act = potActTable(J, N, g.Split)
	r.pol = make([]markov.Stationary, N)
	r.qbar = make([][]float64, N)
	for i, Ai := range r.A {
		buf := make([]float64, S*Ai)
		r.pol[i] = make(markov.Stationary, S)
		for s := range S {
			r.pol[i][s] = buf[s*Ai : (s+1)*Ai : (s+1)*Ai]
			copy(r.pol[i][s], init[i][s])
		}
		r.qbar[i] = make([]float64, Ai)
	}
	r.m, r.rm = mat.NewDense(S, S, nil), mat.NewDense(S, N, nil)
	r.v, r.e, r.q = make([]float64, N*S), make([]float64, S*J*N), make([]float64, J*N)
	r.y, r.p, r.suf = make([]float64, amax), make([]float64, N), make([]float64, N+1)
	r.res = &QAscentDiscountedResult{Last: r.pol}
	return r
}

// record appends the checkpoints of iteration t.
func (r *qadRun) record(t int) error {
	return recordCheckpoints(r.cfg.Checkpoints, &r.ck, t, &r.res.Checkpoints,
		func() (QAscentDiscountedCheckpoint, error) { return qAscentDiscountedCheckpoint(r.g, r.pol, t) })
}

// evaluate solves (I − γP_π) V = r_π for every player's value under the
// current policies and stores the backups e.
func (r *qadRun) evaluate(t int) error {
	g, N, S, J := r.g, r.N, r.S, r.J
	gamma, kern := g.Discount(), g.Kernel()
	mdata, rdata := r.m.RawMatrix().Data, r.rm.RawMatrix().Data
	clear(mdata)
	clear(rdata)
	for s := range S {
		row := mdata[s*S : (s+1)*S]
		for j := range J {
			x := 1.0
			for k := range N {
				x *= r.pol[k][s][r.act[j*N+k]]
			}
			if x == 0 {
				continue
			}
			markov.AddRow(row, kern, s, j, -gamma*x)
			for i := range N {
				rdata[s*N+i] += x * g.Reward(s, j, game.Player(i))
			}
		}
		row[s] += 1
	}
	r.lu.Factorize(r.m)
	if err := r.lu.SolveTo(&r.vm, false, r.rm); err != nil {
		return fmt.Errorf("metalearn: QAscentDiscounted: iteration %d: policy evaluation: %w", t, err)
	}
	for i := range N {
		for s := range S {
			r.v[i*S+s] = r.vm.At(s, i)
		}
	}
	kern.Expect(r.e, r.v, N)
	return nil
}

// ascend computes every player's Q̄_i(s, ·) under the current policies and
// takes the projected ascent step (7) at state s.
func (r *qadRun) ascend(t, s int) error {
	g, N, S, J, q, p, suf := r.g, r.N, r.S, r.J, r.q, r.p, r.suf
	gamma := g.Discount()
	for j := range J {
		for i := range N {
			q[j*N+i] = g.Reward(s, j, game.Player(i)) + gamma*r.e[i*S*J+s*J+j]
		}
	}
	for i := range N {
		clear(r.qbar[i])
	}
	for j := range J {
		a := r.act[j*N : (j+1)*N]
		suf[N] = 1
		for k := N - 1; k >= 0; k-- {
			p[k] = r.pol[k][s][a[k]]
			suf[k] = suf[k+1] * p[k]
		}
		pre := 1.0
		for i := range N {
			r.qbar[i][a[i]] += pre * suf[i+1] * q[j*N+i]
			pre *= p[i]
		}
	}
	for i := range N {
		cur := r.pol[i][s]
		yi := r.y[:r.A[i]]
		for a, x := range cur {
			yi[a] = x + r.cfg.Alpha*r.qbar[i][a]
		}
		if err := simplex.ProjectSimplex(cur, yi); err != nil {
			return fmt.Errorf("metalearn: QAscentDiscounted: iteration %d, state %d, player %d: %w", t, s, i, err)
		}
	}
	return nil
}

// qAscentDiscountedCheckpoint evaluates the iterate pi of a discounted run.
func qAscentDiscountedCheckpoint(g *markov.DiscountedGeneralSum, pi []markov.Stationary, t int) (QAscentDiscountedCheckpoint, error) {
	gap, _, err := g.NEGap(pi)
	if err != nil {
		return QAscentDiscountedCheckpoint{}, err
	}
	v, err := g.Values(pi)
	if err != nil {
		return QAscentDiscountedCheckpoint{}, err
	}
	rho := g.Initial()
	c := QAscentDiscountedCheckpoint{T: t, Gap: gap, Potential: math.NaN(), Values: make([]float64, g.Players())}
	for i := range c.Values {
		c.Values[i] = floats.Dot(rho, v[i])
	}
	if g.Cooperative() {
		c.Potential = c.Values[0]
	}
	return c, nil
}
