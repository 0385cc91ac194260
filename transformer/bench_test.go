package transformer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// peerConfig is the model of ../shared/bench/peer_torch_fast.py: pre-LN,
// softmax attention, ReLU MLP, learned positions, vocabulary 32, 8 outputs,
// 2 layers, 4 heads, width 64, feed-forward 256, biases as in PyTorch.
var peerConfig = Config{Layers: 2, Heads: 4, Width: 64, FeedForward: 256, Vocab: 32, Outputs: 8, MaxLen: 1024}

// peerBatch returns a random batch of b sequences of length t with random
// labels, as the PyTorch script draws.
func peerBatch[F tensor.Float](b, t int, rng *rand.Rand) ([]Sequence[F], []Target[F]) {
	seqs := make([]Sequence[F], b)
	targets := make([]Target[F], b)
	for k := range seqs {
		seqs[k].Tokens = make([]int, t)
		targets[k].Labels = make([]int, t)
		for i := 0; i < t; i++ {
			seqs[k].Tokens[i] = rng.IntN(32)
			targets[k].Labels[i] = rng.IntN(8)
		}
	}
	return seqs, targets
}

// BenchmarkTrainStep measures one Adam training step (forward, backward,
// update) of the peer model; tokens/s is b·t per step.
func BenchmarkTrainStep(b *testing.B) {
	for _, bt := range [][2]int{{8, 32}, {16, 40}, {16, 100}, {32, 128}, {64, 256}} {
		b.Run(fmt.Sprintf("float32/B=%d,T=%d", bt[0], bt[1]), func(b *testing.B) { benchTrainStep[float32](b, bt[0], bt[1]) })
	}
	b.Run("float64/B=8,T=32", func(b *testing.B) { benchTrainStep[float64](b, 8, 32) })
}

func benchTrainStep[F tensor.Float](b *testing.B, batch, length int) {
	rng := rand.New(rand.NewPCG(1, 1))
	m, err := New[F](peerConfig, rng)
	if err != nil {
		b.Fatal(err)
	}
	opt, err := NewAdam(m.Params(), AdamConfig{})
	if err != nil {
		b.Fatal(err)
	}
	seqs, targets := peerBatch[F](batch, length, rng)
	step := func() {
		m.ZeroGrad()
		if _, err := m.Backprop(seqs, targets); err != nil {
			b.Fatal(err)
		}
		if err := opt.Step(1e-3); err != nil {
			b.Fatal(err)
		}
	}
	step()
	b.ResetTimer()
	for range b.N {
		step()
	}
	b.ReportMetric(float64(batch*length)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkOnlinePlay compares playing 256 rounds online with the KV cache
// (one Append per round) against re-running the model on the whole history
// every round, as the PyTorch script's online-play figure does.
func BenchmarkOnlinePlay(b *testing.B) {
	const rounds = 256
	rng := rand.New(rand.NewPCG(2, 2))
	m, err := New[float32](peerConfig, rng)
	if err != nil {
		b.Fatal(err)
	}
	seq, _ := peerBatch[float32](1, rounds, rng)
	b.Run("kv-cache", func(b *testing.B) {
		s := m.NewSession()
		for range b.N {
			s.Reset()
			for _, tok := range seq[0].Tokens {
				if _, err := s.AppendToken(tok); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("full-rerun", func(b *testing.B) {
		for range b.N {
			for t := 1; t <= rounds; t++ {
				if _, err := m.Forward([]Sequence[float32]{{Tokens: seq[0].Tokens[:t]}}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// TestPeakGFLOPS checks that the peak measurement returns a positive,
// finite rate and an error on a bad size.
func TestPeakGFLOPS(t *testing.T) {
	if g, err := PeakGFLOPS(64, time.Millisecond); err != nil || !(g > 0) || math.IsInf(g, 0) {
		t.Fatalf("PeakGFLOPS(64) = %v, %v", g, err)
	}
	if _, err := PeakGFLOPS(0, time.Millisecond); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("PeakGFLOPS(0): %v", err)
	}
	if _, err := PeakGFLOPS(1<<20, time.Millisecond); !errors.Is(err, icrl.ErrTooLarge) {
		t.Errorf("PeakGFLOPS(2^20): %v", err)
	}
}
