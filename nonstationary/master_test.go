package nonstationary

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/learner/bandit"
)

// mstPlay runs MASTER for rounds from..to with rewards reward(t, arm).
func mstPlay(t *testing.T, m *Master, from, to int, rng *rand.Rand, reward func(t, arm int) float64) {
	t.Helper()
	for tt := from; tt <= to; tt++ {
		arm, _ := m.Act(tt, nil, rng)
		if err := m.Observe(tt, nil, arm, reward(tt, arm)); err != nil {
			t.Fatal(err)
		}
	}
}

func mstBlocksString(bs []BlockInfo) string {
	var s []string
	for _, b := range bs {
		s = append(s, fmt.Sprintf("[%d,%d]n%d:%v", b.Start, b.End, b.Order, b.Reason))
	}
	return strings.Join(s, " ")
}

// TestDefaultRhoHatMult checks the factor of Wei and Luo's (2021) Lemma 3,
// 6(log₂T + 1)log(T/δ), computed by hand: 454.5 at T = 1000, δ = 1; 274.8
// at T = 200; 909.0 at T = 1000, δ = 10⁻³.
func TestDefaultRhoHatMult(t *testing.T) {
	for _, c := range []struct {
		T           int
		delta, want float64
	}{{1000, 1, 454.5}, {200, 1, 274.8}, {1000, 1e-3, 909.0}} {
		if got := DefaultRhoHatMult(c.T, c.delta); math.Abs(got-c.want) > 0.1 {
			t.Errorf("DefaultRhoHatMult(%d, %v) = %.2f, want %.1f ± 0.1", c.T, c.delta, got, c.want)
		}
	}
	m, err := NewMaster(MasterConfig{Horizon: 1000, Delta: 1, Rho: mstInvSqrt}, mstStubFactory(1, nil), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.Config()
	if math.Abs(cfg.RhoHatMult-454.5) > 0.1 || cfg.Test1Coef != 9 || cfg.Test2Coef != 3 || cfg.FirstBlockOrder != 0 {
		t.Errorf("defaults %+v, want RhoHatMult 454.5, Test1Coef 9, Test2Coef 3, FirstBlockOrder 0", cfg)
	}
	if got, want := m.RhoHat(4), cfg.RhoHatMult/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("RhoHat(4) = %v, want %v", got, want)
	}
}

// TestMasterDoublingBlocks checks Wei and Luo's (2021) Algorithm 3 with the
// tests disabled: the blocks are [2^n, 2^{n+1} − 1], and FirstBlockOrder shifts them.
func TestMasterDoublingBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	m, err := NewMaster(MasterConfig{Horizon: 100, Delta: 1, Rho: mstInvSqrt, DisableTest1: true, DisableTest2: true},
		mstStubFactory(1, nil), rng)
	if err != nil {
		t.Fatal(err)
	}
	mstPlay(t, m, 1, 100, rng, func(int, int) float64 { return 0 })
	want := "[1,1]n0:completed [2,3]n1:completed [4,7]n2:completed [8,15]n3:completed [16,31]n4:completed [32,63]n5:completed [64,100]n6:ongoing"
	if got := mstBlocksString(m.Blocks()); got != want {
		t.Errorf("blocks\n got %s\nwant %s", got, want)
	}
	if len(m.Restarts()) != 0 {
		t.Errorf("restarts %v with the tests disabled", m.Restarts())
	}
	g := m.CurrentMALG()
	if g.BlockStart() != 64 || g.BlockEnd() != 127 || g.Order() != 6 {
		t.Errorf("current MALG [%d,%d] order %d", g.BlockStart(), g.BlockEnd(), g.Order())
	}

	m, err = NewMaster(MasterConfig{Horizon: 100, Delta: 1, Rho: mstInvSqrt, DisableTest1: true, DisableTest2: true, FirstBlockOrder: 3},
		mstStubFactory(1, nil), rng)
	if err != nil {
		t.Fatal(err)
	}
	mstPlay(t, m, 1, 60, rng, func(int, int) float64 { return 0 })
	want = "[1,8]n3:completed [9,24]n4:completed [25,56]n5:completed [57,60]n6:ongoing"
	if got := mstBlocksString(m.Blocks()); got != want {
		t.Errorf("FirstBlockOrder 3: blocks\n got %s\nwant %s", got, want)
	}
}

// mstTest2Config is the scaled setting of TestMasterTest2Fires.
func mstTest2Config() MasterConfig {
	return MasterConfig{Horizon: 1000, Delta: 1, Rho: mstInvSqrt, RhoHatMult: 1, Test1Coef: 9, Test2Coef: 3}
}

const mstTest2Blocks = "[1,1]n0:completed [2,3]n1:completed [4,7]n2:completed [8,15]n3:completed [16,24]n4:restarted " +
	"[25,25]n0:completed [26,27]n1:completed [28,31]n2:completed [32,39]n3:completed [40,48]n4:restarted " +
	"[49,49]n0:completed [50,51]n1:completed [52,55]n2:completed [56,60]n3:ongoing"

// TestMasterTest2Fires checks Test 2 of Wei and Luo's (2021) Algorithm 3
// against the rounds worked out by hand from the algorithm: a stub with
// g̃ ≡ 1 and rewards ≡ 0, ρ = 1/√t, RhoHatMult = 1 and coefficients 9/3
// fails Test 2 at t = 24 and again at t = 48 (blocks restarting at 25, 26, 28, 32, 40),
// and never Test 1, whatever the MALG schedules.
func TestMasterTest2Fires(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 11))
		m, err := NewMaster(mstTest2Config(), mstStubFactory(1, nil), rng)
		if err != nil {
			t.Fatal(err)
		}
		mstPlay(t, m, 1, 60, rng, func(int, int) float64 { return 0 })
		want := []Restart{{Time: 24, Test2: true, Test1Order: -1}, {Time: 48, Test2: true, Test1Order: -1}}
		if got := m.Restarts(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("seed %d: restarts %+v, want %+v", seed, got, want)
		}
		if got := mstBlocksString(m.Blocks()); got != mstTest2Blocks {
			t.Fatalf("seed %d: blocks\n got %s\nwant %s", seed, got, mstTest2Blocks)
		}
		if m.U() != 1 {
			t.Errorf("U = %v, want 1", m.U())
		}
	}
	// Test 2 switched off: no restart.
	cfg := mstTest2Config()
	cfg.DisableTest2 = true
	rng := rand.New(rand.NewPCG(1, 1))
	m, err := NewMaster(cfg, mstStubFactory(1, nil), rng)
	if err != nil {
		t.Fatal(err)
	}
	mstPlay(t, m, 1, 60, rng, func(int, int) float64 { return 0 })
	if len(m.Restarts()) != 0 {
		t.Errorf("DisableTest2: restarts %v", m.Restarts())
	}
}

// TestMasterTest1Fires checks Test 1's arithmetic: with g̃ ≡ 0 and rewards
// ≡ 1 (Test 2's average gap is −1, it cannot fail), ρ = 1/√t and
// RhoHatMult = 1, an ended order-m instance fails Test 1 iff
// 1 ≥ 0 + 9/√(2^m), i.e. m ≥ 7. The first order-7 instance is the whole
// block [128, 255], so the failure is at t = 255; after the restart the
// order-7 block is [383, 510].
func TestMasterTest1Fires(t *testing.T) {
	for seed := range uint64(5) {
		rng := rand.New(rand.NewPCG(seed, 12))
		m, err := NewMaster(mstTest2Config(), mstStubFactory(0, nil), rng)
		if err != nil {
			t.Fatal(err)
		}
		mstPlay(t, m, 1, 520, rng, func(int, int) float64 { return 1 })
		want := []Restart{{Time: 255, Test1: true, Test1Order: 7}, {Time: 510, Test1: true, Test1Order: 7}}
		if got := m.Restarts(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("seed %d: restarts %+v, want %+v", seed, got, want)
		}
		bs := m.Blocks()
		if b := bs[7]; b.Start != 128 || b.End != 255 || b.Order != 7 || b.Reason != BlockRestarted {
			t.Errorf("block 7 %+v", b)
		}
		if b := bs[15]; b.Start != 383 || b.End != 510 || b.Order != 7 || b.Reason != BlockRestarted {
			t.Errorf("block 15 %+v", b)
		}
	}
	cfg := mstTest2Config()
	cfg.DisableTest1 = true
	rng := rand.New(rand.NewPCG(1, 1))
	m, err := NewMaster(cfg, mstStubFactory(0, nil), rng)
	if err != nil {
		t.Fatal(err)
	}
	mstPlay(t, m, 1, 520, rng, func(int, int) float64 { return 1 })
	if len(m.Restarts()) != 0 {
		t.Errorf("DisableTest1: restarts %v", m.Restarts())
	}
}

// TestMasterLiteralConstantsNeverFire checks that the thresholds of Wei and
// Luo's (2021) Lemma 3 cannot be reached at these horizons (as Gerogiannis
// et al. 2024 observed): with the paper's
// constants, optimistic values and rewards in [0, 1], T ≤ 10⁴, δ ≤ 1 and
// ρ(t) ≥ 1/√t, no test fails — for the extreme stubs (g̃ ≡ 1, R ≡ 0 and
// g̃ ≡ 0, R ≡ 1) and for a greedy learner on a two-armed Bernoulli bandit
// whose best arm flips from 0.9 to 0.1 — and the blocks are the doubling
// ones.
func TestMasterLiteralConstantsNeverFire(t *testing.T) {
	type run struct {
		name   string
		f      bandit.Factory
		reward func(T int, rng *rand.Rand) func(t, arm int) float64
	}
	const0 := func(T int, _ *rand.Rand) func(int, int) float64 { return func(int, int) float64 { return 0 } }
	const1 := func(T int, _ *rand.Rand) func(int, int) float64 { return func(int, int) float64 { return 1 } }
	flip := func(T int, rng *rand.Rand) func(int, int) float64 {
		return func(t, arm int) float64 {
			p := [2]float64{0.9, 0.1}
			if t > T/2 {
				p = [2]float64{0.1, 0.9}
			}
			if rng.Float64() < p[arm] {
				return 1
			}
			return 0
		}
	}
	runs := []run{
		{"gap1", mstStubFactory(1, nil), const0},
		{"reward1", mstStubFactory(0, nil), const1},
		{"greedy-flip", mstGreedyFactory(2), flip},
	}
	for _, T := range []int{2, 10, 200, 1000, 10000} {
		for _, delta := range []float64{1, 0.1, 1e-3} {
			for _, rho := range []RhoFunc{mstInvSqrt, mstRhoUCB1(2, T, delta)} {
				for i, r := range runs {
					rng := rand.New(rand.NewPCG(uint64(T), uint64(i)))
					m, err := NewMaster(MasterConfig{Horizon: T, Delta: delta, Rho: rho}, r.f, rng)
					if err != nil {
						t.Fatal(err)
					}
					mstPlay(t, m, 1, T, rng, r.reward(T, rng))
					if len(m.Restarts()) != 0 {
						t.Fatalf("T=%d δ=%v %s: restarts %+v", T, delta, r.name, m.Restarts())
					}
					for n, b := range m.Blocks() {
						if b.Start != 1<<n || b.Order != n {
							t.Fatalf("T=%d %s: block %d = %+v", T, r.name, n, b)
						}
					}
				}
			}
		}
	}
}

// TestMasterU checks U_t = min_{τ∈[t_n,t]} g̃_τ, reset at every block,
// with a script of optimistic values indexed by the global round.
func TestMasterU(t *testing.T) {
	script := make([]float64, 200)
	srng := rand.New(rand.NewPCG(4, 4))
	for i := range script {
		script[i] = srng.Float64()
	}
	round := 0
	f := func() (bandit.Learner, error) {
		return &mstStub{k: 2, aux: func(int) float64 { return script[round] }}, nil
	}
	rng := rand.New(rand.NewPCG(5, 5))
	m, err := NewMaster(MasterConfig{Horizon: 150, Delta: 1, Rho: mstInvSqrt}, f, rng)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(m.U(), 1) {
		t.Errorf("U before the first round = %v, want +Inf", m.U())
	}
	for tt := 1; tt <= 150; tt++ {
		round = tt
		arm, g := m.Act(tt, nil, rng)
		if g != script[tt] {
			t.Fatalf("round %d: g̃ = %v, want %v", tt, g, script[tt])
		}
		if err := m.Observe(tt, nil, arm, 0.5); err != nil {
			t.Fatal(err)
		}
		start := 1 << (masterBitsLen(tt) - 1) // doubling blocks: no restart with literal constants
		want := math.Inf(1)
		for s := start; s <= tt; s++ {
			want = math.Min(want, script[s])
		}
		if m.U() != want {
			t.Fatalf("round %d: U = %v, want %v", tt, m.U(), want)
		}
	}
}

// TestMasterReset checks that Reset restarts from round 1 and clears the
// records: the Test 2 scenario replays identically.
func TestMasterReset(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	made := 0
	m, err := NewMaster(mstTest2Config(), mstStubFactory(1, &made), rng)
	if err != nil {
		t.Fatal(err)
	}
	zero := func(int, int) float64 { return 0 }
	mstPlay(t, m, 1, 30, rng, zero)
	m.Reset()
	if len(m.Restarts()) != 0 || len(m.Blocks()) != 1 || !math.IsInf(m.U(), 1) {
		t.Fatalf("after Reset: restarts %v blocks %v U %v", m.Restarts(), m.Blocks(), m.U())
	}
	mstPlay(t, m, 1, 60, rng, zero)
	if got := mstBlocksString(m.Blocks()); got != mstTest2Blocks {
		t.Errorf("after Reset: blocks\n got %s\nwant %s", got, mstTest2Blocks)
	}
	if len(m.Restarts()) != 2 {
		t.Errorf("after Reset: restarts %v", m.Restarts())
	}
	// Learners are recycled across blocks: at most (max order + 2) exist.
	if made > 7 {
		t.Errorf("factory called %d times, want at most 7", made)
	}
}

// TestMasterConfigErrors checks that every invalid setting is rejected with
// an error naming the field.
func TestMasterConfigErrors(t *testing.T) {
	ok := MasterConfig{Horizon: 100, Delta: 0.1, Rho: mstInvSqrt}
	f := mstStubFactory(1, nil)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		name string
		mod  func(*MasterConfig)
		f    bandit.Factory
		rng  *rand.Rand
		want string
	}{
		{"zero horizon", func(c *MasterConfig) { c.Horizon = 0 }, f, rng, "Horizon"},
		{"negative horizon", func(c *MasterConfig) { c.Horizon = -5 }, f, rng, "Horizon"},
		{"zero delta", func(c *MasterConfig) { c.Delta = 0 }, f, rng, "Delta"},
		{"negative delta", func(c *MasterConfig) { c.Delta = -1 }, f, rng, "Delta"},
		{"NaN delta", func(c *MasterConfig) { c.Delta = math.NaN() }, f, rng, "Delta"},
		{"delta > 1", func(c *MasterConfig) { c.Delta = 2 }, f, rng, "Delta"},
		{"nil rho", func(c *MasterConfig) { c.Rho = nil }, f, rng, "Rho"},
		{"increasing rho", func(c *MasterConfig) { c.Rho = func(t int) float64 { return float64(t) } }, f, rng, "Rho"},
		{"NaN rho", func(c *MasterConfig) { c.Rho = func(t int) float64 { return math.NaN() } }, f, rng, "Rho"},
		{"negative RhoHatMult", func(c *MasterConfig) { c.RhoHatMult = -1 }, f, rng, "RhoHatMult"},
		{"Inf RhoHatMult", func(c *MasterConfig) { c.RhoHatMult = math.Inf(1) }, f, rng, "RhoHatMult"},
		{"negative Test1Coef", func(c *MasterConfig) { c.Test1Coef = -9 }, f, rng, "Test1Coef"},
		{"NaN Test2Coef", func(c *MasterConfig) { c.Test2Coef = math.NaN() }, f, rng, "Test2Coef"},
		{"negative FirstBlockOrder", func(c *MasterConfig) { c.FirstBlockOrder = -1 }, f, rng, "FirstBlockOrder"},
		{"huge FirstBlockOrder", func(c *MasterConfig) { c.FirstBlockOrder = 31 }, f, rng, "FirstBlockOrder"},
		{"nil factory", func(*MasterConfig) {}, nil, rng, "factory"},
		{"nil rng", func(*MasterConfig) {}, f, nil, "rng"},
		{"factory error", func(*MasterConfig) {}, func() (bandit.Learner, error) { return nil, errors.New("boom") }, rng, "boom"},
	} {
		cfg := ok
		c.mod(&cfg)
		_, err := NewMaster(cfg, c.f, c.rng)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// TestMasterObserveErrors checks that bad feedback is rejected and leaves
// MASTER unchanged.
func TestMasterObserveErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m, err := NewMaster(mstTest2Config(), mstStubFactory(1, nil), rng)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Observe(1, nil, 0, 0); err == nil {
		t.Error("Observe without Act: no error")
	}
	mstPlay(t, m, 1, 10, rng, func(int, int) float64 { return 0 })
	arm, _ := m.Act(11, nil, rng)
	for _, r := range []float64{math.NaN(), math.Inf(-1), -1} { // the stub rejects −1
		if err := m.Observe(11, nil, arm, r); err == nil {
			t.Errorf("reward %v: no error", r)
		}
	}
	if err := m.Observe(12, nil, arm, 0); err == nil {
		t.Error("Observe(12) after Act(11): no error")
	}
	if err := m.Observe(11, nil, arm, 0); err != nil {
		t.Fatal(err)
	}
	mstPlay(t, m, 12, 60, rng, func(int, int) float64 { return 0 })
	if got := mstBlocksString(m.Blocks()); got != mstTest2Blocks {
		t.Errorf("after rejected feedback: blocks\n got %s\nwant %s", got, mstTest2Blocks)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Act out of sequence did not panic")
			}
		}()
		m.Act(70, nil, rng)
	}()
}

// TestMasterNests checks that a Master's optimistic value is its MALG's
// g̃_t, so that it can itself serve as a base learner.
func TestMasterNests(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	inner := func() (bandit.Learner, error) {
		return NewMaster(mstTest2Config(), mstStubFactory(1, nil), rand.New(rand.NewPCG(1, 2)))
	}
	outer, err := NewMaster(MasterConfig{Horizon: 100, Delta: 1, Rho: mstInvSqrt}, inner, rng)
	if err != nil {
		t.Fatal(err)
	}
	for tt := 1; tt <= 100; tt++ {
		arm, g := outer.Act(tt, nil, rng)
		if g != 1 {
			t.Fatalf("round %d: g̃ = %v, want 1", tt, g)
		}
		if err := outer.Observe(tt, nil, arm, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// ExampleMaster runs MASTER with scaled-down constants (RhoHatMult = 1)
// around a base learner that claims an optimistic value of 1 but earns 0:
// Test 2 fails at t = 24 and, after a restart from scratch, at t = 48
// (the setting of TestMasterTest2Fires).
func ExampleMaster() {
	cfg := MasterConfig{
		Horizon:    1000,
		Delta:      1,
		Rho:        func(t int) float64 { return 1 / math.Sqrt(float64(t)) },
		RhoHatMult: 1,
	}
	m, err := NewMaster(cfg, mstStubFactory(1, nil), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for t := 1; t <= 50; t++ {
		arm, _ := m.Act(t, nil, rng)
		if err := m.Observe(t, nil, arm, 0); err != nil {
			fmt.Println(err)
			return
		}
	}
	for _, r := range m.Restarts() {
		fmt.Printf("restart at t=%d (Test 1 %v, Test 2 %v)\n", r.Time, r.Test1, r.Test2)
	}
	for _, b := range m.Blocks()[5:] {
		fmt.Printf("block n=%d [%d, %d] %v\n", b.Order, b.Start, b.End, b.Reason)
	}
	// Output:
	// restart at t=24 (Test 1 false, Test 2 true)
	// restart at t=48 (Test 1 false, Test 2 true)
	// block n=0 [25, 25] completed
	// block n=1 [26, 27] completed
	// block n=2 [28, 31] completed
	// block n=3 [32, 39] completed
	// block n=4 [40, 48] restarted
	// block n=0 [49, 49] completed
	// block n=1 [50, 50] ongoing
}
