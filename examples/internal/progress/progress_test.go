package progress

import (
	"bytes"
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
