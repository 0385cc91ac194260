package sweep

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestPhases: the phases a job times reach the report, in the order first
// entered, whether the job runs now or is loaded from its saved file, and
// their times add up to at most the jobs' total.
func TestPhases(t *testing.T) {
	dir := t.TempDir()
	label := func(i int) string { return fmt.Sprint("job ", i) }
	job := func(ctx context.Context, i int) (int, string, error) {
		st := NewStages(ctx)
		defer st.Done()
		st.Next("collect")
		time.Sleep(time.Millisecond)
		st.Next("train")
		time.Sleep(2 * time.Millisecond)
		st.Next("collect") // a phase entered again adds up
		st.Done()
		stop := Phase(ctx, "evaluate")
		stop()
		return i, "ok", nil
	}
	var now TimeReport
	if _, _, err := Run(context.Background(), Options[int]{Dir: dir, Version: "v", Times: &now}, 3, label, job); err != nil {
		t.Fatal(err)
	}
	var again TimeReport
	if _, _, err := Run(context.Background(), Options[int]{Dir: dir, Version: "v", Times: &again}, 4, label, job); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r          *TimeReport
		jobs, runs int
	}{{&now, 3, 3}, {&again, 4, 1}} {
		r := c.r
		if r.jobs != c.jobs || r.runNow != c.runs || r.savedNow != c.jobs-c.runs || r.untimed != 0 {
			t.Errorf("report of %d jobs: jobs %d, run %d, saved %d, untimed %d", c.jobs, r.jobs, r.runNow, r.savedNow, r.untimed)
		}
		if strings.Join(r.names, ",") != "collect,train,evaluate" {
			t.Errorf("phases %v, want collect, train, evaluate", r.names)
		}
		var sum time.Duration
		for _, d := range r.times {
			sum += d
		}
		// Every job slept 1 ms in collect and 2 ms in train at least.
		if r.times[0] < time.Duration(c.jobs)*time.Millisecond || r.times[1] < time.Duration(c.jobs)*2*time.Millisecond || sum > r.total {
			t.Errorf("phase times %v, total %v", r.times, r.total)
		}
		s := r.String()
		for _, want := range []string{"collect", "train", "evaluate", "other", "total", fmt.Sprintf("summed over %d jobs", c.jobs)} {
			if !strings.Contains(s, want) {
				t.Errorf("report lacks %q:\n%s", want, s)
			}
		}
	}
	// Phase outside a job does nothing.
	Phase(context.Background(), "nothing")()
	NewStages(context.Background()).Next("nothing")
}

// TestTimeReportUntimed: jobs saved without times are counted, not summed.
func TestTimeReportUntimed(t *testing.T) {
	var r TimeReport
	r.Add(nil, false)
	r.Add(&Phases{Names: []string{"a"}, Times: []time.Duration{time.Second}, Total: 3 * time.Second}, true)
	r.AddWriting(time.Second)
	s := r.String()
	for _, want := range []string{"summed over 1 jobs (1 run now, 1 loaded from saved runs; 1 saved without times left out)", "33.3%", "66.7%", "Writing the tables and figures, 1 times"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
}

// TestTimePhases: a program's phases, timed outside a study, reach its
// report in the order entered, with "other" and the total, once report
// is called.
func TestTimePhases(t *testing.T) {
	var b strings.Builder
	ctx, st, report := TimePhases(context.Background(), &b)
	st.Next("play: omd")
	time.Sleep(2 * time.Millisecond)
	st.Done()
	stop := Phase(ctx, "write the table")
	stop()
	if b.Len() != 0 {
		t.Fatalf("the report was written before report(): %q", b.String())
	}
	report()
	got := b.String()
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 5 || lines[0] != "Time by phase:" {
		t.Fatalf("report %q: want a header and play, write, other, total", got)
	}
	for i, name := range []string{"play: omd", "write the table", "other", "total"} {
		if !strings.HasPrefix(strings.TrimSpace(lines[i+1]), name+" ") {
			t.Errorf("line %d = %q, want the phase %q", i+1, lines[i+1], name)
		}
	}
}
