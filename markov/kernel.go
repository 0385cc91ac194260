package markov

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/tensor"
)

// Kernel is the transition law of one step of a tabular Markov game,
// P(s'|s, j) for S states s, s' and J flat joint actions j. The games of
// this package evaluate, solve and simulate through these four methods
// and [AddRow] only, so a kernel whose memory and time scale with its
// structure (the non-zeros of [SparseKernel], the per-player factors of
// [ProductKernel]) is never expanded to the S·J·S table of [DenseKernel].
//
// Implementations must be immutable and safe for concurrent use, and every
// row must be a probability distribution over the S states; the kernels of
// this package are validated by their constructors, a caller's own
// implementation is trusted.
type Kernel interface {
	// Shape returns the numbers of states S and joint actions J.
	Shape() (states, joint int)
	// Expect stores the conditional expectations of m value vectors,
	//
	//	dst[c·S·J + s·J + j] = Σ_{s'} P(s'|s, j) v[c·S + s'],
	//
	// for every column c < m, state s and joint action j: the backup that
	// every evaluation of this package is built on. v holds the m vectors
	// back to back (length m·S) and dst the m results (length m·S·J). It
	// panics if a length is wrong.
	Expect(dst, v []float64, m int)
	// Row returns the support of P(·|s, j), the next states in increasing
	// order and their positive probabilities, appended to next[:0] and
	// prob[:0] (allocated if too short). It panics if s or j is out of
	// range.
	Row(s, j int, next []int, prob []float64) ([]int, []float64)
	// Sample draws s' ~ P(·|s, j) with one draw from rng, by inverting the
	// cumulative distribution in the order of the states, so that every
	// kernel of the same law draws the same state from the same rng (up
	// to round-off at the boundaries). It panics if s or j is out of range.
	Sample(s, j int, rng *rand.Rand) int
}

// kernelProbTol is the tolerance on the sum of a transition row.
const kernelProbTol = 1e-9

// kernelParallelWork is the number of multiply-adds of one Expect above
// which the kernels of this package split the states over goroutines.
const kernelParallelWork = 1 << 16

// checkExpect panics unless dst and v have the lengths Expect needs.
func checkExpect(states, joint int, dst, v []float64, m int) {
	if m < 1 || len(v) != m*states || len(dst) != states*joint*m {
		panic(fmt.Sprintf("markov: Expect with %d columns, len(v) = %d and len(dst) = %d for %d states and %d joint actions", m, len(v), len(dst), states, joint))
	}
}

// checkRowIndex panics unless (s, j) is in range.
func checkRowIndex(states, joint, s, j int) {
	if uint(s) >= uint(states) || uint(j) >= uint(joint) {
		panic(fmt.Sprintf("markov: (state, joint action) = (%d, %d) out of range for %d states, %d joint actions", s, j, states, joint))
	}
}

// expectWorkers returns the number of goroutines over which to split n
// items of an expectation of the given work (multiply-adds): 1 below
// kernelParallelWork. Callers split into contiguous blocks, each output
// entry written by one block, so the result does not depend on the split;
// they build the closure for parallel.Blocks only when this is above 1,
// so small expectations do not allocate.
func expectWorkers(n, work int) int {
	if work < kernelParallelWork {
		return 1
	}
	return parallel.Workers(n)
}

// DenseKernel stores P(s'|s, j) as one S·J·S table, row (s, j) at offset
// (s·J+j)·S. It is the fastest form when most transitions are non-zero.
type DenseKernel struct {
	states, joint int
	p             []float64
}

// NewDenseKernel returns the kernel with P(s'|s, j) read from the table p
// (copied): an S × J × S array, or S × A_0 × … × A_{N−1} × S with the joint
// action j in mixed radix, player 0 most significant (a two-player game's
// S × A × B × S table gives j = a·B + b). It returns an error wrapping
// [ErrKernel] if p is nil, of rank below 3, its first and last dimensions
// differ, a probability is negative or not finite, or a row does not sum
// to 1 within 1e-9 (the error names the row). The cost is O(S·J·S).
func NewDenseKernel(p *tensor.Dense[float64]) (*DenseKernel, error) {
	if p == nil || p.Rank() < 3 {
		var shape []int
		if p != nil {
			shape = p.Shape()
		}
		return nil, fmt.Errorf("%w: transition table of shape %v, want S × J × S", ErrKernel, shape)
	}
	S := p.Dim(0)
	if last := p.Dim(p.Rank() - 1); last != S {
		return nil, fmt.Errorf("%w: transition table of shape %v: %d states, but rows over %d", ErrKernel, p.Shape(), S, last)
	}
	J := p.Len() / (S * S)
	k := &DenseKernel{states: S, joint: J, p: slices.Clone(p.Data())}
	for s := range S {
		for j := range J {
			o := (s*J + j) * S
			if err := checkRow(k.p[o:o+S], func(i int) int { return i }, s, j); err != nil {
				return nil, err
			}
		}
	}
	return k, nil
}

// checkRow validates the probabilities of row (s, j), whose entry i is the
// probability of state state(i).
func checkRow(prob []float64, state func(int) int, s, j int) error {
	var sum float64
	for i, v := range prob {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: P(s'=%d|s=%d, joint=%d) = %v is not a probability", ErrKernel, state(i), s, j, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > kernelProbTol {
		return fmt.Errorf("%w: P(·|s=%d, joint=%d) sums to %v, not 1", ErrKernel, s, j, sum)
	}
	return nil
}

// Shape returns the numbers of states and joint actions.
func (k *DenseKernel) Shape() (states, joint int) { return k.states, k.joint }

// Dense returns P(·|s, j) as a view of the kernel's storage, which the
// caller must not modify. It panics if s or j is out of range.
func (k *DenseKernel) Dense(s, j int) []float64 {
	checkRowIndex(k.states, k.joint, s, j)
	o := (s*k.joint + j) * k.states
	return k.p[o : o+k.states : o+k.states]
}

// Expect implements [Kernel] with one dot product of length S per row and
// column, O(S·J·S·m), split over the cores by state.
func (k *DenseKernel) Expect(dst, v []float64, m int) {
	S, J := k.states, k.joint
	checkExpect(S, J, dst, v, m)
	if w := expectWorkers(S, S*J*S*m); w > 1 {
		parallel.Blocks(S, w, func(_, lo, hi int) { k.expectRows(dst, v, m, lo, hi) })
		return
	}
	k.expectRows(dst, v, m, 0, S)
}

// expectRows is Expect on the states [lo, hi).
func (k *DenseKernel) expectRows(dst, v []float64, m, lo, hi int) {
	S, J := k.states, k.joint
	for r := lo * J; r < hi*J; r++ {
		row := k.p[r*S : (r+1)*S]
		for c := range m {
			dst[c*S*J+r] = dot(row, v[c*S:(c+1)*S])
		}
	}
}

// Row implements [Kernel], O(S).
func (k *DenseKernel) Row(s, j int, next []int, prob []float64) ([]int, []float64) {
	next, prob = next[:0], prob[:0]
	for s2, q := range k.Dense(s, j) {
		if q > 0 {
			next = append(next, s2)
			prob = append(prob, q)
		}
	}
	return next, prob
}

// Sample implements [Kernel], O(S).
func (k *DenseKernel) Sample(s, j int, rng *rand.Rand) int {
	return simplex.SampleCategorical(k.Dense(s, j), rng)
}

// SparseKernel stores the non-zeros of P(·|s, j) in compressed sparse rows:
// row r = s·J+j holds the next states next[off[r]:off[r+1]] (increasing)
// and their probabilities. Memory is O(S·J + nnz) and an expectation costs
// O(nnz·m).
type SparseKernel struct {
	states, joint int
	off           []int
	next          []int32
	prob          []float64
}

// NewSparseKernel returns the kernel of S = states states and J = joint
// joint actions whose row r = s·J+j is next[offsets[r]:offsets[r+1]] with
// probabilities prob[offsets[r]:offsets[r+1]]: len(offsets) = S·J+1,
// offsets[0] = 0, offsets[S·J] = len(next) = len(prob). The slices are
// copied; zero probabilities are dropped.
//
// It returns an error wrapping [ErrKernel] that names the first bad entry
// if a size is not positive or too large (more than 2^31 states or 2^34
// rows), the offsets are not non-decreasing from 0 to len(next), a row's
// states are out of range or not strictly increasing, a probability is
// negative or not finite, or a row does not sum to 1 within 1e-9. The cost
// is O(S·J + nnz).
func NewSparseKernel(states, joint int, offsets, next []int, prob []float64) (*SparseKernel, error) {
	if states < 1 || joint < 1 {
		return nil, fmt.Errorf("%w: %d states and %d joint actions", ErrKernel, states, joint)
	}
	if states > math.MaxInt32 || mulSat(states, joint) > epiMaxEntries {
		return nil, fmt.Errorf("%w: %d states × %d joint actions is too large", ErrKernel, states, joint)
	}
	rows := states * joint
	if len(offsets) != rows+1 {
		return nil, fmt.Errorf("%w: %d offsets, want S·J+1 = %d", ErrKernel, len(offsets), rows+1)
	}
	if len(next) != len(prob) {
		return nil, fmt.Errorf("%w: %d next states but %d probabilities", ErrKernel, len(next), len(prob))
	}
	if offsets[0] != 0 || offsets[rows] != len(next) {
		return nil, fmt.Errorf("%w: offsets run from %d to %d, want 0 to %d", ErrKernel, offsets[0], offsets[rows], len(next))
	}
	k := &SparseKernel{states: states, joint: joint, off: make([]int, 1, rows+1)}
	for r := range rows {
		lo, hi := offsets[r], offsets[r+1]
		s, j := r/joint, r%joint
		if lo > hi || hi > len(next) {
			return nil, fmt.Errorf("%w: row (s=%d, joint=%d) has offsets %d to %d", ErrKernel, s, j, lo, hi)
		}
		for e := lo; e < hi; e++ {
			if t := next[e]; t < 0 || t >= states {
				return nil, fmt.Errorf("%w: P(·|s=%d, joint=%d) has next state %d out of range [0, %d)", ErrKernel, s, j, t, states)
			}
			if e > lo && next[e] <= next[e-1] {
				return nil, fmt.Errorf("%w: P(·|s=%d, joint=%d) lists next state %d after %d (want strictly increasing)", ErrKernel, s, j, next[e], next[e-1])
			}
		}
		if err := checkRow(prob[lo:hi], func(i int) int { return next[lo+i] }, s, j); err != nil {
			return nil, err
		}
		for e := lo; e < hi; e++ {
			if prob[e] > 0 {
				k.next = append(k.next, int32(next[e]))
				k.prob = append(k.prob, prob[e])
			}
		}
		k.off = append(k.off, len(k.next))
	}
	return k, nil
}

// SparseFrom returns the sparse form of any kernel, row by row through
// [Kernel.Row]: O(S·J) rows and the cost of reading them.
func SparseFrom(k Kernel) *SparseKernel {
	S, J := k.Shape()
	sk := &SparseKernel{states: S, joint: J, off: make([]int, 1, S*J+1)}
	var next []int
	var prob []float64
	for s := range S {
		for j := range J {
			next, prob = k.Row(s, j, next, prob)
			for e, t := range next {
				sk.next = append(sk.next, int32(t))
				sk.prob = append(sk.prob, prob[e])
			}
			sk.off = append(sk.off, len(sk.next))
		}
	}
	return sk
}

// Shape returns the numbers of states and joint actions.
func (k *SparseKernel) Shape() (states, joint int) { return k.states, k.joint }

// NonZeros returns the number of stored transitions.
func (k *SparseKernel) NonZeros() int { return len(k.next) }

// Expect implements [Kernel], O(nnz·m), split over the cores by state.
func (k *SparseKernel) Expect(dst, v []float64, m int) {
	S, J := k.states, k.joint
	checkExpect(S, J, dst, v, m)
	if w := expectWorkers(S, len(k.next)*m); w > 1 {
		parallel.Blocks(S, w, func(_, lo, hi int) { k.expectRows(dst, v, m, lo, hi) })
		return
	}
	k.expectRows(dst, v, m, 0, S)
}

// expectRows is Expect on the states [lo, hi).
func (k *SparseKernel) expectRows(dst, v []float64, m, lo, hi int) {
	S, J := k.states, k.joint
	for r := lo * J; r < hi*J; r++ {
		next, prob := k.next[k.off[r]:k.off[r+1]], k.prob[k.off[r]:k.off[r+1]]
		for c := range m {
			vc := v[c*S : (c+1)*S]
			var x float64
			for e, t := range next {
				x += prob[e] * vc[t]
			}
			dst[c*S*J+r] = x
		}
	}
}

// Row implements [Kernel], O(nnz of the row).
func (k *SparseKernel) Row(s, j int, next []int, prob []float64) ([]int, []float64) {
	checkRowIndex(k.states, k.joint, s, j)
	r := s*k.joint + j
	next, prob = next[:0], prob[:0]
	for e := k.off[r]; e < k.off[r+1]; e++ {
		next = append(next, int(k.next[e]))
		prob = append(prob, k.prob[e])
	}
	return next, prob
}

// Sample implements [Kernel], O(nnz of the row).
func (k *SparseKernel) Sample(s, j int, rng *rand.Rand) int {
	checkRowIndex(k.states, k.joint, s, j)
	r := s*k.joint + j
	lo := k.off[r]
	return int(k.next[lo+simplex.SampleCategorical(k.prob[lo:k.off[r+1]], rng)])
}

// dot returns Σ_k a_k b_k: a plain loop for short vectors, gonum's
// assembly kernel for long ones.
func dot(a, b []float64) float64 {
	if len(a) >= 16 {
		return floats.Dot(a, b)
	}
	return seqDot(a, b)
}

// seqDot returns Σ_k a_k b_k summed in index order from zero, the order of
// [Discounted]'s stage games and of [rowDot] on a [DenseKernel]. It
// panics if b is shorter than a.
func seqDot(a, b []float64) float64 {
	b = b[:len(a)]
	var d float64
	for k, x := range a {
		d += x * b[k]
	}
	return d
}

// AddRow adds c·P(·|s, j) of the kernel k to the dense vector dst (length
// S): dst[s'] += c·P(s'|s, j). The kernels of this package do it without
// allocating, in O(S) for a [DenseKernel] and O(nnz of the row) for the
// others; a caller's own kernel goes through [Kernel.Row]. It panics if s
// or j is out of range or dst is shorter than S.
func AddRow(dst []float64, k Kernel, s, j int, c float64) {
	switch k := k.(type) {
	case *DenseKernel:
		floats.AddScaled(dst[:k.states], c, k.Dense(s, j))
	case *SparseKernel:
		checkRowIndex(k.states, k.joint, s, j)
		r := s*k.joint + j
		dst = dst[:k.states]
		for e := k.off[r]; e < k.off[r+1]; e++ {
			dst[k.next[e]] += c * k.prob[e]
		}
	case *ProductKernel:
		k.addRow(dst[:k.states], s, j, c)
	default:
		next, prob := k.Row(s, j, nil, nil)
		for e, t := range next {
			dst[t] += c * prob[e]
		}
	}
}

// rowDot returns Σ_{s'} P(s'|s, j) v[s'] by a plain loop over the row
// (for a [DenseKernel], the order of [Discounted]'s stage games).
func rowDot(k Kernel, s, j int, v []float64) float64 {
	var ev float64
	switch k := k.(type) {
	case *DenseKernel:
		ev = seqDot(k.Dense(s, j), v)
	case *SparseKernel:
		checkRowIndex(k.states, k.joint, s, j)
		r := s*k.joint + j
		for e := k.off[r]; e < k.off[r+1]; e++ {
			ev += k.prob[e] * v[k.next[e]]
		}
	default:
		next, prob := k.Row(s, j, nil, nil)
		for e, t := range next {
			ev += prob[e] * v[t]
		}
	}
	return ev
}

// denseRow stores P(·|s, j) of any kernel in dst (length S, allocated if
// too short) and returns it.
func denseRow(k Kernel, s, j int, dst []float64) []float64 {
	if d, ok := k.(*DenseKernel); ok {
		return d.Dense(s, j)
	}
	S, _ := k.Shape()
	if cap(dst) < S {
		dst = make([]float64, S)
	}
	dst = dst[:S]
	clear(dst)
	next, prob := k.Row(s, j, nil, nil)
	for e, t := range next {
		dst[t] = prob[e]
	}
	return dst
}
