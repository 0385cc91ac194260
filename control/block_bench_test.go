package control

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/tensor"
)

// BenchmarkLayer runs one block of eq. (1) on N = 4 tokens of dimension
// D = 2 (Hidden = QK = 2, the paper's §6 setting) with a reused Scratch. It
// does not allocate.
func BenchmarkLayer(b *testing.B) {
	b.Run("float32", benchLayer[float32])
	b.Run("float64", benchLayer[float64])
}

func benchLayer[F tensor.Float](b *testing.B) {
	blk, u, xs := benchSetup[F](4)
	dst := alloc2[F](len(xs), blk.Dims.D)
	s := blk.NewScratch(len(xs))
	b.ReportAllocs()
	for b.Loop() {
		blk.Layer(dst, xs, u, s)
	}
}

// BenchmarkMapToken evaluates eq. (5) for one token against a measure of
// 4 or 64 atoms with a reused Scratch.
func BenchmarkMapToken(b *testing.B) {
	for _, n := range []int{4, 64} {
		b.Run(fmt.Sprintf("float32/atoms=%d", n), func(b *testing.B) { benchMapToken[float32](b, n) })
		b.Run(fmt.Sprintf("float64/atoms=%d", n), func(b *testing.B) { benchMapToken[float64](b, n) })
	}
}

func benchMapToken[F tensor.Float](b *testing.B, n int) {
	blk, u, xs := benchSetup[F](n)
	w := make([]F, n)
	for i := range w {
		w[i] = 1 / F(n)
	}
	dst := make([]F, blk.Dims.D)
	s := blk.NewScratch(n)
	b.ReportAllocs()
	for b.Loop() {
		blk.MapToken(dst, xs[0], u, xs, w, s)
	}
}

func benchSetup[F tensor.Float](n int) (Block[F], *Action[F], [][]F) {
	d := Dims{D: 2, Hidden: 2, QK: 2}
	rng := rand.New(rand.NewPCG(uint64(n), 13))
	flat := make([]F, d.Params())
	for i := range flat {
		flat[i] = F(2*rng.Float64() - 1)
	}
	u, err := NewAction(d, flat)
	if err != nil {
		panic(err)
	}
	xs := make([][]F, n)
	for i := range xs {
		xs[i] = []F{F(2*rng.Float64() - 1), F(2*rng.Float64() - 1)}
	}
	return Block[F]{Dims: d, Beta: 0.5, Sigma: ReLU[F]{}}, u, xs
}
