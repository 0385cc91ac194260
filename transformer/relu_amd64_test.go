//go:build amd64

package transformer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/transformer/internal/x86"
)

// randRows returns n entries drawn from a normal distribution of the given
// scale, with some entries at ±0, subnormal and large magnitudes.
func randRows(rng *rand.Rand, n int, scale float64) []float32 {
	s := make([]float32, n)
	special := []float32{0, float32(math.Copysign(0, -1)), 1e-40, -3e-39, 1e20, -7e18}
	for i := range s {
		if rng.IntN(16) == 0 {
			s[i] = special[rng.IntN(len(special))]
			continue
		}
		s[i] = float32(rng.NormFloat64() * scale)
	}
	return s
}

// wantBits fails the test at the first entry where got and want differ
// in their bits.
func wantBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if i := sameBits(got, want); i >= 0 {
		t.Fatalf("%s[%d] = %v (bits %08x), the Go code gives %v (bits %08x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
	}
}

// TestReLUAVX2 checks the vector ReLU and its derivative bit for bit
// against Go's max (a NaN for a NaN) and the sign-bit rule of reluBackward, on NaNs of both
// signs, ±0, ±Inf, subnormals and random values, with a tail of entries
// left to the Go loop.
func TestReLUAVX2(t *testing.T) {
	if !x86.AVX2FMA {
		t.Skip("no AVX2 on this machine")
	}
	negNaN := math.Float32frombits(0xffc00000) // x86's default NaN
	special := []float32{float32(math.NaN()), negNaN, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-40, -1e-40, 3, -3}
	rng := rand.New(rand.NewPCG(11, 12))
	const n, lo = 203, 5
	x, dy := make([]float32, n), randRows(rng, n, 1)
	for i := range x {
		if i%3 == 0 {
			x[i] = special[i%len(special)]
		} else {
			x[i] = float32(rng.NormFloat64())
		}
	}
	y := make([]float32, n)
	m := reluVector(y, x, lo, n)
	if m != (n-lo)&^7 {
		t.Fatalf("reluVector did %d entries, want %d", m, (n-lo)&^7)
	}
	for i := lo; i < lo+m; i++ {
		want := max(x[i], 0)
		if want != want { // Go's max returns a NaN of its own bits
			if y[i] == y[i] {
				t.Fatalf("relu(%v) = %v, want NaN", x[i], y[i])
			}
			continue
		}
		if math.Float32bits(y[i]) != math.Float32bits(want) {
			t.Fatalf("relu(%v) = %v (bits %08x), Go's max gives %v (bits %08x)", x[i], y[i], math.Float32bits(y[i]), want, math.Float32bits(want))
		}
	}
	dx := make([]float32, n)
	if m := reluBackwardVector(dx, dy, x, lo, n); m != (n-lo)&^7 {
		t.Fatalf("reluBackwardVector did %d entries, want %d", m, (n-lo)&^7)
	}
	for i := lo; i < lo+m; i++ {
		want := float32(0)
		if int32(math.Float32bits(x[i])) > 0 {
			want = dy[i]
		}
		if math.Float32bits(dx[i]) != math.Float32bits(want) {
			t.Fatalf("relu'(%v)·%v = %v, want %v", x[i], dy[i], dx[i], want)
		}
	}
}
