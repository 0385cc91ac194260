package game

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/game/simplex"
)

func approxSlice(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// checkSolution asserts the invariants every Solve result must satisfy: both
// strategies on the simplex, Value = XᵀAY, and a duality gap of at most tol.
func checkSolution(t *testing.T, name string, g *ZeroSum, s Solution, tol float64) {
	t.Helper()
	rows, cols := g.Dims()
	if err := simplex.CheckDistribution("X", s.X, rows); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := simplex.CheckDistribution("Y", s.Y, cols); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if v := g.Payoff(s.X, s.Y); math.Abs(v-s.Value) > 1e-12 {
		t.Errorf("%s: Value = %v but XᵀAY = %v", name, s.Value, v)
	}
	gap, err := g.DualityGap(s.X, s.Y)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if gap > tol {
		t.Errorf("%s: duality gap at the LP solution = %g > %g (X=%v, Y=%v, A=%v)", name, gap, tol, s.X, s.Y, g.Payoffs())
	}
}

func TestSolveFixtures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		g     *ZeroSum
		x, y  []float64 // nil: do not check (equilibrium not unique)
		value float64
	}{
		// OpenSpiel lp_solver_test.py.
		{"RPS", RPS(), []float64{1. / 3, 1. / 3, 1. / 3}, []float64{1. / 3, 1. / 3, 1. / 3}, 0},
		// OpenSpiel lp_solver_test.py; Bošanský et al. 2016 §6.2.
		{"BiasedRPS", BiasedRPS(), []float64{1. / 16, 10. / 16, 5. / 16}, []float64{1. / 16, 10. / 16, 5. / 16}, 0},
		// OpenSpiel lp_solver_test.py: saddle point at (row 0, column 1).
		{"pure", MustZeroSum([][]float64{{2, 1, 5}, {-3, -4, -2}}), []float64{1, 0}, []float64{0, 1, 0}, 1},
		{"MatchingPennies", MatchingPennies(), []float64{.5, .5}, []float64{.5, .5}, 0},
		// matching pennies in [0,1].
		{"pennies01", MustZeroSum([][]float64{{1, 0}, {0, 1}}), []float64{.5, .5}, []float64{.5, .5}, .5},
		// G1.
		{"G1", MustZeroSum([][]float64{{1, 0}, {0, .5}}), []float64{1. / 3, 2. / 3}, []float64{1. / 3, 2. / 3}, 1. / 3},
		// shifted RPS.
		{"shiftedRPS", MustZeroSum([][]float64{{.5, 0, 1}, {1, .5, 0}, {0, 1, .5}}), []float64{1. / 3, 1. / 3, 1. / 3}, []float64{1. / 3, 1. / 3, 1. / 3}, .5},
		// Golden value, checked by hand: x=(p,1−p) equalises the columns,
		// 0.2+0.7p = 0.6−0.5p ⇒ p = 1/3; y=(q,1−q) equalises the rows,
		// 0.1+0.8q = 0.6−0.4q ⇒ q = 5/12; v = 0.2+0.7/3 = 13/30. There is no
		// saddle point (maximin 0.2 < minimax 0.6).
		{"golden", MustZeroSum([][]float64{{.9, .1}, {.2, .6}}), []float64{1. / 3, 2. / 3}, []float64{5. / 12, 7. / 12}, 13. / 30},
		{"Rescaled RPS", func() *ZeroSum { g, _, _ := Rescale(RPS(), -1, 1); return g }(), []float64{1. / 3, 1. / 3, 1. / 3}, []float64{1. / 3, 1. / 3, 1. / 3}, .5},
		{"1x1", MustZeroSum([][]float64{{-7.5}}), []float64{1}, []float64{1}, -7.5},
		{"constant", MustZeroSum([][]float64{{2, 2, 2}, {2, 2, 2}}), nil, nil, 2},
		{"1x3", MustZeroSum([][]float64{{3, -1, 2}}), []float64{1}, []float64{0, 1, 0}, -1},
		{"3x1", MustZeroSum([][]float64{{3}, {-1}, {2}}), []float64{1, 0, 0}, []float64{1}, 3},
		// Row 1 strictly dominated; the rest is matching pennies on rows
		// {0, 2}.
		{"dominated", MustZeroSum([][]float64{{1, -1}, {-2, -2}, {-1, 1}}), []float64{.5, 0, .5}, []float64{.5, .5}, 0},
		// Duplicated rows and columns: value 1/2, many equilibria.
		{"duplicated", MustZeroSum([][]float64{{1, 1, 0}, {0, 0, 1}, {1, 1, 0}}), nil, nil, .5},
		// Huge payoffs whose range overflows float64.
		{"huge", MustZeroSum([][]float64{{1e308, -1e308}, {-1e308, 1e308}}), []float64{.5, .5}, []float64{.5, .5}, 0},
		{"tiny", MustZeroSum([][]float64{{1e-300, 0}, {0, 1e-300}}), []float64{.5, .5}, []float64{.5, .5}, .5e-300},
	} {
		s, err := Solve(tc.g)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.x != nil && !approxSlice(s.X, tc.x, 1e-9) {
			t.Errorf("%s: X = %v, want %v", tc.name, s.X, tc.x)
		}
		if tc.y != nil && !approxSlice(s.Y, tc.y, 1e-9) {
			t.Errorf("%s: Y = %v, want %v", tc.name, s.Y, tc.y)
		}
		lo, hi := tc.g.Bounds()
		scale := max(math.Abs(lo), math.Abs(hi), 1e-300)
		if math.Abs(s.Value-tc.value) > 1e-9*scale {
			t.Errorf("%s: value = %v, want %v", tc.name, s.Value, tc.value)
		}
		if tc.name != "huge" { // the gap of the huge game overflows
			checkSolution(t, tc.name, tc.g, s, 1e-9*scale)
		}
	}
}

// TestGapValues checks duality gaps computed by hand.
func TestGapValues(t *testing.T) {
	t.Parallel()
	pennies := MustZeroSum([][]float64{{1, 0}, {0, 1}})
	g1 := MustZeroSum([][]float64{{1, 0}, {0, .5}})
	srps := MustZeroSum([][]float64{{.5, 0, 1}, {1, .5, 0}, {0, 1, .5}})
	u2, u3 := simplex.Uniform[float64](2), simplex.Uniform[float64](3)
	e1, e13 := []float64{1, 0}, []float64{1, 0, 0}
	third := []float64{1. / 3, 2. / 3}
	for _, tc := range []struct {
		name string
		g    *ZeroSum
		x, y []float64
		want float64
	}{
		{"pennies uniform", pennies, u2, u2, 0},
		{"pennies e1", pennies, e1, e1, 1},
		{"pennies (0.7,0.3)", pennies, []float64{.7, .3}, u2, .2},
		{"G1 uniform", g1, u2, u2, .25},
		{"G1 NE", g1, third, third, 0},
		{"shifted RPS uniform", srps, u3, u3, 0},
		{"shifted RPS e1,uniform", srps, e13, u3, .5},
		{"shifted RPS e1,e1", srps, e13, e13, 1},
	} {
		got, err := tc.g.DualityGap(tc.x, tc.y)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: gap = %v, want %v", tc.name, got, tc.want)
		}
		if g := tc.g.Gap(tc.x, tc.y); g != got {
			t.Errorf("%s: Gap = %v, DualityGap = %v", tc.name, g, got)
		}
		nc, err := tc.g.Bimatrix().NashConv(tc.x, tc.y)
		if err != nil || math.Abs(nc-got) > 1e-12 {
			t.Errorf("%s: NashConv = %v (%v), want the gap %v", tc.name, nc, err, got)
		}
	}
}

// shapleySnowValue is an independent brute-force solver for small zero-sum
// games, based on the theorem of Shapley and Snow (1950, "Basic solutions of
// discrete games", Contributions to the Theory of Games I): every extreme
// optimal pair (x, y) of a game with value v has a square kernel M (rows R,
// columns C) with 1ᵀadj(M)1 ≠ 0 such that
//
//	v = det(M)/1ᵀadj(M)1,  x_R = 1ᵀadj(M)/1ᵀadj(M)1,  y_C = adj(M)1/1ᵀadj(M)1.
//
// It tries every square submatrix and returns the first candidate that is
// optimal (to tol) against every pure strategy of the full game. It shares
// no code with Solve beyond the accessors of ZeroSum.
func shapleySnowValue(g *ZeroSum, tol float64) (v float64, x, y []float64, ok bool) {
	rows, cols := g.Dims()
	kmax := min(rows, cols)
	for k := 1; k <= kmax; k++ {
		var found bool
		forEachSubset(rows, k, func(rs []int) bool {
			forEachSubset(cols, k, func(cs []int) bool {
				m := make([][]float64, k)
				for p, i := range rs {
					m[p] = make([]float64, k)
					for q, j := range cs {
						m[p][q] = g.At(i, j)
					}
				}
				adj := adjugate(m)
				var s float64
				for p := range adj {
					for q := range adj[p] {
						s += adj[p][q]
					}
				}
				if math.Abs(s) < 1e-9 {
					return true
				}
				cv := det(m) / s
				cx := make([]float64, rows)
				cy := make([]float64, cols)
				for p, i := range rs {
					for q := range k {
						cx[i] += adj[q][p] / s // (1ᵀadj)_p
					}
				}
				for q, j := range cs {
					for p := range k {
						cy[j] += adj[q][p] / s // (adj 1)_q
					}
				}
				for _, w := range cx {
					if w < -tol {
						return true
					}
				}
				for _, w := range cy {
					if w < -tol {
						return true
					}
				}
				for j := range cols {
					var pay float64
					for i := range rows {
						pay += cx[i] * g.At(i, j)
					}
					if pay < cv-tol {
						return true
					}
				}
				for i := range rows {
					var pay float64
					for j := range cols {
						pay += g.At(i, j) * cy[j]
					}
					if pay > cv+tol {
						return true
					}
				}
				v, x, y, found = cv, cx, cy, true
				return false
			})
			return !found
		})
		if found {
			return v, x, y, true
		}
	}
	return 0, nil, nil, false
}

// forEachSubset calls f with every k-subset of {0..n−1} in lexicographic
// order until f returns false.
func forEachSubset(n, k int, f func([]int) bool) bool {
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	for {
		if !f(idx) {
			return false
		}
		i := k - 1
		for i >= 0 && idx[i] == n-k+i {
			i--
		}
		if i < 0 {
			return true
		}
		idx[i]++
		for j := i + 1; j < k; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

// det returns the determinant of a small square matrix by Gaussian
// elimination with partial pivoting.
func det(m [][]float64) float64 {
	k := len(m)
	a := make([][]float64, k)
	for i := range m {
		a[i] = append([]float64(nil), m[i]...)
	}
	d := 1.0
	for c := range k {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if a[p][c] == 0 {
			return 0
		}
		if p != c {
			a[p], a[c] = a[c], a[p]
			d = -d
		}
		d *= a[c][c]
		for r := c + 1; r < k; r++ {
			f := a[r][c] / a[c][c]
			for q := c; q < k; q++ {
				a[r][q] -= f * a[c][q]
			}
		}
	}
	return d
}

// adjugate returns adj(M), adj(M)_{ij} = (−1)^{i+j} det(M with row j and
// column i removed); adj of a 1×1 matrix is [1].
func adjugate(m [][]float64) [][]float64 {
	k := len(m)
	adj := make([][]float64, k)
	for i := range adj {
		adj[i] = make([]float64, k)
	}
	if k == 1 {
		adj[0][0] = 1
		return adj
	}
	for i := range k {
		for j := range k {
			minor := make([][]float64, 0, k-1)
			for r := range k {
				if r == j {
					continue
				}
				row := make([]float64, 0, k-1)
				for c := range k {
					if c != i {
						row = append(row, m[r][c])
					}
				}
				minor = append(minor, row)
			}
			sign := 1.0
			if (i+j)%2 == 1 {
				sign = -1
			}
			adj[i][j] = sign * det(minor)
		}
	}
	return adj
}

// randomTestGame draws a game of one of several families, most of them
// degenerate: uniform reals, small integers with many ties, duplicated rows
// and columns, a dominated row, constant games.
func randomTestGame(rng *rand.Rand) (*ZeroSum, string) {
	rows, cols := 1+rng.IntN(5), 1+rng.IntN(5)
	a := make([][]float64, rows)
	for i := range a {
		a[i] = make([]float64, cols)
	}
	kind := rng.IntN(6)
	names := [...]string{"uniform", "ints", "binary", "duplicated", "dominated", "constant"}
	for i := range a {
		for j := range a[i] {
			switch kind {
			case 0:
				a[i][j] = rng.Float64()
			case 1, 3, 4:
				a[i][j] = float64(rng.IntN(5) - 2)
			case 2:
				a[i][j] = float64(rng.IntN(2))
			case 5:
				a[i][j] = 0.25
			}
		}
	}
	switch kind {
	case 3: // duplicate a row and a column
		if rows > 1 {
			copy(a[rows-1], a[0])
		}
		if cols > 1 {
			for i := range a {
				a[i][cols-1] = a[i][0]
			}
		}
	case 4: // row 0 weakly dominated by row 1 (or strictly, one less)
		if rows > 1 {
			for j := range a[0] {
				a[0][j] = a[1][j] - float64(rng.IntN(2))
			}
		}
	}
	return MustZeroSum(a), names[kind]
}

// TestSolveAgainstShapleySnow compares the LP with the independent
// brute-force solver on 1500 random games up to 5×5, most of them
// degenerate.
func TestSolveAgainstShapleySnow(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 1500 {
		g, kind := randomTestGame(rng)
		s, err := Solve(g)
		if err != nil {
			t.Fatalf("game %d (%s) %v: %v", n, kind, g.Payoffs(), err)
		}
		checkSolution(t, fmt.Sprintf("game %d (%s)", n, kind), g, s, 1e-9)
		v, _, _, ok := shapleySnowValue(g, 1e-9)
		if !ok {
			t.Fatalf("game %d (%s) %v: brute force found no kernel", n, kind, g.Payoffs())
		}
		if math.Abs(v-s.Value) > 1e-9 {
			t.Errorf("game %d (%s) %v: LP value %v, Shapley–Snow value %v", n, kind, g.Payoffs(), s.Value, v)
		}
		// The transposed game has the negated value.
		st, err := Solve(g.Transpose())
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(st.Value+s.Value) > 1e-9 {
			t.Errorf("game %d: value %v but the transposed game has %v", n, s.Value, st.Value)
		}
	}
}

// TestSolveRandom: 1000 random games in [0,1]^{n×m},
// n, m ≤ 6: Gap(x*, y*) ≤ 1e-9, value = x*ᵀAy*, and Gap ≥ 0 (and at least
// the exploitability split) at random mixed pairs.
func TestSolveRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 1000 {
		g, _ := RandomUniform(1+rng.IntN(6), 1+rng.IntN(6), rng)
		s, err := Solve(g)
		if err != nil {
			t.Fatal(err)
		}
		checkSolution(t, fmt.Sprint("game ", n), g, s, 1e-9)
		rows, cols := g.Dims()
		x, y := randomSimplex(rows, rng), randomSimplex(cols, rng)
		gap, err := g.DualityGap(x, y)
		if err != nil || gap < 0 {
			t.Fatalf("game %d: gap %v, %v", n, gap, err)
		}
		r, c, err := g.Exploitability(x, y, s.Value)
		if err != nil || r < -1e-9 || c < -1e-9 || math.Abs(r+c-gap) > 1e-9 {
			t.Errorf("game %d: exploitabilities %v + %v vs gap %v (%v)", n, r, c, gap, err)
		}
		// Every pure deviation is bounded by the value.
		_, br, _ := g.BestResponseRow(s.Y)
		_, bc, _ := g.BestResponseCol(s.X)
		if br > s.Value+1e-9 || bc < s.Value-1e-9 {
			t.Errorf("game %d: best responses %v, %v around value %v", n, br, bc, s.Value)
		}
	}
}

// TestSolveLarge checks optimality on larger random and degenerate games,
// where Solve's basis recovery and its fallback are exercised.
func TestSolveLarge(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][2]int{{30, 30}, {50, 20}, {20, 50}, {100, 100}, {1, 200}, {200, 1}} {
		g, _ := RandomUniform(sz[0], sz[1], rng)
		s, err := Solve(g)
		if err != nil {
			t.Fatal(err)
		}
		checkSolution(t, fmt.Sprint(sz), g, s, 1e-9)
		// Integer payoffs in {0,1,2}: heavy degeneracy.
		a := make([]float64, sz[0]*sz[1])
		for k := range a {
			a[k] = float64(rng.IntN(3))
		}
		gi, err := NewZeroSumDense(sz[0], sz[1], a)
		if err != nil {
			t.Fatal(err)
		}
		s, err = Solve(gi)
		if err != nil {
			t.Fatal(err)
		}
		checkSolution(t, fmt.Sprint("ints ", sz), gi, s, 1e-9)
	}
}

// TestSolveAffine checks that the value maps by the affine map and the
// solution stays optimal when payoffs are rescaled.
func TestSolveAffine(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		g, _ := RandomUniform(1+rng.IntN(5), 1+rng.IntN(5), rng)
		s, err := Solve(g)
		if err != nil {
			t.Fatal(err)
		}
		f := Affine{Scale: 0.1 + 10*rng.Float64(), Shift: 20*rng.Float64() - 10}
		a := g.RawPayoffs()
		for k := range a {
			a[k] = f.Apply(a[k])
		}
		rows, cols := g.Dims()
		h, _ := NewZeroSumDense(rows, cols, a)
		sh, err := Solve(h)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(sh.Value-f.Apply(s.Value)) > 1e-9*f.Scale+1e-12*math.Abs(f.Shift) {
			t.Errorf("value %v of the mapped game, want %v", sh.Value, f.Apply(s.Value))
		}
		if gap := h.Gap(s.X, s.Y); gap > 1e-9*f.Scale {
			t.Errorf("equilibrium of g has gap %v in the mapped game", gap)
		}
	}
}

func TestSolveNil(t *testing.T) {
	if _, err := Solve(nil); err == nil {
		t.Error("Solve(nil) returned no error")
	}
}

// randomSimplex returns a random point of the simplex in R^n, sometimes on a
// face.
func randomSimplex(n int, rng *rand.Rand) []float64 {
	p := make([]float64, n)
	var s float64
	for i := range p {
		if rng.IntN(4) > 0 {
			p[i] = rng.ExpFloat64()
		}
		s += p[i]
	}
	if s == 0 {
		p[rng.IntN(n)] = 1
		return p
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// TestSolveRowLP exercises the fallback of Solve directly: the row player's
// strategy computed as the column player's strategy of −Aᵀ must guarantee the
// value, on degenerate and non-degenerate games alike.
func TestSolveRowLP(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	for n := range 300 {
		g, kind := randomTestGame(rng)
		lo, hi := g.Bounds()
		if lo == hi {
			continue
		}
		rows, cols := g.Dims()
		_, x, err := solveScaled(cols, rows, scaled(rows, cols, g.a, lo, hi, true), false)
		if err != nil {
			t.Fatal(err)
		}
		clean(x)
		s, err := Solve(g)
		if err != nil {
			t.Fatal(err)
		}
		if _, worst, _ := g.BestResponseCol(x); worst < s.Value-1e-9 {
			t.Errorf("game %d (%s) %v: row LP strategy %v guarantees %v < value %v", n, kind, g.Payoffs(), x, worst, s.Value)
		}
	}
}
