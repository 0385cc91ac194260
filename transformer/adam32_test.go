package transformer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randAdamEntry returns a float32 drawn across magnitudes, with zeros of
// both signs and subnormals among them.
func randAdamEntry(rng *rand.Rand) float32 {
	switch rng.IntN(10) {
	case 0:
		return 0
	case 1:
		return float32(math.Copysign(0, -1))
	case 2:
		return math.Float32frombits(rng.Uint32N(1 << 23)) // subnormal
	}
	return float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-8)))
}

// TestAdam32VectorMatchesGo checks that the vector kernel gives the bits of
// the Go loop, for lengths around the vector width and random constants.
func TestAdam32VectorMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 200 {
		n := trial % 41
		if trial >= 41 {
			n = rng.IntN(300)
		}
		b1, b2 := 0.5+0.49*rng.Float64(), 0.9+0.0999*rng.Float64()
		step := 1 + rng.IntN(1000)
		lr := math.Pow(10, -1-4*rng.Float64())
		bc1, bc2 := 1-math.Pow(b1, float64(step)), 1-math.Pow(b2, float64(step))
		k := adam32{b1: float32(b1), b2: float32(b2), c1: float32(1 - b1), c2: float32(1 - b2),
			negStep: float32(-lr / bc1), bc2sqrt: float32(math.Sqrt(bc2)), eps: float32(math.Pow(10, -4-6*rng.Float64()))}
		val, grad, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range n {
			val[i], grad[i], m[i] = randAdamEntry(rng), randAdamEntry(rng), randAdamEntry(rng)
			v[i] = float32(math.Abs(float64(randAdamEntry(rng))))
		}
		want := [4][]float32{append([]float32(nil), val...), append([]float32(nil), grad...), append([]float32(nil), m...), append([]float32(nil), v...)}
		k.updateGo(want[0], want[1], want[2], want[3])
		k.update(val, grad, m, v)
		for j, got := range [4][]float32{val, grad, m, v} {
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[j][i]) {
					t.Fatalf("trial %d, n %d: array %d entry %d is %v, want %v", trial, n, j, i, got[i], want[j][i])
				}
			}
		}
	}
}

func TestFirstNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	bad32 := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for trial := range 300 {
		n := rng.IntN(700)
		x32, x64 := make([]float32, n), make([]float64, n)
		for i := range n {
			// Random finite bit patterns, including the largest exponents.
			b := rng.Uint32()
			if b&0x7f800000 == 0x7f800000 {
				b &^= 0x00800000
			}
			x32[i] = math.Float32frombits(b)
			x64[i] = float64(x32[i])
		}
		want := -1
		if n > 0 && trial%3 != 0 {
			want = rng.IntN(n)
			x32[want], x64[want] = bad32[trial%3], float64(bad32[trial%3])
			if later := want + rng.IntN(n-want); later > want {
				x32[later], x64[later] = float32(math.Inf(1)), math.Inf(1)
			}
		}
		if got := firstNonFinite(x32); got != want {
			t.Fatalf("float32 trial %d: got %d, want %d", trial, got, want)
		}
		if got := firstNonFinite(x64); got != want {
			t.Fatalf("float64 trial %d: got %d, want %d", trial, got, want)
		}
	}
	if got := firstNonFinite([]float64{math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64}); got != -1 {
		t.Fatalf("largest and smallest float64: got %d, want -1", got)
	}
}

// BenchmarkAdam32 measures the float32 update of 170,000 parameters (the
// peer model's count) on one goroutine.
func BenchmarkAdam32(b *testing.B) {
	const n = 170_000
	rng := rand.New(rand.NewPCG(9, 9))
	val, grad, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range n {
		val[i], grad[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	k := adam32{b1: 0.9, b2: 0.999, c1: 0.1, c2: 0.001, negStep: -1e-3, bc2sqrt: 0.03, eps: 1e-8}
	b.Run("vector", func(b *testing.B) {
		for range b.N {
			k.update(val, grad, m, v)
		}
	})
	b.Run("go", func(b *testing.B) {
		for range b.N {
			k.updateGo(val, grad, m, v)
		}
	})
	b.Run("check", func(b *testing.B) {
		for range b.N {
			if firstNonFinite(grad) >= 0 {
				b.Fatal("non-finite")
			}
		}
	})
}
