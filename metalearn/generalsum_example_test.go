package metalearn_test

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/metalearn"
	"github.com/icrl-go/icrl/tensor"
)

// Algorithm 2 on the one-shot "chicken" game of golden G-CCE1 (values of an independent Python implementation):
// the certified CCE-gap of the Algorithm 3 output shrinks as T grows, the
// iterates move far less than Lemma 18 allows, and the gap stays below the
// Theorem 5 bound.
func ExampleGeneralSumOOMD() {
	// r_{h,i}(s, j), H × S × J × N: one step, one state, joint actions
	// (a, b) in the order (0,0), (0,1), (1,0), (1,1); the one state stays.
	rewards, _ := tensor.FromData([]float64{0.5, 0.5, 0.2, 1.0, 1.0, 0.2, 0, 0}, 1, 1, 4, 2)
	stay, _ := tensor.FromData([]float64{1, 1, 1, 1}, 1, 1, 4, 1)
	kernels, err := markov.DenseKernels(stay)
	if err != nil {
		log.Fatal(err)
	}
	g, err := markov.NewEpisodic([]int{2, 2}, 0, 1, rewards, kernels)
	if err != nil {
		log.Fatal(err)
	}
	for _, T := range []int{100, 1000, 10000} {
		init, err := metalearn.UniformGeneralSumInit(g, T)
		if err != nil {
			log.Fatal(err)
		}
		eta := math.Pow(float64(T), -1.0/3)
		res, err := metalearn.GeneralSumOOMD(g, init, metalearn.OOMDConfig{Eta: eta, T: T})
		if err != nil {
			log.Fatal(err)
		}
		out := res.Output()
		gap, _, err := metalearn.CertifiedCCEGap(g, out)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("T=%5d stages=%2d gap=%.5f max step=%.4f (Lemma 18: %.2f) Theorem 5 bound=%.2f\n",
			T, len(res.Schedule), gap, res.MaxStep, 3*math.Sqrt(2*eta), metalearn.Theorem5Bound(res, init, eta, 2, 1))
		if T == 1000 {
			vals, err := out.Values(g)
			if err != nil {
				log.Fatal(err)
			}
			var mean [2]float64
			var ret []float64
			rng := rand.New(rand.NewPCG(1, 2))
			const n = 100000
			for range n {
				ret = out.Rollout(g, rng, ret)
				mean[0] += ret[0] / n
				mean[1] += ret[1] / n
			}
			fmt.Printf("values %.3f %.3f, Monte Carlo %.3f %.3f\n", vals[0], vals[1], mean[0], mean[1])
		}
	}
	// Output:
	// T=  100 stages= 7 gap=0.04707 max step=0.0323 (Lemma 18: 1.97) Theorem 5 bound=7.26
	// T= 1000 stages=10 gap=0.02484 max step=0.0150 (Lemma 18: 1.34) Theorem 5 bound=1.63
	// values 0.346 0.346, Monte Carlo 0.345 0.345
	// T=10000 stages=14 gap=0.00872 max step=0.0070 (Lemma 18: 0.91) Theorem 5 bound=0.37
}
