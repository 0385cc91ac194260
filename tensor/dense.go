package tensor

import (
	"fmt"
	"slices"

	"github.com/icrl-go/icrl"
)

// MaxEntries is the largest number of entries a Dense may hold (2^31:
// 16 GiB of float64, 8 GiB of float32), checked before anything is
// allocated, so that a shape a machine could not hold is an error rather
// than a fatal out-of-memory.
const MaxEntries = 1 << 31

// Dense is an n-dimensional array of F stored contiguously in row-major
// order, the last index varying fastest: the vectors, matrices and stacked
// tables (a Markov game's rewards per state and joint action, a data set's
// tokens per sequence) that the module's APIs take in place of nested
// slices. The zero value is an empty array of rank 0; build one with New,
// FromData, FromRows or Stack.
//
// Row returns the last axis at given leading indices as a slice that
// shares the storage, so reading a table row by row costs no copy.
// A Dense is not safe for concurrent writes; concurrent reads are safe.
type Dense[F Float] struct {
	shape []int
	data  []F
}

// checkShape returns the number of entries of shape, or an error if a
// dimension is below 1 or the product exceeds MaxEntries.
func checkShape(shape []int) (int, error) {
	if len(shape) == 0 {
		return 0, fmt.Errorf("%w: no dimension", icrl.ErrShape)
	}
	n := 1
	for i, d := range shape {
		if d < 1 {
			return 0, fmt.Errorf("%w: dimension %d is %d, want at least 1 (shape %v)", icrl.ErrShape, i, d, shape)
		}
		if n > MaxEntries/d {
			return 0, fmt.Errorf("%w: shape %v has more than %d entries", icrl.ErrTooLarge, shape, MaxEntries)
		}
		n *= d
	}
	return n, nil
}

// New returns a zero array of the given shape. It returns an error
// wrapping ErrShape if there is no dimension or one is below 1, or
// ErrTooLarge past MaxEntries entries.
func New[F Float](shape ...int) (*Dense[F], error) {
	n, err := checkShape(shape)
	if err != nil {
		return nil, err
	}
	return &Dense[F]{shape: slices.Clone(shape), data: make([]F, n)}, nil
}

// FromData returns an array of the given shape holding a copy of data in
// row-major order. It returns an error as New does, or wrapping ErrShape
// if len(data) is not the product of the shape.
func FromData[F Float](data []F, shape ...int) (*Dense[F], error) {
	n, err := checkShape(shape)
	if err != nil {
		return nil, err
	}
	if len(data) != n {
		return nil, fmt.Errorf("%w: %d values for shape %v (%d entries)", icrl.ErrShape, len(data), shape, n)
	}
	return &Dense[F]{shape: slices.Clone(shape), data: slices.Clone(data)}, nil
}

// FromRows returns the len(rows) × len(rows[0]) matrix of the given rows
// (copied). It returns an error wrapping ErrShape if there is no row, a
// row is empty or the rows differ in length.
func FromRows[F Float](rows [][]F) (*Dense[F], error) {
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil, fmt.Errorf("%w: FromRows needs at least one non-empty row", icrl.ErrShape)
	}
	c := len(rows[0])
	if _, err := checkShape([]int{len(rows), c}); err != nil {
		return nil, err
	}
	data := make([]F, 0, len(rows)*c)
	for i, r := range rows {
		if len(r) != c {
			return nil, fmt.Errorf("%w: row %d has %d entries, row 0 has %d", icrl.ErrShape, i, len(r), c)
		}
		data = append(data, r...)
	}
	return &Dense[F]{shape: []int{len(rows), c}, data: data}, nil
}

// Stack returns the array whose i-th entry along a new leading axis is
// parts[i] (copied): k parts of shape s give shape (k, s…). It returns an
// error wrapping ErrShape if there is no part, a part is nil or empty, or
// the parts differ in shape.
func Stack[F Float](parts ...*Dense[F]) (*Dense[F], error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: Stack needs at least one part", icrl.ErrShape)
	}
	for i, p := range parts {
		if p == nil || len(p.shape) == 0 {
			return nil, fmt.Errorf("%w: Stack part %d is nil or empty", icrl.ErrShape, i)
		}
		if !slices.Equal(p.shape, parts[0].shape) {
			return nil, fmt.Errorf("%w: Stack part %d has shape %v, part 0 %v", icrl.ErrShape, i, p.shape, parts[0].shape)
		}
	}
	shape := append([]int{len(parts)}, parts[0].shape...)
	n, err := checkShape(shape)
	if err != nil {
		return nil, err
	}
	data := make([]F, 0, n)
	for _, p := range parts {
		data = append(data, p.data...)
	}
	return &Dense[F]{shape: shape, data: data}, nil
}

// Rank returns the number of dimensions (0 for the zero value).
func (t *Dense[F]) Rank() int { return len(t.shape) }

// Shape returns a copy of the dimensions.
func (t *Dense[F]) Shape() []int { return slices.Clone(t.shape) }

// Dim returns dimension i. It panics if i is out of range.
func (t *Dense[F]) Dim(i int) int {
	if uint(i) >= uint(len(t.shape)) {
		panic(fmt.Sprintf("tensor: Dim(%d) of an array of rank %d", i, len(t.shape)))
	}
	return t.shape[i]
}

// Len returns the number of entries.
func (t *Dense[F]) Len() int { return len(t.data) }

// Data returns the entries in row-major order; the slice shares the
// storage.
func (t *Dense[F]) Data() []F { return t.data }

// offset returns the position of the entry or row at the leading indices
// idx (len(idx) ≤ rank) and the length of the block it starts. It panics
// on an index out of range.
func (t *Dense[F]) offset(idx []int) (off, block int) {
	if len(idx) > len(t.shape) {
		panic(fmt.Sprintf("tensor: %d indices for an array of rank %d", len(idx), len(t.shape)))
	}
	block = len(t.data)
	for i, x := range idx {
		d := t.shape[i]
		if uint(x) >= uint(d) {
			panic(fmt.Sprintf("tensor: index %d = %d out of range [0, %d) (shape %v)", i, x, d, t.shape))
		}
		block /= d
		off += x * block
	}
	return off, block
}

// At returns the entry at idx (one index per dimension). It panics if
// the number of indices is not the rank or an index is out of range.
func (t *Dense[F]) At(idx ...int) F {
	if len(idx) != len(t.shape) {
		panic(fmt.Sprintf("tensor: At with %d indices on an array of rank %d", len(idx), len(t.shape)))
	}
	off, _ := t.offset(idx)
	return t.data[off]
}

// Set stores v at idx (one index per dimension). It panics as At does.
func (t *Dense[F]) Set(v F, idx ...int) {
	if len(idx) != len(t.shape) {
		panic(fmt.Sprintf("tensor: Set with %d indices on an array of rank %d", len(idx), len(t.shape)))
	}
	off, _ := t.offset(idx)
	t.data[off] = v
}

// Row returns the entries along the last axis at the leading indices idx
// (rank − 1 of them), sharing the storage: for a K × N × d data set,
// Row(k, i) is token i of sequence k. It panics if the number of indices
// is not rank − 1 or an index is out of range.
func (t *Dense[F]) Row(idx ...int) []F {
	if len(idx) != len(t.shape)-1 {
		panic(fmt.Sprintf("tensor: Row with %d indices on an array of rank %d", len(idx), len(t.shape)))
	}
	off, block := t.offset(idx)
	return t.data[off : off+block : off+block]
}

// Sub returns entry i along the leading axis as an array of rank − 1 that
// shares the storage (a K × N × d data set's Sub(k) is sequence k). It
// panics if the rank is below 2 or i is out of range.
func (t *Dense[F]) Sub(i int) *Dense[F] {
	if len(t.shape) < 2 {
		panic(fmt.Sprintf("tensor: Sub of an array of rank %d", len(t.shape)))
	}
	off, block := t.offset([]int{i})
	return &Dense[F]{shape: t.shape[1:len(t.shape):len(t.shape)], data: t.data[off : off+block : off+block]}
}

// Unstack returns every entry along the leading axis as an array of rank
// − 1 sharing the storage, the views Sub(0), Sub(1), … in two allocations
// whatever their number (the inverse of Stack, without the copy). It
// panics if the rank is below 2.
func (t *Dense[F]) Unstack() []*Dense[F] {
	if len(t.shape) < 2 {
		panic(fmt.Sprintf("tensor: Unstack of an array of rank %d", len(t.shape)))
	}
	n := t.shape[0]
	block := 0
	if n > 0 {
		block = len(t.data) / n
	}
	shape := t.shape[1:len(t.shape):len(t.shape)]
	views := make([]Dense[F], n)
	out := make([]*Dense[F], n)
	for i := range views {
		views[i] = Dense[F]{shape: shape, data: t.data[i*block : (i+1)*block : (i+1)*block]}
		out[i] = &views[i]
	}
	return out
}

// Clone returns a deep copy of t.
func (t *Dense[F]) Clone() *Dense[F] {
	return &Dense[F]{shape: slices.Clone(t.shape), data: slices.Clone(t.data)}
}
