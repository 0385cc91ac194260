package control

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/quantize"
	"github.com/icrl-go/icrl/tensor"
)

// randAction returns an action with i.i.d. uniform entries in [−b, b].
func randAction(t testing.TB, rng *rand.Rand, d Dims, b float64) *Action[float64] {
	t.Helper()
	flat := make([]float64, d.Params())
	for i := range flat {
		flat[i] = b * (2*rng.Float64() - 1)
	}
	u, err := NewAction(d, flat)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func randActions(t testing.TB, rng *rand.Rand, d Dims, b float64, m int) []*Action[float64] {
	us := make([]*Action[float64], m)
	for j := range us {
		us[j] = randAction(t, rng, d, b)
	}
	return us
}

// randData returns K sequences of N tokens uniform on [−1, 1]^D with the
// §6 self-attention target (c = 0.3).
func randData(rng *rand.Rand, K, N, D int) Dataset[float64] {
	X, Y := make([][][]float64, K), make([][][]float64, K)
	for k := range K {
		xs := make([][]float64, N)
		for i := range xs {
			xs[i] = make([]float64, D)
			for c := range xs[i] {
				xs[i][c] = 2*rng.Float64() - 1
			}
		}
		X[k] = xs
		Y[k] = SelfAttentionTarget(xs, 0.3)
	}
	return dataset(X, Y)
}

func boxGrid(t testing.TB, D int, b, r float64) *quantize.BoxGrid[float64] {
	t.Helper()
	lo, hi := make([]float64, D), make([]float64, D)
	for c := range lo {
		lo[c], hi[c] = -b, b
	}
	g, err := quantize.NewBoxGridForRadius(lo, hi, r)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// smallConfig is a §6-like problem of reduced size.
func smallConfig(t testing.TB, seed uint64, K, N, M, T int) ProblemConfig[float64] {
	rng := rand.New(rand.NewPCG(seed, 7))
	d := Dims{D: 2, Hidden: 2, QK: 2}
	return ProblemConfig[float64]{
		Block:   Block[float64]{Dims: d, Beta: 0.5},
		T:       T,
		Data:    randData(rng, K, N, 2),
		Grid:    boxGrid(t, 2, 1, 0.25),
		Ell:     N,
		Actions: randActions(t, rng, d, 1, M),
	}
}

func TestNewProblemErrors(t *testing.T) {
	good := smallConfig(t, 1, 3, 2, 2, 2)
	if _, err := NewProblem(good); err != nil {
		t.Fatalf("good config: %v", err)
	}
	nan := math.NaN()
	cases := []struct {
		name string
		mod  func(c *ProblemConfig[float64])
		want string
	}{
		{"beta", func(c *ProblemConfig[float64]) { c.Block.Beta = -1 }, "β"},
		{"dims", func(c *ProblemConfig[float64]) { c.Block.Dims.QK = 0 }, "QK"},
		{"T", func(c *ProblemConfig[float64]) { c.T = 0 }, "horizon T = 0"},
		{"empty data", func(c *ProblemConfig[float64]) { c.Data = Dataset[float64]{} }, "no input array"},
		{"nan input", func(c *ProblemConfig[float64]) { c.Data.X.Set(nan, 1, 0, 1) }, "input token (1, 0) entry 1"},
		{"inf label", func(c *ProblemConfig[float64]) { c.Data.Y.Set(math.Inf(1), 0, 1, 0) }, "label token (0, 1) entry 0"},
		{"label count", func(c *ProblemConfig[float64]) {
			y, _ := tensor.New[float64](2, c.Data.Y.Dim(1), c.Data.Y.Dim(2))
			c.Data.Y = y
		}, "but label array [2 "},
		{"rank", func(c *ProblemConfig[float64]) { c.Data.X = c.Data.X.Sub(0) }, "input array has shape"},
		{"token dim", func(c *ProblemConfig[float64]) {
			y, _ := tensor.New[float64](c.Data.Y.Dim(0), c.Data.Y.Dim(1), 1)
			c.Data.Y = y
		}, "label array ["},
		{"ell", func(c *ProblemConfig[float64]) { c.Ell = 0 }, "ℓ = 0"},
		{"pp needs N|ell", func(c *ProblemConfig[float64]) { c.Ell = 3 }, "N | ℓ"},
		{"no grid", func(c *ProblemConfig[float64]) { c.Grid = nil }, "no state grid"},
		{"grid dim", func(c *ProblemConfig[float64]) { c.Grid = boxGrid(t, 3, 1, 0.5) }, "grid 0 has dimension 3"},
		{"grids len", func(c *ProblemConfig[float64]) {
			c.Grids = []quantize.StateQuantizer[float64]{c.Grid}
		}, "1 per-layer grids, want T+1 = 3"},
		{"nil action", func(c *ProblemConfig[float64]) { c.Actions = append(c.Actions, nil) }, "action 2 is nil"},
		{"action dims", func(c *ProblemConfig[float64]) {
			c.Actions = append(c.Actions, NewZeroAction[float64](Dims{D: 2, Hidden: 3, QK: 2}))
		}, "action 2 has dims"},
		{"action nan", func(c *ProblemConfig[float64]) {
			u := c.Actions[0].Clone()
			u.V[3] = nan
			c.Actions = append(c.Actions, u)
		}, "action 2: icrl: not finite: action entry V[1,1]"},
		{"lambda", func(c *ProblemConfig[float64]) { c.Lambda = -1 }, "λ = -1"},
		{"measure mode", func(c *ProblemConfig[float64]) { c.Measure = 7 }, "unknown measure"},
		{"terminal mode", func(c *ProblemConfig[float64]) { c.Terminal = 7 }, "unknown terminal"},
		{"oog mode", func(c *ProblemConfig[float64]) { c.OutOfGrid = 7 }, "unknown out-of-grid"},
		{"fail outside", func(c *ProblemConfig[float64]) {
			c.OutOfGrid = Fail
			c.AllowDataOutsideGrid = true
			c.Data.X.Set(1.5, 0, 1, 0)
		}, "input token (0, 1)"},
		{"grid does not cover the inputs", func(c *ProblemConfig[float64]) { c.Data.X.Set(-1.2, 2, 0, 1) }, "input token (2, 0) = ["},
		{"grid does not cover the labels", func(c *ProblemConfig[float64]) { c.Data.Y.Set(3, 1, 1, 0) }, "the grid does not cover the data"},
	}
	// Data outside the grid is accepted, snapped and counted on request.
	oc := smallConfig(t, 1, 3, 2, 2, 2)
	oc.Data.X.Set(1.5, 0, 0, 0)
	oc.AllowDataOutsideGrid, oc.OutOfGrid = true, SnapAndCount
	if p, err := NewProblem(oc); err != nil {
		t.Errorf("AllowDataOutsideGrid: %v", err)
	} else if out, _ := p.InitOutOfGrid(); out != 1 {
		t.Errorf("AllowDataOutsideGrid: %d data tokens counted outside, want 1", out)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := smallConfig(t, 1, 3, 2, 2, 2)
			tc.mod(&c)
			_, err := NewProblem(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}

	// Solver-level errors: empty action set, M too large.
	c := smallConfig(t, 1, 3, 2, 0, 2)
	p, err := NewProblem(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (DepthFirst[float64]{}).Solve(context.Background(), p); err == nil || !strings.Contains(err.Error(), "empty action set") {
		t.Errorf("empty action set: %v", err)
	}
	c = smallConfig(t, 1, 3, 2, 2, 2)
	p, _ = NewProblem(c)
	if _, err := (ReachableDP[float64]{M: 3}).Solve(context.Background(), p); err == nil {
		t.Error("M = 3 of 2 actions: no error")
	}
	if _, err := NewNested(p, NestedOptions{}).Solve(context.Background(), 3); err == nil {
		t.Error("nested level 3 of 2 actions: no error")
	}
	if _, err := (FullEnumeration[float64]{}).Solve(context.Background(), p); err == nil || !strings.Contains(err.Error(), "MaxStates") {
		t.Errorf("full enumeration of a large space: %v", err)
	}
	if _, err := p.Step(0, p.Init(), 2); err == nil {
		t.Error("Step with action 2 of 2: no error")
	}
	if _, err := p.Step(2, p.Init(), 0); err == nil {
		t.Error("Step at time T: no error")
	}
	if _, err := p.Step(0, NTypeState{N: 2, Idx: []int32{0}}, 0); err == nil {
		t.Error("Step of a malformed state: no error")
	}
	if _, err := EvalQuantized(p, []int{0}); err == nil {
		t.Error("EvalQuantized with 1 action for T = 2: no error")
	}
}

// TestStepMatchesLayer checks the N-type transition against Block.Layer on
// the grid points followed by Nearest, and the public API against
// EvalQuantized.
func TestStepMatchesLayer(t *testing.T) {
	c := smallConfig(t, 3, 5, 4, 3, 2)
	p, err := NewProblem(c)
	if err != nil {
		t.Fatal(err)
	}
	if p.General() {
		t.Fatal("N | ℓ should give N-type states")
	}
	g := c.Grid
	s := p.Init().(NTypeState)
	for k := range 5 {
		for i := range 4 {
			j, _ := g.Nearest(c.Data.X.Row(k, i))
			if s.Idx[k*4+i] != int32(j) {
				t.Fatalf("Init index (%d, %d) = %d, want %d", k, i, s.Idx[k*4+i], j)
			}
		}
	}
	acts := []int{2, 1}
	var st State = s
	for tt, j := range acts {
		next, err := p.Step(tt, st, j)
		if err != nil {
			t.Fatal(err)
		}
		cur := st.(NTypeState)
		nx := next.(NTypeState)
		for k := range 5 {
			xs := make([][]float64, 4)
			for i := range xs {
				xs[i] = append([]float64(nil), g.Point(int(cur.Idx[k*4+i]))...)
			}
			c.Block.Layer(xs, xs, c.Actions[j], nil)
			for i := range xs {
				want, _ := g.Nearest(xs[i])
				if nx.Idx[k*4+i] != int32(want) {
					t.Fatalf("t=%d sample %d token %d: index %d, want %d", tt, k, i, nx.Idx[k*4+i], want)
				}
			}
		}
		st = next
	}
	v, err := p.TerminalCost(st)
	if err != nil {
		t.Fatal(err)
	}
	// Per-token squared error against the snapped labels.
	want := 0.0
	for k := range 5 {
		for i := range 4 {
			jy, _ := g.Nearest(c.Data.Y.Row(k, i))
			want += sqDist(g.Point(int(st.(NTypeState).Idx[k*4+i])), g.Point(jy))
		}
	}
	want /= 20
	if math.Abs(v-want) > 1e-14 {
		t.Errorf("terminal cost %v, want %v", v, want)
	}
	e, err := EvalQuantized(p, acts)
	if err != nil || e != v {
		t.Errorf("EvalQuantized = %v, %v; want %v", e, err, v)
	}
}

// TestGeneralMatchesNType runs the forced general representation against
// the N-type one, and checks that R_ℓ is the identity on transitions.
func TestGeneralMatchesNType(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []quantize.MeasureMode{quantize.PositionPreservingMode, quantize.ReznikMode} {
		c := smallConfig(t, 5, 6, 3, 6, 2)
		c.Ell = 6
		c.Measure = mode
		pn, err := NewProblem(c)
		if err != nil {
			t.Fatal(err)
		}
		c.General = true
		pg, err := NewProblem(c)
		if err != nil {
			t.Fatal(err)
		}
		sn, err := DepthFirst[float64]{}.Solve(ctx, pn)
		if err != nil {
			t.Fatal(err)
		}
		sg, err := DepthFirst[float64]{}.Solve(ctx, pg)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(sn.Value-sg.Value) > 1e-12 || sn.Actions[0] != sg.Actions[0] || sn.Actions[1] != sg.Actions[1] {
			t.Errorf("%v: N-type %v %v, general %v %v", mode, sn.Value, sn.Actions, sg.Value, sg.Actions)
		}
		// R_ℓ is the identity on every transition's output.
		s := pg.Init()
		for tt := range 2 {
			for j := range 6 {
				nx, err := pg.Step(tt, s, j)
				if err != nil {
					t.Fatal(err)
				}
				for k, q := range nx.(GeneralState).M {
					prob := make([]float64, len(q.Cnt))
					for a, cn := range q.Cnt {
						prob[a] = float64(cn) / float64(q.Ell)
					}
					r, err := quantize.QuantizeMeasure(q.Idx, prob, int(q.Ell), mode, pg.ix[tt+1])
					if err != nil {
						t.Fatal(err)
					}
					if string(r.AppendKey(nil)) != string(q.AppendKey(nil)) {
						t.Fatalf("%v t=%d j=%d sample %d: R_ℓ moved %v to %v", mode, tt, j, k, q, r)
					}
				}
			}
			s, _ = pg.Step(tt, s, 0)
		}
	}
}

// TestReznikActive uses ℓ = 18 with N = 4: Reznik's R_ℓ rounds the
// initial measures to masses (4, 4, 5, 5)/18, the general representation
// is used, and the attention is weighted by the masses.
func TestReznikActive(t *testing.T) {
	c := smallConfig(t, 9, 4, 4, 5, 2)
	c.Ell = 18
	if _, err := NewProblem(c); err == nil {
		t.Fatal("position-preserving with N ∤ ℓ: no error")
	}
	c.Measure = quantize.ReznikMode
	p, err := NewProblem(c)
	if err != nil {
		t.Fatal(err)
	}
	if !p.General() {
		t.Fatal("N ∤ ℓ should give general states")
	}
	for k, q := range p.Init().(GeneralState).M {
		if len(q.Cnt) != 4 || q.Cnt[0] != 4 || q.Cnt[1] != 4 || q.Cnt[2] != 5 || q.Cnt[3] != 5 {
			t.Fatalf("initial measure %d counts %v, want [4 4 5 5]", k, q.Cnt)
		}
	}
	// One transition by hand: MapToken with the atom masses, then Nearest.
	s0 := p.Init().(GeneralState)
	s1, err := p.Step(0, s0, 3)
	if err != nil {
		t.Fatal(err)
	}
	g := c.Grid
	G := g.Size()
	for k, q := range s0.M {
		atoms := make([][]float64, len(q.Idx))
		w := make([]float64, len(q.Idx))
		for a := range q.Idx {
			atoms[a] = g.Point(int(q.Idx[a]) % G)
			w[a] = float64(q.Cnt[a])
		}
		want := map[int32]int32{}
		for a := range q.Idx {
			z := make([]float64, 2)
			c.Block.MapToken(z, atoms[a], c.Actions[3], atoms, w, nil)
			j, _ := g.Nearest(z)
			want[(q.Idx[a]/int32(G))*int32(G)+int32(j)] += q.Cnt[a]
		}
		got := s1.(GeneralState).M[k]
		if len(got.Idx) != len(want) {
			t.Fatalf("sample %d: %v, want %v", k, got, want)
		}
		for a := range got.Idx {
			if want[got.Idx[a]] != got.Cnt[a] {
				t.Fatalf("sample %d: %v, want %v", k, got, want)
			}
		}
	}
	sol, err := ReachableDP[float64]{}.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	dfs, err := DepthFirst[float64]{}.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Value != dfs.Value || sol.Actions[0] != dfs.Actions[0] || sol.Actions[1] != dfs.Actions[1] {
		t.Errorf("ReachableDP %v %v, DepthFirst %v %v", sol.Value, sol.Actions, dfs.Value, dfs.Actions)
	}
	// The terminal cost is exact OT; masses match per position, so it is
	// the mass-weighted squared error; compare with quantize.W2SqCounts.
	last := sol.Trajectory[2].(GeneralState)
	v, _ := p.TerminalCost(last)
	want := 0.0
	for k, q := range last.M {
		atoms, cnt := quantize.QMeasureAtoms(q, p.ix[2], quantize.StateQuantizer[float64](g))
		w2, err := p.cost.W2SqCounts(atoms, cnt, p.labAtoms[k], p.labCnts[k])
		if err != nil {
			t.Fatal(err)
		}
		want += w2
	}
	want /= 4
	if math.Abs(v-want) > 1e-12 || math.Abs(v-sol.Value) > 1e-15 {
		t.Errorf("terminal cost %v, exact OT %v, value %v", v, want, sol.Value)
	}
	t.Logf("ℓ = 18 (Reznik, general states): value %.6f, actions %v", sol.Value, sol.Actions)
}

// TestRawLabelsAndSmallLambda checks the RawLabels terminal mode and the
// exact-OT path for λ below LambdaMin against quantize.W2SqCounts.
func TestRawLabelsAndSmallLambda(t *testing.T) {
	for _, lam := range []float64{0, 0.01} {
		c := smallConfig(t, 11, 4, 2, 3, 1)
		c.Terminal = RawLabels
		c.Lambda = lam
		p, err := NewProblem(c)
		if err != nil {
			t.Fatal(err)
		}
		l, lmin := p.Lambda()
		if (lam == 0) != (l >= lmin) {
			t.Fatalf("λ = %v, LambdaMin = %v", l, lmin)
		}
		cost := quantize.Cost[float64]{Lambda: l, N: 2}
		for j := range 3 {
			s, err := p.Step(0, p.Init(), j)
			if err != nil {
				t.Fatal(err)
			}
			v, _ := p.TerminalCost(s)
			want := 0.0
			for k := range 4 {
				var a []quantize.Atom[float64]
				for i := range 2 {
					a = append(a, quantize.Atom[float64]{Pos: i + 1, X: c.Grid.Point(int(s.(NTypeState).Idx[k*2+i]))})
				}
				nu := empirical(t, tokens(c.Data.Y, k))
				w, err := cost.W2Sq(quantize.Measure[float64]{Atoms: a, W: []float64{0.5, 0.5}}, nu)
				if err != nil {
					t.Fatal(err)
				}
				want += w
			}
			want /= 4
			if math.Abs(v-want) > 1e-12 {
				t.Errorf("λ = %v, action %d: terminal cost %v, want %v", l, j, v, want)
			}
		}
	}
}

// TestPerLayerGrids uses a different grid per time (covering each layer's reachable box) and
// checks the solvers agree and nothing leaves the covering boxes.
func TestPerLayerGrids(t *testing.T) {
	c := smallConfig(t, 13, 5, 3, 4, 2)
	rng := rand.New(rand.NewPCG(13, 8))
	c.Actions = randActions(t, rng, c.Block.Dims, 0.5, 4)
	c.Grids = []quantize.StateQuantizer[float64]{boxGrid(t, 2, 1, 0.2), boxGrid(t, 2, 4, 0.2), boxGrid(t, 2, 13, 0.2)}
	c.OutOfGrid = SnapAndCount
	p, err := NewProblem(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := DepthFirst[float64]{}.Solve(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReachableDP[float64]{}.Solve(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if a.Value != b.Value || a.Actions[0] != b.Actions[0] || a.Actions[1] != b.Actions[1] {
		t.Errorf("DepthFirst %v %v, ReachableDP %v %v", a.Value, a.Actions, b.Value, b.Actions)
	}
	for _, st := range []Stats{a.Stats, b.Stats} {
		if st.Outside != 0 || st.Snapped == 0 {
			t.Errorf("outside %d of %d snapped", st.Outside, st.Snapped)
		}
	}
}
