package markov

import (
	"sync"
	"testing"

	"github.com/icrl-go/icrl/internal/nested"
)

// epiBig is the size of the 4-player tracking task of multi-agent-meta-rl
// App. F.3: 5^4 = 625 joint positions and 3^4 = 81 joint actions. The
// paper gives no horizon; H = 10 is the horizon of its other simulations.
// The rewards are random, one layer per step. epiBigDense has random,
// dense, time-homogeneous transitions stored as one 625×81×625 table
// (253 MB); epiBigProduct has the structure of the tracking task, each
// player moving on its own 5 positions, with random dense local laws
// (markov.ProductKernel, a few kB).
var (
	epiBigOnce   sync.Once
	epiBigGame   *Episodic
	epiBigPi     Product
	epiBigErr    error
	epiProdOnce  sync.Once
	epiProdGame  *Episodic
	epiProdErr   error
	epiBigLayers [][][][]float64
)

// epiBigProduct returns the product-kernel game and the same random
// product policy as epiBigDense.
func epiBigProduct(b *testing.B) (*Episodic, Product) {
	b.Helper()
	_, pi := epiBigDense(b)
	epiProdOnce.Do(func() {
		rng := epiNewRNG(43)
		local := make([][][][]float64, 4)
		for i := range local {
			local[i] = make([][][]float64, 3)
			for a := range local[i] {
				local[i][a] = make([][]float64, 5)
				for p := range local[i][a] {
					local[i][a][p] = kernRandomRow(5, false, rng)
				}
			}
		}
		k, err := NewProductKernel(nested.Dense3s(local))
		if err != nil {
			epiProdErr = err
			return
		}
		epiProdGame, epiProdErr = NewEpisodic([]int{3, 3, 3, 3}, 0, 10, nested.Dense4(epiBigLayers), []Kernel{k})
	})
	if epiProdErr != nil {
		b.Fatal(epiProdErr)
	}
	return epiProdGame, pi
}

func epiBigDense(b *testing.B) (*Episodic, Product) {
	b.Helper()
	epiBigOnce.Do(func() {
		const N, A, S, H = 4, 3, 625, 10
		J := 81
		rng := epiNewRNG(42)
		actions := []int{A, A, A, A}
		rew := make([][][][]float64, H)
		rbuf := make([]float64, H*S*J*N)
		for h := range rew {
			rew[h] = make([][][]float64, S)
			for s := range rew[h] {
				rew[h][s] = make([][]float64, J)
				for j := range rew[h][s] {
					k := ((h*S+s)*J + j) * N
					rew[h][s][j] = rbuf[k : k+N]
					for i := range N {
						rew[h][s][j][i] = rng.Float64()
					}
				}
			}
		}
		pbuf := make([]float64, S*J*S)
		tr := [][][][]float64{make([][][]float64, S)}
		for s := range S {
			tr[0][s] = make([][]float64, J)
			for j := range J {
				k := (s*J + j) * S
				row := pbuf[k : k+S]
				var sum float64
				for t := range row {
					row[t] = rng.ExpFloat64()
					sum += row[t]
				}
				for t := range row {
					row[t] /= sum
				}
				tr[0][s][j] = row
			}
		}
		epiBigLayers = rew
		epiBigGame, epiBigErr = newEpisodic(actions, 0, rew, tr)
		if epiBigErr == nil {
			epiBigPi = epiRandomProduct(epiBigGame, rng)
		}
	})
	if epiBigErr != nil {
		b.Fatal(epiBigErr)
	}
	return epiBigGame, epiBigPi
}

// epiBigBench runs f on the product-kernel game and, as the sub-benchmark
// "dense", on the dense one.
func epiBigBench(b *testing.B, f func(*Episodic, Product) error) {
	for _, c := range []struct {
		name string
		game func(*testing.B) (*Episodic, Product)
	}{{"product", epiBigProduct}, {"dense", epiBigDense}} {
		b.Run(c.name, func(b *testing.B) {
			g, pi := c.game(b)
			b.ReportAllocs()
			for b.Loop() {
				if err := f(g, pi); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBestResponse4Players625States: one best response by backward
// induction in the F.3-sized game (H = 10, full-support opponents), with
// the tracking task's product transitions and with a dense random table.
func BenchmarkBestResponse4Players625States(b *testing.B) {
	epiBigBench(b, func(g *Episodic, pi Product) error {
		_, _, err := g.BestResponse(pi, 2)
		return err
	})
}

// BenchmarkValues4Players625States: evaluation of a full-support product
// policy (all four players' values) in the F.3-sized game.
func BenchmarkValues4Players625States(b *testing.B) {
	epiBigBench(b, func(g *Episodic, pi Product) error {
		_, err := g.Values(pi)
		return err
	})
}

// BenchmarkNEGap4Players625States: one evaluation and four best responses.
func BenchmarkNEGap4Players625States(b *testing.B) {
	epiBigBench(b, func(g *Episodic, pi Product) error {
		_, _, err := g.NEGap(pi)
		return err
	})
}

func benchValuesSmall(b *testing.B, actions []int, S, H int) {
	rng := epiNewRNG(7)
	g, err := RandomEpisodic(actions, S, H, GeneralSumGame, rng)
	if err != nil {
		b.Fatal(err)
	}
	pi := epiRandomProduct(g, rng)
	b.ResetTimer()
	for b.Loop() {
		if _, err := g.Values(pi); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValues2Players2States: the F.1/F.2 size (2×2 actions, 2 states,
// H = 10).
func BenchmarkValues2Players2States(b *testing.B) { benchValuesSmall(b, []int{2, 2}, 2, 10) }

// BenchmarkValues3Players20States: 3 players with 3 actions, 20 states,
// H = 10.
func BenchmarkValues3Players20States(b *testing.B) { benchValuesSmall(b, []int{3, 3, 3}, 20, 10) }

// BenchmarkSolveZeroSumS10A5H10: backward induction with 100 stage LPs on
// 5×5 games.
func BenchmarkSolveZeroSumS10A5H10(b *testing.B) {
	g, err := RandomEpisodic([]int{5, 5}, 10, 10, ZeroSumGame, epiNewRNG(8))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, _, _, _, err := g.SolveZeroSum(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCCEGap3Players20States: the exact gap of a full-support
// correlated policy (3 players, 3 actions each, 20 states, H = 10).
func BenchmarkCCEGap3Players20States(b *testing.B) {
	rng := epiNewRNG(9)
	g, err := RandomEpisodic([]int{3, 3, 3}, 20, 10, GeneralSumGame, rng)
	if err != nil {
		b.Fatal(err)
	}
	c := epiRandomPolicy(10, 20, 27, rng)
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := g.CCEGap(c); err != nil {
			b.Fatal(err)
		}
	}
}
