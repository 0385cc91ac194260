// Package nested turns the nested-slice literals of the module's tests and
// examples into tensor.Dense arrays (the public APIs take Dense, never
// slices nested more than two deep). Every function copies, and panics on
// an empty or ragged argument: the literals are the programs' own.
package nested

import (
	"fmt"

	"github.com/icrl-go/icrl/tensor"
)

// Dense2 returns the len(v) × len(v[0]) array of v.
func Dense2[F tensor.Float](v [][]F) *tensor.Dense[F] {
	t, err := tensor.FromRows(v)
	if err != nil {
		panic(err)
	}
	return t
}

// Dense3 returns the array of v, whose dimensions are those of v[0] and
// v[0][0].
func Dense3[F tensor.Float](v [][][]F) *tensor.Dense[F] {
	if len(v) == 0 {
		panic("nested: Dense3 of an empty slice")
	}
	parts := make([]*tensor.Dense[F], len(v))
	for i, m := range v {
		parts[i] = Dense2(m)
	}
	return stack(parts)
}

// Dense4 returns the array of v, whose dimensions are those of v[0],
// v[0][0] and v[0][0][0].
func Dense4[F tensor.Float](v [][][][]F) *tensor.Dense[F] {
	if len(v) == 0 {
		panic("nested: Dense4 of an empty slice")
	}
	parts := make([]*tensor.Dense[F], len(v))
	for i, m := range v {
		parts[i] = Dense3(m)
	}
	return stack(parts)
}

func stack[F tensor.Float](parts []*tensor.Dense[F]) *tensor.Dense[F] {
	t, err := tensor.Stack(parts...)
	if err != nil {
		panic(fmt.Sprintf("nested: %v", err))
	}
	return t
}

// Dense3s returns the arrays of the elements of v, each by Dense3 (one per
// player of a product kernel's local laws, for example).
func Dense3s[F tensor.Float](v [][][][]F) []*tensor.Dense[F] {
	out := make([]*tensor.Dense[F], len(v))
	for i, m := range v {
		out[i] = Dense3(m)
	}
	return out
}
