package quantize

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// This file is the measure quantizer R_ℓ of the paper: rounding a
// probability vector on the finite set 𝕏_n to a "type" with denominator ℓ.

// Reznik stores in dst (reused if it has the capacity, else allocated) and
// returns the counts r of R_ℓ(p) = r/ℓ: the type with denominator ℓ nearest
// to p in Euclidean distance (Reznik 2011, Algorithm 1):
//
//  1. r_a = ⌊ℓ·p_a + ½⌋;
//  2. Δ = Σ_a r_a − ℓ; if Δ = 0 stop;
//  3. with δ_a = r_a − ℓ·p_a, if Δ > 0 decrement r_a at the Δ indices of
//     largest δ_a; if Δ < 0 increment r_a at the |Δ| indices of smallest
//     δ_a; ties go to the lowest index (it is changed first).
//
// The counts are ≥ 0 and sum to ℓ, R_ℓ is the identity on types (p_a =
// r_a/ℓ), and ‖p − r/ℓ‖₂ ≤ (1/ℓ)·sqrt(⌊m/2⌋(m − ⌊m/2⌋)/m) for m = len(p)
// (the bound of Prop. 10, which is Euclidean, correction A4 of the package doc). R_ℓ is not the
// W_{2,λ}-nearest type, and it moves mass across positions; see
// [PositionPreserving] for the default of correction A4 in the package doc.
//
// It costs O(m log |Δ|), |Δ| ≤ m/2, and does not allocate when dst has the
// capacity and |Δ| ≤ 64. It returns an error naming the bad
// value if ℓ < 1 or ℓ > MaxInt32, or if p is not a probability vector
// (empty, an entry negative or not finite, or a sum off 1 by more than
// 1e-9·max(1, m/64)).
func Reznik(dst []int, p []float64, ell int) ([]int, error) {
	if err := checkEll(ell); err != nil {
		return nil, err
	}
	if err := checkProb("p", p); err != nil {
		return nil, err
	}
	dst = useInts(dst, len(p))
	reznikRound(dst, p, nil, float64(ell), ell)
	return dst, nil
}

// PositionPreserving stores in dst and returns the counts of the
// position-preserving measure quantizer of correction A4 in the package doc: atom a has position
// pos[a] ∈ {1, …, n}, every position carries mass 1/n, and the atoms of
// each position are rounded separately by [Reznik]'s rule with ℓ/n units
// (the values ℓ·p_a are rounded to integers summing to ℓ/n per position).
// So no mass moves across positions, which would cost at least λ/N² per
// unit under W_{2,λ}, and R_ℓ is the identity on every N-atom empirical
// measure when N | ℓ (the paper's experiment, ℓ = 20 and N = 4).
//
// It costs O(m + n) plus the [Reznik] cost per position and allocates
// O(m + n). It returns an error naming the bad value if ℓ is invalid, n < 1,
// n does not divide ℓ, len(pos) ≠ len(p), a position is outside [1, n], p
// is not a probability vector, or some position's mass differs from 1/n
// by more than the tolerance of [Reznik].
func PositionPreserving(dst []int, p []float64, pos []int, n, ell int) ([]int, error) {
	if err := checkEll(ell); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("%w: number of positions n = %d must be at least 1", icrl.ErrInvalid, n)
	}
	if ell%n != 0 {
		return nil, fmt.Errorf("%w: position-preserving quantisation needs n | ℓ, have n = %d and ℓ = %d", icrl.ErrInvalid, n, ell)
	}
	if len(pos) != len(p) {
		return nil, fmt.Errorf("%w: len(pos) = %d differs from len(p) = %d", icrl.ErrInvalid, len(pos), len(p))
	}
	if err := checkProb("p", p); err != nil {
		return nil, err
	}
	off := make([]int, n+2)
	mass := make([]float64, n+1)
	for a, i := range pos {
		if i < 1 || i > n {
			return nil, fmt.Errorf("%w: pos[%d] = %d is outside [1, %d]", icrl.ErrInvalid, a, i, n)
		}
		off[i+1]++
		mass[i] += p[a]
	}
	for i := 1; i <= n; i++ {
		if math.Abs(mass[i]-1/float64(n)) > massTol[float64](len(p)) {
			return nil, fmt.Errorf("%w: position %d has mass %v, want 1/n = %v", icrl.ErrInvalid, i, mass[i], 1/float64(n))
		}
	}
	for i := 1; i <= n; i++ {
		off[i+1] += off[i]
	}
	order := make([]int, len(p))
	next := off[1 : n+1 : n+1]
	for a, i := range pos {
		order[next[i-1]] = a
		next[i-1]++
	}
	// next[i-1] is now the end of position i's block, off[i] its start.
	dst = useInts(dst, len(p))
	start := 0
	for i := 1; i <= n; i++ {
		reznikRound(dst, p, order[start:next[i-1]], float64(ell), ell/n)
		start = next[i-1]
	}
	return dst, nil
}

// useInts returns dst[:n] if it has the capacity, else a new slice.
func useInts(dst []int, n int) []int {
	if cap(dst) >= n {
		return dst[:n]
	}
	return make([]int, n)
}

// reznikRound sets k[a], for the atoms a listed in idx (all of p when idx
// is nil; listed in increasing order), to Reznik's rounding of y_a =
// scale·p_a with Σ k = target. The |Δ| atoms to change are selected in one
// pass with a bounded heap, O(m log |Δ|), ties to the lowest index.
func reznikRound(k []int, p []float64, idx []int, scale float64, target int) {
	sum := 0
	if idx == nil {
		for a, v := range p {
			r := int(math.Floor(scale*v + 0.5))
			k[a] = r
			sum += r
		}
	} else {
		for _, a := range idx {
			r := int(math.Floor(scale*p[a] + 0.5))
			k[a] = r
			sum += r
		}
	}
	delta := sum - target
	if delta == 0 {
		return
	}
	// Select the |Δ| smallest keys s·δ_a (s = −1: largest δ among r_a ≥ 1
	// when Δ > 0; s = +1: smallest δ when Δ < 0), ties to the lowest index.
	s, step := 1.0, 1
	if delta > 0 {
		s, step = -1, -1
	}
	need := abs(delta)
	var buf [64]keyed
	h := buf[:0]
	if need > len(buf) {
		h = make([]keyed, 0, need)
	}
	if idx == nil {
		for a, v := range p {
			if delta < 0 || k[a] > 0 {
				if e := (keyed{s * (float64(k[a]) - scale*v), a}); len(h) < need || h[0].after(e) {
					h = offer(h, need, e)
				}
			}
		}
	} else {
		for _, a := range idx {
			if delta < 0 || k[a] > 0 {
				if e := (keyed{s * (float64(k[a]) - scale*p[a]), a}); len(h) < need || h[0].after(e) {
					h = offer(h, need, e)
				}
			}
		}
	}
	for _, e := range h {
		k[e.a] += step
	}
}

// keyed is an atom with its selection key.
type keyed struct {
	key float64
	a   int
}

// after reports whether x ranks after y: larger key, or equal key and
// larger index.
func (x keyed) after(y keyed) bool { return x.key > y.key || (x.key == y.key && x.a > y.a) }

// offer adds e to the heap h of the need first-ranked elements offered so
// far (root: the last-ranked of them; cap(h) ≥ need) and returns it.
func offer(h []keyed, need int, e keyed) []keyed {
	if len(h) < need {
		h = h[:len(h)+1]
		h[len(h)-1] = e
		for i := len(h) - 1; i > 0; {
			parent := (i - 1) / 2
			if !h[i].after(h[parent]) {
				break
			}
			h[i], h[parent] = h[parent], h[i]
			i = parent
		}
		return h
	}
	if !h[0].after(e) {
		return h
	}
	h[0] = e
	for i := 0; ; {
		l, big := 2*i+1, i
		if l < len(h) && h[l].after(h[big]) {
			big = l
		}
		if r := l + 1; r < len(h) && h[r].after(h[big]) {
			big = r
		}
		if big == i {
			return h
		}
		h[i], h[big] = h[big], h[i]
		i = big
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// MeasureMode selects the measure quantizer R_ℓ of [QuantizeMeasure].
type MeasureMode int

const (
	// PositionPreservingMode rounds each position's atoms separately
	// ([PositionPreserving]); the recommended default of correction A4 in the package doc and the
	// zero value.
	PositionPreservingMode MeasureMode = iota
	// ReznikMode is the paper's R_ℓ: the Euclidean-nearest type over all
	// atoms ([Reznik]).
	ReznikMode
)

// String returns the mode's name.
func (m MeasureMode) String() string {
	switch m {
	case PositionPreservingMode:
		return "PositionPreserving"
	case ReznikMode:
		return "Reznik"
	}
	return fmt.Sprintf("MeasureMode(%d)", int(m))
}

// QuantizeMeasure returns R_ℓ(μ) as a sparse [QMeasure] for the measure
// μ = Σ_k prob[k]·δ_{idx[k]} on the atoms of 𝕏_n numbered by ix. idx need
// not be sorted; repeated atoms are merged (their masses added). Atoms
// with a zero count are dropped, so the result has Idx strictly increasing
// and Cnt ≥ 1 with Σ Cnt = ℓ. Rounding over the support alone gives the
// same counts as rounding the dense vector, since atoms of mass zero are
// never incremented.
//
// It costs O(m log m) for m = len(idx) plus the rounding and allocates. It
// returns an error naming the bad value if ix is invalid, ℓ is invalid
// (< 1, > MaxInt32, or not a multiple of ix.N in PositionPreservingMode),
// the lengths differ, an index is outside [0, ix.Size()), prob is not a
// probability vector, a position's mass is not 1/N (PositionPreservingMode)
// or mode is unknown.
func QuantizeMeasure(idx []int32, prob []float64, ell int, mode MeasureMode, ix AtomIndex) (QMeasure, error) {
	if err := ix.check(); err != nil {
		return QMeasure{}, err
	}
	if err := checkEll(ell); err != nil {
		return QMeasure{}, err
	}
	if len(idx) != len(prob) {
		return QMeasure{}, fmt.Errorf("%w: len(idx) = %d differs from len(prob) = %d", icrl.ErrInvalid, len(idx), len(prob))
	}
	if err := checkProb("prob", prob); err != nil {
		return QMeasure{}, err
	}
	for k, a := range idx {
		if a < 0 || int(a) >= ix.Size() {
			return QMeasure{}, fmt.Errorf("%w: idx[%d] = %d is outside [0, %d)", icrl.ErrInvalid, k, a, ix.Size())
		}
	}
	// Sort by atom and merge repeats.
	ord := make([]int, len(idx))
	for k := range ord {
		ord[k] = k
	}
	if !slices.IsSortedFunc(ord, func(a, b int) int { return cmp.Compare(idx[a], idx[b]) }) {
		slices.SortStableFunc(ord, func(a, b int) int { return cmp.Compare(idx[a], idx[b]) })
	}
	atoms := make([]int32, 0, len(idx))
	p := make([]float64, 0, len(idx))
	for _, k := range ord {
		if n := len(atoms); n > 0 && atoms[n-1] == idx[k] {
			p[n-1] += prob[k]
			continue
		}
		atoms = append(atoms, idx[k])
		p = append(p, prob[k])
	}
	var (
		cnt []int
		err error
	)
	switch mode {
	case ReznikMode:
		cnt, err = Reznik(nil, p, ell)
	case PositionPreservingMode:
		pos := make([]int, len(atoms))
		for k, a := range atoms {
			pos[k], _ = ix.Decode(int(a))
		}
		cnt, err = PositionPreserving(nil, p, pos, ix.N, ell)
	default:
		return QMeasure{}, fmt.Errorf("%w: unknown measure mode %v", icrl.ErrInvalid, mode)
	}
	if err != nil {
		return QMeasure{}, err
	}
	q := QMeasure{Ell: int32(ell)}
	for k, c := range cnt {
		if c > 0 {
			q.Idx = append(q.Idx, atoms[k])
			q.Cnt = append(q.Cnt, int32(c))
		}
	}
	return q, nil
}

// CountTypes returns |𝒫^(ℓ)(𝕏_n)| = C(ℓ + a − 1, a − 1) for a = atoms
// (eq. (22)): the number of count vectors r ∈ ℕ₀^a with Σ r = ℓ. It
// returns 0 if atoms < 1 or ell < 0.
func CountTypes(ell, atoms int) *big.Int {
	if atoms < 1 || ell < 0 {
		return new(big.Int)
	}
	return new(big.Int).Binomial(int64(ell)+int64(atoms)-1, int64(atoms)-1)
}

// EnumerateTypes calls yield with every count vector r ∈ ℕ₀^atoms with
// Σ r = ell, in increasing lexicographic order from (0, …, 0, ℓ) to
// (ℓ, 0, …, 0), until yield returns false; there are [CountTypes](ell,
// atoms) of them. The slice passed to yield is reused between calls: copy
// it to keep it. It yields nothing if atoms < 1 or ell < 0. Each step
// costs O(atoms) at worst (amortised O(1)); meant for tests and tiny full
// dynamic programmes (a choice the paper leaves open).
func EnumerateTypes(ell, atoms int, yield func(counts []int) bool) {
	if atoms < 1 || ell < 0 {
		return
	}
	r := make([]int, atoms)
	last := atoms - 1
	r[last] = ell
	for {
		if !yield(r) {
			return
		}
		// Lexicographic successor: the largest i < last with a positive
		// suffix after it gets one more unit; the rest of the suffix goes
		// to the last entry.
		i := last - 1
		if r[last] == 0 {
			q := last - 1
			for q >= 0 && r[q] == 0 {
				q--
			}
			i = q - 1
		}
		if i < 0 {
			return
		}
		s := 0
		for j := i + 1; j <= last; j++ {
			s += r[j]
			r[j] = 0
		}
		r[i]++
		r[last] = s - 1
	}
}

// AppendKey appends to dst a canonical byte encoding of q and returns the
// extended slice: uvarints of Ell, the support size, Idx[0] and the gaps
// Idx[k] − Idx[k−1], and the counts. Two valid QMeasures (Idx strictly
// increasing) have equal keys if and only if they are equal, so the key
// can index a map (string(key)). It costs O(len(Idx)).
func (q QMeasure) AppendKey(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(uint32(q.Ell)))
	dst = binary.AppendUvarint(dst, uint64(len(q.Idx)))
	prev := int32(0)
	for k, a := range q.Idx {
		dst = binary.AppendUvarint(dst, uint64(uint32(a-prev)))
		prev = a
		c := int32(0)
		if k < len(q.Cnt) {
			c = q.Cnt[k]
		}
		dst = binary.AppendUvarint(dst, uint64(uint32(c)))
	}
	return dst
}

// Validate returns nil if q is a valid element of 𝒫^(ℓ)(𝕏_n) for the atoms
// of ix: Ell ≥ 1, equal lengths, Idx strictly increasing in [0, ix.Size()),
// Cnt ≥ 1 and Σ Cnt = Ell. The error names the bad entry.
func (q QMeasure) Validate(ix AtomIndex) error {
	if err := ix.check(); err != nil {
		return err
	}
	if q.Ell < 1 {
		return fmt.Errorf("%w: QMeasure has Ell = %d, want at least 1", icrl.ErrInvalid, q.Ell)
	}
	if len(q.Idx) != len(q.Cnt) {
		return fmt.Errorf("%w: QMeasure has %d indices and %d counts", icrl.ErrInvalid, len(q.Idx), len(q.Cnt))
	}
	sum := int64(0)
	for k, a := range q.Idx {
		if a < 0 || int(a) >= ix.Size() {
			return fmt.Errorf("%w: QMeasure Idx[%d] = %d is outside [0, %d)", icrl.ErrInvalid, k, a, ix.Size())
		}
		if k > 0 && a <= q.Idx[k-1] {
			return fmt.Errorf("%w: QMeasure Idx[%d] = %d does not exceed Idx[%d] = %d", icrl.ErrInvalid, k, a, k-1, q.Idx[k-1])
		}
		if q.Cnt[k] < 1 {
			return fmt.Errorf("%w: QMeasure Cnt[%d] = %d, want at least 1", icrl.ErrInvalid, k, q.Cnt[k])
		}
		sum += int64(q.Cnt[k])
	}
	if sum != int64(q.Ell) {
		return fmt.Errorf("%w: QMeasure counts sum to %d, want Ell = %d", icrl.ErrInvalid, sum, q.Ell)
	}
	return nil
}

// QMeasureAtoms expands q into the atoms (Pos, s_j) of 𝕏_n, with the state
// points taken from sq (views, not copies), and their counts, ready for
// [Cost.W2SqCounts]. It panics if an index of q is out of range for ix or
// sq (validate q first with [QMeasure.Validate]).
func QMeasureAtoms[F tensor.Float](q QMeasure, ix AtomIndex, sq StateQuantizer[F]) ([]Atom[F], []int) {
	atoms := make([]Atom[F], len(q.Idx))
	cnt := make([]int, len(q.Idx))
	for k, a := range q.Idx {
		pos, j := ix.Decode(int(a))
		atoms[k] = Atom[F]{Pos: pos, X: sq.Point(j)}
		cnt[k] = int(q.Cnt[k])
	}
	return atoms, cnt
}
