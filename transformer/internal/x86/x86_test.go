package x86

import (
	"runtime"
	"testing"
)

// TestFlags checks what can be checked of the detected flags on any
// machine: AVX-512 implies AVX2 and FMA, and neither is reported off amd64.
func TestFlags(t *testing.T) {
	if AVX512 && !AVX2FMA {
		t.Fatal("AVX512 reported without AVX2FMA")
	}
	if runtime.GOARCH != "amd64" && (AVX2FMA || AVX512) {
		t.Fatalf("vector flags reported on %s", runtime.GOARCH)
	}
	t.Logf("AVX2FMA %v, AVX512 %v", AVX2FMA, AVX512)
}
