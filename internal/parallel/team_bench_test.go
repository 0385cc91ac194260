package parallel

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkDispatch measures the round trip of a two-block loop whose
// blocks do almost nothing, after gap of serial work on the caller: the
// cost of handing work to a second goroutine that has been idle that long
// and waiting for it. The serial gap is included in ns/op.
func BenchmarkDispatch(b *testing.B) {
	var sink [2]int
	fn := func(w, lo, hi int) { sink[w] += hi - lo }
	for _, gap := range []time.Duration{0, 20 * time.Microsecond, 100 * time.Microsecond} {
		b.Run(fmt.Sprintf("Blocks/gap=%v", gap), func(b *testing.B) {
			for range b.N {
				busy(gap)
				Blocks(2, 2, fn)
			}
		})
		b.Run(fmt.Sprintf("Team/gap=%v", gap), func(b *testing.B) {
			var t Team
			for range b.N {
				busy(gap)
				t.For(2, 2, 2, func(lo, hi int) { fn(lo, 0, hi) })
			}
		})
	}
}

// busy spins on the calling goroutine for d.
func busy(d time.Duration) {
	if d == 0 {
		return
	}
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}
