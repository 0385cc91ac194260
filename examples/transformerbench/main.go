// Command transformerbench measures the transformer package side by side
// with PyTorch on the same model and batches, in one run.
//
// The model is the one of ../shared/bench/peer_torch.py: pre-LN, softmax
// attention, ReLU MLP, learned positions, vocabulary 32, 8 outputs, 2
// layers, 4 heads, width 64, feed-forward 256, Adam. For each (batch,
// length) it times Go training steps in float32 (3 warm-up steps, then
// -steps timed steps, as the script does) and online play of `length`
// rounds, both with the KV-cached Session and by re-running the model on
// the whole history each round; then it runs the PyTorch script with the
// same arguments and prints both.
//
// Usage:
//
//	go run ./examples/transformerbench [-peer ../shared/bench/peer_torch.py] [-python python3] [-threads 2] [-sizes 8x32,32x128,64x256]
//
// PyTorch comes from Debian (apt-get install python3-torch, run by
// /usr/bin/python3). If the script or torch is missing, only the Go numbers
// are printed.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/icrl-go/icrl/transformer"
)

var peerConfig = transformer.Config{Layers: 2, Heads: 4, Width: 64, FeedForward: 256, Vocab: 32, Outputs: 8, MaxLen: 1024}

func main() {
	peer := flag.String("peer", "../shared/bench/peer_torch.py", "path of the PyTorch peer script")
	python := flag.String("python", "/usr/bin/python3", "Python interpreter with torch")
	threads := flag.Int("threads", 2, "threads for PyTorch and GOMAXPROCS for Go")
	sizes := flag.String("sizes", "8x32,32x128,64x256", "comma-separated batch×length pairs")
	steps := flag.Int("steps", 20, "timed training steps per size")
	flag.Parse()
	runtime.GOMAXPROCS(*threads)
	if err := run(*peer, *python, *threads, *sizes, *steps); err != nil {
		fmt.Fprintln(os.Stderr, "transformerbench:", err)
		os.Exit(1)
	}
}

type result struct {
	b, t                        int
	goTokens, goKV, goRerun     float64 // tokens/s, ms, ms
	torchTokens, torchPlay      float64 // tokens/s, ms
	torchVersion, torchProblems string
}

func run(peer, python string, threads int, sizes string, steps int) error {
	var results []result
	for _, s := range strings.Split(sizes, ",") {
		var b, t int
		if _, err := fmt.Sscanf(strings.TrimSpace(s), "%dx%d", &b, &t); err != nil || b < 1 || t < 1 {
			return fmt.Errorf("bad size %q in -sizes (want BxT, e.g. 32x128)", s)
		}
		r := result{b: b, t: t}
		var err error
		if r.goTokens, err = goTrain(b, t, steps); err != nil {
			return err
		}
		if r.goKV, r.goRerun, err = goPlay(t); err != nil {
			return err
		}
		fmt.Printf("Go      B=%d T=%d: %.0f tokens/s; online play of %d rounds %.1f ms with the KV cache, %.1f ms re-running the model\n",
			b, t, r.goTokens, t, r.goKV, r.goRerun)
		r.torchTokens, r.torchPlay, r.torchVersion, r.torchProblems = torch(peer, python, threads, b, t)
		if r.torchProblems == "" {
			fmt.Printf("PyTorch B=%d T=%d: %.0f tokens/s; online play of %d rounds %.1f ms (%s)\n", b, t, r.torchTokens, t, r.torchPlay, r.torchVersion)
		} else {
			fmt.Printf("PyTorch B=%d T=%d: not run: %s\n", b, t, r.torchProblems)
		}
		results = append(results, r)
	}
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "| B | T | Go tokens/s | PyTorch tokens/s | Go/PyTorch | Go play, KV cache (ms) | Go play, re-run (ms) | KV speed-up | PyTorch play (ms) |")
	fmt.Fprintln(tw, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		ratio, tt, tp := "–", "–", "–"
		if r.torchProblems == "" {
			ratio = fmt.Sprintf("%.2f×", r.goTokens/r.torchTokens)
			tt = fmt.Sprintf("%.0f", r.torchTokens)
			tp = fmt.Sprintf("%.1f", r.torchPlay)
		}
		fmt.Fprintf(tw, "| %d | %d | %.0f | %s | %s | %.1f | %.1f | %.1f× | %s |\n",
			r.b, r.t, r.goTokens, tt, ratio, r.goKV, r.goRerun, r.goRerun/r.goKV, tp)
	}
	return tw.Flush()
}

// goTrain returns the training throughput of the peer model in float32.
func goTrain(b, t, steps int) (float64, error) {
	rng := rand.New(rand.NewPCG(0, 0))
	m, err := transformer.New[float32](peerConfig, rng)
	if err != nil {
		return 0, err
	}
	opt, err := transformer.NewAdam(m.Params(), transformer.AdamConfig{})
	if err != nil {
		return 0, err
	}
	seqs := make([]transformer.Sequence[float32], b)
	targets := make([]transformer.Target[float32], b)
	for k := range seqs {
		seqs[k].Tokens, targets[k].Labels = make([]int, t), make([]int, t)
		for i := range t {
			seqs[k].Tokens[i], targets[k].Labels[i] = rng.IntN(32), rng.IntN(8)
		}
	}
	step := func() error {
		m.ZeroGrad()
		if _, err := m.Backprop(seqs, targets); err != nil {
			return err
		}
		return opt.Step(1e-3)
	}
	for range 3 {
		if err := step(); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	for range steps {
		if err := step(); err != nil {
			return 0, err
		}
	}
	return float64(b*t*steps) / time.Since(start).Seconds(), nil
}

// goPlay returns the milliseconds to play t rounds with the KV cache and by
// re-running the model on the whole history every round.
func goPlay(t int) (kv, rerun float64, err error) {
	rng := rand.New(rand.NewPCG(0, 1))
	m, err := transformer.New[float32](peerConfig, rng)
	if err != nil {
		return 0, 0, err
	}
	toks := make([]int, t)
	for i := range toks {
		toks[i] = rng.IntN(32)
	}
	s := m.NewSession()
	best := func(f func() error) (float64, error) { // best of 3
		b := 0.0
		for k := range 3 {
			start := time.Now()
			if err := f(); err != nil {
				return 0, err
			}
			if d := time.Since(start).Seconds() * 1e3; k == 0 || d < b {
				b = d
			}
		}
		return b, nil
	}
	kv, err = best(func() error {
		s.Reset()
		for _, tok := range toks {
			if _, err := s.AppendToken(tok); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	rerun, err = best(func() error {
		for i := 1; i <= t; i++ {
			if _, err := m.Forward([]transformer.Sequence[float32]{{Tokens: toks[:i]}}); err != nil {
				return err
			}
		}
		return nil
	})
	return kv, rerun, err
}

var torchLine = regexp.MustCompile(`torch (\S+) threads=\d+ B=\d+ T=\d+: train step [\d.]+ ms \(([\d.]+) tokens/s\); online play of \d+ rounds ([\d.]+) ms`)

// torch runs the peer script and parses its line.
func torch(peer, python string, threads, b, t int) (tokens, play float64, version, problem string) {
	if _, err := os.Stat(peer); err != nil {
		return 0, 0, "", fmt.Sprintf("no peer script at %s", peer)
	}
	cmd := exec.Command(python, peer, strconv.Itoa(threads), strconv.Itoa(b), strconv.Itoa(t))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return 0, 0, "", fmt.Sprintf("%s %s failed: %v: %s", python, peer, err, lastLine(out.String()))
	}
	m := torchLine.FindStringSubmatch(out.String())
	if m == nil {
		return 0, 0, "", fmt.Sprintf("unexpected output %q", lastLine(out.String()))
	}
	tokens, _ = strconv.ParseFloat(m[2], 64)
	play, _ = strconv.ParseFloat(m[3], 64)
	return tokens, play, "torch " + m[1], ""
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
