package parallel

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// checkChunks runs one For and asserts that every index is covered once,
// by the chunks [c·n/k, (c+1)·n/k) and no others.
func checkChunks(t *testing.T, tm *Team, n, chunks, threads int) {
	t.Helper()
	hits := make([]int32, n)
	var calls atomic.Int32
	k := max(1, min(chunks, n))
	bad := make(chan string, 1)
	tm.For(n, chunks, threads, func(lo, hi int) {
		calls.Add(1)
		if c := (lo*k + n - 1) / n; lo != c*n/k || hi != (c+1)*n/k {
			select {
			case bad <- fmt.Sprintf("chunk [%d, %d) is not one of the %d chunks of %d", lo, hi, k, n):
			default:
			}
		}
		for i := lo; i < hi; i++ {
			atomic.AddInt32(&hits[i], 1)
		}
	})
	select {
	case msg := <-bad:
		t.Fatalf("n %d, chunks %d, threads %d: %s", n, chunks, threads, msg)
	default:
	}
	for i, h := range hits {
		if h != 1 {
			t.Fatalf("n %d, chunks %d, threads %d: index %d covered %d times", n, chunks, threads, i, h)
		}
	}
	if n > 0 && int(calls.Load()) != k {
		t.Fatalf("n %d, chunks %d, threads %d: %d calls, want %d", n, chunks, threads, calls.Load(), k)
	}
}

func TestTeamForCoversEveryIndexOnce(t *testing.T) {
	var tm Team
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 7, 100} {
			for _, chunks := range []int{0, 1, 2, 3, 16, 200} {
				for _, threads := range []int{0, 1, 2, 3, 8} {
					checkChunks(t, &tm, n, chunks, threads)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestTeamForParked runs loops far apart, so that the workers and the
// caller park between them, and loops back to back.
func TestTeamForParked(t *testing.T) {
	tm := &Team{Spin: time.Microsecond}
	for rep := range 50 {
		checkChunks(t, tm, 64, 4, 3)
		if rep%10 == 0 {
			time.Sleep(200 * time.Microsecond)
		}
	}
	// A slow chunk makes the caller wait past its spin time and park.
	tm.For(2, 2, 2, func(lo, hi int) {
		if lo == 1 {
			time.Sleep(2 * time.Millisecond)
		}
	})
}

// TestTeamForConcurrentAndNested calls For from many goroutines at once
// and from inside chunks: a call that finds the team busy runs serially,
// and every call covers its range.
func TestTeamForConcurrentAndNested(t *testing.T) {
	var tm Team
	var wg sync.WaitGroup
	var total atomic.Int64
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				tm.For(10, 5, 2+g%3, func(lo, hi int) {
					tm.For(hi-lo, 2, 2, func(lo2, hi2 int) { total.Add(int64(hi2 - lo2)) })
				})
			}
		}()
	}
	wg.Wait()
	if got, want := total.Load(), int64(8*200*10); got != want {
		t.Fatalf("covered %d indices, want %d", got, want)
	}
}

// TestTeamBackOff checks that loops no worker joins put the team into
// serial mode for a while, and that a good loop clears the strikes.
func TestTeamBackOff(t *testing.T) {
	var tm Team
	tm.judge(2, 2, time.Microsecond, 0)
	tm.judge(1, 2, 10*time.Microsecond, time.Microsecond) // a good loop
	if tm.strikes != 0 {
		t.Fatalf("strikes after a good loop: %d", tm.strikes)
	}
	for range strikesToBackOff - 1 {
		tm.judge(1, 2, 10*time.Microsecond, 50*time.Microsecond) // slower than the caller alone
	}
	tm.judge(2, 2, 10*time.Microsecond, 0)
	if tm.backOff != minBackOff || !time.Now().Before(tm.serialUntil) {
		t.Fatalf("after %d strikes: back-off %v until %v", strikesToBackOff, tm.backOff, tm.serialUntil)
	}
	// During the spell, the chunks run in order on the caller: chunk 0
	// never sees chunk 1 done.
	var second atomic.Bool
	sawSecond := false
	tm.For(2, 2, 2, func(lo, hi int) {
		if lo == 1 {
			second.Store(true)
			return
		}
		for end := time.Now().Add(20 * time.Millisecond); time.Now().Before(end) && !second.Load(); {
			runtime.Gosched()
		}
		sawSecond = second.Load()
	})
	if sawSecond {
		t.Fatal("a loop ran in parallel during the serial spell")
	}
	for range strikesToBackOff {
		tm.judge(2, 2, time.Microsecond, 0)
	}
	if tm.backOff != 2*minBackOff {
		t.Fatalf("second spell: back-off %v, want %v", tm.backOff, 2*minBackOff)
	}
	for range 10 * strikesToBackOff {
		tm.judge(2, 2, time.Microsecond, 0)
	}
	if tm.backOff != maxBackOff {
		t.Fatalf("back-off %v, want the cap %v", tm.backOff, maxBackOff)
	}
}
