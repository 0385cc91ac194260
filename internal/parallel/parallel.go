// Package parallel is the one parallel-for of the module: it splits index
// ranges over goroutines so that every result is written by index and so
// does not depend on the number of goroutines or their scheduling.
//
// Three shapes cover every caller: [Items] hands out single indices
// dynamically (for jobs of uneven cost, such as Monte Carlo runs or
// trajectories), [Blocks] splits a range into contiguous blocks, one per
// worker (for sweeps over states with per-worker scratch), and a [Team]
// runs many short loops in quick succession on persistent workers (for the
// transformer's products and element-wise operations, where starting a
// goroutine per loop costs as much as the loop).
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers returns the number of goroutines to use for n jobs:
// min(runtime.GOMAXPROCS(0), n), at least 1.
func Workers(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n)) }

// Items calls fn(worker, i) for i = 0..n−1 on up to workers goroutines
// (workers ≤ 0 means [Workers](n)); worker ∈ [0, workers) identifies the
// goroutine, for per-worker scratch. Indices are handed out in increasing
// order; after the first error no new index starts, but those running
// finish. Since every index below a failing one was handed out before it,
// Items returns the error of the lowest failing index, whatever the
// schedule, or else ctx.Err() if ctx (which may be nil) is done by the
// time the work stops, even if every index finished: a caller whose items
// check ctx themselves gets ctx's error, not a nil one. With one worker it
// runs on the calling goroutine.
func Items(ctx context.Context, workers, n int, fn func(worker, i int) error) error {
	if n <= 0 {
		return nil
	}
	if workers <= 0 {
		workers = Workers(n)
	}
	workers = min(workers, n)
	if workers == 1 {
		for i := range n {
			if ctx != nil && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := fn(0, i); err != nil {
				return err
			}
		}
		if ctx != nil {
			return ctx.Err()
		}
		return nil
	}
	var (
		next  atomic.Int64
		stop  atomic.Bool
		wg    sync.WaitGroup
		mu    sync.Mutex
		first = -1
		ferr  error
	)
	wg.Add(workers)
	for w := range workers {
		go func() {
			defer wg.Done()
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if ctx != nil && ctx.Err() != nil {
					stop.Store(true)
					return
				}
				if err := fn(w, i); err != nil {
					mu.Lock()
					if first < 0 || i < first {
						first, ferr = i, err
					}
					mu.Unlock()
					stop.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	if ferr != nil {
		return ferr
	}
	if ctx != nil {
		return ctx.Err()
	}
	return nil
}

// For calls fn(i) for i = 0..n−1 on [Workers](n) goroutines and returns the
// error of the lowest failing index, as [Items] does.
func For(n int, fn func(i int) error) error {
	return Items(context.Background(), 0, n, func(_, i int) error { return fn(i) })
}

// Blocks splits [0, n) into workers contiguous blocks [w·n/workers,
// (w+1)·n/workers) and calls fn(w, lo, hi) for each, concurrently
// (workers is capped at n; the last block runs on the calling goroutine,
// so with one worker nothing is spawned). It returns when every block is done.
func Blocks(n, workers int, fn func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	// k is a new variable, not workers reassigned: a parameter that is
	// reassigned and captured by the goroutines below would be moved to
	// the heap on every call, the serial ones included.
	k := min(workers, n)
	if k <= 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(k - 1)
	for w := range k - 1 {
		go func() {
			defer wg.Done()
			fn(w, w*n/k, (w+1)*n/k)
		}()
	}
	fn(k-1, (k-1)*n/k, n)
	wg.Wait()
}
