package tensor_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

func TestDenseIndexing(t *testing.T) {
	data := make([]float64, 2*3*4)
	for i := range data {
		data[i] = float64(i)
	}
	a, err := tensor.FromData(data, 2, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	data[0] = -1 // copied
	if a.Rank() != 3 || a.Len() != 24 || !slices.Equal(a.Shape(), []int{2, 3, 4}) || a.Dim(1) != 3 {
		t.Fatalf("rank %d, len %d, shape %v", a.Rank(), a.Len(), a.Shape())
	}
	// Row-major: entry (i, j, k) is 12i + 4j + k.
	for i := range 2 {
		for j := range 3 {
			for k := range 4 {
				if got := a.At(i, j, k); got != float64(12*i+4*j+k) {
					t.Fatalf("At(%d, %d, %d) = %v, want %d", i, j, k, got, 12*i+4*j+k)
				}
			}
			if r := a.Row(i, j); !slices.Equal(r, []float64{float64(12*i + 4*j), float64(12*i + 4*j + 1), float64(12*i + 4*j + 2), float64(12*i + 4*j + 3)}) {
				t.Fatalf("Row(%d, %d) = %v", i, j, r)
			}
		}
	}
	s := a.Sub(1)
	if !slices.Equal(s.Shape(), []int{3, 4}) || s.At(2, 3) != 23 {
		t.Fatalf("Sub(1): shape %v, At(2, 3) = %v", s.Shape(), s.At(2, 3))
	}
	s.Set(100, 0, 0) // a view: writes through
	a.Row(1, 0)[1] = 101
	if a.At(1, 0, 0) != 100 || s.At(0, 1) != 101 {
		t.Errorf("views do not share storage: %v, %v", a.At(1, 0, 0), s.At(0, 1))
	}
	c := a.Clone()
	c.Set(7, 0, 0, 0)
	if a.At(0, 0, 0) != 0 {
		t.Error("Clone shares storage")
	}
	if r := a.Row(0, 0); cap(r) != 4 {
		t.Errorf("Row has capacity %d: appending would overwrite the next row", cap(r))
	}
	// Unstack: the views Sub(0), Sub(1), sharing storage.
	parts := a.Unstack()
	if len(parts) != 2 {
		t.Fatalf("Unstack: %d parts, want 2", len(parts))
	}
	for i, p := range parts {
		if !slices.Equal(p.Shape(), []int{3, 4}) || !slices.Equal(p.Data(), a.Sub(i).Data()) {
			t.Errorf("Unstack part %d: shape %v, data %v; want Sub(%d)", i, p.Shape(), p.Data(), i)
		}
	}
	parts[1].Set(-5, 2, 3)
	if a.At(1, 2, 3) != -5 || cap(parts[0].Data()) != 12 {
		t.Errorf("Unstack parts do not share storage or overlap: %v, cap %d", a.At(1, 2, 3), cap(parts[0].Data()))
	}
	if n := testing.AllocsPerRun(10, func() { a.Unstack() }); n > 2 {
		t.Errorf("Unstack: %v allocations, want 2", n)
	}
}

func TestDenseBuilders(t *testing.T) {
	m, err := tensor.FromRows([][]float32{{1, 2}, {3, 4}, {5, 6}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Shape(), []int{3, 2}) || m.At(2, 1) != 6 {
		t.Fatalf("FromRows: shape %v, At(2, 1) = %v", m.Shape(), m.At(2, 1))
	}
	z, _ := tensor.New[float32](3, 2)
	st, err := tensor.Stack(m, z)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Shape(), []int{2, 3, 2}) || st.At(0, 1, 0) != 3 || st.At(1, 1, 0) != 0 {
		t.Fatalf("Stack: shape %v", st.Shape())
	}
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"New no dimension", second(tensor.New[float64]()), icrl.ErrShape},
		{"New zero dimension", second(tensor.New[float64](2, 0)), icrl.ErrShape},
		{"New too large", second(tensor.New[float64](1<<20, 1<<20)), icrl.ErrTooLarge},
		{"FromData length", second(tensor.FromData([]float64{1, 2, 3}, 2, 2)), icrl.ErrShape},
		{"FromRows ragged", second(tensor.FromRows([][]float64{{1, 2}, {3}})), icrl.ErrShape},
		{"FromRows empty", second(tensor.FromRows([][]float64{})), icrl.ErrShape},
		{"Stack shapes", second(tensor.Stack(m, st)), icrl.ErrShape},
		{"Stack nil", second(tensor.Stack(m, nil)), icrl.ErrShape},
		{"Stack none", second(tensor.Stack[float32]()), icrl.ErrShape},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	for name, f := range map[string]func(){
		"At rank":      func() { m.At(1) },
		"At range":     func() { m.At(3, 0) },
		"Row rank":     func() { m.Row() },
		"Set negative": func() { m.Set(1, -1, 0) },
		"Sub rank 1":   func() { v, _ := tensor.New[float64](3); v.Sub(0) },
	} {
		if !panics(f) {
			t.Errorf("%s: no panic", name)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// A 2 × 2 × 3 table built from two matrices, read a row at a time.
func ExampleStack() {
	a, _ := tensor.FromRows([][]float64{{1, 2, 3}, {4, 5, 6}})
	b, _ := tensor.FromRows([][]float64{{7, 8, 9}, {10, 11, 12}})
	t, _ := tensor.Stack(a, b)
	fmt.Println(t.Shape(), t.At(1, 0, 2), t.Row(1, 1))
	// Output: [2 2 3] 9 [10 11 12]
}

// panicMessage returns the message f panics with, or "" if it returns.
func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// TestDenseBounds: every axis is bounds-checked with the package's own
// message, data longer or shorter than its shape is refused, and a shape
// past MaxEntries is an error before anything is allocated.
func TestDenseBounds(t *testing.T) {
	m, err := tensor.FromData([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"At(0, 3)", func() { m.At(0, 3) }},
		{"At(2, 0)", func() { m.At(2, 0) }},
		{"At(0, -1)", func() { m.At(0, -1) }},
		{"Set(0, 1, 3)", func() { m.Set(0, 1, 3) }},
		{"Row(2)", func() { m.Row(2) }},
		{"Dim(5)", func() { m.Dim(5) }},
		{"Dim(-1)", func() { m.Dim(-1) }},
	} {
		if msg := panicMessage(c.f); !strings.HasPrefix(msg, "tensor: ") {
			t.Errorf("%s panics with %q, want the package's message", c.name, msg)
		}
	}
	if m.At(1, 2) != 6 || m.Dim(1) != 3 {
		t.Errorf("At(1, 2) = %v, Dim(1) = %d", m.At(1, 2), m.Dim(1))
	}
	for _, n := range []int{5, 7} {
		if _, err := tensor.FromData(make([]float64, n), 2, 3); !errors.Is(err, icrl.ErrShape) {
			t.Errorf("FromData of %d values for shape 2×3: %v, want ErrShape", n, err)
		}
	}
	for _, shape := range [][]int{{1 << 17, 1 << 17}, {tensor.MaxEntries + 1}, {1 << 40, 1 << 40}} {
		if _, err := tensor.New[float64](shape...); !errors.Is(err, icrl.ErrTooLarge) {
			t.Errorf("New(%v): %v, want ErrTooLarge", shape, err)
		}
	}
}
