package nonstationary

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/learner/bandit"
)

func blObserve(t *testing.T, l bandit.Learner, from int, arms []int, rewards []float64) {
	t.Helper()
	for i := range arms {
		if err := l.Observe(from+i, nil, arms[i], rewards[i]); err != nil {
			t.Fatal(err)
		}
	}
}

func blClose(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("%s = %.15g, want %.15g", name, got, want)
	}
}

// TestSlidingWindowUCBIndices: τ = 3, α = 1, K = 2, plays (0,1), (1,0),
// (0,0), then (1,1). After three rounds N = (2, 1), X = (1, 0), n = 3:
// I = (0.5 + sqrt(ln3/2), sqrt(ln3)) = (1.241152, 1.048147). After the
// fourth the first round leaves the window: N = (1, 2), X = (0, 1):
// I = (sqrt(ln3), 0.5 + sqrt(ln3/2)).
func TestSlidingWindowUCBIndices(t *testing.T) {
	s, err := NewSlidingWindowUCB(SlidingWindowUCBConfig{Arms: 2, Window: 3})
	if err != nil {
		t.Fatal(err)
	}
	if a, v := s.Act(1, nil, nil); a != 0 || !math.IsInf(v, 1) {
		t.Errorf("first Act = (%d, %v), want (0, +Inf)", a, v)
	}
	blObserve(t, s, 1, []int{0, 1, 0}, []float64{1, 0, 0})
	blClose(t, "I0 after 3", s.Index(0), 1.24115190368376)
	blClose(t, "I1 after 3", s.Index(1), 1.0481470739682)
	blClose(t, "I0 formula", s.Index(0), 0.5+math.Sqrt(math.Log(3)/2))
	blObserve(t, s, 4, []int{1}, []float64{1})
	blClose(t, "I0 after 4", s.Index(0), math.Sqrt(math.Log(3)))
	blClose(t, "I1 after 4", s.Index(1), 0.5+math.Sqrt(math.Log(3)/2))
	if a, v := s.Act(5, nil, nil); a != 1 || v != s.Index(1) {
		t.Errorf("Act = (%d, %v), want arm 1 with its index", a, v)
	}
	// Arm 0 leaves the window entirely: its index is +Inf again.
	blObserve(t, s, 5, []int{1, 1}, []float64{0, 0})
	if !math.IsInf(s.Index(0), 1) {
		t.Errorf("I0 = %v after arm 0 left the window, want +Inf", s.Index(0))
	}
	s.Reset()
	if !math.IsInf(s.Index(1), 1) {
		t.Errorf("I1 = %v after Reset", s.Index(1))
	}
	// Default windows.
	if w := SWWindow(2000, 4); w != 123 { // 2·sqrt(2000·ln2000/4) = 123.3
		t.Errorf("SWWindow(2000, 4) = %d, want 123", w)
	}
	s2, _ := NewSlidingWindowUCB(SlidingWindowUCBConfig{Arms: 3, Horizon: 2000, Breakpoints: 4})
	s3, _ := NewSlidingWindowUCB(SlidingWindowUCBConfig{Arms: 3})
	if s2.Window() != 123 || s3.Window() != DefaultSWWindow || s3.Exploration() != 1 {
		t.Errorf("windows %d, %d, alpha %v", s2.Window(), s3.Window(), s3.Exploration())
	}
}

// TestDiscountedUCBIndices: γ = 0.5, α = 1, plays (0,1), (1,0), (0,1):
// N = (1.25, 0.5), X = (1.25, 0), n_γ = 1.75,
// I = (1 + sqrt(ln1.75/2.5), sqrt(ln1.75)) = (1.473124…, 0.748075…).
func TestDiscountedUCBIndices(t *testing.T) {
	d, err := NewDiscountedUCB(DiscountedUCBConfig{Arms: 2, Discount: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	blObserve(t, d, 1, []int{0, 1, 0}, []float64{1, 0, 1})
	if c := d.Counts(); c[0] != 1.25 || c[1] != 0.5 {
		t.Errorf("counts %v, want [1.25 0.5]", c)
	}
	blClose(t, "I0", d.Index(0), 1+math.Sqrt(math.Log(1.75)/2.5))
	blClose(t, "I1", d.Index(1), math.Sqrt(math.Log(1.75)))
	if math.Abs(d.Index(0)-1.4731237) > 1e-6 || math.Abs(d.Index(1)-0.7480747) > 1e-6 {
		t.Errorf("indices %v %v", d.Index(0), d.Index(1))
	}
	if a, _ := d.Act(4, nil, nil); a != 0 {
		t.Errorf("Act = %d, want 0", a)
	}
	d2, _ := NewDiscountedUCB(DiscountedUCBConfig{Arms: 2})
	if d2.Discount() != 0.95 || d2.Exploration() != 1 {
		t.Errorf("defaults γ %v α %v", d2.Discount(), d2.Exploration())
	}
	d.Reset()
	if !math.IsInf(d.Index(0), 1) {
		t.Error("index after Reset not +Inf")
	}
}

// TestCUSUMStatistic: one arm, M = 2, ε = 0.25, h = 1, no exploration,
// rewards 1, 0 | 1, 1, 0, 1, 1, 1, 1. û₀ = 0.5; g⁻ = 0.25, 0.5, 0, 0.25,
// 0.5, 0.75, 1 and g⁺ = 0, 0, 0.25, 0, 0, 0, 0 for t = 3..9, so the
// detector fires at t = 9 and the base learner is reset.
func TestCUSUMStatistic(t *testing.T) {
	f := func() (bandit.Learner, error) {
		return bandit.NewUCB1(bandit.UCB1Config{Arms: 1, Horizon: 100})
	}
	c, err := NewCUSUMRestart(f, CUSUMConfig{Arms: 1, Horizon: 100, Warmup: 2, Epsilon: 0.25, Threshold: 1, NoExplore: true})
	if err != nil {
		t.Fatal(err)
	}
	rewards := []float64{1, 0, 1, 1, 0, 1, 1, 1, 1}
	wantP := []float64{0, 0, 0, 0, 0.25, 0, 0, 0, 0}
	wantM := []float64{0, 0, 0.25, 0.5, 0, 0.25, 0.5, 0.75, 0}
	rng := rand.New(rand.NewPCG(1, 1))
	for i, r := range rewards {
		tt := i + 1
		arm, _ := c.Act(tt, nil, rng)
		if err := c.Observe(tt, nil, arm, r); err != nil {
			t.Fatal(err)
		}
		gp, gm := c.Statistic(0)
		if gp != wantP[i] || gm != wantM[i] {
			t.Errorf("t = %d: (g⁺, g⁻) = (%v, %v), want (%v, %v)", tt, gp, gm, wantP[i], wantM[i])
		}
		if tt < 9 && len(c.Restarts()) != 0 {
			t.Fatalf("early restart at %v", c.Restarts())
		}
	}
	if got := c.Restarts(); !slices.Equal(got, []int{9}) {
		t.Errorf("restarts %v, want [9]", got)
	}
	if n := c.Base().(*bandit.UCB1).Count(0); n != 0 {
		t.Errorf("base learner has %d plays after the restart, want 0", n)
	}
	// Defaults of SMPyBandits: h = log(T/Υ), α = sqrt(log(T/Υ)/(T/Υ)), M = 100, ε = 0.01.
	d, err := NewCUSUMRestart(f, CUSUMConfig{Arms: 1, Horizon: 2000, Breakpoints: 4})
	if err != nil {
		t.Fatal(err)
	}
	blClose(t, "h", d.Threshold(), math.Log(500))
	blClose(t, "α", d.Explore(), math.Sqrt(math.Log(500)/500))
	if d.Warmup() != 100 || d.Epsilon() != 0.01 {
		t.Errorf("M %d ε %v", d.Warmup(), d.Epsilon())
	}
}

// blCounter is a stub that records the first round after each Reset.
type blCounter struct {
	fresh   bool
	freshAt []int
	resets  int
}

func (c *blCounter) Reset() { c.fresh = true; c.resets++ }
func (c *blCounter) Act(t int, _ [][]float64, _ *rand.Rand) (int, float64) {
	if c.fresh {
		c.freshAt = append(c.freshAt, t)
		c.fresh = false
	}
	return 0, 1
}
func (c *blCounter) Observe(int, [][]float64, int, float64) error { return nil }

func TestOracleRestart(t *testing.T) {
	stub := &blCounter{}
	o, err := NewOracleRestart(func() (bandit.Learner, error) { return stub, nil }, []int{1, 5, 9})
	if err != nil {
		t.Fatal(err)
	}
	for tt := 1; tt <= 12; tt++ {
		a, _ := o.Act(tt, nil, nil)
		if err := o.Observe(tt, nil, a, 0); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(stub.freshAt, []int{1, 5, 9}) || stub.resets != 3 {
		t.Errorf("fresh at %v after %d resets, want [1 5 9] after 3 (construction, 5, 9)", stub.freshAt, stub.resets)
	}
	if got := o.Restarts(); !slices.Equal(got, []int{5, 9}) {
		t.Errorf("Restarts %v, want [5 9]", got)
	}
	o.Reset()
	if len(o.Restarts()) != 0 {
		t.Error("Restarts not cleared by Reset")
	}
}

func TestBaselineErrors(t *testing.T) {
	ucb := func() (bandit.Learner, error) {
		return bandit.NewUCB1(bandit.UCB1Config{Arms: 2, Horizon: 10})
	}
	bad := func() (bandit.Learner, error) { return nil, errors.New("boom") }
	for _, c := range []struct {
		name, want string
		err        error
	}{
		{"sw arms", "Arms", func() error { _, e := NewSlidingWindowUCB(SlidingWindowUCBConfig{}); return e }()},
		{"sw window", "Window", func() error { _, e := NewSlidingWindowUCB(SlidingWindowUCBConfig{Arms: 2, Window: -1}); return e }()},
		{"sw horizon", "Horizon", func() error { _, e := NewSlidingWindowUCB(SlidingWindowUCBConfig{Arms: 2, Horizon: -1}); return e }()},
		{"sw breakpoints", "Breakpoints", func() error {
			_, e := NewSlidingWindowUCB(SlidingWindowUCBConfig{Arms: 2, Breakpoints: -1})
			return e
		}()},
		{"sw alpha", "Exploration", func() error {
			_, e := NewSlidingWindowUCB(SlidingWindowUCBConfig{Arms: 2, Exploration: math.NaN()})
			return e
		}()},
		{"ducb arms", "Arms", func() error { _, e := NewDiscountedUCB(DiscountedUCBConfig{}); return e }()},
		{"ducb gamma", "Discount", func() error { _, e := NewDiscountedUCB(DiscountedUCBConfig{Arms: 2, Discount: 1.5}); return e }()},
		{"ducb alpha", "Exploration", func() error { _, e := NewDiscountedUCB(DiscountedUCBConfig{Arms: 2, Exploration: -1}); return e }()},
		{"cusum nil", "factory", func() error { _, e := NewCUSUMRestart(nil, CUSUMConfig{Arms: 2, Horizon: 10}); return e }()},
		{"cusum factory", "boom", func() error { _, e := NewCUSUMRestart(bad, CUSUMConfig{Arms: 2, Horizon: 10}); return e }()},
		{"cusum arms", "Arms", func() error { _, e := NewCUSUMRestart(ucb, CUSUMConfig{Horizon: 10}); return e }()},
		{"cusum horizon", "Horizon", func() error { _, e := NewCUSUMRestart(ucb, CUSUMConfig{Arms: 2}); return e }()},
		{"cusum breakpoints", "Breakpoints", func() error {
			_, e := NewCUSUMRestart(ucb, CUSUMConfig{Arms: 2, Horizon: 10, Breakpoints: -1})
			return e
		}()},
		{"cusum threshold", "Threshold", func() error {
			_, e := NewCUSUMRestart(ucb, CUSUMConfig{Arms: 2, Horizon: 10, Threshold: math.Inf(1)})
			return e
		}()},
		{"cusum warmup", "Warmup", func() error { _, e := NewCUSUMRestart(ucb, CUSUMConfig{Arms: 2, Horizon: 10, Warmup: -1}); return e }()},
		{"cusum epsilon", "Epsilon", func() error {
			_, e := NewCUSUMRestart(ucb, CUSUMConfig{Arms: 2, Horizon: 10, Epsilon: -0.1})
			return e
		}()},
		{"cusum explore", "Explore", func() error { _, e := NewCUSUMRestart(ucb, CUSUMConfig{Arms: 2, Horizon: 10, Explore: 2}); return e }()},
		{"oracle nil", "factory", func() error { _, e := NewOracleRestart(nil, nil); return e }()},
		{"oracle factory", "boom", func() error { _, e := NewOracleRestart(bad, nil); return e }()},
		{"oracle zero", "change point 0 = 0", func() error { _, e := NewOracleRestart(ucb, []int{0}); return e }()},
		{"oracle order", "increase strictly", func() error { _, e := NewOracleRestart(ucb, []int{5, 5}); return e }()},
		{"master factory", "Horizon", func() error { _, e := MasterFactory(MasterConfig{}, ucb)(); return e }()},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, c.err, c.want)
		}
	}
	s, _ := NewSlidingWindowUCB(SlidingWindowUCBConfig{Arms: 2})
	d, _ := NewDiscountedUCB(DiscountedUCBConfig{Arms: 2})
	cu, _ := NewCUSUMRestart(ucb, CUSUMConfig{Arms: 2, Horizon: 10})
	for _, l := range []bandit.Learner{s, d, cu} {
		if l.Observe(1, nil, 2, 0) == nil || l.Observe(1, nil, 0, math.NaN()) == nil {
			t.Errorf("%T accepted a bad arm or a NaN reward", l)
		}
	}
	if s.Observe(1, make([][]float64, 3), 0, 0) == nil {
		t.Error("SW-UCB accepted an action set of the wrong size")
	}
}

// TestBaselinesSMPyProblem1: one seeded run on SMPyBandits' problem 1 at
// T = 2000 (Bernoulli; change points 401, 801, 1201, 1601): the oracle
// restart UCB1 and the CUSUM restart UCB1 have less dynamic regret than
// vanilla UCB1, by a margin (CUSUM with M = 50, ε = 0.1 and the default
// h = log(T/4): SMPyBandits' M = 100, ε = 0.01 raise false alarms here).
func TestBaselinesSMPyProblem1(t *testing.T) {
	const T = 2000
	e, err := NewSMPyProblem(1, T)
	if err != nil {
		t.Fatal(err)
	}
	ucb := func() (bandit.Learner, error) { return bandit.NewUCB1(bandit.UCB1Config{Arms: 3, Horizon: T}) }
	run := func(l bandit.Learner) float64 {
		res, err := Run(context.Background(), e, l, rand.New(rand.NewPCG(2024, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return res.CumRegret[T-1]
	}
	van, _ := ucb()
	orc, err := NewOracleRestart(ucb, e.Starts())
	if err != nil {
		t.Fatal(err)
	}
	cu, err := NewCUSUMRestart(ucb, CUSUMConfig{Arms: 3, Horizon: T, Breakpoints: 4, Warmup: 50, Epsilon: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	sw, _ := NewSlidingWindowUCB(SlidingWindowUCBConfig{Arms: 3, Horizon: T, Breakpoints: 4})
	du, _ := NewDiscountedUCB(DiscountedUCBConfig{Arms: 3})
	rv, ro, rc, rs, rd := run(van), run(orc), run(cu), run(sw), run(du)
	t.Logf("SMPy problem 1, T = %d, seed 2024: regret UCB1 %.1f, oracle %.1f, CUSUM %.1f (restarts %v), SW-UCB(τ=%d) %.1f, D-UCB(γ=0.95) %.1f",
		T, rv, ro, rc, cu.Restarts(), sw.Window(), rs, rd)
	if ro > 0.7*rv {
		t.Errorf("oracle regret %.1f not below 0.7 × UCB1's %.1f", ro, rv)
	}
	if rc > 0.85*rv {
		t.Errorf("CUSUM regret %.1f not below 0.85 × UCB1's %.1f", rc, rv)
	}
}
