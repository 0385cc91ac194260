// Command transformerbench measures the transformer package side by side
// with PyTorch on the same model and batches, in one run.
//
// The model is the one of ../shared/bench/peer_torch_fast.py: pre-LN,
// softmax attention, ReLU MLP, learned positions, vocabulary 32, 8 outputs,
// 2 layers, 4 heads, width 64, feed-forward 256, Adam. Each round times Go
// training steps in float32 (3 warm-up steps, then -steps timed steps, as
// the script does) for every shape (batch × length) and thread count, with
// GOMAXPROCS set to the thread count, and then runs the PyTorch script once
// for every shape and thread count (torch.set_num_threads) in both of its
// implementations, nn.TransformerEncoder and a hand-written
// scaled_dot_product_attention block; rounds interleave the two sides so
// that both see the same machine. It reports each side's best over the
// rounds, implementations and thread counts, the ratio, each side's thread
// scaling (best over one thread), the Go step's achieved GFLOP/s and its
// fraction of the package's own single-precision GEMM peak on this machine
// (transformer.PeakGFLOPS, a 512 × 512 × 512 product, at the same thread
// count), and, with -play, online play of `length` rounds with the
// KV-cached Session against re-running the model on the whole history.
//
// The FLOP count of a training step is three times the forward pass's
// (the backward pass costs two): per sequence of T tokens and per layer,
// 2T·D·3D (Q, K, V), 2T·D·D (output projection), 4T·D·F (feed-forward)
// and 2T(T+1)·D (causal scores and weighted values), plus 2T·D·O for the
// read-out, with width D, feed-forward F and O outputs. Layer norms,
// softmax and the optimiser are not counted.
//
// Usage:
//
//	go run ./examples/transformerbench [-peer ../shared/bench/peer_torch_fast.py] [-python python3]
//	    [-threads 1,2,4,…,cores] [-rounds 3] [-steps 20] [-sizes 8x32,16x100,32x128,64x256] [-torch-device cpu] [-play]
//	go run ./examples/transformerbench -log examples/runs/transformerbench-h100/tb-final.txt
//	go run ./examples/transformerbench -decode [-games 1,64] [-length 200] [-threads …] [-rounds 3]
//	    [-decode-peer ../shared/bench/peer_torch_decode.py]
//
// The second form measures nothing: it rewrites the table from the saved
// output of an earlier run (the 16-core runs of the README's performance
// section are in examples/runs/transformerbench-h100). The third measures
// online play instead of training (see decode.go): G games at once, one
// token a round with the key/value cache, against PyTorch decoding the same
// model with its cache, per-round times best and median over interleaved
// rounds.
//
// PyTorch 2 is what users install (pip install torch); Debian's
// python3-torch (1.13) also runs the script, with libopenblas0-pthread
// (without OpenBLAS it falls back to a slow reference BLAS). If the script
// or torch is missing, only the Go numbers are printed.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/icrl-go/icrl/transformer"
)

var peerConfig = transformer.Config{Layers: 2, Heads: 4, Width: 64, FeedForward: 256, Vocab: 32, Outputs: 8, MaxLen: 1024}

// options are the command's flags.
type options struct {
	peer, python  string
	torchDevice   string
	threads       []int
	sizes         [][2]int
	rounds, steps int
	play          bool
	log           string
	// -decode: online play against peer_torch_decode.py
	decode     bool
	decodePeer string
	games      []int
	length     int
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "transformerbench:", err)
		os.Exit(2)
	}
	run := run
	switch {
	case o.log != "":
		run = replay
	case o.decode:
		run = runDecode
	}
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "transformerbench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("transformerbench", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.peer, "peer", "../shared/bench/peer_torch_fast.py", "path of the PyTorch peer script")
	fs.StringVar(&o.python, "python", "python3", "Python interpreter with torch")
	fs.StringVar(&o.torchDevice, "torch-device", "cpu", "device of the PyTorch side: cpu or cuda")
	threads := fs.String("threads", defaultThreads(runtime.NumCPU()), "comma-separated thread counts (GOMAXPROCS for Go, torch.set_num_threads for PyTorch); default: 1, 2, 4, … up to the machine's cores")
	sizes := fs.String("sizes", "8x32,16x100,32x128,64x256", "comma-separated batch×length pairs")
	fs.IntVar(&o.rounds, "rounds", 3, "interleaved rounds; each side's best is reported")
	fs.IntVar(&o.steps, "steps", 20, "timed training steps per measurement")
	fs.BoolVar(&o.play, "play", false, "also time online play (Go KV cache against re-running the model)")
	fs.StringVar(&o.log, "log", "", "measure nothing: rewrite the table from the output of an earlier run saved in this file")
	fs.BoolVar(&o.decode, "decode", false, "measure online play instead of training: G games at once, one token a round with the KV cache, against -decode-peer")
	fs.StringVar(&o.decodePeer, "decode-peer", "../shared/bench/peer_torch_decode.py", "-decode: path of the PyTorch decode peer script")
	games := fs.String("games", "1,64", "-decode: comma-separated numbers of games played at once")
	fs.IntVar(&o.length, "length", 200, "-decode: rounds T of every game")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for _, s := range strings.Split(*games, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return o, fmt.Errorf("bad game count %q in -games", s)
		}
		o.games = append(o.games, n)
	}
	if o.length < 1 || o.length > peerConfig.MaxLen {
		return o, fmt.Errorf("-length = %d: want 1 to %d", o.length, peerConfig.MaxLen)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.torchDevice != "cpu" && o.torchDevice != "cuda" {
		return o, fmt.Errorf("-torch-device = %q: want cpu or cuda", o.torchDevice)
	}
	if o.rounds < 1 || o.steps < 1 {
		return o, fmt.Errorf("-rounds = %d, -steps = %d: both must be ≥ 1", o.rounds, o.steps)
	}
	for _, s := range strings.Split(*threads, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return o, fmt.Errorf("bad thread count %q in -threads", s)
		}
		o.threads = append(o.threads, n)
	}
	for _, s := range strings.Split(*sizes, ",") {
		var b, t int
		if _, err := fmt.Sscanf(strings.TrimSpace(s), "%dx%d", &b, &t); err != nil || b < 1 || t < 1 || t > peerConfig.MaxLen {
			return o, fmt.Errorf("bad size %q in -sizes (want BxT with T ≤ %d, e.g. 32x128)", s, peerConfig.MaxLen)
		}
		o.sizes = append(o.sizes, [2]int{b, t})
	}
	return o, nil
}

// defaultThreads returns the thread counts 1, 2, 4, … below cpus, and cpus.
func defaultThreads(cpus int) string {
	var out []string
	for t := 1; t < cpus; t *= 2 {
		out = append(out, strconv.Itoa(t))
	}
	return strings.Join(append(out, strconv.Itoa(max(cpus, 1))), ",")
}

// best is a side's best throughput at one shape and thread count.
type best map[[3]int]float64 // key: b, t, threads

func (m best) add(b, t, th int, v float64) {
	if k := [3]int{b, t, th}; v > m[k] {
		m[k] = v
	}
}

// top returns the best throughput over the thread counts and its thread
// count (0 if none was measured).
func (m best) top(b, t int, threads []int) (float64, int) {
	v, at := 0.0, 0
	for _, th := range threads {
		if x := m[[3]int{b, t, th}]; x > v {
			v, at = x, th
		}
	}
	return v, at
}

func run(o options, w io.Writer) error {
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	peak := map[int]float64{}
	for _, th := range o.threads {
		runtime.GOMAXPROCS(th)
		p, err := transformer.PeakGFLOPS(512, time.Second)
		if err != nil {
			return err
		}
		peak[th] = p
		fmt.Fprintf(w, "GEMM peak (float32, 512³, %d thread(s)): %.1f GFLOP/s\n", th, peak[th])
	}
	goBest, torchBest := best{}, best{}
	torchImpl := map[[3]int]string{}
	var torchVersion, torchProblem string
	for r := range o.rounds {
		for _, bt := range o.sizes {
			for _, th := range o.threads {
				runtime.GOMAXPROCS(th)
				tok, err := goTrain(bt[0], bt[1], o.steps)
				if err != nil {
					return err
				}
				goBest.add(bt[0], bt[1], th, tok)
				fmt.Fprintf(w, "round %d  Go       B=%d T=%d threads=%d: %.0f tokens/s\n", r+1, bt[0], bt[1], th, tok)
			}
		}
		if torchProblem != "" {
			continue
		}
		lines, err := torch(o)
		if err != nil {
			torchProblem = err.Error()
			fmt.Fprintf(w, "PyTorch not run: %s\n", torchProblem)
			continue
		}
		for _, l := range lines {
			torchVersion = l.version
			k := [3]int{l.b, l.t, l.threads}
			if l.tokens > torchBest[k] {
				torchImpl[k] = l.impl
			}
			torchBest.add(l.b, l.t, l.threads, l.tokens)
			fmt.Fprintf(w, "round %d  PyTorch  B=%d T=%d threads=%d: %.0f tokens/s (%s %s, %s)\n", r+1, l.b, l.t, l.threads, l.tokens, l.impl, l.device, l.version)
		}
	}
	fmt.Fprintf(w, "\nBest of %d interleaved rounds at threads %v; %d timed steps each; PyTorch: %s\n\n", o.rounds, o.threads, o.steps, orNone(torchVersion, torchProblem))
	if err := table(w, o, peak, goBest, torchBest, torchImpl); err != nil {
		return err
	}
	if !o.play {
		return nil
	}
	runtime.GOMAXPROCS(o.threads[len(o.threads)-1])
	fmt.Fprintf(w, "\nOnline play of T rounds, one query a round (Go at %d threads):\n\n", runtime.GOMAXPROCS(0))
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "| T | Go, KV cache (ms) | Go, re-run (ms) | KV speed-up |")
	fmt.Fprintln(tw, "|---|---|---|---|")
	done := map[int]bool{}
	for _, bt := range o.sizes {
		t := bt[1]
		if done[t] {
			continue
		}
		done[t] = true
		kv, rerun, err := goPlay(t)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "| %d | %.1f | %.1f | %.1f× |\n", t, kv, rerun, rerun/kv)
	}
	return tw.Flush()
}

var (
	peakLine  = regexp.MustCompile(`^GEMM peak \(float32, 512³, (\d+) thread\(s\)\): ([\d.]+) GFLOP/s`)
	roundLine = regexp.MustCompile(`^round (\d+)  (Go|PyTorch) +B=(\d+) T=(\d+) threads=(\d+): (\d+) tokens/s(?: \((\S+) \S+, (.+)\))?`)
)

// replay rewrites the table from the saved output of an earlier run (the
// file o.log): its GEMM peaks and every round's line of both sides; the
// thread counts and shapes are those of the file, in its order.
func replay(o options, w io.Writer) error {
	raw, err := os.ReadFile(o.log)
	if err != nil {
		return err
	}
	peak := map[int]float64{}
	goBest, torchBest := best{}, best{}
	torchImpl := map[[3]int]string{}
	seenT, seenS := map[int]bool{}, map[[2]int]bool{}
	rounds, version := 0, ""
	o.threads, o.sizes = nil, nil
	for _, line := range strings.Split(string(raw), "\n") {
		if m := peakLine.FindStringSubmatch(line); m != nil {
			th, _ := strconv.Atoi(m[1])
			peak[th], _ = strconv.ParseFloat(m[2], 64)
			continue
		}
		m := roundLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var n [5]int
		for i := range n {
			n[i], _ = strconv.Atoi(m[[]int{1, 3, 4, 5, 6}[i]])
		}
		r, b, t, th, tok := n[0], n[1], n[2], n[3], float64(n[4])
		rounds = max(rounds, r)
		if !seenT[th] {
			seenT[th] = true
			o.threads = append(o.threads, th)
		}
		if bt := [2]int{b, t}; !seenS[bt] {
			seenS[bt] = true
			o.sizes = append(o.sizes, bt)
		}
		if m[2] == "Go" {
			goBest.add(b, t, th, tok)
			continue
		}
		k := [3]int{b, t, th}
		if tok > torchBest[k] {
			torchImpl[k] = m[7]
		}
		torchBest.add(b, t, th, tok)
		version = m[8]
	}
	if len(o.sizes) == 0 {
		return fmt.Errorf("no measurement in %s", o.log)
	}
	slices.Sort(o.threads)
	fmt.Fprintf(w, "From %s: best of %d interleaved rounds at threads %v; PyTorch: %s\n\n", o.log, rounds, o.threads, orNone(version, "not run"))
	return table(w, o, peak, goBest, torchBest, torchImpl)
}

// table writes the comparison: each side's best and its thread count, the
// ratio, each side's scaling (best over one thread, when one thread was
// measured), the Go step's GFLOP/s and its fraction of the GEMM peak, and
// every thread count's numbers.
func table(w io.Writer, o options, peak map[int]float64, goBest, torchBest best, torchImpl map[[3]int]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	head := "| B × T | Go tokens/s (threads) | PyTorch tokens/s (impl, threads) | Go/PyTorch | Go scaling | PyTorch scaling | Go GFLOP/s | of GEMM peak |"
	sep := "|---|---|---|---|---|---|---|---|"
	for _, th := range o.threads {
		head += fmt.Sprintf(" Go, %d | PyTorch, %d |", th, th)
		sep += "---|---|"
	}
	fmt.Fprintln(tw, head)
	fmt.Fprintln(tw, sep)
	for _, bt := range o.sizes {
		b, t := bt[0], bt[1]
		gv, gth := goBest.top(b, t, o.threads)
		tv, tth := torchBest.top(b, t, o.threads)
		gflops := trainFLOPs(peerConfig, b, t) * gv / float64(b*t) / 1e9
		ratio, tcell := "–", "–"
		if tv > 0 {
			ratio = fmt.Sprintf("%.2f×", gv/tv)
			tcell = fmt.Sprintf("%.0f (%s, %d)", tv, torchImpl[[3]int{b, t, tth}], tth)
		}
		line := fmt.Sprintf("| %d × %d | %.0f (%d) | %s | %s | %s | %s | %.1f | %.0f%% |", b, t, gv, gth, tcell, ratio,
			scaling(gv, goBest[[3]int{b, t, 1}]), scaling(tv, torchBest[[3]int{b, t, 1}]), gflops, 100*gflops/peak[gth])
		for _, th := range o.threads {
			line += fmt.Sprintf(" %s | %s |", dash(goBest[[3]int{b, t, th}]), dash(torchBest[[3]int{b, t, th}]))
		}
		fmt.Fprintln(tw, line)
	}
	if p1, ok := peak[1]; ok {
		line := "\nGEMM peak scaling (512³, over one thread):"
		for _, th := range o.threads {
			line += fmt.Sprintf(" %d: %.2f×", th, peak[th]/p1)
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// scaling formats best/one, or a dash when one thread was not measured.
func scaling(best, one float64) string {
	if one == 0 || best == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f×", best/one)
}

func dash(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

func orNone(version, problem string) string {
	if version != "" {
		return version
	}
	return "not run (" + problem + ")"
}

// trainFLOPs returns the floating-point operations of one training step on
// b sequences of t tokens (see the package doc).
func trainFLOPs(c transformer.Config, b, t int) float64 {
	D, F, T := float64(c.Width), float64(c.FeedForward), float64(t)
	layer := 2*T*D*3*D + 2*T*D*D + 4*T*D*F + 2*T*(T+1)*D
	fwd := float64(c.Layers)*layer + 2*T*D*float64(c.Outputs)
	return 3 * fwd * float64(b)
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
	bestOf3 := func(f func() error) (float64, error) {
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
	kv, err = bestOf3(func() error {
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
	rerun, err = bestOf3(func() error {
		for i := 1; i <= t; i++ {
			if _, err := m.Forward([]transformer.Sequence[float32]{{Tokens: toks[:i]}}); err != nil {
				return err
			}
		}
		return nil
	})
	return kv, rerun, err
}

var torchLine = regexp.MustCompile(`^torch (\S+) (\S+) (\S+) threads=(\d+) B=(\d+) T=(\d+): ([\d.]+) tokens/s`)

// torchResult is one line of the peer script: one implementation, thread
// count and shape.
type torchResult struct {
	version, impl, device string
	threads, b, t         int
	tokens                float64
}

// torch runs the peer script once for every thread count and shape of o
// and parses its lines.
func torch(o options) ([]torchResult, error) {
	if _, err := os.Stat(o.peer); err != nil {
		return nil, fmt.Errorf("no peer script at %s", o.peer)
	}
	var threads, sizes []string
	for _, th := range o.threads {
		threads = append(threads, strconv.Itoa(th))
	}
	for _, bt := range o.sizes {
		sizes = append(sizes, fmt.Sprintf("%dx%d", bt[0], bt[1]))
	}
	cmd := exec.Command(o.python, o.peer, "--threads", strings.Join(threads, ","), "--sizes", strings.Join(sizes, ","),
		"--steps", strconv.Itoa(o.steps), "--device", o.torchDevice)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s failed: %v: %s", o.python, o.peer, err, lastLine(out.String()))
	}
	res, err := parseTorch(out.String())
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("no result in the output of %s: %q", o.peer, lastLine(out.String()))
	}
	return res, nil
}

// parseTorch reads the peer script's result lines, ignoring other output.
func parseTorch(out string) ([]torchResult, error) {
	var res []torchResult
	for _, line := range strings.Split(out, "\n") {
		m := torchLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		r := torchResult{version: "torch " + m[1], impl: m[2], device: m[3]}
		var err error
		for i, dst := range []*int{&r.threads, &r.b, &r.t} {
			if *dst, err = strconv.Atoi(m[4+i]); err != nil {
				return nil, fmt.Errorf("bad line %q: %v", line, err)
			}
		}
		if r.tokens, err = strconv.ParseFloat(m[7], 64); err != nil {
			return nil, fmt.Errorf("bad line %q: %v", line, err)
		}
		res = append(res, r)
	}
	return res, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
