package transformer

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestConstantLR(t *testing.T) {
	c := ConstantLR(3e-4)
	for _, s := range []int{-1, 0, 1, 1 << 40} {
		if c.LR(s) != 3e-4 {
			t.Errorf("LR(%d) = %v", s, c.LR(s))
		}
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	for _, bad := range []float64{-1e-3, math.NaN(), math.Inf(1)} {
		if err := ConstantLR(bad).Validate(); err == nil || !strings.Contains(err.Error(), fmt.Sprint(bad)) {
			t.Errorf("ConstantLR(%v).Validate() = %v", bad, err)
		}
	}
}

func TestWarmupCosine(t *testing.T) {
	s := WarmupCosine{Peak: 1e-3, Min: 1e-4, Warmup: 10, Total: 110}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		step int
		want float64
	}{
		{-5, 1e-4},                           // as step 0
		{0, 1e-4},                            // Peak·1/10
		{4, 5e-4},                            // Peak·5/10
		{9, 1e-3},                            // warmup−1: Peak
		{10, 1e-3},                           // warmup: cosine at 0
		{35, 1e-4 + 9e-4*(1+math.Sqrt2/2)/2}, // a quarter: cos(π/4)
		{60, 5.5e-4},                         // middle: (Peak+Min)/2
		{85, 1e-4 + 9e-4*(1-math.Sqrt2/2)/2}, // three quarters
		{109, 1e-4 + 9e-4*(1+math.Cos(math.Pi*0.99))/2},
		{110, 1e-4},  // total: Min
		{1000, 1e-4}, // beyond: Min
	} {
		if got := s.LR(tc.step); math.Abs(got-tc.want) > 1e-18 {
			t.Errorf("LR(%d) = %.17g, want %.17g", tc.step, got, tc.want)
		}
	}
	// Non-increasing after the warm-up, never below Min.
	for k := 10; k < 120; k++ {
		if s.LR(k+1) > s.LR(k) || s.LR(k) < s.Min {
			t.Errorf("LR(%d) = %v, LR(%d) = %v", k, s.LR(k), k+1, s.LR(k+1))
		}
	}
	// No warm-up: the decay starts at Peak.
	s0 := WarmupCosine{Peak: 2, Min: 0, Warmup: 0, Total: 4}
	for k, want := range []float64{2, 1 + math.Sqrt2/2, 1, 1 - math.Sqrt2/2, 0, 0} {
		if got := s0.LR(k); math.Abs(got-want) > 1e-15 {
			t.Errorf("no warm-up: LR(%d) = %v, want %v", k, got, want)
		}
	}
	// Total = Warmup: Min straight after the warm-up.
	s1 := WarmupCosine{Peak: 1, Min: 0.5, Warmup: 2, Total: 2}
	if got := []float64{s1.LR(0), s1.LR(1), s1.LR(2), s1.LR(3)}; got[0] != 0.5 || got[1] != 1 || got[2] != 0.5 || got[3] != 0.5 {
		t.Errorf("Total = Warmup: %v, want [0.5 1 0.5 0.5]", got)
	}
	// The zero value is valid and gives 0 everywhere.
	if err := (WarmupCosine{}).Validate(); err != nil || (WarmupCosine{}).LR(3) != 0 {
		t.Errorf("zero value: %v, %v", err, (WarmupCosine{}).LR(3))
	}
}

func TestWarmupCosineValidate(t *testing.T) {
	for _, tc := range []struct {
		s    WarmupCosine
		want string
	}{
		{WarmupCosine{Peak: -1, Total: 1}, "Peak -1"},
		{WarmupCosine{Peak: math.NaN(), Total: 1}, "Peak NaN"},
		{WarmupCosine{Peak: math.Inf(1), Total: 1}, "Peak +Inf"},
		{WarmupCosine{Peak: 1, Min: 2, Total: 1}, "Min 2 not in [0, Peak = 1]"},
		{WarmupCosine{Peak: 1, Min: -1, Total: 1}, "Min -1"},
		{WarmupCosine{Peak: 1, Min: math.NaN(), Total: 1}, "Min NaN"},
		{WarmupCosine{Peak: 1, Warmup: -1, Total: 1}, "Warmup -1 is negative"},
		{WarmupCosine{Peak: 1, Warmup: 5, Total: 4}, "Total 4 is less than Warmup 5"},
	} {
		if err := tc.s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want one containing %q", tc.s, err, tc.want)
		}
	}
}

func ExampleWarmupCosine() {
	s := WarmupCosine{Peak: 1e-3, Min: 1e-4, Warmup: 4, Total: 12}
	if err := s.Validate(); err != nil {
		panic(err)
	}
	for _, step := range []int{0, 1, 3, 4, 8, 12, 100} {
		fmt.Printf("step %3d: %.3g\n", step, s.LR(step))
	}
	// Output:
	// step   0: 0.00025
	// step   1: 0.0005
	// step   3: 0.001
	// step   4: 0.001
	// step   8: 0.00055
	// step  12: 0.0001
	// step 100: 0.0001
}
