// Command markovgame runs online-mirror-descent self-play in a discounted
// two-player zero-sum Markov game with bandit feedback and reports the
// exploitability of the last iterate against the number of rounds T.
//
// It reproduces the learning dynamics of in-context-games-omd §4.3
// (Algorithm 1, OMD per state with a value update): the exploitability is
// the Markov duality gap max_s (V^{†,y}(s) − V^{x,†}(s)) of the stationary
// policies both players hold at round T, computed exactly
// by markov.Discounted.Gap. Next to Algorithm 1 with the per-visit
// Cai-style schedule it runs the paper's exponents (which do not learn)
// and a myopic baseline that runs matrix-game OMD per state on
// the immediate reward.
//
// Usage:
//
//	go run ./examples/markovgame [flags]
//
// Flags:
//
//	-game      t6 | random | perturbed (default t6: a two-state game,
//	           γ = 0.9, R₀ = [[1,0],[0,1]], R₁ = [[1,0],[0,0.5]], transitions ½)
//	-states    states of the random games (default 3)
//	-actions   actions per player in the random games (default 3)
//	-gamma     discount of the random games (default 0.9)
//	-rho       perturbation magnitude of -game perturbed (default 0.1, as in §5)
//	-T         rounds (default 100000)
//	-seeds     independent runs per learner (default 3)
//	-seed      base seed (default 1)
//	-learners  comma-separated subset of: omd, omd-paper, omd-raw, perstate
//	-noise     exact | bernoulli (reward feedback; default exact)
//	-out       output folder (default out/markovgame)
//
// It prints a table and writes gap.csv and gap.png (log-log, mean ± std
// over seeds). Seeds run on both cores; run k uses the PCG stream
// (seed, k), so results do not depend on GOMAXPROCS. On standard error it
// ends with the time of each learner's self-plays and of writing the
// outputs.
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

	"github.com/icrl-go/icrl/examples/internal/figure"
	"github.com/icrl-go/icrl/examples/internal/runs"
	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/learner/schedule"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

type config struct {
	game, learners, noise, out string
	states, actions, rounds    int
	seeds                      int
	gamma, rho                 float64
	seed                       uint64
}

func main() {
	var cfg config
	flag.StringVar(&cfg.game, "game", "t6", "game: t6, random or perturbed")
	flag.IntVar(&cfg.states, "states", 3, "states of the random games")
	flag.IntVar(&cfg.actions, "actions", 3, "actions per player in the random games")
	flag.Float64Var(&cfg.gamma, "gamma", 0.9, "discount of the random games")
	flag.Float64Var(&cfg.rho, "rho", 0.1, "perturbation magnitude of -game perturbed")
	flag.IntVar(&cfg.rounds, "T", 100000, "rounds")
	flag.IntVar(&cfg.seeds, "seeds", 3, "independent runs per learner")
	flag.Uint64Var(&cfg.seed, "seed", 1, "base seed")
	flag.StringVar(&cfg.learners, "learners", "omd,omd-paper,omd-raw,perstate", "comma-separated learners")
	flag.StringVar(&cfg.noise, "noise", "exact", "reward feedback: exact or bernoulli")
	flag.StringVar(&cfg.out, "out", filepath.Join("out", "markovgame"), "output folder")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(os.Stderr, "%s: interrupted; the learners that finished, if any, are written\n", "markovgame")
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "markovgame:", err)
		os.Exit(1)
	}
}

// maker builds one player's learner for a game with the given states,
// actions, discount and horizon, in the row or the column role.
type maker func(states, actions int, gamma float64, horizon int, col bool) (learner.Learner, error)

var learners = map[string]maker{
	"omd": func(S, A int, gamma float64, T int, col bool) (learner.Learner, error) {
		return learner.NewOMD(learner.OMDConfig{States: S, Actions: A, Discount: gamma, Horizon: T, Role: role(col)})
	},
	"omd-paper": func(S, A int, gamma float64, T int, col bool) (learner.Learner, error) {
		return learner.NewOMD(learner.OMDConfig{States: S, Actions: A, Discount: gamma, Horizon: T, Role: role(col), Schedule: schedule.Paper{Markov: true}})
	},
	"omd-raw": func(S, A int, gamma float64, T int, col bool) (learner.Learner, error) {
		return learner.NewOMD(learner.OMDConfig{States: S, Actions: A, Discount: gamma, Horizon: T, Role: role(col), LossScale: learner.RawLoss})
	},
	"perstate": func(S, A int, gamma float64, T int, col bool) (learner.Learner, error) {
		return learner.NewPerState(S, func(int) (learner.Learner, error) {
			return learner.NewOMD(learner.OMDConfig{Actions: A, Horizon: T})
		})
	},
}

func role(col bool) game.Player {
	if col {
		return game.ColumnPlayer
	}
	return game.RowPlayer
}

type curve struct {
	name      string
	rounds    []int
	mean, std []float64
	seconds   float64
	finalS    []float64 // mean per-state gaps at T
}

// run plays every learner and writes the table, CSV and plot. On
// cancellation it writes those of the learners that finished and returns
// the context's error.
func run(ctx context.Context, cfg config) error {
	if cfg.rounds < 1 || cfg.seeds < 1 {
		return fmt.Errorf("-T and -seeds must be positive, got %d and %d", cfg.rounds, cfg.seeds)
	}
	g, label, err := makeGame(cfg)
	if err != nil {
		return err
	}
	var noise game.Noise
	switch cfg.noise {
	case "exact":
		noise = game.Exact{}
	case "bernoulli":
		noise = game.Bernoulli{}
	default:
		return fmt.Errorf("unknown -noise %q (want exact or bernoulli)", cfg.noise)
	}
	S, A, B := g.Dims()
	sol, err := markov.ShapleyValueIteration(g, 1e-10, 100000)
	if err != nil {
		return err
	}
	_, uniGap, err := g.Gap(markov.UniformStationary(S, A), markov.UniformStationary(S, B))
	if err != nil {
		return err
	}
	fmt.Printf("game %s: %d states, %d×%d actions, γ = %g; V* = %s; uniform policies have max-gap %.4f\n",
		label, S, A, B, g.Discount(), vec(sol.V), uniGap)
	fmt.Printf("T = %d rounds, %d seeds, %s rewards, GOMAXPROCS = %d\n\n", cfg.rounds, cfg.seeds, cfg.noise, runtime.GOMAXPROCS(0))

	checkpoints := runs.Checkpoints(cfg.rounds)
	ctx, stage, report := sweep.TimePhases(ctx, os.Stderr)
	defer report()
	var curves []curve
	var cancelled error
	for _, name := range strings.Split(cfg.learners, ",") {
		name = strings.TrimSpace(name)
		mk, ok := learners[name]
		if !ok {
			return fmt.Errorf("unknown learner %q in -learners (known: omd, omd-paper, omd-raw, perstate)", name)
		}
		stage.Next("play: " + name)
		c, err := runLearner(ctx, g, name, mk, cfg, noise, checkpoints)
		if err != nil {
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
	printTable(curves, uniGap)
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	csvPath := filepath.Join(cfg.out, "gap.csv")
	if err := writeCSV(csvPath, curves); err != nil {
		return err
	}
	series := make([]figure.Series, len(curves))
	for k, c := range curves {
		x := make([]float64, len(c.rounds))
		for i, r := range c.rounds {
			x[i] = float64(r)
		}
		series[k] = figure.Series{Name: c.name, X: x, Mean: c.mean, Std: c.std}
	}
	pngPath := filepath.Join(cfg.out, "gap.png")
	title := fmt.Sprintf("%s: Markov duality gap of the last iterate (mean ± std over %d seeds)", label, cfg.seeds)
	if err := figure.LogLog(pngPath, title, "rounds T", "max over states of the duality gap", series); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s and %s\n", csvPath, pngPath)
	return cancelled
}

// makeGame returns the game named by cfg.game.
func makeGame(cfg config) (*markov.Discounted, string, error) {
	rng := rand.New(rand.NewPCG(cfg.seed, math.MaxUint64))
	switch cfg.game {
	case "t6":
		// r(s, a, b) as S × A × B; P(s'|s, a, b) uniform, S × A·B × S.
		r, err := tensor.FromData([]float64{1, 0, 0, 1, 1, 0, 0, 0.5}, 2, 2, 2)
		if err != nil {
			return nil, "", err
		}
		p, err := tensor.New[float64](2, 4, 2)
		if err != nil {
			return nil, "", err
		}
		for i := range p.Data() {
			p.Data()[i] = 0.5
		}
		k, err := markov.NewDenseKernel(p)
		if err != nil {
			return nil, "", err
		}
		g, err := markov.NewDiscounted(r, k, 0.9)
		return g, "two-state game t6", err
	case "random", "perturbed":
		if cfg.states < 1 || cfg.actions < 1 {
			return nil, "", fmt.Errorf("-states and -actions must be positive, got %d and %d", cfg.states, cfg.actions)
		}
		g, err := markov.RandomDiscounted(cfg.states, cfg.actions, cfg.actions, cfg.gamma, rng)
		if err != nil || cfg.game == "random" {
			return g, fmt.Sprintf("random game (seed %d)", cfg.seed), err
		}
		fam, err := markov.NewPerturbedDiscounted(g, cfg.rho, game.PerturbUniform)
		if err != nil {
			return nil, "", err
		}
		return fam.Sample(rng), fmt.Sprintf("perturbed random game (ρ = %g, seed %d)", cfg.rho, cfg.seed), nil
	}
	return nil, "", fmt.Errorf("unknown -game %q (want t6, random or perturbed)", cfg.game)
}

// runLearner runs cfg.seeds self-plays of the learner against itself on
// both cores and aggregates the gaps.
func runLearner(ctx context.Context, g *markov.Discounted, name string, mk maker, cfg config, noise game.Noise, checkpoints []int) (curve, error) {
	S, A, B := g.Dims()
	results := make([]*play.SelfPlayResult, cfg.seeds)
	start := time.Now()
	err := parallel.For(cfg.seeds, func(k int) error {
		x, err := mk(S, A, g.Discount(), cfg.rounds, false)
		if err != nil {
			return err
		}
		y, err := mk(S, B, g.Discount(), cfg.rounds, true)
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(cfg.seed, uint64(k)))
		results[k], err = play.SelfPlay(ctx, g, x, y, play.SelfPlayConfig{
			Rounds: cfg.rounds, Noise: noise, Checkpoints: checkpoints,
		}, rng)
		return err
	})
	if err != nil {
		return curve{}, err
	}
	c := curve{name: name, seconds: time.Since(start).Seconds()}
	for i, cp := range results[0].Checkpoints {
		v := make([]float64, cfg.seeds)
		for k, r := range results {
			v[k] = r.Checkpoints[i].LastGap
		}
		m, s := num.MeanStd(v)
		c.rounds = append(c.rounds, cp.Round)
		c.mean = append(c.mean, m)
		c.std = append(c.std, s)
	}
	c.finalS = make([]float64, S)
	for _, r := range results {
		for s, v := range r.StateGaps {
			c.finalS[s] += v / float64(cfg.seeds)
		}
	}
	return c, nil
}

func isDecade(r int) bool {
	for r >= 10 && r%10 == 0 {
		r /= 10
	}
	return r == 1
}

func printTable(curves []curve, uniGap float64) {
	var show []int
	for i, r := range curves[0].rounds {
		if (isDecade(r) && r >= 100) || i == len(curves[0].rounds)-1 {
			show = append(show, i)
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "max-gap of the last iterate\t")
	for _, i := range show {
		fmt.Fprintf(tw, "T=%d\t", curves[0].rounds[i])
	}
	fmt.Fprint(tw, "per-state gaps at T\tseconds\t\n")
	for _, c := range curves {
		fmt.Fprintf(tw, "%s\t", c.name)
		for _, i := range show {
			fmt.Fprintf(tw, "%.4f±%.4f\t", c.mean[i], c.std[i])
		}
		fmt.Fprintf(tw, "%s\t%.1f\t\n", vec(c.finalS), c.seconds)
	}
	fmt.Fprintf(tw, "uniform policies\t")
	for range show {
		fmt.Fprintf(tw, "%.4f\t", uniGap)
	}
	fmt.Fprint(tw, "\t\t\n")
	tw.Flush()
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
	w.Write([]string{"learner", "round", "max_gap_mean", "max_gap_std"})
	for _, c := range curves {
		for i, r := range c.rounds {
			w.Write([]string{c.name, strconv.Itoa(r), strconv.FormatFloat(c.mean[i], 'g', 8, 64), strconv.FormatFloat(c.std[i], 'g', 8, 64)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
