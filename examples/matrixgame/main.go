// Command matrixgame runs self-play of the bandit learners of package
// learner on a zero-sum matrix game and reports the duality gap of the last
// and the average iterate against the number of rounds T.
//
// It reproduces the learning-dynamics side of in-context-games-omd (§4.1,
// Lemma B.2): online mirror descent on the truncated simplex with the paper's
// step sizes (η = T^{−5/3}, which do not move the policy) and with Cai et al.'s
// schedule (which converges), next to the classical learners.
//
// Usage:
//
//	go run ./examples/matrixgame [flags]
//
// The default run plays biased rock-paper-scissors (rescaled to [0,1]) for
// T = 10⁵ rounds with Bernoulli rewards, 5 seeds per learner, and writes
// out/matrixgame/gap.csv and out/matrixgame/gap.png. Every run is
// deterministic given -seed; seeds are spread over the available cores.
//
// Flags:
//
//	-game      rps | brps | mp | g1 | shifted-rps | uniform | gaussian (default brps)
//	-size      actions per player for the random games (default 5)
//	-T         number of rounds (default 100000)
//	-seeds     independent runs per learner (default 5)
//	-seed      base seed (default 1)
//	-learners  comma-separated subset of: omd, omd-paper, omwu, mwu, exp3ix, rm, rm+
//	-feedback  bandit | full (full information, for the learners that accept it)
//	-noise     bernoulli | exact | uniform (bandit reward noise; default bernoulli)
//	-out       output folder (default out/matrixgame)
//
// On standard error it ends with the time of each learner's self-plays
// and of writing the outputs.
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/icrl-go/icrl/internal/num"

	"github.com/icrl-go/icrl/internal/parallel"

	"github.com/icrl-go/icrl/examples/internal/runs"
	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.game, "game", "brps", "game: rps, brps, mp, g1, shifted-rps, uniform, gaussian")
	flag.IntVar(&cfg.size, "size", 5, "actions per player for the random games")
	flag.IntVar(&cfg.rounds, "T", 100000, "number of rounds")
	flag.IntVar(&cfg.seeds, "seeds", 5, "independent runs per learner")
	flag.Uint64Var(&cfg.seed, "seed", 1, "base seed")
	flag.StringVar(&cfg.learners, "learners", "omd,omd-paper,omwu,mwu,exp3ix,rm,rm+", "comma-separated learners")
	flag.StringVar(&cfg.feedback, "feedback", "bandit", "feedback: bandit or full")
	flag.StringVar(&cfg.noise, "noise", "bernoulli", "bandit reward noise: bernoulli, exact or uniform")
	flag.StringVar(&cfg.out, "out", filepath.Join("out", "matrixgame"), "output folder")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(os.Stderr, "%s: interrupted; the learners that finished, if any, are written\n", "matrixgame")
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "matrixgame:", err)
		os.Exit(1)
	}
}

type config struct {
	game, learners, feedback, noise, out string
	size, rounds, seeds                  int
	seed                                 uint64
}

// curve is the mean and standard deviation over seeds of the gaps at each
// checkpoint, for one learner.
type curve struct {
	name                    string
	rounds                  []int
	lastMean, lastStd       []float64
	averageMean, averageStd []float64
	seconds                 float64
}

// run plays every learner and writes the table, CSV and plot. On
// cancellation it writes those of the learners that finished and returns
// the context's error.
func run(ctx context.Context, cfg config) error {
	g, label, err := makeGame(cfg)
	if err != nil {
		return err
	}
	if cfg.rounds < 1 || cfg.seeds < 1 {
		return fmt.Errorf("-T and -seeds must be positive, got %d and %d", cfg.rounds, cfg.seeds)
	}
	fb := play.Bandit
	switch cfg.feedback {
	case "bandit":
	case "full":
		fb = play.FullInformation
	default:
		return fmt.Errorf("unknown -feedback %q (want bandit or full)", cfg.feedback)
	}
	var noise game.Noise
	switch cfg.noise {
	case "bernoulli":
		noise = game.Bernoulli{}
	case "exact":
		noise = game.Exact{}
	case "uniform":
		noise = game.UniformNoise{HalfWidth: 0.5}
	default:
		return fmt.Errorf("unknown -noise %q (want bernoulli, exact or uniform)", cfg.noise)
	}
	sol, err := game.Solve(g)
	if err != nil {
		return err
	}
	m, n := g.Dims()
	fmt.Printf("game %s (%d×%d, payoffs in [0,1]); value %.6f; equilibrium x* = %s, y* = %s\n",
		label, m, n, sol.Value, vec(sol.X), vec(sol.Y))
	fmt.Printf("T = %d rounds, %d seeds, %s feedback, %s noise, GOMAXPROCS = %d\n\n",
		cfg.rounds, cfg.seeds, fb, cfg.noise, runtime.GOMAXPROCS(0))

	checkpoints := runs.Checkpoints(cfg.rounds)
	ctx, stage, report := sweep.TimePhases(ctx, os.Stderr)
	defer report()
	var curves []curve
	var cancelled error
	for _, name := range strings.Split(cfg.learners, ",") {
		name = strings.TrimSpace(name)
		mk, ok := learners[name]
		if !ok {
			return fmt.Errorf("unknown learner %q in -learners (known: %s)", name, knownLearners())
		}
		stage.Next("play: " + name)
		c, err := runLearner(ctx, g, name, mk, cfg, fb, noise, checkpoints)
		if err != nil {
			if errors.Is(err, errNoFullInformation) {
				fmt.Printf("skipping %s: it does not accept full-information feedback\n", name)
				continue
			}
			if ctx.Err() != nil {
				cancelled = ctx.Err()
				break
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		curves = append(curves, c)
	}
	if len(curves) == 0 {
		if cancelled != nil {
			return cancelled
		}
		return errors.New("no learner ran")
	}
	stage.Next("write the table and figure")
	printTable(curves)
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	csvPath := filepath.Join(cfg.out, "gap.csv")
	if err := writeCSV(csvPath, curves); err != nil {
		return err
	}
	pngPath := filepath.Join(cfg.out, "gap.png")
	title := fmt.Sprintf("%s, %s feedback: duality gap of the last iterate (mean ± std over %d seeds)", label, fb, cfg.seeds)
	if err := writePlot(pngPath, title, curves); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s and %s\n", csvPath, pngPath)
	return cancelled
}

var errNoFullInformation = errors.New("learner does not accept full-information feedback")

// maker builds one learner for a game with the given number of actions and
// horizon, in the row or the column role, for the given feedback.
type maker func(actions, horizon int, col bool, fb play.Feedback) (learner.Learner, error)

func knownLearners() string {
	return "omd, omd-paper, omwu, mwu, exp3ix, rm, rm+"
}

// runLearner runs cfg.seeds self-plays of the learner against itself, spread
// over the cores, and aggregates the gaps. Seed k uses the PCG stream
// (cfg.seed, k), so results do not depend on GOMAXPROCS.
func runLearner(ctx context.Context, g *game.ZeroSum, name string, mk maker, cfg config, fb play.Feedback, noise game.Noise, checkpoints []int) (curve, error) {
	m, n := g.Dims()
	results := make([]*play.SelfPlayResult, cfg.seeds)
	start := time.Now()
	err := parallel.For(cfg.seeds, func(k int) error {
		x, err := mk(m, cfg.rounds, false, fb)
		if err != nil {
			return err
		}
		y, err := mk(n, cfg.rounds, true, fb)
		if err != nil {
			return err
		}
		if fb == play.FullInformation {
			_, okx := x.(learner.FullInformationLearner)
			_, oky := y.(learner.FullInformationLearner)
			if !okx || !oky {
				return errNoFullInformation
			}
		}
		rng := rand.New(rand.NewPCG(cfg.seed, uint64(k)))
		results[k], err = play.SelfPlay(ctx, g, x, y, play.SelfPlayConfig{
			Rounds:      cfg.rounds,
			Feedback:    fb,
			Noise:       noise,
			Checkpoints: checkpoints,
		}, rng)
		return err
	})
	if err != nil {
		return curve{}, err
	}
	c := curve{name: name, seconds: time.Since(start).Seconds()}
	for i, cp := range results[0].Checkpoints {
		last := make([]float64, cfg.seeds)
		avg := make([]float64, cfg.seeds)
		for k, r := range results {
			last[k] = r.Checkpoints[i].LastGap
			avg[k] = r.Checkpoints[i].AverageGap
		}
		lm, ls := num.MeanStd(last)
		am, as := num.MeanStd(avg)
		c.rounds = append(c.rounds, cp.Round)
		c.lastMean = append(c.lastMean, lm)
		c.lastStd = append(c.lastStd, ls)
		c.averageMean = append(c.averageMean, am)
		c.averageStd = append(c.averageStd, as)
	}
	return c, nil
}

// makeGame returns the game named by cfg.game, with payoffs in [0,1].
func makeGame(cfg config) (*game.ZeroSum, string, error) {
	rescale := func(g *game.ZeroSum, lo, hi float64) (*game.ZeroSum, error) {
		out, _, err := game.Rescale(g, lo, hi)
		return out, err
	}
	rng := rand.New(rand.NewPCG(cfg.seed, math.MaxUint64))
	var g *game.ZeroSum
	var err error
	var label string
	switch cfg.game {
	case "rps":
		g, err = rescale(game.RPS(), -1, 1)
		label = "rock-paper-scissors"
	case "brps":
		g, err = rescale(game.BiasedRPS(), -0.5, 0.5)
		label = "biased RPS"
	case "mp":
		g, err = rescale(game.MatchingPennies(), -1, 1)
		label = "matching pennies"
	case "g1":
		g, err = game.NewZeroSum([][]float64{{1, 0}, {0, 0.5}})
		label = "G1 = [[1,0],[0,0.5]]"
	case "shifted-rps":
		g, err = game.NewZeroSum([][]float64{{0.5, 0, 1}, {1, 0.5, 0}, {0, 1, 0.5}})
		label = "shifted RPS"
	case "uniform":
		if cfg.size < 1 {
			return nil, "", fmt.Errorf("-size must be positive, got %d", cfg.size)
		}
		g, err = game.RandomUniform(cfg.size, cfg.size, rng)
		label = fmt.Sprintf("uniform random %d×%d", cfg.size, cfg.size)
	case "gaussian":
		if cfg.size < 1 {
			return nil, "", fmt.Errorf("-size must be positive, got %d", cfg.size)
		}
		g, err = game.RandomGaussian(cfg.size, cfg.size, 0.5, 0.25, rng)
		label = fmt.Sprintf("truncated Gaussian %d×%d", cfg.size, cfg.size)
	default:
		return nil, "", fmt.Errorf("unknown -game %q (want rps, brps, mp, g1, shifted-rps, uniform or gaussian)", cfg.game)
	}
	return g, label, err
}

func printTable(curves []curve) {
	// Columns: the learner, then the last-iterate gap at each decade.
	var show []int
	for i, r := range curves[0].rounds {
		if isDecade(r) || i == len(curves[0].rounds)-1 {
			show = append(show, i)
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "last-iterate gap\t")
	for _, i := range show {
		fmt.Fprintf(tw, "T=%s\t", short(curves[0].rounds[i]))
	}
	fmt.Fprint(tw, "avg-iterate gap at T\tseconds\t\n")
	for _, c := range curves {
		fmt.Fprintf(tw, "%s\t", c.name)
		for _, i := range show {
			fmt.Fprintf(tw, "%.4f±%.4f\t", c.lastMean[i], c.lastStd[i])
		}
		k := len(c.rounds) - 1
		fmt.Fprintf(tw, "%.4f±%.4f\t%.2f\t\n", c.averageMean[k], c.averageStd[k], c.seconds)
	}
	tw.Flush()
}

func isDecade(r int) bool {
	for r >= 10 && r%10 == 0 {
		r /= 10
	}
	return r == 1
}

func short(r int) string {
	if isDecade(r) && r >= 1000 {
		return fmt.Sprintf("1e%d", int(math.Round(math.Log10(float64(r)))))
	}
	return strconv.Itoa(r)
}

func vec(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(x, 'f', 4, 64)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func writeCSV(path string, curves []curve) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"learner", "round", "last_gap_mean", "last_gap_std", "average_gap_mean", "average_gap_std"})
	for _, c := range curves {
		for i, r := range c.rounds {
			w.Write([]string{
				c.name, strconv.Itoa(r),
				strconv.FormatFloat(c.lastMean[i], 'g', 8, 64), strconv.FormatFloat(c.lastStd[i], 'g', 8, 64),
				strconv.FormatFloat(c.averageMean[i], 'g', 8, 64), strconv.FormatFloat(c.averageStd[i], 'g', 8, 64),
			})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
