// Command control reproduces the experiment of optimal-control-transformer-
// training §6: a one-head transformer block without residual connection
// (d = 2, N = 4 tokens, T = 2 layers, β = 0.5, ReLU, every weight in
// [−1, 1]) is trained by triply quantized dynamic programming (Algorithm 1)
// to approximate the self-attention map T(x)_i = Σ_j softmax_j(0.3⟨x_i,
// x_j⟩) x_j on 35 training sequences, with state grid n = 10, measure
// denominator ℓ = 20 and nested random action sets of 10, 20, …, 100
// actions. It prints the paper's Tables 1 and 2 next to its own (mean ± std
// over seeds) and draws Figures 6 (train and test error against the action
// level) and 7 (run time against the action level).
//
// Then it runs what the paper could not afford:
//
//   - action levels up to 1000 at T = 2;
//   - T = 3 layers at action level 100;
//   - ℓ = 18, which N = 4 does not divide, so that the measure quantizer
//     (Reznik's R_ℓ) is active and the states are general quantized
//     measures instead of grid indices.
//
// Choices the paper leaves open, all flags: token inputs
// i.i.d. uniform on [−1, 1]²; action entries i.i.d. uniform on [−1, 1],
// one nested set shared by both layers; a cell-centred 15×15 grid of
// covering radius < 1/n on [−1, 1]²; tokens leaving the box are snapped to
// the nearest grid point and counted (A9); errors are per token,
// (1/(NK)) Σ_k Σ_i ‖x̂ − y‖², of the deployed (unquantized) transformer
// (A18, A21).
//
// Usage:
//
//	go run ./examples/control [flags]
//
// Flags:
//
//	-seeds    independent seeds (data and actions; default 5)
//	-seed     first seed (default 1)
//	-big      largest action level of the T = 2 sweep (default 1000; 0 skips it)
//	-t3       action level of the T = 3 run (default 100; 0 skips it)
//	-ell18    run the ℓ = 18 sweep (default true)
//	-scratch  solve every level from scratch (the paper's per-level timing)
//	          instead of extending the previous level
//	-out      output folder (default out/control)
//	-compare  wall-time budgets in seconds of the comparison below (default
//	          1,10; empty skips it)
//	-compare-seeds  seeds of the comparison (default 5)
//
// Finally it compares, on the §6 setting and at T = 3, the paper's DP
// (random nested action sets), the DP with refined action sets
// (control.Refine) and projected Adam with random restarts on the
// continuous objective (control.TrainAdam), each run for the largest
// budget: the best train and test error reached within each budget (median
// and range over seeds) and a figure of the training error against wall
// time and against evaluations.
//
// It writes table.md, section6.csv, sweeps.csv, fig6.png, fig7.png,
// compare.csv and the comparison's figures against wall time and against
// evaluations (compare_T2.png, compare_T2_work.png, compare_T3.png,
// compare_T3_work.png). On standard error it ends with the time of each
// part (the Section 6 levels, their table and figures, the extra sweeps,
// the comparison).
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/icrl-go/icrl/internal/num"

	"github.com/icrl-go/icrl/control"
	"github.com/icrl-go/icrl/examples/internal/figure"
	"github.com/icrl-go/icrl/examples/internal/sweep"
)

type config struct {
	seeds   int
	seed    uint64
	big, t3 int
	ell18   bool
	scratch bool
	out     string
	// budgets are the wall-time budgets of the comparison in seconds (none
	// skips it), on compareSeeds seeds.
	budgets      []float64
	compareSeeds int
	// base overrides the paper's §6 setting (tests shrink it).
	base control.Section6Config
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "control:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c, os.Stdout); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(os.Stderr, "control: interrupted; %s holds the tables of the finished parts\n", filepath.Join(c.out, "table.md"))
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "control:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("control", flag.ContinueOnError)
	c := config{base: control.DefaultSection6Config()}
	fs.IntVar(&c.seeds, "seeds", 5, "independent seeds")
	fs.Uint64Var(&c.seed, "seed", 1, "first seed")
	fs.IntVar(&c.big, "big", 1000, "largest action level of the T = 2 sweep (0 skips it)")
	fs.IntVar(&c.t3, "t3", 100, "action level of the T = 3 run (0 skips it)")
	fs.BoolVar(&c.ell18, "ell18", true, "run the ℓ = 18 sweep (measure quantization active)")
	fs.BoolVar(&c.scratch, "scratch", false, "solve every level from scratch")
	fs.StringVar(&c.out, "out", "out/control", "output folder")
	compare := fs.String("compare", "1,10", "wall-time budgets in seconds of the DP-against-Adam comparison (empty skips it)")
	fs.IntVar(&c.compareSeeds, "compare-seeds", 5, "seeds of the comparison")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	for _, f := range strings.Split(*compare, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		b, err := strconv.ParseFloat(f, 64)
		if err != nil || !(b > 0) || math.IsInf(b, 0) {
			return c, fmt.Errorf("-compare %q: budgets must be positive numbers of seconds", *compare)
		}
		c.budgets = append(c.budgets, b)
	}
	if c.compareSeeds < 1 {
		return c, fmt.Errorf("-compare-seeds = %d must be positive", c.compareSeeds)
	}
	if c.seeds < 1 || c.big < 0 || c.t3 < 0 {
		return c, fmt.Errorf("-seeds = %d, -big = %d, -t3 = %d: need seeds ≥ 1 and non-negative levels", c.seeds, c.big, c.t3)
	}
	return c, nil
}

// paper holds Tables 1 and 2 of the paper: train error, test error and run
// time in seconds per action level.
var paper = map[int][3]float64{
	10: {0.01561, 0.01117, 6}, 20: {0.00714, 0.00737, 17}, 30: {0.00650, 0.01171, 35},
	40: {0.00650, 0.01171, 63}, 50: {0.00620, 0.00816, 100}, 60: {0.00620, 0.00816, 137},
	70: {0.00508, 0.00363, 189}, 80: {0.00508, 0.00363, 252}, 90: {0.00508, 0.00363, 327},
	100: {0.00460, 0.00384, 403},
}

// seedRows runs cfg for every seed and returns the rows per seed. On an
// error it returns the rows of the seeds that finished before it.
func seedRows(ctx context.Context, c config, cfg control.Section6Config) ([][]control.Section6Row, error) {
	out := make([][]control.Section6Row, 0, c.seeds)
	for s := range c.seeds {
		cfg.Seed = c.seed + uint64(s)
		rows, err := control.RunSection6(ctx, cfg)
		if err != nil {
			return out, fmt.Errorf("seed %d: %w", cfg.Seed, err)
		}
		out = append(out, rows)
	}
	return out, nil
}

// stat is mean ± std over seeds of one column at one level.
func stat(all [][]control.Section6Row, i int, f func(control.Section6Row) float64) (float64, float64) {
	v := make([]float64, len(all))
	for s := range all {
		v[s] = f(all[s][i])
	}
	return num.MeanStd(v)
}

func run(ctx context.Context, c config, w io.Writer) error {
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	var md strings.Builder
	base := c.base
	base.Scratch = c.scratch
	start := time.Now()
	ctx, stage, report := sweep.TimePhases(ctx, os.Stderr)
	defer report()
	stage.Next("Section 6: solve every action level")
	all, err := seedRows(ctx, c, base)
	if err != nil && (ctx.Err() == nil || len(all) == 0) {
		return err
	}
	// On Ctrl-C, finish writes the tables computed so far and returns the
	// cancellation.
	finish := func(err error) error {
		fmt.Fprint(w, md.String())
		if werr := os.WriteFile(filepath.Join(c.out, "table.md"), []byte(md.String()), 0o644); werr != nil {
			return werr
		}
		return err
	}
	stage.Next("write the Section 6 table and figures")
	fmt.Fprintf(&md, "## Section 6: N = %d, d = %d, T = %d, β = %g, n = %d, ℓ = %d, %d train / %d test sequences, %d seeds (%v)\n\n",
		base.N, base.D, base.T, base.Beta, base.StateN, base.Ell, base.Ktrain, base.Ktest, len(all), time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(&md, "Errors per token of the deployed transformer, mean ± std over seeds; the paper's single run in brackets. Time is this level's solve%s.\n\n",
		map[bool]string{true: " from scratch", false: " (extending the previous level's search)"}[c.scratch])
	fmt.Fprintln(&md, "| M | train error [paper] | train improv. % [paper] | test error [paper] | test improv. % [paper] | quantized value | nodes | out of grid | time [paper] |")
	fmt.Fprintln(&md, "|---|---|---|---|---|---|---|---|---|")
	if err := writeSection6CSV(c, all); err != nil {
		return err
	}
	if err := section6Table(&md, c, base, all); err != nil {
		return err
	}
	if err != nil { // cancelled during the main sweep
		return finish(err)
	}
	stage.Next("the extra sweeps (-big, -t3, -ell18)")
	if err := extraSweeps(ctx, c, base, &md); err != nil {
		if ctx.Err() != nil {
			return finish(err)
		}
		return err
	}
	if len(c.budgets) > 0 {
		stage.Next("DP against Adam (-compare)")
		if err := compareAll(ctx, c, base, &md); err != nil {
			if ctx.Err() != nil {
				return finish(err)
			}
			return err
		}
	}
	return finish(nil)
}

// writeSection6CSV writes every seed's rows to section6.csv.
func writeSection6CSV(c config, all [][]control.Section6Row) error {
	f, err := os.Create(filepath.Join(c.out, "section6.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	cw := csv.NewWriter(f)
	cw.Write([]string{"seed", "M", "value", "train_per_token", "test_per_token", "train_improvement", "test_improvement", "nodes", "out_of_grid", "seconds", "cumulative_seconds"})
	for s := range all {
		for _, r := range all[s] {
			cw.Write([]string{strconv.FormatUint(c.seed+uint64(s), 10), strconv.Itoa(r.M), ftoa(r.Value), ftoa(r.TrainPerToken), ftoa(r.TestPerToken),
				ftoa(r.TrainImprovement), ftoa(r.TestImprovement), strconv.FormatInt(r.Nodes, 10), ftoa(r.OutOfGrid), ftoa(r.Time.Seconds()), ftoa(r.Total.Seconds())})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return f.Close()
}

// section6Table writes the mean ± std rows of the Section 6 table beside
// the paper's values, and Figures 6 and 7.
func section6Table(md *strings.Builder, c config, base control.Section6Config, all [][]control.Section6Row) error {
	var xs, tr, trs, te, tes, tm, tms, ptr, pte, ptm []float64
	for i, r := range all[0] {
		trm, trsd := stat(all, i, func(r control.Section6Row) float64 { return r.TrainPerToken })
		tem, tesd := stat(all, i, func(r control.Section6Row) float64 { return r.TestPerToken })
		tim, tisd := stat(all, i, func(r control.Section6Row) float64 { return r.TrainImprovement })
		tei, tesi := stat(all, i, func(r control.Section6Row) float64 { return r.TestImprovement })
		val, _ := stat(all, i, func(r control.Section6Row) float64 { return r.Value })
		nod, _ := stat(all, i, func(r control.Section6Row) float64 { return float64(r.Nodes) })
		oog, _ := stat(all, i, func(r control.Section6Row) float64 { return r.OutOfGrid })
		sec, secsd := stat(all, i, func(r control.Section6Row) float64 { return r.Time.Seconds() })
		p, ok := paper[r.M]
		pp := func(k int, format string) string {
			if !ok || !sameSetting(base) {
				return ""
			}
			if k == 3 { // improvements
				return fmt.Sprintf(" [%.1f]", 100*(1-p[0]/paper[10][0]))
			}
			if k == 4 {
				return fmt.Sprintf(" [%.1f]", 100*(1-p[1]/paper[10][1]))
			}
			return fmt.Sprintf(" ["+format+"]", p[k])
		}
		fmt.Fprintf(md, "| %d | %.5f ± %.5f%s | %.1f ± %.1f%s | %.5f ± %.5f%s | %.1f ± %.1f%s | %.5f | %.0f | %.3f | %.3f s ± %.3f%s |\n",
			r.M, trm, trsd, pp(0, "%.5f"), tim, tisd, pp(3, ""), tem, tesd, pp(1, "%.5f"), tei, tesi, pp(4, ""), val, nod, oog, sec, secsd, pp(2, "%.0f s"))
		xs = append(xs, float64(r.M))
		tr, trs, te, tes, tm, tms = append(tr, trm), append(trs, trsd), append(te, tem), append(tes, tesd), append(tm, sec), append(tms, secsd)
		if ok {
			ptr, pte, ptm = append(ptr, p[0]), append(pte, p[1]), append(ptm, p[2])
		}
	}
	fmt.Fprintln(md)
	series := []figure.Series{{Name: "train error (this library)", X: xs, Mean: tr, Std: trs}, {Name: "test error (this library)", X: xs, Mean: te, Std: tes}}
	if sameSetting(base) && len(ptr) == len(xs) {
		zero := make([]float64, len(xs))
		series = append(series, figure.Series{Name: "train error (paper)", X: xs, Mean: ptr, Std: zero}, figure.Series{Name: "test error (paper)", X: xs, Mean: pte, Std: zero})
	}
	if err := figure.Lines(filepath.Join(c.out, "fig6.png"), "Figure 6: error per token against the action level (mean ± std over seeds)", "actions M", "mean squared error per token", series); err != nil {
		return err
	}
	ts := []figure.Series{{Name: "this library", X: xs, Mean: tm, Std: tms}}
	if sameSetting(base) && len(ptm) == len(xs) {
		ts = append(ts, figure.Series{Name: "paper (its Figure 7)", X: xs, Mean: ptm, Std: make([]float64, len(xs))})
	}
	if err := figure.LogLog(filepath.Join(c.out, "fig7.png"), "Figure 7: solve time per action level (log-log)", "actions M", "seconds", ts); err != nil {
		return err
	}
	return nil
}

// extraSweeps runs the optional sweeps (-big, -t3, -ell18), appends their
// tables and writes sweeps.csv.
func extraSweeps(ctx context.Context, c config, base control.Section6Config, md *strings.Builder) error {
	sw, err := os.Create(filepath.Join(c.out, "sweeps.csv"))
	if err != nil {
		return err
	}
	defer sw.Close()
	sc := csv.NewWriter(sw)
	sc.Write([]string{"run", "seed", "M", "value", "train_per_token", "test_per_token", "nodes", "out_of_grid", "seconds"})
	extra := func(name string, cfg control.Section6Config) error {
		start := time.Now()
		res, err := seedRows(ctx, c, cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(md, "## %s (%d seeds, %v in all)\n\n| M | train error | test error | quantized value | nodes | time per seed |\n|---|---|---|---|---|---|\n",
			name, c.seeds, time.Since(start).Round(time.Millisecond))
		for i, r := range res[0] {
			trm, trsd := stat(res, i, func(r control.Section6Row) float64 { return r.TrainPerToken })
			tem, tesd := stat(res, i, func(r control.Section6Row) float64 { return r.TestPerToken })
			val, _ := stat(res, i, func(r control.Section6Row) float64 { return r.Value })
			nod, _ := stat(res, i, func(r control.Section6Row) float64 { return float64(r.Nodes) })
			tot, _ := stat(res, i, func(r control.Section6Row) float64 { return r.Total.Seconds() })
			fmt.Fprintf(md, "| %d | %.5f ± %.5f | %.5f ± %.5f | %.5f | %.0f | %.2f s (cumulative) |\n", r.M, trm, trsd, tem, tesd, val, nod, tot)
			for s := range res {
				q := res[s][i]
				sc.Write([]string{name, strconv.FormatUint(c.seed+uint64(s), 10), strconv.Itoa(q.M), ftoa(q.Value), ftoa(q.TrainPerToken), ftoa(q.TestPerToken),
					strconv.FormatInt(q.Nodes, 10), ftoa(q.OutOfGrid), ftoa(q.Total.Seconds())})
			}
		}
		fmt.Fprintln(md)
		return nil
	}
	if c.big > 0 {
		cfg := base
		cfg.MaxActions, cfg.Step = c.big, max(base.Step, c.big/10)
		if err := extra(fmt.Sprintf("T = %d, action levels to %d", cfg.T, c.big), cfg); err != nil {
			return err
		}
	}
	if c.t3 > 0 {
		cfg := base
		cfg.T, cfg.MaxActions, cfg.Step = 3, c.t3, max(base.Step, c.t3/10)
		if err := extra(fmt.Sprintf("T = 3, action levels to %d", c.t3), cfg); err != nil {
			return err
		}
	}
	if c.ell18 {
		cfg := base
		cfg.Ell = base.Ell - 2 // 18 for the paper's N = 4, ℓ = 20
		if cfg.Ell < 1 || cfg.Ell%base.N == 0 {
			cfg.Ell = base.Ell + 1
		}
		cfg.MaxActions = min(base.MaxActions, 30)
		if err := extra(fmt.Sprintf("ℓ = %d (not a multiple of N = %d: Reznik's R_ℓ active), action levels to %d", cfg.Ell, base.N, cfg.MaxActions), cfg); err != nil {
			return err
		}
	}
	sc.Flush()
	if err := sc.Error(); err != nil {
		return err
	}
	return sw.Close()
}

// sameSetting reports whether cfg is the paper's §6 setting up to the
// fields that do not change the experiment (seed, workers, float type,
// scratch).
func sameSetting(cfg control.Section6Config) bool {
	d := control.DefaultSection6Config()
	cfg.Seed, cfg.Workers, cfg.Float32, cfg.Scratch = 0, 0, false, false
	return cfg == d
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
