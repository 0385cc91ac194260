package control

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/tensor"
)

// This file holds what the solvers of Algorithm 1 share: the solution
// type, the closed-loop policy and its forward pass (lines 17–24), the
// ordered parallel loop, and the depth-first solver.

// Solver computes 𝔆_{ℓ,n,m,0}(ŝ_0) and an optimal policy of a [Problem]
// (Theorem 13, eq. (30)–(31)).
type Solver[F tensor.Float] interface {
	Solve(ctx context.Context, p *Problem[F]) (*Solution[F], error)
}

// Stats describes the work of a solve.
type Stats struct {
	// Nodes is the number of states generated: the root plus one per
	// transition computed (after merging for ReachableDP and
	// FullEnumeration; for Nested, the whole tree of the current level).
	// For DepthFirst and Nested at T = 2 it is 1 + M + M².
	Nodes int64
	// Leaves is the number of terminal costs in the search (M^T without
	// merging).
	Leaves int64
	// Evaluated is the number of terminal costs computed by this call;
	// it equals Leaves except for Nested, which reuses earlier levels.
	Evaluated int64
	// Merged counts transitions that reached an already-known state
	// (ReachableDP), or transposition-table hits (DepthFirst).
	Merged int64
	// Pruned counts the evaluated leaves abandoned early because their
	// partial cost already reached a bound (DepthFirst and Nested; exact,
	// see [DepthFirst]).
	Pruned int64
	// Snapped is the number of tokens (atoms) snapped to a grid by the
	// transitions counted in Nodes; Outside is how many of them lay
	// outside the grid's box (counted with OutOfGrid = SnapAndCount only),
	// and OutOfGrid = Outside/Snapped.
	Snapped, Outside int64
	OutOfGrid        float64
	// Elapsed is the wall time of the call.
	Elapsed time.Duration
}

func (s *Stats) add(o Stats) {
	s.Nodes += o.Nodes
	s.Leaves += o.Leaves
	s.Evaluated += o.Evaluated
	s.Merged += o.Merged
	s.Pruned += o.Pruned
	s.Snapped += o.Snapped
	s.Outside += o.Outside
}

func (s *Stats) finish(p interface{ countOutside() bool }, start time.Time) {
	if !p.countOutside() {
		s.Outside = 0
	}
	if s.Snapped > 0 {
		s.OutOfGrid = float64(s.Outside) / float64(s.Snapped)
	}
	s.Elapsed = time.Since(start)
}

func (p *Problem[F]) countOutside() bool { return p.oog == SnapAndCount }

// Solution is the output of a solver: the optimal value at the initial
// state, the open-loop action sequence and weights (the trained
// transformer, Algorithm 1 lines 17–24), the closed-loop policy and the trajectory.
type Solution[F tensor.Float] struct {
	// Value is 𝔆_{ℓ,n,m,0}(ŝ_0) = min over 𝕌_m^T of eq. (31) (squared once,
	// see the package doc): the quantised training error per token.
	Value float64
	// Actions are the open-loop action indices j_0, …, j_{T−1}, the
	// lowest-index optimal sequence in lexicographic order (the paper
	// leaves ties open).
	Actions []int
	// Weights are copies of U^{j_0}, …, U^{j_{T−1}}: deploy them with
	// [Block.Forward] or [EvalContinuous].
	Weights []Action[F]
	// Policy is the closed-loop policy γ_t ("list of dictionaries").
	Policy ClosedLoop
	// Trajectory is ŝ_0, …, ŝ_T along Actions, in the solver's
	// representation.
	Trajectory []State
	Stats      Stats
}

// ClosedLoop is a deterministic Markov policy of the quantized MDP: for
// each time t < T, a map from a state's key ([State.AppendKey]) to the
// action index chosen there (the paper's "list of dictionaries", §6).
// General says whether the keys are those of [GeneralState]s (else
// [NTypeState]s).
type ClosedLoop struct {
	Tables  []map[string]int32
	General bool
}

// Lookup returns γ_t(s) and whether s is in the table of time t.
func (c ClosedLoop) Lookup(t int, s State) (int, bool) {
	if t < 0 || t >= len(c.Tables) || s == nil {
		return 0, false
	}
	j, ok := c.Tables[t][string(s.AppendKey(nil))]
	return int(j), ok
}

func newClosedLoop(T int, general bool) ClosedLoop {
	c := ClosedLoop{Tables: make([]map[string]int32, T), General: general}
	for t := range c.Tables {
		c.Tables[t] = make(map[string]int32)
	}
	return c
}

// OpenLoop runs the forward pass of Algorithm 1 (lines 17–24): from s0, at
// each time t it reads U_t = γ_t(ŝ_t) from the policy and moves to
// ŝ_{t+1} = 𝚽^(ℓ,n,m)(ŝ_t, U_t). It returns the open-loop action indices
// and the terminal cost 𝔆_T(ŝ_T) reached, which equals the solution's
// Value when s0 is [Problem.Init]. An N-type s0 is converted for a policy
// over general states. It returns an error if a state along the way is
// not in the policy's table, s0 is malformed, or a transition fails.
func OpenLoop[F tensor.Float](c ClosedLoop, p *Problem[F], s0 State) ([]int, float64, error) {
	T := p.horizon
	if len(c.Tables) != T {
		return nil, 0, fmt.Errorf("%w: policy has %d tables, want T = %d", icrl.ErrInvalid, len(c.Tables), T)
	}
	enc, general, err := p.decode(0, s0)
	if err != nil {
		return nil, 0, err
	}
	if c.General && !general {
		enc, general = p.toGeneral(nil, enc, 0), true
	}
	if !c.General && general {
		return nil, 0, fmt.Errorf("%w: general state for a policy over N-type states", icrl.ErrInvalid)
	}
	w := p.newWork()
	acts := make([]int, T)
	var key []byte
	for t := range T {
		key = appendKey(key[:0], enc)
		j, ok := c.Tables[t][string(key)]
		if !ok {
			return nil, 0, fmt.Errorf("%w: the state at time %d is not in the policy's table", icrl.ErrInvalid, t)
		}
		if j < 0 || int(j) >= len(p.actions) {
			return nil, 0, fmt.Errorf("%w: policy action %d at time %d outside [0, %d)", icrl.ErrInvalid, j, t, len(p.actions))
		}
		acts[t] = int(j)
		var out int
		enc, out = p.stepAny(enc, t, int(j), general, w)
		if out > 0 && p.oog == Fail {
			return nil, 0, p.failErr(t, int(j))
		}
	}
	if general {
		return acts, p.terminalG(enc, w), nil
	}
	return acts, p.terminalN(enc, w), nil
}

// stepAny steps an encoding of either representation into a new slice.
func (p *Problem[F]) stepAny(src []int32, t, j int, general bool, w *work[F]) ([]int32, int) {
	if general {
		dst, out, _ := p.stepG(nil, src, t, j, w)
		return dst, out
	}
	dst := make([]int32, len(src))
	return dst, p.stepN(dst, src, t, j, w)
}

// complete fills Actions' weights and the trajectory of sol (in the given
// representation, starting from s0), adds the trajectory to the policy
// tables when addPolicy is set, and finishes the stats.
func (p *Problem[F]) complete(sol *Solution[F], s0 []int32, general, addPolicy bool, start time.Time) error {
	T := p.horizon
	sol.Weights = make([]Action[F], T)
	sol.Trajectory = make([]State, 0, T+1)
	w := p.newWork()
	enc := s0
	sol.Trajectory = append(sol.Trajectory, p.state(enc, general))
	for t, j := range sol.Actions {
		sol.Weights[t] = *p.actions[j].Clone()
		if addPolicy {
			sol.Policy.Tables[t][string(appendKey(nil, enc))] = int32(j)
		}
		var out int
		enc, out = p.stepAny(enc, t, j, general, w)
		if out > 0 && p.oog == Fail {
			return p.failErr(t, j)
		}
		sol.Trajectory = append(sol.Trajectory, p.state(enc, general))
	}
	sol.Stats.finish(p, start)
	return nil
}

// resolveM returns the number of actions a solver uses.
func (p *Problem[F]) resolveM(m int) (int, error) {
	M := len(p.actions)
	if m < 0 || m > M {
		return 0, fmt.Errorf("%w: solver asks for the first %d actions, the problem has %d", icrl.ErrInvalid, m, M)
	}
	if m > 0 {
		M = m
	}
	if M == 0 {
		return 0, fmt.Errorf("%w: empty action set", icrl.ErrInvalid)
	}
	return M, nil
}

func resolveWorkers(w int) int {
	if w <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// blocks splits [lo, hi) into about parts contiguous blocks.
func blocks(lo, hi, parts int) [][2]int {
	n := hi - lo
	if n <= 0 {
		return nil
	}
	parts = max(1, min(parts, n))
	size := (n + parts - 1) / parts
	var out [][2]int
	for a := lo; a < hi; a += size {
		out = append(out, [2]int{a, min(a+size, hi)})
	}
	return out
}

// ---------------------------------------------------------------------------
// Depth-first search

// DepthFirst solves the quantized MDP by exhaustive depth-first search over
// 𝕌_m^T from the initial state: 𝔆_t(s) = min_j 𝔆_{t+1}(𝚽(s, U^j)) with the
// lowest index on ties. This is the reachable-set DP of [ReachableDP]
// (exact at ŝ_0) without storing the layers: memory is O(T·K·N) per
// worker, plus the optional transposition table. The subtrees of the
// first-layer actions are solved in parallel with per-worker scratch and
// reduced in index order, so results (and Stats) do not depend on Workers.
// Time is O(M^T · K · N²) (one transition per tree edge, the last layer
// fused with the terminal cost).
//
// Branch and bound: the terminal cost is a sum of non-negative per-sample
// terms, so a leaf is abandoned as soon as its partial sum reaches the
// best value found so far in the same first-layer subtree (and a subtree
// returns early when none of its leaves can get below it). This is exact:
// a completed cost is bit-identical to the unbounded one, and a leaf is
// only abandoned when it can neither beat nor tie-break ahead of the
// incumbent (which has a lower index). It typically skips most of the
// work; Stats.Pruned counts the abandoned leaves. Pruning is off with
// FullPolicy (every visited state needs its exact value) and with
// OutOfGrid = Fail (every transition must be checked).
//
// The zero value is ready to use. Safe for concurrent use.
type DepthFirst[F tensor.Float] struct {
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// M, if positive, restricts the search to the first M actions.
	M int
	// Table bounds the entries of a transposition table keyed by (t, state)
	// that reuses the value of a state reached again through another
	// action prefix. One table per first-layer subtree
	// (cleared between subtrees, so Stats stay schedule-independent); 0
	// disables it. Each entry holds a K·N-word key.
	Table int
	// FullPolicy records γ_t at every visited state of times < T (M^{T−1}
	// entries at time T−1); otherwise the policy holds the optimal
	// trajectory only, which is all the forward pass from ŝ_0 needs.
	FullPolicy bool
}

type ttEntry struct {
	val  float64
	acts []int32
}

// dfs is the per-worker state of DepthFirst.
type dfs[F tensor.Float] struct {
	p      *Problem[F]
	ctx    context.Context
	M, T   int
	w      *work[F]
	bufs   [][]int32
	tails  [][]int32
	tt     map[string]ttEntry
	ttMax  int
	key    []byte
	st     Stats
	policy []map[string]int32
}

func newDFS[F tensor.Float](ctx context.Context, p *Problem[F], M, ttMax int, full bool) *dfs[F] {
	T := p.horizon
	d := &dfs[F]{p: p, ctx: ctx, M: M, T: T, w: p.newWork(), ttMax: ttMax,
		bufs: make([][]int32, T+1), tails: make([][]int32, T+1)}
	for t := range d.tails {
		d.tails[t] = make([]int32, T)
	}
	if ttMax > 0 {
		d.tt = make(map[string]ttEntry)
	}
	if full {
		d.policy = make([]map[string]int32, T)
		for t := range d.policy {
			d.policy[t] = make(map[string]int32)
		}
	}
	return d
}

// bound returns b, or +Inf when pruning is off (full policy, Fail mode).
func (d *dfs[F]) bound(b float64) float64 {
	if d.policy != nil || d.p.oog == Fail {
		return math.Inf(1)
	}
	return b
}

func (d *dfs[F]) record(t int, s []int32, j int) {
	if d.policy != nil {
		d.key = appendKey(d.key[:0], s)
		d.policy[t][string(d.key)] = int32(j)
	}
}

// solve returns 𝔆_t(s) for the state s at time t < T and writes the
// optimal actions of times t, …, T−1 to best[t:], if 𝔆_t(s) < bound;
// otherwise it returns some value ≥ bound (+Inf when nothing was
// completed) and best is meaningless.
func (d *dfs[F]) solve(t int, s []int32, best []int32, bound float64) (float64, error) {
	p := d.p
	inf := math.Inf(1)
	if t == d.T-1 {
		bv, ba := inf, -1
		for j := range d.M {
			c, out, n, ok := p.leaf(s, j, d.w, d.bound(min(bound, bv)))
			d.st.Nodes++
			d.st.Leaves++
			d.st.Snapped += int64(n)
			d.st.Outside += int64(out)
			if out > 0 && p.oog == Fail {
				return 0, p.failErr(t, j)
			}
			if !ok {
				d.st.Pruned++
				continue
			}
			if c < bv {
				bv, ba = c, j
			}
		}
		best[t] = int32(max(ba, 0))
		if ba >= 0 {
			d.record(t, s, ba)
		}
		return bv, nil
	}
	if err := d.ctx.Err(); err != nil {
		return 0, err
	}
	var tkey string
	if d.tt != nil {
		d.key = appendKey(append(d.key[:0], byte(t)), s)
		if e, ok := d.tt[string(d.key)]; ok {
			d.st.Merged++
			copy(best[t:], e.acts)
			return e.val, nil
		}
		tkey = string(d.key)
	}
	cur := d.tails[t+1]
	bv, ba := inf, -1
	for j := range d.M {
		var out, n int
		d.bufs[t+1], out, n = p.step(d.bufs[t+1], s, t, j, d.w)
		d.st.Nodes++
		d.st.Snapped += int64(n)
		d.st.Outside += int64(out)
		if out > 0 && p.oog == Fail {
			return 0, p.failErr(t, j)
		}
		v, err := d.solve(t+1, d.bufs[t+1], cur, d.bound(min(bound, bv)))
		if err != nil {
			return 0, err
		}
		if v < bv {
			bv, ba = v, j
			copy(best[t+1:], cur[t+1:])
		}
	}
	best[t] = int32(max(ba, 0))
	if ba >= 0 {
		d.record(t, s, ba)
	}
	if d.tt != nil && bv < bound && len(d.tt) < d.ttMax {
		d.tt[tkey] = ttEntry{val: bv, acts: append([]int32(nil), best[t:]...)}
	}
	return bv, nil
}

// Solve runs the search. It returns an error if the problem has no
// actions, M exceeds their number, a transition fails (OutOfGrid = Fail),
// or ctx is cancelled.
func (s DepthFirst[F]) Solve(ctx context.Context, p *Problem[F]) (*Solution[F], error) {
	start := time.Now()
	M, err := p.resolveM(s.M)
	if err != nil {
		return nil, err
	}
	T := p.horizon
	W := resolveWorkers(s.Workers)
	type result struct {
		val  float64
		acts []int32
		st   Stats
	}
	var items [][2]int // T = 1: action blocks; T ≥ 2: one first action each
	if T == 1 {
		items = blocks(0, M, 4*W)
	} else {
		for j := range M {
			items = append(items, [2]int{j, j + 1})
		}
	}
	res := make([]result, len(items))
	workers := make([]*dfs[F], W)
	err = parallel.Items(ctx, W, len(items), func(wi, it int) error {
		d := workers[wi]
		if d == nil {
			d = newDFS(ctx, p, M, s.Table, s.FullPolicy)
			workers[wi] = d
		}
		d.st = Stats{}
		if d.tt != nil {
			clear(d.tt)
		}
		r := &res[it]
		r.acts = make([]int32, T)
		lo, hi := items[it][0], items[it][1]
		if T == 1 {
			bv, ba := math.Inf(1), -1
			for j := lo; j < hi; j++ {
				c, out, n, ok := p.leaf(p.s0, j, d.w, d.bound(bv))
				d.st.Nodes++
				d.st.Leaves++
				d.st.Snapped += int64(n)
				d.st.Outside += int64(out)
				if out > 0 && p.oog == Fail {
					return p.failErr(0, j)
				}
				if !ok {
					d.st.Pruned++
					continue
				}
				if c < bv {
					bv, ba = c, j
				}
			}
			r.val, r.acts[0] = bv, int32(max(ba, 0))
		} else {
			var out, n int
			d.bufs[1], out, n = p.step(d.bufs[1], p.s0, 0, lo, d.w)
			d.st.Nodes++
			d.st.Snapped += int64(n)
			d.st.Outside += int64(out)
			if out > 0 && p.oog == Fail {
				return p.failErr(0, lo)
			}
			v, err := d.solve(1, d.bufs[1], r.acts, d.bound(math.Inf(1)))
			if err != nil {
				return err
			}
			r.val, r.acts[0] = v, int32(lo)
		}
		r.st = d.st
		return nil
	})
	if err != nil {
		return nil, err
	}
	sol := &Solution[F]{Policy: newClosedLoop(T, p.general)}
	sol.Stats.Nodes = 1
	best := -1
	for i := range res {
		sol.Stats.add(res[i].st)
		if best < 0 || res[i].val < res[best].val {
			best = i
		}
	}
	sol.Stats.Evaluated = sol.Stats.Leaves
	sol.Value = res[best].val
	sol.Actions = make([]int, T)
	for t, a := range res[best].acts {
		sol.Actions[t] = int(a)
	}
	if s.FullPolicy {
		for _, d := range workers {
			if d == nil {
				continue
			}
			for t, m := range d.policy {
				for k, v := range m {
					sol.Policy.Tables[t][k] = v
				}
			}
		}
	}
	if err := p.complete(sol, p.s0, p.general, true, start); err != nil {
		return nil, err
	}
	return sol, nil
}
