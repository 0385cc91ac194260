package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	got := make([]int, 10)
	done, err := Run(context.Background(), &out, 10, func(i int) string { return fmt.Sprint("job ", i) },
		func(_ context.Context, i int) (string, error) { got[i] = i * i; return "ok", nil })
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if !done[i] || got[i] != i*i {
			t.Fatalf("job %d: done %v, result %d", i, done[i], got[i])
		}
	}
	if n := strings.Count(out.String(), "\n"); n != 10 || !strings.Contains(out.String(), "[10/10] job ") {
		t.Errorf("progress:\n%s", out.String())
	}
	// The lowest failing index's error, wrapped with its label.
	_, err = Run(context.Background(), nil, 20, func(i int) string { return fmt.Sprint("job ", i) },
		func(_ context.Context, i int) (string, error) {
			if i%7 == 3 {
				return "", fmt.Errorf("boom %d", i)
			}
			return "", nil
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
	done, err := Run(ctx, nil, 50, func(int) string { return "" }, func(ctx context.Context, i int) (string, error) {
		if n.Add(1) == 3 {
			cancel()
			return "", ctx.Err()
		}
		return "", ctx.Err()
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
