package quantize

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/tensor"
)

// This file is the position-weighted transport cost W²_{2,λ} of the paper
// (eq. (6) and (14)), with exact solvers for finite supports.

// Cost is the squared position-weighted Wasserstein distance W²_{2,λ} on
// 𝕏 = PE_N × S (eq. (6), (14)) with the positional encodings p_i = i/N:
// the ground cost of atoms X = (p, x) and Y = (q, y) is
//
//	c_λ(X, Y)² = ‖x − y‖₂² + λ·|p − q|²,
//
// and W²_{2,λ}(μ, ν) = min over couplings π of Σ π_ab·c_λ(X_a, Y_b)². The
// value is already squared: it is the Ŵ of the paper, never squared again.
// Lambda must be finite and ≥ 0 and N ≥ 1 (checked by the methods
// that return errors). A Cost is a value type, safe for concurrent use.
type Cost[F tensor.Float] struct {
	Lambda F
	N      int
}

// MaxTransportCells bounds the transportation problems solved by
// [Cost.W2Sq] and [PositionLockedW2Sq]: the product of the two support
// sizes (a dense cost matrix of 8 MiB).
const MaxTransportCells = 1 << 20

// maxAssignment is the largest ℓ that [Cost.W2SqCounts] solves as an ℓ×ℓ
// assignment (O(ℓ³)); larger ℓ go to the
// transportation simplex on the supports, which is exact too.
const maxAssignment = 256

func (c Cost[F]) check() error {
	if l := float64(c.Lambda); !isFinite(l) || l < 0 {
		return fmt.Errorf("%w: cost weight λ = %v must be finite and non-negative", icrl.ErrInvalid, c.Lambda)
	}
	if c.N < 1 {
		return fmt.Errorf("%w: cost has N = %d positions, want at least 1", icrl.ErrInvalid, c.N)
	}
	return nil
}

// Ground returns c_λ(a, b)² = ‖a.X − b.X‖₂² + λ·((a.Pos − b.Pos)/N)²,
// accumulated in float64. It costs O(d) and panics if len(a.X) ≠ len(b.X)
// (a programmer error).
func (c Cost[F]) Ground(a, b Atom[F]) F { return F(c.ground(a, b)) }

func (c Cost[F]) ground(a, b Atom[F]) float64 {
	if len(a.X) != len(b.X) {
		panic(fmt.Sprintf("quantize: Cost.Ground of atoms of lengths %d and %d", len(a.X), len(b.X)))
	}
	s := 0.0
	for k, v := range a.X {
		t := float64(v) - float64(b.X[k])
		s += t * t
	}
	dp := float64(a.Pos-b.Pos) / float64(c.N)
	return s + float64(c.Lambda)*dp*dp
}

// checkAtoms validates atom positions (1..n when n > 0, ≥ 1 otherwise),
// state lengths (all equal to *d, or setting it when *d < 0) and
// finiteness.
func checkAtoms[F tensor.Float](name string, atoms []Atom[F], n int, d *int) error {
	for a, at := range atoms {
		if at.Pos < 1 || (n > 0 && at.Pos > n) {
			if n > 0 {
				return fmt.Errorf("%w: %s atom %d has position %d outside [1, %d]", icrl.ErrInvalid, name, a, at.Pos, n)
			}
			return fmt.Errorf("%w: %s atom %d has position %d < 1", icrl.ErrInvalid, name, a, at.Pos)
		}
		if *d < 0 {
			*d = len(at.X)
		}
		if len(at.X) != *d {
			return fmt.Errorf("%w: %s atom %d has state length %d, want %d", icrl.ErrInvalid, name, a, len(at.X), *d)
		}
		if k := num.FirstNonFinite(at.X); k >= 0 {
			return fmt.Errorf("%w: %s atom %d state[%d] = %v is not finite", icrl.ErrNotFinite, name, a, k, at.X[k])
		}
	}
	return nil
}

// checkMeasure validates a probability measure on 𝕏 and returns the
// indices and float64 weights (rescaled by their sum) of its atoms of
// positive mass.
func checkMeasure[F tensor.Float](name string, m Measure[F], n int, d *int) ([]int, []float64, error) {
	if len(m.Atoms) == 0 {
		return nil, nil, fmt.Errorf("%w: measure %s has no atoms", icrl.ErrInvalid, name)
	}
	if len(m.Atoms) != len(m.W) {
		return nil, nil, fmt.Errorf("%w: measure %s has %d atoms and %d weights", icrl.ErrInvalid, name, len(m.Atoms), len(m.W))
	}
	if err := checkAtoms(name, m.Atoms, n, d); err != nil {
		return nil, nil, err
	}
	s := 0.0
	for a, w := range m.W {
		v := float64(w)
		if !isFinite(v) {
			return nil, nil, fmt.Errorf("%w: measure %s weight W[%d] = %v is not finite", icrl.ErrNotFinite, name, a, w)
		}
		if v < 0 {
			return nil, nil, fmt.Errorf("%w: measure %s weight W[%d] = %v is negative", icrl.ErrInvalid, name, a, w)
		}
		s += v
	}
	if math.Abs(s-1) > massTol[F](len(m.W)) {
		return nil, nil, fmt.Errorf("%w: measure %s weights sum to %v, not 1", icrl.ErrInvalid, name, s)
	}
	var idx []int
	var w []float64
	for a, v := range m.W {
		if v > 0 {
			idx = append(idx, a)
			w = append(w, float64(v)/s)
		}
	}
	return idx, w, nil
}

// W2Sq returns the exact W²_{2,λ}(μ, ν) of two finite probability measures
// by solving the transportation linear programme (eq. (6)/(14), §2.5)
// with the transportation (network) simplex method in float64: a
// spanning-tree basis from the matrix-minimum rule, Dantzig pricing
// with O(m·n) work per pivot, and Bland's rule after a run of degenerate
// pivots so that it cannot cycle. Atoms of weight zero are dropped; the
// weights are rescaled to sum to one. The result is optimal up to a
// reduced-cost tolerance of 1e-12·max c_λ² (the error in the value is at
// most that much); the costs are scaled by their maximum, so no
// intermediate overflows. The number of pivots is typically a small multiple of
// m + n, so an 8-atom pair takes microseconds.
//
// It returns an error naming the bad value if c is invalid (λ < 0 or not
// finite, N < 1), a measure is empty, has mismatched lengths, a weight
// that is negative or not finite or a weight sum off 1 (tolerance 1e-9, or
// 1e-5 for float32, times max(1, m/64)), an atom whose position is outside
// [1, N], states of different lengths or a non-finite coordinate; or if
// the product of the support sizes exceeds [MaxTransportCells], or if a
// ground cost overflows float64 or the value overflows F.
func (c Cost[F]) W2Sq(mu, nu Measure[F]) (F, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	d := -1
	ia, wa, err := checkMeasure("mu", mu, c.N, &d)
	if err != nil {
		return 0, err
	}
	ib, wb, err := checkMeasure("nu", nu, c.N, &d)
	if err != nil {
		return 0, err
	}
	m, n := len(ia), len(ib)
	if m*n > MaxTransportCells {
		return 0, fmt.Errorf("%w: transport between supports of %d and %d atoms exceeds %d cells", icrl.ErrInvalid, m, n, MaxTransportCells)
	}
	cost := make([]float64, m*n)
	for i, a := range ia {
		for j, b := range ib {
			cost[i*n+j] = c.ground(mu.Atoms[a], nu.Atoms[b])
			if math.IsInf(cost[i*n+j], 0) {
				return 0, fmt.Errorf("%w: ground cost between mu atom %d and nu atom %d overflows float64", icrl.ErrInvalid, a, b)
			}
		}
	}
	v, err := transportLP(cost, wa, wb)
	if err != nil {
		return 0, err
	}
	return toF[F](v)
}

// toF converts a transport value to F, with an error if it overflows F
// (float32 only: the float64 values are finite by construction).
func toF[F tensor.Float](v float64) (F, error) {
	if f := F(v); !math.IsInf(float64(f), 0) {
		return f, nil
	}
	return 0, fmt.Errorf("%w: transport cost %v overflows %T", icrl.ErrInvalid, v, F(0))
}

// W2SqCounts returns the exact W²_{2,λ} between the rational measures
// Σ_a (cntA[a]/ℓ)·δ_{atomsA[a]} and Σ_b (cntB[b]/ℓ)·δ_{atomsB[b]} with the
// common denominator ℓ = Σ cntA = Σ cntB.
// Each atom is expanded into cnt unit copies and the ℓ×ℓ assignment
// problem is solved by the Hungarian method (shortest augmenting paths
// with potentials), O(ℓ³) time and O(ℓ²) memory; this is exact because a
// transportation polytope with integral margins has integral vertices
// (Birkhoff). When the supports are small for their ℓ, namely
// |A|·|B|·(|A|+|B|) ≤ ℓ³/4 (a few atoms with large counts), or when
// ℓ > 256, it solves the same programme on the supports with the
// transportation simplex of [Cost.W2Sq] instead, which is exact too and
// then faster. Atoms with
// a zero count are allowed.
//
// It returns an error naming the bad value if c is invalid, the lengths
// differ, a count is negative, the count sums differ or are < 1 or exceed
// MaxInt32, an atom is invalid (position outside [1, N], mismatched
// state lengths, non-finite coordinates), or a ground cost or the value
// overflows.
func (c Cost[F]) W2SqCounts(atomsA []Atom[F], cntA []int, atomsB []Atom[F], cntB []int) (F, error) {
	return c.w2Counts(atomsA, cntA, atomsB, cntB, countsAuto)
}

// Solvers of [Cost.W2SqCounts].
const (
	countsAuto = iota
	countsAssignment
	countsTransport
)

func (c Cost[F]) w2Counts(atomsA []Atom[F], cntA []int, atomsB []Atom[F], cntB []int, method int) (F, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	if len(atomsA) != len(cntA) {
		return 0, fmt.Errorf("%w: %d atoms A with %d counts", icrl.ErrInvalid, len(atomsA), len(cntA))
	}
	if len(atomsB) != len(cntB) {
		return 0, fmt.Errorf("%w: %d atoms B with %d counts", icrl.ErrInvalid, len(atomsB), len(cntB))
	}
	sumCounts := func(name string, cnt []int) (int, error) {
		s := 0
		for a, r := range cnt {
			if r < 0 || r > maxEll {
				return 0, fmt.Errorf("%w: count %s[%d] = %d is outside [0, %d]", icrl.ErrInvalid, name, a, r, maxEll)
			}
			s += r
			if s > maxEll {
				return 0, fmt.Errorf("%w: counts %s sum to more than %d", icrl.ErrInvalid, name, maxEll)
			}
		}
		return s, nil
	}
	la, err := sumCounts("cntA", cntA)
	if err != nil {
		return 0, err
	}
	lb, err := sumCounts("cntB", cntB)
	if err != nil {
		return 0, err
	}
	if la != lb {
		return 0, fmt.Errorf("%w: counts sum to ℓ = %d for A and %d for B", icrl.ErrInvalid, la, lb)
	}
	if la < 1 {
		return 0, fmt.Errorf("%w: counts sum to ℓ = %d, want at least 1", icrl.ErrInvalid, la)
	}
	d := -1
	if err := checkAtoms("A", atomsA, c.N, &d); err != nil {
		return 0, err
	}
	if err := checkAtoms("B", atomsB, c.N, &d); err != nil {
		return 0, err
	}
	// Supports: atoms with positive counts.
	var sa, sb []int
	for a, r := range cntA {
		if r > 0 {
			sa = append(sa, a)
		}
	}
	for b, r := range cntB {
		if r > 0 {
			sb = append(sb, b)
		}
	}
	m, n := len(sa), len(sb)
	if m*n > MaxTransportCells {
		return 0, fmt.Errorf("%w: transport between supports of %d and %d atoms exceeds %d cells", icrl.ErrInvalid, m, n, MaxTransportCells)
	}
	cost := make([]float64, m*n)
	maxc := 0.0
	for i, a := range sa {
		for j, b := range sb {
			v := c.ground(atomsA[a], atomsB[b])
			if math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: ground cost between atom A %d and atom B %d overflows float64", icrl.ErrInvalid, a, b)
			}
			cost[i*n+j] = v
			maxc = max(maxc, v)
		}
	}
	ell := la
	if method == countsAuto {
		method = countsAssignment
		if ell > maxAssignment || m*n*(m+n) <= ell*ell*ell/4 {
			method = countsTransport
		}
	}
	if method == countsTransport {
		wa, wb := make([]float64, m), make([]float64, n)
		for i, a := range sa {
			wa[i] = float64(cntA[a]) / float64(ell)
		}
		for j, b := range sb {
			wb[j] = float64(cntB[b]) / float64(ell)
		}
		v, err := transportLP(cost, wa, wb)
		if err != nil {
			return 0, err
		}
		return toF[F](v)
	}
	ua, ub := make([]int32, 0, ell), make([]int32, 0, ell)
	for i, a := range sa {
		for range cntA[a] {
			ua = append(ua, int32(i))
		}
	}
	for j, b := range sb {
		for range cntB[b] {
			ub = append(ub, int32(j))
		}
	}
	if maxc == 0 {
		return 0, nil
	}
	for k := range cost {
		cost[k] /= maxc // keep the potentials far from overflow
	}
	w := make([]float64, ell*ell)
	for r, i := range ua {
		row, src := w[r*ell:(r+1)*ell], cost[int(i)*n:(int(i)+1)*n]
		for s, j := range ub {
			row[s] = src[j]
		}
	}
	v := hungarian(ell, w)
	return toF[F](v / float64(ell) * maxc)
}

// hungarian returns the minimum of Σ_r w[r·n + σ(r)] over permutations σ
// of {0, …, n−1}: the shortest-augmenting-path Hungarian method with
// potentials (Jonker–Volgenant form), O(n³).
func hungarian(n int, w []float64) float64 {
	inf := math.Inf(1)
	u := make([]float64, n+1)
	v := make([]float64, n+1)
	p := make([]int, n+1)   // p[col] = row matched to col (1-based; 0 none)
	way := make([]int, n+1) // previous column on the augmenting path
	minv := make([]float64, n+1)
	used := make([]bool, n+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = inf
			used[j] = false
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], inf, 0
			row, ui := w[(i0-1)*n:i0*n], u[i0]
			for j := 1; j <= n; j++ {
				if used[j] {
					continue
				}
				cur := row[j-1] - ui - v[j]
				if cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	total := 0.0
	for j := 1; j <= n; j++ {
		total += w[(p[j]-1)*n+j-1]
	}
	return total
}

// PositionLockedW2Sq returns (1/N)·Σ_i W_2²(μ|i, ν|i), where μ|i is the
// conditional law of the state given position i, and ok = true, when both
// measures are valid and every position 1, …, N (N the largest position
// present) carries mass 1/N in both, within the tolerance of [Cost.W2Sq].
// It equals W²_{2,λ}(μ, ν) for every λ ≥ [LambdaMin](diam, N) with diam
// the diameter of the states involved: a unit of mass moved across
// positions pays at least λ/N² and saves at most diam² (correction A1 of the package doc).
// For two N-atom empirical measures it is [SeqMSE]. Each conditional pair
// is solved exactly (one atom each: O(d); otherwise the transportation
// simplex of [Cost.W2Sq]). It returns ok = false, and 0, when the masses
// are not position-locked or the input is invalid (mismatched lengths,
// non-finite values, positions < 1, a conditional problem over
// [MaxTransportCells]).
func PositionLockedW2Sq[F tensor.Float](mu, nu Measure[F]) (F, bool) {
	d := -1
	if !measureOK(mu, &d) || !measureOK(nu, &d) {
		return 0, false
	}
	n := 0
	for _, at := range mu.Atoms {
		n = max(n, at.Pos)
	}
	for _, at := range nu.Atoms {
		n = max(n, at.Pos)
	}
	tol := massTol[F](max(len(mu.W), len(nu.W)))
	// Fast path, no allocation: one atom of mass 1/n per position (N-atom
	// empirical measures).
	if n < 64 {
		var bufA, bufB [64]int
		pa, pb := bufA[:n+1], bufB[:n+1]
		ra, rb := onePerPosition(mu, pa, tol), onePerPosition(nu, pb, tol)
		if ra < 0 || rb < 0 {
			return 0, false
		}
		if ra > 0 && rb > 0 {
			cst := Cost[F]{N: n}
			total := 0.0
			for i := 1; i <= n; i++ {
				total += cst.ground(mu.Atoms[pa[i]-1], nu.Atoms[pb[i]-1])
			}
			f := F(total / float64(n))
			if math.IsInf(float64(f), 0) {
				return 0, false
			}
			return f, true
		}
	}
	// Group the positive-weight atoms by position.
	type part struct {
		atoms []Atom[F]
		w     []float64
		mass  float64
	}
	group := func(m Measure[F]) []part {
		ps := make([]part, n+1)
		for a, at := range m.Atoms {
			if m.W[a] > 0 {
				p := &ps[at.Pos]
				p.atoms = append(p.atoms, at)
				p.w = append(p.w, float64(m.W[a]))
			}
		}
		return ps
	}
	pa, pb := group(mu), group(nu)
	for i := 1; i <= n; i++ {
		for _, p := range []*part{&pa[i], &pb[i]} {
			for _, w := range p.w {
				p.mass += w
			}
			if math.Abs(p.mass-1/float64(n)) > tol {
				return 0, false
			}
		}
	}
	cst := Cost[F]{N: n}
	total := 0.0
	for i := 1; i <= n; i++ {
		A, B := pa[i], pb[i]
		if len(A.atoms) == 1 && len(B.atoms) == 1 {
			total += cst.ground(A.atoms[0], B.atoms[0])
			if math.IsInf(total, 0) {
				return 0, false
			}
			continue
		}
		if len(A.atoms)*len(B.atoms) > MaxTransportCells {
			return 0, false
		}
		cost := make([]float64, len(A.atoms)*len(B.atoms))
		for r, x := range A.atoms {
			for s, y := range B.atoms {
				cost[r*len(B.atoms)+s] = cst.ground(x, y)
				if math.IsInf(cost[r*len(B.atoms)+s], 0) {
					return 0, false
				}
			}
		}
		for r := range A.w {
			A.w[r] /= A.mass
		}
		for s := range B.w {
			B.w[s] /= B.mass
		}
		v, err := transportLP(cost, A.w, B.w)
		if err != nil {
			return 0, false
		}
		total += v
	}
	f := F(total / float64(n))
	if math.IsInf(float64(f), 0) {
		return 0, false
	}
	return f, true
}

// measureOK reports whether m is a valid probability measure on 𝕏 with
// states of length *d (set from the first atom when *d < 0), as
// checkMeasure checks it, without allocating.
func measureOK[F tensor.Float](m Measure[F], d *int) bool {
	if len(m.Atoms) == 0 || len(m.Atoms) != len(m.W) {
		return false
	}
	s := 0.0
	for a, at := range m.Atoms {
		if *d < 0 {
			*d = len(at.X)
		}
		w := float64(m.W[a])
		if at.Pos < 1 || len(at.X) != *d || num.FirstNonFinite(at.X) >= 0 || !isFinite(w) || w < 0 {
			return false
		}
		s += w
	}
	return math.Abs(s-1) <= massTol[F](len(m.W))
}

// onePerPosition records in p[i] (len n+1, zero) 1 + the index of the atom
// of positive mass at position i and returns 1 if every position 1..n has
// exactly one, of mass 1/n within tol; 0 if some position has several
// (the general path decides); −1 if a position has none or a single atom
// of the wrong mass (not position-locked).
func onePerPosition[F tensor.Float](m Measure[F], p []int, tol float64) int {
	n := len(p) - 1
	for a, at := range m.Atoms {
		if m.W[a] > 0 {
			if p[at.Pos] != 0 {
				return 0
			}
			p[at.Pos] = a + 1
		}
	}
	for i := 1; i <= n; i++ {
		if p[i] == 0 || math.Abs(float64(m.W[p[i]-1])-1/float64(n)) > tol {
			return -1
		}
	}
	return 1
}

// LambdaMin returns N²·diam², the threshold above which W²_{2,λ} between
// measures with mass 1/N on every position keeps positions (so that for
// N-atom empirical measures it equals [SeqMSE] and the lifted problem is
// equivalent to (OP)). This is the correction A1 of the package doc: the paper's
// Assumption 7, λ > (N/2)·diam², is not sufficient (counterexample: N = 2,
// λ = 2·diam² gives W² = diam²/2 while SeqMSE = diam²).
func LambdaMin[F tensor.Float](diam F, n int) F { return F(n) * F(n) * diam * diam }

// SeqMSE returns (1/N)·Σ_i ‖x_i − y_i‖₂² over the N tokens (accumulated in
// float64), the per-token loss of (OP); 0 for N = 0. It costs O(N·d) and
// panics if len(x) ≠ len(y) or len(x[i]) ≠ len(y[i]) (a programmer error).
func SeqMSE[F tensor.Float](x, y [][]F) F {
	if len(x) != len(y) {
		panic(fmt.Sprintf("quantize: SeqMSE of sequences of lengths %d and %d", len(x), len(y)))
	}
	if len(x) == 0 {
		return 0
	}
	s := 0.0
	for i, xi := range x {
		if len(xi) != len(y[i]) {
			panic(fmt.Sprintf("quantize: SeqMSE token %d has lengths %d and %d", i, len(xi), len(y[i])))
		}
		for k, v := range xi {
			t := float64(v) - float64(y[i][k])
			s += t * t
		}
	}
	return F(s / float64(len(x)))
}
