package nonstationary

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/learner/bandit"
)

// Statistical regression tests of the regret rates (Abbasi-Yadkori et al.
// 2011 for LinUCB; Wei and Luo 2021, Theorem 2, for MASTER): Monte Carlo
// over fixed seeds and least-squares log–log slopes. The asserted ranges
// are tolerance bands chosen around the theory's exponents (½ against T
// and against J, ⅔ under drift), not values from the papers. Under -short the grids and
// the number of runs shrink; the assertions stay.

// statSlope is the least-squares slope of log y on log x.
func statSlope(x, y []float64) float64 {
	n := float64(len(x))
	var sx, sy, sxx, sxy float64
	for i := range x {
		lx, ly := math.Log(x[i]), math.Log(y[i])
		sx += lx
		sy += ly
		sxx += lx * lx
		sxy += lx * ly
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

// statFlipEnv is a 2-arm Bernoulli bandit with J equally spaced switches:
// arm 1 has mean 0.5 throughout, arm 0 alternates between 0.9 and 0.1, so
// the best arm flips at every switch. Vanilla UCB1 must unlearn arm 0's
// long 0.9 history after each drop, which makes its regret linear.
func statFlipEnv(T, J int) (*KArmed, error) {
	means := make([][]float64, J+1)
	starts := make([]int, J+1)
	for j := range means {
		means[j] = []float64{0.9, 0.5}
		if j%2 == 1 {
			means[j][0] = 0.1
		}
		starts[j] = j*T/(J+1) + 1
	}
	return NewPiecewiseBernoulli(means, starts, T)
}

func statUCB1(T int) bandit.Factory {
	return func() (bandit.Learner, error) {
		return bandit.NewUCB1(bandit.UCB1Config{Arms: 2, Horizon: T})
	}
}

func statMC(t *testing.T, gen func(*rand.Rand) (Env, error), f bandit.Factory, runs int, seed uint64) float64 {
	t.Helper()
	s, err := MonteCarlo(context.Background(), gen, f, runs, seed)
	if err != nil {
		t.Fatal(err)
	}
	return s.FinalMean
}

func statRuns() int {
	if testing.Short() {
		return 20
	}
	return 50
}

// TestStatLinUCBStationarySlope checks the √T rate of LinUCB on stationary
// linear bandits whose fixed action set is 64 equally spaced points of the
// unit circle (d = 2, θ = (cos φ, sin φ)·|θ| with φ ~ U[0, 2π), |θ| = 1,
// σ = 1). Near-optimal actions are almost indistinguishable, so the regret
// grows like sqrt(T) over these horizons (random finite action sets with
// clear gaps give log T: slope ≈ 0.16). Asserted: the log–log slope of the
// mean regret over T is in [0.35, 0.65].
func TestStatLinUCBStationarySlope(t *testing.T) {
	Ts := []float64{1000, 2000, 4000, 8000, 16000, 32000}
	if testing.Short() {
		Ts = []float64{500, 1000, 2000, 4000}
	}
	const A = 64
	circle := make([][]float64, A)
	for k := range circle {
		a := 2 * math.Pi * float64(k) / A
		circle[k] = []float64{math.Cos(a), math.Sin(a)}
	}
	acts, err := FixedActions(circle)
	if err != nil {
		t.Fatal(err)
	}
	var regs []float64
	for _, Tf := range Ts {
		T := int(Tf)
		gen := func(rng *rand.Rand) (Env, error) {
			phi := 2 * math.Pi * rng.Float64()
			return NewLinear([]float64{math.Cos(phi), math.Sin(phi)}, acts, 1, T)
		}
		f := func() (bandit.Learner, error) { return bandit.NewLinUCB(bandit.LinUCBConfig{Dim: 2}) }
		regs = append(regs, statMC(t, gen, f, statRuns(), 9))
	}
	s := statSlope(Ts, regs)
	t.Logf("LinUCB stationary: T %v regret %.1f slope %.3f", Ts, regs, s)
	if s < 0.35 || s > 0.65 {
		t.Errorf("LinUCB stationary regret slope %.3f not in [0.35, 0.65]", s)
	}
}

// TestStatMasterFlipping checks the √(JT) rate on statFlipEnv with J = 4:
// MASTER+UCB1 with [ScaledMasterConfig] and ρ = bandit.RhoUCB1 against
// vanilla UCB1. What is asserted: vanilla UCB1's slope ≥ 0.85; MASTER's
// regret below vanilla's by 30% at the two largest horizons and its slope
// at least 0.15 below vanilla's; false alarms (stationary runs with any
// restart) ≤ 5%; and the tests fire more often with switches than without.
// Measured (50 runs; see the t.Logf output): vanilla slope ≈ 1.0, MASTER
// slope ≈ 0.77, which is above the band [0.4, 0.7] around ½: MALG's
// fresh UCB1 instances cost ~T^0.7 on their own (the stationary regret has
// the same slope), and with false alarms held at 0 the tests detect few
// switches. Smaller constants do not help: with RhoHatMult ∈ {0.5, 1, 2}
// and (Test1Coef, Test2Coef) ∈ {(1,3), (1,1), (2,2), (0.5,3)} Test 2
// fired in 50 of 50 stationary runs at T = 32000 and the slope was
// 0.86–1.0 (fresh instances have large optimistic values, so g̃ − R is
// large early in every block). TestStatMALGMatchesReference shows the
// T^0.72 floor is the algorithm's, not an implementation error. The
// band is therefore not asserted; the slope is logged.
func TestStatMasterFlipping(t *testing.T) {
	Ts := []float64{2000, 4000, 8000, 16000, 32000}
	if testing.Short() {
		Ts = []float64{2000, 4000, 8000}
	}
	const J = 4
	runs := statRuns()
	var van, mst []float64
	for _, Tf := range Ts {
		T := int(Tf)
		gen := func(*rand.Rand) (Env, error) { return statFlipEnv(T, J) }
		van = append(van, statMC(t, gen, statUCB1(T), runs, 10))
		mst = append(mst, statMC(t, gen, MasterFactory(ScaledMasterConfig(T, RhoFunc(bandit.RhoUCB1(2, T, 1))), statUCB1(T)), runs, 10))
	}
	sv, sm := statSlope(Ts, van), statSlope(Ts, mst)
	t.Logf("flipping J=%d: T %v\n vanilla UCB1 regret %.1f slope %.3f\n MASTER+UCB1 regret %.1f slope %.3f (band [0.4, 0.7], not asserted)", J, Ts, van, sv, mst, sm)
	if sv < 0.85 {
		t.Errorf("vanilla UCB1 slope %.3f < 0.85", sv)
	}
	if sm > sv-0.15 {
		t.Errorf("MASTER slope %.3f not 0.15 below vanilla's %.3f", sm, sv)
	}
	for i := len(Ts) - 2; i < len(Ts); i++ {
		if mst[i] > 0.7*van[i] {
			t.Errorf("T = %v: MASTER regret %.1f not below 0.7 × vanilla %.1f", Ts[i], mst[i], van[i])
		}
	}

	// Restarts: stationary (J = 0) versus switching runs at T = 32000 (also
	// under -short: at T ≤ 8000 the scaled tests never fire).
	const T = 32000
	runs = 50
	count := func(J int) (runsWith, total, test1 int) {
		for r := range runs {
			rng := rand.New(rand.NewPCG(11, uint64(r)))
			e, err := statFlipEnv(T, J)
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewMaster(ScaledMasterConfig(T, RhoFunc(bandit.RhoUCB1(2, T, 1))), statUCB1(T), rng)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Run(context.Background(), e, m, rng); err != nil {
				t.Fatal(err)
			}
			rs := m.Restarts()
			if len(rs) > 0 {
				runsWith++
			}
			total += len(rs)
			for _, x := range rs {
				if x.Test1 {
					test1++
				}
			}
		}
		return
	}
	w0, n0, _ := count(0)
	w4, n4, t4 := count(J)
	fa := float64(w0) / float64(runs)
	t.Logf("T = %d, %d runs: stationary runs with a restart %d (false-alarm rate %.3f, %d restarts); J = %d: runs with a restart %d, restarts %d (Test 1: %d) for %d switches",
		T, runs, w0, fa, n0, J, w4, n4, t4, J*runs)
	if fa > 0.05 {
		t.Errorf("false-alarm rate %.3f > 0.05", fa)
	}
	if n4 <= n0 {
		t.Errorf("restarts with switches %d not more than without %d", n4, n0)
	}
}

// TestStatMALGMatchesReference cross-checks MALG against an independent
// pure-Python simulation of Wei and Luo's (2021) UCB1, MALG and MASTER
// (testdata/malg_reference.py:
// MASTER with both tests off, i.e. MALG on the doubling blocks, around
// UCB1 with ρ = bandit.RhoUCB1(2, T, 1), on the stationary arms (0.9,
// 0.5)). The reference's mean regret ± standard error was
// 130.0 ± 0.6 (T = 2000, 400 runs), 373.3 ± 1.4 (T = 8000, 400 runs) and
// 963.0 ± 4.5 (T = 32000, 150 runs). Asserted: the library's Monte Carlo
// mean is within 4 combined standard errors of each.
//
// The reference also settles why TestStatMasterFlipping and
// TestStatMasterVsJ miss the bands around ½: the cost of MALG's fresh instances alone grows like T^0.72 over
// 2000–32000 (both implementations), so MASTER's regret cannot have a
// slope below that there. The local slope falls with T (measured with the
// library, 20 runs: 0.66 from 2^14 to 2^16, 0.63 to 2^18, 0.58 to 2^20),
// towards the √T of the theory with its log factors.
func TestStatMALGMatchesReference(t *testing.T) {
	ref := []struct {
		T, runs  int
		mean, se float64
	}{{2000, 400, 130.0, 0.6}, {8000, 400, 373.3, 1.4}, {32000, 150, 963.0, 4.5}}
	if testing.Short() {
		ref = ref[:2]
	}
	for _, r := range ref {
		gen := func(*rand.Rand) (Env, error) { return statFlipEnv(r.T, 0) }
		cfg := MasterConfig{Horizon: r.T, Delta: 1, Rho: RhoFunc(bandit.RhoUCB1(2, r.T, 1)), DisableTest1: true, DisableTest2: true}
		s, err := MonteCarlo(context.Background(), gen, MasterFactory(cfg, statUCB1(r.T)), r.runs, 14)
		if err != nil {
			t.Fatal(err)
		}
		se := s.FinalStd / math.Sqrt(float64(r.runs))
		tol := 4 * math.Hypot(se, r.se)
		t.Logf("T = %d: library %.1f ± %.1f, reference %.1f ± %.1f", r.T, s.FinalMean, se, r.mean, r.se)
		if math.Abs(s.FinalMean-r.mean) > tol {
			t.Errorf("T = %d: MALG mean regret %.1f differs from the reference %.1f by more than %.1f", r.T, s.FinalMean, r.mean, tol)
		}
	}
}

// TestStatMasterVsJ checks the √J dependence: at fixed T the slope of
// MASTER+UCB1's regret over J ∈ {2, 4, 8, 16, 32} switches (statFlipEnv).
// Measured (50 runs, T = 16000): MASTER slope ≈ 0.22, below the band
// [0.35, 0.7] around ½, because MALG's own restart cost (present at J = 0)
// dominates the regret at these J; so the range is logged, not asserted.
// Asserted: MASTER's regret grows with J (slope in (0.1, 0.7]) and is
// below vanilla UCB1's at every J.
func TestStatMasterVsJ(t *testing.T) {
	T := 16000
	Js := []float64{2, 4, 8, 16, 32}
	if testing.Short() {
		T = 4000
	}
	runs := statRuns()
	var mst, van []float64
	for _, Jf := range Js {
		J := int(Jf)
		gen := func(*rand.Rand) (Env, error) { return statFlipEnv(T, J) }
		mst = append(mst, statMC(t, gen, MasterFactory(ScaledMasterConfig(T, RhoFunc(bandit.RhoUCB1(2, T, 1))), statUCB1(T)), runs, 12))
		van = append(van, statMC(t, gen, statUCB1(T), runs, 12))
	}
	s := statSlope(Js, mst)
	t.Logf("T = %d: J %v\n MASTER+UCB1 regret %.1f slope %.3f (band [0.35, 0.7])\n vanilla UCB1 regret %.1f slope %.3f", T, Js, mst, s, van, statSlope(Js, van))
	if s <= 0.1 || s > 0.7 {
		t.Errorf("MASTER regret slope over J %.3f not in (0.1, 0.7]", s)
	}
	for i := range Js {
		if mst[i] >= van[i] {
			t.Errorf("J = %v: MASTER regret %.1f not below vanilla %.1f", Js[i], mst[i], van[i])
		}
	}
}

// TestStatMasterDrift checks the Δ^{1/3}T^{2/3} rate: a cosine drift with
// fixed total variation (NewCosine with b = 2/T: two periods over the horizon, so the
// optimal arm flips four times whatever T), d = 4, A = 8 fixed actions,
// σ = 1. MASTER+LinUCB ([ScaledMasterConfig], ρ = bandit.RhoOFUL(d, T,
// 1)) against vanilla LinUCB. Asserted: MASTER's slope in [0.55, 0.8]
// (measured ≈ 0.71 with 50 runs; with ρ̂ this large MASTER's tests do not
// fire and the adaptation comes from MALG), vanilla's ≥ 0.85 (≈ 0.98),
// and MASTER below vanilla at the largest T.
func TestStatMasterDrift(t *testing.T) {
	Ts := []float64{1000, 2000, 4000, 8000, 16000}
	if testing.Short() {
		Ts = []float64{1000, 2000, 4000}
	}
	const d, A = 4, 8
	runs := statRuns()
	lin := func() (bandit.Learner, error) { return bandit.NewLinUCB(bandit.LinUCBConfig{Dim: d}) }
	var van, mst []float64
	for _, Tf := range Ts {
		T := int(Tf)
		gen := func(rng *rand.Rand) (Env, error) {
			w, a := SampleLBMInstance(d, A, rng)
			acts, err := FixedActions(a)
			if err != nil {
				return nil, err
			}
			return NewCosine(w, acts, 1, 2/Tf, T)
		}
		van = append(van, statMC(t, gen, lin, runs, 13))
		mst = append(mst, statMC(t, gen, MasterFactory(ScaledMasterConfig(T, RhoFunc(bandit.RhoOFUL(d, T, 1))), lin), runs, 13))
	}
	sv, sm := statSlope(Ts, van), statSlope(Ts, mst)
	t.Logf("cosine drift b = 2/T: T %v\n vanilla LinUCB regret %.1f slope %.3f\n MASTER+LinUCB regret %.1f slope %.3f (band [0.55, 0.8])", Ts, van, sv, mst, sm)
	if sm < 0.55 || sm > 0.8 {
		t.Errorf("MASTER+LinUCB slope %.3f not in [0.55, 0.8]", sm)
	}
	if sv < 0.85 {
		t.Errorf("vanilla LinUCB slope %.3f < 0.85", sv)
	}
	if n := len(Ts) - 1; mst[n] >= van[n] {
		t.Errorf("T = %v: MASTER regret %.1f not below vanilla %.1f", Ts[n], mst[n], van[n])
	}
}
