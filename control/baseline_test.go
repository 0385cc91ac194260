package control

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/icrl-go/icrl/quantize"
	"github.com/icrl-go/icrl/transformer"
)

// tinySection6 is the §6 set-up at a tiny scale: one layer of a block with
// D = Hidden = QK = 1 (6 weights), N = 2 tokens, 4 training sequences.
func tinySection6(t *testing.T, T, actions int, seed uint64) *Section6[float64] {
	t.Helper()
	s, err := NewSection6[float64](Section6Config{N: 2, D: 1, Hidden: 1, QK: 1, T: T, Ktrain: 4, Ktest: 4,
		StateN: 20, Ell: 2, Step: actions, MaxActions: actions, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// bruteForce returns the smallest continuous objective over the grid
// {−1, −1+h, …, 1}^6 of one layer's weights.
func bruteForce(t *testing.T, o *Objective, steps int) float64 {
	t.Helper()
	n := o.Params()
	theta := make([]float64, n)
	idx := make([]int, n)
	best := math.Inf(1)
	for {
		for i, k := range idx {
			theta[i] = -1 + 2*float64(k)/float64(steps)
		}
		j, err := o.Eval(theta, nil)
		if err != nil {
			t.Fatal(err)
		}
		best = min(best, j)
		i := 0
		for ; i < n; i++ {
			idx[i]++
			if idx[i] <= steps {
				break
			}
			idx[i] = 0
		}
		if i == n {
			return best
		}
	}
}

// maxProblem is a one-layer problem with D = Hidden = QK = 1 (6 weights),
// N = 2 tokens and K = 4 sequences whose label is 0.8·max(x¹, x²) − 0.2 at
// both positions: a target the block cannot represent exactly, so the
// optimum is positive. It starts with 10 random actions.
func maxProblem(t *testing.T) *Problem[float64] {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	var X, Y [][][]float64
	for range 4 {
		a, b := 2*rng.Float64()-1, 2*rng.Float64()-1
		y := 0.8*max(a, b) - 0.2
		X = append(X, [][]float64{{a}, {b}})
		Y = append(Y, [][]float64{{y}, {y}})
	}
	data := dataset(X, Y)
	dims := Dims{D: 1, Hidden: 1, QK: 1}
	var actions []*Action[float64]
	for range 10 {
		flat := make([]float64, dims.Params())
		for i := range flat {
			flat[i] = 2*rng.Float64() - 1
		}
		u, err := NewAction(dims, flat)
		if err != nil {
			t.Fatal(err)
		}
		actions = append(actions, u)
	}
	grid, err := quantize.NewBoxGridForRadius([]float64{-1}, []float64{1}, 1.0/40)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProblem(ProblemConfig[float64]{Block: Block[float64]{Dims: dims, Beta: 0.5}, T: 1, Data: data,
		Grid: grid, Ell: 2, OutOfGrid: SnapAndCount, Actions: actions})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBaselinesAgainstBruteForce checks, on a one-layer instance small
// enough to brute-force (6 weights on an 11-point grid per weight, 1.8
// million evaluations), that the best of 8 Adam restarts and the best of 6
// refined-DP seeds reach the grid optimum of the continuous training error
// within 0.002 (or go below it: both search the continuous box), and every
// refined-DP seed within 0.01 (the quantized problem snaps states to a grid
// of radius 1/40, and the refinement is a randomised search).
func TestBaselinesAgainstBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("brute force over 1.8 million weight vectors")
	}
	po := maxProblem(t)
	o, err := NewObjective(po.Block(), 1, po.Data())
	if err != nil {
		t.Fatal(err)
	}
	brute := bruteForce(t, o, 10)
	ctx := context.Background()
	adam, err := TrainAdam(ctx, o, AdamConfig{Restarts: 8, Steps: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if brute < 0.005 {
		t.Fatalf("grid optimum %.5f: the instance is too easy to tell the methods apart", brute)
	}
	t.Logf("grid optimum %.5f; best Adam restart of 8 × 300 steps %.5f", brute, adam.Value)
	if adam.Value > brute+0.002 {
		t.Errorf("best Adam restart %.5f, grid optimum %.5f", adam.Value, brute)
	}
	bestDP := math.Inf(1)
	for seed := range uint64(6) {
		p := maxProblem(t)
		n := NewNested(p, NestedOptions{})
		sol, err := n.Solve(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := Refine(ctx, p, n, sol, RefineConfig{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		last := steps[len(steps)-1]
		dp, _, err := EvalContinuous(p.Block(), last.Weights, p.Data())
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := EvalContinuous(p.Block(), steps[0].Weights, p.Data())
		t.Logf("seed %d: DP on 10 random actions %.5f (quantized %.5f), refined on %d actions %.5f (quantized %.5f)",
			seed, first, steps[0].Value, last.M, dp, last.Value)
		if dp > brute+0.01 {
			t.Errorf("seed %d: refined DP %.5f, grid optimum %.5f", seed, dp, brute)
		}
		bestDP = min(bestDP, dp)
	}
	if bestDP > brute+0.002 {
		t.Errorf("best refined DP over 6 seeds %.5f, grid optimum %.5f", bestDP, brute)
	}
}

// TestRefineMonotone checks that the quantized value never increases over
// refinements, for five seeds of the §6 setting at a small scale.
func TestRefineMonotone(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(5) {
		cfg := DefaultSection6Config()
		cfg.Ktrain, cfg.Ktest, cfg.MaxActions, cfg.Seed = 8, 4, 10, seed
		s, err := NewSection6[float64](cfg)
		if err != nil {
			t.Fatal(err)
		}
		n := NewNested(s.Problem, NestedOptions{})
		sol, err := n.Solve(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := Refine(ctx, s.Problem, n, sol, RefineConfig{Rounds: 5, PerLayer: 5, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(steps); i++ {
			if steps[i].Value > steps[i-1].Value || steps[i].M != 10+10*i {
				t.Fatalf("seed %d round %d: value %v → %v, M = %d", seed, i, steps[i-1].Value, steps[i].Value, steps[i].M)
			}
		}
		if !(steps[len(steps)-1].Value < steps[0].Value) {
			t.Errorf("seed %d: refinement never improved on %v", seed, steps[0].Value)
		}
	}
}

// TestBaselinesDeterministic checks that Adam with restarts and the refined
// DP give the same numbers at any GOMAXPROCS.
func TestBaselinesDeterministic(t *testing.T) {
	run := func(procs int) (float64, []float64, []float64) {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		cfg := DefaultSection6Config()
		cfg.Ktrain, cfg.Ktest, cfg.MaxActions, cfg.Seed = 6, 4, 10, 7
		s, err := NewSection6[float64](cfg)
		if err != nil {
			t.Fatal(err)
		}
		o, err := NewObjective(s.Problem.Block(), cfg.T, s.Train)
		if err != nil {
			t.Fatal(err)
		}
		a, err := TrainAdam(context.Background(), o, AdamConfig{Restarts: 4, Steps: 30, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		n := NewNested(s.Problem, NestedOptions{})
		sol, err := n.Solve(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := Refine(context.Background(), s.Problem, n, sol, RefineConfig{Rounds: 3, PerLayer: 4, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]float64, len(steps))
		for i, st := range steps {
			vals[i] = st.Value
		}
		return a.Value, a.Restarts[3].Curve, vals
	}
	a1, c1, v1 := run(1)
	a2, c2, v2 := run(2)
	if a1 != a2 || len(c1) != 31 || !equal(c1, c2) || !equal(v1, v2) {
		t.Errorf("GOMAXPROCS 1 and 2 differ: Adam %v vs %v, refined values %v vs %v", a1, a2, v1, v2)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestBaselineErrors checks the configuration errors.
func TestBaselineErrors(t *testing.T) {
	s := tinySection6(t, 1, 2, 1)
	o, err := NewObjective(s.Problem.Block(), 1, s.Train)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, cfg := range []AdamConfig{{Restarts: -1}, {Steps: -1}, {LR: math.NaN()}, {Bound: -1}, {Adam: adamBeta(2)}} {
		if _, err := TrainAdam(ctx, o, cfg); err == nil {
			t.Errorf("TrainAdam(%+v): no error", cfg)
		}
	}
	n := NewNested(s.Problem, NestedOptions{})
	sol, err := n.Solve(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []RefineConfig{{Rounds: -1}, {Radius: -1}, {Shrink: 2}, {Bound: math.Inf(1)}} {
		if _, err := Refine(ctx, s.Problem, n, sol, cfg); err == nil {
			t.Errorf("Refine(%+v): no error", cfg)
		}
	}
	if _, err := o.Eval(make([]float64, 3), nil); err == nil {
		t.Error("Eval of the wrong length: no error")
	}
}

// adamBeta returns an Adam configuration with β₁ = b.
func adamBeta(b float64) transformer.AdamConfig { return transformer.AdamConfig{Beta1: b} }

// TestSolveLayersBruteForce checks the per-layer solve against the
// exhaustive minimum of EvalQuantized over the product of the layers' sets,
// through two extensions of the sets.
func TestSolveLayersBruteForce(t *testing.T) {
	cfg := DefaultSection6Config()
	cfg.Ktrain, cfg.Ktest, cfg.MaxActions, cfg.Seed = 5, 2, 30, 4
	s, err := NewSection6[float64](cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := NewNested(s.Problem, NestedOptions{})
	rounds := [][][]int{
		{{0, 1, 2}, {3, 4}},
		{{0, 1, 2, 5, 6}, {3, 4, 7}},
		{{0, 1, 2, 5, 6, 20}, {3, 4, 7, 8, 9, 29, 0}},
	}
	prev := math.Inf(1)
	for r, sets := range rounds {
		sol, err := n.SolveLayers(context.Background(), sets)
		if err != nil {
			t.Fatal(err)
		}
		best, arg := math.Inf(1), []int{-1, -1}
		for _, a := range sets[0] {
			for _, b := range sets[1] {
				v, err := EvalQuantized(s.Problem, []int{a, b})
				if err != nil {
					t.Fatal(err)
				}
				if v < best {
					best, arg = v, []int{a, b}
				}
			}
		}
		if math.Abs(sol.Value-best) > 1e-12 || sol.Value > prev {
			t.Errorf("round %d: SolveLayers %v at %v, exhaustive %v at %v (previous %v)", r, sol.Value, sol.Actions, best, arg, prev)
		}
		prev = sol.Value
	}
	if _, err := n.SolveLayers(context.Background(), [][]int{{0, 1}, {3, 4}}); err == nil {
		t.Error("sets that do not extend the previous ones were accepted")
	}
	if _, err := n.SolveLayers(context.Background(), [][]int{{0, 1, 2, 5, 6, 20, 20}, {3, 4, 7, 8, 9, 29, 0}}); err == nil {
		t.Error("a repeated index was accepted")
	}
}

// TestRefinePerLayerSets checks the per-layer refinement: monotone values,
// each layer's set growing by its own and the global draws.
func TestRefinePerLayerSets(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(3) {
		cfg := DefaultSection6Config()
		cfg.Ktrain, cfg.Ktest, cfg.MaxActions, cfg.Seed = 8, 4, 10, seed
		s, err := NewSection6[float64](cfg)
		if err != nil {
			t.Fatal(err)
		}
		n := NewNested(s.Problem, NestedOptions{})
		sol, err := n.Solve(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := Refine(ctx, s.Problem, n, sol, RefineConfig{Rounds: 6, PerLayer: 6, PerLayerSets: true, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(steps); i++ {
			a, b := steps[i-1], steps[i]
			if b.Value > a.Value {
				t.Fatalf("seed %d round %d: value %v → %v", seed, i, a.Value, b.Value)
			}
			for l := range b.Sizes {
				// Each layer gains its own local draws and every global one:
				// between 0 and 2·PerLayer actions, 12 in all per round.
				if d := b.Sizes[l] - a.Sizes[l]; d < 0 || d > 12 {
					t.Fatalf("seed %d round %d: layer %d set grew by %d", seed, i, l, d)
				}
			}
			if b.Sizes[0]+b.Sizes[1]-a.Sizes[0]-a.Sizes[1] < 12 {
				t.Fatalf("seed %d round %d: sets %v → %v", seed, i, a.Sizes, b.Sizes)
			}
		}
	}
}
