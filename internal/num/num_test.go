package num

import (
	"math"
	"testing"
)

func TestMeanStd(t *testing.T) {
	for _, c := range []struct {
		v         []float64
		mean, std float64
	}{
		{[]float64{3}, 3, 0},
		{[]float64{1, 3}, 2, math.Sqrt2},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7)},
	} {
		m, s := MeanStd(c.v)
		if math.Abs(m-c.mean) > 1e-15 || math.Abs(s-c.std) > 1e-15 {
			t.Errorf("MeanStd(%v) = %v, %v; want %v, %v", c.v, m, s, c.mean, c.std)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MeanStd of no values did not panic")
		}
	}()
	MeanStd(nil)
}
