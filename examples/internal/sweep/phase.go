package sweep

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Phases is the wall time one job spent in each of its named phases, in
// the order the phases were first entered, and the job's whole time. A
// job records into the Phases that [Run] puts in its context, with
// [Phase]; Run saves them beside the job's result, so that a study's time
// report covers the jobs loaded from an earlier run as well.
type Phases struct {
	Names []string
	Times []time.Duration
	Total time.Duration

	mu sync.Mutex
}

// phasesKey is the context key of a job's *Phases.
type phasesKey struct{}

// WithPhases returns a context whose phases ([Phase], [Stages]) are
// recorded in the returned Phases: for a program that times its phases
// without [Run]. Set its Total at the end and print it with a
// [TimeReport].
func WithPhases(ctx context.Context) (context.Context, *Phases) {
	p := new(Phases)
	return context.WithValue(ctx, phasesKey{}, p), p
}

// TimePhases times the phases of a program whose work is not a [Run]
// study: it returns the context to run them in, their [Stages], and the
// function that ends the last phase and writes the time report to w (the
// whole time since the call, every phase's share and the rest as
// "other"):
//
//	ctx, stage, report := sweep.TimePhases(ctx, os.Stderr)
//	defer report()
//	stage.Next("play")
func TimePhases(ctx context.Context, w io.Writer) (context.Context, *Stages, func()) {
	start := time.Now()
	ctx, p := WithPhases(ctx)
	st := NewStages(ctx)
	return ctx, st, func() {
		st.Done()
		p.Total = time.Since(start)
		var r TimeReport
		r.Add(p, true)
		fmt.Fprint(w, "\n", r.String())
	}
}

// Phase starts timing the phase name of the job whose context is ctx and
// returns the function that stops it:
//
//	defer sweep.Phase(ctx, "train")()
//
// The time between the two calls is added to the phase (a phase entered
// several times adds up). Phases should not overlap: the report divides
// their times by the job's. Outside a job run by [Run], it does nothing.
func Phase(ctx context.Context, name string) (stop func()) {
	p, _ := ctx.Value(phasesKey{}).(*Phases)
	if p == nil {
		return func() {}
	}
	start := time.Now()
	return func() { p.add(name, time.Since(start)) }
}

// add adds d to the phase name.
func (p *Phases) add(name string, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, n := range p.Names {
		if n == name {
			p.Times[i] += d
			return
		}
	}
	p.Names = append(p.Names, name)
	p.Times = append(p.Times, d)
}

// TimeReport sums the phase times of a study's jobs. The zero value is an
// empty report, ready to use; it is safe for concurrent use.
type TimeReport struct {
	mu       sync.Mutex
	names    []string
	times    []time.Duration
	total    time.Duration
	writing  time.Duration
	writes   int
	jobs     int // with times
	untimed  int // saved before times were kept
	runNow   int
	savedNow int
}

// Add adds one finished job's phases; run tells whether it ran in this
// process (else it was loaded from its saved file). A job without times
// (Total 0: saved before they were kept) is only counted.
func (t *TimeReport) Add(p *Phases, run bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if run {
		t.runNow++
	} else {
		t.savedNow++
	}
	if p == nil || p.Total == 0 {
		t.untimed++
		return
	}
	t.jobs++
	t.total += p.Total
	for i, n := range p.Names {
		k := 0
		for k < len(t.names) && t.names[k] != n {
			k++
		}
		if k == len(t.names) {
			t.names = append(t.names, n)
			t.times = append(t.times, 0)
		}
		t.times[k] += p.Times[i]
	}
}

// AddWriting adds the time of one writing of the study's tables and
// figures (its Finished callback, which may compute baselines).
func (t *TimeReport) AddWriting(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.writing += d
	t.writes++
}

// String returns the report: every phase's time summed over the timed jobs
// and its share of their total, the rest as "other", then the time spent
// writing the tables. Jobs run side by side each count their own wall
// time, so the total can exceed the elapsed time.
func (t *TimeReport) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	if t.jobs == 1 && t.runNow == 1 && t.savedNow == 0 {
		b.WriteString("Time by phase:\n")
	} else {
		fmt.Fprintf(&b, "Time by phase, summed over %d jobs (%d run now, %d loaded from saved runs", t.jobs, t.runNow, t.savedNow)
		if t.untimed > 0 {
			fmt.Fprintf(&b, "; %d saved without times left out", t.untimed)
		}
		b.WriteString("):\n")
	}
	if t.jobs > 0 {
		width := len("other")
		for _, n := range t.names {
			width = max(width, len(n))
		}
		line := func(name string, d time.Duration) {
			fmt.Fprintf(&b, "  %-*s %12s %6.1f%%\n", width, name, roundTime(d), 100*d.Seconds()/t.total.Seconds())
		}
		rest := t.total
		for i, n := range t.names {
			line(n, t.times[i])
			rest -= t.times[i]
		}
		line("other", max(rest, 0))
		fmt.Fprintf(&b, "  %-*s %12s\n", width, "total", roundTime(t.total))
	}
	if t.writes > 0 {
		fmt.Fprintf(&b, "Writing the tables and figures, %d times: %s.\n", t.writes, t.writing.Round(time.Millisecond))
	}
	return b.String()
}

// Stages times the consecutive phases of a job: each Next ends the phase
// before it and starts the next, Done ends the last.
//
//	st := sweep.NewStages(ctx)
//	defer st.Done()
//	st.Next("collect")
//	…
//	st.Next("train")
type Stages struct {
	ctx  context.Context
	stop func()
}

// NewStages returns the stages of the job whose context is ctx (they do
// nothing outside a job run by [Run]).
func NewStages(ctx context.Context) *Stages { return &Stages{ctx: ctx} }

// Next ends the current phase, if any, and starts the phase name.
func (s *Stages) Next(name string) {
	s.Done()
	s.stop = Phase(s.ctx, name)
}

// Done ends the current phase, if any.
func (s *Stages) Done() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// roundTime rounds d for the report: to the second from a minute, to the
// hundredth of a second from a second, to the millisecond below.
func roundTime(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
