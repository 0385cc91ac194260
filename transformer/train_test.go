package transformer

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/icrl-go/icrl/tensor"
)

// majorityData returns sequences of tokens in [0, vocab) whose label at
// each position is the most frequent token so far; positions where the
// maximum is tied are left out of the loss (label −1).
func majorityData(rng *rand.Rand, count, length, vocab int) []Example[float32] {
	data := make([]Example[float32], count)
	for k := range data {
		toks := make([]int, length)
		labels := make([]int, length)
		counts := make([]int, vocab)
		// A skewed draw so that a majority exists most of the time.
		bias := rng.IntN(vocab)
		for i := range toks {
			t := rng.IntN(vocab)
			if rng.Float64() < 0.3 {
				t = bias
			}
			toks[i] = t
			counts[t]++
			best, tied := 0, false
			for c := 1; c < vocab; c++ {
				switch {
				case counts[c] > counts[best]:
					best, tied = c, false
				case counts[c] == counts[best]:
					tied = true
				}
			}
			labels[i] = best
			if tied {
				labels[i] = -1
			}
		}
		data[k] = Example[float32]{Input: Sequence[float32]{Tokens: toks}, Target: Target[float32]{Labels: labels}}
	}
	return data
}

// accuracy returns the fraction of scored positions whose arg-max logit is
// the label.
func accuracy(t *testing.T, m *Model[float32], data []Example[float32]) float64 {
	t.Helper()
	seqs := make([]Sequence[float32], len(data))
	for k := range data {
		seqs[k] = data[k].Input
	}
	logits, err := m.Forward(seqs)
	if err != nil {
		t.Fatal(err)
	}
	o := m.Config().Outputs
	var right, total int
	for k, ex := range data {
		for i, c := range ex.Target.Labels {
			if c < 0 {
				continue
			}
			z := logits[k][i*o : (i+1)*o]
			best := 0
			for j := range z {
				if z[j] > z[best] {
					best = j
				}
			}
			if best == c {
				right++
			}
			total++
		}
	}
	return float64(right) / float64(total)
}

// TestTrainMajority trains a small softmax-attention model to output the
// most frequent token so far, an in-context counting task, and asserts its
// held-out accuracy.
func TestTrainMajority(t *testing.T) {
	if raceEnabled && testing.Short() {
		t.Skip("a learning test of 400 steps, about 200 s under the race detector; the parallel paths of Train run under it in TestTrainDeterministic and TestTrainResume, and this test runs in every suite without -race")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	const vocab, length = 4, 16
	train := majorityData(rng, 2000, length, vocab)
	test := majorityData(rng, 300, length, vocab)
	m, err := New[float32](Config{Layers: 2, Heads: 4, Width: 32, FeedForward: 64, Vocab: vocab, Outputs: vocab, MaxLen: length}, rng)
	if err != nil {
		t.Fatal(err)
	}
	before := accuracy(t, m, test)
	res, err := Train(context.Background(), m, train, TrainConfig[float32]{
		BatchSize: 32, Steps: 400, Seed: 3,
		LR: WarmupCosine{Peak: 3e-3, Min: 3e-4, Warmup: 50, Total: 400},
	})
	if err != nil {
		t.Fatal(err)
	}
	after := accuracy(t, m, test)
	t.Logf("majority task: held-out accuracy %.3f before, %.3f after %d steps (loss %.4f)", before, after, res.Steps, res.Loss)
	if after < 0.9 {
		t.Errorf("held-out accuracy %.3f after training, want at least 0.9", after)
	}
}

func smallModel(t *testing.T, seed uint64) *Model[float32] {
	t.Helper()
	m, err := New[float32](Config{Layers: 2, Heads: 2, Width: 16, FeedForward: 32, Vocab: 4, Outputs: 4, MaxLen: 16}, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameParams[F tensor.Float](a, b *Model[F]) bool {
	for i, p := range a.Params() {
		q := b.Params()[i]
		for j := range p.Value {
			if math.Float64bits(float64(p.Value[j])) != math.Float64bits(float64(q.Value[j])) {
				return false
			}
		}
	}
	return true
}

// TestTrainDeterministic checks that 100 steps give bit-identical weights
// with GOMAXPROCS 1 and 2.
func TestTrainDeterministic(t *testing.T) {
	data := majorityData(rand.New(rand.NewPCG(2, 2)), 200, 12, 4)
	steps := 100
	if raceEnabled {
		steps = 30
	}
	run := func(procs int) *Model[float32] {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m := smallModel(t, 5)
		if _, err := Train(context.Background(), m, data, TrainConfig[float32]{BatchSize: 16, Steps: steps, Seed: 9, ClipNorm: 1}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := run(1), run(2)
	if !sameParams(a, b) {
		t.Fatalf("weights after %d steps differ between GOMAXPROCS 1 and 2", steps)
	}
	if sameParams(a, smallModel(t, 5)) {
		t.Fatal("training did not change the weights")
	}
}

// TestTrainResume checks that stopping at a checkpoint and resuming gives
// exactly the weights of an uninterrupted run.
func TestTrainResume(t *testing.T) {
	data := majorityData(rand.New(rand.NewPCG(3, 3)), 100, 10, 4)
	val := majorityData(rand.New(rand.NewPCG(4, 4)), 20, 10, 4)
	cfg := TrainConfig[float32]{BatchSize: 8, Steps: 40, Seed: 1, Validation: val, EvalEvery: 5, LR: WarmupCosine{Peak: 1e-3, Warmup: 5, Total: 40}}
	whole := smallModel(t, 7)
	if _, err := Train(context.Background(), whole, data, cfg); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	part := smallModel(t, 7)
	c1 := cfg
	c1.Steps, c1.CheckpointDir = 17, dir
	if _, err := Train(context.Background(), part, data, c1); err != nil {
		t.Fatal(err)
	}
	resumed := smallModel(t, 99) // different start: the checkpoint must overwrite it
	c2 := cfg
	c2.CheckpointDir, c2.Resume = dir, true
	res, err := Train(context.Background(), resumed, data, c2)
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps != 40 {
		t.Fatalf("resumed run ended at step %d, want 40", res.Steps)
	}
	if !sameParams(whole, resumed) {
		t.Fatal("resumed training differs from uninterrupted training")
	}
}

func TestTrainStopping(t *testing.T) {
	data := majorityData(rand.New(rand.NewPCG(5, 5)), 64, 8, 4)
	// Target loss: a huge threshold stops after the first full window.
	m := smallModel(t, 1)
	res, err := Train(context.Background(), m, data, TrainConfig[float32]{BatchSize: 16, Steps: 1000, TargetLoss: 100, LossWindow: 3})
	if err != nil || res.Reason != "target loss" || res.Steps != 3 {
		t.Fatalf("target loss: %+v, %v; want a stop at step 3", res, err)
	}
	// Patience: validation with a zero learning rate never improves.
	res, err = Train(context.Background(), smallModel(t, 1), data, TrainConfig[float32]{BatchSize: 16, Steps: 1000, LR: ConstantLR(0), Validation: data[:8], EvalEvery: 1, Patience: 2})
	if err != nil || res.Reason != "patience" || res.Steps != 3 {
		t.Fatalf("patience: %+v, %v; want a stop at step 3", res, err)
	}
	// Epochs.
	res, err = Train(context.Background(), smallModel(t, 1), data, TrainConfig[float32]{BatchSize: 16, Epochs: 2})
	if err != nil || res.Reason != "epochs" || res.Steps != 8 {
		t.Fatalf("epochs: %+v, %v; want 8 steps", res, err)
	}
	// Cancellation, from the progress callback.
	ctx, cancel := context.WithCancel(context.Background())
	var calls int
	res, err = Train(ctx, smallModel(t, 1), data, TrainConfig[float32]{BatchSize: 16, Steps: 1000, ProgressEvery: 5, Progress: func(p Progress) {
		calls++
		if p.Step >= 10 {
			cancel()
		}
		if p.TokensPerSec <= 0 || math.IsNaN(p.Loss) {
			t.Errorf("progress %+v", p)
		}
	}})
	if !errors.Is(err, context.Canceled) || res.Reason != "cancelled" || res.Steps != 10 {
		t.Fatalf("cancel: %+v, %v; want a stop at step 10", res, err)
	}
	if calls < 2 {
		t.Fatalf("progress called %d times", calls)
	}
}

func TestTrainErrors(t *testing.T) {
	m := smallModel(t, 1)
	good := majorityData(rand.New(rand.NewPCG(5, 5)), 4, 8, 4)
	ctx := context.Background()
	for name, tc := range map[string]struct {
		data []Example[float32]
		cfg  TrainConfig[float32]
	}{
		"no data":      {nil, TrainConfig[float32]{Steps: 1}},
		"no steps":     {good, TrainConfig[float32]{}},
		"bad token":    {[]Example[float32]{{Input: Sequence[float32]{Tokens: []int{9}}, Target: Target[float32]{Labels: []int{0}}}}, TrainConfig[float32]{Steps: 1}},
		"bad label":    {[]Example[float32]{{Input: Sequence[float32]{Tokens: []int{1}}, Target: Target[float32]{Labels: []int{7}}}}, TrainConfig[float32]{Steps: 1}},
		"short labels": {[]Example[float32]{{Input: Sequence[float32]{Tokens: []int{1, 2}}, Target: Target[float32]{Labels: []int{0}}}}, TrainConfig[float32]{Steps: 1}},
		"negative":     {good, TrainConfig[float32]{Steps: 1, BatchSize: -1}},
		"resume":       {good, TrainConfig[float32]{Steps: 1, Resume: true}},
		"bad adam":     {good, TrainConfig[float32]{Steps: 1, Adam: AdamConfig{Beta1: 2}}},
		"bad schedule": {good, TrainConfig[float32]{Steps: 1, LR: WarmupCosine{Peak: -1, Total: 10}}},
	} {
		if _, err := Train(ctx, m, tc.data, tc.cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestPeerStepsDeterministic checks that three Adam steps of the
// paper-size model (2 layers, width 64, 168k parameters) on a 16 × 40
// batch, large enough for the parallel GEMM, attention, norms and Adam
// pieces, give bit-identical weights with GOMAXPROCS 1 and 2.
func TestPeerStepsDeterministic(t *testing.T) {
	run := func(procs int) *Model[float32] {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rng := rand.New(rand.NewPCG(8, 8))
		m, err := New[float32](peerConfig, rng)
		if err != nil {
			t.Fatal(err)
		}
		opt, err := NewAdam(m.Params(), AdamConfig{})
		if err != nil {
			t.Fatal(err)
		}
		seqs, targets := peerBatch[float32](16, 40, rng)
		for range 3 {
			m.ZeroGrad()
			if _, err := m.Backprop(seqs, targets); err != nil {
				t.Fatal(err)
			}
			if err := opt.Step(1e-3); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	if !sameParams(run(1), run(2)) {
		t.Fatal("weights after 3 steps differ between GOMAXPROCS 1 and 2")
	}
}
