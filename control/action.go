package control

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// Dims are the sizes of one transformer block of
// optimal-control-transformer-training eq. (1): the token dimension D = d,
// the feed-forward hidden width Hidden = d₁ (the paper's §6 "l") and the
// query/key width QK = d₂ (§6 "k"); the paper uses both sets of names.
type Dims struct {
	D, Hidden, QK int
}

// Params returns the number of scalars in one action U = (W, A, b, Q, K, V)
// of eq. (1) with these sizes, 2·D·Hidden + Hidden + 2·QK·D + D² (22 in the
// paper's §6 setting D = Hidden = QK = 2). It is the length
// of [Action.Flatten].
func (d Dims) Params() int {
	return 2*d.D*d.Hidden + d.Hidden + 2*d.QK*d.D + d.D*d.D
}

// Validate returns nil if every size is positive, and otherwise
// an error naming the bad size.
func (d Dims) Validate() error {
	switch {
	case d.D <= 0:
		return fmt.Errorf("%w: token dimension D = %d must be positive", icrl.ErrInvalid, d.D)
	case d.Hidden <= 0:
		return fmt.Errorf("%w: hidden width Hidden = %d must be positive", icrl.ErrInvalid, d.Hidden)
	case d.QK <= 0:
		return fmt.Errorf("%w: query/key width QK = %d must be positive", icrl.ErrInvalid, d.QK)
	}
	return nil
}

// Action is the control U_t = (W, A, b, Q, K, V) of one layer (eq. (1)),
// shared by every token and sample: W is D×Hidden, A is Hidden×D, B has
// Hidden entries, Q and K are QK×D (Q is the query matrix, not a
// quantizer), V is D×D; matrices are row-major.
//
// [NewAction] builds a valid action from its flat form; a hand-built one
// should pass [Action.Validate] before it is used by a [Block].
type Action[F tensor.Float] struct {
	Dims          Dims
	W, A, B, Q, K []F
	V             []F
}

// NewAction returns the action with sizes d read from flat in the order of
// [Action.Flatten]: W, A, b, Q, K, V, each matrix row-major. The
// entries are copied into one new backing array. It returns an error if d
// is invalid, if len(flat) != d.Params(), or if an entry is NaN or
// infinite (the error names the block and the entry).
func NewAction[F tensor.Float](d Dims, flat []F) (*Action[F], error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if len(flat) != d.Params() {
		return nil, fmt.Errorf("%w: flat action has length %d, want %d for dims %+v", icrl.ErrInvalid, len(flat), d.Params(), d)
	}
	u := newAction[F](d)
	u.unflatten(flat)
	if err := u.Validate(); err != nil {
		return nil, err
	}
	return u, nil
}

// NewZeroAction returns the action with sizes d and every entry zero. It
// panics if d is invalid.
func NewZeroAction[F tensor.Float](d Dims) *Action[F] {
	if err := d.Validate(); err != nil {
		panic(err.Error())
	}
	return newAction[F](d)
}

// SelfAttentionAction returns the action that makes one layer of eq. (1)
// with temperature beta equal to the §4 target map [SelfAttentionTarget]
// with scale c: W = 0, A = 0, b = 0, V = I, Q = [I; 0] and K = (c/β)[I; 0]
// (the identity in the first D rows), so that β⟨Qx, Kz⟩ = c⟨x, z⟩. For the
// paper's §6 (c = 0.3, β = 0.5) this is K = 0.6·I, with every entry in
// [−1, 1]. It returns an error if d is invalid, if d.QK < d.D, or if beta
// or c is not finite or beta is not positive.
func SelfAttentionAction[F tensor.Float](d Dims, c, beta F) (*Action[F], error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if d.QK < d.D {
		return nil, fmt.Errorf("%w: self-attention action needs QK ≥ D, have QK = %d, D = %d", icrl.ErrInvalid, d.QK, d.D)
	}
	if !finite(beta) || beta <= 0 {
		return nil, fmt.Errorf("%w: attention temperature β = %v must be finite and positive", icrl.ErrInvalid, beta)
	}
	if !finite(c) {
		return nil, fmt.Errorf("%w: target scale c = %v is not finite", icrl.ErrNotFinite, c)
	}
	u := newAction[F](d)
	for i := 0; i < d.D; i++ {
		u.Q[i*d.D+i] = 1
		u.K[i*d.D+i] = c / beta
		u.V[i*d.D+i] = 1
	}
	return u, nil
}

func newAction[F tensor.Float](d Dims) *Action[F] {
	buf := make([]F, d.Params())
	take := func(n int) []F {
		s := buf[:n:n]
		buf = buf[n:]
		return s
	}
	u := &Action[F]{Dims: d}
	u.W = take(d.D * d.Hidden)
	u.A = take(d.Hidden * d.D)
	u.B = take(d.Hidden)
	u.Q = take(d.QK * d.D)
	u.K = take(d.QK * d.D)
	u.V = take(d.D * d.D)
	return u
}

// parts returns the six blocks in flat order with their names.
func (u *Action[F]) parts() [6]struct {
	name string
	s    []F
	n    int
} {
	d := u.Dims
	return [6]struct {
		name string
		s    []F
		n    int
	}{
		{"W", u.W, d.D * d.Hidden},
		{"A", u.A, d.Hidden * d.D},
		{"b", u.B, d.Hidden},
		{"Q", u.Q, d.QK * d.D},
		{"K", u.K, d.QK * d.D},
		{"V", u.V, d.D * d.D},
	}
}

func (u *Action[F]) unflatten(flat []F) {
	for _, p := range u.parts() {
		flat = flat[copy(p.s, flat[:p.n]):]
	}
}

// Flatten stores the Params() entries of u in dst in the order W, A, b, Q,
// K, V, each matrix row-major (the inverse of [NewAction]), and
// returns it. If dst is nil a new slice is allocated. It panics if dst is
// non-nil and len(dst) != u.Dims.Params(), or if a block of u has the wrong
// length.
func (u *Action[F]) Flatten(dst []F) []F {
	n := u.Dims.Params()
	if dst == nil {
		dst = make([]F, n)
	}
	if len(dst) != n {
		panic(fmt.Sprintf("control: flatten destination has length %d, want %d", len(dst), n))
	}
	out := dst
	for _, p := range u.parts() {
		if len(p.s) != p.n {
			panic(fmt.Sprintf("control: action block %s has length %d, want %d", p.name, len(p.s), p.n))
		}
		dst = dst[copy(dst, p.s):]
	}
	return out
}

// Clone returns a deep copy of u with one new backing array.
func (u *Action[F]) Clone() *Action[F] {
	c := newAction[F](u.Dims)
	c.unflatten(u.Flatten(nil))
	return c
}

// Validate returns nil if u.Dims is valid, every block has the length its
// shape requires (W D×Hidden, A Hidden×D, b Hidden, Q and K QK×D, V D×D;
// eq. (1)) and every entry is finite. Otherwise the error names the
// block and, for a non-finite value, the entry (row, column).
func (u *Action[F]) Validate() error {
	if err := u.Dims.Validate(); err != nil {
		return err
	}
	for _, p := range u.parts() {
		if len(p.s) != p.n {
			return fmt.Errorf("%w: action block %s has length %d, want %d for dims %+v", icrl.ErrInvalid, p.name, len(p.s), p.n, u.Dims)
		}
		cols := u.Dims.D
		switch p.name {
		case "W":
			cols = u.Dims.Hidden
		case "b":
			cols = 1
		}
		for i, v := range p.s {
			if !finite(v) {
				return fmt.Errorf("%w: action entry %s[%d,%d] = %v is not finite", icrl.ErrNotFinite, p.name, i/cols, i%cols, v)
			}
		}
	}
	return nil
}

// MaxAbs returns the largest absolute value of an entry of u (0 for an
// action with no entries), for entry-bound checks such as the paper's §6
// constraint that every entry lies in [−1, 1]. A NaN entry makes the result
// NaN.
func (u *Action[F]) MaxAbs() F {
	var m F
	for _, p := range u.parts() {
		for _, v := range p.s {
			if v != v {
				return v
			}
			if v < 0 {
				v = -v
			}
			m = max(m, v)
		}
	}
	return m
}

// ActionDist returns the product Frobenius distance ‖U − V‖_𝕌 of eq. (19),
// the square root of ‖W−W'‖²_F + ‖A−A'‖²_F + ‖b−b'‖² + ‖Q−Q'‖²_F +
// ‖K−K'‖²_F + ‖V−V'‖²_F, accumulated in float64. It panics if
// the two actions have different Dims or malformed blocks.
func ActionDist[F tensor.Float](u, v *Action[F]) F {
	if u.Dims != v.Dims {
		panic(fmt.Sprintf("control: distance between actions of dims %+v and %+v", u.Dims, v.Dims))
	}
	pu, pv := u.parts(), v.parts()
	var s float64
	for k := range pu {
		a, b := pu[k].s, pv[k].s
		if len(a) != pu[k].n || len(b) != pu[k].n {
			panic(fmt.Sprintf("control: action block %s has lengths %d and %d, want %d", pu[k].name, len(a), len(b), pu[k].n))
		}
		for i := range a {
			d := float64(a[i]) - float64(b[i])
			s += d * d
		}
	}
	return F(math.Sqrt(s))
}

func finite[F tensor.Float](v F) bool {
	f := float64(v)
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}
