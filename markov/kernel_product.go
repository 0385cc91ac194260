package markov

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/tensor"
)

// ProductKernel is the transition law of a game whose players move
// independently: player i has its own local state p_i ∈ [0, P_i), the
// game's state is the tuple (p_0, …, p_{N−1}) as a flat index in mixed
// radix with player 0 most significant (S = Π_i P_i), joint actions are
// flat as in [Episodic.Joint] (J = Π_i A_i), and
//
//	P(s'|s, j) = Π_i L_i(p'_i | p_i, a_i),
//
// with player i's local law L_i depending on its own local state and
// action only (the tracking game of multi-agent-meta-rl App. F.3, in which
// each agent moves on its own axis). Memory is O(Σ_i A_i·P_i²) instead of
// the S·J·S of [DenseKernel]; an expectation ([ProductKernel.Expect])
// contracts one player at a time, O(S·J·m·max_i nnz_i) with nnz_i the
// non-zeros of a local row, instead of O(S·J·S·m).
type ProductKernel struct {
	n, states, joint int
	pos, act         []int         // P_i and A_i
	local            [][][]float64 // local[i][a·P_i+p] = L_i(·|p, a)
	nzIdx            [][][]int     // non-zeros of each local row
	nzVal            [][][]float64
	scratch          sync.Pool // *expectScratch, reused by Expect
}

// expectScratch holds the two tensors of one Expect.
type expectScratch struct{ a, b []float64 }

// NewProductKernel returns the product kernel of the players' local laws
// L_i(p'|p, a) = local[i].At(a, p, p'): player i's law is an A_i × P_i ×
// P_i array (A_i actions, P_i local states). The tables are copied.
//
// It returns an error wrapping [ErrKernel] that names the first bad entry
// if there is no player, a player's law is nil or not A_i × P_i × P_i, S
// or J exceed 2^31 or S·J exceeds 2^34, a probability is negative or not
// finite, or a local row does not sum to 1 within 1e-9. The cost is
// O(Σ_i A_i·P_i²).
func NewProductKernel(local []*tensor.Dense[float64]) (*ProductKernel, error) {
	n := len(local)
	if n == 0 {
		return nil, fmt.Errorf("%w: product kernel with no player", ErrKernel)
	}
	k := &ProductKernel{n: n, states: 1, joint: 1, pos: make([]int, n), act: make([]int, n),
		local: make([][][]float64, n), nzIdx: make([][][]int, n), nzVal: make([][][]float64, n)}
	for i, li := range local {
		if li == nil || li.Rank() != 3 || li.Dim(1) != li.Dim(2) {
			var shape []int
			if li != nil {
				shape = li.Shape()
			}
			return nil, fmt.Errorf("%w: player %d's local law has shape %v, want A × P × P", ErrKernel, i, shape)
		}
		A, P := li.Dim(0), li.Dim(1)
		k.pos[i], k.act[i] = P, A
		if mulSat(k.states, P) > math.MaxInt32 || mulSat(k.joint, A) > math.MaxInt32 {
			return nil, fmt.Errorf("%w: product kernel with more than 2^31 states or joint actions", ErrKernel)
		}
		k.states *= P
		k.joint *= A
		k.local[i] = make([][]float64, A*P)
		k.nzIdx[i] = make([][]int, A*P)
		k.nzVal[i] = make([][]float64, A*P)
		for a := range A {
			for p := range P {
				row := li.Row(a, p)
				var sum float64
				for q, v := range row {
					if !(v >= 0) || math.IsInf(v, 0) {
						return nil, fmt.Errorf("%w: local law L_%d(p'=%d|p=%d, a=%d) = %v is not a probability", ErrKernel, i, q, p, a, v)
					}
					sum += v
				}
				if math.Abs(sum-1) > kernelProbTol {
					return nil, fmt.Errorf("%w: local law L_%d(·|p=%d, a=%d) sums to %v, not 1", ErrKernel, i, p, a, sum)
				}
				r := a*P + p
				k.local[i][r] = append([]float64(nil), row...)
				for q, v := range row {
					if v > 0 {
						k.nzIdx[i][r] = append(k.nzIdx[i][r], q)
						k.nzVal[i][r] = append(k.nzVal[i][r], v)
					}
				}
			}
		}
	}
	if mulSat(k.states, k.joint) > epiMaxEntries {
		return nil, fmt.Errorf("%w: %d states × %d joint actions is too large", ErrKernel, k.states, k.joint)
	}
	return k, nil
}

// Shape returns the numbers of states and joint actions.
func (k *ProductKernel) Shape() (states, joint int) { return k.states, k.joint }

// Players returns the number of players N.
func (k *ProductKernel) Players() int { return k.n }

// LocalStates returns the number of local states P_i of player i. It
// panics if i is not a player.
func (k *ProductKernel) LocalStates(i int) int { return k.pos[i] }

// Local returns L_i(·|p, a) as a view of the kernel's storage, which the
// caller must not modify. It panics if an index is out of range.
func (k *ProductKernel) Local(i, p, a int) []float64 {
	if uint(i) >= uint(k.n) || uint(p) >= uint(k.pos[i]) || uint(a) >= uint(k.act[i]) {
		panic(fmt.Sprintf("markov: local law (player, state, action) = (%d, %d, %d) out of range", i, p, a))
	}
	return k.local[i][a*k.pos[i]+p]
}

// Expect implements [Kernel] by contracting one player's axis at a time,
// from the last player to the first. After players N−1, …, i+1 the
// tensor has the axes (c, p'_0, …, p'_i, p_{i+1}, …, p_{N−1}, a_{i+1}, …,
// a_{N−1}); contracting p'_i over the non-zeros of player i's local rows
// puts p_i after p'_{i−1} and a_i before a_{i+1}, so after player 0 the
// axes are (c, s, j), the layout of dst, and nothing is permuted. Its two
// buffers of S·J·m floats are kept in a pool between calls; the cost is
// O(S·J·m·max_i nnz_i), split over the cores.
func (k *ProductKernel) Expect(dst, v []float64, m int) {
	S, J := k.states, k.joint
	checkExpect(S, J, dst, v, m)
	sc, _ := k.scratch.Get().(*expectScratch)
	if sc == nil {
		sc = new(expectScratch)
	}
	defer k.scratch.Put(sc)
	if len(sc.a) < S*J*m {
		sc.a, sc.b = make([]float64, S*J*m), make([]float64, S*J*m)
	}
	cur, a, b := v, sc.a, sc.b
	// The input has axes (x, p'_i, y1, y2): x runs over (c, p'_0, …,
	// p'_{i−1}), y1 over (p_{i+1}, …) and y2 over (a_{i+1}, …); the output
	// has axes (x, p_i, y1, a_i, y2).
	y1, y2 := 1, 1
	for i := k.n - 1; i >= 0; i-- {
		P, A := k.pos[i], k.act[i]
		x := len(cur) / (P * y1 * y2)
		out := a[:x*P*y1*A*y2]
		if i == 0 {
			out = dst
		}
		items := x * P * y1 * A // each writes y2 contiguous outputs
		if w := expectWorkers(items, len(out)*P); w > 1 {
			parallel.Blocks(items, w, func(_, lo, hi int) { k.contract(i, cur, out, y1, y2, lo, hi) })
		} else {
			k.contract(i, cur, out, y1, y2, 0, items)
		}
		cur = out
		a, b = b, a
		y1 *= P
		y2 *= A
	}
}

// contract computes the output items [lo, hi) of Expect's step for player
// i: item (x, p_i, y1, a_i) is the y2 outputs Σ_{p'} L_i(p'|p_i, a_i)·
// cur[x, p', y1, ·].
func (k *ProductKernel) contract(i int, cur, out []float64, y1, y2, lo, hi int) {
	P, A := k.pos[i], k.act[i]
	idx, val := k.nzIdx[i], k.nzVal[i]
	for it := lo; it < hi; it++ {
		ai := it % A
		r := it / A
		yi := r % y1
		r /= y1
		p := r % P
		xi := r / P
		row := ai*P + p
		o := out[it*y2 : (it+1)*y2]
		in := cur[xi*P*y1*y2+yi*y2:]
		if y2 == 1 {
			var acc float64
			for e, p2 := range idx[row] {
				acc += val[row][e] * in[p2*y1]
			}
			o[0] = acc
			continue
		}
		clear(o)
		for e, p2 := range idx[row] {
			w := val[row][e]
			src := in[p2*y1*y2 : p2*y1*y2+y2]
			for t, sv := range src {
				o[t] += w * sv
			}
		}
	}
}

// localRows stores in buf (allocated if shorter than N) the index
// a_i·P_i + p_i of every player's local row L_i(·|p_i, a_i) in state s
// under joint action j, and returns it. It panics if s or j is out of
// range.
func (k *ProductKernel) localRows(s, j int, buf []int) []int {
	checkRowIndex(k.states, k.joint, s, j)
	if len(buf) < k.n {
		buf = make([]int, k.n)
	}
	rows := buf[:k.n]
	for i := k.n - 1; i >= 0; i-- {
		rows[i] = (j%k.act[i])*k.pos[i] + s%k.pos[i]
		s /= k.pos[i]
		j /= k.act[i]
	}
	return rows
}

// Row implements [Kernel] by expanding the product of the players' local
// rows, O(N + nnz of the row); it allocates only when next or prob is too
// short (or for more than 16 players).
func (k *ProductKernel) Row(s, j int, next []int, prob []float64) ([]int, []float64) {
	var buf [16]int
	rows := k.localRows(s, j, buf[:])
	size := 1
	for i, r := range rows {
		size *= len(k.nzIdx[i][r])
	}
	// Expand in place from the back: after player i, entries [0, cnt)
	// hold the partial products of players 0..i in increasing order.
	if cap(next) < size {
		next = make([]int, size)
	}
	if cap(prob) < size {
		prob = make([]float64, size)
	}
	next, prob = next[:size], prob[:size]
	next[0], prob[0] = 0, 1
	cnt := 1
	for i, r := range rows {
		idx, val := k.nzIdx[i][r], k.nzVal[i][r]
		f := len(idx)
		for c := cnt - 1; c >= 0; c-- {
			base, w := next[c]*k.pos[i], prob[c]
			for e := f - 1; e >= 0; e-- {
				next[c*f+e] = base + idx[e]
				prob[c*f+e] = w * val[e]
			}
		}
		cnt *= f
	}
	return next, prob
}

// addRow adds c·P(·|s, j) to dst by a depth-first expansion of the
// product, without allocating for up to 16 players.
func (k *ProductKernel) addRow(dst []float64, s, j int, c float64) {
	var buf [16]int
	k.expand(dst, k.localRows(s, j, buf[:]), 0, 0, c)
}

// expand adds w·Π_{i' ≥ i} L_{i'}(·) to dst below the state prefix base.
func (k *ProductKernel) expand(dst []float64, rows []int, i, base int, w float64) {
	idx, val := k.nzIdx[i][rows[i]], k.nzVal[i][rows[i]]
	base *= k.pos[i]
	if i == k.n-1 {
		for e, q := range idx {
			dst[base+q] += w * val[e]
		}
		return
	}
	for e, q := range idx {
		k.expand(dst, rows, i+1, base+q, w*val[e])
	}
}

// Sample implements [Kernel]: one uniform draw u, inverted player by
// player (u is rescaled into the chosen local state's interval), which is
// the inverse of the cumulative distribution of P(·|s, j) in the order of
// the states. O(Σ_i P_i).
func (k *ProductKernel) Sample(s, j int, rng *rand.Rand) int {
	var buf [16]int
	rows := k.localRows(s, j, buf[:])
	u := rng.Float64()
	next := 0
	for i, r := range rows {
		idx, val := k.nzIdx[i][r], k.nzVal[i][r]
		var total float64
		for _, w := range val {
			total += w
		}
		x := u * total
		var c float64
		e := -1
		for t, w := range val {
			if x < c+w {
				e = t
				break
			}
			c += w
		}
		if e < 0 { // rounding left x at the top: the last non-zero
			e = len(val) - 1
			c -= val[e]
		}
		u = min(max((x-c)/val[e], 0), math.Nextafter(1, 0))
		next = next*k.pos[i] + idx[e]
	}
	return next
}
