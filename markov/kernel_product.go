package markov

import (
	"fmt"
	"math"
	"math/rand/v2"
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
	sOff, jOff       []int // offsets of s and j in the contracted tensor
}

// NewProductKernel returns the product kernel of the players' local laws
// local[i][a][p][p'] = L_i(p'|p, a): player i has A_i = len(local[i])
// actions and P_i = len(local[i][0]) local states. The tables are copied.
//
// It returns an error wrapping [ErrKernel] that names the first bad entry
// if there is no player, a player has no action or no local state, the
// shapes are ragged, S or J exceed 2^31 or S·J exceeds 2^34, a probability
// is negative or not finite, or a local row does not sum to 1 within 1e-9.
// The cost is O(Σ_i A_i·P_i² + S + J).
func NewProductKernel(local [][][][]float64) (*ProductKernel, error) {
	n := len(local)
	if n == 0 {
		return nil, fmt.Errorf("%w: product kernel with no player", ErrKernel)
	}
	k := &ProductKernel{n: n, states: 1, joint: 1, pos: make([]int, n), act: make([]int, n),
		local: make([][][]float64, n), nzIdx: make([][][]int, n), nzVal: make([][][]float64, n)}
	for i, li := range local {
		A := len(li)
		if A == 0 || len(li[0]) == 0 {
			return nil, fmt.Errorf("%w: player %d has %d actions and no local state", ErrKernel, i, A)
		}
		P := len(li[0])
		k.pos[i], k.act[i] = P, A
		if mulSat(k.states, P) > math.MaxInt32 || mulSat(k.joint, A) > math.MaxInt32 {
			return nil, fmt.Errorf("%w: product kernel with more than 2^31 states or joint actions", ErrKernel)
		}
		k.states *= P
		k.joint *= A
		k.local[i] = make([][]float64, A*P)
		k.nzIdx[i] = make([][]int, A*P)
		k.nzVal[i] = make([][]float64, A*P)
		for a, la := range li {
			if len(la) != P {
				return nil, fmt.Errorf("%w: player %d, action %d has %d local states, want %d", ErrKernel, i, a, len(la), P)
			}
			for p, row := range la {
				if len(row) != P {
					return nil, fmt.Errorf("%w: local law L_%d(·|p=%d, a=%d) has %d entries, want %d", ErrKernel, i, p, a, len(row), P)
				}
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
	k.offsets()
	return k, nil
}

// offsets fills sOff and jOff: the contracted tensor of Expect has axes
// (c, q_0, …, q_{N−1}) with q_i = p_i·A_i + a_i, so the entry of state s
// and joint action j is at sOff[s] + jOff[j] within a column.
func (k *ProductKernel) offsets() {
	stride := make([]int, k.n) // stride of q_i
	st := 1
	for i := k.n - 1; i >= 0; i-- {
		stride[i] = st
		st *= k.pos[i] * k.act[i]
	}
	k.sOff = make([]int, k.states)
	for s := range k.sOff {
		x, o := s, 0
		for i := k.n - 1; i >= 0; i-- {
			o += (x % k.pos[i]) * k.act[i] * stride[i]
			x /= k.pos[i]
		}
		k.sOff[s] = o
	}
	k.jOff = make([]int, k.joint)
	for j := range k.jOff {
		x, o := j, 0
		for i := k.n - 1; i >= 0; i-- {
			o += (x % k.act[i]) * stride[i]
			x /= k.act[i]
		}
		k.jOff[j] = o
	}
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
// from the last player to the first: the tensor v with axes
// (c, p'_0, …, p'_{N−1}) becomes (c, q_0, …, q_{N−1}) with
// q_i = (p_i, a_i), each step a sum over the non-zeros of player i's local
// rows, then the entries are gathered into the order of dst. It allocates
// two buffers of S·J·m floats; the cost is O(S·J·m·max_i nnz_i), split
// over the cores.
func (k *ProductKernel) Expect(dst, v []float64, m int) {
	S, J := k.states, k.joint
	checkExpect(S, J, dst, v, m)
	// The tensor has axes (x, p'_i, y): x runs over (c, p'_0, …, p'_{i−1}),
	// y over (q_{i+1}, …, q_{N−1}).
	cur := v
	a, b := make([]float64, S*J*m), make([]float64, S*J*m)
	y := 1
	for i := k.n - 1; i >= 0; i-- {
		P, Q := k.pos[i], k.pos[i]*k.act[i]
		x := len(cur) / (P * y)
		out := a[:x*Q*y]
		idx, val := k.nzIdx[i], k.nzVal[i]
		act := k.act[i]
		expectBlocks(x*Q, len(out)*P, func(lo, hi int) {
			for xq := lo; xq < hi; xq++ {
				xi, q := xq/Q, xq%Q
				r := (q%act)*P + q/act // row a·P+p of q = p·A+a
				o := out[xq*y : (xq+1)*y]
				clear(o)
				in := cur[xi*P*y:]
				for e, p2 := range idx[r] {
					w := val[r][e]
					src := in[p2*y : (p2+1)*y]
					for t, sv := range src {
						o[t] += w * sv
					}
				}
			}
		})
		cur = out
		a, b = b, a
		y *= Q
	}
	// cur has axes (c, q_0, …, q_{N−1}): gather into (s, j, c).
	expectBlocks(S, S*J*m, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			so := k.sOff[s]
			for j, jo := range k.jOff {
				for c := range m {
					dst[(s*J+j)*m+c] = cur[c*S*J+so+jo]
				}
			}
		}
	})
}

// split stores the local states of s and the actions of j.
func (k *ProductKernel) split(s, j int, p, a []int) {
	for i := k.n - 1; i >= 0; i-- {
		p[i] = s % k.pos[i]
		s /= k.pos[i]
		a[i] = j % k.act[i]
		j /= k.act[i]
	}
}

// Row implements [Kernel] by expanding the product of the players' local
// rows, O(N + nnz of the row), with one allocation of the row's size.
func (k *ProductKernel) Row(s, j int, next []int, prob []float64) ([]int, []float64) {
	checkRowIndex(k.states, k.joint, s, j)
	p, a := make([]int, k.n), make([]int, k.n)
	k.split(s, j, p, a)
	size := 1
	for i := range k.n {
		size *= len(k.nzIdx[i][a[i]*k.pos[i]+p[i]])
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
	for i := range k.n {
		r := a[i]*k.pos[i] + p[i]
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
	checkRowIndex(k.states, k.joint, s, j)
	var buf [16]int
	rows := buf[:0]
	if k.n > len(buf) {
		rows = make([]int, 0, k.n)
	}
	rows = rows[:k.n]
	for i := k.n - 1; i >= 0; i-- {
		rows[i] = (j%k.act[i])*k.pos[i] + s%k.pos[i]
		s /= k.pos[i]
		j /= k.act[i]
	}
	k.expand(dst, rows, 0, 0, c)
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
	checkRowIndex(k.states, k.joint, s, j)
	u := rng.Float64()
	jr, sr := j, s
	// Local states and actions, least significant first.
	var pa [16][2]int
	var buf [][2]int
	if k.n <= len(pa) {
		buf = pa[:k.n]
	} else {
		buf = make([][2]int, k.n)
	}
	for i := k.n - 1; i >= 0; i-- {
		buf[i] = [2]int{sr % k.pos[i], jr % k.act[i]}
		sr /= k.pos[i]
		jr /= k.act[i]
	}
	next := 0
	for i := range k.n {
		r := buf[i][1]*k.pos[i] + buf[i][0]
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
