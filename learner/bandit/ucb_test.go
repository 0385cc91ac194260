package bandit_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/learner/bandit"
)

func newUCB1(t testing.TB, cfg bandit.UCB1Config) *bandit.UCB1 {
	t.Helper()
	u, err := bandit.NewUCB1(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestUCB1HandComputed(t *testing.T) {
	// T = 1000, δ = 1000·e⁻⁹ so log(T/δ) = 9, c = ½: the bonus is
	// c·sqrt(9/N⁺) = 1.5/sqrt(N⁺), and unplayed arms have index 1.5.
	u := newUCB1(t, bandit.UCB1Config{Arms: 2, Horizon: 1000, Delta: 1000 * math.Exp(-9), C: 0.5})
	steps := []struct {
		arm    int
		aux    float64
		reward float64
	}{
		{0, 1.5, 0},                      // indices [1.5, 1.5]: tie → arm 0
		{0, 1.5, 1},                      // [0 + 1.5, 1.5]: tie → arm 0
		{0, 0.5 + 1.5/math.Sqrt2, 1},     // [½ + 1.5/√2 = 1.5607, 1.5]
		{0, 2.0/3 + 1.5/math.Sqrt(3), 0}, // [⅔ + 1.5/√3 = 1.5327, 1.5]
		{1, 1.5, 1},                      // [½ + 1.5/2 = 1.25, 1.5]
		{1, 2.5, 0},                      // [1.25, 1 + 1.5 = 2.5]
		{1, 0.5 + 1.5/math.Sqrt2, 0},     // [1.25, ½ + 1.5/√2 = 1.5607]
		{0, 1.25, 1},                     // [1.25, ⅓ + 1.5/√3 = 1.1993]
	}
	for i, s := range steps {
		arm, aux := u.Act(i+1, nil, nil)
		if arm != s.arm || math.Abs(aux-s.aux) > 1e-12 {
			t.Fatalf("t = %d: Act = (%d, %.15g), want (%d, %.15g)", i+1, arm, aux, s.arm, s.aux)
		}
		ok(t, u.Observe(i+1, nil, arm, s.reward))
	}
	if got, want := u.Index(1), 1.0/3+1.5/math.Sqrt(3); math.Abs(got-want) > 1e-12 {
		t.Errorf("final index of arm 1 = %v, want %v", got, want)
	}
	if u.Count(0) != 5 || u.Count(1) != 3 || u.Mean(0) != 0.6 || u.Mean(1) != 1.0/3 {
		t.Errorf("counts (%d, %d), means (%v, %v); want (5, 3), (0.6, ⅓)", u.Count(0), u.Count(1), u.Mean(0), u.Mean(1))
	}
}

// TestUCB1Optimism checks optimism: Bernoulli(0.5, 0.6), T = 10⁴,
// δ = 0.1, c = √½: f̃_t ≥ 0.6 in at least 90% of the rounds.
func TestUCB1Optimism(t *testing.T) {
	const T = 10000
	means := []float64{0.5, 0.6}
	u := newUCB1(t, bandit.UCB1Config{Arms: 2, Horizon: T, Delta: 0.1})
	if u.C() != math.Sqrt(0.5) || u.Delta() != 0.1 {
		t.Fatalf("C = %v, Delta = %v", u.C(), u.Delta())
	}
	rng := rand.New(rand.NewPCG(7, 1))
	opt := 0
	for s := 1; s <= T; s++ {
		arm, aux := u.Act(s, nil, rng)
		if aux >= 0.6 {
			opt++
		}
		r := 0.0
		if rng.Float64() < means[arm] {
			r = 1
		}
		ok(t, u.Observe(s, nil, arm, r))
	}
	frac := float64(opt) / T
	t.Logf("fraction of rounds with f̃_t ≥ 0.6: %.4f", frac)
	if frac < 0.9 {
		t.Errorf("optimistic in %.4f of rounds, want ≥ 0.9", frac)
	}
}

// banditHalves plays a learner on a stationary problem for T rounds and
// returns the pseudo-regret of the first and the second half.
func banditHalves(t testing.TB, l bandit.Learner, T int, actions func(int) [][]float64, mean func(s, k int) float64, arms int, noise func(s, k int, rng *rand.Rand) float64, rng *rand.Rand) (first, second float64) {
	t.Helper()
	for s := 1; s <= T; s++ {
		acts := actions(s)
		arm, aux := l.Act(s, acts, rng)
		if math.IsNaN(aux) {
			t.Fatalf("round %d: optimistic value NaN", s)
		}
		best := math.Inf(-1)
		for k := range arms {
			best = max(best, mean(s, k))
		}
		reg := best - mean(s, arm)
		if s <= T/2 {
			first += reg
		} else {
			second += reg
		}
		ok(t, l.Observe(s, acts, arm, mean(s, arm)+noise(s, arm, rng)))
	}
	return first, second
}

func TestUCB1Regret(t *testing.T) {
	const T, K = 2000, 10
	means := make([]float64, K)
	for k := range means {
		means[k] = 0.2 + 0.6*float64(k)/(K-1) // 0.2 … 0.8, gap 0.067
	}
	u := newUCB1(t, bandit.UCB1Config{Arms: K, Horizon: T})
	rng := rand.New(rand.NewPCG(3, 3))
	first, second := banditHalves(t, u, T, func(int) [][]float64 { return nil },
		func(_, k int) float64 { return means[k] }, K,
		func(_, k int, rng *rand.Rand) float64 {
			if rng.Float64() < means[k] {
				return 1 - means[k]
			}
			return -means[k]
		}, rng)
	t.Logf("UCB1 K=%d T=%d regret: first half %.1f, second half %.1f", K, T, first, second)
	if !(second < first) {
		t.Errorf("second-half regret %.1f not below first-half %.1f", second, first)
	}
}

func TestUCB1Errors(t *testing.T) {
	for _, c := range []struct {
		cfg  bandit.UCB1Config
		want string
	}{
		{bandit.UCB1Config{Arms: 0, Horizon: 10}, "Arms"},
		{bandit.UCB1Config{Arms: 2, Horizon: 0}, "Horizon"},
		{bandit.UCB1Config{Arms: 2, Horizon: 10, Delta: -1}, "Delta"},
		{bandit.UCB1Config{Arms: 2, Horizon: 10, Delta: 1.5}, "Delta"},
		{bandit.UCB1Config{Arms: 2, Horizon: 10, Delta: math.NaN()}, "Delta"},
		{bandit.UCB1Config{Arms: 2, Horizon: 10, C: -1}, "C ="},
		{bandit.UCB1Config{Arms: 2, Horizon: 10, C: math.Inf(1)}, "C ="},
	} {
		_, err := bandit.NewUCB1(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewUCB1(%+v) error %v, want one naming %q", c.cfg, err, c.want)
		}
	}
	u := newUCB1(t, bandit.UCB1Config{Arms: 3, Horizon: 10})
	for _, c := range []struct {
		actions [][]float64
		arm     int
		reward  float64
		want    string
	}{
		{nil, 3, 0, "action 3"},
		{nil, -1, 0, "action -1"},
		{nil, 0, math.NaN(), "NaN"},
		{nil, 0, math.Inf(-1), "-Inf"},
		{[][]float64{{1}, {2}}, 0, 0, "action set of 2 arms"},
	} {
		err := u.Observe(1, c.actions, c.arm, c.reward)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Observe(%v, %d, %v) error %v, want one naming %q", c.actions, c.arm, c.reward, err, c.want)
		}
	}
	ok(t, u.Observe(1, nil, 0, math.MaxFloat64))
	if err := u.Observe(2, nil, 0, math.MaxFloat64); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("overflowing sum: error %v", err)
	}
	for a := range 3 {
		if want := []int{1, 0, 0}[a]; u.Count(a) != want {
			t.Errorf("after rejected observations Count(%d) = %d, want %d", a, u.Count(a), want)
		}
	}
	// An action set with one entry per arm is accepted.
	ok(t, u.Observe(3, [][]float64{{1}, {0}, {0}}, 1, 0.5))
}

func TestUCB1Reset(t *testing.T) {
	cfg := bandit.UCB1Config{Arms: 4, Horizon: 200, Delta: 0.05, C: 1}
	u, fresh := newUCB1(t, cfg), newUCB1(t, cfg)
	play := func(l *bandit.UCB1, seed uint64) (arms []int, auxs []float64) {
		rng := rand.New(rand.NewPCG(seed, 0))
		for s := 1; s <= 200; s++ {
			a, v := l.Act(s, nil, rng)
			arms, auxs = append(arms, a), append(auxs, v)
			ok(t, l.Observe(s, nil, a, rng.Float64()*float64(a+1)/4))
		}
		return arms, auxs
	}
	play(u, 1)
	u.Reset()
	a1, v1 := play(u, 2)
	a2, v2 := play(fresh, 2)
	for i := range a1 {
		if a1[i] != a2[i] || v1[i] != v2[i] {
			t.Fatalf("round %d after Reset: (%d, %v), fresh learner (%d, %v)", i+1, a1[i], v1[i], a2[i], v2[i])
		}
	}
}

// TestRhoUCB1 checks the MALG scheduling probabilities p_m = ρ(2¹⁰)/ρ(2^m)
// (A = 10, T = 1000, δ = 1).
func TestRhoUCB1(t *testing.T) {
	rho := bandit.RhoUCB1(10, 1000, 1)
	want := []float64{0.0042, 0.0081, 0.0153, 0.0283, 0.0512, 0.0902, 0.1545, 0.2568, 0.4145, 0.6515, 1}
	for m, w := range want {
		if p := rho(1<<10) / rho(1<<m); math.Abs(p-w) > 5e-5 {
			t.Errorf("p_%d = %.5f, want %.4f", m, p, w)
		}
	}
	k := 10 * math.Log(1000)
	if got, want := rho(7), math.Sqrt(k/7)+k/7; math.Abs(got-want) > 1e-12 {
		t.Errorf("ρ(7) = %v, want %v", got, want)
	}
	if !math.IsInf(rho(0), 1) {
		t.Errorf("ρ(0) = %v, want +Inf", rho(0))
	}
	for s := 1; s < 1000; s++ {
		if rho(s+1) > rho(s) || float64(s+1)*rho(s+1) < float64(s)*rho(s) {
			t.Fatalf("ρ not non-increasing or tρ(t) not non-decreasing at t = %d", s)
		}
	}
	for _, args := range [][3]float64{{0, 10, 1}, {2, 0, 1}, {2, 10, 0}, {2, 10, 2}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RhoUCB1%v did not panic", args)
				}
			}()
			bandit.RhoUCB1(int(args[0]), int(args[1]), args[2])
		}()
	}
}

// ExampleUCB1 plays UCB1 on two arms with log(T/δ) = log 100 and c = √½;
// arm 1 always pays 1, arm 0 never. The bonus is c·sqrt(log T/N⁺) and
// N⁺ = max{1, N}, so arm 0 after one zero reward still ties the unplayed
// arm 1 at 1.5174 and is played again (Wei and Luo's Algorithm 7 does not
// force one pull per arm).
func ExampleUCB1() {
	u, err := bandit.NewUCB1(bandit.UCB1Config{Arms: 2, Horizon: 100})
	if err != nil {
		panic(err)
	}
	for t := 1; t <= 4; t++ {
		arm, ucb := u.Act(t, nil, nil)
		fmt.Printf("t=%d arm=%d f̃=%.4f\n", t, arm, ucb)
		if err := u.Observe(t, nil, arm, float64(arm)); err != nil {
			panic(err)
		}
	}
	rho := bandit.RhoUCB1(2, 100, 1)
	fmt.Printf("ρ(1) = %.4f, ρ(100) = %.4f\n", rho(1), rho(100))
	// Output:
	// t=1 arm=0 f̃=1.5174
	// t=2 arm=0 f̃=1.5174
	// t=3 arm=1 f̃=1.5174
	// t=4 arm=1 f̃=2.5174
	// ρ(1) = 12.2452, ρ(100) = 0.3956
}
