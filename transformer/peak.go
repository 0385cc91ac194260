package transformer

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/transformer/internal/gemm"
)

// PeakGFLOPS measures the single-precision matrix product that training
// and inference run on, for benchmark harnesses that report how far a
// training step is from the machine's limit: it times C = A·B for
// random n×n float32 matrices on runtime.GOMAXPROCS(0) goroutines,
// repeating the product for at least d, and returns the best rate of the
// repetitions in GFLOP/s (2n³ floating-point operations a product). It
// allocates 3n² floats, and returns an error wrapping ErrInvalid if n < 1
// or ErrTooLarge if 3n² exceeds DefaultMaxParams.
func PeakGFLOPS(n int, d time.Duration) (float64, error) {
	if n < 1 {
		return 0, fmt.Errorf("%w: PeakGFLOPS needs n ≥ 1, got %d", icrl.ErrInvalid, n)
	}
	if _, ok := num.SizeWithin(DefaultMaxParams, 3, n, n); !ok {
		return 0, fmt.Errorf("%w: PeakGFLOPS with n = %d needs 3n² floats, more than DefaultMaxParams = %d", icrl.ErrTooLarge, n, DefaultMaxParams)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	a, b, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for k := range a {
		a[k], b[k] = rng.Float32(), rng.Float32()
	}
	gemm.Float32(false, false, n, n, n, 1, a, n, b, n, 0, c, n) // warm-up
	best := 0.0
	for start := time.Now(); time.Since(start) < d || best == 0; {
		t0 := time.Now()
		gemm.Float32(false, false, n, n, n, 1, a, n, b, n, 0, c, n)
		if s := time.Since(t0).Seconds(); s > 0 {
			best = max(best, 2*float64(n)*float64(n)*float64(n)/s/1e9)
		}
	}
	return best, nil
}
