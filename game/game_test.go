package game

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
)

func TestNewZeroSumErrors(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name  string
		a     [][]float64
		want  string
		empty bool
	}{
		{"nil", nil, "no rows", true},
		{"no columns", [][]float64{{}}, "no columns", true},
		{"ragged", [][]float64{{1, 2}, {3}}, "row 1 has 1 entries, row 0 has 2", false},
		{"ragged longer", [][]float64{{1}, {2}, {3, 4}}, "row 2 has 2 entries", false},
		{"NaN", [][]float64{{1, 2}, {3, nan}}, "payoff[1][1] = NaN", false},
		{"+Inf", [][]float64{{inf, 2}}, "payoff[0][0] = +Inf", false},
		{"-Inf", [][]float64{{1}, {-inf}}, "payoff[1][0] = -Inf", false},
	} {
		g, err := NewZeroSum(tc.a)
		if err == nil || g != nil {
			t.Errorf("%s: got %v, %v; want an error", tc.name, g, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want one containing %q", tc.name, err, tc.want)
		}
		if errors.Is(err, icrl.ErrEmpty) != tc.empty {
			t.Errorf("%s: errors.Is(err, ErrEmpty) = %v", tc.name, !tc.empty)
		}
	}
	for _, tc := range []struct {
		rows, cols int
		data       []float64
		want       string
	}{
		{0, 2, nil, "is 0×2"},
		{2, -1, nil, "is 2×-1"},
		{2, 2, []float64{1, 2, 3}, "has 3 entries, want 2×2 = 4"},
		{2, 2, []float64{1, 2, 3, nan}, "payoff[1][1] = NaN"},
	} {
		if _, err := NewZeroSumDense(tc.rows, tc.cols, tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewZeroSumDense(%d, %d, %v): error %v, want one containing %q", tc.rows, tc.cols, tc.data, err, tc.want)
		}
	}
	mustPanic(t, "MustZeroSum", func() { MustZeroSum([][]float64{{1}, {}}) })
}

func TestZeroSumAccessors(t *testing.T) {
	t.Parallel()
	a := [][]float64{{1, 2, 3}, {4, 5, 6}}
	g := MustZeroSum(a)
	a[0][0] = 100 // the constructor copies
	if r, c := g.Dims(); r != 2 || c != 3 {
		t.Errorf("Dims = %d, %d", r, c)
	}
	if g.At(0, 0) != 1 || g.At(1, 2) != 6 {
		t.Errorf("At: %v %v", g.At(0, 0), g.At(1, 2))
	}
	p := g.Payoffs()
	p[0][0] = -1 // a copy
	if g.At(0, 0) != 1 {
		t.Error("Payoffs aliases the game")
	}
	if lo, hi := g.Bounds(); lo != 1 || hi != 6 {
		t.Errorf("Bounds = %v, %v", lo, hi)
	}
	if g.InUnit() || !MustZeroSum([][]float64{{0, 1}}).InUnit() {
		t.Error("InUnit")
	}
	tr := g.Transpose()
	if r, c := tr.Dims(); r != 3 || c != 2 || tr.At(2, 1) != -6 || tr.At(0, 1) != -4 {
		t.Errorf("Transpose = %v", tr.Payoffs())
	}
	d, err := NewZeroSumDense(2, 3, g.RawPayoffs())
	if err != nil || !approxSlice(d.RawPayoffs(), []float64{1, 2, 3, 4, 5, 6}, 0) {
		t.Errorf("NewZeroSumDense round trip: %v, %v", d, err)
	}
	x, y := []float64{.5, .5}, []float64{1, 0, 0}
	if got := g.RowPayoffs(nil, y); !approxSlice(got, []float64{1, 4}, 0) {
		t.Errorf("RowPayoffs = %v", got)
	}
	if got := g.ColPayoffs(nil, x); !approxSlice(got, []float64{2.5, 3.5, 4.5}, 0) {
		t.Errorf("ColPayoffs = %v", got)
	}
	if got := g.Payoff(x, y); got != 2.5 {
		t.Errorf("Payoff = %v", got)
	}
	mustPanic(t, "At out of range", func() { g.At(2, 0) })
	mustPanic(t, "At negative", func() { g.At(0, -1) })
	mustPanic(t, "RowPayoffs length", func() { g.RowPayoffs(nil, x) })
	mustPanic(t, "ColPayoffs length", func() { g.ColPayoffs(nil, y) })
	mustPanic(t, "Payoff length", func() { g.Payoff(y, x) })
	mustPanic(t, "dst length", func() { g.RowPayoffs(make([]float64, 5), y) })
}

func TestBimatrixConstruction(t *testing.T) {
	t.Parallel()
	if _, err := NewBimatrix([][]float64{{1, 2}}, [][]float64{{1, 2}, {3, 4}}); err == nil || !strings.Contains(err.Error(), "1×2 but column payoffs are 2×2") {
		t.Errorf("shape mismatch: %v", err)
	}
	if _, err := NewBimatrix([][]float64{{1, 2}}, [][]float64{{1, math.NaN()}}); err == nil || !strings.Contains(err.Error(), "column payoff[0][1] = NaN") {
		t.Errorf("NaN in B: %v", err)
	}
	if _, err := NewBimatrix([][]float64{{1}, {2, 3}}, [][]float64{{1}, {2}}); err == nil || !strings.Contains(err.Error(), "row payoff is ragged") {
		t.Errorf("ragged A: %v", err)
	}
	if _, err := NewBimatrix(nil, nil); !errors.Is(err, icrl.ErrEmpty) {
		t.Errorf("empty: %v", err)
	}
	mustPanic(t, "MustBimatrix", func() { MustBimatrix([][]float64{{1}}, [][]float64{{1, 2}}) })

	g := MustBimatrix([][]float64{{1, 2}, {3, 4}}, [][]float64{{5, 6}, {7, 8}})
	if r, c := g.At(1, 0); r != 3 || c != 7 {
		t.Errorf("At(1,0) = %v, %v", r, c)
	}
	mustPanic(t, "Bimatrix.At", func() { g.At(0, 2) })
	if r, c := g.Payoffs([]float64{.5, .5}, []float64{0, 1}); r != 3 || c != 7 {
		t.Errorf("Payoffs = %v, %v", r, c)
	}
	i, v, err := g.BestResponseRow([]float64{0, 1})
	if err != nil || i != 1 || v != 4 {
		t.Errorf("BestResponseRow = %d, %v, %v", i, v, err)
	}
	j, v, err := g.BestResponseCol([]float64{1, 0})
	if err != nil || j != 1 || v != 6 {
		t.Errorf("BestResponseCol = %d, %v, %v", j, v, err)
	}
	if _, _, err := g.Improvements([]float64{1, 1}, []float64{1, 0}); err == nil || !strings.Contains(err.Error(), "row strategy sums to 2") {
		t.Errorf("Improvements off the simplex: %v", err)
	}
	if _, err := g.NashConv([]float64{1, 0}, []float64{1}); err == nil || !strings.Contains(err.Error(), "column strategy has length 1") {
		t.Errorf("NashConv length: %v", err)
	}
	// ZeroSum.Bimatrix has B = −A.
	zb := RPS().Bimatrix()
	if r, c := zb.At(0, 1); r != -1 || c != 1 {
		t.Errorf("RPS bimatrix At(0,1) = %v, %v", r, c)
	}
}

func TestImprovementsExploitability(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 32))
	for range 300 {
		g, _ := RandomUniform(1+rng.IntN(5), 1+rng.IntN(5), rng)
		s, err := Solve(g)
		if err != nil {
			t.Fatal(err)
		}
		rows, cols := g.Dims()
		x, y := randomSimplex(rows, rng), randomSimplex(cols, rng)
		gap, _ := g.DualityGap(x, y)
		r, c, err := g.Improvements(x, y)
		if err != nil || r < 0 || c < 0 || math.Abs(r+c-gap) > 1e-12 {
			t.Errorf("Improvements %v + %v ≠ gap %v (%v)", r, c, gap, err)
		}
		er, ec, err := g.Exploitability(x, y, s.Value)
		if err != nil || er < -1e-9 || ec < -1e-9 || math.Abs(er+ec-gap) > 1e-12 {
			t.Errorf("Exploitability %v + %v ≠ gap %v (%v)", er, ec, gap, err)
		}
		// At the equilibrium, both are zero.
		er, ec, _ = g.Exploitability(s.X, s.Y, s.Value)
		if math.Abs(er) > 1e-9 || math.Abs(ec) > 1e-9 {
			t.Errorf("exploitability at NE = %v, %v", er, ec)
		}
		bi, bv, err := g.BestResponseRow(y)
		if err != nil || g.RowPayoffs(nil, y)[bi] != bv || bv+1e-15 < g.Payoff(x, y)+r-1e-12 {
			t.Errorf("BestResponseRow = %d, %v, %v", bi, bv, err)
		}
		bj, bw, err := g.BestResponseCol(x)
		if err != nil || g.ColPayoffs(nil, x)[bj] != bw {
			t.Errorf("BestResponseCol = %d, %v, %v", bj, bw, err)
		}
	}
	g := RPS()
	u := simplex.Uniform[float64](3)
	for _, tc := range []struct {
		x, y []float64
		want string
	}{
		{[]float64{.5, .5}, u, "row strategy has length 2, want 3"},
		{u, []float64{.5, .6, -.1}, "column strategy[2] = -0.1 is negative"},
		{[]float64{1, 1, 1}, u, "row strategy sums to 3"},
		{u, []float64{math.NaN(), 0, 1}, "column strategy[0] = NaN"},
	} {
		if _, err := g.DualityGap(tc.x, tc.y); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DualityGap(%v, %v): %v, want %q", tc.x, tc.y, err, tc.want)
		}
		if _, _, err := g.Improvements(tc.x, tc.y); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Improvements(%v, %v): %v, want %q", tc.x, tc.y, err, tc.want)
		}
		if _, _, err := g.Exploitability(tc.x, tc.y, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Exploitability(%v, %v): %v, want %q", tc.x, tc.y, err, tc.want)
		}
	}
	if _, _, err := g.Exploitability(u, u, math.Inf(1)); err == nil || !strings.Contains(err.Error(), "+Inf") {
		t.Errorf("Exploitability with infinite value: %v", err)
	}
	if _, _, err := g.BestResponseRow([]float64{1}); err == nil {
		t.Error("BestResponseRow with a short strategy: no error")
	}
	if _, _, err := g.BestResponseCol([]float64{2, -1, 0}); err == nil {
		t.Error("BestResponseCol off the simplex: no error")
	}
}

func TestRescaleNormalize(t *testing.T) {
	t.Parallel()
	rps := RPS()
	g, f, err := Rescale(rps, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if f.Scale != .5 || f.Shift != .5 || !g.InUnit() {
		t.Errorf("Rescale(RPS, -1, 1): %v, %v", g.Payoffs(), f)
	}
	s, _ := Solve(rps)
	sg, _ := Solve(g)
	if math.Abs(sg.Value-f.Apply(s.Value)) > 1e-12 || math.Abs(f.Invert(sg.Value)-s.Value) > 1e-12 {
		t.Errorf("value %v maps to %v, rescaled game has %v", s.Value, f.Apply(s.Value), sg.Value)
	}
	if !approxSlice(sg.X, s.X, 1e-9) || !approxSlice(sg.Y, s.Y, 1e-9) {
		t.Errorf("equilibrium moved: %v %v vs %v %v", sg.X, sg.Y, s.X, s.Y)
	}
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{1, -1, "not a finite interval"},
		{0, 0, "not a finite interval"},
		{math.NaN(), 1, "not a finite interval"},
		{-1, math.Inf(1), "not a finite interval"},
		{0, 1, "do not fit in the rescale range"},
	} {
		if _, _, err := Rescale(rps, tc.lo, tc.hi); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Rescale(RPS, %v, %v): %v, want %q", tc.lo, tc.hi, err, tc.want)
		}
	}

	rng := rand.New(rand.NewPCG(33, 34))
	for range 100 {
		a := make([]float64, 12)
		for k := range a {
			a[k] = 100 * rng.NormFloat64()
		}
		h, _ := NewZeroSumDense(3, 4, a)
		n, f := Normalize(h)
		if lo, hi := n.Bounds(); lo != 0 || math.Abs(hi-1) > 1e-15 {
			t.Errorf("Normalize bounds %v, %v", lo, hi)
		}
		sh, _ := Solve(h)
		sn, _ := Solve(n)
		if math.Abs(sn.Value-f.Apply(sh.Value)) > 1e-9 {
			t.Errorf("normalised value %v, want %v", sn.Value, f.Apply(sh.Value))
		}
		if gap := h.Gap(sn.X, sn.Y); gap > 1e-9*100 {
			t.Errorf("equilibrium of the normalised game has gap %v in the original", gap)
		}
	}
	// A constant game maps to all zeros with Scale 1.
	c, f := Normalize(MustZeroSum([][]float64{{3, 3}}))
	if lo, hi := c.Bounds(); lo != 0 || hi != 0 || f.Scale != 1 || f.Apply(3) != 0 {
		t.Errorf("Normalize(constant) = %v, %v", c.Payoffs(), f)
	}
	// Extreme payoffs: no overflow, no NaN.
	for _, a := range [][][]float64{
		{{1e300, 1e300}},
		{{-1e308, 1e308}},
		{{0, 1e-310}},
		{{-math.MaxFloat64, math.MaxFloat64}, {0, 1}},
	} {
		n, f := Normalize(MustZeroSum(a))
		lo, hi := n.Bounds()
		if lo < 0 || hi > 1 || math.IsNaN(f.Scale) || math.IsNaN(f.Shift) || math.IsInf(f.Shift, 0) || !(f.Scale > 0) {
			t.Errorf("Normalize(%v) = %v, %+v", a, n.Payoffs(), f)
		}
	}
}

func TestZoo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		g          *ZeroSum
		rows, cols int
		lo, hi     float64
	}{
		{"RPS", RPS(), 3, 3, -1, 1},
		{"BiasedRPS", BiasedRPS(), 3, 3, -.5, .5},
		{"MatchingPennies", MatchingPennies(), 2, 2, -1, 1},
	} {
		if r, c := tc.g.Dims(); r != tc.rows || c != tc.cols {
			t.Errorf("%s: %d×%d", tc.name, r, c)
		}
		if lo, hi := tc.g.Bounds(); lo != tc.lo || hi != tc.hi {
			t.Errorf("%s: bounds %v, %v", tc.name, lo, hi)
		}
		// Every zoo game is symmetric: A = −Aᵀ, value 0.
		if !approxSlice(tc.g.Transpose().RawPayoffs(), tc.g.RawPayoffs(), 0) && tc.name != "MatchingPennies" {
			t.Errorf("%s is not antisymmetric", tc.name)
		}
	}
	if r, c := Shapley().Dims(); r != 3 || c != 3 {
		t.Errorf("Shapley: %d×%d", r, c)
	}
}

func TestRandomGames(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(35, 36))
	g, err := RandomUniform(20, 30, rng)
	if err != nil || !g.InUnit() {
		t.Fatalf("RandomUniform: %v", err)
	}
	if r, c := g.Dims(); r != 20 || c != 30 {
		t.Errorf("RandomUniform dims %d×%d", r, c)
	}
	for _, tc := range []struct{ mean, std float64 }{{.5, .1}, {.5, 10}, {0, .3}, {1.5, .5}} {
		gg, err := RandomGaussian(30, 30, tc.mean, tc.std, rng)
		if err != nil || !gg.InUnit() {
			t.Fatalf("RandomGaussian(%v, %v): %v, in [0,1] = %v", tc.mean, tc.std, err, gg.InUnit())
		}
	}
	// N(0.5, 0.1²) truncated to [0,1] is practically untruncated: its mean is
	// 0.5 and its std 0.1; over 900 entries the sample mean is within 0.01.
	gg, _ := RandomGaussian(30, 30, .5, .1, rng)
	var s float64
	for _, v := range gg.RawPayoffs() {
		s += v
	}
	if m := s / 900; math.Abs(m-.5) > .01 {
		t.Errorf("RandomGaussian(0.5, 0.1) mean %v", m)
	}
	for _, err := range []error{
		func() error { _, err := RandomUniform(0, 3, rng); return err }(),
		func() error { _, err := RandomGaussian(3, 0, .5, .1, rng); return err }(),
	} {
		if !errors.Is(err, icrl.ErrEmpty) {
			t.Errorf("empty random game: %v", err)
		}
	}
	for _, tc := range []struct{ mean, std float64 }{{.5, 0}, {.5, -1}, {math.NaN(), 1}, {.5, math.Inf(1)}, {math.Inf(-1), 1}} {
		if _, err := RandomGaussian(2, 2, tc.mean, tc.std, rng); err == nil || !strings.Contains(err.Error(), "std") {
			t.Errorf("RandomGaussian(mean %v, std %v): %v", tc.mean, tc.std, err)
		}
	}
	// Same seed, same game.
	a, _ := RandomUniform(3, 3, rand.New(rand.NewPCG(1, 2)))
	b, _ := RandomUniform(3, 3, rand.New(rand.NewPCG(1, 2)))
	if !approxSlice(a.RawPayoffs(), b.RawPayoffs(), 0) {
		t.Error("RandomUniform is not deterministic given the seed")
	}
}

func TestPerturbed(t *testing.T) {
	t.Parallel()
	base, _, _ := Rescale(RPS(), -1, 1)
	rng := rand.New(rand.NewPCG(37, 38))
	for _, law := range []PerturbationLaw{PerturbUniform, PerturbGaussian} {
		p0, err := NewPerturbed(base, 0, law)
		if err != nil {
			t.Fatal(err)
		}
		if g := p0.Sample(rng); !approxSlice(g.RawPayoffs(), base.RawPayoffs(), 0) {
			t.Errorf("%v, ρ=0: %v, want the base", law, g.Payoffs())
		}
		p, err := NewPerturbed(base, .1, law)
		if err != nil {
			t.Fatal(err)
		}
		if p.Base() != base || p.Rho() != .1 {
			t.Errorf("accessors: %v %v", p.Base(), p.Rho())
		}
		var maxDev float64
		for range 200 {
			g := p.Sample(rng)
			if !g.InUnit() {
				t.Fatalf("%v: sample %v leaves [0,1]", law, g.Payoffs())
			}
			for k, v := range g.RawPayoffs() {
				maxDev = max(maxDev, math.Abs(v-base.a[k]))
			}
		}
		if law == PerturbUniform && maxDev > .1 {
			t.Errorf("uniform ρ=0.1 moved an entry by %v", maxDev)
		}
		if maxDev == 0 {
			t.Errorf("%v: ρ=0.1 never moved an entry", law)
		}
	}
	if _, err := NewPerturbed(RPS(), .1, PerturbUniform); err == nil || !strings.Contains(err.Error(), "[-1, 1], outside [0,1]") {
		t.Errorf("base outside [0,1]: %v", err)
	}
	for _, rho := range []float64{-.1, math.NaN(), math.Inf(1)} {
		if _, err := NewPerturbed(base, rho, PerturbUniform); err == nil || !strings.Contains(err.Error(), "ρ") {
			t.Errorf("ρ = %v: %v", rho, err)
		}
	}
	if _, err := NewPerturbed(base, .1, PerturbationLaw(7)); err == nil || !strings.Contains(err.Error(), "PerturbationLaw(7)") {
		t.Errorf("unknown law: %v", err)
	}
	if _, err := NewPerturbed(nil, .1, PerturbUniform); err == nil {
		t.Error("nil base: no error")
	}
	if PerturbUniform.String() != "uniform" || PerturbGaussian.String() != "gaussian" {
		t.Error("PerturbationLaw.String")
	}
}

func TestNoise(t *testing.T) {
	t.Parallel()
	g := MustZeroSum([][]float64{{.3, .9}})
	rng := rand.New(rand.NewPCG(39, 40))
	const n = 100000
	// Bernoulli(0.3): the sample mean of 1e5 draws has std 0.0014; allow
	// 5 std (fixed seed, deterministic).
	var s float64
	for range n {
		r := g.Sample(0, 0, nil, rng)
		if r != 0 && r != 1 {
			t.Fatalf("Bernoulli reward %v", r)
		}
		s += r
	}
	if m := s / n; math.Abs(m-.3) > .007 {
		t.Errorf("Bernoulli mean %v, want 0.3", m)
	}
	if r := g.Sample(0, 1, Exact{}, rng); r != .9 {
		t.Errorf("Exact reward %v", r)
	}
	// UniformNoise{0.5} at mean 0.9: half-width min(0.5, 0.9, 0.1) = 0.1.
	s = 0
	lo, hi := 1.0, 0.0
	for range n {
		r := g.Sample(0, 1, UniformNoise{HalfWidth: .5}, rng)
		lo, hi = min(lo, r), max(hi, r)
		s += r
	}
	if m := s / n; math.Abs(m-.9) > .001 {
		t.Errorf("UniformNoise mean %v, want 0.9", m)
	}
	if lo < .8 || hi > 1 || lo > .801 || hi < .999 {
		t.Errorf("UniformNoise range [%v, %v], want about [0.8, 1]", lo, hi)
	}
	if r := (UniformNoise{HalfWidth: -1}).Draw(.4, rng); r != .4 {
		t.Errorf("negative half-width: %v", r)
	}
	if r := (Bernoulli{}).Draw(1.5, rng); r != 1 {
		t.Errorf("Bernoulli mean above 1: %v", r)
	}
	if r := (Bernoulli{}).Draw(-1, rng); r != 0 {
		t.Errorf("Bernoulli mean below 0: %v", r)
	}
	mustPanic(t, "Sample out of range", func() { g.Sample(1, 0, nil, rng) })
	if f := (Affine{Scale: 2, Shift: 1}); f.Apply(3) != 7 || f.Invert(7) != 3 {
		t.Error("Affine")
	}
}

// matrixFromBytes decodes a possibly ragged or empty matrix from fuzz
// bytes: a row count, then per row a length and its entries. An entry is
// one tag byte: below 200 it encodes the small number (tag−100)/4 (so ties
// are common), otherwise the next 8 bytes are a raw float64 (NaN, ±Inf,
// subnormal or huge).
func matrixFromBytes(data []byte) (m [][]float64, rest []byte) {
	next := func() (byte, bool) {
		if len(data) == 0 {
			return 0, false
		}
		b := data[0]
		data = data[1:]
		return b, true
	}
	nr, ok := next()
	if !ok {
		return nil, nil
	}
	for range int(nr % 7) {
		nc, ok := next()
		if !ok {
			break
		}
		row := []float64{}
		for range int(nc % 7) {
			tag, ok := next()
			if !ok {
				break
			}
			if tag < 200 || len(data) < 8 {
				row = append(row, float64(int(tag)-100)/4)
				continue
			}
			row = append(row, math.Float64frombits(binary.LittleEndian.Uint64(data)))
			data = data[8:]
		}
		m = append(m, row)
	}
	return m, data
}

// encodeMatrix is the inverse of matrixFromBytes for seed corpora.
func encodeMatrix(m [][]float64) []byte {
	b := []byte{byte(len(m))}
	for _, row := range m {
		b = append(b, byte(len(row)))
		for _, v := range row {
			b = append(b, 255)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

// exerciseZeroSum calls the analysis functions on a valid game and checks
// the invariants that must hold for any finite payoffs.
func exerciseZeroSum(t *testing.T, g *ZeroSum) {
	rows, cols := g.Dims()
	x, y := simplex.Uniform[float64](rows), simplex.Uniform[float64](cols)
	if _, err := g.DualityGap(x, y); err != nil {
		t.Fatal(err)
	}
	g.Transpose()
	g.Bimatrix()
	n, _ := Normalize(g)
	if lo, hi := n.Bounds(); lo < 0 || hi > 1 || math.IsNaN(lo) || math.IsNaN(hi) {
		t.Fatalf("Normalize(%v) = %v", g.Payoffs(), n.Payoffs())
	}
	lo, hi := g.Bounds()
	if _, _, err := Rescale(g, lo, hi); err != nil && lo < hi && hi-lo > 1e-300 {
		t.Fatalf("Rescale to own bounds [%v, %v]: %v", lo, hi, err)
	}
	s, err := Solve(g)
	if err != nil {
		t.Fatalf("Solve(%v): %v", g.Payoffs(), err)
	}
	if err := simplex.CheckDistribution("X", s.X, rows); err != nil {
		t.Fatalf("Solve(%v): %v", g.Payoffs(), err)
	}
	if err := simplex.CheckDistribution("Y", s.Y, cols); err != nil {
		t.Fatalf("Solve(%v): %v", g.Payoffs(), err)
	}
	if r := hi - lo; !math.IsInf(r, 0) && r < 1e150 && r > 1e-150 {
		if gap := g.Gap(s.X, s.Y); gap > 1e-9*r {
			t.Fatalf("Solve(%v): gap %v", g.Payoffs(), gap)
		}
	}
}

// FuzzNewZeroSum checks that NewZeroSum never panics, whatever the shape and
// entries, that it accepts exactly the non-empty rectangular finite
// matrices, and that the analysis functions work on whatever it accepts.
func FuzzNewZeroSum(f *testing.F) {
	for _, m := range [][][]float64{
		{{1, 0}, {0, 1}},
		{{.9, .1}, {.2, .6}},
		{{1, 2}, {3}},
		{{}},
		{},
		{{math.NaN()}},
		{{math.Inf(-1), 0}},
		{{1e308, -1e308}, {-1e308, 1e308}},
		{{5e-324, 0}, {0, 5e-324}},
		{{1e300, 1e300}},
	} {
		f.Add(encodeMatrix(m))
	}
	f.Add([]byte{3, 3, 100, 104, 96, 3, 104, 100, 96, 3, 96, 104, 100})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _ := matrixFromBytes(data)
		g, err := NewZeroSum(m)
		valid := len(m) > 0 && len(m[0]) > 0
		for _, row := range m {
			if len(row) != len(m[0]) {
				valid = false
			}
			for _, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					valid = false
				}
			}
		}
		if (err == nil) != valid {
			t.Fatalf("NewZeroSum(%v): error %v, valid %v", m, err, valid)
		}
		if err != nil {
			if g != nil {
				t.Fatal("non-nil game with an error")
			}
			return
		}
		exerciseZeroSum(t, g)
	})
}

// FuzzNewBimatrix checks that NewBimatrix never panics and that the
// equilibrium tools work on whatever it accepts.
func FuzzNewBimatrix(f *testing.F) {
	for _, ab := range [][2][][]float64{
		{{{1, 2}, {3, 0}}, {{0, 2}, {3, 1}}},
		{{{1, 2}}, {{1, 2}, {3, 4}}},
		{{{1}}, {{math.NaN()}}},
		{{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}},
		{{{1e308, -1e308}}, {{-1e308, 1e308}}},
	} {
		f.Add(append(encodeMatrix(ab[0]), encodeMatrix(ab[1])...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, rest := matrixFromBytes(data)
		b, _ := matrixFromBytes(rest)
		g, err := NewBimatrix(a, b)
		if err != nil {
			return
		}
		rows, cols := g.Dims()
		x, y := simplex.Uniform[float64](rows), simplex.Uniform[float64](cols)
		if _, err := g.NashConv(x, y); err != nil {
			t.Fatal(err)
		}
		eqs, err := SupportEnumeration(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range eqs {
			if simplex.CheckDistribution("X", e.X, rows) != nil || simplex.CheckDistribution("Y", e.Y, cols) != nil {
				t.Fatalf("SupportEnumeration(%v, %v) returned %v", a, b, e)
			}
		}
		exerciseZeroSum(t, g.RowGame())
	})
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}
