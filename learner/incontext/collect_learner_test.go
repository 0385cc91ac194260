package incontext_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/bandit"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/transformer"
)

// fixedLearner always plays one action and records what it observed.
type fixedLearner struct {
	policy   []float64
	observed []learner.Step
	nexts    []int
	fail     error
}

func (f *fixedLearner) Policy(int) []float64 { return f.policy }
func (f *fixedLearner) Observe(s, a int, r float64, next int) error {
	if f.fail != nil {
		return f.fail
	}
	f.observed = append(f.observed, learner.Step{State: s, Action: a, Reward: r})
	f.nexts = append(f.nexts, next)
	return nil
}
func (f *fixedLearner) Reset() { f.observed, f.nexts = nil, nil }

// TestCollectLearners checks context learners: they choose the actions
// (over a context policy, which they take precedence over), see exactly
// the player's own rounds and the next states, and the labels stay the
// experts'.
func TestCollectLearners(t *testing.T) {
	prior := discountedPrior(2, 2, 3)
	const T = 12
	var made []*fixedLearner
	mk := func(policy []float64) func() (learner.Learner, error) {
		return func() (learner.Learner, error) {
			l := &fixedLearner{policy: policy}
			made = append(made, l)
			return l, nil
		}
	}
	// Games: 1 so that the factories are called from one goroutine.
	trajs, err := incontext.Collect(context.Background(), prior, incontext.CollectConfig{Rounds: T, Games: 1, RowLearner: mk([]float64{0, 1}), ColLearner: mk([]float64{0, 0, 1}),
		RowContext: incontext.Uniform{}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := incontext.Collect(context.Background(), prior, incontext.CollectConfig{Rounds: T, Games: 1, Seed: 3}) // the same game, NE play
	if err != nil {
		t.Fatal(err)
	}
	if len(made) != 2 {
		t.Fatalf("%d learners made, want 2", len(made))
	}
	tr := trajs[0]
	for p, want := range []int{1, 2} {
		view, l := tr.Players[p], made[p]
		if len(l.observed) != T {
			t.Fatalf("player %d's learner observed %d rounds, want %d", p, len(l.observed), T)
		}
		for k, r := range view.Rounds {
			if r.Action != want {
				t.Fatalf("player %d round %d: action %d, want the learner's %d", p, k+1, r.Action, want)
			}
			if o := l.observed[k]; o.State != r.Obs || o.Action != r.Action || o.Reward != r.Reward {
				t.Fatalf("player %d round %d: learner observed %+v, the trajectory has %+v", p, k+1, o, r)
			}
			next := tr.Final
			if k+1 < T {
				next = view.Rounds[k+1].Obs
			}
			if l.nexts[k] != next {
				t.Fatalf("player %d round %d: learner observed next state %d, want %d", p, k+1, l.nexts[k], next)
			}
			// The labels are the NE expert's of the same game and state.
			if x, y, err := tr.Game.(game.Model).Nash(); err != nil {
				t.Fatal(err)
			} else if lab, eq := view.Labels[k], [][][]float64{x, y}[p][r.Obs]; !icClose(lab, eq, 1e-12) {
				t.Fatalf("player %d round %d: label %v, want the equilibrium %v", p, k+1, lab, eq)
			}
		}
	}
	if tr.Game.(game.Discounter).Discount() != ref[0].Game.(game.Discounter).Discount() {
		t.Error("the game differs from the one the same seed draws")
	}

	// Failures name the player and the cause.
	good := incontext.CollectConfig{Rounds: 3, Games: 1}
	for _, c := range []struct {
		name string
		mod  func(*incontext.CollectConfig)
		want string
	}{
		{"factory error", func(c *incontext.CollectConfig) {
			c.RowLearner = func() (learner.Learner, error) { return nil, errors.New("no learner") }
		}, "no learner"},
		{"nil learner", func(c *incontext.CollectConfig) {
			c.ColLearner = func() (learner.Learner, error) { return (*fixedLearner)(nil), nil }
		}, "ColumnPlayer's learner factory returned nil"},
		{"bad policy", func(c *incontext.CollectConfig) { c.RowLearner = mk([]float64{0.5, 0.6}) }, "RowPlayer's context policy"},
		{"wrong size", func(c *incontext.CollectConfig) { c.ColLearner = mk([]float64{1}) }, "ColumnPlayer's context policy"},
		{"observe error", func(c *incontext.CollectConfig) {
			c.RowLearner = func() (learner.Learner, error) {
				return &fixedLearner{policy: []float64{1, 0}, fail: errors.New("cannot learn")}, nil
			}
		}, "cannot learn"},
	} {
		cfg := good
		c.mod(&cfg)
		if _, err := incontext.Collect(context.Background(), prior, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

// TestCollectOnPolicy collects with in-context learners over a model as
// the context players (the on-policy round of DPT and DAgger): the
// recorded actions are those the learners sample, so the same seed gives
// the same trajectories, and with a model whose policy is one-hot the
// actions are that action.
func TestCollectOnPolicy(t *testing.T) {
	enc := incontext.GameEncoder{States: 1, Actions: 2}
	m := fixedModel{logits: []float64{0, 40}, capacity: 1 << 10} // action 1 with probability 1 − 4e−18
	prior := func(rng *rand.Rand) (*game.ZeroSum, error) { return game.RandomUniform(2, 2, rng) }
	player := func() (learner.Learner, error) { return incontext.NewLearner[float64](m, enc, incontext.Config{}) }
	trajs, err := incontext.Collect(context.Background(), prior, incontext.CollectConfig{Rounds: 20, Games: 4, RowLearner: player, ColLearner: player, Noise: game.Exact{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trajs {
		for p := range tr.Players {
			for k, r := range tr.Players[p].Rounds {
				if r.Action != 1 {
					t.Fatalf("player %d round %d played %d, want the model's action 1", p, k+1, r.Action)
				}
			}
		}
	}
}

// TestPretrainFrom checks that training continues the given model: the
// model returned is From itself, its configuration is kept, training on
// more data lowers its loss, and a model that does not fit the encoder or
// the trajectories is rejected with an error naming the field.
func TestPretrainFrom(t *testing.T) {
	ctx := context.Background()
	trajs, err := incontext.Collect(context.Background(), discountedPrior(1, 3, 3), incontext.CollectConfig{Rounds: 8, Games: 40, Noise: game.Exact{}, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	rows := incontext.Views(trajs, game.RowPlayer)
	enc := incontext.GameEncoder{States: 1, Actions: 3, Features: true}
	tiny := transformer.Config{Layers: 1, Heads: 2, Width: 16, FeedForward: 32}
	train := func(from *transformer.Model[float32], steps int) (*transformer.Model[float32], transformer.TrainResult) {
		t.Helper()
		m, res, err := incontext.Pretrain(ctx, rows, enc, incontext.PretrainConfig[float32]{Model: tiny, From: from, ValidationFraction: -1,
			Train: transformer.TrainConfig[float32]{Steps: steps, BatchSize: 8, TargetLoss: -1}, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return m, res
	}
	data, err := incontext.Examples[float32](rows, enc, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	loss := func(m *transformer.Model[float32]) float64 {
		seqs := make([]transformer.Sequence[float32], len(data))
		tgts := make([]transformer.Target[float32], len(data))
		for i, e := range data {
			seqs[i], tgts[i] = e.Input, e.Target
		}
		l, err := m.Loss(seqs, tgts)
		if err != nil {
			t.Fatal(err)
		}
		return l.CE
	}
	m, _ := train(nil, 2)
	before := loss(m)
	m2, res := train(m, 150)
	if m2 != m {
		t.Fatal("Pretrain with From returned another model")
	}
	if res.Steps != 150 {
		t.Errorf("%d steps, want 150", res.Steps)
	}
	if after := loss(m); !(after < before-0.01) {
		t.Errorf("continued training: loss %.4f → %.4f, want a decrease", before, after)
	}
	// Mismatches.
	small, err := transformer.New[float32](transformer.Config{Layers: 1, Heads: 1, Width: 8, FeedForward: 8, Features: enc.Width(), Outputs: 3, MaxLen: 4}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := transformer.New[float32](transformer.Config{Layers: 1, Heads: 1, Width: 8, FeedForward: 8, Vocab: 20, Outputs: 3, MaxLen: 64}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		from *transformer.Model[float32]
		want string
	}{{small, "MaxLen = 4"}, {tokens, "Vocab = 20"}} {
		_, _, err := incontext.Pretrain(ctx, rows, enc, incontext.PretrainConfig[float32]{From: c.from, Train: transformer.TrainConfig[float32]{Steps: 1}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("From %+v: err = %v, want it to mention %q", c.from.Config(), err, c.want)
		}
	}
}

// discountedPrior draws S-state games with A×B actions and γ = 0.7.
func discountedPrior(S, A, B int) func(*rand.Rand) (*markov.Discounted, error) {
	return func(rng *rand.Rand) (*markov.Discounted, error) { return markov.RandomDiscounted(S, A, B, 0.7, rng) }
}

// shiftEnv is a 3-armed bandit of 6 rounds whose best arm changes every
// two rounds: the mean of arm k at round t is 0.9 if k = ⌊(t−1)/2⌋, else
// 0.1 + 0.1k.
type shiftEnv struct{}

func (shiftEnv) Horizon() int { return 6 }
func (shiftEnv) Actions(int) [][]float64 {
	return [][]float64{{1, 0}, {0, 1}, {1, 1}}
}
func (shiftEnv) Mean(t, k int) float64 {
	if k == (t-1)/2 {
		return 0.9
	}
	return 0.1 + 0.1*float64(k)
}
func (e shiftEnv) Sample(t, k int, _ *rand.Rand) float64 { return e.Mean(t, k) }

// armLearner always plays one arm.
type armLearner struct{ arm int }

func (a armLearner) Act(int, [][]float64, *rand.Rand) (int, float64) { return a.arm, 0 }
func (armLearner) Observe(int, [][]float64, int, float64) error      { return nil }
func (armLearner) Reset()                                            {}

// TestCollectBanditsOptimal checks the DPT labels: one-hot at the arm of
// highest mean of each round, while the behaviour's arms and rewards make
// the context.
func TestCollectBanditsOptimal(t *testing.T) {
	gen := func(*rand.Rand) (shiftEnv, error) { return shiftEnv{}, nil }
	beh := func() (bandit.Learner, error) { return armLearner{2}, nil }
	trajs, err := incontext.CollectBanditsOptimal(context.Background(), gen, beh, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range trajs {
		for k, r := range tr.Rounds {
			best := k / 2
			want := make([]float64, 3)
			want[best] = 1
			if r.Action != 2 || r.Reward != (shiftEnv{}).Mean(k+1, 2) || !icClose(tr.Labels[k], want, 0) {
				t.Fatalf("trajectory %d round %d: arm %d reward %v label %v, want arm 2, reward %v, label %v",
					i, k+1, r.Action, r.Reward, tr.Labels[k], (shiftEnv{}).Mean(k+1, 2), want)
			}
		}
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"nil behaviour", func() error {
			_, err := incontext.CollectBanditsOptimal(context.Background(), gen, nil, 1, 1)
			return err
		}(), "behaviour"},
		{"nil generator", func() error {
			_, err := incontext.CollectBanditsOptimal[shiftEnv](context.Background(), nil, beh, 1, 1)
			return err
		}(), "environment generator"},
		{"no trajectories", func() error {
			_, err := incontext.CollectBanditsOptimal(context.Background(), gen, beh, 0, 1)
			return err
		}(), "n ≥ 1"},
		{"nil expert", func() error {
			_, err := incontext.CollectBandits(context.Background(), gen, beh, nil, 1, 1)
			return err
		}(), "expert"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, c.err, c.want)
		}
	}
}
