package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/icrl-go/icrl/control"
	"github.com/icrl-go/icrl/examples/internal/figure"
)

// This file runs the comparison the paper does not: on the same block,
// data and error, the paper's DP (nested uniform random action sets, levels
// of 10 actions), the refined DP (control.Refine: actions drawn around the
// incumbent and across the box, nested) and projected Adam with random
// restarts on the continuous objective (control.TrainAdam), each run until
// a wall-time budget, recording the best training error so far, the test
// error of those weights and the work done.

// point is one method's state at one moment of its run.
type point struct {
	sec   float64 // wall time since the method started
	work  int64   // leaves evaluated (DP) or gradient evaluations (Adam)
	m     int     // actions in the set (DP); restarts (Adam)
	train float64 // training error per token of the incumbent weights
	test  float64 // test error per token of the same weights
}

// methods names the compared methods, in the tables' order.
var methods = []string{"paper's DP (random nested sets)", "refined DP", "Adam with restarts"}

// runMethod runs method k on one seed of cfg for the budget.
func runMethod(ctx context.Context, k int, cfg control.Section6Config, budget time.Duration) ([]point, error) {
	switch k {
	case 0:
		return paperDP(ctx, cfg, budget)
	case 1:
		return refinedDP(ctx, cfg, budget)
	}
	return adamRestarts(ctx, cfg, budget)
}

// errors returns the train and test error per token of weights us.
func errorsOf(s *control.Section6[float64], us []control.Action[float64]) (float64, float64, error) {
	tr, _, err := control.EvalContinuous(s.Problem.Block(), us, s.Train)
	if err != nil {
		return 0, 0, err
	}
	te, _, err := control.EvalContinuous(s.Problem.Block(), us, s.Test)
	return tr, te, err
}

// maxActions bounds the action set so that the nested search tree, M^(T−1)
// stored nodes, stays within the solver's default limit.
func maxActions(T int) int {
	return int(math.Floor(math.Pow(1<<18, 1/float64(T-1)))) - 1
}

// paperDP extends the random nested set by Step actions per level until
// the budget is spent.
func paperDP(ctx context.Context, cfg control.Section6Config, budget time.Duration) ([]point, error) {
	cfg.MaxActions = min(maxActions(cfg.T), 3000)
	s, err := control.NewSection6[float64](cfg)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	n := control.NewNested(s.Problem, control.NestedOptions{Workers: cfg.Workers})
	var pts []point
	var work int64
	for m := cfg.Step; m <= cfg.MaxActions; m += cfg.Step {
		sol, err := n.Solve(ctx, m)
		if err != nil {
			return nil, err
		}
		work += sol.Stats.Evaluated
		tr, te, err := errorsOf(s, sol.Weights)
		if err != nil {
			return nil, err
		}
		pts = append(pts, point{sec: time.Since(start).Seconds(), work: work, m: m, train: tr, test: te})
		if time.Since(start) >= budget {
			break
		}
	}
	return pts, nil
}

// refinedDP starts from the first level of random actions and refines one
// round at a time until the budget is spent.
func refinedDP(ctx context.Context, cfg control.Section6Config, budget time.Duration) ([]point, error) {
	cfg.MaxActions = cfg.Step
	s, err := control.NewSection6[float64](cfg)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	n := control.NewNested(s.Problem, control.NestedOptions{Workers: cfg.Workers})
	sol, err := n.Solve(ctx, cfg.Step)
	if err != nil {
		return nil, err
	}
	work := sol.Stats.Evaluated
	tr, te, err := errorsOf(s, sol.Weights)
	if err != nil {
		return nil, err
	}
	pts := []point{{sec: time.Since(start).Seconds(), work: work, m: cfg.Step, train: tr, test: te}}
	const perLayer = 10
	radius := cfg.EntryBound
	for round := 1; time.Since(start) < budget && n.M()+cfg.T*perLayer <= maxActions(cfg.T); round++ {
		steps, err := control.Refine(ctx, s.Problem, n, sol, control.RefineConfig{Rounds: 1, PerLayer: perLayer,
			Radius: radius, Bound: cfg.EntryBound, Seed: cfg.Seed<<20 + uint64(round)})
		if err != nil {
			return nil, err
		}
		st := steps[1]
		sol = &control.Solution[float64]{Value: st.Value, Actions: st.Actions, Weights: st.Weights}
		radius *= 0.9
		m := n.M()
		work += int64(math.Pow(float64(m), float64(cfg.T)) - math.Pow(float64(m-cfg.T*perLayer), float64(cfg.T)))
		if tr, te, err = errorsOf(s, sol.Weights); err != nil {
			return nil, err
		}
		pts = append(pts, point{sec: time.Since(start).Seconds(), work: work, m: m, train: tr, test: te})
	}
	return pts, nil
}

// adamRestarts runs batches of GOMAXPROCS restarts of 300 projected Adam
// steps until the budget is spent, keeping the best weights.
func adamRestarts(ctx context.Context, cfg control.Section6Config, budget time.Duration) ([]point, error) {
	cfg.MaxActions = 1
	s, err := control.NewSection6[float64](cfg)
	if err != nil {
		return nil, err
	}
	o, err := control.NewObjective(s.Problem.Block(), cfg.T, s.Train)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	var pts []point
	best := math.Inf(1)
	var bestTest float64
	var work int64
	restarts := 0
	batch := max(1, runtime.GOMAXPROCS(0))
	for b := uint64(0); b == 0 || time.Since(start) < budget; b++ {
		res, err := control.TrainAdam(ctx, o, control.AdamConfig{Restarts: batch, Steps: 300, Bound: cfg.EntryBound, Seed: cfg.Seed<<20 + b})
		if err != nil {
			return nil, err
		}
		work += int64(res.Evaluations)
		restarts += batch
		if res.Value < best {
			best = res.Value
			if _, bestTest, err = errorsOf(s, res.Weights); err != nil {
				return nil, err
			}
		}
		pts = append(pts, point{sec: time.Since(start).Seconds(), work: work, m: restarts, train: best, test: bestTest})
	}
	return pts, nil
}

// medianSpread returns the median, minimum and maximum of v.
func medianSpread(v []float64) (med, lo, hi float64) {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

// compare runs the three methods on seeds seeds of cfg for the largest
// budget, and writes the tables at every budget to md, the points to cw and
// a figure of the training error against wall time.
func compare(ctx context.Context, c config, cfg control.Section6Config, name string, md *strings.Builder, cw *csv.Writer) error {
	budgets := c.budgets
	longest := time.Duration(slices.Max(budgets) * float64(time.Second))
	runs := make([][][]point, len(methods)) // [method][seed]
	start := time.Now()
	for k := range methods {
		runs[k] = make([][]point, c.compareSeeds)
		for s := range c.compareSeeds {
			cfg.Seed = c.seed + uint64(s)
			pts, err := runMethod(ctx, k, cfg, longest)
			if err != nil {
				return fmt.Errorf("%s, %s, seed %d: %w", name, methods[k], cfg.Seed, err)
			}
			runs[k][s] = pts
			for _, p := range pts {
				cw.Write([]string{name, methods[k], strconv.FormatUint(cfg.Seed, 10), ftoa(p.sec), strconv.FormatInt(p.work, 10),
					strconv.Itoa(p.m), ftoa(p.train), ftoa(p.test)})
			}
		}
	}
	fmt.Fprintf(md, "## Quantized DP against gradient descent: %s (%d seeds, %v in all)\n\n", name, c.compareSeeds, time.Since(start).Round(time.Second))
	fmt.Fprintln(md, "Errors per token of the deployed transformer (median [min, max] over seeds) reached within each wall-time budget; "+
		"work is leaves evaluated (DP) or gradient evaluations (Adam), M the action-set size (DP) or restarts of 300 steps (Adam), medians.")
	fmt.Fprintln(md)
	fmt.Fprintln(md, "| budget | method | train error | test error | work | M / restarts |")
	fmt.Fprintln(md, "|---|---|---|---|---|---|")
	for _, b := range budgets {
		for k := range methods {
			var tr, te, wk, mm []float64
			for _, pts := range runs[k] {
				p := reached(pts, func(p point) float64 { return p.sec }, b)
				tr, te, wk, mm = append(tr, p.train), append(te, p.test), append(wk, float64(p.work)), append(mm, float64(p.m))
			}
			trm, trl, trh := medianSpread(tr)
			tem, tel, teh := medianSpread(te)
			wkm, _, _ := medianSpread(wk)
			mmm, _, _ := medianSpread(mm)
			fmt.Fprintf(md, "| %g s | %s | %.5f [%.5f, %.5f] | %.5f [%.5f, %.5f] | %.3g | %.0f |\n", b, methods[k], trm, trl, trh, tem, tel, teh, wkm, mmm)
		}
	}
	if sameSetting(cfg) {
		fmt.Fprintf(md, "| paper, Table 1 | DP, M = 100 (403 s) | %.5f | %.5f | | 100 |\n", paper[100][0], paper[100][1])
	}
	fmt.Fprintln(md)
	// Figures: the median training error against wall time and against
	// the work done, each on a log grid from 0.01 s (or the method's first
	// point's work) to the end.
	secOf := func(p point) float64 { return p.sec }
	workOf := func(p point) float64 { return float64(p.work) }
	tag := strings.NewReplacer(" ", "", "=", "").Replace(name)
	if err := figure.LogLog(filepath.Join(c.out, "compare_"+tag+".png"), "training error per token against wall time, "+name+" (median, bars: half the range over seeds)",
		"seconds", "training error per token", curves(runs, secOf)); err != nil {
		return err
	}
	return figure.LogLog(filepath.Join(c.out, "compare_"+tag+"_work.png"), "training error per token against evaluations, "+name+" (median over seeds)",
		"evaluations (DP: leaves of the search; Adam: gradient evaluations)", "training error per token", curves(runs, workOf))
}

// curves returns, per method, the median over seeds (and half the range)
// of the best training error reached by x, on a log grid of x from its
// smallest first value to its largest last value.
func curves(runs [][][]point, x func(point) float64) []figure.Series {
	var series []figure.Series
	for k := range methods {
		sr := figure.Series{Name: methods[k]}
		lo, hi := math.Inf(1), 0.0
		for _, pts := range runs[k] {
			lo, hi = min(lo, x(pts[0])), max(hi, x(pts[len(pts)-1]))
		}
		for v := max(lo, 0.01); v <= hi*1.0001; v *= 1.25 {
			var tr []float64
			for _, pts := range runs[k] {
				if x(pts[0]) <= v {
					tr = append(tr, reached(pts, x, v).train)
				}
			}
			if len(tr) == len(runs[k]) {
				med, lo, hi := medianSpread(tr)
				sr.X, sr.Mean, sr.Std = append(sr.X, v), append(sr.Mean, med), append(sr.Std, (hi-lo)/2)
			}
		}
		if len(sr.X) > 0 {
			series = append(series, sr)
		}
	}
	return series
}

// reached returns the last point with x(p) ≤ v (the first point if none
// is).
func reached(pts []point, x func(point) float64, v float64) point {
	i := 0
	for i+1 < len(pts) && x(pts[i+1]) <= v {
		i++
	}
	return pts[i]
}

// compareAll runs compare for the §6 setting and for T = 3 and appends to
// md; it writes compare.csv.
func compareAll(ctx context.Context, c config, base control.Section6Config, md *strings.Builder) error {
	f, err := os.Create(filepath.Join(c.out, "compare.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	cw := csv.NewWriter(f)
	cw.Write([]string{"setting", "method", "seed", "seconds", "work", "m", "train_per_token", "test_per_token"})
	for _, T := range []int{base.T, 3} {
		cfg := base
		cfg.T = T
		if err := compare(ctx, c, cfg, fmt.Sprintf("T = %d", T), md, cw); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
