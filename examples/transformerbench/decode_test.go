package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodeWithFakePeer runs the decode mode against a stand-in peer that
// prints fixed times: the Go side is measured, the peer's lines are read,
// and the table holds best, median and their ratios.
func TestDecodeWithFakePeer(t *testing.T) {
	dir := t.TempDir()
	peer := filepath.Join(dir, "peer.py")
	// A shell script stands in for the interpreter and the script: it
	// ignores its arguments and prints what peer_torch_decode.py prints.
	fake := filepath.Join(dir, "python")
	script := "#!/bin/sh\necho 'PyTorch decode cpu threads=1 games=1 T=8: 1000 rounds/s, 900.0 us/round (torch 9.9)'\n" +
		"echo 'PyTorch decode cpu threads=1 games=3 T=8: 1000 rounds/s, 2400.5 us/round (torch 9.9)'\necho noise\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(peer, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parseFlags([]string{"-decode", "-python", fake, "-decode-peer", peer, "-threads", "1", "-games", "1,3", "-length", "8", "-rounds", "2"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runDecode(o, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"round 2  Go decode threads=1 games=3 T=8:", "round 2  PyTorch decode threads=1 games=3 T=8: 2400.5 us/round (torch 9.9, cpu)",
		"PyTorch: 9.9", "| 1 | 3 |", "900.0, 900.0", "2400.5, 2400.5"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	// Without the peer, Go alone.
	o.decodePeer = filepath.Join(dir, "missing.py")
	out.Reset()
	if err := runDecode(o, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "PyTorch not run: no peer script") || !strings.Contains(out.String(), "| 1 | 1 |") {
		t.Errorf("output without the peer:\n%s", out.String())
	}
}

func TestDecodeFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-decode", "-games", "0"}, `bad game count "0"`},
		{[]string{"-decode", "-length", "0"}, "-length = 0"},
		{[]string{"-decode", "-length", "5000"}, "-length = 5000"},
	} {
		if _, err := parseFlags(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %q", c.args, err, c.want)
		}
	}
}

func TestBestMedian(t *testing.T) {
	if b, m := bestMedian([]float64{5, 1, 3, 2}); b != 1 || m != 2 {
		t.Errorf("bestMedian = %v, %v, want 1, 2", b, m)
	}
	if b, m := bestMedian(nil); b != 0 || m != 0 {
		t.Errorf("bestMedian(nil) = %v, %v", b, m)
	}
}
