package markov

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nested"
	"github.com/icrl-go/icrl/tensor"
)

func epiNewRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

func epiApprox(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// oneStepGame is a 1-step, 1-state general-sum 2×2 game:
// r_0 = [[1,0],[0,1]], r_1 = [[0,2],[3,0]].
func epiOneStepGame(t testing.TB) *Episodic {
	t.Helper()
	r := [][][][]float64{{{{1, 0}, {0, 2}, {0, 3}, {1, 0}}}}
	p := [][][][]float64{{{{1}, {1}, {1}, {1}}}}
	g, err := newEpisodic([]int{2, 2}, 0, r, p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// twoStepTeam is a 2-step, 2-state, 2×2 Markov team. Step 0: in state 0
// only (a0,b0) pays 1 and then moves to state 0 or 1 with probability ½
// each; any other joint action pays 0 and moves to state 1. Step 1: in
// state 0 only (a1,b1) pays 2, in state 1 everything pays 1.
func epiTwoStepTeam(t testing.TB) *Episodic {
	t.Helper()
	r := [][][]float64{
		{{1, 0, 0, 0}, {0, 0, 0, 0}},
		{{0, 0, 0, 2}, {1, 1, 1, 1}},
	}
	p0 := [][][]float64{
		{{0.5, 0.5}, {0, 1}, {0, 1}, {0, 1}},
		{{1, 0}, {1, 0}, {1, 0}, {1, 0}},
	}
	p1 := [][][]float64{
		{{1, 0}, {1, 0}, {1, 0}, {1, 0}},
		{{0, 1}, {0, 1}, {0, 1}, {0, 1}},
	}
	g, err := newTeam([]int{2, 2}, 0, r, [][][][]float64{p0, p1})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// pure returns the deterministic policy playing choice[h][s].
func epiPure(actions int, choice [][]int) *Policy {
	p := newPolicy(len(choice), len(choice[0]), actions, 0)
	for h := range choice {
		for s, a := range choice[h] {
			p.Row(h, s)[a] = 1
		}
	}
	return p
}

func epiConstPolicy(horizon, states int, d []float64) *Policy {
	p := newPolicy(horizon, states, len(d), 0)
	for h := range p.Dim(0) {
		for s := range p.Dim(1) {
			copy(p.Row(h, s), d)
		}
	}
	return p
}

// randomPolicy returns a policy with full support.
func epiRandomPolicy(horizon, states, actions int, rng *rand.Rand) *Policy {
	p := newPolicy(horizon, states, actions, 0)
	for h := range p.Dim(0) {
		for s := range p.Dim(1) {
			var sum float64
			for a := range p.Row(h, s) {
				p.Row(h, s)[a] = rng.ExpFloat64() + 0.01
				sum += p.Row(h, s)[a]
			}
			for a := range p.Row(h, s) {
				p.Row(h, s)[a] /= sum
			}
		}
	}
	return p
}

func epiRandomProduct(g *Episodic, rng *rand.Rand) Product {
	pi := make(Product, g.Players())
	for i := range pi {
		pi[i] = epiRandomPolicy(g.Horizon(), g.States(), g.Actions(game.Player(i)), rng)
	}
	return pi
}

func TestEpisodicOneStepHand(t *testing.T) {
	g := epiOneStepGame(t)
	if g.ZeroSum() || g.Cooperative() {
		t.Errorf("ZeroSum, Cooperative = %v, %v; want false, false", g.ZeroSum(), g.Cooperative())
	}
	pi := Product{epiConstPolicy(1, 1, []float64{0.25, 0.75}), epiConstPolicy(1, 1, []float64{0.6, 0.4})}
	V, err := g.Values(pi)
	if err != nil {
		t.Fatal(err)
	}
	// V_0 = .25·.6·1 + .75·.4·1 = .45; V_1 = .25·.4·2 + .75·.6·3 = 1.55.
	if !epiApprox(V.At(0, 0, 0), 0.45, 1e-15) || !epiApprox(V.At(0, 1, 0), 1.55, 1e-15) {
		t.Errorf("V = %v, %v; want 0.45, 1.55", V.At(0, 0, 0), V.At(0, 1, 0))
	}
	if V.At(1, 0, 0) != 0 || V.At(1, 1, 0) != 0 {
		t.Errorf("terminal values %v, want 0", V.Sub(1).Data())
	}
	br0, v0, err := g.BestResponse(pi, 0)
	if err != nil {
		t.Fatal(err)
	}
	br1, v1, err := g.BestResponse(pi, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Player 0 vs (.6, .4): a0 earns .6. Player 1 vs (.25, .75): b0 earns 2.25.
	if !epiApprox(v0, 0.6, 1e-15) || br0.Row(0, 0)[0] != 1 || !epiApprox(v1, 2.25, 1e-15) || br1.Row(0, 0)[0] != 1 {
		t.Errorf("best responses %v (%v), %v (%v); want a0 (0.6), b0 (2.25)", br0, v0, br1, v1)
	}
	gap, per, err := g.NEGap(pi)
	if err != nil {
		t.Fatal(err)
	}
	if !epiApprox(gap, 0.7, 1e-15) || !epiApprox(per[0], 0.15, 1e-15) || !epiApprox(per[1], 0.7, 1e-15) {
		t.Errorf("NEGap = %v %v; want 0.7 [0.15 0.7]", gap, per)
	}
}

func TestEpisodicTwoStepHand(t *testing.T) {
	g := epiTwoStepTeam(t)
	if !g.Cooperative() || g.ZeroSum() {
		t.Fatalf("Cooperative, ZeroSum = %v, %v", g.Cooperative(), g.ZeroSum())
	}
	u := g.UniformProduct()
	V, err := g.Values(u)
	if err != nil {
		t.Fatal(err)
	}
	// V[1] = (2/4, 1); V[0][0] = ¼[(1 + ½·½ + ½·1) + 3·(0 + 1)] = 1.1875.
	// V[0][1] = 0 + V[1][0] = 0.5.
	want := [][]float64{{1.1875, 0.5}, {0.5, 1}}
	for h := range 2 {
		for i := range 2 {
			if !epiApprox(V.At(h, i, 0), want[h][0], 1e-15) || !epiApprox(V.At(h, i, 1), want[h][1], 1e-15) {
				t.Errorf("V.Row(%d, %d) = %v, want %v", h, i, V.Row(h, i), want[h])
			}
		}
	}
	// Best response to uniform: a1 at step 1 in state 0 (value 1), then a0
	// at step 0: ½[(1 + ½·1 + ½·1) + (0 + 1)] = 1.5.
	for i := range 2 {
		br, v, err := g.BestResponse(u, game.Player(i))
		if err != nil {
			t.Fatal(err)
		}
		if !epiApprox(v, 1.5, 1e-15) || br.Row(0, 0)[0] != 1 || br.Row(1, 0)[1] != 1 {
			t.Errorf("player %d: best response %v value %v; want a0 then a1, 1.5", i, br, v)
		}
	}
	gap, per, err := g.NEGap(u)
	if err != nil {
		t.Fatal(err)
	}
	if !epiApprox(gap, 0.3125, 1e-15) || !epiApprox(per[0], 0.3125, 1e-15) || !epiApprox(per[1], 0.3125, 1e-15) {
		t.Errorf("NEGap = %v %v, want 0.3125", gap, per)
	}
	cg, err := g.CoopNEGap(u[0], u[1])
	if err != nil {
		t.Fatal(err)
	}
	if !epiApprox(cg, 0.3125, 1e-15) {
		t.Errorf("CoopNEGap = %v, want 0.3125", cg)
	}
	// The team optimum: (a0,b0) at step 0, (a1,b1) at step 1 in state 0;
	// value 1 + ½·2 + ½·1 = 2.5. It is a pure Nash equilibrium.
	opt := epiPure(2, [][]int{{0, 0}, {1, 0}})
	ne := Product{opt, opt}
	V, err = g.Values(ne)
	if err != nil {
		t.Fatal(err)
	}
	if V.At(0, 0, 0) != 2.5 {
		t.Errorf("team optimum value %v, want 2.5", V.At(0, 0, 0))
	}
	gap, per, err = g.NEGap(ne)
	if err != nil {
		t.Fatal(err)
	}
	if gap != 0 || per[0] != 0 || per[1] != 0 {
		t.Errorf("NEGap at a pure NE = %v %v, want 0", gap, per)
	}
	if cg, err := g.CoopNEGap(opt, opt); err != nil || cg != 0 {
		t.Errorf("CoopNEGap at the optimum = %v, %v; want 0", cg, err)
	}
	// The inefficient pure NE (a1,b1) at step 0 (value 1): a lone
	// deviation to (a0,b1) also earns 0 + 1.
	bad := epiPure(2, [][]int{{1, 1}, {1, 0}})
	if gap, _, err := g.NEGap(Product{bad, bad}); err != nil || gap != 0 {
		t.Errorf("NEGap at the inefficient NE = %v, %v; want 0", gap, err)
	}
	if _, err := g.ZeroSumNEGap(opt, opt); err == nil {
		t.Error("ZeroSumNEGap of a team: no error")
	}
}

func TestEpisodicValuesMonteCarlo(t *testing.T) {
	rng := epiNewRNG(1)
	g, err := RandomEpisodic([]int{2, 3, 2}, 3, 4, GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	pi := epiRandomProduct(g, rng)
	V, err := g.Values(pi)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	sum, sq := make([]float64, 3), make([]float64, 3)
	var ret []float64
	for range n {
		ret = g.Rollout(pi, rng, ret)
		for i, v := range ret {
			sum[i] += v
			sq[i] += v * v
		}
	}
	for i := range 3 {
		mean := sum[i] / n
		sd := math.Sqrt((sq[i]/n - mean*mean) / n)
		if d := math.Abs(mean - V.At(0, i, g.Start())); d > 4*sd {
			t.Errorf("player %d: Monte Carlo %v ± %v, exact %v (%.1fσ)", i, mean, sd, V.At(0, i, g.Start()), d/sd)
		}
	}
	// The same for a correlated policy built from the product.
	c, err := g.Correlate(pi)
	if err != nil {
		t.Fatal(err)
	}
	clear(sum)
	clear(sq)
	for range n {
		ret = g.RolloutCorrelated(c, rng, ret)
		for i, v := range ret {
			sum[i] += v
			sq[i] += v * v
		}
	}
	for i := range 3 {
		mean := sum[i] / n
		sd := math.Sqrt((sq[i]/n - mean*mean) / n)
		if d := math.Abs(mean - V.At(0, i, g.Start())); d > 4*sd {
			t.Errorf("correlated, player %d: Monte Carlo %v ± %v, exact %v", i, mean, sd, V.At(0, i, g.Start()))
		}
	}
}

// forEachPure calls f with every deterministic Markov policy over the given
// steps, states and actions.
func epiForEachPure(horizon, states, actions int, f func(*Policy)) {
	n := horizon * states
	choice := make([][]int, horizon)
	for h := range choice {
		choice[h] = make([]int, states)
	}
	total := 1
	for range n {
		total *= actions
	}
	for c := range total {
		x := c
		for h := range horizon {
			for s := range states {
				choice[h][s] = x % actions
				x /= actions
			}
		}
		f(epiPure(actions, choice))
	}
}

func TestEpisodicBestResponseEnumeration(t *testing.T) {
	rng := epiNewRNG(2)
	for trial := range 20 {
		kind := []GameKind{GeneralSumGame, ZeroSumGame, CooperativeGame}[trial%3]
		g, err := RandomEpisodic([]int{2, 2}, 2, 2, kind, rng)
		if err != nil {
			t.Fatal(err)
		}
		pi := epiRandomProduct(g, rng)
		if trial%2 == 1 { // deterministic opponents too
			pi[0] = epiPure(2, [][]int{{1, 0}, {0, 1}})
			pi[1] = epiPure(2, [][]int{{0, 0}, {1, 1}})
		}
		for i := range 2 {
			br, v, err := g.BestResponse(pi, game.Player(i))
			if err != nil {
				t.Fatal(err)
			}
			best := math.Inf(-1)
			count := 0
			epiForEachPure(2, 2, 2, func(d *Policy) {
				q := append(Product(nil), pi...)
				q[i] = d
				V, err := g.Values(q)
				if err != nil {
					t.Fatal(err)
				}
				x := V.At(0, i, g.Start())
				if x > v+1e-12 {
					t.Errorf("trial %d player %d: deterministic policy %v earns %v > best response %v", trial, i, d, x, v)
				}
				best = max(best, x)
				count++
			})
			if count != 16 || !epiApprox(best, v, 1e-12) {
				t.Errorf("trial %d player %d: best of %d deterministic policies %v, best response %v", trial, i, count, best, v)
			}
			q := append(Product(nil), pi...)
			q[i] = br
			V, _ := g.Values(q)
			if !epiApprox(V.At(0, i, g.Start()), v, 1e-12) {
				t.Errorf("trial %d player %d: value of the best response %v, reported %v", trial, i, V.At(0, i, g.Start()), v)
			}
		}
		gap, per, err := g.NEGap(pi)
		if err != nil {
			t.Fatal(err)
		}
		if gap < 0 || per[0] < 0 || per[1] < 0 || gap != max(per[0], per[1]) {
			t.Errorf("trial %d: NEGap %v %v", trial, gap, per)
		}
	}
}

func TestEpisodicSolveZeroSumMatrix(t *testing.T) {
	g, err := newZeroSum(2, 2, 0, [][][]float64{{{0.9, 0.1, 0.2, 0.6}}}, [][][][]float64{{{{1}, {1}, {1}, {1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !g.ZeroSum() || g.Cooperative() {
		t.Fatalf("ZeroSum, Cooperative = %v, %v", g.ZeroSum(), g.Cooperative())
	}
	V, Q, mu, nu, err := g.SolveZeroSum()
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-12
	if !epiApprox(V[0][0], 13.0/30, tol) || V[1][0] != 0 ||
		!epiApprox(mu.Row(0, 0)[0], 1.0/3, tol) || !epiApprox(mu.Row(0, 0)[1], 2.0/3, tol) ||
		!epiApprox(nu.Row(0, 0)[0], 5.0/12, tol) || !epiApprox(nu.Row(0, 0)[1], 7.0/12, tol) {
		t.Errorf("SolveZeroSum: V %v mu %v nu %v; want 13/30, (1/3, 2/3), (5/12, 7/12)", V, mu, nu)
	}
	if Q[0][0].At(1, 1) != 0.6 {
		t.Errorf("stage game %v", Q[0][0].Payoffs())
	}
	gap, err := g.ZeroSumNEGap(mu, nu)
	if err != nil || gap > 1e-12 {
		t.Errorf("ZeroSumNEGap at the NE = %v, %v", gap, err)
	}
	// Uniform play: V^{†,ν} = max(.5, .4) = .5, V^{μ,†} = min(.55, .35) = .35.
	u := UniformPolicy(1, 1, 2)
	gap, err = g.ZeroSumNEGap(u, u)
	if err != nil || !epiApprox(gap, 0.15, 1e-15) {
		t.Errorf("ZeroSumNEGap(uniform) = %v, %v; want 0.15", gap, err)
	}
}

func TestEpisodicSolveZeroSumRandom(t *testing.T) {
	rng := epiNewRNG(3)
	for trial := range 10 {
		A, B := 1+trial%3, 1+(trial/3)%3+1
		g, err := RandomEpisodic([]int{A, B}, 1+trial%4, 1+trial%5, ZeroSumGame, rng)
		if err != nil {
			t.Fatal(err)
		}
		V, _, mu, nu, err := g.SolveZeroSum()
		if err != nil {
			t.Fatal(err)
		}
		gap, err := g.ZeroSumNEGap(mu, nu)
		if err != nil || gap > 1e-9 {
			t.Errorf("trial %d: NE-gap of the solution %v, %v", trial, gap, err)
		}
		// V[0][start] is the value of the equilibrium.
		Vals, err := g.Values(Product{mu, nu})
		if err != nil {
			t.Fatal(err)
		}
		for s := range g.States() {
			if !epiApprox(Vals.At(0, 0, s), V[0][s], 1e-9) || !epiApprox(Vals.At(0, 1, s), -V[0][s], 1e-9) {
				t.Errorf("trial %d: state %d value %v, solver %v", trial, s, Vals.At(0, 0, s), V[0][s])
			}
		}
		// Any other pair has a gap ≥ 0; NEGap (max over players) ≤ zero-sum gap.
		pi := epiRandomProduct(g, rng)
		zg, _ := g.ZeroSumNEGap(pi[0], pi[1])
		ng, per, _ := g.NEGap(pi)
		if zg < 0 || !epiApprox(per[0]+per[1], zg, 1e-12) || ng > zg+1e-12 {
			t.Errorf("trial %d: zero-sum gap %v, NE terms %v", trial, zg, per)
		}
	}
}

func TestEpisodicSymmetricZeroSumValue(t *testing.T) {
	// r(s, a, b) = −r(s, b, a) and P(·|s, a, b) = P(·|s, b, a): the game is
	// symmetric, so its value is 0 from every state.
	rng := epiNewRNG(4)
	const A, S, H = 3, 2, 3
	rew := make([][][]float64, H)
	tr := make([][][][]float64, H)
	for h := range H {
		rew[h] = make([][]float64, S)
		tr[h] = make([][][]float64, S)
		for s := range S {
			rew[h][s] = make([]float64, A*A)
			tr[h][s] = make([][]float64, A*A)
			for a := range A {
				for b := a; b < A; b++ {
					x := rng.Float64()*2 - 1
					if a == b {
						x = 0
					}
					rew[h][s][a*A+b], rew[h][s][b*A+a] = x, -x
					p := rng.Float64()
					tr[h][s][a*A+b] = []float64{p, 1 - p}
					tr[h][s][b*A+a] = []float64{p, 1 - p}
				}
			}
		}
	}
	g, err := newZeroSum(A, A, 1, rew, tr)
	if err != nil {
		t.Fatal(err)
	}
	V, _, mu, nu, err := g.SolveZeroSum()
	if err != nil {
		t.Fatal(err)
	}
	for h := range V {
		for s, v := range V[h] {
			if math.Abs(v) > 1e-12 {
				t.Errorf("V[%d][%d] = %v, want 0", h, s, v)
			}
		}
	}
	if gap, _ := g.ZeroSumNEGap(mu, nu); gap > 1e-9 {
		t.Errorf("NE-gap %v", gap)
	}
}

func TestEpisodicCCEGap(t *testing.T) {
	rng := epiNewRNG(5)
	for trial := range 6 {
		g, err := RandomEpisodic([]int{2, 3, 2}[:2+trial%2], 3, 3, GeneralSumGame, rng)
		if err != nil {
			t.Fatal(err)
		}
		pi := epiRandomProduct(g, rng)
		c, err := g.Correlate(pi)
		if err != nil {
			t.Fatal(err)
		}
		ng, nper, err := g.NEGap(pi)
		if err != nil {
			t.Fatal(err)
		}
		cg, cper, err := g.CCEGap(c)
		if err != nil {
			t.Fatal(err)
		}
		if !epiApprox(ng, cg, 1e-12) {
			t.Errorf("trial %d: CCEGap of a product %v, NEGap %v", trial, cg, ng)
		}
		for i := range nper {
			if !epiApprox(nper[i], cper[i], 1e-12) {
				t.Errorf("trial %d player %d: CCE term %v, NE term %v", trial, i, cper[i], nper[i])
			}
		}
		// One component with weight 1 gives the same numbers exactly.
		sg, sper, err := g.CertifiedCCEGap([]*Correlated{c}, []float64{1})
		if err != nil {
			t.Fatal(err)
		}
		if sg != cg || sper[0] != cper[0] || sper[1] != cper[1] {
			t.Errorf("trial %d: certified %v %v, CCEGap %v %v", trial, sg, sper, cg, cper)
		}
	}
}

// corrValue returns player i's value at the start state when the others
// follow the correlated policy rho and player i plays dev (nil: follows
// rho too), by backward recursion written independently of the package.
func epiCorrValue(g *Episodic, rho *Correlated, i int, dev *Policy) float64 {
	next := make([]float64, g.States())
	acts := make([]int, g.Players())
	for h := g.Horizon() - 1; h >= 0; h-- {
		cur := make([]float64, g.States())
		for s := range cur {
			for j, p := range rho.Row(h, s) {
				if p == 0 {
					continue
				}
				acts = g.Split(j, acts)
				for a := range g.Actions(game.Player(i)) {
					w := p
					if dev != nil {
						w *= dev.Row(h, s)[a]
						acts[i] = a
					} else if a > 0 {
						break
					}
					jj := g.Joint(acts)
					x := g.StepReward(h, s, jj, game.Player(i))
					for s2, q := range g.StepTransition(h, s, jj) {
						x += q * next[s2]
					}
					cur[s] += w * x
				}
			}
		}
		next = cur
	}
	return next[g.Start()]
}

func TestEpisodicCCEGapEnumeration(t *testing.T) {
	rng := epiNewRNG(6)
	for trial := range 10 {
		g, err := RandomEpisodic([]int{2, 2}, 2, 2, GeneralSumGame, rng)
		if err != nil {
			t.Fatal(err)
		}
		// A genuinely correlated policy: random distribution over the 4
		// joint actions at every (h, s).
		rho := epiRandomPolicy(2, 2, 4, rng)
		_, per, err := g.CCEGap(rho)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			on := epiCorrValue(g, rho, i, nil)
			best := math.Inf(-1)
			epiForEachPure(2, 2, 2, func(d *Policy) { best = max(best, epiCorrValue(g, rho, i, d)) })
			if !epiApprox(per[i], best-on, 1e-12) {
				t.Errorf("trial %d player %d: CCE term %v, enumeration %v − %v = %v", trial, i, per[i], best, on, best-on)
			}
		}
	}
}

func TestEpisodicCertifiedCCEGapMixture(t *testing.T) {
	rng := epiNewRNG(7)
	g, err := RandomEpisodic([]int{2, 3}, 2, 3, GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	c1 := epiRandomPolicy(3, 2, 6, rng)
	c2 := epiRandomPolicy(3, 2, 6, rng)
	d1 := make([]float64, 2)
	d2 := make([]float64, 2)
	for i := range 2 {
		d1[i] = epiCorrValue(g, c1, i, nil)
		d2[i] = epiCorrValue(g, c2, i, nil)
	}
	_, p1, _ := g.CCEGap(c1)
	_, p2, _ := g.CCEGap(c2)
	w := []float64{0.3, 0.7}
	gap, per, err := g.CertifiedCCEGap([]*Correlated{c1, c2}, w)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if !epiApprox(per[i], 0.3*p1[i]+0.7*p2[i], 1e-12) {
			t.Errorf("player %d: certified term %v, want %v", i, per[i], 0.3*p1[i]+0.7*p2[i])
		}
	}
	if gap != max(per[0], per[1]) {
		t.Errorf("gap %v, terms %v", gap, per)
	}
	// Weight 0 on a component ignores it.
	gap0, _, err := g.CertifiedCCEGap([]*Correlated{c1, c2}, []float64{1, 0})
	if g1, _, _ := g.CCEGap(c1); err != nil || gap0 != g1 {
		t.Errorf("weights (1, 0): %v, %v; want %v", gap0, err, g1)
	}
	for _, bad := range []struct {
		c   []*Correlated
		w   []float64
		msg string
	}{
		{nil, nil, "no component"},
		{[]*Correlated{c1, c2}, []float64{1}, "1 mixture weights for 2"},
		{[]*Correlated{c1, c2}, []float64{0.5, 0.6}, "sums to"},
		{[]*Correlated{c1, c2}, []float64{1.5, -0.5}, "negative"},
		{[]*Correlated{c1, epiRandomPolicy(2, 2, 6, rng)}, []float64{0.5, 0.5}, "component 1 has shape [2 2 6], want [3 2 6]"},
	} {
		if _, _, err := g.CertifiedCCEGap(bad.c, bad.w); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("CertifiedCCEGap(%s): error %v", bad.msg, err)
		}
	}
}

func TestTwoStateKernel(t *testing.T) {
	k := TwoStateKernel()
	if S, J := k.Shape(); S != 2 || J != 4 {
		t.Fatalf("shape %d × %d, want 2 × 4", S, J)
	}
	for s := range 2 {
		for a := range 2 {
			for b := range 2 {
				row := denseRow(k, s, a*2+b, nil)
				if row[0]+row[1] != 1 {
					t.Errorf("s %d (a%d,b%d): row %v sums to %v", s, a, b, row, row[0]+row[1])
				}
				stay := 0.1
				if a == b {
					stay = 0.9
				}
				if row[s] != stay || !epiApprox(row[1-s], 1-stay, 1e-15) {
					t.Errorf("s %d (a%d,b%d): row %v, want stay %v", s, a, b, row, stay)
				}
			}
		}
	}
	// It builds a valid zero-sum game (with a placeholder reward, not the
	// paper's missing Table 1), time-homogeneous or one kernel per step.
	const H = 10
	r, _ := tensor.New[float64](H, 2, 2, 2)
	for i := range r.Data() {
		r.Data()[i] = 0.5
	}
	if _, err := NewZeroSumEpisodic(2, 2, 0, H, r, []Kernel{k}); err != nil {
		t.Errorf("time-homogeneous kernel: %v", err)
	}
	ks := make([]Kernel, H)
	for h := range ks {
		ks[h] = k
	}
	if _, err := NewZeroSumEpisodic(2, 2, 0, H, r, ks); err != nil {
		t.Error(err)
	}
}

func TestEpisodicKinds(t *testing.T) {
	rng := epiNewRNG(8)
	z, _ := RandomEpisodic([]int{2, 3}, 2, 2, ZeroSumGame, rng)
	// Rebuild it as a general-sum game with r_2 = −r_1: still zero-sum.
	rew := make([][][][]float64, 2)
	tr := make([][][][]float64, 2)
	for h := range 2 {
		rew[h] = make([][][]float64, 2)
		tr[h] = make([][][]float64, 2)
		for s := range 2 {
			for j := range 6 {
				rew[h][s] = append(rew[h][s], []float64{z.StepReward(h, s, j, 0), z.StepReward(h, s, j, 1)})
				tr[h][s] = append(tr[h][s], z.StepTransition(h, s, j))
			}
		}
	}
	g, err := newEpisodic([]int{2, 3}, 1, rew, tr)
	if err != nil {
		t.Fatal(err)
	}
	if !g.ZeroSum() || g.Cooperative() || !z.ZeroSum() {
		t.Errorf("general-sum with r2 = −r1: ZeroSum %v Cooperative %v", g.ZeroSum(), g.Cooperative())
	}
	if g.StepReward(1, 1, 5, 1) != -g.StepReward(1, 1, 5, 0) || g.Start() != 1 {
		t.Error("rewards or start not copied")
	}
	rew[1][1][5][1] += 1e-3
	if g2, _ := newEpisodic([]int{2, 3}, 0, rew, tr); g2.ZeroSum() {
		t.Error("perturbed r2 still reported zero-sum")
	}
	c, _ := RandomEpisodic([]int{2, 2, 2}, 2, 2, CooperativeGame, rng)
	gs, _ := RandomEpisodic([]int{2, 2}, 2, 2, GeneralSumGame, rng)
	if !c.Cooperative() || c.ZeroSum() || gs.Cooperative() || gs.ZeroSum() {
		t.Errorf("kinds: coop %v/%v general %v/%v", c.Cooperative(), c.ZeroSum(), gs.Cooperative(), gs.ZeroSum())
	}
	if _, err := RandomEpisodic([]int{2, 2, 2}, 2, 2, ZeroSumGame, rng); err == nil {
		t.Error("3-player zero-sum game: no error")
	}
	if _, err := RandomEpisodic([]int{2, 2}, 2, 2, GameKind(9), rng); err == nil || GameKind(9).String() != "GameKind(9)" {
		t.Error("unknown kind")
	}
	if _, err := g.CoopNEGap(UniformPolicy(2, 2, 2), UniformPolicy(2, 2, 3)); err == nil {
		t.Error("CoopNEGap of a zero-sum game: no error")
	}
	if _, _, _, _, err := c.SolveZeroSum(); err == nil {
		t.Error("SolveZeroSum of a team: no error")
	}
}

func TestPerturbRewards(t *testing.T) {
	rng := epiNewRNG(9)
	const sigma = 0.1
	for _, kind := range []GameKind{GeneralSumGame, ZeroSumGame, CooperativeGame} {
		// A time-homogeneous base game.
		base0, _ := RandomEpisodic([]int{2, 2}, 2, 1, kind, rng)
		H := 5
		rew := make([][][][]float64, H)
		for h := range H {
			rew[h] = make([][][]float64, 2)
			for s := range 2 {
				for j := range 4 {
					rew[h][s] = append(rew[h][s], []float64{base0.StepReward(0, s, j, 0), base0.StepReward(0, s, j, 1)})
				}
			}
		}
		tr := [][][][]float64{{make([][]float64, 4), make([][]float64, 4)}}
		for s := range 2 {
			for j := range 4 {
				tr[0][s][j] = base0.StepTransition(0, s, j)
			}
		}
		base, err := newEpisodic([]int{2, 2}, 0, rew, tr)
		if err != nil {
			t.Fatal(err)
		}
		if !base.TimeHomogeneous() {
			t.Error("one transition layer: not time-homogeneous")
		}
		p, err := PerturbRewards(base, sigma, rng)
		if err != nil {
			t.Fatal(err)
		}
		q, err := PerturbRewardsPerStep(base, sigma, rng)
		if err != nil {
			t.Fatal(err)
		}
		if p.ZeroSum() != (kind == ZeroSumGame) || p.Cooperative() != (kind == CooperativeGame) ||
			q.ZeroSum() != (kind == ZeroSumGame) || q.Cooperative() != (kind == CooperativeGame) {
			t.Errorf("%v: perturbed kinds %v %v / %v %v", kind, p.ZeroSum(), p.Cooperative(), q.ZeroSum(), q.Cooperative())
		}
		sameAcrossSteps, differs := true, false
		for h := 1; h < H; h++ {
			for s := range 2 {
				for j := range 4 {
					if p.StepReward(h, s, j, 0) != p.StepReward(0, s, j, 0) {
						sameAcrossSteps = false
					}
					if q.StepReward(h, s, j, 0) != q.StepReward(0, s, j, 0) {
						differs = true
					}
				}
			}
		}
		if !sameAcrossSteps || !differs {
			t.Errorf("%v: PerturbRewards shared across steps %v, PerturbRewardsPerStep differs %v", kind, sameAcrossSteps, differs)
		}
		if &p.StepTransition(3, 1, 2)[0] != &base.StepTransition(3, 1, 2)[0] {
			t.Errorf("%v: transitions not shared", kind)
		}
	}
	// The noise has standard deviation sigma.
	base, _ := RandomEpisodic([]int{3, 3}, 20, 20, GeneralSumGame, rng)
	p, _ := PerturbRewardsPerStep(base, sigma, rng)
	var s1, s2 float64
	n := 0
	for h := range 20 {
		for s := range 20 {
			for j := range 9 {
				for i := range 2 {
					d := p.StepReward(h, s, j, game.Player(i)) - base.StepReward(h, s, j, game.Player(i))
					s1 += d
					s2 += d * d
					n++
				}
			}
		}
	}
	mean, sd := s1/float64(n), math.Sqrt(s2/float64(n)-(s1/float64(n))*(s1/float64(n)))
	if math.Abs(mean) > 4*sigma/math.Sqrt(float64(n)) || math.Abs(sd-sigma) > 0.05*sigma {
		t.Errorf("noise mean %v sd %v over %d entries, want 0 and %v", mean, sd, n, sigma)
	}
	if same, _ := PerturbRewards(base, 0, rng); same.StepReward(3, 4, 5, 1) != base.StepReward(3, 4, 5, 1) {
		t.Error("σ = 0 changed a reward")
	}
	fam, err := PerturbedEpisodic(base, 10, sigma, epiNewRNG(10))
	fam2, _ := PerturbedEpisodic(base, 10, sigma, epiNewRNG(10))
	if err != nil || len(fam) != 10 || fam[9].StepReward(1, 2, 3, 0) != fam2[9].StepReward(1, 2, 3, 0) || fam[0].StepReward(1, 2, 3, 0) == fam[1].StepReward(1, 2, 3, 0) {
		t.Errorf("PerturbedEpisodic: %d games, err %v, not reproducible or not independent", len(fam), err)
	}
	for _, sig := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := PerturbRewards(base, sig, rng); err == nil {
			t.Errorf("σ = %v: no error", sig)
		}
	}
	if _, err := PerturbRewards(nil, 0.1, rng); err == nil {
		t.Error("nil base: no error")
	}
	if _, err := PerturbedEpisodic(base, -1, 0.1, rng); err == nil {
		t.Error("k = -1: no error")
	}
}

func TestEpisodicJointSplitStep(t *testing.T) {
	rng := epiNewRNG(11)
	g, err := RandomEpisodic([]int{2, 3, 4}, 3, 2, GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumJoint() != 24 || g.Players() != 3 || g.Actions(2) != 4 || g.States() != 3 || g.Horizon() != 2 {
		t.Fatal("accessors")
	}
	var acts []int
	for j := range 24 {
		acts = g.Split(j, acts)
		if g.Joint(acts) != j || j != (acts[0]*3+acts[1])*4+acts[2] {
			t.Errorf("joint %d → %v → %d", j, acts, g.Joint(acts))
		}
	}
	// Step: exact rewards and next-state frequencies.
	const n = 40000
	count := make([]float64, 3)
	for range n {
		r, next := g.Step(1, 2, 17, rng)
		if r[0] != g.StepReward(1, 2, 17, 0) || r[2] != g.StepReward(1, 2, 17, 2) {
			t.Fatal("Step rewards")
		}
		count[next]++
	}
	for s, p := range g.StepTransition(1, 2, 17) {
		if sd := math.Sqrt(p * (1 - p) / n); math.Abs(count[s]/n-p) > 4*sd {
			t.Errorf("next state %d frequency %v, want %v", s, count[s]/n, p)
		}
	}
	z, _ := RandomEpisodic([]int{2, 2}, 2, 2, ZeroSumGame, rng)
	c, _ := RandomEpisodic([]int{2, 2, 2}, 2, 2, CooperativeGame, rng)
	var dst []float64
	for range 100 {
		dst, _ = z.StepNoisy(0, 1, 2, nil, rng, dst)
		if dst[1] != -dst[0] || (dst[0] != 0 && dst[0] != 1) {
			t.Fatalf("zero-sum noisy rewards %v", dst)
		}
		dst, _ = c.StepNoisy(1, 0, 5, nil, rng, dst)
		if dst[0] != dst[1] || dst[1] != dst[2] {
			t.Fatalf("cooperative noisy rewards %v", dst)
		}
	}
	for _, f := range []func(){
		func() { g.StepReward(2, 0, 0, 0) },
		func() { g.StepReward(0, 0, 0, 3) },
		func() { g.StepTransition(0, 3, 0) },
		func() { g.Joint([]int{0, 3, 0}) },
		func() { g.Joint([]int{0, 0}) },
		func() { g.Split(24, nil) },
		func() { g.Actions(3) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("out-of-range index did not panic")
				}
			}()
			f()
		}()
	}
}

func TestEpisodicDeterministicAcrossProcs(t *testing.T) {
	// A game large enough to run in parallel gives bit-identical results
	// with 1 and with several goroutines.
	rng := epiNewRNG(12)
	g, err := RandomEpisodic([]int{3, 3}, 100, 3, GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	pi := epiRandomProduct(g, rng)
	c, _ := g.Correlate(pi)
	run := func() (float64, float64, float64) {
		V, _ := g.Values(pi)
		_, br, _ := g.BestResponse(pi, 1)
		gap, _, _ := g.CCEGap(c)
		return V.At(0, 1, 0), br, gap
	}
	a1, b1, c1 := run()
	prev := epiSetProcs(1)
	a2, b2, c2 := run()
	epiSetProcs(prev)
	if a1 != a2 || b1 != b2 || c1 != c2 {
		t.Errorf("results depend on GOMAXPROCS: %v %v %v vs %v %v %v", a1, b1, c1, a2, b2, c2)
	}
}

func TestEpisodicBadInput(t *testing.T) {
	good := func() ([][][][]float64, [][][][]float64) {
		r := [][][][]float64{{{{0, 1}, {1, 0}}, {{0, 0}, {1, 1}}}}
		p := [][][][]float64{{{{1, 0}, {0.5, 0.5}}, {{0, 1}, {1, 0}}}}
		return r, p
	}
	r0, p0 := good()
	if _, err := newEpisodic([]int{2, 1}, 1, r0, p0); err != nil {
		t.Fatalf("good game: %v", err)
	}
	cases := []struct {
		name string
		edit func(a *[]int, start *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64)
		want string
	}{
		{"row not summing to 1", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			p[0][1][0] = []float64{0.25, 0.5}
			return r, p
		}, "transitions of layer 0: markov: invalid transition kernel: P(·|s=1, joint=0) sums to 0.75, not 1"},
		{"negative probability", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			p[0][0][1] = []float64{1.5, -0.5}
			return r, p
		}, "P(s'=1|s=0, joint=1) = -0.5 is not a probability"},
		{"NaN probability", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			p[0][0][1] = []float64{math.NaN(), 1}
			return r, p
		}, "P(s'=0|s=0, joint=1) = NaN"},
		{"NaN reward", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			r[0][1][1][0] = math.NaN()
			return r, p
		}, "r[h=0][s=1][joint=1][player=0] = NaN is not finite"},
		{"Inf reward", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			r[0][0][0][1] = math.Inf(-1)
			return r, p
		}, "r[h=0][s=0][joint=0][player=1] = -Inf"},
		{"start out of range", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			*st = 2
			return r, p
		}, "start state 2 out of range [0, 2)"},
		{"negative start", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			*st = -1
			return r, p
		}, "start state -1"},
		{"no player", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			*a = nil
			return r, p
		}, "no player"},
		{"zero actions", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			*a = []int{2, 0}
			return r, p
		}, "player 1 has 0 actions"},
		{"wrong joint count", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			*a = []int{2, 2}
			return r, p
		}, "joint actions, want 2 × 4"},
		{"transition layers", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			return append(r, r[0], r[0]), append(p, p[0])
		}, "2 kernels, want 3 (one per step) or 1"},
		{"huge action counts", func(a *[]int, st *int, r, p [][][][]float64) ([][][][]float64, [][][][]float64) {
			*a = []int{1 << 40, 1 << 40}
			return r, p
		}, "too many joint actions"},
	}
	for _, c := range cases {
		r, p := good()
		a, st := []int{2, 1}, 1
		r, p = c.edit(&a, &st, r, p)
		_, err := newEpisodic(a, st, r, p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
	stay, _ := DenseKernels(nested.Dense4([][][][]float64{{{{1}, {1}, {1}, {1}}}}))
	if _, err := NewZeroSumEpisodic(0, 2, 0, 1, nil, stay); err == nil {
		t.Error("0×2 zero-sum game: no error")
	}
	for _, r := range []*tensor.Dense[float64]{nil, nested.Dense3([][][]float64{{{1, 2, 3, 4}}}), nested.Dense4([][][][]float64{{{{1, 2, 3}}}})} {
		if _, err := NewZeroSumEpisodic(2, 2, 0, 1, r, stay); err == nil {
			t.Errorf("zero-sum rewards of shape %v: no error", r)
		}
	}
	for _, r := range []*tensor.Dense[float64]{nil, nested.Dense2([][]float64{{1, 2, 3, 4}})} {
		if _, err := NewEpisodic([]int{2, 2}, 0, 1, r, stay); err == nil {
			t.Errorf("rewards of shape %v: no error", r)
		}
	}
	if _, err := NewEpisodic([]int{2, 2}, 0, 1, nested.Dense4([][][][]float64{{{{1}, {2}, {3}, {4}}}}), stay); err == nil || !strings.Contains(err.Error(), "want 1 × 1 × 4 × 2") {
		t.Errorf("rewards for 1 player of 2: %v", err)
	}
	if _, err := newTeam([]int{2}, 0, [][][]float64{{{1, math.Inf(1)}}}, [][][][]float64{{{{1}, {1}}}}); err == nil || !strings.Contains(err.Error(), "r[h=0][s=0][joint=1] = +Inf") {
		t.Errorf("infinite shared reward: %v", err)
	}
}

func TestEpisodicBadPolicies(t *testing.T) {
	g := epiTwoStepTeam(t)
	u := g.UniformProduct()
	bad := func(edit func(p *Policy) *Policy) Product {
		q := Product{u[0], epiConstPolicy(2, 2, []float64{0.5, 0.5})}
		q[1] = edit(q[1])
		return q
	}
	cases := []struct {
		name string
		pi   Product
		want string
	}{
		{"players", u[:1], "1 players, want 2"},
		{"steps", bad(func(*Policy) *Policy { return newPolicy(1, 2, 2, 0.5) }), "policy of player 1 has shape [1 2 2], want [2 2 2]"},
		{"states", bad(func(*Policy) *Policy { return newPolicy(2, 1, 2, 0.5) }), "policy of player 1 has shape [2 1 2], want [2 2 2]"},
		{"actions", bad(func(*Policy) *Policy { return newPolicy(2, 2, 3, 1.0/3) }), "policy of player 1 has shape [2 2 3], want [2 2 2]"},
		{"nil", bad(func(*Policy) *Policy { return nil }), "policy of player 1 is nil"},
		{"off simplex", bad(func(p *Policy) *Policy { copy(p.Row(1, 0), []float64{0.5, 0.6}); return p }), "player 1 at step 1, state 0 sums to 1.1"},
		{"negative", bad(func(p *Policy) *Policy { copy(p.Row(1, 1), []float64{1.5, -0.5}); return p }), "step 1, state 1[1] = -0.5 is negative"},
		{"NaN", bad(func(p *Policy) *Policy { copy(p.Row(0, 0), []float64{math.NaN(), 1}); return p }), "step 0, state 0[0] = NaN is not finite"},
	}
	for _, c := range cases {
		for name, err := range map[string]error{
			"Values":  func() error { _, err := g.Values(c.pi); return err }(),
			"NEGap":   func() error { _, _, err := g.NEGap(c.pi); return err }(),
			"BR0":     func() error { _, _, err := g.BestResponse(c.pi, 0); return err }(),
			"Product": g.CheckProduct(c.pi),
		} {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: error %v, want %q", c.name, name, err, c.want)
			}
		}
		if len(c.pi) == 2 {
			if _, err := g.CoopNEGap(c.pi[0], c.pi[1]); err == nil {
				t.Errorf("%s: CoopNEGap accepted it", c.name)
			}
		}
	}
	// A best response ignores the responder's own (bad or nil) policy.
	if _, v, err := g.BestResponse(Product{nil, u[1]}, 0); err != nil || v != 1.5 {
		t.Errorf("BestResponse with a nil own policy: %v, %v", v, err)
	}
	if _, _, err := g.BestResponse(u, 2); err == nil {
		t.Error("best response of player 2: no error")
	}
	if err := g.CheckPolicy(-1, u[0]); err == nil {
		t.Error("CheckPolicy(-1): no error")
	}
	c := epiConstPolicy(2, 2, []float64{0.25, 0.25, 0.25, 0.25})
	copy(c.Row(1, 0), []float64{0.5, 0.5, 0.5, -0.5})
	if _, _, err := g.CCEGap(c); err == nil || !strings.Contains(err.Error(), "correlated policy at step 1, state 0[3] = -0.5") {
		t.Errorf("bad correlated policy: %v", err)
	}
	if _, _, err := g.CCEGap(epiConstPolicy(2, 2, []float64{1, 0})); err == nil || !strings.Contains(err.Error(), "has shape [2 2 2], want [2 2 4]") {
		t.Errorf("short correlated policy: %v", err)
	}
	if _, err := g.Correlate(u[:1]); err == nil {
		t.Error("Correlate of a bad product: no error")
	}
}

// FuzzNewGeneralSum decodes bytes into a game's shapes and entries (which
// may be inconsistent, negative, NaN or infinite) and checks that the
// constructor never panics and that accepted games evaluate to finite,
// consistent numbers.
func FuzzNewGeneralSum(f *testing.F) {
	f.Add([]byte{2, 2, 2, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{1, 1, 1, 1, 0, 128, 128, 128})
	f.Add([]byte{3, 2, 3, 1, 2, 255, 0, 17, 200, 3})
	f.Add([]byte{0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &fuzzBytes{fuzzReader{data}}
		n := int(d.next() % 4)
		actions := make([]int, n)
		for i := range actions {
			actions[i] = int(d.next() % 4)
		}
		S, H := int(d.next()%4), int(d.next()%4)
		start := int(d.next()%5) - 1
		layers := H
		if d.next()%2 == 1 {
			layers = 1
		}
		joint := 1
		for _, a := range actions {
			joint *= a
		}
		joint += int(d.next()%3) - 1 // sometimes a wrong shape
		joint = max(joint, 0)
		rew, err := tensor.New[float64](H, S, joint, n)
		if err != nil { // an empty dimension
			if g, err := NewEpisodic(actions, start, H, nil, nil); err == nil || g != nil {
				t.Fatalf("no reward table: game %v, error %v", g, err)
			}
			return
		}
		for k := range rew.Data() {
			rew.Data()[k] = d.value()
		}
		tr, _ := tensor.New[float64](layers, S, joint, S)
		for h := range layers {
			for s := range S {
				for j := range joint {
					copy(tr.Row(h, s, j), d.transitionRow(S))
				}
			}
		}
		ks, err := DenseKernels(tr)
		if err != nil {
			return
		}
		g, err := NewEpisodic(actions, start, H, rew, ks)
		if err != nil {
			if g != nil {
				t.Fatal("non-nil game with an error")
			}
			return
		}
		fuzzCheckEvaluations(t, g)
	})
}

// fuzzBytes decodes fuzz input one byte at a time, zeros after the end,
// with FuzzNewGeneralSum's own value and row encodings.
type fuzzBytes struct{ fuzzReader }

func (d *fuzzBytes) next() byte { return d.byte() }

// value decodes an entry: b/250 for most bytes b, NaN, +Inf or −1 for
// 251–253, and the next eight bytes as a float64 for 254.
func (d *fuzzBytes) value() float64 {
	b := d.next()
	switch b {
	case 251:
		return math.NaN()
	case 252:
		return math.Inf(1)
	case 253:
		return -1
	case 254:
		var x [8]byte
		for k := range x {
			x[k] = d.next()
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(x[:]))
	}
	return float64(b) / 250
}

// transitionRow decodes a row over S states: three times in four a valid
// row (normalised bytes, or a point mass if they sum to zero), otherwise
// arbitrary values.
func (d *fuzzBytes) transitionRow(S int) []float64 {
	row := make([]float64, S)
	mode := d.next()
	if mode%4 == 0 {
		for k := range row {
			row[k] = d.value()
		}
		return row
	}
	var sum float64
	for k := range row {
		row[k] = float64(d.next())
		sum += row[k]
	}
	if sum == 0 {
		row = make([]float64, S)
		if S > 0 {
			row[int(mode)%S] = 1
		}
		return row
	}
	for k := range row {
		row[k] /= sum
	}
	return row
}

// fuzzCheckEvaluations checks that an accepted game evaluates to finite,
// consistent numbers: values, the NE-gap equal to the CCE-gap of the same
// product, and the zero-sum solution.
func fuzzCheckEvaluations(t *testing.T, g *Episodic) {
	n, H, S := g.Players(), g.Horizon(), g.States()
	pi := g.UniformProduct()
	V, err := g.Values(pi)
	if err != nil {
		t.Fatal(err)
	}
	gap, per, err := g.NEGap(pi)
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.Correlate(pi)
	if err != nil {
		t.Fatal(err)
	}
	cg, _, err := g.CCEGap(c)
	if err != nil {
		t.Fatal(err)
	}
	scale := 1.0
	for h := range H {
		for s := range S {
			for j := range g.NumJoint() {
				for i := range n {
					scale = max(scale, math.Abs(g.StepReward(h, s, j, game.Player(i))))
				}
			}
		}
	}
	if scale > 1e100 {
		return // overflow is possible; not panicking is the property
	}
	for i := range n {
		if math.IsNaN(V.At(0, i, g.Start())) || per[i] < 0 {
			t.Fatalf("player %d: value %v, NE term %v", i, V.At(0, i, g.Start()), per[i])
		}
	}
	if tol := 1e-9 * scale * float64(H); math.Abs(gap-cg) > tol {
		t.Fatalf("NEGap %v, CCEGap of the same product %v", gap, cg)
	}
	if g.ZeroSum() {
		if _, _, _, _, err := g.SolveZeroSum(); err != nil {
			t.Fatalf("SolveZeroSum: %v", err)
		}
	}
}

func epiSetProcs(n int) int { return runtime.GOMAXPROCS(n) }
