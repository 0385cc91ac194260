package schedule_test

import (
	"math"
	"testing"

	"github.com/icrl-go/icrl/learner/schedule"
)

// TestCai checks the exponents of Cai et al. at τ = 8 and 2⁸ by hand, the
// square-root form against math.Pow, and PolicyAt against At.
func TestCai(t *testing.T) {
	for _, tau := range []int{1, 8, 256} {
		x := float64(tau)
		want := schedule.StepSizes{Eta: math.Pow(x, -5.0/8), Beta: math.Pow(x, -3.0/8), Epsilon: math.Pow(x, -1.0/8), Delta: 1 / (3 * (x + 1) * (x + 1)), Alpha: math.Pow(x, -2.0/3)}
		for _, c := range []schedule.Cai{{}, {Roots: true}} {
			got := c.At(99, tau, 0, 3)
			if !near(got, want, 1e-14) {
				t.Errorf("%+v.At(τ = %d) = %+v, want %+v", c, tau, got, want)
			}
			p := c.PolicyAt(99, tau, 0, 3)
			if p.Alpha != 0 || p.Eta != got.Eta || p.Beta != got.Beta || p.Epsilon != got.Epsilon || p.Delta != got.Delta {
				t.Errorf("%+v.PolicyAt(τ = %d) = %+v, want At without α (%+v)", c, tau, p, got)
			}
		}
	}
	// τ = 256: τ^{−1/8} = 1/2 exactly, so η = 2⁻⁵, β = 2⁻³.
	if s := (schedule.Cai{Roots: true}).At(1, 256, 0, 2); s.Epsilon != 0.5 || s.Beta != 0.125 || s.Eta != 1.0/32 {
		t.Errorf("Cai at τ = 256: %+v, want ε = 1/2, β = 1/8, η = 1/32", s)
	}
}

// TestPaper checks the schedule of the paper's analysis at T = 8 (T^{−1/3}
// = 1/2) and its NaN steps without a horizon.
func TestPaper(t *testing.T) {
	s := schedule.Paper{}.At(5, 1, 8, 2)
	want := schedule.StepSizes{Eta: 1.0 / 32, Beta: 0.5, Epsilon: 0.5, Delta: 1.0 / 128, Alpha: 1}
	if !near(s, want, 1e-15) {
		t.Errorf("Paper at T = 8, τ = 1: %+v, want %+v", s, want)
	}
	// App. C: β_τ = τ^{−1/3} per visit; α_τ = τ^{−2/3}.
	s = schedule.Paper{Markov: true}.At(5, 27, 8, 2)
	if math.Abs(s.Beta-1.0/3) > 1e-15 || math.Abs(s.Alpha-1.0/9) > 1e-15 || math.Abs(s.Eta-1.0/32) > 1e-15 {
		t.Errorf("Paper{Markov} at T = 8, τ = 27: %+v, want β = 1/3, α = 1/9, η = 1/32", s)
	}
	if s := (schedule.Paper{}).At(1, 1, 0, 2); !math.IsNaN(s.Eta) || !math.IsNaN(s.Delta) {
		t.Errorf("Paper without a horizon: %+v, want NaN steps", s)
	}
}

// TestFunc checks that Func passes its arguments through.
func TestFunc(t *testing.T) {
	f := schedule.Func(func(t, visit, horizon, actions int) schedule.StepSizes {
		return schedule.StepSizes{Eta: float64(t), Beta: float64(visit), Epsilon: float64(horizon), Delta: float64(actions)}
	})
	if s := f.At(1, 2, 3, 4); s != (schedule.StepSizes{Eta: 1, Beta: 2, Epsilon: 3, Delta: 4}) {
		t.Errorf("Func.At(1, 2, 3, 4) = %+v", s)
	}
}

func near(a, b schedule.StepSizes, tol float64) bool {
	d := func(x, y float64) bool { return math.Abs(x-y) <= tol*math.Max(1, math.Abs(y)) }
	return d(a.Eta, b.Eta) && d(a.Beta, b.Beta) && d(a.Epsilon, b.Epsilon) && d(a.Delta, b.Delta) && d(a.Alpha, b.Alpha)
}
