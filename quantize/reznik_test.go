package quantize

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Test 9: golden values computed by hand from the paper's definitions.
func TestReznikGolden(t *testing.T) {
	cases := []struct {
		p    []float64
		ell  int
		want []int
	}{
		{[]float64{0.1, 0.25, 0.65}, 4, []int{0, 1, 3}},
		{[]float64{0.14, 0.16, 0.70}, 4, []int{0, 1, 3}},          // Δ = +1
		{[]float64{0.11, 0.28, 0.29, 0.32}, 4, []int{1, 1, 1, 1}}, // Δ = −1
		{[]float64{0.4, 0.35, 0.25}, 7, []int{3, 2, 2}},
		{[]float64{0.5, 0.5, 0}, 1, []int{0, 1, 0}}, // tie: the lowest index is decremented
		{[]float64{1}, 5, []int{5}},
	}
	for _, c := range cases {
		got, err := Reznik(nil, c.p, c.ell)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("R_%d(%v) = %v, want %v", c.ell, c.p, got, c.want)
		}
	}
}

func randProb(rng *rand.Rand, m int, sparse bool) []float64 {
	p := make([]float64, m)
	s := 0.0
	for i := range p {
		if sparse && rng.IntN(3) == 0 {
			continue
		}
		p[i] = rng.ExpFloat64()
		s += p[i]
	}
	if s == 0 {
		p[0], s = 1, 1
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func sqdist(p []float64, r []int, ell int) float64 {
	s := 0.0
	for a := range p {
		t := p[a] - float64(r[a])/float64(ell)
		s += t * t
	}
	return s
}

// Test 9: Σ r = ℓ, r ≥ 0, L2-optimal against brute force over all types
// for m ≤ 5, ℓ ≤ 7, and Prop. 10's Euclidean bound.
func TestReznikOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	trials := 3000
	if testing.Short() {
		trials = 500
	}
	var dst []int
	worstRatio := 0.0
	for trial := range trials {
		m := 1 + rng.IntN(5)
		ell := 1 + rng.IntN(7)
		p := randProb(rng, m, trial%2 == 0)
		var err error
		dst, err = Reznik(dst, p, ell)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, r := range dst {
			if r < 0 {
				t.Fatalf("R_%d(%v) = %v has a negative count", ell, p, dst)
			}
			sum += r
		}
		if sum != ell {
			t.Fatalf("R_%d(%v) = %v sums to %d", ell, p, dst, sum)
		}
		got := sqdist(p, dst, ell)
		best := math.Inf(1)
		EnumerateTypes(ell, m, func(r []int) bool {
			best = min(best, sqdist(p, r, ell))
			return true
		})
		if got > best+1e-12 {
			t.Fatalf("R_%d(%v) = %v at distance² %v, brute force %v", ell, p, dst, got, best)
		}
		h := m / 2
		bound := math.Sqrt(float64(h*(m-h))/float64(m)) / float64(ell)
		if math.Sqrt(got) > bound+1e-12 {
			t.Fatalf("Prop. 10: ‖p − R_ℓp‖ = %v > %v (m = %d, ℓ = %d)", math.Sqrt(got), bound, m, ell)
		}
		if bound > 0 {
			worstRatio = max(worstRatio, math.Sqrt(got)/bound)
		}
	}
	t.Logf("largest ‖p − R_ℓp‖₂ / Prop. 10 bound over %d cases: %.3f", trials, worstRatio)
}

// R_ℓ is the identity on types.
func TestReznikIdentityOnTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		m, ell := 1+rng.IntN(30), 1+rng.IntN(100)
		r := make([]int, m)
		for range ell {
			r[rng.IntN(m)]++
		}
		p := make([]float64, m)
		for a := range p {
			p[a] = float64(r[a]) / float64(ell)
		}
		got, err := Reznik(nil, p, ell)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, r) {
			t.Fatalf("R_%d(%v) = %v, want %v", ell, p, got, r)
		}
	}
}

// Large |Δ| (the sorting path): exchange optimality, max δ_a (r_a ≥ 1) −
// min δ_b ≤ 1, characterises the Euclidean-nearest type of this separable
// convex problem; and the result is the same as the scan path on the same
// input.
func TestReznikLargeDelta(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 200 {
		m := 50 + rng.IntN(900)
		ell := 1 + rng.IntN(200)
		p := randProb(rng, m, trial%2 == 0)
		r, err := Reznik(nil, p, ell)
		if err != nil {
			t.Fatal(err)
		}
		sum, hi, lo := 0, math.Inf(-1), math.Inf(1)
		for a := range p {
			sum += r[a]
			dl := float64(r[a]) - float64(ell)*p[a]
			if r[a] > 0 {
				hi = max(hi, dl)
			}
			lo = min(lo, dl)
		}
		if sum != ell || hi-lo > 1+1e-9 {
			t.Fatalf("m = %d, ℓ = %d: sum %d, max δ − min δ = %v", m, ell, sum, hi-lo)
		}
	}
}

// Test 9, A4: W²_{2,λ}(μ, R_ℓμ) ≤ diam_λ²·|𝕏_n|/(2ℓ) for measures on 𝕏_n.
func TestReznikWBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 4))
	g, _ := NewBoxGrid([]float64{-1, -1}, []float64{1, 1}, []int{2, 2})
	diamS2 := 8.0 * 0.25 // centres ±0.5: diameter² = 2
	worst := 0.0
	for range 300 {
		N := 1 + rng.IntN(3)
		ix := AtomIndex{N: N, G: g.Size()}
		lambda := 5 * rng.Float64()
		ell := 1 + rng.IntN(12)
		p := randProb(rng, ix.Size(), true)
		idx := make([]int32, ix.Size())
		for a := range idx {
			idx[a] = int32(a)
		}
		q, err := QuantizeMeasure(idx, p, ell, ReznikMode, ix)
		if err != nil {
			t.Fatal(err)
		}
		mu := Measure[float64]{}
		for a := range p {
			pos, j := ix.Decode(a)
			mu.Atoms = append(mu.Atoms, Atom[float64]{Pos: pos, X: g.Point(j)})
			mu.W = append(mu.W, p[a])
		}
		atoms, cnt := QMeasureAtoms[float64](q, ix, g)
		rmu := Measure[float64]{Atoms: atoms}
		for _, c := range cnt {
			rmu.W = append(rmu.W, float64(c)/float64(ell))
		}
		cost := Cost[float64]{Lambda: lambda, N: N}
		w2, err := cost.W2Sq(mu, rmu)
		if err != nil {
			t.Fatal(err)
		}
		diam2 := diamS2 + lambda*(1-1/float64(N))*(1-1/float64(N))
		bound := diam2 * float64(ix.Size()) / (2 * float64(ell))
		if w2 > bound+1e-12 {
			t.Fatalf("W² = %v > %v", w2, bound)
		}
		worst = max(worst, w2/bound)
	}
	t.Logf("largest W²(μ, R_ℓμ) / (diam_λ²|𝕏_n|/2ℓ) = %.3f", worst)
}

// Test 9, A4 counterexample: R_ℓ is not W-nearest.
func TestReznikNotWNearest(t *testing.T) {
	p := []float64{0.5, 0.5, 0}
	r, err := Reznik(nil, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	xs := []float64{0, 10, 5}
	mu := Measure[float64]{W: p}
	for _, x := range xs {
		mu.Atoms = append(mu.Atoms, Atom[float64]{Pos: 1, X: []float64{x}})
	}
	c := Cost[float64]{Lambda: 1, N: 1}
	w := make([]float64, 3)
	for a := range 3 {
		w[a], err = c.W2Sq(mu, Measure[float64]{Atoms: mu.Atoms[a : a+1], W: []float64{1}})
		if err != nil {
			t.Fatal(err)
		}
	}
	e := []float64{sqdist(p, []int{1, 0, 0}, 1), sqdist(p, []int{0, 1, 0}, 1), sqdist(p, []int{0, 0, 1}, 1)}
	if !slices.Equal(w, []float64{50, 50, 25}) || !slices.Equal(e, []float64{0.5, 0.5, 1.5}) {
		t.Fatalf("W² = %v (want 50 50 25), Euclidean² = %v (want 0.5 0.5 1.5)", w, e)
	}
	if r[2] != 0 {
		t.Fatalf("R_1 = %v picked δ_5", r)
	}
	t.Logf("R_1 = %v with W² = 50, but δ_5 has W² = 25", r)
}

func TestPositionPreserving(t *testing.T) {
	// N-atom empirical measures with N | ℓ are fixed points.
	rng := rand.New(rand.NewPCG(5, 5))
	for range 200 {
		N := 1 + rng.IntN(6)
		ell := N * (1 + rng.IntN(5))
		m := N + rng.IntN(3*N)
		pos := make([]int, m)
		p := make([]float64, m)
		for a := range m {
			pos[a] = 1 + a%N
			if a < N {
				p[a] = 1 / float64(N)
			}
		}
		rng.Shuffle(m, func(i, j int) { pos[i], pos[j], p[i], p[j] = pos[j], pos[i], p[j], p[i] })
		r, err := PositionPreserving(nil, p, pos, N, ell)
		if err != nil {
			t.Fatal(err)
		}
		for a := range m {
			if want := int(math.Round(p[a] * float64(ell))); r[a] != want {
				t.Fatalf("not the identity: p = %v, r = %v", p, r)
			}
		}
	}
	// Random measures with mass 1/N per position: per-position sums ℓ/N
	// and per-position Euclidean optimality.
	for range 300 {
		N := 1 + rng.IntN(3)
		ell := N * (1 + rng.IntN(3))
		m := N + rng.IntN(2*N)
		pos := make([]int, m)
		for a := range pos {
			pos[a] = 1 + a%N
		}
		p := make([]float64, m)
		for i := 1; i <= N; i++ {
			var sub []int
			for a := range m {
				if pos[a] == i {
					sub = append(sub, a)
				}
			}
			q := randProb(rng, len(sub), false)
			for k, a := range sub {
				p[a] = q[k] / float64(N)
			}
		}
		r, err := PositionPreserving(nil, p, pos, N, ell)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= N; i++ {
			var sub []int
			var q []float64
			s := 0
			for a := range m {
				if pos[a] == i {
					sub = append(sub, a)
					q = append(q, p[a]*float64(N))
					s += r[a]
				}
			}
			if s != ell/N {
				t.Fatalf("position %d has %d units, want %d", i, s, ell/N)
			}
			ri := make([]int, len(sub))
			for k, a := range sub {
				ri[k] = r[a]
			}
			got := sqdist(q, ri, ell/N)
			best := math.Inf(1)
			EnumerateTypes(ell/N, len(sub), func(c []int) bool { best = min(best, sqdist(q, c, ell/N)); return true })
			if got > best+1e-12 {
				t.Fatalf("position %d not Euclidean-nearest: %v vs %v", i, got, best)
			}
		}
	}
}

func TestQuantizeMeasure(t *testing.T) {
	ix := AtomIndex{N: 2, G: 3}
	// Unsorted with a repeated atom: 0.25 + 0.25 on atom 4 (pos 2, j 1).
	q, err := QuantizeMeasure([]int32{4, 0, 4}, []float64{0.25, 0.5, 0.25}, 4, PositionPreservingMode, ix)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(ix); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Idx, []int32{0, 4}) || !slices.Equal(q.Cnt, []int32{2, 2}) || q.Ell != 4 {
		t.Fatalf("got %+v", q)
	}
	// Reznik moves mass across positions (all of position 1's mass goes
	// to position 2); position-preserving does not.
	p := []float64{0.25, 0.25, 0.25, 0.25}
	idx := []int32{0, 1, 3, 4} // positions 1, 1, 2, 2
	qr, err := QuantizeMeasure(idx, p, 2, ReznikMode, ix)
	if err != nil {
		t.Fatal(err)
	}
	qp, err := QuantizeMeasure(idx, p, 2, PositionPreservingMode, ix)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(qr.Idx, []int32{3, 4}) || !slices.Equal(qr.Cnt, []int32{1, 1}) {
		t.Errorf("Reznik: %+v, want atoms 3 and 4", qr)
	}
	if !slices.Equal(qp.Idx, []int32{1, 4}) || !slices.Equal(qp.Cnt, []int32{1, 1}) {
		t.Errorf("PositionPreserving: %+v, want atoms 1 and 4", qp)
	}
	if ReznikMode.String() != "Reznik" || MeasureMode(0).String() != "PositionPreserving" || MeasureMode(9).String() != "MeasureMode(9)" {
		t.Error("MeasureMode.String")
	}
}

func TestMeasureQuantizerErrors(t *testing.T) {
	ix := AtomIndex{N: 2, G: 3}
	nan := math.NaN()
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"ℓ=0", second(Reznik(nil, []float64{1}, 0)), "ℓ = 0"},
		{"empty", second(Reznik(nil, nil, 3)), "empty"},
		{"nan", second(Reznik(nil, []float64{nan, 1}, 3)), "p[0] = NaN"},
		{"neg", second(Reznik(nil, []float64{-0.5, 1.5}, 3)), "p[0] = -0.5"},
		{"sum", second(Reznik(nil, []float64{0.5, 0.4}, 3)), "sums to 0.9"},
		{"n∤ℓ", second(PositionPreserving(nil, []float64{0.5, 0.5}, []int{1, 2}, 2, 3)), "n | ℓ"},
		{"n=0", second(PositionPreserving(nil, []float64{1}, []int{1}, 0, 3)), "n = 0"},
		{"pos len", second(PositionPreserving(nil, []float64{0.5, 0.5}, []int{1}, 2, 2)), "len(pos) = 1"},
		{"pos range", second(PositionPreserving(nil, []float64{0.5, 0.5}, []int{1, 3}, 2, 2)), "pos[1] = 3"},
		{"mass", second(PositionPreserving(nil, []float64{0.7, 0.3}, []int{1, 2}, 2, 2)), "position 1 has mass 0.7"},
		{"qm len", qerr(QuantizeMeasure([]int32{0}, []float64{0.5, 0.5}, 2, ReznikMode, ix)), "len(idx) = 1"},
		{"qm idx", qerr(QuantizeMeasure([]int32{0, 6}, []float64{0.5, 0.5}, 2, ReznikMode, ix)), "idx[1] = 6"},
		{"qm ix", qerr(QuantizeMeasure([]int32{0}, []float64{1}, 2, ReznikMode, AtomIndex{})), "N = 0"},
		{"qm mode", qerr(QuantizeMeasure([]int32{0}, []float64{1}, 2, MeasureMode(7), ix)), "unknown measure mode"},
		{"qm pp", qerr(QuantizeMeasure([]int32{0}, []float64{1}, 2, PositionPreservingMode, ix)), "position 1 has mass 1"},
		{"qm ℓ", qerr(QuantizeMeasure([]int32{0}, []float64{1}, -1, ReznikMode, ix)), "ℓ = -1"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", c.name, c.err, c.want)
		}
	}
	bad := []QMeasure{
		{Idx: []int32{0}, Cnt: []int32{1}, Ell: 2},
		{Idx: []int32{1, 1}, Cnt: []int32{1, 1}, Ell: 2},
		{Idx: []int32{0, 9}, Cnt: []int32{1, 1}, Ell: 2},
		{Idx: []int32{0}, Cnt: []int32{0}, Ell: 0},
		{Idx: []int32{0, 1}, Cnt: []int32{2}, Ell: 2},
	}
	for _, q := range bad {
		if q.Validate(ix) == nil {
			t.Errorf("Validate(%+v) = nil", q)
		}
	}
}

func second[T any](_ T, err error) error { return err }
func qerr(_ QMeasure, err error) error   { return err }

// Test 10: |𝒫^(ℓ)| by enumeration equals eq. (22); the keys of distinct
// types differ.
func TestCountTypes(t *testing.T) {
	for atoms := 1; atoms <= 5; atoms++ {
		for ell := 0; ell <= 5; ell++ {
			n := 0
			var prev []int
			keys := map[string]bool{}
			EnumerateTypes(ell, atoms, func(r []int) bool {
				s := 0
				for _, v := range r {
					s += v
				}
				if s != ell {
					t.Fatalf("type %v does not sum to %d", r, ell)
				}
				if prev != nil && slices.Compare(prev, r) >= 0 {
					t.Fatalf("%v after %v: not increasing", r, prev)
				}
				prev = append(prev[:0], r...)
				if ell > 0 {
					q := QMeasure{Ell: int32(ell)}
					for a, c := range r {
						if c > 0 {
							q.Idx = append(q.Idx, int32(a))
							q.Cnt = append(q.Cnt, int32(c))
						}
					}
					keys[string(q.AppendKey(nil))] = true
				}
				n++
				return true
			})
			if want := CountTypes(ell, atoms); want.Cmp(big.NewInt(int64(n))) != 0 {
				t.Errorf("atoms %d ℓ %d: enumerated %d, CountTypes %v", atoms, ell, n, want)
			}
			if ell > 0 && len(keys) != n {
				t.Errorf("atoms %d ℓ %d: %d distinct keys for %d types", atoms, ell, len(keys), n)
			}
		}
	}
	// The experiment's full measure grid (the paper's experiment): |𝕏_n| = 900, ℓ = 20 gives
	// about 10^40.8 types.
	c := CountTypes(20, 900)
	if digits := len(c.String()); digits != 41 {
		t.Errorf("CountTypes(20, 900) = %v has %d digits, want 41", c, digits)
	}
	if CountTypes(3, 0).Sign() != 0 || CountTypes(-1, 3).Sign() != 0 {
		t.Error("CountTypes of invalid arguments is not 0")
	}
	// Early stop.
	n := 0
	EnumerateTypes(5, 5, func([]int) bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("yield false did not stop the enumeration (%d calls)", n)
	}
	EnumerateTypes(1, 0, func([]int) bool { t.Error("yielded for atoms = 0"); return true })
}

func TestAppendKeyDistinguishesEll(t *testing.T) {
	a := QMeasure{Idx: []int32{3}, Cnt: []int32{2}, Ell: 2}
	b := QMeasure{Idx: []int32{3}, Cnt: []int32{2}, Ell: 3}
	c := QMeasure{Idx: []int32{1, 2}, Cnt: []int32{1, 1}, Ell: 2}
	d := QMeasure{Idx: []int32{1, 3}, Cnt: []int32{1, 1}, Ell: 2}
	keys := map[string]bool{}
	for _, q := range []QMeasure{a, b, c, d} {
		keys[string(q.AppendKey([]byte("prefix")))] = true
	}
	if len(keys) != 4 {
		t.Fatal("keys collide")
	}
}
