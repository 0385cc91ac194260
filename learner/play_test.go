package learner_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/icrl-go/icrl/internal/tables"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/markov"
)

// jordan is a caller's 3-player general-sum game written as one plain
// struct that is both the simulator (game.Multiplayer) and the model
// (markov.GeneralSumModel): Jordan's (1993) three-player matching
// pennies, with payoffs in [0, 1]. Player 0 scores when it matches player
// 1, player 1 when it matches player 2, player 2 when it differs from
// player 0; each player also earns 0.25·bonus[i] for its action 1. Its only
// Nash equilibrium is mixed, and no-regret play cycles around it; the
// empirical joint play approaches the coarse correlated equilibria.
type jordan struct{ bonus [3]float64 }

func (jordan) Players() int                  { return 3 }
func (jordan) States() int                   { return 1 }
func (jordan) Actions(game.Player) int       { return 2 }
func (jordan) Start(*rand.Rand) int          { return 0 }
func (jordan) Discount() float64             { return 0 }
func (jordan) Initial() []float64            { return []float64{1} }
func (jordan) Transition(int, int) []float64 { return []float64{1} }

// Reward returns player p's reward for the joint action j = 4a₀ + 2a₁ + a₂.
func (g jordan) Reward(_, j int, p game.Player) float64 {
	a := [3]int{j >> 2, j >> 1 & 1, j & 1}
	var hit bool
	switch p {
	case 0:
		hit = a[0] == a[1]
	case 1:
		hit = a[1] == a[2]
	case 2:
		hit = a[2] != a[0]
	}
	r := 0.25 * float64(a[p]) * g.bonus[p]
	if hit {
		r += 0.75
	}
	return r
}

func (g jordan) Play(_ int, a []int, r []float64, _ *rand.Rand) int {
	j := 4*a[0] + 2*a[1] + a[2]
	for i := range r {
		r[i] = g.Reward(0, j, game.Player(i))
	}
	return 0
}

var (
	_ game.Multiplayer       = jordan{}
	_ markov.GeneralSumModel = jordan{}
)

// bruteCCEGap is the CCE-gap of a distribution sigma over the joint actions
// of a one-state, discount-0 game, by enumerating every player's every
// deviation: max_i max_a Σ_j σ(j) (r_i(a, j₋ᵢ) − r_i(j)).
func bruteCCEGap(g markov.GeneralSumModel, sigma []float64) float64 {
	n := g.Players()
	acts := make([]int, n)
	stride := make([]int, n)
	st := 1
	for i := n - 1; i >= 0; i-- {
		acts[i] = g.Actions(game.Player(i))
		stride[i] = st
		st *= acts[i]
	}
	gap := 0.0
	for i := range n {
		for a := range acts[i] {
			var d float64
			for j, w := range sigma {
				dev := j + (a-j/stride[i]%acts[i])*stride[i]
				d += w * (g.Reward(0, dev, game.Player(i)) - g.Reward(0, j, game.Player(i)))
			}
			gap = math.Max(gap, d)
		}
	}
	return gap
}

// newFull returns three full-information learners of a kind.
func threeLearners(t *testing.T, kind string) []learner.Learner {
	t.Helper()
	out := make([]learner.Learner, 3)
	for i := range out {
		var l learner.Learner
		var err error
		switch kind {
		case "regret matching":
			l, err = learner.NewRegretMatching(learner.RegretMatchingConfig{Actions: 2})
		case "MWU":
			l, err = learner.NewMWU(learner.MWUConfig{Actions: 2})
		case "Exp3-IX":
			l, err = learner.NewExp3IX(learner.Exp3IXConfig{Actions: 2, Horizon: 20000})
		case "OMD":
			l, err = learner.NewOMD(learner.OMDConfig{Actions: 2})
		}
		if err != nil {
			t.Fatal(err)
		}
		out[i] = l
	}
	return out
}

// TestPlayThreePlayerCCE: no-regret dynamics through the engine in a
// 3-player general-sum game of the caller's own: the empirical joint play
// of regret matching and MWU under full information approaches the CCE
// set, and the engine's CCE-gap agrees with a brute-force count over every
// deviation.
func TestPlayThreePlayerCCE(t *testing.T) {
	g := jordan{bonus: [3]float64{0.2, 0.5, 1}}
	rounds := 100000
	if testing.Short() {
		rounds = 20000
	}
	for _, kind := range []string{"regret matching", "MWU"} {
		res, err := play.Run(context.Background(), g, threeLearners(t, kind),
			play.Config{Rounds: rounds, Feedback: play.FullInformation, Checkpoints: []int{100}}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		brute := bruteCCEGap(g, res.Empirical[0])
		if math.Abs(res.CCEGap-brute) > 1e-12 {
			t.Errorf("%s: engine's CCE-gap %v, brute force %v", kind, res.CCEGap, brute)
		}
		if !(res.CCEGap < 0.005) {
			t.Errorf("%s: CCE-gap of the empirical play after %d rounds %v, want < 0.005", kind, rounds, res.CCEGap)
		}
		if !(res.Checkpoints[0].CCEGap > res.CCEGap) {
			t.Errorf("%s: CCE-gap %v at round 100, %v at %d: not falling", kind, res.Checkpoints[0].CCEGap, res.CCEGap, rounds)
		}
		// The game's only equilibrium is mixed; the last iterate of
		// these dynamics is not at it.
		if !(res.NEGap > 0.1) {
			t.Errorf("%s: NE-gap of the last iterate %v, want the cycling last iterate's (> 0.1)", kind, res.NEGap)
		}
		var sum float64
		for _, r := range res.Rewards {
			sum += r
		}
		if len(res.Rewards) != 3 || !(sum > 0 && sum < 3) {
			t.Errorf("%s: mean rewards %v", kind, res.Rewards)
		}
	}
}

// TestPlayBanditLearners: every bandit learner of the package plays the
// 3-player game through the engine, and the gaps it reports are the
// brute-force ones.
func TestPlayBanditLearners(t *testing.T) {
	g := jordan{bonus: [3]float64{0.2, 0.5, 1}}
	for _, kind := range []string{"regret matching", "MWU", "Exp3-IX", "OMD"} {
		res, err := play.Run(context.Background(), g, threeLearners(t, kind), play.Config{Rounds: 2000, Record: true}, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if brute := bruteCCEGap(g, res.Empirical[0]); math.Abs(res.CCEGap-brute) > 1e-12 {
			t.Errorf("%s: engine's CCE-gap %v, brute force %v", kind, res.CCEGap, brute)
		}
		for i, h := range res.Histories {
			if len(h) != 2000 {
				t.Fatalf("%s: player %d's history has %d rounds", kind, i, len(h))
			}
			var total float64
			for _, st := range h {
				total += st.Reward
			}
			if math.Abs(total/2000-res.Rewards[i]) > 1e-12 {
				t.Errorf("%s: player %d's mean reward %v, its history's %v", kind, i, res.Rewards[i], total/2000)
			}
		}
	}
}

// TestDiscountedGeneralSumCCEGap: the CCE-gap of a product policy is its
// NE-gap, in a 3-player Markov game with two states; in a one-state game
// with γ = 0 it is the brute-force count.
func TestDiscountedGeneralSumCCEGap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	actions := []int{2, 3, 2}
	const S, J, N = 2, 12, 3
	g, rewards := randomGeneralSum(t, actions, S, 0.7, rng)
	pi := make([]markov.Stationary, N)
	for i := range pi {
		pi[i] = make(markov.Stationary, S)
		for s := range S {
			w := make([]float64, actions[i])
			for a := range w {
				w[a] = 0.1 + rng.Float64()
			}
			pi[i][s] = normalised(w)
		}
	}
	sigma := make(markov.Stationary, S)
	split := make([]int, N)
	for s := range S {
		sigma[s] = make([]float64, J)
		for j := range J {
			g.Split(j, split)
			sigma[s][j] = pi[0][s][split[0]] * pi[1][s][split[1]] * pi[2][s][split[2]]
		}
	}
	ne, nePer, err := g.NEGap(pi)
	if err != nil {
		t.Fatal(err)
	}
	cce, ccePer, err := g.CCEGap(sigma)
	if err != nil {
		t.Fatal(err)
	}
	if !(ne > 0.01) || math.Abs(ne-cce) > 1e-9 {
		t.Errorf("product policy: NE-gap %v, CCE-gap %v", ne, cce)
	}
	for i := range N {
		if math.Abs(nePer[i]-ccePer[i]) > 1e-9 {
			t.Errorf("player %d: NE term %v, CCE term %v", i, nePer[i], ccePer[i])
		}
	}
	// One state, γ = 0: a normal-form game.
	one, err := tables.GeneralSum(actions, rewards[:1], [][][]float64{onesColumn(J)}, 0, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	corr := make([]float64, J)
	for j := range corr {
		corr[j] = rng.Float64()
	}
	corr = normalised(corr)
	got, _, err := markov.CCEGap(one, markov.Stationary{corr})
	if err != nil {
		t.Fatal(err)
	}
	if want := bruteCCEGap(one, corr); !(want > 0.01) || math.Abs(got-want) > 1e-12 {
		t.Errorf("one-state CCE-gap %v, brute force %v", got, want)
	}
	if _, _, err := g.CCEGap(markov.Stationary{corr}); !errors.Is(err, icrl.ErrShape) && !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("CCE-gap of a one-state policy in a two-state game: %v", err)
	}
}

// randomGeneralSum returns a general-sum Markov game with rewards uniform
// in [0, 1], random transitions, discount gamma and initial distribution
// (0.4, 0.6) (S = 2) or (1) (S = 1), and its reward table.
func randomGeneralSum(t *testing.T, actions []int, S int, gamma float64, rng *rand.Rand) (*markov.DiscountedGeneralSum, [][][]float64) {
	t.Helper()
	J := 1
	for _, a := range actions {
		J *= a
	}
	rewards := make([][][]float64, S)
	trans := make([][][]float64, S)
	for s := range S {
		rewards[s] = make([][]float64, J)
		trans[s] = make([][]float64, J)
		for j := range J {
			rewards[s][j] = make([]float64, len(actions))
			for i := range rewards[s][j] {
				rewards[s][j][i] = rng.Float64()
			}
			w := make([]float64, S)
			for k := range w {
				w[k] = rng.Float64()
			}
			trans[s][j] = normalised(w)
		}
	}
	rho := []float64{1}
	if S == 2 {
		rho = []float64{0.4, 0.6}
	}
	g, err := tables.GeneralSum(actions, rewards, trans, gamma, rho)
	if err != nil {
		t.Fatal(err)
	}
	return g, rewards
}

func normalised(w []float64) []float64 {
	var sum float64
	for _, v := range w {
		sum += v
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

func onesColumn(J int) [][]float64 {
	out := make([][]float64, J)
	for j := range out {
		out[j] = []float64{1}
	}
	return out
}

// TestPlayZeroSumIsSelfPlay: a two-player zero-sum game played through
// the engine and its zero-sum view gives SelfPlay's rounds and rewards.
func TestPlayZeroSumIsSelfPlay(t *testing.T) {
	mk := func() (learner.Learner, learner.Learner) {
		row, err := learner.NewOMD(learner.OMDConfig{Actions: 3})
		if err != nil {
			t.Fatal(err)
		}
		col, err := learner.NewExp3IX(learner.Exp3IXConfig{Actions: 2, Horizon: 500})
		if err != nil {
			t.Fatal(err)
		}
		return row, col
	}
	row, col := mk()
	sp, err := play.SelfPlay(context.Background(), game32, row, col, play.SelfPlayConfig{Rounds: 500, Record: true}, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	row, col = mk()
	pr, err := play.Run(context.Background(), game.AsMultiplayer(game32), []learner.Learner{row, col}, play.Config{Rounds: 500, Record: true}, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sp.Row, pr.Histories[0]) || !reflect.DeepEqual(sp.Col, pr.Histories[1]) {
		t.Error("the engine's histories differ from self-play's")
	}
	if pr.Rewards[0] != sp.RowReward || math.Abs(pr.Rewards[0]+pr.Rewards[1]-1) > 1e-12 {
		t.Errorf("engine rewards %v, self-play's row reward %v", pr.Rewards, sp.RowReward)
	}
	if !math.IsNaN(pr.NEGap) || !math.IsNaN(pr.CCEGap) || pr.Empirical != nil {
		t.Errorf("a game without a markov model has gaps %v, %v", pr.NEGap, pr.CCEGap)
	}
	for k, x := range sp.AverageX {
		if math.Abs(x-pr.Average[0][k]) > 1e-12 {
			t.Errorf("average row policy %v, engine's %v", sp.AverageX, pr.Average[0])
		}
	}
}

// profileLearner records what ObserveProfile is fed.
type profileLearner struct {
	fixedPolicy
	self    []game.Player
	profile [][]int
}

func (p *profileLearner) ObserveProfile(s int, self game.Player, actions []int, reward float64, next int) error {
	p.self = append(p.self, self)
	p.profile = append(p.profile, slices.Clone(actions))
	return p.Observe(s, actions[self], reward, next)
}

// playLog is a RoundRecorder that keeps the rounds.
type playLog struct{ rounds []play.Round }

func (l *playLog) RecordRound(t int, r play.Round) error {
	if t != len(l.rounds)+1 {
		return errFixed
	}
	l.rounds = append(l.rounds, play.Round{State: r.State, Actions: slices.Clone(r.Actions), Rewards: slices.Clone(r.Rewards), Next: r.Next})
	return nil
}

// TestPlayObservations: under JointActions a ProfileLearner sees every
// player's action, the others their own; the recorder sees each round
// before the learners.
func TestPlayObservations(t *testing.T) {
	g := jordan{bonus: [3]float64{0, 0, 1}}
	p0 := &profileLearner{fixedPolicy: fixedPolicy{p: []float64{0.5, 0.5}}}
	p1 := &fixedPolicy{p: []float64{0.25, 0.75}}
	p2 := &profileLearner{fixedPolicy: fixedPolicy{p: []float64{1, 0}}}
	log := &playLog{}
	for _, obs := range []learner.Observation{learner.JointActions, learner.Decentralized} {
		p0.profile, p2.profile = nil, nil
		log.rounds = nil
		if _, err := play.Run(context.Background(), g, []learner.Learner{p0, p1, p2}, play.Config{Rounds: 50, Observation: obs, Recorder: log}, rand.New(rand.NewPCG(1, 1))); err != nil {
			t.Fatal(err)
		}
		if len(log.rounds) != 50 {
			t.Fatalf("recorder saw %d rounds", len(log.rounds))
		}
		if obs == learner.Decentralized {
			if p0.profile != nil || p2.profile != nil {
				t.Error("decentralized play fed profiles")
			}
			continue
		}
		for k, r := range log.rounds {
			if !slices.Equal(p0.profile[k], r.Actions) || !slices.Equal(p2.profile[k], r.Actions) || p0.self[k] != 0 || p2.self[k] != 2 {
				t.Fatalf("round %d: profiles %v, %v (self %v, %v), the round's actions %v", k+1, p0.profile[k], p2.profile[k], p0.self[k], p2.self[k], r.Actions)
			}
			if r.Actions[2] != 0 || r.Rewards[2] != g.Reward(0, 4*r.Actions[0]+2*r.Actions[1], 2) {
				t.Fatalf("round %d: %+v", k+1, r)
			}
		}
	}
}

// TestPlayMarkov: OMD learners in a 3-player general-sum Markov game with two states,
// the table itself as simulator and model: the start state is drawn from
// ρ, the visits add up and the gaps are the table's.
func TestPlayMarkov(t *testing.T) {
	g, _ := randomGeneralSum(t, []int{2, 2, 3}, 2, 0.6, rand.New(rand.NewPCG(9, 9)))
	players := make([]learner.Learner, 3)
	var err error
	for i := range players {
		if players[i], err = learner.NewOMD(learner.OMDConfig{States: 2, Actions: g.Actions(game.Player(i)), Discount: 0.6}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := play.Run(context.Background(), g, players, play.Config{Rounds: 3000, Checkpoints: []int{10}}, rand.New(rand.NewPCG(1, 3)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Visits[0]+res.Visits[1] != 3000 || res.Average != nil {
		t.Errorf("visits %v, average %v", res.Visits, res.Average)
	}
	ne, _, err := g.NEGap(res.Last)
	if err != nil || ne != res.NEGap {
		t.Errorf("NE-gap %v, the table's %v (%v)", res.NEGap, ne, err)
	}
	cce, _, err := g.CCEGap(res.Empirical)
	if err != nil || cce != res.CCEGap {
		t.Errorf("CCE-gap %v, the table's %v (%v)", res.CCEGap, cce, err)
	}
	if !(ne > 0 && cce > 0 && ne < 10 && cce < 10) {
		t.Errorf("gaps %v, %v", ne, cce)
	}
	// A wrong discount is refused.
	players[1], _ = learner.NewOMD(learner.OMDConfig{States: 2, Actions: 2, Discount: 0.5})
	if _, err := play.Run(context.Background(), g, players, play.Config{Rounds: 10}, rand.New(rand.NewPCG(1, 3))); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("a learner with another discount: %v", err)
	}
}

// badGame is jordan with a reward outside [0, 1].
type badGame struct{ jordan }

func (badGame) Reward(int, int, game.Player) float64 { return 2 }

// TestPlayRejects: every bad argument gives an error wrapping the right
// sentinel.
func TestPlayRejects(t *testing.T) {
	g := jordan{}
	good := func() []learner.Learner { return threeLearners(t, "MWU") }
	rng := rand.New(rand.NewPCG(1, 1))
	var typedNil *learner.MWU
	omd2, _ := learner.NewOMD(learner.OMDConfig{States: 2, Actions: 2})
	mwu3, _ := learner.NewMWU(learner.MWUConfig{Actions: 3})
	exp3, _ := learner.NewExp3IX(learner.Exp3IXConfig{Actions: 2, Horizon: 10})
	for _, c := range []struct {
		name    string
		ctx     context.Context
		g       game.Multiplayer
		players []learner.Learner
		cfg     play.Config
		rng     *rand.Rand
		want    error
	}{
		{"nil context", nil, g, good(), play.Config{Rounds: 1}, rng, icrl.ErrNil},
		{"nil game", context.Background(), nil, good(), play.Config{Rounds: 1}, rng, icrl.ErrNil},
		{"typed nil game", context.Background(), (*markov.DiscountedGeneralSum)(nil), good(), play.Config{Rounds: 1}, rng, icrl.ErrNil},
		{"nil source", context.Background(), g, good(), play.Config{Rounds: 1}, nil, icrl.ErrNil},
		{"two learners", context.Background(), g, good()[:2], play.Config{Rounds: 1}, rng, icrl.ErrShape},
		{"typed nil learner", context.Background(), g, []learner.Learner{good()[0], typedNil, good()[0]}, play.Config{Rounds: 1}, rng, icrl.ErrNil},
		{"no rounds", context.Background(), g, good(), play.Config{}, rng, icrl.ErrInvalid},
		{"checkpoint past the end", context.Background(), g, good(), play.Config{Rounds: 5, Checkpoints: []int{6}}, rng, icrl.ErrInvalid},
		{"checkpoints out of order", context.Background(), g, good(), play.Config{Rounds: 5, Checkpoints: []int{3, 2}}, rng, icrl.ErrInvalid},
		{"unknown observation", context.Background(), g, good(), play.Config{Rounds: 5, Observation: 7}, rng, icrl.ErrInvalid},
		{"unknown feedback", context.Background(), g, good(), play.Config{Rounds: 5, Feedback: 7}, rng, icrl.ErrInvalid},
		{"joint actions under full information", context.Background(), g, good(), play.Config{Rounds: 5, Feedback: play.FullInformation, Observation: learner.JointActions}, rng, icrl.ErrInvalid},
		{"learner with two states", context.Background(), g, []learner.Learner{omd2, good()[0], good()[0]}, play.Config{Rounds: 1}, rng, icrl.ErrShape},
		{"learner with three actions", context.Background(), g, []learner.Learner{good()[0], mwu3, good()[0]}, play.Config{Rounds: 1}, rng, icrl.ErrShape},
		{"full information to a bandit learner", context.Background(), g, []learner.Learner{good()[0], exp3, good()[0]}, play.Config{Rounds: 1, Feedback: play.FullInformation}, rng, icrl.ErrInvalid},
		{"full information without a model", context.Background(), game.AsMultiplayer(game32), []learner.Learner{mwu3, good()[0]}, play.Config{Rounds: 1, Feedback: play.FullInformation}, rng, icrl.ErrInvalid},
		{"rewards outside [0, 1]", context.Background(), badGame{}, good(), play.Config{Rounds: 1}, rng, icrl.ErrOutOfRange},
	} {
		res, err := play.Run(c.ctx, c.g, c.players, c.cfg, c.rng)
		if !errors.Is(err, c.want) || res != nil {
			t.Errorf("%s: result %v, error %v, want %v", c.name, res, err, c.want)
		}
	}
}

// TestPlayCancel: a cancelled context stops play with the rounds so far.
func TestPlayCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := play.Run(ctx, jordan{}, threeLearners(t, "MWU"), play.Config{Rounds: 1000, Checkpoints: []int{10}}, rand.New(rand.NewPCG(1, 1)))
	if !errors.Is(err, context.Canceled) || res == nil || len(res.Checkpoints) != 1 || res.Visits[0] != 63 {
		t.Fatalf("cancelled play: %v, %v", res, err)
	}
}
