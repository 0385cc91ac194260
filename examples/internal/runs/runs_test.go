package runs

import (
	"math"
	"slices"
	"testing"
)

func TestCheckpoints(t *testing.T) {
	for T, want := range map[int][]int{
		1:    {1},
		7:    {1, 2, 5, 7},
		1000: {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000},
		1500: {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 1500},
	} {
		if got := Checkpoints(T); !slices.Equal(got, want) {
			t.Errorf("Checkpoints(%d) = %v, want %v", T, got, want)
		}
	}
}

func TestMeanStd(t *testing.T) {
	m, s := MeanStd([]float64{1, 2, 3, 4})
	if m != 2.5 || math.Abs(s-math.Sqrt(5.0/3)) > 1e-15 {
		t.Errorf("MeanStd = %v, %v; want 2.5, %v", m, s, math.Sqrt(5.0/3))
	}
	if m, s := MeanStd([]float64{7}); m != 7 || s != 0 {
		t.Errorf("MeanStd of one value = %v, %v", m, s)
	}
}
