package metalearn

import (
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/markov"
)

// BenchmarkGeneralSumOOMD runs Algorithm 2 on a random 3-player game with
// 2 states, 2 actions per player and H = 10 for T = 1000 iterations.
func BenchmarkGeneralSumOOMD(b *testing.B) {
	g, err := markov.RandomEpisodic([]int{2, 2, 2}, 2, 10, markov.GeneralSumGame, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	const T = 1000
	init, err := UniformGeneralSumInit(g, T)
	if err != nil {
		b.Fatal(err)
	}
	cfg := OOMDConfig{Eta: 0.05, T: T}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := GeneralSumOOMD(g, init, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCertifiedCCEGap evaluates the certified gap of the output of
// the run of BenchmarkGeneralSumOOMD (29 components).
func BenchmarkCertifiedCCEGap(b *testing.B) {
	g, err := markov.RandomEpisodic([]int{2, 2, 2}, 2, 10, markov.GeneralSumGame, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	init, _ := UniformGeneralSumInit(g, 1000)
	res, err := GeneralSumOOMD(g, init, OOMDConfig{Eta: 0.05, T: 1000})
	if err != nil {
		b.Fatal(err)
	}
	p := res.Output()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := CertifiedCCEGap(g, p); err != nil {
			b.Fatal(err)
		}
	}
}
