package parallel

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestItemsVisitsEveryIndexOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 7, 100} {
			hits := make([]int32, n)
			if err := For(n, func(i int) error { atomic.AddInt32(&hits[i], 1); return nil }); err != nil {
				t.Fatal(err)
			}
			for i, h := range hits {
				if h != 1 {
					t.Fatalf("GOMAXPROCS %d, n %d: index %d visited %d times", procs, n, i, h)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

func TestItemsLowestError(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		for rep := 0; rep < 20; rep++ {
			//lint:ignore SA1012 Items documents a nil context as "no cancellation"
			err := Items(nil, workers, 50, func(_, i int) error {
				if i == 13 || i == 31 || i == 40 {
					return fmt.Errorf("item %d", i)
				}
				return nil
			})
			if err == nil || err.Error() != "item 13" {
				t.Fatalf("workers %d: got %v, want item 13", workers, err)
			}
		}
	}
}

func TestItemsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, workers := range []int{1, 2} {
		var ran atomic.Int32
		err := Items(ctx, workers, 10, func(_, i int) error { ran.Add(1); return nil })
		if !errors.Is(err, context.Canceled) || ran.Load() != 0 {
			t.Fatalf("workers %d: err %v after %d items, want context.Canceled after 0", workers, err, ran.Load())
		}
	}
}

func TestBlocksCoverDisjoint(t *testing.T) {
	for _, n := range []int{1, 5, 64} {
		for _, w := range []int{1, 2, 3, 100} {
			hits := make([]int32, n)
			var calls atomic.Int32
			Blocks(n, w, func(worker, lo, hi int) {
				calls.Add(1)
				if want := worker * n / min(w, n); lo != want {
					t.Errorf("n %d, workers %d: block %d starts at %d, want %d", n, w, worker, lo, want)
				}
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&hits[i], 1)
				}
			})
			if int(calls.Load()) != min(w, n) {
				t.Fatalf("n %d, workers %d: %d blocks", n, w, calls.Load())
			}
			for i, h := range hits {
				if h != 1 {
					t.Fatalf("n %d, workers %d: index %d covered %d times", n, w, i, h)
				}
			}
		}
	}
}

// TestItemsLowestErrorWhenAHigherFailsFirst: index 5 fails after index 6
// has failed (6 runs on the other worker and fails at once), and Items
// still returns index 5's error, the lowest.
func TestItemsLowestErrorWhenAHigherFailsFirst(t *testing.T) {
	for rep := 0; rep < 5; rep++ {
		six := make(chan struct{})
		//lint:ignore SA1012 Items documents a nil context as "no cancellation"
		err := Items(nil, 2, 20, func(_, i int) error {
			switch {
			case i == 5:
				select { // wait for 6 to fail first (or give up)
				case <-six:
				case <-time.After(time.Second):
				}
				return fmt.Errorf("item %d", i)
			case i == 6:
				defer close(six)
				return fmt.Errorf("item %d", i)
			case i > 6:
				return fmt.Errorf("item %d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "item 5" {
			t.Fatalf("rep %d: %v, want item 5", rep, err)
		}
	}
}
