// Package sweep runs the independent jobs of an example program's study on
// the cores, with a progress line and clean cancellation: on Ctrl-C the
// running jobs stop, the rest are skipped, and the program writes the
// results of the jobs that finished.
package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/icrl-go/icrl/internal/parallel"
)

// Run calls job(ctx, i) for i = 0, …, n−1, spread over the cores (each job
// must be deterministic by its own seeds, so the results do not depend on
// the order or on GOMAXPROCS). After each job it writes to progress, if not
// nil, one line "[k/n] label: summary (elapsed, about … left)", the summary
// being job's first result.
//
// Once ctx is done, jobs not yet started are skipped and a job that returns
// an error while ctx is done counts as cancelled, not failed. Run returns
// which jobs finished and, if one failed, the error of the lowest failing
// index; if ctx was cancelled and nothing failed, it returns ctx.Err().
func Run(ctx context.Context, progress io.Writer, n int, label func(i int) string, job func(ctx context.Context, i int) (string, error)) ([]bool, error) {
	done := make([]bool, n)
	start := time.Now()
	var mu sync.Mutex
	var count int
	err := parallel.For(n, func(i int) error {
		if ctx.Err() != nil {
			return nil
		}
		summary, err := job(ctx, i)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("%s: %w", label(i), err)
		}
		mu.Lock()
		defer mu.Unlock()
		done[i] = true
		count++
		if progress != nil {
			el := time.Since(start)
			left := time.Duration(float64(el) / float64(count) * float64(n-count))
			fmt.Fprintf(progress, "[%d/%d] %s: %s (elapsed %s, about %s left)\n", count, n, label(i), summary,
				el.Round(time.Second), left.Round(time.Second))
		}
		return nil
	})
	if err != nil {
		return done, err
	}
	return done, ctx.Err()
}

// Cancelled reports whether err is the cancellation Run returns after
// Ctrl-C (or a deadline), for which a program writes partial results.
func Cancelled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
