package quantize

import "github.com/icrl-go/icrl/internal/num"

// Float is the element type of vectors: float32 or float64.
type Float = num.Float

// Atom is a point (p_Pos, X) of the particle space 𝕏 = PE_N × S of
// optimal-control-transformer-training: a positional label Pos
// ∈ {1, …, N} (the encoding p_i = i/N, or another finite set) and a state
// X ∈ R^d.
type Atom[F Float] struct {
	Pos int
	X   []F
}

// Measure is a discrete probability measure Σ_a W[a] δ_{Atoms[a]} on 𝕏.
type Measure[F Float] struct {
	Atoms []Atom[F]
	W     []F
}

// Empirical returns the empirical measure (1/N) Σ_i δ_{(i, xs[i−1])} of the
// N tokens xs with positional labels 1, …, N. The vectors are
// not copied.
func Empirical[F Float](xs [][]F) Measure[F] {
	m := Measure[F]{Atoms: make([]Atom[F], len(xs)), W: make([]F, len(xs))}
	for i, x := range xs {
		m.Atoms[i] = Atom[F]{Pos: i + 1, X: x}
		m.W[i] = 1 / F(len(xs))
	}
	return m
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
