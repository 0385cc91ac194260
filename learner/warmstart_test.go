package learner_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/learner"
)

// TestOMDWarmStart: a warm start is kept by the schedule entered late,
// and thrown away by the schedule from its first visit; it is projected,
// reset to and replayed.
func TestOMDWarmStart(t *testing.T) {
	start := [][]float64{{0.875, 0.125}}
	// The schedule from its first visit pulls the start toward uniform:
	// reward 1 on action 0 three times.
	cold, err := learner.NewOMD(learner.OMDConfig{Actions: 2, WarmVisits: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := cold.WarmStart(start); err != nil {
		t.Fatal(err)
	}
	var got []float64
	for range 3 {
		if err := cold.Observe(0, 0, 1, 0); err != nil {
			t.Fatal(err)
		}
		got = append(got, cold.Policy(0)[0])
	}
	for k, want := range []float64{0.6875, 0.632, 0.603} {
		if math.Abs(got[k]-want) > 5e-4 {
			t.Errorf("cold schedule after %d rounds: x₀ = %.4f, want %.4f", k+1, got[k], want)
		}
	}
	// The default warm start keeps it.
	warm, err := learner.NewOMD(learner.OMDConfig{Actions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := warm.WarmStart(start); err != nil {
		t.Fatal(err)
	}
	if warm.Visits(0) != learner.DefaultWarmVisits {
		t.Errorf("visits after a warm start %d, want %d", warm.Visits(0), learner.DefaultWarmVisits)
	}
	var hist []learner.Step
	for k := range 3 {
		if err := warm.Observe(0, 0, 1, 0); err != nil {
			t.Fatal(err)
		}
		hist = append(hist, learner.Step{Action: 0, Reward: 1})
		if x := warm.Policy(0)[0]; !(x > 0.87 && x < 0.9) {
			t.Errorf("warm start after %d rounds: x₀ = %.4f, want it kept near 0.875", k+1, x)
		}
	}
	// The replay of the history from the warm start is the learner's
	// policy, bit for bit.
	d, err := warm.Distribution(nil, hist, 0)
	if err != nil || !slices.Equal(d, warm.Policy(0)) {
		t.Errorf("replayed policy %v (%v), online %v", d, err, warm.Policy(0))
	}
	warm.Reset()
	if p := warm.Policy(0); math.Abs(p[0]-0.875) > 1e-15 || math.Abs(p[1]-0.125) > 1e-15 || warm.Visits(0) != learner.DefaultWarmVisits {
		t.Errorf("after Reset: policy %v, visits %d; want the warm start", warm.Policy(0), warm.Visits(0))
	}
	// A start outside the truncated simplex is projected onto it.
	if err := warm.WarmStart([][]float64{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	delta := 1 / (2 * math.Pow(learner.DefaultWarmVisits+2, 2))
	if p := warm.Policy(0); math.Abs(p[1]-delta) > 1e-15 || math.Abs(p[0]+p[1]-1) > 1e-15 {
		t.Errorf("projected start %v, want (1 − δ, δ) with δ = %v", p, delta)
	}
	// Bad starts leave the learner unchanged.
	before := slices.Clone(warm.Policy(0))
	for _, bad := range [][][]float64{nil, {{0.5, 0.5}, {0.5, 0.5}}, {{0.5, 0.6}}, {{0.5}}, {{math.NaN(), 1}}} {
		if err := warm.WarmStart(bad); err == nil {
			t.Errorf("warm start %v accepted", bad)
		}
	}
	if !slices.Equal(warm.Policy(0), before) {
		t.Errorf("a rejected warm start changed the policy to %v", warm.Policy(0))
	}
	if _, err := learner.NewOMD(learner.OMDConfig{Actions: 2, WarmVisits: -2}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("WarmVisits = −2: %v", err)
	}
}

// TestMWUWarmStart: the exponential-weights learners start from a given
// distribution (floored at 1e-12), reset to it, and keep it when rejected.
func TestMWUWarmStart(t *testing.T) {
	for _, name := range []string{"MWU", "OptimisticMWU"} {
		var l learner.WarmStarter
		var err error
		if name == "MWU" {
			l, err = learner.NewMWU(learner.MWUConfig{Actions: 3})
		} else {
			l, err = learner.NewOptimisticMWU(learner.MWUConfig{Actions: 3})
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := l.WarmStart([][]float64{{0.7, 0.3, 0}}); err != nil {
			t.Fatal(err)
		}
		want := []float64{0.7, 0.3, 1e-12}
		for i, p := range l.Policy(0) {
			if math.Abs(p-want[i]) > 1e-11 {
				t.Fatalf("%s: warm-started policy %v, want %v", name, l.Policy(0), want)
			}
		}
		if err := l.Observe(0, 0, 1, 0); err != nil {
			t.Fatal(err)
		}
		l.Reset()
		if math.Abs(l.Policy(0)[0]-0.7) > 1e-11 {
			t.Errorf("%s: after Reset %v, want the warm start", name, l.Policy(0))
		}
		for _, bad := range [][][]float64{{{0.5, 0.5}}, {{0.2, 0.3, 0.5}, {0.2, 0.3, 0.5}}, nil} {
			if err := l.WarmStart(bad); err == nil {
				t.Errorf("%s: warm start %v accepted", name, bad)
			}
		}
		if math.Abs(l.Policy(0)[0]-0.7) > 1e-11 {
			t.Errorf("%s: a rejected warm start changed the policy to %v", name, l.Policy(0))
		}
	}
}
