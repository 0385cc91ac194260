package nested

import (
	"slices"
	"testing"
)

func TestDense(t *testing.T) {
	d := Dense4([][][][]float64{{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}, {{{9, 10}, {11, 12}}, {{13, 14}, {15, 16}}}})
	if !slices.Equal(d.Shape(), []int{2, 2, 2, 2}) || d.At(1, 0, 1, 0) != 11 || d.Data()[15] != 16 {
		t.Fatalf("Dense4: shape %v, data %v", d.Shape(), d.Data())
	}
	for name, f := range map[string]func(){
		"ragged":      func() { Dense3([][][]float64{{{1, 2}}, {{1}}}) },
		"empty":       func() { Dense4([][][][]float32{}) },
		"ragged rows": func() { Dense2([][]float64{{1}, {1, 2}}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
