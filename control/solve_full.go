package control

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/icrl-go/icrl/internal/parallel"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/quantize"
	"github.com/icrl-go/icrl/tensor"
)

// FullEnumeration is the literal Algorithm 1 (lines 11–16): backward
// induction over every ensemble state of 𝒫^(ℓ)(𝕏_n)^K at every time, then
// the forward pass from ŝ_0. It works in the general representation
// whatever the problem's. The state space is the range of R_ℓ: all types
// with denominator ℓ on 𝕏_n = PE_N × S_n for quantize.ReznikMode (|𝒫^(ℓ)(𝕏_n)| =
// C(ℓ+NG−1, NG−1), eq. (22)); the types with ℓ/N units at every position for
// quantize.PositionPreservingMode. Its size is that count to the power K, so this is
// for tiny problems only (about 10^1428 states in the paper's §6 setting);
// it exists to check the other solvers (the tests compare them).
//
// Transitions act sample by sample, so they are tabulated per single-sample
// type and action; the ensemble DP is then table look-ups. Time is
// O(T·M·|𝒫|^K·K) after O(T·M·|𝒫|) transitions; memory O(T·|𝒫|^K) plus
// the policy tables (one key per state and time).
//
// With OutOfGrid = Fail, any enumerated transition leaving the grid is an
// error (most enumerated states are not reachable from the data).
//
// The zero value is ready to use. Safe for concurrent use.
type FullEnumeration[F tensor.Float] struct {
	// MaxStates bounds the number of ensemble states at one time; 0 means
	// 1<<20. Larger spaces are refused with an error before any work.
	MaxStates int
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// M, if positive, restricts the search to the first M actions.
	M int
}

// typeSpace is the set of single-sample types of one time.
type typeSpace struct {
	l     layer
	index map[string]int32
}

func (ts *typeSpace) add(enc []int32) {
	ts.index[string(appendKey(nil, enc))] = int32(ts.l.n())
	ts.l.push(enc)
}

// typeSpace enumerates the single-sample state space of time t (at most
// limit types).
func (p *Problem[F]) typeSpace(t, limit int) (*typeSpace, error) {
	G, N := p.gsize[t], p.N
	var count *big.Int
	if p.mq == quantize.PositionPreservingMode {
		count = new(big.Int).Exp(quantize.CountTypes(p.ell/N, G), big.NewInt(int64(N)), nil)
	} else {
		count = quantize.CountTypes(p.ell, N*G)
	}
	ens := new(big.Int).Exp(count, big.NewInt(int64(p.K)), nil)
	if !ens.IsInt64() || ens.Int64() > int64(limit) {
		return nil, fmt.Errorf("%w: full enumeration at time %d has %v^%d = %v ensemble states, more than MaxStates = %d", icrl.ErrInvalid, t, count, p.K, ens, limit)
	}
	ts := &typeSpace{l: newLayer(), index: make(map[string]int32, int(count.Int64()))}
	var enc []int32
	if p.mq == quantize.ReznikMode {
		quantize.EnumerateTypes(p.ell, N*G, func(r []int) bool {
			enc = enc[:0]
			enc = append(enc, 0)
			for a, c := range r {
				if c > 0 {
					enc = append(enc, int32(a), int32(c))
					enc[0]++
				}
			}
			ts.add(enc)
			return true
		})
		return ts, nil
	}
	// Position-preserving: per position a type with ℓ/N units on G points.
	var per [][]int32 // sparse (j, c) pairs
	quantize.EnumerateTypes(p.ell/N, G, func(r []int) bool {
		var s []int32
		for j, c := range r {
			if c > 0 {
				s = append(s, int32(j), int32(c))
			}
		}
		per = append(per, s)
		return true
	})
	digit := make([]int, N)
	for {
		enc = enc[:0]
		enc = append(enc, 0)
		for i := range N {
			s := per[digit[i]]
			for b := 0; b < len(s); b += 2 {
				enc = append(enc, int32(i*G)+s[b], s[b+1])
				enc[0]++
			}
		}
		ts.add(enc)
		i := N - 1
		for i >= 0 {
			digit[i]++
			if digit[i] < len(per) {
				break
			}
			digit[i] = 0
			i--
		}
		if i < 0 {
			break
		}
	}
	return ts, nil
}

// Solve runs the enumeration. It returns an error if the problem has no
// actions, M exceeds their number, the state space exceeds MaxStates, a
// transition leaves the grid with OutOfGrid = Fail, or ctx is cancelled.
func (s FullEnumeration[F]) Solve(ctx context.Context, p *Problem[F]) (*Solution[F], error) {
	start := time.Now()
	M, err := p.resolveM(s.M)
	if err != nil {
		return nil, err
	}
	limit := s.MaxStates
	if limit <= 0 {
		limit = 1 << 20
	}
	T := p.horizon
	r := &fullRun[F]{p: p, M: M, W: resolveWorkers(s.Workers), spaces: make([]*typeSpace, T+1), next: make([][][]int32, T)}
	for t := range r.spaces {
		if r.spaces[t], err = p.typeSpace(t, limit); err != nil {
			return nil, err
		}
	}
	for t := range T {
		if err := r.transitions(ctx, t); err != nil {
			return nil, err
		}
	}
	vals, args, err := r.backward(ctx)
	if err != nil {
		return nil, err
	}
	s0, e0, err := r.initial()
	if err != nil {
		return nil, err
	}
	sol := r.solution(vals, args, e0)
	if err := p.complete(sol, s0, true, false, start); err != nil {
		return nil, err
	}
	return sol, nil
}

// fullRun is the state of one FullEnumeration.Solve. An ensemble state at
// time t is a number e = Σ_k r_k·P^k in base P = size(t), r_k the index of
// sample k's type in spaces[t].
type fullRun[F tensor.Float] struct {
	p      *Problem[F]
	M, W   int
	spaces []*typeSpace // the single-sample types at t = 0, …, T
	next   [][][]int32  // next[t][j][r]: the type after action j from type r
	st     Stats
}

// size returns the number of single-sample types at time t.
func (r *fullRun[F]) size(t int) int { return r.spaces[t].l.n() }

// ens returns the number of ensemble states at time t, size(t)^K.
func (r *fullRun[F]) ens(t int) int {
	n := 1
	for range r.p.K {
		n *= r.size(t)
	}
	return n
}

// successor returns the ensemble state after action j from ensemble state
// e at time t.
func (r *fullRun[F]) successor(t, j, e int) int {
	P, P1, nx := r.size(t), r.size(t+1), r.next[t][j]
	f, mul := 0, 1
	for range r.p.K {
		f += int(nx[e%P]) * mul
		e /= P
		mul *= P1
	}
	return f
}

// transitions tabulates next[t]: the single-sample transition of every
// type at time t under every action, in parallel over actions.
func (r *fullRun[F]) transitions(ctx context.Context, t int) error {
	p, M, P := r.p, r.M, r.size(t)
	r.next[t] = make([][]int32, M)
	outs := make([][2]int64, M)
	err := parallel.Items(ctx, r.W, M, func(wi, j int) error {
		w := p.newWork()
		nx := make([]int32, P)
		var key []byte
		var enc []int32
		for q := range P {
			var out, n int
			enc, out, n = p.stepSampleG(enc[:0], r.spaces[t].l.at(q), t, j, w)
			if out > 0 && p.oog == Fail {
				return p.failErr(t, j)
			}
			outs[j][0] += int64(out)
			outs[j][1] += int64(n)
			key = appendKey(key[:0], enc)
			id, ok := r.spaces[t+1].index[string(key)]
			if !ok {
				return fmt.Errorf("%w: full enumeration: a transition left the state space at time %d (bug)", icrl.ErrInvalid, t+1)
			}
			nx[q] = id
		}
		r.next[t][j] = nx
		return nil
	})
	if err != nil {
		return err
	}
	for _, o := range outs {
		r.st.Outside += o[0]
		r.st.Snapped += o[1]
	}
	return nil
}

// backward computes the terminal cost of every ensemble (per sample and
// type, then averaged) and runs backward induction over all ensembles,
// keeping the lowest-index optimal action.
func (r *fullRun[F]) backward(ctx context.Context) (vals [][]float64, args [][]int32, err error) {
	p, T, K, M := r.p, r.p.horizon, r.p.K, r.M
	PT := r.size(T)
	costT := make([][]float64, K)
	for k := range K {
		costT[k] = make([]float64, PT)
		for q := range PT {
			costT[k][q] = p.terminalSampleG(k, r.spaces[T].l.at(q))
		}
	}
	vals, args = make([][]float64, T+1), make([][]int32, T)
	vals[T] = make([]float64, r.ens(T))
	for e := range vals[T] {
		total, q := 0.0, e
		for k := range K {
			total += costT[k][q%PT]
			q /= PT
		}
		vals[T][e] = total / float64(K)
	}
	r.st.Leaves = int64(len(vals[T]))
	r.st.Evaluated = r.st.Leaves
	r.st.Nodes = r.st.Leaves
	for t := T - 1; t >= 0; t-- {
		S := r.ens(t)
		vals[t], args[t] = make([]float64, S), make([]int32, S)
		r.st.Nodes += int64(S)
		chunks := blocks(0, S, 8*r.W)
		nv := vals[t+1]
		err := parallel.Items(ctx, r.W, len(chunks), func(_, it int) error {
			for e := chunks[it][0]; e < chunks[it][1]; e++ {
				bv, ba := 0.0, -1
				for j := range M {
					if v := nv[r.successor(t, j, e)]; ba < 0 || v < bv {
						bv, ba = v, j
					}
				}
				vals[t][e], args[t][e] = bv, int32(ba)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return vals, args, nil
}

// initial returns the initial state in the general representation and its
// ensemble index.
func (r *fullRun[F]) initial() ([]int32, int, error) {
	p := r.p
	s0 := p.s0
	if !p.general {
		s0 = p.toGeneral(nil, s0, 0)
	}
	e0, mul := 0, 1
	var key []byte
	for o := 0; o < len(s0); {
		m := int(s0[o])
		key = appendKey(key[:0], s0[o:o+1+2*m])
		q, ok := r.spaces[0].index[string(key)]
		if !ok {
			return nil, 0, fmt.Errorf("%w: full enumeration: the initial state is not in the state space (bug)", icrl.ErrInvalid)
		}
		e0 += int(q) * mul
		mul *= r.size(0)
		o += 1 + 2*m
	}
	return s0, e0, nil
}

// solution builds the policy tables over every ensemble state and follows
// them from e0 for the open-loop sequence.
func (r *fullRun[F]) solution(vals [][]float64, args [][]int32, e0 int) *Solution[F] {
	T, K := r.p.horizon, r.p.K
	sol := &Solution[F]{Value: vals[0][e0], Actions: make([]int, T), Policy: newClosedLoop(T, true), Stats: r.st}
	var key []byte
	for t := range T {
		P := r.size(t)
		tab := sol.Policy.Tables[t]
		for e := range args[t] {
			key = key[:0]
			q := e
			for range K {
				key = appendKey(key, r.spaces[t].l.at(q%P))
				q /= P
			}
			tab[string(key)] = args[t][e]
		}
	}
	e := e0
	for t := range T {
		j := int(args[t][e])
		sol.Actions[t] = j
		e = r.successor(t, j, e)
	}
	return sol
}
