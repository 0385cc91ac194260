package metalearn

import (
	"testing"

	"github.com/icrl-go/icrl/internal/tables"
)

// BenchmarkZeroSumOOMD measures Algorithm 1 at the paper's scale (App. F.1:
// two states, 2×2 actions, H = 10, T = 1000, η = 0.02) on the
// placeholder "pure" base game, with uniform initialisation
// and no checkpoints.
func BenchmarkZeroSumOOMD(b *testing.B) {
	const H, T = 10, 1000
	rew := make([][][]float64, H)
	for h := range rew {
		rew[h] = [][]float64{{0.8, 0.6, 0.3, 0.1}, {0.5, 0.9, 0.2, 0.4}}
	}
	g, err := tables.ZeroSumEpisodic(2, 2, 0, rew, tables.TwoState(H))
	if err != nil {
		b.Fatal(err)
	}
	init, err := UniformZeroSumInit(g, T)
	if err != nil {
		b.Fatal(err)
	}
	cfg := OOMDConfig{Eta: 0.02, T: T}
	b.Run("H=10_T=1000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ZeroSumOOMD(g, init, cfg); err != nil {
				b.Fatal(err)
			}
		}
	})
}
