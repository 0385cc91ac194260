package incontext_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
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
		res, err := learner.SelfPlay(g, l, col, learner.SelfPlayConfig{Rounds: T, Record: true}, rand.New(rand.NewPCG(1, 1)))
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
