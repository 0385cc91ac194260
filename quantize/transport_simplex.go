package quantize

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/icrl-go/icrl"
)

// transportLP returns min Σ_ij c_ij x_ij subject to Σ_j x_ij = a_i,
// Σ_i x_ij = b_j, x ≥ 0, for c an m×n row-major matrix of finite
// non-negative costs and a, b of (nearly) equal positive sums; see
// [Cost.W2Sq] for the method.
//
// The costs are scaled in place to [0, 1] by their maximum (so that no
// potential overflows) and the value scaled back.
func transportLP(c []float64, a, b []float64) (float64, error) {
	m, n := len(a), len(b)
	maxc := 0.0
	for _, v := range c {
		maxc = max(maxc, math.Abs(v))
	}
	if maxc == 0 {
		return 0, nil
	}
	for k := range c {
		c[k] /= maxc
	}
	if m == 1 || n == 1 {
		s := 0.0
		for i := range m {
			for j := range n {
				w := b[j]
				if n == 1 {
					w = a[i]
				}
				s += c[i*n+j] * w
			}
		}
		return s * maxc, nil
	}
	ts := newTransportSimplex(c, a, b)
	maxIter := 10000 + 50*ts.nodes*ts.nodes
	for iter := 0; ; iter++ {
		if iter > maxIter {
			return 0, fmt.Errorf("%w: transportation simplex did not converge in %d pivots (%d×%d)", icrl.ErrInvalid, maxIter, m, n)
		}
		if !ts.potentials() {
			// Not a spanning tree: only possible if round-off upset the
			// least-cost start; restart from the north-west corner.
			if iter > 0 || ts.nwStart {
				return 0, fmt.Errorf("%w: transportation simplex lost its spanning tree (%d×%d)", icrl.ErrInvalid, m, n)
			}
			ts.cells, ts.x = northWestBasis(a, b)
			ts.setNodes()
			ts.nwStart = true
			iter = -1
			continue
		}
		enter := ts.price()
		if enter < 0 {
			break
		}
		ts.pivot(enter)
	}
	total := 0.0
	for s, e := range ts.cells {
		total += c[e] * ts.x[s]
	}
	return max(total, 0) * maxc, nil
}

// transportSimplex is the state of the transportation simplex of
// [transportLP]: a spanning-tree basis of m+n−1 cells over the m row
// nodes and n column nodes (numbered m+j), its flows, and scratch.
type transportSimplex struct {
	c              []float64 // m×n costs, scaled to [0, 1]
	m, n, nodes    int
	cells          []int     // basic cells i·n+j
	x              []float64 // their flows
	rowOf, colOf   []int     // the tree nodes (row i, column m+j) of basic cell s
	deg, fill, adj []int     // CSR adjacency of the tree
	pot            []float64 // potentials u_i (rows), v_j (columns)
	parent, pslot  []int     // BFS tree: parent node and the cell joining them
	depth          []int
	seen           []bool
	queue, path    []int
	back           []int
	degenerate     int  // consecutive degenerate pivots
	bland, nwStart bool // Bland's rule in force; restarted from the north-west corner
}

// newTransportSimplex starts from the least-cost basis.
func newTransportSimplex(c, a, b []float64) *transportSimplex {
	m, n := len(a), len(b)
	nb, nodes := m+n-1, m+n
	ts := &transportSimplex{c: c, m: m, n: n, nodes: nodes,
		rowOf: make([]int, nb), colOf: make([]int, nb),
		deg: make([]int, nodes+1), fill: make([]int, 0, nodes), adj: make([]int, 2*nb),
		pot: make([]float64, nodes), parent: make([]int, nodes), pslot: make([]int, nodes),
		depth: make([]int, nodes), seen: make([]bool, nodes),
		queue: make([]int, 0, nodes), path: make([]int, 0, nodes), back: make([]int, 0, nodes),
	}
	ts.cells, ts.x = leastCostBasis(c, a, b)
	ts.setNodes()
	return ts
}

// setNodes recomputes rowOf and colOf from cells.
func (ts *transportSimplex) setNodes() {
	for s, e := range ts.cells {
		ts.rowOf[s], ts.colOf[s] = e/ts.n, ts.m+e%ts.n
	}
}

// potentials builds the tree's adjacency and solves u_i + v_j = c_ij on
// the basic cells with u_0 = 0, by breadth-first search from row 0,
// recording each node's parent, joining cell and depth. It reports whether
// the basis spans every node.
func (ts *transportSimplex) potentials() bool {
	deg, nodes := ts.deg, ts.nodes
	clear(deg)
	for s := range ts.cells {
		deg[ts.rowOf[s]+1]++
		deg[ts.colOf[s]+1]++
	}
	for k := 1; k <= nodes; k++ {
		deg[k] += deg[k-1]
	}
	ts.fill = append(ts.fill[:0], deg[:nodes]...)
	for s := range ts.cells {
		r, q := ts.rowOf[s], ts.colOf[s]
		ts.adj[ts.fill[r]] = s
		ts.fill[r]++
		ts.adj[ts.fill[q]] = s
		ts.fill[q]++
	}
	clear(ts.seen)
	ts.queue = append(ts.queue[:0], 0)
	ts.seen[0], ts.pot[0], ts.depth[0], ts.parent[0] = true, 0, 0, -1
	for h := 0; h < len(ts.queue); h++ {
		u := ts.queue[h]
		for _, s := range ts.adj[deg[u]:deg[u+1]] {
			r, q := ts.rowOf[s], ts.colOf[s]
			w := q
			if u == q {
				w = r
			}
			if ts.seen[w] {
				continue
			}
			ts.seen[w] = true
			ts.pot[w] = ts.c[ts.cells[s]] - ts.pot[u]
			ts.parent[w], ts.pslot[w], ts.depth[w] = u, s, ts.depth[u]+1
			ts.queue = append(ts.queue, w)
		}
	}
	return len(ts.queue) == nodes
}

// price returns the entering cell, the most negative reduced cost below
// −1e-12 (the first such cell under Bland's rule), or −1 at the optimum.
func (ts *transportSimplex) price() int {
	m, n := ts.m, ts.n
	enter, best := -1, -1e-12
	for i := 0; i < m && !(ts.bland && enter >= 0); i++ {
		ui, row := ts.pot[i], ts.c[i*n:(i+1)*n]
		for j, cij := range row {
			if rc := cij - ui - ts.pot[m+j]; rc < best {
				enter = i*n + j
				if ts.bland {
					break
				}
				best = rc
			}
		}
	}
	return enter
}

// pivot brings cell enter into the basis: it finds the cycle through the
// tree (the entering cell, then the tree path from its column to its row,
// signs alternating −, +, …, −), moves the largest flow θ around it and
// drops the lowest-index cell that reaches zero. After more than m+n
// degenerate pivots in a row it switches to Bland's rule.
func (ts *transportSimplex) pivot(enter int) {
	m, n := ts.m, ts.n
	path, back := ts.path[:0], ts.back[:0]
	u, w := m+enter%n, enter/n
	for ts.depth[u] > ts.depth[w] {
		path = append(path, ts.pslot[u])
		u = ts.parent[u]
	}
	for ts.depth[w] > ts.depth[u] {
		back = append(back, ts.pslot[w])
		w = ts.parent[w]
	}
	for u != w {
		path = append(path, ts.pslot[u])
		u = ts.parent[u]
		back = append(back, ts.pslot[w])
		w = ts.parent[w]
	}
	for k := len(back) - 1; k >= 0; k-- {
		path = append(path, back[k])
	}
	ts.path, ts.back = path, back
	x, cells := ts.x, ts.cells
	leave, theta := -1, math.Inf(1)
	for k := 0; k < len(path); k += 2 {
		s := path[k]
		if x[s] < theta || (x[s] == theta && cells[s] < cells[leave]) {
			leave, theta = s, x[s]
		}
	}
	for k, s := range path {
		if k%2 == 0 {
			x[s] -= theta
		} else {
			x[s] += theta
		}
	}
	cells[leave], x[leave] = enter, theta
	ts.rowOf[leave], ts.colOf[leave] = enter/n, m+enter%n
	if theta == 0 {
		ts.degenerate++
		if ts.degenerate > ts.nodes {
			ts.bland = true
		}
	} else {
		ts.degenerate, ts.bland = 0, false
	}
}

// leastCostBasis returns a starting spanning-tree basis (m+n−1 cells
// i*n+j and their flows) by the matrix-minimum rule: cells in increasing
// cost (ties by index) get as much flow as their row and column have left,
// and each allocation closes exactly one line (both at the last one), so
// the cells form a spanning tree. It costs O(mn log mn).
func leastCostBasis(c, a, b []float64) ([]int, []float64) {
	m, n := len(a), len(b)
	type ce struct {
		c float64
		e int
	}
	order := make([]ce, m*n)
	for k := range order {
		order[k] = ce{c[k], k}
	}
	slices.SortFunc(order, func(p, q ce) int {
		if p.c != q.c {
			return cmp.Compare(p.c, q.c)
		}
		return p.e - q.e
	})
	ra, rb := append([]float64(nil), a...), append([]float64(nil), b...)
	rowOpen, colOpen := make([]bool, m), make([]bool, n)
	for i := range rowOpen {
		rowOpen[i] = true
	}
	for j := range colOpen {
		colOpen[j] = true
	}
	rows, cols := m, n
	cells := make([]int, 0, m+n-1)
	x := make([]float64, 0, m+n-1)
	for _, o := range order {
		e := o.e
		i, j := e/n, e%n
		if !rowOpen[i] || !colOpen[j] {
			continue
		}
		f := max(0, min(ra[i], rb[j]))
		cells = append(cells, e)
		x = append(x, f)
		ra[i] -= f
		rb[j] -= f
		if rows == 1 && cols == 1 {
			break
		}
		if cols == 1 || (rows > 1 && ra[i] <= rb[j]) {
			rowOpen[i] = false
			rows--
		} else {
			colOpen[j] = false
			cols--
		}
	}
	return cells, x
}

// northWestBasis returns the north-west corner spanning-tree basis.
func northWestBasis(a, b []float64) ([]int, []float64) {
	m, n := len(a), len(b)
	cells := make([]int, 0, m+n-1)
	x := make([]float64, 0, m+n-1)
	ra, rb := append([]float64(nil), a...), append([]float64(nil), b...)
	for i, j := 0, 0; ; {
		f := max(0, min(ra[i], rb[j]))
		cells = append(cells, i*n+j)
		x = append(x, f)
		ra[i] -= f
		rb[j] -= f
		if i == m-1 && j == n-1 {
			return cells, x
		}
		if j == n-1 || (i < m-1 && ra[i] <= rb[j]) {
			i++
		} else {
			j++
		}
	}
}
