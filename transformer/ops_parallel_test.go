package transformer

import (
	"runtime"
	"sync"
	"testing"
)

// TestParallelGroups checks that parallelFor and parallelGroups visit
// every index once, in chunks of whole groups when there are at least two
// groups per goroutine and up to parallelChunks chunks per goroutine, on
// 1, 3 and 4 goroutines.
func TestParallelGroups(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3, 4} {
		runtime.GOMAXPROCS(procs)
		for _, c := range []struct{ n, g int }{{256, 4}, {64, 4}, {12, 4}, {1000, 1}, {7, 1}, {30, 3}} {
			var mu sync.Mutex
			seen := make([]int, c.n)
			var chunks [][2]int
			parallelGroups(c.n, c.g, minParallelWork, func(lo, hi int) {
				mu.Lock()
				defer mu.Unlock()
				chunks = append(chunks, [2]int{lo, hi})
				for i := lo; i < hi; i++ {
					seen[i]++
				}
			})
			for i, v := range seen {
				if v != 1 {
					t.Fatalf("procs=%d n=%d g=%d: index %d visited %d times", procs, c.n, c.g, i, v)
				}
			}
			workers := min(procs, c.n)
			if workers > 1 && c.n/c.g >= 2*workers {
				for _, ch := range chunks {
					if ch[0]%c.g != 0 || ch[1]%c.g != 0 {
						t.Fatalf("procs=%d n=%d g=%d: chunk %v splits a group", procs, c.n, c.g, ch)
					}
				}
			}
			if want := min(c.n, parallelChunks*workers); c.g == 1 && workers > 1 && len(chunks) != want {
				t.Fatalf("procs=%d n=%d: %d chunks, want %d", procs, c.n, len(chunks), want)
			}
		}
	}
}
