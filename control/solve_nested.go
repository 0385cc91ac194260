package control

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/tensor"
)

// Nested solves the quantized MDP for growing nested action sets 𝕌_{M_1} ⊂
// 𝕌_{M_2} ⊂ … (the first M_1 actions of the problem, then the first M_2, …),
// as in the paper's §6 experiment (levels 10, 20, …, 100), reusing the work
// of earlier levels. It keeps the search tree of action
// prefixes of length < T with their states and subtree optima; going from
// M_old to M_new evaluates only the new leaves, M_new^T − M_old^T of them
// (for T = 2: the new second-layer actions under old first-layer actions,
// and every leaf under new first-layer actions), and re-minimises the
// stored nodes. The result at every level is bit-identical to
// [DepthFirst] with the same M (lowest index on ties), and the optimal
// value is non-increasing in M.
//
// Memory is one K·N-word state per stored node, Σ_{t<T} M^t nodes (no
// merging). First-layer subtrees are processed in parallel and reduced in
// index order, so results and Stats do not depend on Workers.
//
// A Nested must not be used by two goroutines at once.
type Nested[F tensor.Float] struct {
	p     *Problem[F]
	opt   NestedOptions
	sets  [][]int // per layer, the problem's action indices in use, in order
	root  *nnode
	nodes int64 // stored nodes
	cum   Stats // cumulative counts
}

// NestedOptions configures [NewNested].
type NestedOptions struct {
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// MaxNodes bounds the stored tree nodes Σ_{t<T} M^t; 0 means 1<<18
	// (about 150 MB at K·N = 140).
	MaxNodes int
	// FullPolicy records γ_t at every stored state; otherwise the policy
	// holds the optimal trajectory only.
	FullPolicy bool
}

type nnode struct {
	state []int32
	val   float64
	arg   int32 // -1 until evaluated
	kids  []*nnode
}

// NewNested returns an incremental solver for p with no actions yet.
func NewNested[F tensor.Float](p *Problem[F], opt NestedOptions) *Nested[F] {
	if opt.MaxNodes <= 0 {
		opt.MaxNodes = 1 << 18
	}
	return &Nested[F]{p: p, opt: opt, root: &nnode{state: p.s0, arg: -1}, nodes: 1}
}

// M returns the current action level (0 before the first Solve).
func (n *Nested[F]) M() int {
	if len(n.sets) == 0 {
		return 0
	}
	return len(n.sets[0])
}

// Sets returns, per layer, the problem's action indices the last solve
// used (copies).
func (n *Nested[F]) Sets() [][]int {
	out := make([][]int, len(n.sets))
	for t, s := range n.sets {
		out[t] = append([]int(nil), s...)
	}
	return out
}

// Solve extends the solution to the first m actions of the problem (m ≥
// the previous level; equal levels return the stored solution without new
// work). Stats.Evaluated counts the leaves evaluated by this call, the
// other counts describe the whole tree at level m, and Elapsed is this
// call's time. It returns an error if m is smaller than the current level
// or exceeds the problem's actions, the tree would exceed MaxNodes, a
// transition fails (OutOfGrid = Fail), or ctx is cancelled; after an error
// the solver must not be used again.
func (n *Nested[F]) Solve(ctx context.Context, m int) (*Solution[F], error) {
	p := n.p
	if m < n.M() && len(n.sets) > 0 {
		return nil, fmt.Errorf("%w: nested action level %d below the current level %d", icrl.ErrInvalid, m, n.M())
	}
	if m < 1 || m > len(p.actions) {
		return nil, fmt.Errorf("%w: nested action level %d outside [1, %d]", icrl.ErrInvalid, m, len(p.actions))
	}
	sets := make([][]int, p.horizon)
	for t := range sets {
		sets[t] = make([]int, m)
		for j := range sets[t] {
			sets[t][j] = j
		}
	}
	return n.SolveLayers(ctx, sets)
}

// SolveLayers solves the problem with a different action set per layer:
// layer t may use the problem's actions sets[t] (indices, in any order and
// without repeats), the open-loop optimum searched over their product. Every
// call must extend the previous one's sets (each previous sets[t] a prefix
// of the new one), so that the optimal value never increases and only the
// new leaves are evaluated, as in [Nested.Solve], which is SolveLayers with
// sets[t] = 0, …, m−1 for every layer. Ties go to the lowest position in
// the layers' lists. It returns an error if a set is empty, does not extend
// the previous one, repeats or exceeds the problem's actions, the tree
// would exceed MaxNodes, or ctx is cancelled.
func (n *Nested[F]) SolveLayers(ctx context.Context, sets [][]int) (*Solution[F], error) {
	start := time.Now()
	oldLen, err := n.checkSets(sets)
	if err != nil {
		return nil, err
	}
	res, err := n.growFirstLayer(ctx, sets, oldLen)
	if err != nil {
		return nil, err
	}
	var st Stats
	for i := range res {
		st.add(res[i].st)
		n.nodes += res[i].created
	}
	n.pickRoot(res, len(sets[0]))
	n.sets = make([][]int, len(sets)) // a copy: the caller may extend its sets in place
	for t, set := range sets {
		n.sets[t] = slices.Clone(set)
	}
	n.cum.add(st)
	sol := n.solution(sets, st)
	if err := n.p.complete(sol, n.p.s0, n.p.general, true, start); err != nil {
		return nil, err
	}
	return sol, nil
}

// checkSets validates the per-layer action sets of [Nested.SolveLayers]
// against the problem, the previous call's sets and MaxNodes, and returns
// the previous sets' lengths.
func (n *Nested[F]) checkSets(sets [][]int) ([]int, error) {
	p := n.p
	T := p.horizon
	if len(sets) != T {
		return nil, fmt.Errorf("%w: nested solve with %d per-layer sets for %d layers", icrl.ErrInvalid, len(sets), T)
	}
	oldLen := make([]int, T)
	for t, set := range sets {
		if len(set) == 0 {
			return nil, fmt.Errorf("%w: the action set of layer %d is empty", icrl.ErrInvalid, t)
		}
		seen := make(map[int]bool, len(set))
		for _, j := range set {
			if j < 0 || j >= len(p.actions) || seen[j] {
				return nil, fmt.Errorf("%w: the action set of layer %d has index %d (out of [0, %d) or repeated)", icrl.ErrInvalid, t, j, len(p.actions))
			}
			seen[j] = true
		}
		if len(n.sets) > 0 {
			old := n.sets[t]
			if len(set) < len(old) || !slices.Equal(set[:len(old)], old) {
				return nil, fmt.Errorf("%w: the action set of layer %d does not extend the previous one (%d actions)", icrl.ErrInvalid, t, len(old))
			}
			oldLen[t] = len(old)
		}
	}
	stored, pw := int64(0), int64(1)
	for t := range T {
		stored += pw
		if stored > int64(n.opt.MaxNodes) {
			return nil, fmt.Errorf("%w: nested tree with %d actions in layer %d would store more than MaxNodes = %d nodes", icrl.ErrInvalid, len(sets[t]), t, n.opt.MaxNodes)
		}
		pw *= int64(len(sets[t]))
	}
	return oldLen, nil
}

// subtreeResult is the optimum of one work item of growFirstLayer: a block
// of first actions when T = 1, one first-layer subtree otherwise.
type subtreeResult struct {
	val     float64
	arg     int
	st      Stats
	created int64
}

// growFirstLayer grows the tree in parallel, one work item per block of
// leaves (T = 1) or per first-layer subtree (T > 1), creating the
// first-layer children that are new.
func (n *Nested[F]) growFirstLayer(ctx context.Context, sets [][]int, oldLen []int) ([]subtreeResult, error) {
	p, T := n.p, n.p.horizon
	m, mOld := len(sets[0]), oldLen[0]
	W := resolveWorkers(n.opt.Workers)
	var items [][2]int
	if T == 1 {
		items = blocks(mOld, m, 4*W)
	} else {
		for j := range m {
			items = append(items, [2]int{j, j + 1})
		}
		if len(n.root.kids) < m {
			n.root.kids = append(n.root.kids, make([]*nnode, m-len(n.root.kids))...)
		}
	}
	res := make([]subtreeResult, len(items))
	ws := make([]*work[F], W)
	err := parallel.Items(ctx, W, len(items), func(wi, it int) error {
		if ws[wi] == nil {
			ws[wi] = p.newWork()
		}
		g := &grower[F]{p: p, ctx: ctx, w: ws[wi], T: T, sets: sets, old: oldLen}
		r := &res[it]
		lo, hi := items[it][0], items[it][1]
		if T == 1 {
			tmp := &nnode{arg: -1, state: n.root.state}
			if err := g.leaves(tmp, 0, lo, hi); err != nil {
				return err
			}
			r.val, r.arg = tmp.val, int(tmp.arg)
		} else {
			kid, fresh, err := n.firstChild(g, sets[0][lo], lo)
			if err != nil {
				return err
			}
			if err := g.grow(kid, 1, fresh); err != nil {
				return err
			}
			r.val, r.arg = kid.val, lo
		}
		r.st, r.created = g.st, g.created
		return nil
	})
	return res, err
}

// firstChild returns the root's child for first action j (at position pos
// of the first layer's set), creating it if it is new.
func (n *Nested[F]) firstChild(g *grower[F], j, pos int) (kid *nnode, fresh bool, err error) {
	if kid = n.root.kids[pos]; kid != nil {
		return kid, false, nil
	}
	buf, out, sn := n.p.step(nil, n.root.state, 0, j, g.w)
	g.st.Nodes++
	g.st.Snapped += int64(sn)
	g.st.Outside += int64(out)
	if out > 0 && n.p.oog == Fail {
		return nil, false, n.p.failErr(0, j)
	}
	kid = &nnode{state: buf, arg: -1}
	n.root.kids[pos] = kid
	g.created++
	return kid, true, nil
}

// pickRoot sets the root's value and lowest-position optimal action from
// the work items' results (T = 1) or its m children (T > 1).
func (n *Nested[F]) pickRoot(res []subtreeResult, m int) {
	root := n.root
	if n.p.horizon == 1 {
		for i := range res {
			if root.arg < 0 || res[i].val < root.val {
				root.val, root.arg = res[i].val, int32(res[i].arg)
			}
		}
		return
	}
	root.val, root.arg = root.kids[0].val, 0
	for j := 1; j < m; j++ {
		if v := root.kids[j].val; v < root.val {
			root.val, root.arg = v, int32(j)
		}
	}
}

// solution builds the Solution: the cumulative statistics with this
// call's evaluated leaves, the whole tree's size, the open-loop actions
// and, with FullPolicy, the policy tables over every stored node.
func (n *Nested[F]) solution(sets [][]int, st Stats) *Solution[F] {
	T := n.p.horizon
	root := n.root
	sol := &Solution[F]{Value: root.val, Actions: make([]int, T), Policy: newClosedLoop(T, n.p.general)}
	sol.Stats = n.cum
	sol.Stats.Evaluated = st.Leaves
	// Whole tree: Σ_{t≤T} m^t nodes, m^T leaves.
	sol.Stats.Nodes, sol.Stats.Leaves = 0, 1
	for t := range T {
		sol.Stats.Nodes += sol.Stats.Leaves
		sol.Stats.Leaves *= int64(len(sets[t]))
	}
	sol.Stats.Nodes += sol.Stats.Leaves
	nd := root
	for t := range T {
		sol.Actions[t] = sets[t][nd.arg]
		if t < T-1 {
			nd = nd.kids[nd.arg]
		}
	}
	if n.opt.FullPolicy {
		var key []byte
		var walk func(nd *nnode, t int)
		walk = func(nd *nnode, t int) {
			key = appendKey(key[:0], nd.state)
			sol.Policy.Tables[t][string(key)] = int32(sets[t][nd.arg])
			for _, k := range nd.kids {
				walk(k, t+1)
			}
		}
		walk(root, 0)
	}
	return sol
}

// grower extends subtrees on one goroutine.
type grower[F tensor.Float] struct {
	p       *Problem[F]
	ctx     context.Context
	w       *work[F]
	T       int
	sets    [][]int // per layer, the action indices by position
	old     []int   // per layer, the positions already searched
	st      Stats
	created int64
}

// leaves evaluates the leaf actions [lo, hi) of a node at time T−1. Leaves
// that cannot beat the node's best so far are abandoned early (exact:
// see Problem.leaf), unless OutOfGrid = Fail.
func (g *grower[F]) leaves(nd *nnode, t, lo, hi int) error {
	p := g.p
	set := g.sets[t]
	for pos := lo; pos < hi; pos++ {
		j := set[pos]
		bound := math.Inf(1)
		if nd.arg >= 0 && p.oog != Fail {
			bound = nd.val
		}
		c, out, sn, ok := p.leaf(nd.state, j, g.w, bound)
		g.st.Leaves++
		g.st.Snapped += int64(sn)
		g.st.Outside += int64(out)
		if out > 0 && p.oog == Fail {
			return p.failErr(g.T-1, j)
		}
		if !ok {
			g.st.Pruned++
			continue
		}
		if nd.arg < 0 || c < nd.val {
			nd.val, nd.arg = c, int32(pos)
		}
	}
	return nil
}

// grow extends the node nd at time t, whose subtree covers the first mOld
// actions at every layer, to the first m actions.
func (g *grower[F]) grow(nd *nnode, t int, fresh bool) error {
	from := func(t int) int {
		if fresh {
			return 0
		}
		return g.old[t]
	}
	if t == g.T-1 {
		return g.leaves(nd, t, from(t), len(g.sets[t]))
	}
	if err := g.ctx.Err(); err != nil {
		return err
	}
	p := g.p
	for pos := range from(t) {
		if err := g.grow(nd.kids[pos], t+1, false); err != nil {
			return err
		}
	}
	set := g.sets[t]
	for pos := from(t); pos < len(set); pos++ {
		j := set[pos]
		buf, out, sn := p.step(nil, nd.state, t, j, g.w)
		g.st.Nodes++
		g.st.Snapped += int64(sn)
		g.st.Outside += int64(out)
		if out > 0 && p.oog == Fail {
			return p.failErr(t, j)
		}
		kid := &nnode{state: buf, arg: -1}
		g.created++
		nd.kids = append(nd.kids, kid)
		if err := g.grow(kid, t+1, true); err != nil {
			return err
		}
	}
	nd.val, nd.arg = nd.kids[0].val, 0
	for pos := 1; pos < len(set); pos++ {
		if v := nd.kids[pos].val; v < nd.val {
			nd.val, nd.arg = v, int32(pos)
		}
	}
	return nil
}
