// Command metalearn reproduces the simulations of multi-agent-meta-rl
// (Mao et al., NeurIPS 2023, Section 6 and Appendix F): meta-learning
// across similar Markov games against learning each game individually.
//
//   - F.1 (zero-sum): K games drawn from a base game by N(0, σ²) reward
//     perturbations, the two-state 0.9/0.1 transitions, H = 10, Algorithm 1
//     for T = 1000 iterations with η = 0.02; individual learning starts
//     every game from the uniform policy, meta-learning from the average
//     of the earlier games' α-greedy hindsight best responses (eq. (5)). The
//     NE-gap and the value of the running-average policy against the
//     iteration (Figure 2(a)–(b)) and the Nash equilibria of the K
//     perturbed matrix games per state in the unit square (Figure 2(c)).
//     The paper's base rewards (its Table 1) are missing from its text
//     the program runs two clearly labelled placeholders, a game
//     with a strict pure equilibrium ("pure") and matching pennies
//     ("mixed"), the latter to show where averaging one-hot best responses
//     hurts.
//   - F.2 (potential): the cooperative game of Table 2, whose (a₁, b₁)
//     entry at the second state is missing (placeholder 0.8), projected
//     Q-ascent (7) with α = 0.05 for T = 1000 iterations, individual (uniform
//     start) against warm start (Figure 3).
//   - F.3 (tracking): the 4-player linear-quadratic tracking game (625
//     states, 81 joint actions) with perturbed drift magnitudes, projected
//     Q-ascent individual against warm start (Figure 4(b)–(c)), and the
//     time of one MAML step (47) on its discounted team form. The Poker
//     endgame's own data is not public: see the poker part.
//   - poker (not in the default): the F.3 Poker endgame on a stand-in
//     built from public rules (game/poker.Endgame: fixed board, full
//     ranges, call/fold, local observations), K = 10 games with N(0, 0.5)
//     perturbations of the normalised stack, learner.OMD per hand started
//     uniform or warm from the previous game (poker.go).
//   - learner: meta-learning through the library's online learner. The
//     F.1 ("pure") and F.2 families in discounted form (γ = 0.9), played by
//     learner.OMD through play.Run for up to 10⁴ rounds, each game
//     started cold or warm (OMD.WarmStart) from the paper's meta-learned
//     initialisation, from the learner's own earlier last iterates or from
//     a misleading start, for several schedule offsets (learner.go).
//
// Usage:
//
//	go run ./examples/metalearn [flags]
//
// Flags:
//
//	-parts   comma-separated subset of f1, f2, f3, maml, learner (default
//	         all)
//	-K       games per family (default 10)
//	-H       horizon of F.1 and F.2 (default 10)
//	-T       iterations per game in F.1 and F.2 (default 1000)
//	-eta     step size of Algorithm 1 (default 0.02, the paper's)
//	-alpha   step size of projected Q-ascent in F.2 (default 0.05, the paper's)
//	-sigma   standard deviation of the reward perturbations (default 0.1: the
//	         paper's N(0, 0.1) read as a standard deviation)
//	-every   checkpoint spacing in iterations (default 10)
//	-families independent perturbed families of K games in F.1 and F.2
//	         (default 5; family f draws from the PCG stream (seed, f); the
//	         tables and figures pool the families' games)
//	-f3K, -f3H, -f3T, -f3alpha, -f3sigma, -f3positions
//	         F.3 games, horizon, iterations, step size, drift
//	         perturbation and positions per agent (defaults 4, 5, 40, 0.1,
//	         0.5 and the paper's 5)
//	-f3players
//	         F.3 agents (default the paper's 4); with -f3positions, the
//	         larger instances: -f3positions 7 has 2,401 states,
//	         -f3players 5 has 3,125 states and 243 joint actions. The
//	         transitions are a product kernel, so memory stays a few MB.
//	         The MAML part keeps 4 agents.
//	-pokerK, -pokerT, -pokerStack, -pokerSigma, -pokerFamilies
//	         poker part: games per sequence, rounds per game, base stack,
//	         stack perturbation, independent sequences (defaults 10,
//	         200000, 1, 0.5, 1)
//	-seed    seed of the perturbations (default 1)
//	-out     output folder (default out/metalearn)
//
// It prints tables and writes CSV files and PNG figures to -out, and on
// standard error the time of each part. Results are deterministic given
// -seed.
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/icrl-go/icrl/internal/num"

	"github.com/icrl-go/icrl/internal/parallel"

	"github.com/icrl-go/icrl/examples/internal/figure"
	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/metalearn"
	"github.com/icrl-go/icrl/tensor"
)

type config struct {
	parts                      map[string]bool
	K, H, T, every, families   int
	eta, alpha, sigma          float64
	f3K, f3H, f3T, f3positions int
	f3players                  int
	f3alpha, f3sigma           float64
	pokerK, pokerT             int
	pokerFamilies              int
	pokerStack, pokerSigma     float64
	seed                       uint64
	out                        string
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "metalearn:", err)
		os.Exit(2)
	}
	if err := run(cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "metalearn:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("metalearn", flag.ContinueOnError)
	var c config
	parts := fs.String("parts", "f1,f2,f3,maml,learner", "comma-separated subset of f1, f2, f3, maml, learner, poker")
	fs.IntVar(&c.K, "K", 10, "games per family")
	fs.IntVar(&c.H, "H", 10, "horizon of F.1 and F.2")
	fs.IntVar(&c.T, "T", 1000, "iterations per game in F.1 and F.2")
	fs.Float64Var(&c.eta, "eta", 0.02, "step size of Algorithm 1")
	fs.Float64Var(&c.alpha, "alpha", 0.05, "step size of projected Q-ascent in F.2")
	fs.Float64Var(&c.sigma, "sigma", 0.1, "standard deviation of the reward perturbations")
	fs.IntVar(&c.every, "every", 10, "checkpoint spacing in iterations")
	fs.IntVar(&c.families, "families", 5, "independent perturbed families in F.1 and F.2")
	fs.IntVar(&c.f3K, "f3K", 4, "F.3 games")
	fs.IntVar(&c.f3H, "f3H", 5, "F.3 horizon")
	fs.IntVar(&c.f3T, "f3T", 40, "F.3 iterations per game")
	fs.IntVar(&c.f3positions, "f3positions", 5, "F.3 positions per agent (odd; 5 is the paper's)")
	fs.IntVar(&c.f3players, "f3players", 4, "F.3 agents (4 is the paper's; the MAML part keeps 4)")
	fs.Float64Var(&c.f3alpha, "f3alpha", 0.1, "F.3 step size of projected Q-ascent")
	fs.Float64Var(&c.f3sigma, "f3sigma", 0.5, "F.3 standard deviation of the drift perturbation")
	fs.IntVar(&c.pokerK, "pokerK", 10, "poker: games per sequence")
	fs.IntVar(&c.pokerT, "pokerT", 200000, "poker: rounds (deals) per game")
	fs.IntVar(&c.pokerFamilies, "pokerFamilies", 1, "poker: independent sequences")
	fs.Float64Var(&c.pokerStack, "pokerStack", 1, "poker: base normalised stack (the call, in units of the pot)")
	fs.Float64Var(&c.pokerSigma, "pokerSigma", 0.5, "poker: standard deviation of the stack perturbation")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the perturbations")
	fs.StringVar(&c.out, "out", "out/metalearn", "output folder")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.parts = map[string]bool{}
	for _, p := range strings.Split(*parts, ",") {
		p = strings.TrimSpace(p)
		switch p {
		case "f1", "f2", "f3", "maml", "learner", "poker":
			c.parts[p] = true
		case "":
		default:
			return c, fmt.Errorf("unknown part %q (want f1, f2, f3, maml, learner or poker)", p)
		}
	}
	switch {
	case c.K < 2:
		return c, fmt.Errorf("-K = %d: need at least 2 games", c.K)
	case c.H < 1 || c.T < 1 || c.every < 1 || c.families < 1:
		return c, fmt.Errorf("-H = %d, -T = %d, -every = %d, -families = %d: must be positive", c.H, c.T, c.every, c.families)
	case c.f3K < 2 || c.f3H < 1 || c.f3T < 1 || c.f3positions < 1 || c.f3positions%2 == 0:
		return c, fmt.Errorf("-f3K = %d, -f3H = %d, -f3T = %d, -f3positions = %d: need f3K ≥ 2, positive sizes and an odd number of positions", c.f3K, c.f3H, c.f3T, c.f3positions)
	case c.pokerK < 2 || c.pokerT < 10 || c.pokerFamilies < 1 || !(c.pokerStack > 0) || !(c.pokerSigma >= 0):
		return c, fmt.Errorf("-pokerK = %d, -pokerT = %d, -pokerFamilies = %d, -pokerStack = %v, -pokerSigma = %v: need pokerK ≥ 2, pokerT ≥ 10, a positive stack and a non-negative perturbation", c.pokerK, c.pokerT, c.pokerFamilies, c.pokerStack, c.pokerSigma)
	case c.f3players < 1 || c.f3players > 8:
		return c, fmt.Errorf("-f3players = %d: need 1 to 8 agents", c.f3players)
	case !(c.eta > 0) || !(c.alpha > 0) || !(c.f3alpha > 0) || !(c.sigma >= 0) || !(c.f3sigma >= 0):
		return c, errors.New("step sizes must be positive and perturbations non-negative")
	}
	return c, nil
}

func run(c config, w io.Writer) error {
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	var report strings.Builder
	_, stage, times := sweep.TimePhases(context.Background(), os.Stderr)
	defer times()
	if c.parts["f1"] {
		for _, base := range []string{"pure", "mixed"} {
			stage.Next("F.1 " + base)
			if err := runF1(c, base, w, &report); err != nil {
				return fmt.Errorf("F.1 %s: %w", base, err)
			}
		}
	}
	if c.parts["f2"] {
		stage.Next("F.2")
		if err := runF2(c, w, &report); err != nil {
			return fmt.Errorf("F.2: %w", err)
		}
	}
	if c.parts["f3"] {
		stage.Next("F.3")
		if err := runF3(c, w, &report); err != nil {
			return fmt.Errorf("F.3: %w", err)
		}
	}
	if c.parts["maml"] {
		stage.Next("MAML")
		if err := runMAML(c, w, &report); err != nil {
			return fmt.Errorf("MAML: %w", err)
		}
	}
	if c.parts["learner"] {
		stage.Next("the meta-learned learners")
		if err := runLearner(c, w, &report); err != nil {
			return fmt.Errorf("learner: %w", err)
		}
	}
	if c.parts["poker"] {
		stage.Next("poker")
		if err := runPoker(c, w, &report); err != nil {
			return fmt.Errorf("poker: %w", err)
		}
	}
	stage.Next("write the results")
	return os.WriteFile(filepath.Join(c.out, "results.md"), []byte(report.String()), 0o644)
}

// checkpoints returns every, 2·every, …, T (and T itself), plus t0 = 0 when
// zero is true.
func checkpoints(T, every int, zero bool) []int {
	var cp []int
	if zero {
		cp = append(cp, 0)
	}
	for t := every; t < T; t += every {
		cp = append(cp, t)
	}
	return append(cp, T)
}

// placeholders for the missing Table 1: NOT the paper's.
var f1Bases = map[string][2][]float64{
	"pure":  {{0.8, 0.6, 0.3, 0.1}, {0.5, 0.9, 0.2, 0.4}},
	"mixed": {{1, 0, 0, 1}, {0, 1, 1, 0}},
}

// f1Base returns the time-homogeneous two-state zero-sum game with the
// F.1 transitions and the named placeholder rewards.
func f1Base(name string, H int) (*markov.Episodic, error) {
	b := f1Bases[name]
	rewards, err := tensor.New[float64](H, 2, 2, 2) // max-player r_h(s, a, b)
	if err != nil {
		return nil, err
	}
	for h := range H {
		copy(rewards.Sub(h).Data(), append(append([]float64(nil), b[0]...), b[1]...))
	}
	return markov.NewZeroSumEpisodic(2, 2, 0, H, rewards, []markov.Kernel{markov.TwoStateKernel()})
}

// curve summarises one method over the games: per checkpoint, the mean
// and std over all games and the mean over the games that are not first
// in their family (the ones meta-learning can help).
type curve struct {
	name            string
	t               []float64
	mean, std       []float64
	laterMean       []float64
	value, valueStd []float64
}

// summarise builds a curve from n games, perFamily consecutive games per
// family.
func summarise(name string, cps []int, gap func(k, c int) float64, val func(k, c int) float64, n, perFamily int) curve {
	cv := curve{name: name}
	for c, t := range cps {
		g := make([]float64, n)
		v := make([]float64, n)
		var later []float64
		for k := range n {
			g[k], v[k] = gap(k, c), val(k, c)
			if k%perFamily != 0 {
				later = append(later, g[k])
			}
		}
		m, s := num.MeanStd(g)
		lm, _ := num.MeanStd(later)
		vm, vs := num.MeanStd(v)
		cv.t = append(cv.t, float64(t))
		cv.mean, cv.std, cv.laterMean = append(cv.mean, m), append(cv.std, s), append(cv.laterMean, lm)
		cv.value, cv.valueStd = append(cv.value, vm), append(cv.valueStd, vs)
	}
	return cv
}

// family draws the f-th family of K perturbed copies of base.
func family(c config, base *markov.Episodic, part, f int) ([]*markov.Episodic, error) {
	return markov.PerturbedEpisodic(base, c.K, c.sigma, rand.New(rand.NewPCG(c.seed, uint64(100*part+f))))
}

// sequences runs, for each family, the sequence of its K games with a
// fresh meta-update from newMeta, on both cores, and concatenates the
// results in family order.
func sequences[I, R any](c config, fams [][]*markov.Episodic, l metalearn.Algorithm[*markov.Episodic, I, R], newMeta func() (metalearn.Meta[I, R], error)) ([]R, error) {
	out := make([][]R, len(fams))
	err := parallel.For(len(fams), func(f int) error {
		m, err := newMeta()
		if err != nil {
			return err
		}
		out[f], err = metalearn.RunSequence(fams[f], l, m)
		return err
	})
	var all []R
	for _, r := range out {
		all = append(all, r...)
	}
	return all, err
}

func runF1(c config, base string, w io.Writer, report *strings.Builder) error {
	start := time.Now()
	g0, err := f1Base(base, c.H)
	if err != nil {
		return err
	}
	fams := make([][]*markov.Episodic, c.families)
	for f := range fams {
		if fams[f], err = family(c, g0, 1, f); err != nil {
			return err
		}
	}
	cps := checkpoints(c.T, c.every, false)
	l := metalearn.ZeroSumAlgorithm[*markov.Episodic]{Config: metalearn.OOMDConfig{Eta: c.eta, T: c.T, Checkpoints: cps}}
	uni, err := metalearn.UniformZeroSumInit(g0, c.T)
	if err != nil {
		return err
	}
	type zsMeta = metalearn.Meta[metalearn.ZeroSumInit, *metalearn.ZeroSumResult]
	ind, err := sequences(c, fams, l, func() (zsMeta, error) {
		return metalearn.Fixed[metalearn.ZeroSumInit, *metalearn.ZeroSumResult]{Init: uni}, nil
	})
	if err != nil {
		return err
	}
	curves := []curve{summariseZS(c, "individual", cps, ind)}
	d, err := metalearn.DeltaMuNu(ind[:c.K])
	if err != nil {
		return err
	}
	deltas := fmt.Sprintf("Δ_μν of the first family: individual %.4g", d)
	for _, st := range []struct {
		name string
		stat metalearn.Statistic
	}{{"meta (hindsight BR, eq. 5)", metalearn.HindsightBR}, {"meta (stage average)", metalearn.StageAverage}} {
		res, err := sequences(c, fams, l, func() (zsMeta, error) {
			return metalearn.NewZeroSumAverage(g0, c.T, c.K, 0, st.stat)
		})
		if err != nil {
			return err
		}
		curves = append(curves, summariseZS(c, st.name, cps, res))
		d, err := metalearn.DeltaMuNu(res[:c.K])
		if err != nil {
			return err
		}
		deltas += fmt.Sprintf(", %s %.4g", st.name, d)
	}
	elapsed := time.Since(start)
	title := fmt.Sprintf("F.1 zero-sum, placeholder base %q (not the paper's Table 1): %d×K=%d games, H=%d, η=%g, σ=%g", base, c.families, c.K, c.H, c.eta, c.sigma)
	if err := writeCurves(c, "f1_"+base, title, "NE-gap of the average policy", curves); err != nil {
		return err
	}
	if err := f1Scatter(c, base, fams[0]); err != nil {
		return err
	}
	return printCurves(w, report, title, elapsed, curves, []int{10, 20, 50, 100, 500, c.T}, deltas)
}

func summariseZS(c config, name string, cps []int, res []*metalearn.ZeroSumResult) curve {
	return summarise(name, cps,
		func(k, i int) float64 { return res[k].Checkpoints[i].Gap },
		func(k, i int) float64 { return res[k].Checkpoints[i].Value }, len(res), c.K)
}

// f1Scatter draws Figure 2(c): the equilibrium (μ*(a₀), ν*(b₀)) of each
// perturbed game's reward matrix at each state.
func f1Scatter(c config, base string, games []*markov.Episodic) error {
	var groups []figure.Points
	f, err := os.Create(filepath.Join(c.out, "f1_"+base+"_ne.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	cw := csv.NewWriter(f)
	cw.Write([]string{"game", "state", "mu_a0", "nu_b0", "value"})
	for s := range 2 {
		p := figure.Points{Name: fmt.Sprintf("state s%d", s)}
		for k, g := range games {
			m := make([]float64, 4)
			for j := range m {
				m[j] = g.StepReward(0, s, j, 0)
			}
			zs, err := game.NewZeroSumDense(2, 2, m)
			if err != nil {
				return err
			}
			sol, err := game.Solve(zs)
			if err != nil {
				return err
			}
			p.X = append(p.X, sol.X[0])
			p.Y = append(p.Y, sol.Y[0])
			cw.Write([]string{strconv.Itoa(k), strconv.Itoa(s), ftoa(sol.X[0]), ftoa(sol.Y[0]), ftoa(sol.Value)})
		}
		groups = append(groups, p)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return figure.Scatter(filepath.Join(c.out, "f1_"+base+"_ne.png"),
		fmt.Sprintf("Nash equilibria of the %d perturbed matrix games (base %q, σ=%g)", len(games), base, c.sigma),
		"μ*(a₀)", "ν*(b₀)", -0.05, 1.05, -0.05, 1.05, groups)
}

// f2Base returns the cooperative game of Table 2 with horizon H: the
// (a₁, b₁) entry at s₁ is missing from the paper's text, 0.8 is a
// placeholder.
func f2Base(H int) (*markov.Episodic, error) {
	r := []float64{0.1, 0.5, 0.5, 1 /* s0 */, 0.8, 0.2, 0.2, 0.8 /* s1 */}
	rewards, err := tensor.New[float64](H, 2, 4) // shared r_h(s, j)
	if err != nil {
		return nil, err
	}
	for h := range H {
		copy(rewards.Sub(h).Data(), r)
	}
	return markov.NewEpisodic([]int{2, 2}, 0, H, rewards, []markov.Kernel{markov.TwoStateKernel()})
}

func runF2(c config, w io.Writer, report *strings.Builder) error {
	start := time.Now()
	g0, err := f2Base(c.H)
	if err != nil {
		return err
	}
	fams := make([][]*markov.Episodic, c.families)
	for f := range fams {
		if fams[f], err = family(c, g0, 2, f); err != nil {
			return err
		}
	}
	cps := checkpoints(c.T, c.every, true)
	l := metalearn.QAscentAlgorithm[*markov.Episodic]{Config: metalearn.QAscentConfig{Alpha: c.alpha, T: c.T, Checkpoints: cps}}
	curves, err := qaCurves(c, fams, l, cps, func(ck metalearn.QAscentCheckpoint) float64 { return ck.CoopGap })
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	title := fmt.Sprintf("F.2 potential game (Table 2, placeholder 0.8 for the missing entry): %d×K=%d games, H=%d, α=%g, σ=%g", c.families, c.K, c.H, c.alpha, c.sigma)
	if err := writeCurves(c, "f2", title, "NE-gap (App. F.2 metric) of the iterate", curves); err != nil {
		return err
	}
	return printCurves(w, report, title, elapsed, curves, []int{0, 10, 50, 100, 500, c.T}, "")
}

// qaCurves runs projected Q-ascent individually and with warm start on
// every family.
func qaCurves(c config, fams [][]*markov.Episodic, l metalearn.QAscentAlgorithm[*markov.Episodic], cps []int, gap func(metalearn.QAscentCheckpoint) float64) ([]curve, error) {
	g0 := fams[0][0]
	uni := make(markov.Product, g0.Players())
	for i := range uni {
		uni[i] = markov.UniformPolicy(g0.Horizon(), g0.States(), g0.Actions(game.Player(i)))
	}
	type qaMeta = metalearn.Meta[markov.Product, *metalearn.QAscentResult]
	ind, err := sequences(c, fams, l, func() (qaMeta, error) {
		return metalearn.Fixed[markov.Product, *metalearn.QAscentResult]{Init: uni}, nil
	})
	if err != nil {
		return nil, err
	}
	warm, err := sequences(c, fams, l, func() (qaMeta, error) { return metalearn.NewWarmStart(g0) })
	if err != nil {
		return nil, err
	}
	mk := func(name string, res []*metalearn.QAscentResult) curve {
		return summarise(name, cps,
			func(k, i int) float64 { return gap(res[k].Checkpoints[i]) },
			func(k, i int) float64 {
				v, _ := num.MeanStd(res[k].Checkpoints[i].Values)
				return v
			}, len(res), len(fams[0]))
	}
	return []curve{mk("individual", ind), mk("meta (warm start)", warm)}, nil
}

func runF3(c config, w io.Writer, report *strings.Builder) error {
	start := time.Now()
	tcfg := metalearn.TrackingConfig{Players: c.f3players, Positions: c.f3positions, MixtureDrift: true}
	tgs, err := metalearn.PerturbedTracking(tcfg, c.f3K, c.f3sigma, rand.New(rand.NewPCG(c.seed, 3)))
	if err != nil {
		return err
	}
	games := make([]*markov.Episodic, len(tgs))
	for k, tg := range tgs {
		if games[k], err = tg.Episodic(c.f3H, tg.CenterState()); err != nil {
			return err
		}
		tgs[k] = nil // the game holds the rewards and the kernel
	}
	cps := checkpoints(c.f3T, max(1, c.f3T/10), true)
	l := metalearn.QAscentAlgorithm[*markov.Episodic]{Config: metalearn.QAscentConfig{Alpha: c.f3alpha, T: c.f3T, Checkpoints: cps}}
	curves, err := qaCurves(c, [][]*markov.Episodic{games}, l, cps, func(ck metalearn.QAscentCheckpoint) float64 { return ck.Gap })
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	title := fmt.Sprintf("F.3 LQ tracking (%d players, %d states, %d joint actions): K=%d, H=%d, α=%g, drift sd %g",
		games[0].Players(), games[0].States(), games[0].NumJoint(), c.f3K, c.f3H, c.f3alpha, c.f3sigma)
	if err := writeCurves(c, "f3", title, "NE-gap max_i of the iterate", curves); err != nil {
		return err
	}
	return printCurves(w, report, title, elapsed, curves, cps, "")
}

func runMAML(c config, w io.Writer, report *strings.Builder) error {
	tgs, err := metalearn.PerturbedTracking(metalearn.TrackingConfig{Positions: c.f3positions, MixtureDrift: true}, 2, c.f3sigma, rand.New(rand.NewPCG(c.seed, 4)))
	if err != nil {
		return err
	}
	games := make([]*markov.DiscountedGeneralSum, len(tgs))
	for k, tg := range tgs {
		init := make([]float64, tg.States)
		init[tg.CenterState()] = 1
		if games[k], err = tg.DiscountedTeam(0.9, init); err != nil {
			return err
		}
		tgs[k] = nil
	}
	const gamma, inner = 0.9, 1
	cst := metalearn.LemmaConstants(4, gamma, 3, inner)
	alpha := cst.InnerAlpha
	th := metalearn.ZeroLogits(games[0])
	f0, err := metalearn.MAMLObjective(games, th, alpha, inner)
	if err != nil {
		return err
	}
	eta := 1.0
	start := time.Now()
	th1, err := metalearn.MAMLStep(games, th, alpha, eta, inner)
	if err != nil {
		return err
	}
	el := time.Since(start)
	f1, err := metalearn.MAMLObjective(games, th1, alpha, inner)
	if err != nil {
		return err
	}
	title := "MAML (47) on the discounted tracking team (potential reward, γ = 0.9, start at the centre)"
	np := len(th.Vector())
	fmt.Fprintf(w, "\n%s\n  %d games, %d states, %d parameters, T = %d inner step (α = %.3g = Lemma 14 with E10), η = %g\n  F_T: %.6f → %.6f; one MAML step took %v\n",
		title, len(games), games[0].States(), np, inner, alpha, eta, f0, f1, el.Round(time.Millisecond))
	fmt.Fprintf(report, "## %s\n\n%d games, %d states, %d parameters, T = %d inner step (α = %.3g), η = %g: F_T %.6f → %.6f; one MAML step %v.\n\n",
		title, len(games), games[0].States(), np, inner, alpha, eta, f0, f1, el.Round(time.Millisecond))
	return nil
}

func writeCurves(c config, name, title, ylabel string, curves []curve) error {
	f, err := os.Create(filepath.Join(c.out, name+".csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	cw := csv.NewWriter(f)
	head := []string{"t"}
	for _, cv := range curves {
		n := strings.Fields(cv.name)[0]
		if strings.Contains(cv.name, "stage average") {
			n = "meta_avg"
		}
		head = append(head, n+"_gap_mean", n+"_gap_std", n+"_gap_mean_k2", n+"_value_mean", n+"_value_std")
	}
	cw.Write(head)
	for i := range curves[0].t {
		row := []string{ftoa(curves[0].t[i])}
		for _, cv := range curves {
			row = append(row, ftoa(cv.mean[i]), ftoa(cv.std[i]), ftoa(cv.laterMean[i]), ftoa(cv.value[i]), ftoa(cv.valueStd[i]))
		}
		cw.Write(row)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	var gs, vs []figure.Series
	for _, cv := range curves {
		gs = append(gs, figure.Series{Name: cv.name, X: cv.t, Mean: cv.mean, Std: cv.std})
		vs = append(vs, figure.Series{Name: cv.name, X: cv.t, Mean: cv.value, Std: cv.valueStd})
	}
	if err := figure.Lines(filepath.Join(c.out, name+"_gap.png"), title, "iteration t", ylabel+" (mean ± std over games)", gs); err != nil {
		return err
	}
	return figure.Lines(filepath.Join(c.out, name+"_value.png"), title, "iteration t", "value V(s₁) (mean ± std over games)", vs)
}

func printCurves(w io.Writer, report *strings.Builder, title string, elapsed time.Duration, curves []curve, at []int, note string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n(%v) NE-gap, mean ± std over all games [mean over the games that are not first in their family]\n\n", title, elapsed.Round(time.Millisecond))
	fmt.Fprintf(&b, "| t |")
	for _, cv := range curves {
		fmt.Fprintf(&b, " %s |", cv.name)
	}
	fmt.Fprintf(&b, "\n|---|")
	for range curves {
		fmt.Fprintf(&b, "---|")
	}
	fmt.Fprintln(&b)
	for _, t := range at {
		i := -1
		for j, x := range curves[0].t {
			if int(x) == t {
				i = j
			}
		}
		if i < 0 {
			continue
		}
		fmt.Fprintf(&b, "| %d |", t)
		for _, cv := range curves {
			fmt.Fprintf(&b, " %.4f ± %.4f [%.4f] |", cv.mean[i], cv.std[i], cv.laterMean[i])
		}
		fmt.Fprintln(&b)
	}
	if note != "" {
		fmt.Fprintf(&b, "\n%s\n", note)
	}
	fmt.Fprintln(&b)
	report.WriteString(b.String())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "\n"+b.String())
	return tw.Flush()
}

func ftoa(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return strconv.FormatFloat(x, 'g', 8, 64)
}
