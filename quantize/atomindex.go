package quantize

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
)

// AtomIndex enumerates the atoms of 𝕏_n = PE_N × S_n (N positions, G =
// |S_n| state points) by the 0-based index a = (pos−1)·G + j with
// pos ∈ {1, …, N} and j ∈ {0, …, G−1}. It is the bijection that replaces
// the printed eq. (21) of the paper, which is not one (correction A3 of the package doc): the
// printed map sends a = G−1 and a = G to the same pair (1, G) and never
// produces a pair (i, 1).
//
// The zero value is unusable; build one with [NewAtomIndex] or a literal
// with N, G ≥ 1 and N·G ≤ MaxInt32 (atom indices are stored as int32 in
// [QMeasure]).
type AtomIndex struct{ N, G int }

// NewAtomIndex returns AtomIndex{N: n, G: g} after checking n ≥ 1, g ≥ 1
// and n·g ≤ math.MaxInt32; the error names the bad value.
func NewAtomIndex(n, g int) (AtomIndex, error) {
	ix := AtomIndex{N: n, G: g}
	return ix, ix.check()
}

func (ix AtomIndex) check() error {
	switch {
	case ix.N < 1:
		return fmt.Errorf("%w: atom index has N = %d positions, want at least 1", icrl.ErrInvalid, ix.N)
	case ix.G < 1:
		return fmt.Errorf("%w: atom index has G = %d state points, want at least 1", icrl.ErrInvalid, ix.G)
	case ix.N > math.MaxInt32/ix.G:
		return fmt.Errorf("%w: atom index with N = %d and G = %d has more than %d atoms", icrl.ErrInvalid, ix.N, ix.G, math.MaxInt32)
	}
	return nil
}

// Size returns |𝕏_n| = N·G.
func (ix AtomIndex) Size() int { return ix.N * ix.G }

// Encode returns a = (pos−1)·G + j. It panics if pos ∉ [1, N] or
// j ∉ [0, G) (a programmer error).
func (ix AtomIndex) Encode(pos, j int) int {
	if pos < 1 || pos > ix.N || j < 0 || j >= ix.G {
		panic(fmt.Sprintf("quantize: AtomIndex%+v.Encode(%d, %d) out of range", ix, pos, j))
	}
	return (pos-1)*ix.G + j
}

// Decode inverts [AtomIndex.Encode]: pos = a/G + 1 and j = a mod G. It
// panics if a ∉ [0, N·G) (a programmer error).
func (ix AtomIndex) Decode(a int) (pos, j int) {
	if a < 0 || a >= ix.N*ix.G {
		panic(fmt.Sprintf("quantize: AtomIndex%+v.Decode(%d) out of range", ix, a))
	}
	return a/ix.G + 1, a % ix.G
}
