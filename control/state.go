package control

import (
	"encoding/binary"
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/quantize"
)

// State is a state of the quantized MDP, an ensemble (μ̂^1, …, μ̂^K): an
// [NTypeState] or a [GeneralState]. AppendKey appends a canonical byte
// encoding (equal keys iff equal states of the same representation), the
// key of the closed-loop tables ([ClosedLoop]).
type State interface {
	AppendKey(dst []byte) []byte
	encode(dst []int32) []int32
}

// NTypeState is the N-type representation: Idx[k·N + i] is the grid index
// j of token i+1 of sample k, i.e. μ̂^k = (1/N) Σ_i δ_(p_i, s_{Idx[k·N+i]})
// The grid is that of the state's time.
type NTypeState struct {
	N   int
	Idx []int32
}

// AppendKey appends Idx as little-endian 32-bit words.
func (s NTypeState) AppendKey(dst []byte) []byte { return appendKey(dst, s.Idx) }

func (s NTypeState) encode(dst []int32) []int32 { return append(dst, s.Idx...) }

// GeneralState is the general representation: M[k] is μ̂^k ∈ 𝒫^(ℓ)(𝕏_n), a
// type on the atoms a = (pos−1)·G + j of the state's time (quantize.AtomIndex).
type GeneralState struct {
	M []quantize.QMeasure
}

// AppendKey appends, per sample, the support size and the (index, count)
// pairs as little-endian 32-bit words.
func (s GeneralState) AppendKey(dst []byte) []byte { return appendKey(dst, s.encode(nil)) }

func (s GeneralState) encode(dst []int32) []int32 {
	for _, q := range s.M {
		dst = appendQMeasure(dst, q)
	}
	return dst
}

func appendKey(dst []byte, s []int32) []byte {
	for _, v := range s {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(v))
	}
	return dst
}

// state converts the internal encoding of a state at time t to a State
// (copying).
func (p *Problem[F]) state(s []int32, general bool) State {
	if !general {
		return NTypeState{N: p.N, Idx: append([]int32(nil), s...)}
	}
	g := GeneralState{M: make([]quantize.QMeasure, 0, p.K)}
	for o := 0; o < len(s); {
		n := int(s[o])
		q := quantize.QMeasure{Idx: make([]int32, n), Cnt: make([]int32, n), Ell: int32(p.ell)}
		for a := range n {
			q.Idx[a], q.Cnt[a] = s[o+1+2*a], s[o+2+2*a]
		}
		g.M = append(g.M, q)
		o += 1 + 2*n
	}
	return g
}

// decode validates s as a state at time t and returns its encoding and
// representation.
func (p *Problem[F]) decode(t int, s State) ([]int32, bool, error) {
	switch s := s.(type) {
	case NTypeState:
		if s.N != p.N || len(s.Idx) != p.K*p.N {
			return nil, false, fmt.Errorf("%w: N-type state with N = %d and %d indices, want N = %d and K·N = %d", icrl.ErrInvalid, s.N, len(s.Idx), p.N, p.K*p.N)
		}
		if p.ell%p.N != 0 {
			return nil, false, fmt.Errorf("%w: N-type state needs N | ℓ, have N = %d and ℓ = %d", icrl.ErrInvalid, p.N, p.ell)
		}
		for a, j := range s.Idx {
			if j < 0 || int(j) >= p.gsize[t] {
				return nil, false, fmt.Errorf("%w: N-type state index %d = %d outside the grid of time %d (size %d)", icrl.ErrInvalid, a, j, t, p.gsize[t])
			}
		}
		return s.Idx, false, nil
	case GeneralState:
		if len(s.M) != p.K {
			return nil, false, fmt.Errorf("%w: general state with %d measures, want K = %d", icrl.ErrInvalid, len(s.M), p.K)
		}
		for k, q := range s.M {
			if int(q.Ell) != p.ell {
				return nil, false, fmt.Errorf("%w: measure %d has ℓ = %d, want %d", icrl.ErrInvalid, k, q.Ell, p.ell)
			}
			if err := q.Validate(p.ix[t]); err != nil {
				return nil, false, fmt.Errorf("control: measure %d: %w", k, err)
			}
		}
		return s.encode(nil), true, nil
	case nil:
		return nil, false, fmt.Errorf("%w: nil state", icrl.ErrInvalid)
	}
	return nil, false, fmt.Errorf("%w: unknown state type %T", icrl.ErrInvalid, s)
}

// toGeneral converts an N-type encoding (time t) to the general one.
func (p *Problem[F]) toGeneral(dst, s []int32, t int) []int32 {
	c := int32(p.ell / p.N)
	G := int32(p.gsize[t])
	for k := range p.K {
		dst = append(dst, int32(p.N))
		for i := range p.N {
			dst = append(dst, int32(i)*G+s[k*p.N+i], c)
		}
	}
	return dst
}

// Init returns the initial state ŝ_0 = (μ̂_0^1, …, μ̂_0^K), μ̂_0^k =
// R_ℓ((1/N) Σ_i δ_(p_i, Q^(n)(x^{i,k}))) (Algorithm 1 line 6, which
// prints x_t^{i,k} for the input x^{i,k}), in
// the problem's representation.
func (p *Problem[F]) Init() State { return p.state(p.s0, p.general) }

// Step returns 𝚽^(ℓ,n,m)(s; U^j) of eq. (27), the successor at time t+1 of
// the state s at time t ∈ [0, T) under action j: every atom moves by eq. (5)
// against its own sample's measure (softmax weighted by the atom masses),
// is snapped to the grid of time t+1, and atoms landing on the same point
// merge. The result has the representation of s. It returns an error if t
// or j is out of range, s is malformed, or (OutOfGrid = Fail) a token
// leaves the grid.
func (p *Problem[F]) Step(t int, s State, j int) (State, error) {
	if t < 0 || t >= p.horizon {
		return nil, fmt.Errorf("%w: step at time %d, want 0 ≤ t < T = %d", icrl.ErrInvalid, t, p.horizon)
	}
	if j < 0 || j >= len(p.actions) {
		return nil, fmt.Errorf("%w: action index %d outside [0, %d)", icrl.ErrInvalid, j, len(p.actions))
	}
	enc, general, err := p.decode(t, s)
	if err != nil {
		return nil, err
	}
	w := p.newWork()
	var dst []int32
	var out int
	if general {
		dst, out, _ = p.stepG(nil, enc, t, j, w)
	} else {
		dst = make([]int32, len(enc))
		out = p.stepN(dst, enc, t, j, w)
	}
	if out > 0 && p.oog == Fail {
		return nil, p.failErr(t, j)
	}
	return p.state(dst, general), nil
}

func (p *Problem[F]) failErr(t, j int) error {
	return fmt.Errorf("%w: action %d at layer %d moves a token outside the grid of time %d (OutOfGrid = Fail)", icrl.ErrInvalid, j, t, t+1)
}

// TerminalCost returns 𝔆_T(s) = (1/K) Σ_k Ŵ_{2,λ}(μ̂^k, ν̂^k) of eq. (29)
// for a state s at time T, with Ŵ the squared transport cost (squared once,
// see the package doc). When λ ≥ LambdaMin and every position carries the same mass
// in μ̂^k and ν̂^k, this is Σ_pos mass · W_2² of the position's conditionals,
// for N-type states (1/(N·K)) Σ_k Σ_i ‖s_{j_{k,i}} − ŷ^{k,i}‖², the mean
// squared error per token (Theorem 6); otherwise exact optimal transport.
func (p *Problem[F]) TerminalCost(s State) (float64, error) {
	enc, general, err := p.decode(p.horizon, s)
	if err != nil {
		return 0, err
	}
	w := p.newWork()
	if general {
		return p.terminalG(enc, w), nil
	}
	return p.terminalN(enc, w), nil
}
