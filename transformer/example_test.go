package transformer_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/icrl-go/icrl/transformer"
)

// The model of the papers' experiments: 2 layers, 4 heads, width 64,
// feed-forward 256, here reading a vocabulary of 10 tokens and predicting 3
// actions.
func ExampleNew() {
	cfg := transformer.Config{
		Layers: 2, Heads: 4, Width: 64, FeedForward: 256,
		Vocab: 10, Outputs: 3, MaxLen: 128,
	}
	m, err := transformer.New[float32](cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("parameters:", m.NumParams())
	fmt.Println("attention:", m.Config().Attention, "norm:", m.Config().Norm)
	// Output:
	// parameters: 108995
	// attention: softmax norm: pre
}

// Train a tiny model, in context, to repeat the first token of each
// sequence at every position.
func ExampleTrain() {
	rng := rand.New(rand.NewPCG(1, 2))
	var data []transformer.Example[float32]
	for range 256 {
		first := rng.IntN(4)
		toks, labels := make([]int, 8), make([]int, 8)
		for i := range toks {
			toks[i], labels[i] = rng.IntN(4), first
		}
		toks[0] = first
		data = append(data, transformer.Example[float32]{
			Input:  transformer.Sequence[float32]{Tokens: toks},
			Target: transformer.Target[float32]{Labels: labels},
		})
	}
	m, _ := transformer.New[float32](transformer.Config{
		Layers: 1, Heads: 2, Width: 16, FeedForward: 32, Vocab: 4, Outputs: 4, MaxLen: 8,
	}, rng)
	res, err := transformer.Train(context.Background(), m, data, transformer.TrainConfig[float32]{
		BatchSize: 32, Steps: 2000, Seed: 1, LR: transformer.ConstantLR(3e-3),
		TargetLoss: 0.01, // stop once the mean loss over an epoch is below 0.01
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stopped by:", res.Reason)
	fmt.Println("loss below 0.01:", res.Loss < 0.01)
	// Output:
	// stopped by: target loss
	// loss below 0.01: true
}

// Decode online with a KV-cached session: each append returns the logits
// at the new position, the same as the full forward pass gives.
func ExampleSession() {
	m, _ := transformer.New[float64](transformer.Config{
		Layers: 2, Heads: 2, Width: 16, FeedForward: 32, Vocab: 5, Outputs: 3,
	}, rand.New(rand.NewPCG(3, 4)))
	tokens := []int{1, 4, 0, 2, 2, 3}
	full, _ := m.Forward([]transformer.Sequence[float64]{{Tokens: tokens}})

	s := m.NewSession()
	var maxDiff float64
	for i, tok := range tokens {
		logits, err := s.AppendToken(tok)
		if err != nil {
			fmt.Println(err)
			return
		}
		for j, z := range logits {
			maxDiff = math.Max(maxDiff, math.Abs(z-full[0][i*3+j]))
		}
	}
	fmt.Println("positions:", s.Len())
	fmt.Println("same logits as the full pass:", maxDiff < 1e-12)
	// Output:
	// positions: 6
	// same logits as the full pass: true
}

// Save a model to a directory and load it back.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "model")
	defer os.RemoveAll(dir)
	m, _ := transformer.New[float32](transformer.Config{
		Layers: 1, Heads: 1, Width: 8, FeedForward: 8, Features: 3, Outputs: 2,
	}, rand.New(rand.NewPCG(5, 6)))
	if err := m.Save(dir); err != nil {
		fmt.Println(err)
		return
	}
	l, err := transformer.Load[float32](dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	x := transformer.Sequence[float32]{Features: []float32{0.5, -1, 2}}
	a, _ := m.Forward([]transformer.Sequence[float32]{x})
	b, _ := l.Forward([]transformer.Sequence[float32]{x})
	fmt.Println("files:", transformer.ConfigFile, transformer.WeightsFile)
	_, err = os.Stat(filepath.Join(dir, transformer.WeightsFile))
	fmt.Println("weights written:", err == nil)
	fmt.Println("same logits:", a[0][0] == b[0][0] && a[0][1] == b[0][1])
	// Output:
	// files: config.json model.safetensors
	// weights written: true
	// same logits: true
}

// A GPT-2 language model as Hugging Face transformers' save_pretrained
// writes it (config.json and model.safetensors; here a tiny random one,
// whose logits transformers computed as below: 1.37948… for token 0):
// the configuration comes from config.json, the float32 weights widen
// exactly into a float64 model, and the read-out is the tied embedding.
func ExampleImportGPT2Dir() {
	m, err := transformer.ImportGPT2Dir[float64]("testdata/hf-gpt2/lmhead_gelu_new")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := m.Config()
	fmt.Printf("layers %d, heads %d, width %d, vocabulary %d, activation %v, tied head %v\n",
		c.Layers, c.Heads, c.Width, c.Vocab, c.Activation, c.TiedHead)
	logits, err := m.Forward([]transformer.Sequence[float64]{{Tokens: []int{7, 3, 0}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	last := logits[0][2*c.Outputs:]
	best := 0
	for j, v := range last {
		if v > last[best] {
			best = j
		}
	}
	fmt.Printf("most likely next token: %d (logit %.4f)\n", best, last[best])
	// Output:
	// layers 2, heads 4, width 32, vocabulary 24, activation gelu_tanh, tied head true
	// most likely next token: 0 (logit 1.3795)
}

// A float32 model (what PyTorch and save_pretrained write) converted to
// float64 for evaluation: widening is exact.
func ExampleConvert() {
	cfg := transformer.Config{Layers: 1, Heads: 2, Width: 8, FeedForward: 16, Vocab: 4, Outputs: 2}
	m32, err := transformer.New[float32](cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		fmt.Println(err)
		return
	}
	m64, err := transformer.Convert[float64](m32)
	if err != nil {
		fmt.Println(err)
		return
	}
	w32, w64 := m32.Param("head.weight").Value[0], m64.Param("head.weight").Value[0]
	fmt.Println(m64.NumParams() == m32.NumParams(), float64(w32) == w64)
	// Output:
	// true true
}
