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

func TestFirstNonFinite(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 700} {
		x32, x64 := make([]float32, n), make([]float64, n)
		for i := range n {
			x32[i], x64[i] = math.MaxFloat32, -math.MaxFloat64
		}
		if FirstNonFinite(x32) != -1 || FirstNonFinite(x64) != -1 {
			t.Fatalf("n %d: finite extremes reported non-finite", n)
		}
		for _, k := range []int{0, n / 2, n - 1} {
			if n == 0 {
				continue
			}
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				x32[k], x64[k] = float32(bad), bad
				if got := FirstNonFinite(x32); got != k {
					t.Fatalf("float32 n %d: %v at %d found at %d", n, bad, k, got)
				}
				if got := FirstNonFinite(x64); got != k {
					t.Fatalf("float64 n %d: %v at %d found at %d", n, bad, k, got)
				}
				x32[k], x64[k] = 1, 1
			}
		}
	}
}

func TestSizeWithin(t *testing.T) {
	for _, c := range []struct {
		limit int
		dims  []int
		n     int
		ok    bool
	}{
		{10, nil, 1, true},
		{10, []int{2, 5}, 10, true},
		{10, []int{2, 6}, 2, false},
		{1 << 30, []int{1 << 34, 1 << 34}, 1, false},
		{1 << 30, []int{0, 1 << 62, 1 << 62}, 0, true},
		{math.MaxInt, []int{1 << 40, 1 << 40}, 1 << 40, false},
	} {
		if n, ok := SizeWithin(c.limit, c.dims...); ok != c.ok || (ok && n != c.n) {
			t.Errorf("SizeWithin(%d, %v) = %d, %v, want %d, %v", c.limit, c.dims, n, ok, c.n, c.ok)
		}
	}
}
