// Package sweep runs the independent jobs of an example program's study on
// the cores, with a progress line, clean cancellation and resumption: on
// Ctrl-C the running jobs stop, the rest are skipped and the program writes
// the results of the jobs that finished; every finished job is also saved,
// so that running the same command again (after Ctrl-C, a crash or the end
// of a session) redoes only the jobs that had not finished.
package sweep

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/icrl-go/icrl/examples/internal/progress"
	"github.com/icrl-go/icrl/internal/parallel"
)

// Options configures [Run] for results of type R. The zero value runs
// every job, silently, without saving anything.
type Options[R any] struct {
	// Progress shows the last finished job; nil means nothing.
	Progress *progress.Line
	// Dir, if not empty, is the folder where every finished job's result
	// is saved (one gob file per job, named after its label); a job whose
	// file is there with the same Version is loaded instead of run.
	Dir string
	// Version identifies everything the results depend on besides each
	// job's own label (the study's configuration); a saved result of
	// another version is recomputed. A change of the code that changes the
	// results needs a new Version, or an empty Dir.
	Version string
	// Finished, if not nil, is called after every job that finished (run
	// or loaded), one call at a time, with the results and which jobs have
	// finished so far: a study writes its tables there, so that they are
	// on disk whenever the program is stopped. Its error stops the sweep.
	Finished func(results []R, done []bool) error
	// Times, if not nil, receives every finished job's phase times (see
	// [Phase]), run now or loaded with its saved result.
	Times *TimeReport
}

// saved is the file of one finished job.
type saved[R any] struct {
	Version, Label, Summary string
	Result                  R
	Phases                  *Phases // nil in files saved before phases were timed
}

// Run computes job(ctx, i) for i = 0, …, n−1, spread over the cores, and
// returns the results and which jobs finished. Each job must be
// deterministic by its own seeds, so the results do not depend on the order
// or on GOMAXPROCS; labels must be distinct. After each job it writes to
// opt.Progress "[k/n] label: summary (elapsed, about … left)",
// saves the result to opt.Dir and calls opt.Finished.
//
// Once ctx is done, jobs not yet started are skipped and a job that returns
// an error while ctx is done counts as cancelled, not failed. Run returns,
// if a job failed, the error of the lowest failing index (labelled);
// otherwise, if ctx was cancelled, ctx.Err(). R must be encodable by
// encoding/gob when opt.Dir is set (exported fields).
func Run[R any](ctx context.Context, opt Options[R], n int, label func(i int) string, job func(ctx context.Context, i int) (R, string, error)) ([]R, []bool, error) {
	results := make([]R, n)
	done := make([]bool, n)
	if opt.Dir != "" {
		if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
			return results, done, err
		}
	}
	start := time.Now()
	var mu sync.Mutex
	var count int
	finish := func(i int, r R, summary, how string) error {
		mu.Lock()
		defer mu.Unlock()
		results[i], done[i] = r, true
		count++
		el := time.Since(start)
		left := time.Duration(float64(el) / float64(count) * float64(n-count))
		opt.Progress.Done("[%d/%d] %s: %s (%s; elapsed %s, about %s left)", count, n, label(i), summary, how,
			el.Round(time.Second), left.Round(time.Second))
		if opt.Finished == nil {
			return nil
		}
		began := time.Now()
		err := opt.Finished(results, done)
		if opt.Times != nil {
			opt.Times.AddWriting(time.Since(began))
		}
		return err
	}
	defer opt.Progress.Clear()
	err := parallel.For(n, func(i int) error {
		if ctx.Err() != nil {
			return nil
		}
		path := ""
		if opt.Dir != "" {
			path = filepath.Join(opt.Dir, fileName(label(i)))
			if s, ok := load[R](path, opt.Version); ok {
				if opt.Times != nil {
					opt.Times.Add(s.Phases, false)
				}
				return finish(i, s.Result, s.Summary, "saved")
			}
		}
		ph := new(Phases)
		began := time.Now()
		r, summary, err := job(context.WithValue(ctx, phasesKey{}, ph), i)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("%s: %w", label(i), err)
		}
		ph.Total = time.Since(began)
		if opt.Times != nil {
			opt.Times.Add(ph, true)
		}
		if path != "" {
			if err := store(path, saved[R]{Version: opt.Version, Label: label(i), Summary: summary, Result: r, Phases: ph}); err != nil {
				return err
			}
		}
		return finish(i, r, summary, "run")
	})
	if err != nil {
		return results, done, err
	}
	return results, done, ctx.Err()
}

// fileName turns a label into a file name.
func fileName(label string) string {
	var b strings.Builder
	for _, r := range label {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String() + ".gob"
}

// load reads a saved job; ok is false if there is none of this version.
func load[R any](path, version string) (s saved[R], ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return s, false
	}
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil || s.Version != version {
		return s, false
	}
	return s, true
}

// store writes a saved job atomically (a stop mid-write leaves no file).
func store[R any](path string, s saved[R]) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(s); err != nil {
		return fmt.Errorf("sweep: saving %s: %w", s.Label, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Cancelled reports whether err is the cancellation Run returns after
// Ctrl-C (or a deadline), for which a program writes partial results.
func Cancelled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Finished returns the results of the jobs that finished, in job order.
func Finished[R any](results []R, done []bool) []R {
	var out []R
	for i, d := range done {
		if d {
			out = append(out, results[i])
		}
	}
	return out
}

// Study is the whole life of a study's sweep: it runs the jobs with
// progress lines on standard error and every finished job saved in dir
// (resumed from there when the same command runs again, see [Options]),
// rewrites the study's files after every job with write (which returns
// the study's table), and prints the final table on standard output and
// the time report of its jobs' phases (see [Phase]) on standard error. It
// returns the error of [Run]: nil, a job's failure (then nothing more is
// written), or the cancellation after the files of the finished jobs were
// written.
func Study[R any](ctx context.Context, dir, version string, n int, label func(i int) string,
	job func(ctx context.Context, i int) (R, string, error), write func(finished []R) (string, error)) error {
	times := new(TimeReport)
	opt := Options[R]{Progress: progress.Stderr(), Dir: dir, Version: version, Times: times,
		Finished: func(r []R, d []bool) error { _, err := write(Finished(r, d)); return err }}
	results, done, err := Run(ctx, opt, n, label, job)
	if err != nil && !Cancelled(err) {
		return err
	}
	began := time.Now()
	md, werr := write(Finished(results, done))
	if werr != nil {
		return werr
	}
	times.AddWriting(time.Since(began))
	fmt.Print(md)
	fmt.Fprint(os.Stderr, "\n", times)
	return err
}
