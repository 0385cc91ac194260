package progress

import (
	"bytes"
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	var b bytes.Buffer
	l := To(&b)
	l.Update("step %d of %d", 10, 200)
	l.Update("step %d", 11)
	l.Clear()
	want := "\rstep 10 of 200\rstep 11       \r       \r"
	if b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	var silent Line
	silent.Update("nothing")
	silent.Clear()
	if silent.Live() || To(nil).Live() {
		t.Error("a zero or nil-writer Line is live")
	}
}

// TestDone: a live line shows a finished job as an update; a plain line
// writes one line per finished job and nothing for the updates.
func TestDone(t *testing.T) {
	var live, plain bytes.Buffer
	l, p := To(&live), Plain(&plain)
	for _, x := range []*Line{l, p} {
		x.Update("step %d", 1)
		x.Done("job %d done", 1)
		x.Update("step %d", 2)
		x.Done("job %d done", 2)
		x.Clear()
	}
	if got := plain.String(); got != "job 1 done\njob 2 done\n" {
		t.Errorf("plain line wrote %q", got)
	}
	if !strings.Contains(live.String(), "\rjob 2 done") || strings.Contains(live.String(), "\n") {
		t.Errorf("live line wrote %q", live.String())
	}
	var silent *Line
	silent.Done("nothing")
	(&Line{}).Done("nothing")
}
