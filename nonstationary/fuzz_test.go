package nonstationary

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/learner/bandit"
)

// fuzzBytes reads little-endian values from a byte string, yielding zeros
// once it runs out.
type fuzzBytes []byte

func (b *fuzzBytes) u8() int {
	if len(*b) == 0 {
		return 0
	}
	v := (*b)[0]
	*b = (*b)[1:]
	return int(v)
}

func (b *fuzzBytes) f64() float64 {
	if len(*b) < 8 {
		*b = nil
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(*b))
	*b = (*b)[8:]
	return v
}

// FuzzMaster builds a piecewise-stationary Bernoulli bandit and a MASTER
// schedule around UCB1 from arbitrary bytes — means (some above one),
// change points, horizon, MASTER's constants (RhoHatMult any float64,
// finite or not) — and plays it. Nothing may
// panic: constructors reject what they cannot use, and what they accept
// runs, with a finite regret.
func FuzzMaster(f *testing.F) {
	f.Add([]byte{1, 0, 100, 125, 200, 25, 50, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{2, 1, 60, 100, 50, 200, 30, 10, 220, 20, 15, 30, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 5, 5, 1})
	f.Add([]byte{3, 2, 50, 100, 25, 200, 100, 0, 250, 0, 50, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 8, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := fuzzBytes(data)
		K, pieces, T := 1+b.u8()%4, 1+b.u8()%3, b.u8()
		starts := make([]int, pieces)
		means := make([][]float64, pieces)
		for p := range pieces {
			starts[p] = 1 // pieces start at rounds 1 < s₂ < s₃ ≤ T
			if p > 0 {
				starts[p] = b.u8()
			}
			means[p] = make([]float64, K)
			for k := range K {
				means[p][k] = float64(b.u8()) / 250 // above 1 past 250: rejected
			}
		}
		env, err := NewPiecewiseBernoulli(means, starts, T)
		if err != nil {
			return
		}
		cfg := MasterConfig{Rho: RhoFunc(bandit.RhoUCB1(K, max(T, 1), 1)), Horizon: b.u8() * 4, Delta: float64(b.u8()) / 100, RhoHatMult: b.f64(), Test1Coef: float64(b.u8()) / 10, Test2Coef: float64(b.u8()) / 10, FirstBlockOrder: b.u8() % 5}
		ucb := func() (bandit.Learner, error) {
			return bandit.NewUCB1(bandit.UCB1Config{Arms: K, Horizon: max(T, 1)})
		}
		if _, err := NewMaster(cfg, ucb, rand.New(rand.NewPCG(1, 1))); err != nil {
			return
		}
		s, err := MonteCarlo(context.Background(), func(*rand.Rand) (Env, error) { return env, nil }, MasterFactory(cfg, ucb), 1, 1)
		if err != nil {
			return
		}
		if r := s.FinalMean; math.IsNaN(r) || math.IsInf(r, 0) || r < -1e-9 {
			t.Fatalf("final regret %v (K %d, T %d, means %v, starts %v, config %+v)", r, K, T, means, starts, cfg)
		}
	})
}
