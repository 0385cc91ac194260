package safetensors

import (
	"bytes"
	"errors"
	"testing"
)

// TestBadInputSentinels replays malformed files, invalid tensors and
// wrong lookups and checks the sentinel each error wraps.
func TestBadInputSentinels(t *testing.T) {
	var good bytes.Buffer
	if err := Write(&good, []Tensor{FromFloat32("w", []int{2}, []float32{1, 2})}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := ReadBytes(good.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	w, _ := f.Tensor("w")
	second := func(_ any, err error) error { return err }
	third := func(_, _ any, err error) error { return err }
	truncated := good.Bytes()[:good.Len()-1]
	hugeHeader := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"ReadBytes(empty)", second(ReadBytes(nil)), ErrInvalid},
		{"ReadBytes(truncated)", second(ReadBytes(truncated)), ErrInvalid},
		{"ReadBytes(header 2⁶³)", second(ReadBytes(hugeHeader)), ErrInvalid},
		{"ReadBytes(not JSON)", second(ReadBytes(append([]byte{2, 0, 0, 0, 0, 0, 0, 0}, "{x"...))), ErrInvalid},
		{"Write(shape vs data)", Write(&bytes.Buffer{}, []Tensor{FromFloat32("w", []int{3}, []float32{1})}, nil), ErrInvalid},
		{"Write(duplicate names)", Write(&bytes.Buffer{}, []Tensor{w, w}, nil), ErrInvalid},
		{"AsInt64 of F32", second(w.AsInt64()), ErrDType},
		{"Float32(missing)", third(f.Float32("v")), ErrNotFound},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v, want one wrapping %v", c.name, c.err, c.want)
		}
	}
}
