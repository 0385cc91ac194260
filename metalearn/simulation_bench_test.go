package metalearn

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/icrl-go/icrl/internal/tables"
	"github.com/icrl-go/icrl/markov"
)

// simFamilies builds the F.1 and F.2 families of App. F (K games, H = 10,
// the two-state transitions, σ = 0.1 perturbations) around the
// placeholder bases (the paper's Table 1 is missing; 0.8 stands for the
// missing Table 2 entry).
func simFamilies(tb testing.TB, K, H int) (zs, coop []*markov.Episodic) {
	tb.Helper()
	tr := tables.TwoState(1)
	rz := make([][][]float64, H)
	rc := make([][][]float64, H)
	for h := range rz {
		rz[h] = [][]float64{{0.8, 0.6, 0.3, 0.1}, {0.5, 0.9, 0.2, 0.4}}
		rc[h] = [][]float64{{0.1, 0.5, 0.5, 1}, {0.8, 0.2, 0.2, 0.8}}
	}
	z0, err := tables.ZeroSumEpisodic(2, 2, 0, rz, tr)
	if err != nil {
		tb.Fatal(err)
	}
	c0, err := tables.Team([]int{2, 2}, 0, rc, tr)
	if err != nil {
		tb.Fatal(err)
	}
	if zs, err = markov.PerturbedEpisodic(z0, K, 0.1, rand.New(rand.NewPCG(1, 1))); err != nil {
		tb.Fatal(err)
	}
	if coop, err = markov.PerturbedEpisodic(c0, K, 0.1, rand.New(rand.NewPCG(1, 2))); err != nil {
		tb.Fatal(err)
	}
	return zs, coop
}

// BenchmarkSimulationF1F2 is the whole simulation of App. F.1 and F.2 at
// the paper's scale (K = 10 games per family, H = 10, T = 1000, η = 0.02,
// α = 0.05): Algorithm 1 individually and with the meta-update (5), and
// projected Q-ascent individually and with warm start, each recording the
// NE-gap and value every 10 iterations. The four sequences run on
// runtime-scheduled goroutines (both cores). DESIGN.md's target: under one
// second.
func BenchmarkSimulationF1F2(b *testing.B) {
	const K, H, T = 10, 10, 1000
	zs, coop := simFamilies(b, K, H)
	var cps, cps0 []int
	cps0 = append(cps0, 0)
	for t := 10; t <= T; t += 10 {
		cps = append(cps, t)
		cps0 = append(cps0, t)
	}
	zl := ZeroSumAlgorithm[*markov.Episodic]{Config: OOMDConfig{Eta: 0.02, T: T, Checkpoints: cps}}
	ql := QAscentAlgorithm[*markov.Episodic]{Config: QAscentConfig{Alpha: 0.05, T: T, Checkpoints: cps0}}
	uni, err := UniformZeroSumInit(zs[0], T)
	if err != nil {
		b.Fatal(err)
	}
	uniP := markov.Product{markov.UniformPolicy(H, 2, 2), markov.UniformPolicy(H, 2, 2)}
	b.ResetTimer()
	for range b.N {
		var wg sync.WaitGroup
		errs := make([]error, 4)
		jobs := []func() error{
			func() error {
				_, err := RunSequence(zs, zl, Fixed[ZeroSumInit, *ZeroSumResult]{Init: uni})
				return err
			},
			func() error {
				m, err := NewZeroSumAverage(zs[0], T, K, 0, HindsightBR)
				if err != nil {
					return err
				}
				_, err = RunSequence(zs, zl, m)
				return err
			},
			func() error {
				_, err := RunSequence(coop, ql, Fixed[markov.Product, *QAscentResult]{Init: uniP})
				return err
			},
			func() error {
				m, err := NewWarmStart(coop[0])
				if err != nil {
					return err
				}
				_, err = RunSequence(coop, ql, m)
				return err
			},
		}
		for i, job := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = job()
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
