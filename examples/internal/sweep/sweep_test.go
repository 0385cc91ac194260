package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/icrl-go/icrl/examples/internal/progress"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	calls := 0
	opt := Options[int]{Progress: progress.To(&out), Finished: func(r []int, d []bool) error {
		calls++
		for i := range d {
			if d[i] && r[i] != i*i {
				return fmt.Errorf("Finished sees result %d = %d", i, r[i])
			}
		}
		return nil
	}}
	got, done, err := Run(context.Background(), opt, 10, func(i int) string { return fmt.Sprint("job ", i) },
		func(_ context.Context, i int) (int, string, error) { return i * i, "ok", nil })
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if !done[i] || got[i] != i*i {
			t.Fatalf("job %d: done %v, result %d", i, done[i], got[i])
		}
	}
	if calls != 10 {
		t.Errorf("Finished called %d times, want 10", calls)
	}
	if n := strings.Count(out.String(), "\r["); n != 10 || !strings.Contains(out.String(), "[10/10] job ") {
		t.Errorf("progress:\n%s", out.String())
	}
	if f := Finished([]int{1, 2, 3}, []bool{true, false, true}); len(f) != 2 || f[1] != 3 {
		t.Errorf("Finished = %v", f)
	}
	// The lowest failing index's error, wrapped with its label.
	_, _, err = Run(context.Background(), Options[int]{}, 20, func(i int) string { return fmt.Sprint("job ", i) },
		func(_ context.Context, i int) (int, string, error) {
			if i%7 == 3 {
				return 0, "", fmt.Errorf("boom %d", i)
			}
			return 0, "", nil
		})
	if err == nil || err.Error() != "job 3: boom 3" {
		t.Errorf("err = %v, want job 3's", err)
	}
}

// TestRunCancel cancels after the third job: later jobs are skipped, the
// finished ones are reported done, a job failing because of the
// cancellation is not an error, and Run returns the cancellation.
func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int32
	_, done, err := Run(ctx, Options[int]{}, 50, func(i int) string { return fmt.Sprint(i) }, func(ctx context.Context, i int) (int, string, error) {
		if n.Add(1) == 3 {
			cancel()
		}
		return 0, "", ctx.Err()
	})
	if !Cancelled(err) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	count := 0
	for _, d := range done {
		if d {
			count++
		}
	}
	if count > 2 || int(n.Load()) > 4 {
		t.Errorf("%d jobs done, %d started after cancelling at the third", count, n.Load())
	}
	if Cancelled(errors.New("other")) || Cancelled(nil) {
		t.Error("Cancelled accepts a non-cancellation")
	}
}

// result has the exported fields gob needs, and a NaN that JSON could not
// hold.
type result struct {
	Label string
	Value float64
	Curve []float64
}

// TestRunResume stops a sweep after some jobs, then runs it again: the
// saved jobs are loaded (not run), the rest run, the results equal an
// uninterrupted sweep's, and a saved job of another version is rerun.
func TestRunResume(t *testing.T) {
	dir := t.TempDir()
	label := func(i int) string { return fmt.Sprintf("job %d/× %d", i, i) }
	compute := func(i int) result {
		return result{Label: label(i), Value: math.Sqrt(float64(i)) - 1, Curve: []float64{float64(i), math.NaN()}}
	}
	var ran atomic.Int32
	job := func(stopAt int32, cancel func()) func(context.Context, int) (result, string, error) {
		return func(ctx context.Context, i int) (result, string, error) {
			if ran.Add(1) == stopAt {
				cancel()
				return result{}, "", ctx.Err()
			}
			return compute(i), "ok", nil
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, done1, err := Run(ctx, Options[result]{Dir: dir, Version: "v1"}, 30, label, job(8, cancel))
	if !Cancelled(err) {
		t.Fatalf("first sweep: err = %v, want the cancellation", err)
	}
	first := 0
	for _, d := range done1 {
		if d {
			first++
		}
	}
	ran.Store(0)
	res, done, err := Run(context.Background(), Options[result]{Dir: dir, Version: "v1"}, 30, label, job(-1, nil))
	if err != nil {
		t.Fatal(err)
	}
	if int(ran.Load()) != 30-first {
		t.Errorf("resumed sweep ran %d jobs, want %d (%d were saved)", ran.Load(), 30-first, first)
	}
	for i := range res {
		want := compute(i)
		if !done[i] || res[i].Label != want.Label || res[i].Value != want.Value || res[i].Curve[0] != want.Curve[0] || !math.IsNaN(res[i].Curve[1]) {
			t.Fatalf("job %d: %+v, want %+v", i, res[i], want)
		}
	}
	ran.Store(0)
	if _, _, err := Run(context.Background(), Options[result]{Dir: dir, Version: "v2"}, 30, label, job(-1, nil)); err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 30 {
		t.Errorf("another version ran %d jobs, want all 30", ran.Load())
	}
}

func TestParse(t *testing.T) {
	sz, err := ParseSizes("1x32, 2x64h8,4x128")
	if err != nil {
		t.Fatal(err)
	}
	want := []ModelSize{{1, 32, 2}, {2, 64, 8}, {4, 128, 8}}
	for i := range want {
		if sz[i] != want[i] {
			t.Errorf("size %d = %+v, want %+v", i, sz[i], want[i])
		}
	}
	if c := sz[1].Config(); c.Layers != 2 || c.Width != 64 || c.Heads != 8 || c.FeedForward != 256 {
		t.Errorf("config %+v", c)
	}
	if s := sz[0].String(); s != "1×32 h2" {
		t.Errorf("String = %q", s)
	}
	for _, bad := range []string{"", "2", "0x8", "2x0", "2x64h0", "2x64h5", "axb"} {
		if _, err := ParseSizes(bad); err == nil {
			t.Errorf("ParseSizes(%q) accepted", bad)
		}
	}
	if v, err := ParseInts("3, 1,20"); err != nil || len(v) != 3 || v[2] != 20 {
		t.Errorf("ParseInts = %v, %v", v, err)
	}
	for _, bad := range []string{"", "1,,2", "0", "-1", "x"} {
		if _, err := ParseInts(bad); err == nil {
			t.Errorf("ParseInts(%q) accepted", bad)
		}
	}
	m, s := MeanStd([]int{1, 2, 3}, func(i int) float64 { return float64(i) })
	if m != 2 || s != 1 {
		t.Errorf("MeanStd = %v, %v, want 2, 1 (sample std)", m, s)
	}
}

func TestSeeds(t *testing.T) {
	seed := func(s int) int { return s }
	for _, c := range []struct {
		runs []int
		want int
		s    string
	}{
		{[]int{0, 1, 2, 0, 1, 2}, 3, "3 seeds"},
		{[]int{0, 0, 1}, 3, "2 of 3 seeds (stopped early)"},
		{nil, 2, "0 of 2 seeds (stopped early)"},
		{[]int{0}, 1, "1 seed"},
	} {
		if got := Seeds(c.runs, seed, c.want); got != c.s {
			t.Errorf("Seeds(%v, %d) = %q, want %q", c.runs, c.want, got, c.s)
		}
	}
}

func TestPlusMinus(t *testing.T) {
	for _, c := range []struct {
		mean, std float64
		n, prec   int
		want      string
	}{
		{0.12345, 0.01, 5, 4, "0.1235 ± 0.0100"},
		{239.554, 0, 1, 2, "239.55"},
		{1.5, 0.5, 0, 1, "1.5"},
	} {
		if got := PlusMinus(c.mean, c.std, c.n, c.prec); got != c.want {
			t.Errorf("PlusMinus(%v, %v, %d, %d) = %q, want %q", c.mean, c.std, c.n, c.prec, got, c.want)
		}
	}
}
