package incontext_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/transformer"
)

// fixedModel is a model written by hand, not by package transformer: every
// position's logits are the same fixed vector. It holds capacity positions
// (0: unbounded).
type fixedModel struct {
	logits   []float64
	capacity int
}

// Compile-time check: a caller's own model is a Transformer.
var _ transformer.Transformer[float64] = fixedModel{}

func (m fixedModel) NewDecoder() transformer.Decoder[float64] {
	return &fixedDecoder{m: m, out: make([]float64, len(m.logits))}
}

func (m fixedModel) Capacity() int { return m.capacity }

type fixedDecoder struct {
	m   fixedModel
	n   int
	out []float64
}

func (d *fixedDecoder) append() ([]float64, error) {
	if d.m.capacity > 0 && d.n >= d.m.capacity {
		return nil, errors.New("fixed model is full")
	}
	d.n++
	copy(d.out, d.m.logits)
	return d.out, nil
}

func (d *fixedDecoder) AppendToken(int) ([]float64, error)          { return d.append() }
func (d *fixedDecoder) AppendFeatures([]float64) ([]float64, error) { return d.append() }
func (d *fixedDecoder) Len() int                                    { return d.n }
func (d *fixedDecoder) Reset()                                      { d.n = 0 }
func (d *fixedDecoder) Truncate(n int) error {
	if n < 0 || n > d.n {
		return errors.New("bad truncation")
	}
	d.n = n
	return nil
}

// TestHandWrittenModel plays a hand-written model through the in-context
// learners: its policy is the softmax of its fixed logits in every state and
// round, it plays self-play against OMD in a Markov game past its capacity,
// and it plays a bandit.
func TestHandWrittenModel(t *testing.T) {
	logits := []float64{math.Log(1), math.Log(3)} // softmax (¼, ¾)
	model := fixedModel{logits: logits, capacity: 20}
	g, err := game.NewZeroSum([][]float64{{1, 0}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []incontext.GameEncoder{{States: 1, Actions: 2}, {States: 1, Actions: 2, Features: true}} {
		l, err := incontext.NewLearner(model, enc, incontext.Config{})
		if err != nil {
			t.Fatal(err)
		}
		col, err := learner.NewOMD(learner.OMDConfig{Actions: 2, Role: game.ColumnPlayer})
		if err != nil {
			t.Fatal(err)
		}
		const T = 100 // five times the capacity: the window slides
		res, err := play.SelfPlay(context.Background(), g, l, col, play.SelfPlayConfig{Rounds: T, Record: true}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if p := l.Policy(0); math.Abs(p[0]-0.25) > 1e-15 || math.Abs(p[1]-0.75) > 1e-15 {
			t.Errorf("%+v: policy %v, want (0.25, 0.75)", enc, p)
		}
		// The last iterate is (¼, ¾) against OMD's: its gap is exact.
		y := res.LastY[0]
		want := max(y[0], y[1]) - min(0.25, 0.75)
		if math.Abs(res.LastGap-want) > 1e-12 || l.Rounds() != T || l.Context() >= T {
			t.Errorf("%+v: gap %v (want %v), rounds %d, context %d", enc, res.LastGap, want, l.Rounds(), l.Context())
		}
	}
	// In a bandit: greedy play picks arm 1 every round.
	b, err := incontext.NewBandit(model, incontext.BanditEncoder{Dim: 1, Arms: 2}, incontext.Config{Greedy: true})
	if err != nil {
		t.Fatal(err)
	}
	set := [][]float64{{0}, {1}}
	for s := 1; s <= 50; s++ {
		arm, _ := b.Act(s, set, nil)
		if arm != 1 {
			t.Fatalf("round %d: greedy arm %d, want 1", s, arm)
		}
		if err := b.Observe(s, set, arm, 1); err != nil {
			t.Fatal(err)
		}
	}
}

// TestImitation checks the imitation error against hand-computed values:
// the fixed model's policy (¼, ¾) against labels (1, 0) and (¼, ¾) has
// total-variation distances ¾ and 0 and agrees on the mode once.
func TestImitation(t *testing.T) {
	model := fixedModel{logits: []float64{math.Log(1), math.Log(3)}, capacity: 5}
	enc := incontext.GameEncoder{States: 2, Actions: 2}
	var trajs []incontext.Trajectory[int]
	for k := range 3 {
		tr := incontext.Trajectory[int]{}
		for r := range 2 + 2*k { // up to 6 rounds: past the capacity
			tr.Rounds = append(tr.Rounds, incontext.Round[int]{Obs: r % 2, Action: r % 2, Reward: 0.5})
			if r%2 == 0 {
				tr.Labels = append(tr.Labels, []float64{1, 0})
			} else {
				tr.Labels = append(tr.Labels, []float64{0.25, 0.75})
			}
		}
		trajs = append(trajs, tr)
	}
	st, err := incontext.Imitation(model, enc, trajs, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Trajectories != 3 || st.Rounds != 12 || math.Abs(st.TV-0.375) > 1e-12 || math.Abs(st.Agreement-0.5) > 1e-12 {
		t.Errorf("stats %+v, want 3 trajectories, 12 rounds, TV 0.375, agreement 0.5", st)
	}
	want := []float64{0.75, 0, 0.75, 0, 0.75, 0}
	for i, v := range want {
		if i >= len(st.TVByRound) || math.Abs(st.TVByRound[i]-v) > 1e-12 {
			t.Fatalf("TVByRound %v, want %v", st.TVByRound, want)
		}
	}
	for _, c := range []struct {
		name  string
		m     transformer.Transformer[float64]
		trajs []incontext.Trajectory[int]
		want  string
	}{
		{"nil model", nil, trajs, "model"},
		{"no trajectory", model, nil, "trajectory"},
		{"bad label", model, []incontext.Trajectory[int]{{Rounds: trajs[0].Rounds, Labels: [][]float64{{1, 0}, {2, 0}}}}, "label of round 2"},
	} {
		if _, err := incontext.Imitation(c.m, enc, c.trajs, incontext.Config{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}
