package dataset

import (
	"bytes"
	"testing"
)

// FuzzRead feeds arbitrary bytes to Read: it must never panic, and what it
// accepts must write back and read again to the same examples.
func FuzzRead(f *testing.F) {
	for _, file := range validFiles(f) {
		f.Add(file)
	}
	f.Add([]byte{})
	f.Add([]byte("\x10\x00\x00\x00\x00\x00\x00\x00{}              "))
	f.Fuzz(func(t *testing.T, b []byte) {
		exs, meta, err := ReadBytes[float32](b)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, exs, meta); err != nil {
			t.Fatalf("accepted file does not write back: %v", err)
		}
		again, _, err := Read[float32](&buf)
		if err != nil {
			t.Fatalf("written file does not read back: %v", err)
		}
		if !sameBits(again, exs) {
			t.Fatal("examples differ after writing back")
		}
	})
}
