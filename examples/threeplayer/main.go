// Command threeplayer plays a three-player general-sum game of the
// caller's own with the library's learners through one rollout engine
// (play.Run): Jordan's three-player matching pennies (pennies.go), a
// plain struct that is both the simulator and the model. Regret matching
// and MWU (full information: each player sees the expected reward of each
// of its actions against the others' mixed strategies), and Exp3-IX, OMD,
// regret matching with an exploration floor and Exp3 (bandit feedback:
// each sees its own reward only) play it for -rounds rounds; the engine
// reports the CCE-gap of the empirical joint play against rounds (the
// no-regret guarantee: it falls as the players' average regret) and the
// NE-gap of the last iterate (which need not fall: the dynamics cycle
// around the game's mixed equilibrium).
//
//	go run ./examples/threeplayer [-rounds 100000] [-seeds 5] [-seed 1] [-out out/threeplayer]
//
// It prints a table of the CCE-gap at rounds 10², 10³, 10⁴ and 10⁵ (mean ±
// std over seeds) and writes cce.csv and cce.png to the output folder. It
// takes a few seconds.
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/icrl-go/icrl/examples/internal/figure"
	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

func main() {
	rounds := flag.Int("rounds", 100000, "rounds of each run")
	seeds := flag.Int("seeds", 5, "runs per learner")
	seed := flag.Uint64("seed", 1, "first random seed")
	out := flag.String("out", "out/threeplayer", "output folder")
	flag.Parse()
	if *rounds < 100 || *seeds < 1 {
		log.Fatal("-rounds must be at least 100 and -seeds positive")
	}
	if err := run(os.Stdout, *rounds, *seeds, *seed, *out); err != nil {
		log.Fatal(err)
	}
}

// dynamics is one way to play: a learner for each player and the
// feedback.
type dynamics struct {
	name     string
	feedback play.Feedback
	learner  func(rounds int) (learner.Learner, error)
}

var allDynamics = []dynamics{
	{"regret matching", play.FullInformation, func(int) (learner.Learner, error) {
		return learner.NewRegretMatching(learner.RegretMatchingConfig{Actions: 2})
	}},
	{"MWU (η = 0.1)", play.FullInformation, func(int) (learner.Learner, error) {
		return learner.NewMWU(learner.MWUConfig{Actions: 2})
	}},
	{"Exp3-IX", play.Bandit, func(rounds int) (learner.Learner, error) {
		return learner.NewExp3IX(learner.Exp3IXConfig{Actions: 2, Horizon: rounds})
	}},
	{"OMD", play.Bandit, func(int) (learner.Learner, error) {
		return learner.NewOMD(learner.OMDConfig{Actions: 2})
	}},
	{"regret matching (γ = 0.02)", play.Bandit, func(int) (learner.Learner, error) {
		return learner.NewRegretMatching(learner.RegretMatchingConfig{Actions: 2, Floor: 0.02})
	}},
	{"Exp3 (MWU, γ = 0.05)", play.Bandit, func(int) (learner.Learner, error) {
		return learner.NewMWU(learner.MWUConfig{Actions: 2, Floor: 0.05, Eta: 0.025})
	}},
}

// checkpoints returns about four rounds a decade from 10 to rounds.
func checkpoints(rounds int) []int {
	var cps []int
	for e := 1.0; ; e += 0.25 {
		t := int(math.Round(math.Pow(10, e)))
		if t >= rounds {
			return append(cps, rounds)
		}
		cps = append(cps, t)
	}
}

// result is one run's CCE-gaps at the checkpoints and its final NE-gap.
type result struct {
	cce []float64
	ne  float64
}

// playOnce runs the dynamics d once.
func playOnce(d dynamics, g Pennies, rounds int, cps []int, seed uint64) (result, error) {
	players := make([]learner.Learner, g.Players())
	for i := range players {
		l, err := d.learner(rounds)
		if err != nil {
			return result{}, err
		}
		players[i] = l
	}
	res, err := play.Run(context.Background(), g, players,
		play.Config{Rounds: rounds, Feedback: d.feedback, Checkpoints: cps}, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		return result{}, fmt.Errorf("%s: %w", d.name, err)
	}
	r := result{ne: res.NEGap}
	for _, cp := range res.Checkpoints {
		r.cce = append(r.cce, cp.CCEGap)
	}
	return r, nil
}

// run plays every dynamics over the seeds and writes the table, the CSV
// and the figure.
func run(w io.Writer, rounds, seeds int, seed uint64, out string) error {
	g := Pennies{Bonus: [3]float64{0.2, 0.5, 1}}
	cps := checkpoints(rounds)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(out, "cce.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	cw := csv.NewWriter(f)
	cw.Write([]string{"dynamics", "feedback", "seed", "round", "cce_gap"})
	var series []figure.Series
	show := []int{100, 1000, 10000, 100000}
	fmt.Fprintf(w, "CCE-gap of the empirical joint play in three-player matching pennies, mean ± std over %d seeds\n\n", seeds)
	fmt.Fprintf(w, "| dynamics | feedback |")
	for _, t := range show {
		if t <= rounds {
			fmt.Fprintf(w, " t = %d |", t)
		}
	}
	fmt.Fprintf(w, " NE-gap of the last iterate at t = %d |\n|---|---|", rounds)
	for _, t := range show {
		if t <= rounds {
			fmt.Fprint(w, "---|")
		}
	}
	fmt.Fprintln(w, "---|")
	for _, d := range allDynamics {
		runs := make([]result, seeds)
		for k := range runs {
			if runs[k], err = playOnce(d, g, rounds, cps, seed+uint64(k)); err != nil {
				return err
			}
			for c, t := range cps {
				cw.Write([]string{d.name, d.feedback.String(), strconv.FormatUint(seed+uint64(k), 10), strconv.Itoa(t), strconv.FormatFloat(runs[k].cce[c], 'g', 8, 64)})
			}
		}
		s := figure.Series{Name: fmt.Sprintf("%s (%v)", d.name, d.feedback)}
		fmt.Fprintf(w, "| %s | %v |", d.name, d.feedback)
		for c, t := range cps {
			m, sd := sweep.MeanStd(runs, func(r result) float64 { return r.cce[c] })
			s.X, s.Mean, s.Std = append(s.X, float64(t)), append(s.Mean, m), append(s.Std, sd)
			for _, u := range show {
				if u == t {
					fmt.Fprintf(w, " %s |", sweep.PlusMinus(m, sd, seeds, 4))
				}
			}
		}
		m, sd := sweep.MeanStd(runs, func(r result) float64 { return r.ne })
		fmt.Fprintf(w, " %s |\n", sweep.PlusMinus(m, sd, seeds, 3))
		series = append(series, s)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return figure.LogLog(filepath.Join(out, "cce.png"), "Three-player matching pennies: CCE-gap of the empirical play (bands ±1 std)", "round t", "CCE-gap", series)
}
