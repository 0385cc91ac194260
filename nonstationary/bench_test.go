package nonstationary

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/icrl-go/icrl/learner/bandit"
)

// benchLinearEnv is the paper's linear bandit (d = 32, A = 10, σ = 1.5,
// nonstationary-transformers-master §5) drawn from rng.
func benchLinearEnv(T int) func(*rand.Rand) (Env, error) {
	return func(rng *rand.Rand) (Env, error) {
		w, a := SampleLBMInstance(32, 10, rng)
		acts, err := FixedActions(a)
		if err != nil {
			return nil, err
		}
		return NewLinear(w, acts, 1.5, T)
	}
}

func benchLinUCB() (bandit.Learner, error) {
	return bandit.NewLinUCB(bandit.LinUCBConfig{Dim: 32})
}

// BenchmarkMonteCarloLinUCB: one op is a 100-seed Monte Carlo of 10⁴ rounds
// of LinUCB (d = 32, A = 10) on the paper's linear environment, on all
// cores.
func BenchmarkMonteCarloLinUCB(b *testing.B) {
	const T, runs = 10000, 100
	gen := benchLinearEnv(T)
	start := time.Now()
	for b.Loop() {
		if _, err := MonteCarlo(context.Background(), gen, benchLinUCB, runs, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*T*runs), "ns/round")
}

// benchPlay plays T rounds of l on a fresh linear environment per op and
// reports ns/round.
func benchPlay(b *testing.B, mk func(rng *rand.Rand) bandit.Learner) {
	const T = 10000
	gen := benchLinearEnv(T)
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		rng := rand.New(rand.NewPCG(uint64(i), 3))
		e, err := gen(rng)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Run(context.Background(), e, mk(rng), rng); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*T), "ns/round")
}

// BenchmarkLinUCBAlone: LinUCB (d = 32, A = 10) alone, 10⁴ rounds per op.
func BenchmarkLinUCBAlone(b *testing.B) {
	benchPlay(b, func(*rand.Rand) bandit.Learner { l, _ := benchLinUCB(); return l })
}

// BenchmarkMasterLinUCB: MASTER ([ScaledMasterConfig], ρ =
// bandit.RhoOFUL) around the same LinUCB, 10⁴ rounds per op; the
// difference from BenchmarkLinUCBAlone is MASTER's overhead with a real
// learner (fresh instances reset their d×d state).
func BenchmarkMasterLinUCB(b *testing.B) {
	const T = 10000
	benchPlay(b, func(rng *rand.Rand) bandit.Learner {
		m, err := NewMaster(ScaledMasterConfig(T, RhoFunc(bandit.RhoOFUL(32, T, 1))), benchLinUCB, rng)
		if err != nil {
			b.Fatal(err)
		}
		return m
	})
}
