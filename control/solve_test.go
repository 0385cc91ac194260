package control

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/icrl-go/icrl/quantize"
	"github.com/icrl-go/icrl/tensor"
)

// tinyProblem is a setting small enough for full enumeration: d = 1, N = 2, K = 2,
// T = 2, M = 4, G = 4 (cell centres ±0.25, ±0.75 on [−1, 1], exact in
// binary so every cost is computed exactly and ties are exact), ℓ = 2N.
func tinyProblem(t testing.TB, seed uint64, mode quantize.MeasureMode, general bool) (*Problem[float64], ProblemConfig[float64]) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	d := Dims{D: 1, Hidden: 1, QK: 1}
	g, err := quantize.NewBoxGrid([]float64{-1}, []float64{1}, []int{4})
	if err != nil {
		t.Fatal(err)
	}
	var X, Y [][][]float64
	for range 2 {
		var xs, ys [][]float64
		for range 2 {
			xs = append(xs, []float64{2*rng.Float64() - 1})
			ys = append(ys, []float64{2*rng.Float64() - 1})
		}
		X = append(X, xs)
		Y = append(Y, ys)
	}
	data := dataset(X, Y)
	cfg := ProblemConfig[float64]{
		Block: Block[float64]{Dims: d, Beta: 0.5}, T: 2, Data: data, Grid: g, Ell: 4,
		Measure: mode, General: general, Actions: randActions(t, rng, d, 1, 4),
	}
	p, err := NewProblem(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, cfg
}

// bruteForceQuantized evaluates eq. (31) for every sequence of 𝕌_m^T with
// Block.Layer on the grid points and Nearest (independently of the
// solvers) and returns the lowest-index minimiser and the minimum.
func bruteForceQuantized(cfg ProblemConfig[float64]) ([]int, float64) {
	g := cfg.Grid
	M, T := len(cfg.Actions), cfg.T
	K, N, _ := cfg.Data.Dims()
	best, bestSeq := math.Inf(1), []int(nil)
	seq := make([]int, T)
	var rec func(t int)
	rec = func(t int) {
		if t == T {
			total := 0.0
			for k := range K {
				xs := make([][]float64, N)
				for i := range N {
					j, _ := g.Nearest(cfg.Data.X.Row(k, i))
					xs[i] = append([]float64(nil), g.Point(j)...)
				}
				for _, a := range seq {
					cfg.Block.Layer(xs, xs, cfg.Actions[a], nil)
					for i := range xs {
						j, _ := g.Nearest(xs[i])
						copy(xs[i], g.Point(j))
					}
				}
				for i := range N {
					jy, _ := g.Nearest(cfg.Data.Y.Row(k, i))
					total += sqDist(xs[i], g.Point(jy))
				}
			}
			if v := total / float64(K*N); v < best {
				best, bestSeq = v, slices.Clone(seq)
			}
			return
		}
		for j := range M {
			seq[t] = j
			rec(t + 1)
		}
	}
	rec(0)
	return bestSeq, best
}

// checkSolution checks the open-loop forward pass and the closed-loop
// tables of a solution.
func checkSolution(t *testing.T, name string, p *Problem[float64], sol *Solution[float64]) {
	t.Helper()
	acts, v, err := OpenLoop(sol.Policy, p, p.Init())
	if err != nil {
		t.Fatalf("%s: OpenLoop: %v", name, err)
	}
	if !slices.Equal(acts, sol.Actions) || v != sol.Value {
		t.Errorf("%s: OpenLoop gives %v %v, solution %v %v", name, acts, v, sol.Actions, sol.Value)
	}
	if len(sol.Trajectory) != p.Horizon()+1 {
		t.Fatalf("%s: trajectory of %d states", name, len(sol.Trajectory))
	}
	for tt := range p.Horizon() {
		j, ok := sol.Policy.Lookup(tt, sol.Trajectory[tt])
		if !ok || j != sol.Actions[tt] {
			t.Errorf("%s: policy at time %d gives %d, %v; want %d", name, tt, j, ok, sol.Actions[tt])
		}
	}
	if c, err := p.TerminalCost(sol.Trajectory[p.Horizon()]); err != nil || c != sol.Value {
		t.Errorf("%s: terminal cost of the trajectory %v (%v), value %v", name, c, err, sol.Value)
	}
	if e, err := EvalQuantized(p, sol.Actions); err != nil || math.Abs(e-sol.Value) > 1e-12 {
		t.Errorf("%s: EvalQuantized %v (%v), value %v", name, e, err, sol.Value)
	}
	for tt, u := range sol.Weights {
		if ActionDist(&u, p.Action(sol.Actions[tt])) != 0 {
			t.Errorf("%s: weights %d differ from action %d", name, tt, sol.Actions[tt])
		}
	}
}

// TestDPExactness checks: all solvers agree with brute force
// over 𝕌_m^T on the tiny problem, to 1e-12 and with the same lowest-index
// actions; the forward pass and closed-loop tables are consistent.
func TestDPExactness(t *testing.T) {
	ctx := context.Background()
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for seed := range uint64(seeds) {
		for _, mode := range []quantize.MeasureMode{quantize.PositionPreservingMode, quantize.ReznikMode} {
			p, cfg := tinyProblem(t, seed, mode, false)
			pg, _ := tinyProblem(t, seed, mode, true)
			wantSeq, want := bruteForceQuantized(cfg)
			solvers := []struct {
				name string
				p    *Problem[float64]
				s    Solver[float64]
			}{
				{"FullEnumeration", p, FullEnumeration[float64]{}},
				{"ReachableDP", p, ReachableDP[float64]{}},
				{"DepthFirst", p, DepthFirst[float64]{}},
				{"DepthFirst+TT", p, DepthFirst[float64]{Table: 100, FullPolicy: true}},
				{"ReachableDP/general", pg, ReachableDP[float64]{}},
				{"DepthFirst/general", pg, DepthFirst[float64]{Workers: 3}},
			}
			for _, s := range solvers {
				name := fmt.Sprintf("seed %d %v %s", seed, mode, s.name)
				sol, err := s.s.Solve(ctx, s.p)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if math.Abs(sol.Value-want) > 1e-12 || !slices.Equal(sol.Actions, wantSeq) {
					t.Errorf("%s: value %v actions %v, brute force %v %v", name, sol.Value, sol.Actions, want, wantSeq)
				}
				checkSolution(t, name, s.p, sol)
			}
			nsol, err := NewNested(p, NestedOptions{FullPolicy: true}).Solve(ctx, 4)
			if err != nil {
				t.Fatal(err)
			}
			if nsol.Value != want || !slices.Equal(nsol.Actions, wantSeq) {
				t.Errorf("seed %d %v Nested: %v %v, want %v %v", seed, mode, nsol.Value, nsol.Actions, want, wantSeq)
			}
			checkSolution(t, "Nested", p, nsol)
			if seed == 0 {
				full, _ := FullEnumeration[float64]{}.Solve(ctx, p)
				t.Logf("%v: value %v actions %v; full enumeration %d states/time (policy %d entries at t=0), reachable %d nodes",
					mode, want, wantSeq, full.Stats.Leaves, len(full.Policy.Tables[0]), nsol.Stats.Nodes)
			}
		}
	}
}

// TestClosedLoopOtherStates checks that the full-enumeration policy is
// optimal from other initial states too: for random states s, the forward
// pass from s reaches the DepthFirst optimum of a problem whose data
// start at s.
func TestClosedLoopOtherStates(t *testing.T) {
	ctx := context.Background()
	p, _ := tinyProblem(t, 3, quantize.PositionPreservingMode, false)
	full, err := FullEnumeration[float64]{}.Solve(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	// Every state of time 0 has a policy entry.
	if n := len(full.Policy.Tables[0]); n != 10000 {
		t.Fatalf("policy table of time 0 has %d entries, want 10⁴", n)
	}
	// From the trajectory's state at t = 1, the policy's continuation is
	// optimal among the M choices.
	s1 := full.Trajectory[1]
	j, ok := full.Policy.Lookup(1, s1)
	if !ok {
		t.Fatal("no policy entry at t = 1")
	}
	best := math.Inf(1)
	for a := range p.NumActions() {
		s2, _ := p.Step(1, s1, a)
		if c, _ := p.TerminalCost(s2); c < best {
			best = c
		}
	}
	s2, _ := p.Step(1, s1, j)
	if c, _ := p.TerminalCost(s2); c != best {
		t.Errorf("policy continuation cost %v, best %v", c, best)
	}
}

// TestNestedMonotone checks: with nested random action sets
// (20 seeds) the optimal quantised value is non-increasing in M, and every
// level equals DepthFirst from scratch bit for bit.
func TestNestedMonotone(t *testing.T) {
	ctx := context.Background()
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	for seed := range uint64(seeds) {
		for _, T := range []int{1, 2, 3} {
			levels := []int{3, 6, 9, 12}
			if T == 3 {
				levels = []int{2, 4, 6}
			}
			p, err := NewProblem(smallConfig(t, 100+seed, 4, 3, levels[len(levels)-1], T))
			if err != nil {
				t.Fatal(err)
			}
			nested := NewNested(p, NestedOptions{Workers: 2})
			prev := math.Inf(1)
			for i, m := range levels {
				sol, err := nested.Solve(ctx, m)
				if err != nil {
					t.Fatal(err)
				}
				if sol.Value > prev {
					t.Errorf("seed %d T %d: value %v at M = %d above %v at the previous level", seed, T, sol.Value, m, prev)
				}
				prev = sol.Value
				old := 0
				if i > 0 {
					old = levels[i-1]
				}
				if want := int64(math.Pow(float64(m), float64(T)) - math.Pow(float64(old), float64(T))); sol.Stats.Evaluated != want {
					t.Errorf("seed %d T %d M %d: evaluated %d leaves, want M_new^T − M_old^T = %d", seed, T, m, sol.Stats.Evaluated, want)
				}
				if seed < 5 {
					ref, err := DepthFirst[float64]{M: m}.Solve(ctx, p)
					if err != nil {
						t.Fatal(err)
					}
					if ref.Value != sol.Value || !slices.Equal(ref.Actions, sol.Actions) || ref.Stats.Nodes != sol.Stats.Nodes {
						t.Errorf("seed %d T %d M %d: nested %v %v (%d nodes), scratch %v %v (%d nodes)", seed, T, m,
							sol.Value, sol.Actions, sol.Stats.Nodes, ref.Value, ref.Actions, ref.Stats.Nodes)
					}
				}
			}
		}
	}
}

// realisableSetup returns a T = 1 problem: the §6
// target is generated by U_true = SelfAttentionAction (index 2 of 6); the
// other actions are U_true with every entry perturbed uniformly by at most
// eps, so that coarse grids cannot tell them apart. Inputs lie in [−1, 1]²
// and outputs in [−2, 2]² (per-layer grids covering the reachable boxes).
func realisableSetup(t testing.TB, seed uint64, K int, eps float64) (Block[float64], []*Action[float64], Dataset[float64]) {
	rng := rand.New(rand.NewPCG(seed, 13))
	d := Dims{D: 2, Hidden: 2, QK: 2}
	block := Block[float64]{Dims: d, Beta: 0.5}
	truth, err := SelfAttentionAction(d, 0.3, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	us := make([]*Action[float64], 6)
	for j := range us {
		if j == 2 {
			us[j] = truth
			continue
		}
		f := truth.Flatten(nil)
		for i := range f {
			f[i] += eps * (2*rng.Float64() - 1)
		}
		if us[j], err = NewAction(d, f); err != nil {
			t.Fatal(err)
		}
	}
	return block, us, randData(rng, K, 4, 2)
}

// TestQuantisationGap checks: with 𝕌_m fixed and a
// realisable target, the gap G(n) = V(U*_n) − min_{𝕌_m} V of the
// quantised optimum U*_n, evaluated on the continuous model, goes to 0 as
// n grows; it is exactly 0 (U*_n = U_true) for the finest grids.
func TestQuantisationGap(t *testing.T) {
	ctx := context.Background()
	ns := []int{5, 10, 20, 40, 80}
	seeds := 4
	if testing.Short() {
		seeds = 2
	}
	mean := make([]float64, len(ns))
	for seed := range uint64(seeds) {
		block, us, data := realisableSetup(t, seed, 10, 0.1)
		_, vmin, err := BruteForceContinuous(block, us, 1, data)
		if err != nil {
			t.Fatal(err)
		}
		if vmin > 1e-20 {
			t.Errorf("min over 𝕌_m of V = %v, want 0 (realisable)", vmin)
		}
		for i, n := range ns {
			r := 1 / float64(n)
			p, err := NewProblem(ProblemConfig[float64]{
				Block: block, T: 1, Data: data, Ell: 4, Actions: us, OutOfGrid: SnapAndCount,
				Grids: []quantize.StateQuantizer[float64]{boxGrid(t, 2, 1, r), boxGrid(t, 2, 2, r)},
			})
			if err != nil {
				t.Fatal(err)
			}
			sol, err := DepthFirst[float64]{}.Solve(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if sol.Stats.Outside != 0 {
				t.Errorf("n = %d: %d tokens outside the grids", n, sol.Stats.Outside)
			}
			v, _, err := EvalContinuous(block, sol.Weights, data)
			if err != nil {
				t.Fatal(err)
			}
			mean[i] += (v - vmin) / float64(seeds)
			if seed == 0 {
				t.Logf("seed 0, n = %2d (G = %5d, %5d): quantised value %.3e, action %d, V(U*_n) = %.3e",
					n, p.Grid(0).Size(), p.Grid(1).Size(), sol.Value, sol.Actions[0], v)
			}
		}
	}
	for i, n := range ns {
		t.Logf("n = %2d: mean gap over %d seeds %.3e", n, seeds, mean[i])
	}
	if mean[0] <= 0 || mean[len(ns)-1] > 1e-12 || mean[len(ns)-1] > mean[0] {
		t.Errorf("mean gaps %v do not go to 0", mean)
	}
}

// TestUniformModelError checks: sup over 𝕌_m^T of
// |V(U) − V_n(U)| (continuous vs state-quantised cost, raw labels)
// decreases as n doubles.
func TestUniformModelError(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	d := Dims{D: 2, Hidden: 2, QK: 2}
	block := Block[float64]{Dims: d, Beta: 0.5}
	us := randActions(t, rng, d, 0.5, 5)
	data := randData(rng, 8, 4, 2)
	cont, err := ContinuousCosts(block, us, 2, data)
	if err != nil {
		t.Fatal(err)
	}
	ns := []int{5, 10, 20, 40}
	if testing.Short() {
		ns = ns[:3]
	}
	var errs []float64
	for _, n := range ns {
		r := 1 / float64(n)
		p, err := NewProblem(ProblemConfig[float64]{
			Block: block, T: 2, Data: data, Ell: 4, Actions: us, Terminal: RawLabels, OutOfGrid: Fail,
			Grids: []quantize.StateQuantizer[float64]{boxGrid(t, 2, 1, r), boxGrid(t, 2, 4, r), boxGrid(t, 2, 13, r)},
		})
		if err != nil {
			t.Fatal(err)
		}
		sup := 0.0
		for e := range cont {
			vq, err := EvalQuantized(p, []int{e / 5, e % 5})
			if err != nil {
				t.Fatal(err)
			}
			sup = max(sup, math.Abs(vq-cont[e]))
		}
		errs = append(errs, sup)
		t.Logf("n = %2d: sup_U |V(U) − V_n(U)| = %.3e (covering radii %.3f)", n, sup, float64(p.Grid(0).CoveringRadius()))
	}
	for i := 1; i < len(errs); i++ {
		if errs[i] > errs[i-1] {
			t.Errorf("model error rose from %v to %v as n doubled", errs[i-1], errs[i])
		}
	}
	if errs[len(errs)-1] > errs[0]/3 {
		t.Errorf("model errors %v: no clear decrease", errs)
	}
}

// TestOpenLoopDeployment checks: the deployed weights run
// through Block.Forward on the training inputs give EvalContinuous; the
// continuous training error is reported next to the quantised value.
func TestOpenLoopDeployment(t *testing.T) {
	p, err := NewProblem(smallConfig(t, 15, 20, 4, 20, 2))
	if err != nil {
		t.Fatal(err)
	}
	sol, err := DepthFirst[float64]{}.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	data := p.Data()
	total := 0.0
	for k := range data.X.Dim(0) {
		out := p.Block().Forward(tokens(data.X, k), sol.Weights)
		for i := range out {
			total += sqDist(out[i], data.Y.Row(k, i))
		}
	}
	total /= 80
	perTok, perSeq, err := EvalContinuous(p.Block(), sol.Weights, data)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(total-perTok) > 1e-15 || math.Abs(perSeq-4*perTok) > 1e-15 {
		t.Errorf("Forward gives %v, EvalContinuous %v (%v per sequence)", total, perTok, perSeq)
	}
	t.Logf("quantised value %.5f, continuous training error %.5f per token (%.5f per sequence), actions %v",
		sol.Value, perTok, perSeq, sol.Actions)
	if math.Abs(perTok-sol.Value) > 0.1 {
		t.Errorf("continuous %v far from quantised %v", perTok, sol.Value)
	}
}

// TestConsistency checks (Theorem 16, Corollary 17) at a
// reduced scale: T = 1, a fixed set of M = 20 actions, training sets of
// K_r sequences, a held-out set standing in for ℙ; averaged over seeds,
// the excess risk V(ℙ, U*_r) − min_U V(ℙ, U) and sup_U |V(ℙ_r, U) −
// V(ℙ, U)| decrease with K_r.
func TestConsistency(t *testing.T) {
	seeds, hold := 10, 2000
	if testing.Short() {
		seeds, hold = 4, 500
	}
	Ks := []int{5, 10, 20, 40, 80, 160}
	excess := make([]float64, len(Ks))
	sup := make([]float64, len(Ks))
	qexcess := make([]float64, len(Ks))
	d := Dims{D: 2, Hidden: 2, QK: 2}
	block := Block[float64]{Dims: d, Beta: 0.5}
	grid := boxGrid(t, 2, 1, 0.1)
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(16, seed))
		us := randActions(t, rng, d, 1, 20)
		test := randData(rng, hold, 4, 2)
		pool := randData(rng, Ks[len(Ks)-1], 4, 2)
		vP, err := ContinuousCosts(block, us, 1, test)
		if err != nil {
			t.Fatal(err)
		}
		minP := slices.Min(vP)
		for r, K := range Ks {
			train := Dataset[float64]{X: firstK(pool.X, K), Y: firstK(pool.Y, K)}
			vr, err := ContinuousCosts(block, us, 1, train)
			if err != nil {
				t.Fatal(err)
			}
			best := 0
			s := 0.0
			for j := range vr {
				if vr[j] < vr[best] {
					best = j
				}
				s = max(s, math.Abs(vr[j]-vP[j]))
			}
			excess[r] += (vP[best] - minP) / float64(seeds)
			sup[r] += s / float64(seeds)
			// The quantised DP's choice (n = 10, ℓ = 4).
			p, err := NewProblem(ProblemConfig[float64]{Block: block, T: 1, Data: train, Grid: grid, Ell: 4, Actions: us})
			if err != nil {
				t.Fatal(err)
			}
			sol, err := DepthFirst[float64]{Workers: 1}.Solve(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			qexcess[r] += (vP[sol.Actions[0]] - minP) / float64(seeds)
		}
	}
	for r, K := range Ks {
		t.Logf("K = %3d: excess risk %.2e (quantised DP %.2e), sup_U |V(P_r,U) − V(P,U)| = %.2e (×√K = %.3f)",
			K, excess[r], qexcess[r], sup[r], sup[r]*math.Sqrt(float64(K)))
	}
	last := len(Ks) - 1
	if excess[last] >= excess[0] || sup[last] >= sup[0]/2 || qexcess[last] >= qexcess[0] {
		t.Errorf("no consistency: excess %v, sup %v, quantised excess %v", excess, sup, qexcess)
	}
}

// TestDeterminism checks the solvers: Workers = 1 and
// Workers = 8 give bit-identical values, actions and stats.
func TestDeterminism(t *testing.T) {
	ctx := context.Background()
	c := smallConfig(t, 18, 10, 4, 12, 2)
	c.OutOfGrid = SnapAndCount
	p, err := NewProblem(c)
	if err != nil {
		t.Fatal(err)
	}
	mk := []func(w int) Solver[float64]{
		func(w int) Solver[float64] { return DepthFirst[float64]{Workers: w} },
		func(w int) Solver[float64] { return DepthFirst[float64]{Workers: w, Table: 50} },
		func(w int) Solver[float64] { return ReachableDP[float64]{Workers: w} },
	}
	for i, f := range mk {
		a, err := f(1).Solve(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := f(8).Solve(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		a.Stats.Elapsed, b.Stats.Elapsed = 0, 0
		if a.Value != b.Value || !slices.Equal(a.Actions, b.Actions) || a.Stats != b.Stats {
			t.Errorf("solver %d: Workers=1 %v %v %+v; Workers=8 %v %v %+v", i, a.Value, a.Actions, a.Stats, b.Value, b.Actions, b.Stats)
		}
		if a.Stats.Outside == 0 {
			t.Errorf("solver %d: no out-of-grid tokens counted", i)
		}
	}
	n1, _ := NewNested(p, NestedOptions{Workers: 1}).Solve(ctx, 12)
	n8, _ := NewNested(p, NestedOptions{Workers: 8}).Solve(ctx, 12)
	if n1.Value != n8.Value || !slices.Equal(n1.Actions, n8.Actions) || n1.Stats.Outside != n8.Stats.Outside {
		t.Errorf("Nested: %v %v vs %v %v", n1.Value, n1.Actions, n8.Value, n8.Actions)
	}
}

// TestOutOfGrid checks: with the golden action,
// tokens leave [−1, 1]² (already after one layer, and after two);
// SnapAndCount reports a non-zero fraction and Fail errors.
func TestOutOfGrid(t *testing.T) {
	d := Dims{D: 2, Hidden: 2, QK: 2}
	u, err := NewAction(d, []float64{
		1, -0.5, 0.25, 0.75, // W
		0.5, 1, -1, 0.5, // A
		0.1, -0.2, // b
		1, 0, 0.5, -1, // Q
		0, 1, 1, 0.5, // K
		0.5, 0.5, -0.5, 1, // V
	})
	if err != nil {
		t.Fatal(err)
	}
	xs := [][]float64{{0.5, -0.25}, {-1, 0.75}, {0.2, 0.9}}
	data := dataset([][][]float64{xs}, [][][]float64{SelfAttentionTarget(xs, 0.3)})
	cfg := ProblemConfig[float64]{
		Block: Block[float64]{Dims: d, Beta: 0.5}, T: 2, Data: data, Grid: boxGrid(t, 2, 1, 0.1),
		Ell: 3, Actions: []*Action[float64]{u}, OutOfGrid: SnapAndCount,
	}
	p, err := NewProblem(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := DepthFirst[float64]{}.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Stats.OutOfGrid <= 0 || sol.Stats.Snapped != 6 {
		t.Errorf("out-of-grid fraction %v (%d of %d)", sol.Stats.OutOfGrid, sol.Stats.Outside, sol.Stats.Snapped)
	}
	t.Logf("golden action twice: %d of %d snapped tokens outside [−1,1]² (fraction %.3f)", sol.Stats.Outside, sol.Stats.Snapped, sol.Stats.OutOfGrid)
	// The continuous outputs after two layers really are outside.
	out := cfg.Block.Forward(xs, []Action[float64]{*u, *u})
	if out[0][0] < 1 {
		t.Errorf("golden two-layer output %v inside the box", out)
	}
	cfg.OutOfGrid = Fail
	p, err = NewProblem(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Solver[float64]{DepthFirst[float64]{}, ReachableDP[float64]{}} {
		if _, err := s.Solve(context.Background(), p); err == nil {
			t.Errorf("%T with Fail: no error", s)
		}
	}
	if _, err := NewNested(p, NestedOptions{}).Solve(context.Background(), 1); err == nil {
		t.Error("Nested with Fail: no error")
	}
	if _, err := p.Step(0, p.Init(), 0); err == nil {
		t.Error("Step with Fail: no error")
	}
	// Plain Snap does not count.
	cfg.OutOfGrid = Snap
	p, _ = NewProblem(cfg)
	sol, _ = DepthFirst[float64]{}.Solve(context.Background(), p)
	if sol.Stats.Outside != 0 {
		t.Errorf("Snap counted %d", sol.Stats.Outside)
	}
}

func TestCancellation(t *testing.T) {
	p, err := NewProblem(smallConfig(t, 20, 5, 3, 30, 3))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, s := range []Solver[float64]{DepthFirst[float64]{}, DepthFirst[float64]{Workers: 1}, ReachableDP[float64]{}, FullEnumeration[float64]{}} {
		if _, err := s.Solve(ctx, p); err == nil {
			t.Errorf("%T: no error after cancel", s)
		} else if !errors.Is(err, context.Canceled) && s != (FullEnumeration[float64]{}) {
			t.Errorf("%T: error %v", s, err)
		}
	}
	if _, err := NewNested(p, NestedOptions{}).Solve(ctx, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("Nested: %v", err)
	}
}

// TestFloat32 runs the float32 core and compares with float64.
func TestFloat32(t *testing.T) {
	c := smallConfig(t, 21, 6, 4, 8, 2)
	p64, err := NewProblem(c)
	if err != nil {
		t.Fatal(err)
	}
	conv := func(a *tensor.Dense[float64]) *tensor.Dense[float32] {
		out, _ := tensor.New[float32](a.Shape()...)
		for i, v := range a.Data() {
			out.Data()[i] = float32(v)
		}
		return out
	}
	var us []*Action[float32]
	for _, u := range c.Actions {
		f := u.Flatten(nil)
		g := make([]float32, len(f))
		for i, v := range f {
			g[i] = float32(v)
		}
		u32, _ := NewAction(u.Dims, g)
		us = append(us, u32)
	}
	g32, _ := quantize.NewBoxGridForRadius([]float32{-1, -1}, []float32{1, 1}, 0.25)
	p32, err := NewProblem(ProblemConfig[float32]{
		Block: Block[float32]{Dims: c.Block.Dims, Beta: 0.5}, T: 2,
		Data: Dataset[float32]{X: conv(c.Data.X), Y: conv(c.Data.Y)}, Grid: g32, Ell: 4, Actions: us,
	})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := DepthFirst[float64]{}.Solve(context.Background(), p64)
	b, err := DepthFirst[float32]{}.Solve(context.Background(), p32)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.Value-b.Value) > 1e-5 {
		t.Errorf("float64 %v %v, float32 %v %v", a.Value, a.Actions, b.Value, b.Actions)
	}
}
