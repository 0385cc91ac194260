package control

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/icrl-go/icrl/internal/parallel"

	"github.com/icrl-go/icrl/quantize"
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
type FullEnumeration[F Float] struct {
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
		return nil, fmt.Errorf("%w: full enumeration at time %d has %v^%d = %v ensemble states, more than MaxStates = %d", ErrInvalid, t, count, p.K, ens, limit)
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
	T, K := p.horizon, p.K
	W := resolveWorkers(s.Workers)
	spaces := make([]*typeSpace, T+1)
	for t := range spaces {
		if spaces[t], err = p.typeSpace(t, limit); err != nil {
			return nil, err
		}
	}
	size := func(t int) int { return spaces[t].l.n() }
	ens := func(t int) int {
		n := 1
		for range K {
			n *= size(t)
		}
		return n
	}
	var st Stats

	// Per-type transitions next[t][j][r].
	next := make([][][]int32, T)
	for t := range T {
		next[t] = make([][]int32, M)
		P := size(t)
		outs := make([][2]int64, M)
		err := parallel.Items(ctx, W, M, func(wi, j int) error {
			w := p.newWork()
			nx := make([]int32, P)
			var key []byte
			var enc []int32
			for r := range P {
				var out, n int
				enc, out, n = p.stepSampleG(enc[:0], spaces[t].l.at(r), t, j, w)
				if out > 0 && p.oog == Fail {
					return p.failErr(t, j)
				}
				outs[j][0] += int64(out)
				outs[j][1] += int64(n)
				key = appendKey(key[:0], enc)
				id, ok := spaces[t+1].index[string(key)]
				if !ok {
					return fmt.Errorf("%w: full enumeration: a transition left the state space at time %d (bug)", ErrInvalid, t+1)
				}
				nx[r] = id
			}
			next[t][j] = nx
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, o := range outs {
			st.Outside += o[0]
			st.Snapped += o[1]
		}
	}

	// Terminal costs per sample and type, then per ensemble.
	PT := size(T)
	costT := make([][]float64, K)
	for k := range K {
		costT[k] = make([]float64, PT)
		for r := range PT {
			costT[k][r] = p.terminalSampleG(k, spaces[T].l.at(r))
		}
	}
	vals := make([][]float64, T+1)
	args := make([][]int32, T)
	vals[T] = make([]float64, ens(T))
	for e := range vals[T] {
		total, q := 0.0, e
		for k := range K {
			total += costT[k][q%PT]
			q /= PT
		}
		vals[T][e] = total / float64(K)
	}
	st.Leaves = int64(len(vals[T]))
	st.Evaluated = st.Leaves
	st.Nodes = st.Leaves

	// Backward induction.
	for t := T - 1; t >= 0; t-- {
		S, P, P1 := ens(t), size(t), size(t+1)
		vals[t] = make([]float64, S)
		args[t] = make([]int32, S)
		st.Nodes += int64(S)
		chunks := blocks(0, S, 8*W)
		nv := vals[t+1]
		err := parallel.Items(ctx, W, len(chunks), func(_, it int) error {
			for e := chunks[it][0]; e < chunks[it][1]; e++ {
				bv, ba := 0.0, -1
				for j := range M {
					nx := next[t][j]
					f, q, mul := 0, e, 1
					for range K {
						f += int(nx[q%P]) * mul
						q /= P
						mul *= P1
					}
					if v := nv[f]; ba < 0 || v < bv {
						bv, ba = v, j
					}
				}
				vals[t][e], args[t][e] = bv, int32(ba)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}

	// The initial state in the general representation.
	s0 := p.s0
	if !p.general {
		s0 = p.toGeneral(nil, s0, 0)
	}
	e0, mul := 0, 1
	var key []byte
	for o := 0; o < len(s0); {
		m := int(s0[o])
		key = appendKey(key[:0], s0[o:o+1+2*m])
		r, ok := spaces[0].index[string(key)]
		if !ok {
			return nil, fmt.Errorf("%w: full enumeration: the initial state is not in the state space (bug)", ErrInvalid)
		}
		e0 += int(r) * mul
		mul *= size(0)
		o += 1 + 2*m
	}

	sol := &Solution[F]{Value: vals[0][e0], Actions: make([]int, T), Policy: newClosedLoop(T, true), Stats: st}
	// Policy tables over every state.
	for t := range T {
		P := size(t)
		tab := sol.Policy.Tables[t]
		for e := range args[t] {
			key = key[:0]
			q := e
			for range K {
				key = appendKey(key, spaces[t].l.at(q%P))
				q /= P
			}
			tab[string(key)] = args[t][e]
		}
	}
	e := e0
	for t := range T {
		j := int(args[t][e])
		sol.Actions[t] = j
		f, q, mul := 0, e, 1
		for range K {
			f += int(next[t][j][q%size(t)]) * mul
			q /= size(t)
			mul *= size(t + 1)
		}
		e = f
	}
	if err := p.complete(sol, s0, true, false, start); err != nil {
		return nil, err
	}
	return sol, nil
}
