package quantize

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// Atom is a point (p_Pos, X) of the particle space 𝕏 = PE_N × S of
// optimal-control-transformer-training: a positional label Pos
// ∈ {1, …, N} (the encoding p_i = i/N, or another finite set) and a state
// X ∈ R^d.
type Atom[F tensor.Float] struct {
	Pos int
	X   []F
}

// Measure is a discrete probability measure Σ_a W[a] δ_{Atoms[a]} on 𝕏.
type Measure[F tensor.Float] struct {
	Atoms []Atom[F]
	W     []F
}

// Empirical returns the empirical measure (1/N) Σ_i δ_{(i, xs[i−1])} of the
// N tokens xs with positional labels 1, …, N. The vectors are not copied.
// It returns an error wrapping [icrl.ErrInvalid] if there is no token or the
// tokens do not all have the dimension of the first, and [icrl.ErrNotFinite]
// if an entry is NaN or infinite.
func Empirical[F tensor.Float](xs [][]F) (Measure[F], error) {
	if len(xs) == 0 {
		return Measure[F]{}, fmt.Errorf("%w: Empirical of no token", icrl.ErrInvalid)
	}
	d := len(xs[0])
	for i, x := range xs {
		if len(x) != d {
			return Measure[F]{}, fmt.Errorf("%w: Empirical token %d has dimension %d, token 0 has %d", icrl.ErrInvalid, i, len(x), d)
		}
		for k, v := range x {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return Measure[F]{}, fmt.Errorf("%w: Empirical token %d entry %d is %v", icrl.ErrNotFinite, i, k, v)
			}
		}
	}
	m := Measure[F]{Atoms: make([]Atom[F], len(xs)), W: make([]F, len(xs))}
	for i, x := range xs {
		m.Atoms[i] = Atom[F]{Pos: i + 1, X: x}
		m.W[i] = 1 / F(len(xs))
	}
	return m, nil
}

// QMeasure is an element of 𝒫^(ℓ)(𝕏_n), a "type" with denominator ℓ
// (eq. (22) of the paper): the measure Σ_k (Cnt[k]/Ell) δ_{a = Idx[k]} on the
// atoms a of 𝕏_n (see [AtomIndex]), sparse with Idx strictly increasing,
// Cnt[k] ≥ 1 and Σ Cnt = Ell.
type QMeasure struct {
	Idx []int32
	Cnt []int32
	Ell int32
}
