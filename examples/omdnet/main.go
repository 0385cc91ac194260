// Command omdnet runs in-context-games-omd Theorem 4.1 made executable
// (package learner/incontext/omdnet): for each number of actions A,
// accuracy ε and OMD schedule it builds the transformer whose hand-set
// weights run learner.OMD, reports its sizes beside the theorem's, plays it
// against itself on random A×A games with exact rewards, and reports the
// largest distance of its policy to OMD's over every round beside the
// theorem's bound ε + η·A, and its duality gap beside OMD self-play's.
//
//	go run ./examples/omdnet [-scale quick|paper] [-actions 2,3,5] [-accuracies 0.01,0.001]
//	    [-schedules paper,cai] [-games 100] [-horizon 200] [-seed 1] [-out out/omdnet]
//
// Self-play of the constructed players is computed exactly with common
// random numbers: OMD self-play draws each action by inverting its policy's
// distribution function at a uniform u_t; the constructed models, fed the
// same trajectory in one batched forward pass, give their policies at every
// round; where inverting them at the same u_t gives the same actions
// throughout, their own self-play (with the same uniforms) is that
// trajectory, so the distances and gaps are theirs. Where an action
// differs, the trajectory is rebuilt from that round with the models'
// actions and forced again, until the models' actions agree with it at
// every round: it is then their own self-play (such games are counted as
// "diverged"). Every job is
// saved in -out/jobs-omdnet, and the same command rewrites the table from
// the saved jobs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/incontext/omdnet"
	"github.com/icrl-go/icrl/learner/schedule"
	"github.com/icrl-go/icrl/transformer"
)

func main() { sweep.Main("omdnet", parseFlags) }

// config is the study's configuration.
type config struct {
	actions     []int
	accuracies  []float64
	schedules   []string
	games       int
	horizon     int
	states      []int // 1: matrix games; 2 or more: Markov games
	markovGames int
	seed        uint64
	out         string
}

// version identifies what the saved jobs depend on besides their labels.
func (c config) version() string {
	return fmt.Sprintf("omdnet v1: games=%d T=%d seed=%d", c.games, c.horizon, c.seed)
}

// parseFlags reads the command line and returns the study to run.
func parseFlags(args []string) (func(context.Context) error, error) {
	fs := flag.NewFlagSet("omdnet", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: go run ./examples/omdnet [-scale quick|paper] [flags]

The transformer of in-context-games-omd Theorem 4.1, built by hand
(package learner/incontext/omdnet), in self-play on random games:
its sizes, its largest distance to OMD's policy and its duality gap.

Flags (0 or empty means the default at the chosen scale):
`)
		fs.PrintDefaults()
	}
	scale := fs.String("scale", "quick", "quick or paper")
	actions := fs.String("actions", "", "comma-separated numbers of actions A (2,3 quick; 2,3,5 paper)")
	accs := fs.String("accuracies", "", "comma-separated accuracies ε (0.01 quick; 0.01,0.001 paper)")
	scheds := fs.String("schedules", "paper,cai", "comma-separated OMD schedules: paper (schedule.Paper, the theorem's) and cai (schedule.Cai, learner.OMD's default)")
	games := fs.Int("games", 0, "random matrix games per configuration (10 quick, 100 paper)")
	states := fs.String("states", "1,2", "comma-separated numbers of states: 1 (matrix games) and S ≥ 2 (Markov games with γ = 0.9)")
	markovGames := fs.Int("markov-games", 0, "random Markov games per configuration (2 quick, 10 paper)")
	horizon := fs.Int("horizon", 0, "rounds T (50 quick, 200 paper)")
	seed := fs.Uint64("seed", 1, "base seed")
	out := fs.String("out", filepath.Join("out", "omdnet"), "output folder")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	cfg := config{games: *games, horizon: *horizon, seed: *seed, out: *out, markovGames: *markovGames}
	var defActions, defAccs string
	switch *scale {
	case "quick":
		defActions, defAccs = "2,3", "0.01"
		cfg.games, cfg.horizon, cfg.markovGames = orInt(cfg.games, 10), orInt(cfg.horizon, 50), orInt(cfg.markovGames, 2)
	case "paper":
		defActions, defAccs = "2,3,5", "0.01,0.001"
		cfg.games, cfg.horizon, cfg.markovGames = orInt(cfg.games, 100), orInt(cfg.horizon, 200), orInt(cfg.markovGames, 10)
	default:
		return nil, fmt.Errorf("-scale %q: want quick or paper", *scale)
	}
	var err error
	if cfg.actions, err = sweep.ParseInts(orString(*actions, defActions)); err != nil {
		return nil, fmt.Errorf("-actions: %w", err)
	}
	for _, f := range strings.Split(orString(*accs, defAccs), ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, fmt.Errorf("-accuracies: %w", err)
		}
		cfg.accuracies = append(cfg.accuracies, v)
	}
	for _, s := range strings.Split(*scheds, ",") {
		if _, err := scheduleNamed(s, 1); err != nil {
			return nil, err
		}
		cfg.schedules = append(cfg.schedules, s)
	}
	if cfg.states, err = sweep.ParseInts(*states); err != nil {
		return nil, fmt.Errorf("-states: %w", err)
	}
	if cfg.games < 1 || cfg.horizon < 1 || cfg.markovGames < 1 {
		return nil, errors.New("-games, -markov-games and -horizon must be positive")
	}
	return func(ctx context.Context) error { return run(ctx, cfg) }, nil
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func orString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// scheduleNamed returns the OMD schedule of a flag value for a game with
// the given states (the per-visit variants in Markov games).
func scheduleNamed(s string, states int) (schedule.Schedule, error) {
	switch s {
	case "paper":
		return schedule.Paper{Markov: states > 1}, nil
	case "cai":
		return schedule.Cai{Roots: states > 1}, nil
	}
	return nil, fmt.Errorf("-schedules: unknown schedule %q (want paper or cai)", s)
}

// result is one (S, A, ε, schedule) job.
type result struct {
	// States is 0 for matrix games.
	States   int
	Actions  int
	Accuracy float64
	Schedule string
	Sizes    omdnet.Sizes
	// Worst is the largest ‖x − x_OMD‖₂ over every round, game and player;
	// MeanTV the mean total-variation distance over rounds, games and
	// players.
	Worst, MeanTV float64
	// Bound is ε + η_max·A, the theorem's bound with the largest step size.
	Bound float64
	// GapModel and GapOMD are the duality gaps of the policies played at
	// round T in each game's self-play.
	GapModel, GapOMD []float64
	// Diverged counts the games whose constructed self-play left OMD's
	// trajectory (played again through the in-context Learner).
	Diverged int
}

// run is the study.
func run(ctx context.Context, cfg config) error {
	type job struct {
		S, A  int
		eps   float64
		sched string
	}
	var jobs []job
	for _, S := range cfg.states {
		for _, s := range cfg.schedules {
			for _, A := range cfg.actions {
				if S > 1 && A > 3 {
					continue // the Markov models grow as S·A·T
				}
				for _, e := range cfg.accuracies {
					jobs = append(jobs, job{S, A, e, s})
				}
			}
		}
	}
	label := func(i int) string {
		j := jobs[i]
		if j.S > 1 {
			return fmt.Sprintf("S = %d, A = %d, ε = %g, %s schedule, %d games", j.S, j.A, j.eps, j.sched, cfg.markovGames)
		}
		return fmt.Sprintf("A = %d, ε = %g, %s schedule", j.A, j.eps, j.sched)
	}
	return sweep.Study(ctx, filepath.Join(cfg.out, "jobs-omdnet"), cfg.version(), len(jobs), label,
		func(ctx context.Context, i int) (result, string, error) {
			j := jobs[i]
			r, err := runJob(ctx, cfg, j.S, j.A, j.eps, j.sched)
			if err != nil {
				return r, "", err
			}
			return r, fmt.Sprintf("largest distance %.3g, gap %.4f (OMD %.4f)", r.Worst, mean(r.GapModel), mean(r.GapOMD)), nil
		},
		func(rs []result) (string, error) { return writeTable(cfg, rs) })
}

// runJob builds the model of one configuration and plays the games.
func runJob(ctx context.Context, cfg config, S, A int, eps float64, sched string) (result, error) {
	s, err := scheduleNamed(sched, S)
	if err != nil {
		return result{}, err
	}
	T := cfg.horizon
	oc := omdnet.Config{OMD: learner.OMDConfig{Actions: A, Horizon: T, Schedule: s}, Accuracy: eps}
	if S > 1 {
		oc.OMD.States, oc.OMD.Discount = S, 0.9
	}
	sizes, err := oc.Sizes()
	if err != nil {
		return result{}, err
	}
	etaMax := 0.0
	for t := 1; t <= T; t++ {
		etaMax = max(etaMax, s.At(t, 1, T, A).Eta, s.At(t, t, T, A).Eta)
	}
	r := result{Actions: A, Accuracy: eps, Schedule: sched, Sizes: sizes, Bound: eps + etaMax*float64(A)}
	if S > 1 {
		r.States = S
		return runMarkov(ctx, cfg, oc, r)
	}
	stage := sweep.NewStages(ctx)
	defer stage.Done()
	stage.Next("build the model")
	model, err := omdnet.New(oc)
	if err != nil {
		return result{}, err
	}
	const batch = 10
	var d tracker
	for g0 := 0; g0 < cfg.games; g0 += batch {
		if err := ctx.Err(); err != nil {
			return result{}, err
		}
		stage.Next("OMD self-play")
		var plays []*selfPlay
		for g := g0; g < min(g0+batch, cfg.games); g++ {
			p, err := omdSelfPlay(oc, cfg.seed, A, g)
			if err != nil {
				return result{}, err
			}
			plays = append(plays, p)
		}
		stage.Next("the model's play")
		diverged, err := resolve(ctx, model, oc, plays)
		if err != nil {
			return result{}, err
		}
		r.Diverged += diverged
		stage.Next("distances and gaps")
		for _, p := range plays {
			if err := p.distances(oc, &d); err != nil {
				return result{}, err
			}
			r.GapModel = append(r.GapModel, p.g.Gap(p.model[0][T-1], p.model[1][T-1]))
			r.GapOMD = append(r.GapOMD, p.g.Gap(p.last[0], p.last[1]))
		}
	}
	r.Worst, r.MeanTV = d.worst, d.tvSum/float64(d.n)
	return r, nil
}

// selfPlay is one game's self-play with its common random numbers.
type selfPlay struct {
	g *game.ZeroSum
	// u[t] holds the uniforms of round t+1: the row's action, the column's.
	u [][2]float64
	// hist[p] is player p's own history and model[p][t] the model's policy
	// for round t+1 along it.
	hist  [2][]learner.Step
	model [2][][]float64
	// last holds OMD self-play's policies played at round T.
	last [2][]float64
}

// inverse returns the action whose cumulative probability first exceeds u.
func inverse(p []float64, u float64) int {
	c := 0.0
	for a, v := range p {
		c += v
		if u < c {
			return a
		}
	}
	return len(p) - 1
}

// omdSelfPlay plays OMD against itself on game k of the seed, with exact
// rewards.
func omdSelfPlay(oc omdnet.Config, seed uint64, A, k int) (*selfPlay, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(k)))
	g, err := game.RandomUniform(A, A, rng)
	if err != nil {
		return nil, err
	}
	T := oc.OMD.Horizon
	p := &selfPlay{g: g, u: make([][2]float64, T)}
	var ls [2]*learner.OMD
	for i := range ls {
		if ls[i], err = learner.NewOMD(oc.OMD); err != nil {
			return nil, err
		}
	}
	for t := range T {
		p.u[t] = [2]float64{rng.Float64(), rng.Float64()}
		var acts [2]int
		for i, l := range ls {
			pol := l.Policy(0)
			if t == T-1 {
				p.last[i] = append([]float64(nil), pol...)
			}
			acts[i] = inverse(pol, p.u[t][i])
		}
		r := g.At(acts[0], acts[1])
		for i, l := range ls {
			ri := r
			if i == 1 {
				ri = 1 - r
			}
			if err := l.Observe(0, acts[i], ri, 0); err != nil {
				return nil, err
			}
			p.hist[i] = append(p.hist[i], learner.Step{Action: acts[i], Reward: ri})
		}
	}
	return p, nil
}

// forward encodes each history followed by its next state with the
// model's encoder (incontext.Encode), runs one batched forward pass and
// returns, per history, the model's policy for every round after it
// (len(history)+1 of them).
func forward(model *transformer.Model[float64], enc incontext.GameEncoder, hists [][]learner.Step, next []int) ([][][]float64, error) {
	seqs := make([]transformer.Sequence[float64], len(hists))
	predict := make([][]int, len(hists))
	for k, h := range hists {
		_, f, pos, err := incontext.Encode(enc, incontext.RoundsOf(h), next[k])
		if err != nil {
			return nil, err
		}
		seqs[k], predict[k] = transformer.Sequence[float64]{Features: f}, pos
	}
	out, err := model.Forward(seqs)
	if err != nil {
		return nil, err
	}
	A := enc.Actions
	pols := make([][][]float64, len(hists))
	for k, pos := range predict {
		for _, i := range pos {
			pols[k] = append(pols[k], simplex.Softmax(nil, out[k][i*A:(i+1)*A]))
		}
	}
	return pols, nil
}

// teacherForce sets every play's model policies along its histories (the
// policies of rounds 1 … T: the history without its last round), in one
// batched forward pass.
func teacherForce(model *transformer.Model[float64], oc omdnet.Config, plays []*selfPlay) error {
	var hists [][]learner.Step
	for _, p := range plays {
		for i := range 2 {
			hists = append(hists, p.hist[i][:len(p.hist[i])-1])
		}
	}
	pols, err := forward(model, oc.Encoder(), hists, make([]int, len(hists)))
	if err != nil {
		return err
	}
	for k, p := range plays {
		p.model[0], p.model[1] = pols[2*k], pols[2*k+1]
	}
	return nil
}

// tracker accumulates the distances of the model's policies to OMD's: the
// largest ‖x − x_OMD‖₂ and the sum and count of the total-variation
// distances.
type tracker struct {
	worst, tvSum float64
	n            int
}

// add records one round's policies.
func (d *tracker) add(x, want []float64) {
	l2 := 0.0
	for a := range x {
		l2 += (x[a] - want[a]) * (x[a] - want[a])
	}
	d.worst = max(d.worst, math.Sqrt(l2))
	d.tvSum += simplex.TotalVariation(x, want)
	d.n++
}

// resolve turns the plays' OMD trajectories into the constructed players'
// own self-play with the same uniforms: it teacher-forces the models on the
// trajectories and, while some model action differs from a trajectory's,
// rebuilds that trajectory from its first differing round (rebuild) and
// forces again. The prefix that agrees grows with every pass, so it ends
// after at most T passes, in practice one or two. It returns the number of
// plays that left OMD's trajectory.
func resolve(ctx context.Context, model *transformer.Model[float64], oc omdnet.Config, plays []*selfPlay) (int, error) {
	left := map[*selfPlay]bool{}
	open := plays
	for len(open) > 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := teacherForce(model, oc, open); err != nil {
			return 0, err
		}
		var next []*selfPlay
		for _, p := range open {
			if t := p.firstMismatch(); t >= 0 {
				left[p] = true
				if err := p.rebuild(oc, t); err != nil {
					return 0, err
				}
				next = append(next, p)
			}
		}
		open = next
	}
	return len(left), nil
}

// firstMismatch returns the first round (0-based) at which inverting a
// model policy at its uniform gives another action than the trajectory's,
// or −1.
func (p *selfPlay) firstMismatch() int {
	first := -1
	for i := range 2 {
		for t, pol := range p.model[i] {
			if inverse(pol, p.u[t][i]) != p.hist[i][t].Action {
				if first < 0 || t < first {
					first = t
				}
				break
			}
		}
	}
	return first
}

// rebuild keeps the rounds before round t (0-based), plays round t with
// the model's actions at the common uniforms and the rounds after it with
// OMD's, so that the trajectory agrees with the constructed players' own
// self-play at least up to round t.
func (p *selfPlay) rebuild(oc omdnet.Config, t int) error {
	var ls [2]*learner.OMD
	for i := range ls {
		l, err := learner.NewOMD(oc.OMD)
		if err != nil {
			return err
		}
		for _, st := range p.hist[i][:t] {
			if err := l.Observe(0, st.Action, st.Reward, 0); err != nil {
				return err
			}
		}
		ls[i] = l
		p.hist[i] = p.hist[i][:t]
	}
	for k := t; k < len(p.u); k++ {
		var acts [2]int
		for i, l := range ls {
			pol := l.Policy(0)
			if k == t {
				pol = p.model[i][k]
			}
			acts[i] = inverse(pol, p.u[k][i])
		}
		r := p.g.At(acts[0], acts[1])
		for i, l := range ls {
			ri := r
			if i == 1 {
				ri = 1 - r
			}
			if err := l.Observe(0, acts[i], ri, 0); err != nil {
				return err
			}
			p.hist[i] = append(p.hist[i], learner.Step{Action: acts[i], Reward: ri})
		}
	}
	return nil
}

// distances adds the distances of the model's policies to OMD's along
// the play's trajectory to d, with OMD's replayed from each player's
// history by OMD.Distribution.
func (p *selfPlay) distances(oc omdnet.Config, d *tracker) error {
	ref, err := learner.NewOMD(oc.OMD)
	if err != nil {
		return err
	}
	for i := range 2 {
		for t, x := range p.model[i] {
			want, err := ref.Distribution(nil, p.hist[i][:t], 0)
			if err != nil {
				return err
			}
			d.add(x, want)
		}
	}
	return nil
}

// mean returns the mean of v.
func mean(v []float64) float64 {
	m, _ := sweep.MeanStd(v, func(x float64) float64 { return x })
	return m
}
