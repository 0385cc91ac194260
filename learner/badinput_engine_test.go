package learner_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/markov"
)

// fakeGame is a configurable N-player game for bad-input tries: a
// simulator, and a model when model is set.
type fakeGame struct {
	players, states, actions int
	start, next              int
	reward                   float64
	trans                    []float64
}

func (g fakeGame) Players() int            { return g.players }
func (g fakeGame) States() int             { return g.states }
func (g fakeGame) Actions(game.Player) int { return g.actions }
func (g fakeGame) Start(*rand.Rand) int    { return g.start }
func (g fakeGame) Play(_ int, _ []int, r []float64, _ *rand.Rand) int {
	for i := range r {
		r[i] = g.reward
	}
	return g.next
}

// fakeModel is fakeGame with a model's methods.
type fakeModel struct{ fakeGame }

func (fakeModel) Discount() float64                      { return 0 }
func (m fakeModel) Initial() []float64                   { p := make([]float64, m.states); p[0] = 1; return p }
func (m fakeModel) Reward(int, int, game.Player) float64 { return m.reward }
func (m fakeModel) Transition(int, int) []float64        { return m.trans }

// failingRecorder rejects the third round.
type failingRecorder struct{}

func (failingRecorder) RecordRound(t int, _ play.Round) error {
	if t == 3 {
		return errFixed
	}
	return nil
}

// TestEngineBadInput: fresh bad inputs to the rollout engine, the models
// and the warm starts give errors wrapping the right sentinel, never a
// panic or a silent success.
func TestEngineBadInput(t *testing.T) {
	ok := fakeGame{players: 2, states: 1, actions: 2, reward: 0.5}
	mwu := func(k int) learner.Learner { l, _ := learner.NewMWU(learner.MWUConfig{Actions: k}); return l }
	two := func() []learner.Learner { return []learner.Learner{mwu(2), mwu(2)} }
	nanAt3 := &fixedPolicy{p: []float64{0.5, 0.5}, nanAt: 3}
	rejectAt2 := &fixedPolicy{p: []float64{0.5, 0.5}, reject: 2}
	with := func(f func(*fakeGame)) fakeGame { g := ok; f(&g); return g }
	for _, c := range []struct {
		name    string
		g       game.Multiplayer
		players []learner.Learner
		cfg     play.Config
		want    error
	}{
		{"start state −1", with(func(g *fakeGame) { g.start = -1 }), two(), play.Config{Rounds: 5}, icrl.ErrOutOfRange},
		{"next state past the states", with(func(g *fakeGame) { g.next = 1 }), two(), play.Config{Rounds: 5}, icrl.ErrOutOfRange},
		{"no player", with(func(g *fakeGame) { g.players = 0 }), nil, play.Config{Rounds: 5}, icrl.ErrInvalid},
		{"too many players", with(func(g *fakeGame) { g.players = play.MaxPlayers + 1 }), nil, play.Config{Rounds: 5}, icrl.ErrInvalid},
		{"no action", with(func(g *fakeGame) { g.actions = 0 }), two(), play.Config{Rounds: 5}, icrl.ErrInvalid},
		{"no state", with(func(g *fakeGame) { g.states = 0 }), two(), play.Config{Rounds: 5}, icrl.ErrInvalid},
		{"reward above 1", with(func(g *fakeGame) { g.reward = 1.5 }), two(), play.Config{Rounds: 5}, icrl.ErrOutOfRange},
		{"NaN reward", with(func(g *fakeGame) { g.reward = math.NaN() }), two(), play.Config{Rounds: 5}, icrl.ErrNotFinite},
		{"a policy turning NaN", ok, []learner.Learner{nanAt3, mwu(2)}, play.Config{Rounds: 5}, icrl.ErrNotFinite},
		{"a learner rejecting a round", ok, []learner.Learner{rejectAt2, mwu(2)}, play.Config{Rounds: 5}, errFixed},
		{"a failing recorder", ok, two(), play.Config{Rounds: 5, Recorder: failingRecorder{}}, errFixed},
		{"a model's short transition", fakeModel{with(func(g *fakeGame) { g.trans = []float64{} })}, two(), play.Config{Rounds: 5}, icrl.ErrShape},
		{"a model's NaN reward", fakeModel{with(func(g *fakeGame) { g.reward = math.NaN(); g.trans = []float64{1} })}, two(), play.Config{Rounds: 5}, icrl.ErrNotFinite},
		{"a model's transition not summing to 1", fakeModel{with(func(g *fakeGame) { g.trans = []float64{0.5} })}, two(), play.Config{Rounds: 5}, markov.ErrKernel},
		{"one-state learners in a two-state game", fakeModel{with(func(g *fakeGame) { g.states = 2; g.trans = []float64{1, 0} })}, []learner.Learner{mwu(2), mwu(2)}, play.Config{Rounds: 5, Feedback: play.FullInformation}, icrl.ErrShape},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", c.name, r)
				}
			}()
			res, err := play.Run(context.Background(), c.g, c.players, c.cfg, rand.New(rand.NewPCG(1, 1)))
			if !errors.Is(err, c.want) || res != nil {
				t.Errorf("%s: result %v, error %v, want %v", c.name, res, err, c.want)
			}
		}()
	}
	if game.AsMultiplayer(nil) != nil || game.AsMultiplayer((*game.ZeroSum)(nil)) != nil || game.AsMultiplayerNoise(nil, game.UniformNoise{}) != nil {
		t.Error("the zero-sum view of a nil game is not nil")
	}
	if s := game.Player(5).String(); s != "Player(5)" {
		t.Errorf("Player(5) prints %q", s)
	}
	m, _ := learner.NewMWU(learner.MWUConfig{Actions: 2})
	if err := m.WarmStart([][]float64{{-0.5, 1.5}}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("MWU warm start off the simplex: %v", err)
	}
}
