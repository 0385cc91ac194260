package bandit

import (
	"math/rand/v2"
	"testing"
)

// benchBandit measures one round (Act and Observe) of a Learner on the
// paper's stationary linear bandit (Chen, Ito and Imaizumi 2025, §5: w ~ U[0,1]^d, a fixed action set ~ U[−1,1]^d, noise N(0, 1.5²)),
// or on a K-armed Bernoulli bandit when d = 0, and reports rounds per
// second. The learner keeps learning for all b.N rounds; the per-round cost
// does not depend on the round.
func benchBandit(b *testing.B, l Learner, d, arms int) {
	rng := rand.New(rand.NewPCG(1, 2))
	means := make([]float64, arms)
	var actions [][]float64
	if d > 0 {
		w := make([]float64, d)
		for i := range w {
			w[i] = rng.Float64()
		}
		actions = make([][]float64, arms)
		for k := range actions {
			actions[k] = make([]float64, d)
			for i := range actions[k] {
				actions[k][i] = 2*rng.Float64() - 1
				means[k] += actions[k][i] * w[i]
			}
		}
	} else {
		for k := range means {
			means[k] = float64(k+1) / float64(arms+1)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		arm, _ := l.Act(i+1, actions, rng)
		r := means[arm] + 1.5*rng.NormFloat64()
		if d == 0 {
			r = 0
			if rng.Float64() < means[arm] {
				r = 1
			}
		}
		if err := l.Observe(i+1, actions, arm, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rounds/s")
}

func BenchmarkLinUCB(b *testing.B) {
	b.Run("d=32,A=10", func(b *testing.B) {
		l, err := NewLinUCB(LinUCBConfig{Dim: 32})
		if err != nil {
			b.Fatal(err)
		}
		benchBandit(b, l, 32, 10)
	})
}

func BenchmarkOFUL(b *testing.B) {
	b.Run("d=32,A=10", func(b *testing.B) {
		l, err := NewOFUL(OFULConfig{Dim: 32, Horizon: 1000})
		if err != nil {
			b.Fatal(err)
		}
		benchBandit(b, l, 32, 10)
	})
}

func BenchmarkLinTS(b *testing.B) {
	for _, c := range []struct {
		name string
		aux  AuxRule
	}{{"d=32,A=10", AuxSampled}, {"d=32,A=10,PosteriorUCB", AuxPosteriorUCB}} {
		b.Run(c.name, func(b *testing.B) {
			l, err := NewLinTS(LinTSConfig{Dim: 32, Aux: c.aux})
			if err != nil {
				b.Fatal(err)
			}
			benchBandit(b, l, 32, 10)
		})
	}
}

func BenchmarkUCB1(b *testing.B) {
	b.Run("K=10", func(b *testing.B) {
		l, err := NewUCB1(UCB1Config{Arms: 10, Horizon: 1000})
		if err != nil {
			b.Fatal(err)
		}
		benchBandit(b, l, 0, 10)
	})
}
