package control

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/tensor"
)

// ReachableDP solves the quantized MDP by dynamic programming over the
// states reachable from the data (line 12 of Algorithm 1 as printed ranges
// over every quantized measure, which is infeasible; the paper's
// experiment did this): a forward pass builds the layers 𝒮_0 = {ŝ_0}, 𝒮_{t+1} =
// {𝚽(s, U^j) : s ∈ 𝒮_t, j}, merging equal states, and backward induction
// (eq. (30), lines 11–16 of Algorithm 1 restricted to 𝒮_t) computes
// 𝔆_t and γ_t on every reachable state, lowest index on ties. The value
// at ŝ_0 is exact: it equals the minimum of eq. (31) over 𝕌_m^T. The
// closed-loop tables cover every reachable state of times < T (the
// paper's "list of dictionaries").
//
// Layers 0, …, T−1 are stored (K·N words per N-type state); the last
// layer's transitions are fused with the terminal cost and not stored, and
// use the exact leaf bound of [DepthFirst] within fixed blocks of actions
// (off with OutOfGrid = Fail).
// Transitions are computed in parallel in contiguous chunks and merged in
// order, so results and Stats do not depend on Workers. Memory is
// O(Σ_{t<T} |𝒮_t|·M) words for the edges plus the states; time is one
// transition per edge.
//
// The zero value is ready to use. Safe for concurrent use.
type ReachableDP[F tensor.Float] struct {
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// M, if positive, restricts the search to the first M actions.
	M int
	// MaxNodes bounds the number of transitions out of any one layer
	// (|𝒮_t|·M, stored before merging); 0 means 1<<24.
	MaxNodes int
}

// layer is a set of encoded states in one arena.
type layer struct {
	arena []int32
	off   []int // len n+1
}

func (l *layer) n() int           { return len(l.off) - 1 }
func (l *layer) at(u int) []int32 { return l.arena[l.off[u]:l.off[u+1]] }
func (l *layer) push(s []int32)   { l.arena = append(l.arena, s...); l.off = append(l.off, len(l.arena)) }
func newLayer() layer             { return layer{off: []int{0}} }

// Solve runs the DP. It returns an error if the problem has no actions, M
// exceeds their number, a layer would exceed MaxNodes transitions, a
// transition fails (OutOfGrid = Fail), or ctx is cancelled.
func (s ReachableDP[F]) Solve(ctx context.Context, p *Problem[F]) (*Solution[F], error) {
	start := time.Now()
	M, err := p.resolveM(s.M)
	if err != nil {
		return nil, err
	}
	maxNodes := s.MaxNodes
	if maxNodes <= 0 {
		maxNodes = 1 << 24
	}
	T := p.horizon
	r := &reachRun[F]{p: p, M: M, maxNodes: maxNodes, W: resolveWorkers(s.Workers),
		layers: make([]layer, T), edges: make([][]int32, T)}
	r.ws = make([]*work[F], r.W)
	r.st.Nodes = 1
	r.layers[0] = newLayer()
	r.layers[0].push(p.s0)
	for t := 0; t < T-1; t++ {
		if err := r.expand(ctx, t); err != nil {
			return nil, err
		}
	}
	costs, err := r.leaves(ctx)
	if err != nil {
		return nil, err
	}
	vals, args := r.backward(costs)
	sol := r.solution(vals, args)
	if err := p.complete(sol, p.s0, p.general, false, start); err != nil {
		return nil, err
	}
	return sol, nil
}

// reachRun is the state of one ReachableDP.Solve: the layers 𝒮_t of
// reachable states, the edges between them and the per-worker scratch.
type reachRun[F tensor.Float] struct {
	p           *Problem[F]
	M, maxNodes int
	W           int        // workers
	ws          []*work[F] // per-worker scratch, built on first use
	layers      []layer    // 𝒮_0, …, 𝒮_{T−1}
	edges       [][]int32  // edges[t][u·M+j] = index in layer t+1 (t < T−1)
	st          Stats
}

// work returns worker wi's scratch.
func (r *reachRun[F]) work(wi int) *work[F] {
	if r.ws[wi] == nil {
		r.ws[wi] = r.p.newWork()
	}
	return r.ws[wi]
}

// checkLayer returns an error if layer t has more transitions than
// MaxNodes.
func (r *reachRun[F]) checkLayer(t int) error {
	n := r.layers[t].n()
	if n*r.M > r.maxNodes || n > r.maxNodes/r.M {
		return fmt.Errorf("%w: layer %d has %d states × %d actions, more than MaxNodes = %d transitions", icrl.ErrInvalid, t, n, r.M, r.maxNodes)
	}
	return nil
}

// expand builds layer t+1 from layer t: every transition in parallel
// chunks, then the distinct successors in transition order, merging equal
// states.
func (r *reachRun[F]) expand(ctx context.Context, t int) error {
	if err := r.checkLayer(t); err != nil {
		return err
	}
	p, M, L := r.p, r.M, &r.layers[t]
	n := L.n()
	chunks := blocks(0, n*M, 8*r.W)
	type chunk struct {
		l        layer
		out, cnt int64
	}
	res := make([]chunk, len(chunks))
	err := parallel.Items(ctx, r.W, len(chunks), func(wi, it int) error {
		w := r.work(wi)
		c := &res[it]
		c.l = newLayer()
		var buf []int32
		for e := chunks[it][0]; e < chunks[it][1]; e++ {
			u, j := e/M, e%M
			var out, sn int
			buf, out, sn = p.step(buf, L.at(u), t, j, w)
			if out > 0 && p.oog == Fail {
				return p.failErr(t, j)
			}
			c.out += int64(out)
			c.cnt += int64(sn)
			c.l.push(buf)
		}
		return nil
	})
	if err != nil {
		return err
	}
	next := newLayer()
	index := make(map[string]int32)
	r.edges[t] = make([]int32, n*M)
	var key []byte
	e := 0
	for i := range res {
		c := &res[i]
		r.st.Outside += c.out
		r.st.Snapped += c.cnt
		for v := 0; v < c.l.n(); v++ {
			s := c.l.at(v)
			key = appendKey(key[:0], s)
			id, ok := index[string(key)]
			if ok {
				r.st.Merged++
			} else {
				id = int32(next.n())
				index[string(key)] = id
				next.push(s)
			}
			r.edges[t][e] = id
			e++
		}
		c.l = layer{}
	}
	r.st.Nodes += int64(next.n())
	r.layers[t+1] = next
	return nil
}

// leaves returns the terminal costs of every transition out of 𝒮_{T−1},
// indexed u·M+j. Items are (state, block of actions), with blocks that do
// not depend on Workers; inside a block, a leaf that cannot beat the
// block's best so far is abandoned (exact, see Problem.leaf) and stored as
// +Inf, which never wins the lowest-index argmin of backward.
func (r *reachRun[F]) leaves(ctx context.Context) ([]float64, error) {
	p, M, T := r.p, r.M, r.p.horizon
	if err := r.checkLayer(T - 1); err != nil {
		return nil, err
	}
	L := &r.layers[T-1]
	n := L.n()
	bs := M
	if n < 16 {
		bs = max(1, (M+15)/16)
	}
	var items [][3]int
	for u := range n {
		for _, b := range blocks(0, M, (M+bs-1)/bs) {
			items = append(items, [3]int{u, b[0], b[1]})
		}
	}
	costs := make([]float64, n*M)
	outs := make([][3]int64, len(items))
	inf := math.Inf(1)
	err := parallel.Items(ctx, r.W, len(items), func(wi, it int) error {
		w := r.work(wi)
		u, lo, hi := items[it][0], items[it][1], items[it][2]
		best := inf
		for j := lo; j < hi; j++ {
			bound := best
			if p.oog == Fail {
				bound = inf
			}
			c, out, sn, ok := p.leaf(L.at(u), j, w, bound)
			if out > 0 && p.oog == Fail {
				return p.failErr(T-1, j)
			}
			outs[it][0] += int64(out)
			outs[it][1] += int64(sn)
			if !ok {
				outs[it][2]++
				c = inf
			}
			costs[u*M+j] = c
			best = min(best, c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, o := range outs {
		r.st.Outside += o[0]
		r.st.Snapped += o[1]
		r.st.Pruned += o[2]
	}
	r.st.Nodes += int64(n * M)
	r.st.Leaves = int64(n * M)
	r.st.Evaluated = r.st.Leaves
	return costs, nil
}

// backward runs backward induction (eq. (30)) over the layers: the value
// and the lowest-index optimal action of every reachable state.
func (r *reachRun[F]) backward(costs []float64) (vals [][]float64, args [][]int32) {
	M, T := r.M, r.p.horizon
	vals, args = make([][]float64, T), make([][]int32, T)
	argmin := func(n int, val func(u, j int) float64) ([]float64, []int32) {
		v := make([]float64, n)
		a := make([]int32, n)
		for u := range n {
			bv, ba := val(u, 0), 0
			for j := 1; j < M; j++ {
				if c := val(u, j); c < bv {
					bv, ba = c, j
				}
			}
			v[u], a[u] = bv, int32(ba)
		}
		return v, a
	}
	vals[T-1], args[T-1] = argmin(r.layers[T-1].n(), func(u, j int) float64 { return costs[u*M+j] })
	for t := T - 2; t >= 0; t-- {
		next := vals[t+1]
		ed := r.edges[t]
		vals[t], args[t] = argmin(r.layers[t].n(), func(u, j int) float64 { return next[ed[u*M+j]] })
	}
	return vals, args
}

// solution builds the closed-loop policy from the optimal actions of every
// reachable state and follows it from ŝ_0 for the open-loop sequence.
func (r *reachRun[F]) solution(vals [][]float64, args [][]int32) *Solution[F] {
	T := r.p.horizon
	sol := &Solution[F]{Value: vals[0][0], Actions: make([]int, T), Policy: newClosedLoop(T, r.p.general), Stats: r.st}
	var key []byte
	for t := range T {
		tab := sol.Policy.Tables[t]
		for u := range r.layers[t].n() {
			key = appendKey(key[:0], r.layers[t].at(u))
			tab[string(key)] = args[t][u]
		}
	}
	u := 0
	for t := range T {
		sol.Actions[t] = int(args[t][u])
		if t < T-1 {
			u = int(r.edges[t][u*r.M+sol.Actions[t]])
		}
	}
	return sol
}
