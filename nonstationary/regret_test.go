package nonstationary

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/learner/bandit"
)

// fixedArm always plays arm and reports optimistic value opt.
type fixedArm struct {
	arm      int
	opt      float64
	observed int
	failAt   int // Observe fails at this round if > 0
}

func (l *fixedArm) Reset() { l.observed = 0 }
func (l *fixedArm) Act(t int, actions [][]float64, rng *rand.Rand) (int, float64) {
	return l.arm, l.opt
}
func (l *fixedArm) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if t == l.failAt {
		return errors.New("stub failure")
	}
	if arm != l.arm || math.IsNaN(reward) {
		return fmt.Errorf("stub: arm %d reward %v", arm, reward)
	}
	l.observed++
	return nil
}

// uniformArm plays a uniformly random arm of k, drawing from rng.
type uniformArm struct{ k int }

func (l *uniformArm) Reset() {}
func (l *uniformArm) Act(t int, actions [][]float64, rng *rand.Rand) (int, float64) {
	return rng.IntN(l.k), 1
}
func (l *uniformArm) Observe(t int, actions [][]float64, arm int, reward float64) error { return nil }

// cyclic plays arm t mod K (no randomness): the cheapest stub.
type cyclic struct{}

func (cyclic) Reset() {}
func (cyclic) Act(t int, actions [][]float64, rng *rand.Rand) (int, float64) {
	return t % len(actions), 0
}
func (cyclic) Observe(t int, actions [][]float64, arm int, reward float64) error { return nil }

var _ bandit.Learner = (*fixedArm)(nil)

func TestRunFixedArm(t *testing.T) {
	// SMPyBandits problems at T = 1000 (pieces of 200 rounds).
	for _, c := range []struct {
		problem, arm int
		at200, final float64
	}{
		// problem 1, arm 0: regret 0.6 on pieces 1–2, 0 after: 120, 240.
		{1, 0, 120, 240},
		// problem 1, arm 2: 0, 0, 0.2, 0.6, 0.6 per round: 0, 280.
		{1, 2, 0, 280},
		// problem 2, arm 0: 0.5, 0.2, 0, 0, 0: 100, 140.
		{2, 0, 100, 140},
		// problem 2, arm 1: 0.4, 0.3, 0.3, 0.5, 0.7: 80, 440.
		{2, 1, 80, 440},
	} {
		e, err := NewSMPyProblem(c.problem, 1000)
		if err != nil {
			t.Fatal(err)
		}
		l := &fixedArm{arm: c.arm, opt: 0.75}
		res, err := Run(context.Background(), e, l, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.CumRegret[199]; !near(got, c.at200, 1e-9) {
			t.Errorf("problem %d arm %d: regret after 200 = %v, want %v", c.problem, c.arm, got, c.at200)
		}
		if got := res.CumRegret[999]; !near(got, c.final, 1e-9) {
			t.Errorf("problem %d arm %d: final regret = %v, want %v", c.problem, c.arm, got, c.final)
		}
		if l.observed != 1000 || res.Arms[500] != c.arm || res.Optimistic[10] != 0.75 {
			t.Errorf("problem %d: observed %d, arm %d, optimistic %v", c.problem, l.observed, res.Arms[500], res.Optimistic[10])
		}
		sum := 0.0
		for i, x := range res.InstRegret {
			if x < 0 {
				t.Fatalf("negative instantaneous regret %v at %d", x, i+1)
			}
			sum += x
			if sum != res.CumRegret[i] {
				t.Fatalf("CumRegret[%d] = %v, running sum %v", i, res.CumRegret[i], sum)
			}
			if r := res.Rewards[i]; r != 0 && r != 1 {
				t.Fatalf("Bernoulli reward %v", r)
			}
		}
	}
	// Linear, low scenario, always the worst arm (2): regret 1 per round.
	acts := mustFixed(t, lowActions)
	low, _ := NewLowNonStationary(PaperLowConfig(lowW, acts))
	res, err := Run(context.Background(), low, &fixedArm{arm: 2}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if !near(res.CumRegret[999], 1000, 1e-9) || !near(res.InstRegret[59], 1, 1e-15) {
		t.Errorf("low scenario worst arm: regret %v, inst(60) %v; want 1000, 1", res.CumRegret[999], res.InstRegret[59])
	}
}

func TestRunErrors(t *testing.T) {
	e, _ := NewSMPyProblem(1, 100)
	if _, err := Run(context.Background(), e, &fixedArm{arm: 3}, rand.New(rand.NewPCG(1, 1))); err == nil ||
		!strings.Contains(err.Error(), "arm 3 at round 1, not in [0,3)") {
		t.Errorf("invalid arm: err = %v", err)
	}
	if _, err := Run(context.Background(), e, &fixedArm{arm: -1}, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Errorf("negative arm: no error")
	}
	if _, err := Run(context.Background(), e, &fixedArm{arm: 1, failAt: 7}, rand.New(rand.NewPCG(1, 1))); err == nil ||
		!strings.Contains(err.Error(), "round 7: stub failure") {
		t.Errorf("Observe failure: err = %v", err)
	}
}
