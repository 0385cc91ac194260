package learner

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkOMDStep measures one Observe (gradient, step and projection onto
// the truncated simplex) with the default schedule.Cai.
func BenchmarkOMDStep(b *testing.B) {
	for _, n := range []int{3, 10, 100, 1000} {
		b.Run(fmt.Sprintf("A=%d", n), func(b *testing.B) {
			o, err := NewOMD(OMDConfig{Actions: n})
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 1))
			const k = 1024
			actions := make([]int, k)
			rewards := make([]float64, k)
			for i := range actions {
				actions[i] = rng.IntN(n)
				rewards[i] = rng.Float64()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := o.Observe(0, actions[i%k], rewards[i%k], 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOMDDistribution measures replaying a 256-step history.
func BenchmarkOMDDistribution(b *testing.B) {
	const n, T = 10, 256
	o, err := NewOMD(OMDConfig{Actions: n})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	hist := make([]Step, T)
	for i := range hist {
		hist[i] = Step{Action: rng.IntN(n), Reward: rng.Float64()}
	}
	dst := make([]float64, n)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := o.Distribution(dst, hist, 0); err != nil {
			b.Fatal(err)
		}
	}
}
