package incontext_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/transformer"
)

// jointMarkovRounds is a two-state history with the opponent's actions.
var jointMarkovRounds = []incontext.Round[int]{
	{Obs: 1, Action: 0, Opponent: 2, Reward: 0.3},
	{Obs: 0, Action: 1, Opponent: 0, Reward: 0.75},
}

func TestEncodeJointTokens(t *testing.T) {
	enc := incontext.GameEncoder{States: 2, Actions: 2, Opponents: 3, RewardBins: 4}
	// BOS 0, states 1..2, actions 3..4, opponent's actions 5..7, bins 8..11.
	if enc.Vocab() != 12 || enc.PerRound() != 4 || enc.Positions(2) != 10 {
		t.Fatalf("Vocab %d, PerRound %d, Positions(2) %d; want 12, 4, 10", enc.Vocab(), enc.PerRound(), enc.Positions(2))
	}
	tokens, _, predict, err := incontext.Encode[int](enc, jointMarkovRounds, 1)
	if err != nil {
		t.Fatal(err)
	}
	// BOS, s=1, a=0, b=2, bin(0.3)=1, s=0, a=1, b=0, bin(0.75)=3, query s=1.
	wantTok := []int{0, 2, 3, 7, 9, 1, 4, 5, 11, 2}
	wantPred := []int{1, 5, 9}
	if !slices.Equal(tokens, wantTok) || !slices.Equal(predict, wantPred) {
		t.Errorf("Encode = %v, %v; want %v, %v", tokens, predict, wantTok, wantPred)
	}
	// The decentralized encoder ignores the opponent's actions.
	dec := enc
	dec.Opponents = 0
	tokens, _, _, err = incontext.Encode[int](dec, jointMarkovRounds, 1)
	if err != nil || !slices.Equal(tokens, []int{0, 2, 3, 6, 1, 4, 8, 2}) {
		t.Errorf("decentralized Encode = %v, %v; want [0 2 3 6 1 4 8 2]", tokens, err)
	}
}

func TestEncodeJointFeatures(t *testing.T) {
	enc := incontext.GameEncoder{States: 1, Actions: 2, Opponents: 3, Features: true}
	// Width 7: [BOS, a0, a1, b0, b1, b2, r].
	rounds := []incontext.Round[int]{{Action: 1, Opponent: 2, Reward: 0.4}, {Action: 0, Opponent: 0, Reward: 1}}
	_, features, predict, err := incontext.Encode[int](enc, rounds, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{
		1, 0, 0, 0, 0, 0, 0, // BOS
		0, 0, 1, 0, 0, 1, 0.4, // (a=1, b=2, r=0.4)
		0, 1, 0, 1, 0, 0, 1, // (a=0, b=0, r=1)
	}
	if enc.Width() != 7 || !slices.Equal(features, want) || !slices.Equal(predict, []int{0, 1, 2}) {
		t.Errorf("Encode = %v, %v; want %v, [0 1 2]", features, predict, want)
	}
	for _, c := range []struct {
		r    incontext.Round[int]
		want string
	}{{incontext.Round[int]{Opponent: 3}, "opponent's action 3"}, {incontext.Round[int]{Opponent: -1}, "opponent's action -1"}} {
		if _, _, _, err := incontext.Encode[int](enc, []incontext.Round[int]{c.r}, 0); !errors.Is(err, incontext.ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Encode(%+v) = %v, want ErrInput naming %q", c.r, err, c.want)
		}
	}
	if err := (incontext.GameEncoder{States: 1, Actions: 2, Opponents: -1}).Validate(); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("Opponents = -1: %v, want ErrInvalid", err)
	}
}

func TestEncodeJointCells(t *testing.T) {
	enc := incontext.GameEncoder{States: 2, Actions: 2, Opponents: 3, Features: true, Cells: true}
	// W₀ = S'+A+B+2 = 9: [BOS, s0, s1, a0, a1, b0, b1, b2, r]; C = 2·2·3 = 12
	// cells c = (s·2 + a)·3 + b, then the reward in the cell: Width 33.
	if enc.Width() != 33 {
		t.Fatalf("Width = %d, want 33", enc.Width())
	}
	_, features, _, err := incontext.Encode[int](enc, jointMarkovRounds, 1)
	if err != nil {
		t.Fatal(err)
	}
	W := enc.Width()
	// Positions: BOS, s=1, (s=1, a=0, b=2, r=0.3), s=0, (s=0, a=1, b=0, r=0.75), query s=1.
	for _, c := range []struct {
		pos, cell int
		r         float64
	}{{2, (1*2+0)*3 + 2, 0.3}, {4, (0*2+1)*3 + 0, 0.75}} {
		x := features[c.pos*W : (c.pos+1)*W]
		for k := range 12 {
			one, rew := 0.0, 0.0
			if k == c.cell {
				one, rew = 1, c.r
			}
			if x[9+k] != one || x[9+12+k] != rew {
				t.Errorf("position %d, cell %d: %v, %v; want %v, %v", c.pos, k, x[9+k], x[21+k], one, rew)
			}
		}
	}
	// The first 9 coordinates are the plain joint layout's.
	plain := enc
	plain.Cells = false
	_, pf, _, err := incontext.Encode[int](plain, jointMarkovRounds, 1)
	if err != nil {
		t.Fatal(err)
	}
	for p := range len(pf) / 9 {
		if !slices.Equal(pf[p*9:(p+1)*9], features[p*W:p*W+9]) {
			t.Errorf("position %d: %v, want the plain layout's %v", p, features[p*W:p*W+9], pf[p*9:(p+1)*9])
		}
		if p != 2 && p != 4 && slices.ContainsFunc(features[p*W+9:(p+1)*W], func(v float64) bool { return v != 0 }) {
			t.Errorf("position %d (not an outcome) has cell coordinates %v", p, features[p*W+9:(p+1)*W])
		}
	}
	for _, bad := range []incontext.GameEncoder{
		{States: 1, Actions: 2, Opponents: 2, Cells: true},                // tokens
		{States: 1, Actions: 2, Features: true, Cells: true},              // decentralized
		{States: 1, Actions: 2, Opponents: 2, RewardBins: 4, Cells: true}, // tokens again
	} {
		if err := bad.Validate(); !errors.Is(err, icrl.ErrInvalid) || !strings.Contains(err.Error(), "Cells") {
			t.Errorf("Validate(%+v) = %v, want ErrInvalid naming Cells", bad, err)
		}
	}
}

// TestJointLearnerMatchesForward checks that an in-context learner over a
// joint-action encoder, fed by SelfPlay under learner.JointActions, plays
// at every round the model's output on the encoded joint history (the
// reference re-encodes the recorded rounds from scratch), and that fed
// decentralized observations it refuses them.
func TestJointLearnerMatchesForward(t *testing.T) {
	g, err := game.RandomUniform(2, 3, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	enc := incontext.GameEncoder{States: 1, Actions: 2, Opponents: 3}
	const T = 12
	model := icModel[float64](t, enc, enc.Positions(T), 3)
	row, err := incontext.NewLearner(model, enc, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	col, err := learner.NewOMD(learner.OMDConfig{Actions: 3})
	if err != nil {
		t.Fatal(err)
	}
	log := &transitions{}
	policies := &policyLog{l: row, log: log}
	_, err = play.SelfPlay(context.Background(), g, row, col, play.SelfPlayConfig{Rounds: T, Observation: learner.JointActions, Recorder: policies}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	var rounds []incontext.Round[int]
	for t1, tr := range log.rounds {
		want := roundsPolicy(t, model, enc, rounds, 0)
		if !icClose(policies.played[t1], want, 1e-12) {
			t.Fatalf("round %d: the learner played %v, the model on the joint history gives %v", t1+1, policies.played[t1], want)
		}
		rounds = append(rounds, incontext.Round[int]{Obs: tr.State, Action: tr.Row, Opponent: tr.Col, Reward: tr.Reward})
	}
	if row.Rounds() != T {
		t.Errorf("Rounds = %d, want %d", row.Rounds(), T)
	}
	if err := row.Observe(0, 0, 0.5, 0); !errors.Is(err, icrl.ErrInvalid) || !strings.Contains(err.Error(), "JointActions") {
		t.Errorf("Observe on a joint learner: %v, want ErrInvalid naming JointActions", err)
	}
	if err := row.ObserveJoint(0, 0, 3, 0.5, 0); !errors.Is(err, incontext.ErrInput) || row.Rounds() != T {
		t.Errorf("ObserveJoint with opponent 3 of 3: %v (rounds %d), want ErrInput and no round", err, row.Rounds())
	}
}

// transitions keeps the rounds of a self-play.
type transitions struct{ rounds []play.Transition }

// policyLog records a learner's policy of every round and the round.
type policyLog struct {
	l      learner.Learner
	log    *transitions
	played [][]float64
}

func (p *policyLog) Record(_ int, tr play.Transition) error {
	p.played = append(p.played, slices.Clone(p.l.Policy(tr.State)))
	p.log.rounds = append(p.log.rounds, tr)
	return nil
}

// roundsPolicy returns softmax of the full forward pass's logits at the
// prediction position of Encode(rounds, query).
func roundsPolicy(t *testing.T, m *transformer.Model[float64], enc incontext.GameEncoder, rounds []incontext.Round[int], query int) []float64 {
	t.Helper()
	tokens, _, predict, err := incontext.Encode[int](enc, rounds, query)
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.Forward([]transformer.Sequence[float64]{{Tokens: tokens}})
	if err != nil {
		t.Fatal(err)
	}
	A, pos := enc.Actions, predict[len(rounds)]
	return simplex.Softmax(nil, out[0][pos*A:(pos+1)*A])
}

func TestDirichletContext(t *testing.T) {
	prior := func(rng *rand.Rand) (*game.ZeroSum, error) { return game.RandomUniform(3, 3, rng) }
	cfg := incontext.CollectConfig{Rounds: 400, Games: 40, RowContext: incontext.Dirichlet{Alpha: 0.2}, ColContext: incontext.Dirichlet{}, Seed: 3}
	a := collectTwice(t, "Dirichlet contexts", prior, cfg)
	// Each trajectory plays one fixed draw: with α = 0.2 most draws put
	// most of their mass on one action, with α = 1 (uniform on the
	// simplex) the largest share averages 11/18 for three actions.
	var maxShare [2]float64
	for _, tr := range a {
		for p := range 2 {
			var counts [3]float64
			for _, r := range tr.Players[p].Rounds {
				counts[r.Action]++
			}
			maxShare[p] += slices.Max(counts[:]) / 400 / float64(len(a))
		}
	}
	if !(maxShare[0] > 0.8) || math.Abs(maxShare[1]-11.0/18) > 0.06 {
		t.Errorf("mean largest action share %.3f (α = 0.2, want > 0.8) and %.3f (α = 1, want 11/18 ≈ 0.611)", maxShare[0], maxShare[1])
	}
	if err := (incontext.Dirichlet{}).Label(make([]float64, 3), nil, game.RowPlayer, nil, 0); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("Dirichlet.Label = %v, want ErrInvalid", err)
	}
	if _, err := incontext.Collect(context.Background(), prior, incontext.CollectConfig{Rounds: 2, Games: 1, RowContext: incontext.Dirichlet{Alpha: -1}}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("Alpha = -1: %v, want ErrInvalid", err)
	}
}

func TestAllViewsAndOpponents(t *testing.T) {
	prior := func(rng *rand.Rand) (*game.ZeroSum, error) { return game.RandomUniform(2, 3, rng) }
	trajs, err := incontext.Collect(context.Background(), prior, incontext.CollectConfig{Rounds: 20, Games: 3, RowContext: incontext.Uniform{}, ColContext: incontext.Uniform{}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	views := incontext.AllViews(trajs)
	if len(views) != 6 {
		t.Fatalf("%d views, want 6", len(views))
	}
	for i, tr := range trajs {
		row, col := views[2*i], views[2*i+1]
		for k := range row.Rounds {
			r, c := row.Rounds[k], col.Rounds[k]
			if r.Opponent != c.Action || c.Opponent != r.Action || r.Reward+c.Reward != 1 || r.Obs != c.Obs {
				t.Fatalf("game %d round %d: row view %+v and column view %+v disagree", i, k, r, c)
			}
			if r.Reward != 0 && r.Reward != 1 {
				t.Fatalf("Bernoulli reward %v", r.Reward)
			}
		}
		if &row.Rounds[0] != &tr.Players[0].Rounds[0] {
			t.Error("AllViews copied the rounds")
		}
	}
}
