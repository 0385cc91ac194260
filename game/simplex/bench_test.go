package simplex

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkProjectTruncated projects a random vector onto the truncated
// simplex with δ = 1/(A·100²), the floor δ = 1/(A·T²) of package learner's
// OMD schedules at T = 100. It does not allocate (dst differs from v).
func BenchmarkProjectTruncated(b *testing.B) {
	for _, n := range []int{3, 10, 100, 1000} {
		b.Run(fmt.Sprintf("A=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(uint64(n), 2))
			v := make([]float64, n)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			dst := make([]float64, n)
			delta := 1 / float64(n*100*100)
			b.ReportAllocs()
			for b.Loop() {
				if err := ProjectTruncated(dst, v, delta); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
