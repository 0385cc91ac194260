package nonstationary

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/icrl-go/icrl/learner/bandit"
)

// mstBenchUCB is a cheap UCB1-like K-armed stub for the overhead benchmark:
// index mean + sqrt(2/count), optimistic value = the index clipped to 1.
type mstBenchUCB struct {
	sums   []float64
	counts []float64
}

func (u *mstBenchUCB) Reset() { clear(u.sums); clear(u.counts) }

func (u *mstBenchUCB) Act(t int, actions [][]float64, rng *rand.Rand) (int, float64) {
	best, arm := math.Inf(-1), 0
	for a, n := range u.counts {
		v := math.Inf(1)
		if n > 0 {
			v = u.sums[a]/n + math.Sqrt(2/n)
		}
		if v > best {
			best, arm = v, a
		}
	}
	return arm, math.Min(best, 1)
}

func (u *mstBenchUCB) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if arm < 0 || arm >= len(u.sums) || math.IsNaN(reward) || math.IsInf(reward, 0) {
		return errors.New("mstBenchUCB: bad feedback")
	}
	u.sums[arm] += reward
	u.counts[arm]++
	return nil
}

func mstBenchFactory() (bandit.Learner, error) {
	return &mstBenchUCB{sums: make([]float64, 10), counts: make([]float64, 10)}, nil
}

// BenchmarkMasterOverhead measures the per-round cost of MASTER wrapping a
// 10-armed UCB-like stub against the stub alone, over runs of T = 10⁴
// rounds of a Bernoulli bandit whose best arm flips at T/2 (one op = one
// run; ns/round = ns/op / T). "literal" uses the paper's constants (no
// restart can happen), "scaled" uses RhoHatMult = 1 so that the tests fire.
func BenchmarkMasterOverhead(b *testing.B) {
	const T = 10000
	means := func(t, a int) float64 {
		if (t > T/2) == (a == 0) {
			return 0.8
		}
		return 0.5
	}
	rho := func(t int) float64 { return math.Sqrt(10/float64(t)) + 10/float64(t) }
	run := func(b *testing.B, mk func(rng *rand.Rand) bandit.Learner) {
		var restarts int
		start := time.Now()
		for i := 0; b.Loop(); i++ {
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			l := mk(rng)
			for t := 1; t <= T; t++ {
				arm, _ := l.Act(t, nil, rng)
				r := 0.0
				if rng.Float64() < means(t, arm) {
					r = 1
				}
				if err := l.Observe(t, nil, arm, r); err != nil {
					b.Fatal(err)
				}
			}
			if m, ok := l.(*Master); ok {
				restarts += len(m.Restarts())
			}
		}
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*T), "ns/round")
		b.ReportMetric(float64(restarts)/float64(b.N), "restarts/run")
	}
	master := func(mult float64) func(rng *rand.Rand) bandit.Learner {
		return func(rng *rand.Rand) bandit.Learner {
			m, err := NewMaster(MasterConfig{Horizon: T, Delta: 1, Rho: rho, RhoHatMult: mult}, mstBenchFactory, rng)
			if err != nil {
				b.Fatal(err)
			}
			return m
		}
	}
	b.Run("base/T=10000", func(b *testing.B) {
		run(b, func(*rand.Rand) bandit.Learner { l, _ := mstBenchFactory(); return l })
	})
	b.Run("master-literal/T=10000", func(b *testing.B) { run(b, master(0)) })
	b.Run("master-scaled/T=10000", func(b *testing.B) { run(b, master(1)) })
}
