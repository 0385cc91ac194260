package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/metalearn"
	"github.com/icrl-go/icrl/tensor"
)

// The "learner" part: meta-learning through the library's online learner.
// The F.1 ("pure" placeholder) and F.2 families of K perturbed games are
// played in their discounted form (the same two-state rewards and
// transitions, γ = learnerGamma, rewards mapped into [0, 1] by the affine
// map r ↦ (r − rewardLo)/(rewardHi − rewardLo), which keeps the equilibria)
// by one learner.OMD per player through play.Run: learner.OMD is a
// discounted-game learner (in-context-games-omd Algorithm 1), the
// finite-horizon games of App. F its nearest discounted counterparts. Game
// k ≥ 2 of a family starts cold (uniform, the schedule from its first
// visit) or warm (OMD.WarmStart, with OMDConfig.WarmVisits = v visits)
// from: the average of the last iterates of the family's earlier games
// (the learner alone); the initialisation the paper's meta-learner hands
// to game k (Algorithm 1 with the meta-update (5) for F.1, projected
// Q-ascent with the warm start for F.2), at the first step; or that
// initialisation with its two actions swapped (a misleading start).
const (
	learnerGamma = 0.9
	rewardLo     = -0.5
	rewardHi     = 1.5
)

// learnerRounds are the rounds at which the gaps are measured.
var learnerRounds = []int{10, 100, 1000, 10000}

// learnerVisits are the warm starts' schedule offsets compared (−1: none).
var learnerVisits = []int{-1, 10, 100, 1000, 10000}

// discountedOf returns the discounted, [0, 1]-rescaled form of a
// time-homogeneous two-player episodic game: zero-sum (rewards r', 1 − r')
// or a team (shared r').
func discountedOf(g *markov.Episodic) (*markov.DiscountedGeneralSum, error) {
	S, J := g.States(), g.NumJoint()
	team := g.Cooperative()
	shape := []int{S, J, 2}
	if team {
		shape = shape[:2]
	}
	r, err := tensor.New[float64](shape...)
	if err != nil {
		return nil, err
	}
	for s := range S {
		for j := range J {
			x := (g.StepReward(0, s, j, 0) - rewardLo) / (rewardHi - rewardLo)
			if x < 0 || x > 1 {
				return nil, fmt.Errorf("reward %v outside the rescaling range [%v, %v]", g.StepReward(0, s, j, 0), rewardLo, rewardHi)
			}
			if team {
				r.Set(x, s, j)
			} else {
				r.Set(x, s, j, 0)
				r.Set(1-x, s, j, 1)
			}
		}
	}
	rho := make([]float64, S)
	rho[g.Start()] = 1
	return markov.NewDiscountedGeneralSum([]int{2, 2}, r, g.Kernel(0), learnerGamma, rho)
}

// teamValueGap returns V*(ρ) − V^π(ρ) of a team: the optimal joint
// policy's value (value iteration over joint actions) less the value of
// the product policy pi, in the original reward units.
func teamValueGap(g *markov.DiscountedGeneralSum, pi []markov.Stationary, _ float64) (float64, error) {
	v, err := g.Values(pi)
	if err != nil {
		return 0, err
	}
	S, J := g.States(), g.NumJoint()
	opt := make([]float64, S)
	next := make([]float64, S)
	for range 2000 {
		for s := range S {
			best := math.Inf(-1)
			for j := range J {
				q := g.Reward(s, j, 0)
				for s2, p := range g.Transition(s, j) {
					q += learnerGamma * p * opt[s2]
				}
				best = max(best, q)
			}
			next[s] = best
		}
		opt, next = next, opt
	}
	var gap float64
	for s, p := range g.Initial() {
		gap += p * (opt[s] - v[0][s])
	}
	return gap * (rewardHi - rewardLo), nil
}

// learnerRun is one method's gaps on one family: per game, per
// checkpoint round.
type learnerRun [][]float64

// starter returns the starting policies (player, state) of game k of a
// family given the last iterates of its games before k, or nil for a cold
// start.
type starter func(k int, lasts [][]markov.Stationary) []markov.Stationary

// ownAverage starts game k ≥ 1 from the average of the earlier games'
// last iterates: meta-learning by the learner alone.
func ownAverage(k int, lasts [][]markov.Stationary) []markov.Stationary {
	if k == 0 {
		return nil
	}
	out := make([]markov.Stationary, 2)
	for i := range out {
		out[i] = markov.UniformStationary(2, 2)
		for s := range out[i] {
			for a := range out[i][s] {
				var sum float64
				for _, l := range lasts {
					sum += l[i][s][a]
				}
				out[i][s][a] = sum / float64(k)
			}
		}
	}
	return out
}

// playFamily plays the games of one family in order with OMD players
// started by start (WarmStart with the given schedule offset) and
// returns each game's gap at the learnerRounds.
func playFamily(games []*markov.DiscountedGeneralSum, start starter, visits int, gap func(*markov.DiscountedGeneralSum, []markov.Stationary, float64) (float64, error), seed uint64) (learnerRun, error) {
	out := make(learnerRun, len(games))
	var lasts [][]markov.Stationary
	for k, g := range games {
		var init []markov.Stationary
		if start != nil {
			init = start(k, lasts)
		}
		var final []markov.Stationary
		for _, T := range learnerRounds {
			players := make([]learner.Learner, 2)
			for i := range players {
				l, err := learner.NewOMD(learner.OMDConfig{States: 2, Actions: 2, Discount: learnerGamma, WarmVisits: visits})
				if err != nil {
					return nil, err
				}
				if init != nil {
					if err := l.WarmStart(init[i]); err != nil {
						return nil, err
					}
				}
				players[i] = l
			}
			// The same stream for every T: the run to round 10 is the
			// start of the run to round 1000.
			res, err := play.Run(context.Background(), g, players, play.Config{Rounds: T}, rand.New(rand.NewPCG(seed, uint64(k))))
			if err != nil {
				return nil, err
			}
			x, err := gap(g, res.Last, res.NEGap)
			if err != nil {
				return nil, err
			}
			out[k] = append(out[k], x)
			final = res.Last
		}
		lasts = append(lasts, final)
	}
	return out, nil
}

// recordNext is a meta-update that keeps the initialisations it hands out.
type recordNext[I, R any] struct {
	metalearn.Meta[I, R]
	inits []I
}

func (r *recordNext[I, R]) Next(k int) (I, error) {
	init, err := r.Meta.Next(k)
	r.inits = append(r.inits, init)
	return init, err
}

// metaStarts returns, per game of the episodic family, the first-step
// policies of the initialisation the paper's meta-learner hands to it
// (F.1: Algorithm 1 with the meta-update (5), the initialisation of its
// last stage; F.2: projected Q-ascent with the warm start), as stationary
// policies for the discounted game.
func metaStarts(c config, fam []*markov.Episodic) ([][]markov.Stationary, error) {
	out := make([][]markov.Stationary, len(fam))
	first := func(p *tensor.Dense[float64], lead ...int) markov.Stationary {
		st := make(markov.Stationary, 2)
		for s := range st {
			st[s] = append([]float64(nil), p.Row(append(lead, s)...)...)
		}
		return st
	}
	if fam[0].ZeroSum() {
		m, err := metalearn.NewZeroSumAverage(fam[0], c.T, c.K, 0, metalearn.HindsightBR)
		if err != nil {
			return nil, err
		}
		rec := &recordNext[metalearn.ZeroSumInit, *metalearn.ZeroSumResult]{Meta: m}
		if _, err := metalearn.RunSequence(fam, metalearn.ZeroSumAlgorithm[*markov.Episodic]{Config: metalearn.OOMDConfig{Eta: c.eta, T: c.T}}, metalearn.Meta[metalearn.ZeroSumInit, *metalearn.ZeroSumResult](rec)); err != nil {
			return nil, err
		}
		for k, init := range rec.inits {
			// The last stage's initialisation: the first stage's stays
			// uniform, the later ones carry the meta-learned start.
			last := init.Mu.Dim(0) - 1
			out[k] = []markov.Stationary{first(init.Mu, last, 0), first(init.Nu, last, 0)}
		}
		return out, nil
	}
	w, err := metalearn.NewWarmStart(fam[0])
	if err != nil {
		return nil, err
	}
	rec := &recordNext[markov.Product, *metalearn.QAscentResult]{Meta: w}
	if _, err := metalearn.RunSequence(fam, metalearn.QAscentAlgorithm[*markov.Episodic]{Config: metalearn.QAscentConfig{Alpha: c.alpha, T: c.T}}, metalearn.Meta[markov.Product, *metalearn.QAscentResult](rec)); err != nil {
		return nil, err
	}
	for k, init := range rec.inits {
		out[k] = []markov.Stationary{first(init[0], 0), first(init[1], 0)}
	}
	return out, nil
}

// runLearner runs the learner part on the F.1 "pure" and F.2 families.
// learnerPart is one family of the learner part and its gap.
type learnerPart struct {
	name string
	part int
	base func(c config) (*markov.Episodic, error)
	gap  func(*markov.DiscountedGeneralSum, []markov.Stationary, float64) (float64, error)
}

var learnerParts = []learnerPart{
	{"F.1 zero-sum (\"pure\")", 1, func(c config) (*markov.Episodic, error) { return f1Base("pure", c.H) },
		func(_ *markov.DiscountedGeneralSum, _ []markov.Stationary, ne float64) (float64, error) {
			return ne * (rewardHi - rewardLo), nil
		}},
	{"F.2 team", 2, func(c config) (*markov.Episodic, error) { return f2Base(c.H) }, teamValueGap},
}

// learnerMethod is one way to start game k of a family.
type learnerMethod struct {
	name   string
	start  func(f int) starter
	visits int
}

// learnerMethods returns the methods compared, given the meta-learned
// starts per family and game.
func learnerMethods(starts [][][]markov.Stationary) []learnerMethod {
	methods := []learnerMethod{{"cold", func(int) starter { return nil }, -1}}
	for _, v := range []int{-1, 100} {
		methods = append(methods, learnerMethod{fmt.Sprintf("own average, v = %d", max(v, 0)), func(int) starter { return ownAverage }, v})
	}
	meta := func(swap bool) func(f int) starter {
		return func(f int) starter {
			return func(k int, _ [][]markov.Stationary) []markov.Stationary {
				if k == 0 {
					return nil
				}
				if !swap {
					return starts[f][k]
				}
				out := make([]markov.Stationary, 2)
				for i, p := range starts[f][k] {
					out[i] = make(markov.Stationary, len(p))
					for s, d := range p {
						out[i][s] = []float64{d[1], d[0]}
					}
				}
				return out
			}
		}
	}
	for _, v := range learnerVisits {
		methods = append(methods, learnerMethod{fmt.Sprintf("meta-learned, v = %d", max(v, 0)), meta(false), v})
	}
	// A misleading start: the meta-learned policies with their actions
	// swapped, what a warm start costs when the games are not similar.
	for _, v := range []int{1000, 10000} {
		methods = append(methods, learnerMethod{fmt.Sprintf("swapped meta-learned, v = %d", v), meta(true), v})
	}
	return methods
}

// learnerFamilies returns the part's families in discounted form and
// their episodic originals.
func learnerFamilies(c config, part learnerPart) ([][]*markov.DiscountedGeneralSum, [][]*markov.Episodic, error) {
	g0, err := part.base(c)
	if err != nil {
		return nil, nil, err
	}
	fams := make([][]*markov.DiscountedGeneralSum, c.families)
	epiFams := make([][]*markov.Episodic, c.families)
	for f := range fams {
		eps, err := family(c, g0, part.part, f)
		if err != nil {
			return nil, nil, err
		}
		epiFams[f] = eps
		for _, e := range eps {
			d, err := discountedOf(e)
			if err != nil {
				return nil, nil, fmt.Errorf("%s, family %d: %w", part.name, f, err)
			}
			fams[f] = append(fams[f], d)
		}
	}
	return fams, epiFams, nil
}

// last5 is a family's mean gap over its last 5 games at checkpoint cp
// (over its games after the first in a family of fewer than 6).
func last5(r learnerRun, cp int) float64 {
	var s float64
	from := max(1, len(r)-5)
	for k := from; k < len(r); k++ {
		s += r[k][cp]
	}
	return s / float64(len(r)-from)
}

// learnerTable writes the part's table and the paired comparison of the
// default warm start with the cold start at round 100.
func learnerTable(b *strings.Builder, c config, name string, methods []learnerMethod, runs [][]learnerRun) {
	fmt.Fprintf(b, "### %s\n\n| method |", name)
	for _, T := range learnerRounds {
		fmt.Fprintf(b, " gap at t = %d | warm/cold |", T)
	}
	fmt.Fprintf(b, "\n|---|")
	for range learnerRounds {
		fmt.Fprint(b, "---|---|")
	}
	fmt.Fprintln(b)
	fams := make([]int, c.families)
	for f := range fams {
		fams[f] = f
	}
	for m, meth := range methods {
		fmt.Fprintf(b, "| %s |", meth.name)
		for cp := range learnerRounds {
			mean, sd := sweep.MeanStd(runs[m], func(r learnerRun) float64 { return last5(r, cp) })
			rm, rs := sweep.MeanStd(fams, func(f int) float64 { return last5(runs[m][f], cp) / last5(runs[0][f], cp) })
			fmt.Fprintf(b, " %s | %s |", sweep.PlusMinus(mean, sd, c.families, 4), sweep.PlusMinus(rm, rs, c.families, 2))
		}
		fmt.Fprintln(b)
	}
	for m, meth := range methods {
		if meth.name != fmt.Sprintf("meta-learned, v = %d", learner.DefaultWarmVisits) {
			continue
		}
		for cp, T := range learnerRounds {
			d, sd := sweep.MeanStd(fams, func(f int) float64 { return last5(runs[m][f], cp) - last5(runs[0][f], cp) })
			fmt.Fprintf(b, "\nPaired over the %d families, meta-learned (v = %d, the default) − cold at t = %d: %+.4f ± %.4f, t = %.1f.", c.families, learner.DefaultWarmVisits, T, d, sd, d/(sd/math.Sqrt(float64(c.families))))
		}
		fmt.Fprintln(b)
	}
	fmt.Fprintln(b)
}

// runLearner runs the learner part on the F.1 "pure" and F.2 families.
func runLearner(c config, w io.Writer, report *strings.Builder) error {
	start := time.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "## Meta-learning through learner.OMD: warm start against cold start\n\n")
	fmt.Fprintf(&b, "The F.1 (\"pure\" placeholder) and F.2 families, %d families of K = %d games, in discounted form (γ = %v, rewards mapped into [0, 1]), played by one learner.OMD per player through play.Run for up to %d rounds. Game k ≥ 2 starts cold (uniform) or warm (OMD.WarmStart, the schedule entered after v visits) from the average of its family's earlier last iterates (\"own average\"), from the first-step policies the paper's meta-learner hands to game k (\"meta-learned\": Algorithm 1 with (5) for F.1, Q-ascent with the warm start for F.2), or from those with the two actions swapped (a misleading start). Gap of the last iterate in the original reward units (F.1: NE-gap from the start state; F.2: the team's value gap V* − V), mean over the family's last 5 games, then mean ± std over the families; the ratio warm/cold is per family.\n\n",
		c.families, c.K, learnerGamma, learnerRounds[len(learnerRounds)-1])
	for _, part := range learnerParts {
		fams, epiFams, err := learnerFamilies(c, part)
		if err != nil {
			return err
		}
		starts := make([][][]markov.Stationary, c.families)
		err = parallel.For(c.families, func(f int) error {
			var err error
			starts[f], err = metaStarts(c, epiFams[f])
			return err
		})
		if err != nil {
			return err
		}
		methods := learnerMethods(starts)
		runs := make([][]learnerRun, len(methods)) // method, family
		for m := range methods {
			runs[m] = make([]learnerRun, c.families)
			err := parallel.For(c.families, func(f int) error {
				var err error
				runs[m][f], err = playFamily(fams[f], methods[m].start(f), methods[m].visits, part.gap, c.seed+uint64(1000*part.part+f))
				return err
			})
			if err != nil {
				return err
			}
		}
		learnerTable(&b, c, part.name, methods, runs)
	}
	fmt.Fprintf(&b, "(%v)\n\n", time.Since(start).Round(time.Millisecond))
	report.WriteString(b.String())
	_, err := io.WriteString(w, "\n"+b.String())
	return err
}
