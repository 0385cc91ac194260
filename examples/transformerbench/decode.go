package main

import (
	"bufio"
	"bytes"
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
	"sync"
	"text/tabwriter"
	"time"

	"github.com/icrl-go/icrl/transformer"
)

// The -decode mode measures online play, one token a round with the key and
// value cache, as an in-context learner plays in a simulator: per round each
// game appends one token and reads the logits of its last position, and the
// next token depends on them ((argmax·3 + t) mod 32), as when an action is
// sampled from the policy. G games at once are G independent KV-cached
// Sessions spread over the threads on the Go side (each goroutine plays its
// games one after the other), one batch of G contexts on PyTorch's
// (../shared/bench/peer_torch_decode.py, torch.inference_mode). Both report
// the time of one round of all G games: the whole play's time divided by
// the number of rounds T. Rounds interleave the two sides; the table shows
// each side's best and median over the rounds.

// decodeKey identifies one decode measurement.
type decodeKey struct{ threads, games, length int }

// decodeTimes collects each side's per-round times (µs) over the rounds.
type decodeTimes map[decodeKey][]float64

// goDecode returns the microseconds one round of g games takes when each
// plays t rounds through its own Session, the games spread over the
// GOMAXPROCS threads.
func goDecode(g, t int) (float64, error) {
	m, err := transformer.New[float32](peerConfig, rand.New(rand.NewPCG(0, 1)))
	if err != nil {
		return 0, err
	}
	playOne := func(s *transformer.Session[float32], k int) error {
		s.Reset()
		tok := k % peerConfig.Vocab
		for r := range t {
			logits, err := s.AppendToken(tok)
			if err != nil {
				return err
			}
			best := 0
			for i, v := range logits {
				if v > logits[best] {
					best = i
				}
			}
			tok = (best*3 + r) % peerConfig.Vocab
		}
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), g)
	sessions := make([]*transformer.Session[float32], workers)
	for w := range sessions {
		sessions[w] = m.NewSession()
		if err := playOne(sessions[w], w); err != nil { // warm-up: the caches grow to t
			return 0, err
		}
	}
	start := time.Now()
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < g; k += workers {
				if err := playOne(sessions[w], k); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return el.Seconds() * 1e6 / float64(t), nil
}

var torchDecodeLine = regexp.MustCompile(`^PyTorch decode (\S+) threads=(\d+) games=(\d+) T=(\d+): \d+ rounds/s, ([\d.]+) us/round \(torch (\S+)\)`)

// torchDecode runs the PyTorch decode peer once over every thread count,
// game count and length and returns its per-round times and version.
func torchDecode(o options) (decodeTimes, string, error) {
	if _, err := os.Stat(o.decodePeer); err != nil {
		return nil, "", fmt.Errorf("no peer script: %w", err)
	}
	cmd := exec.Command(o.python, o.decodePeer, "--threads", joinInts(o.threads), "--games", joinInts(o.games),
		"--lengths", strconv.Itoa(o.length), "--device", o.torchDevice, "--repeats", "1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("%v: %s", err, strings.TrimSpace(lastLine(stderr.String())))
	}
	times, version := decodeTimes{}, ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := torchDecodeLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		th, _ := strconv.Atoi(m[2])
		g, _ := strconv.Atoi(m[3])
		n, _ := strconv.Atoi(m[4])
		us, _ := strconv.ParseFloat(m[5], 64)
		k := decodeKey{th, g, n}
		times[k] = append(times[k], us)
		version = m[6]
	}
	if len(times) == 0 {
		return nil, "", fmt.Errorf("the peer printed no measurement: %q", lastLine(string(out)))
	}
	return times, version, nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// runDecode measures online play on both sides in interleaved rounds and
// writes every round's line and the table.
func runDecode(o options, w io.Writer) error {
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	goT, torchT := decodeTimes{}, decodeTimes{}
	var version, problem string
	for r := range o.rounds {
		for _, th := range o.threads {
			runtime.GOMAXPROCS(th)
			for _, g := range o.games {
				us, err := goDecode(g, o.length)
				if err != nil {
					return err
				}
				k := decodeKey{th, g, o.length}
				goT[k] = append(goT[k], us)
				fmt.Fprintf(w, "round %d  Go decode threads=%d games=%d T=%d: %.1f us/round\n", r+1, th, g, o.length, us)
			}
		}
		if problem != "" {
			continue
		}
		tt, v, err := torchDecode(o)
		if err != nil {
			problem = err.Error()
			fmt.Fprintf(w, "PyTorch not run: %s\n", problem)
			continue
		}
		version = v
		for _, k := range sortedKeys(tt) {
			for _, us := range tt[k] {
				torchT[k] = append(torchT[k], us)
				fmt.Fprintf(w, "round %d  PyTorch decode threads=%d games=%d T=%d: %.1f us/round (torch %s, %s)\n", r+1, k.threads, k.games, k.length, us, v, o.torchDevice)
			}
		}
	}
	fmt.Fprintf(w, "\nOnline play, one token a round with the KV cache, T = %d: time of one round of all the games at once, in µs; best and median of %d interleaved rounds; PyTorch: %s\n\n",
		o.length, o.rounds, orNone(version, problem))
	return decodeTable(w, o, goT, torchT)
}

// sortedKeys returns the keys of t by threads, games and length.
func sortedKeys(t decodeTimes) []decodeKey {
	var ks []decodeKey
	for k := range t {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b decodeKey) int {
		if a.threads != b.threads {
			return a.threads - b.threads
		}
		if a.games != b.games {
			return a.games - b.games
		}
		return a.length - b.length
	})
	return ks
}

// decodeTable writes one row per thread count and game count: each side's
// best and median per-round time and PyTorch's over Go's (above 1: Go is
// faster), of the bests and of the medians.
func decodeTable(w io.Writer, o options, goT, torchT decodeTimes) error {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "| threads | games | Go µs/round (best, median) | PyTorch µs/round (best, median) | PyTorch/Go, best | PyTorch/Go, median |")
	fmt.Fprintln(tw, "|---|---|---|---|---|---|")
	for _, th := range o.threads {
		for _, g := range o.games {
			k := decodeKey{th, g, o.length}
			gb, gm := bestMedian(goT[k])
			tb, tm := bestMedian(torchT[k])
			rb, rm := "–", "–"
			if tb > 0 && gb > 0 {
				rb, rm = fmt.Sprintf("%.1f×", tb/gb), fmt.Sprintf("%.1f×", tm/gm)
			}
			fmt.Fprintf(tw, "| %d | %d | %s, %s | %s, %s | %s | %s |\n", th, g, dashF(gb), dashF(gm), dashF(tb), dashF(tm), rb, rm)
		}
	}
	return tw.Flush()
}

// bestMedian returns the smallest and the median of v (0, 0 if empty; the
// lower middle for an even count).
func bestMedian(v []float64) (best, median float64) {
	if len(v) == 0 {
		return 0, 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[0], s[(len(s)-1)/2]
}

func dashF(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", v)
}
