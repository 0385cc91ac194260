package nonstationary

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/icrl-go/icrl/learner/bandit"
)

// cosineGen draws a paper-style high non-stationarity instance (small d).
func cosineGen(rng *rand.Rand) (Env, error) {
	w, a := SampleLBMInstance(4, 5, rng)
	acts, err := FixedActions(a)
	if err != nil {
		return nil, err
	}
	return NewCosine(w, acts, 1.5, 0.018, 60)
}

func uniformFactory() (bandit.Learner, error) { return &uniformArm{k: 5}, nil }

func TestMonteCarloDeterministic(t *testing.T) {
	const runs, seed = 9, 42
	prev := runtime.GOMAXPROCS(1)
	s1, err1 := MonteCarlo(context.Background(), cosineGen, uniformFactory, runs, seed)
	runtime.GOMAXPROCS(2)
	s2, err2 := MonteCarlo(context.Background(), cosineGen, uniformFactory, runs, seed)
	runtime.GOMAXPROCS(prev)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if s1.Runs != runs || s1.Horizon != 60 {
		t.Fatalf("Runs %d Horizon %d", s1.Runs, s1.Horizon)
	}
	for i := range s1.MeanCumRegret {
		if s1.MeanCumRegret[i] != s2.MeanCumRegret[i] || s1.StdCumRegret[i] != s2.StdCumRegret[i] ||
			s1.MeanInstRegret[i] != s2.MeanInstRegret[i] {
			t.Fatalf("round %d differs between GOMAXPROCS 1 and 2: %v±%v vs %v±%v", i+1,
				s1.MeanCumRegret[i], s1.StdCumRegret[i], s2.MeanCumRegret[i], s2.StdCumRegret[i])
		}
	}
	if s1.FinalMean != s2.FinalMean || s1.FinalStd != s2.FinalStd {
		t.Fatalf("final differs: %v±%v vs %v±%v", s1.FinalMean, s1.FinalStd, s2.FinalMean, s2.FinalStd)
	}

	// Direct computation over the runs.
	finals := make([]float64, runs)
	curves := make([][]float64, runs)
	insts := make([][]float64, runs)
	for r := range runs {
		rng := rand.New(rand.NewPCG(seed, uint64(r)))
		e, err := cosineGen(rng)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), e, &uniformArm{k: 5}, rng)
		if err != nil {
			t.Fatal(err)
		}
		curves[r], insts[r] = res.CumRegret, res.InstRegret
		finals[r] = res.CumRegret[59]
	}
	for _, tt := range []int{1, 17, 60} {
		m, mi := 0.0, 0.0
		for r := range runs {
			m += curves[r][tt-1]
			mi += insts[r][tt-1]
		}
		m /= runs
		mi /= runs
		v := 0.0
		for r := range runs {
			v += (curves[r][tt-1] - m) * (curves[r][tt-1] - m)
		}
		sd := math.Sqrt(v / (runs - 1))
		if !near(s1.MeanCumRegret[tt-1], m, 1e-12) || !near(s1.StdCumRegret[tt-1], sd, 1e-12) ||
			!near(s1.MeanInstRegret[tt-1], mi, 1e-12) {
			t.Errorf("t=%d: summary %v±%v (inst %v), direct %v±%v (inst %v)", tt,
				s1.MeanCumRegret[tt-1], s1.StdCumRegret[tt-1], s1.MeanInstRegret[tt-1], m, sd, mi)
		}
	}
	if s1.FinalMean != s1.MeanCumRegret[59] || s1.FinalStd != s1.StdCumRegret[59] {
		t.Errorf("Final %v±%v is not the last round", s1.FinalMean, s1.FinalStd)
	}
	if s1.FinalStd == 0 || s1.FinalMean <= 0 {
		t.Errorf("degenerate summary %v±%v", s1.FinalMean, s1.FinalStd)
	}
	// A different seed gives different numbers.
	s3, _ := MonteCarlo(context.Background(), cosineGen, uniformFactory, runs, seed+1)
	if s3.FinalMean == s1.FinalMean {
		t.Errorf("seed does not matter")
	}
	// One run: std 0.
	s4, err := MonteCarlo(context.Background(), cosineGen, uniformFactory, 1, seed)
	if err != nil || s4.FinalStd != 0 || s4.FinalMean != finals[0] {
		t.Errorf("one run: %v±%v, want %v±0 (err %v)", s4.FinalMean, s4.FinalStd, finals[0], err)
	}
}

func TestMonteCarloErrors(t *testing.T) {
	bad := errors.New("no env")
	for _, c := range []struct {
		name string
		gen  func(*rand.Rand) (Env, error)
		f    bandit.Factory
		runs int
		want string
	}{
		{"runs", cosineGen, uniformFactory, 0, "runs ≥ 1"},
		{"nil gen", nil, uniformFactory, 3, "non-nil"},
		{"gen error", func(*rand.Rand) (Env, error) { return nil, bad }, uniformFactory, 4, "run 0: environment: no env"},
		{"factory error", cosineGen, func() (bandit.Learner, error) { return nil, bad }, 4, "run 0: learner factory: no env"},
		{"bad arm", cosineGen, func() (bandit.Learner, error) { return &fixedArm{arm: 9}, nil }, 4, "run 0: icrl: invalid argument: learner chose arm 9"},
		{"horizon mismatch", func(rng *rand.Rand) (Env, error) {
			T := 10
			if rng.Float64() < 0.5 {
				T = 11
			}
			return NewSMPyProblem(1, T)
		}, func() (bandit.Learner, error) { return &fixedArm{arm: 0}, nil }, 20, "has horizon"},
	} {
		_, err := MonteCarlo(context.Background(), c.gen, c.f, c.runs, 5)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// BenchmarkMonteCarlo100x1e4 measures the harness: 100 runs of 10⁴ rounds
// on a paper-sized linear bandit (d = 32, A = 10, σ = 1.5, one fixed action
// set drawn per run) with a stub learner that cycles through the arms.
func BenchmarkMonteCarlo100x1e4(b *testing.B) {
	gen := func(rng *rand.Rand) (Env, error) {
		w, a := SampleLBMInstance(32, 10, rng)
		acts, err := FixedActions(a)
		if err != nil {
			return nil, err
		}
		return NewLinear(w, acts, 1.5, 10000)
	}
	f := func() (bandit.Learner, error) { return cyclic{}, nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MonteCarlo(context.Background(), gen, f, 100, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMonteCarloCancel: one long run checks the context, so a cancelled
// Monte Carlo returns ctx's error within 200 ms; and a learner factory's
// error is not prefixed twice.
func TestMonteCarloCancel(t *testing.T) {
	envGen := func(*rand.Rand) (Env, error) { return NewPiecewiseBernoulli([][]float64{{0.4, 0.6}}, []int{1}, 1<<21) }
	f := func() (bandit.Learner, error) { return &slowArm{}, nil }
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	// The run (2²¹ rounds of a microsecond) takes seconds: without the
	// context check it ends without an error, and the test fails.
	_, err := MonteCarlo(ctx, envGen, f, 1, 1)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("MonteCarlo: err = %v, want context.Canceled", err)
	}
	bad := func() (bandit.Learner, error) { return bandit.NewLinUCB(bandit.LinUCBConfig{}) }
	_, err = MonteCarlo(context.Background(), envGen, bad, 1, 1)
	if err == nil || strings.Contains(err.Error(), "learner: learner:") {
		t.Errorf("factory error: %v, want one without a doubled prefix", err)
	}
}

// slowArm plays arm 0 after about a microsecond of work a round.
type slowArm struct{ x float64 }

func (s *slowArm) Act(int, [][]float64, *rand.Rand) (int, float64) {
	for i := range 1000 {
		s.x += math.Sqrt(float64(i))
	}
	return 0, 0
}
func (*slowArm) Observe(int, [][]float64, int, float64) error { return nil }
func (*slowArm) Reset()                                       {}
