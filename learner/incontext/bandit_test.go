package incontext_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/transformer"
)

func TestBanditEncoderLayout(t *testing.T) {
	enc := incontext.BanditEncoder{Dim: 2, Arms: 3}
	if w := enc.Width(); w != 13 {
		t.Fatalf("Width = %d, want 2·3 + 2 + 3 + 2 = 13", w)
	}
	set := [][]float64{{1, 2}, {3, 4}, {5, 6}}
	next := [][]float64{{7, 8}, {9, 10}, {11, 12}}
	rounds := []incontext.Round[[][]float64]{{Obs: set, Action: 1, Reward: 0.5}}
	tok, feat, pred, err := incontext.Encode(enc, rounds, next)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{
		// round 1 action-set token: vec(A_1), zeros, flag 1
		1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0, 1,
		// round 1 (action, reward) token: x_{1,a_1} = (3,4), one-hot(1), r = 0.5, flag 0
		0, 0, 0, 0, 0, 0, 3, 4, 0, 1, 0, 0.5, 0,
		// round 2 action-set token
		7, 8, 9, 10, 11, 12, 0, 0, 0, 0, 0, 0, 1,
	}
	if tok != nil || !slices.Equal(feat, want) {
		t.Errorf("features\n got %v\nwant %v", feat, want)
	}
	if !slices.Equal(pred, []int{0, 2}) {
		t.Errorf("predict = %v, want [0 2]", pred)
	}
	// RewardScale scales r.
	enc.RewardScale = 2
	_, feat, _, err = incontext.Encode(enc, []incontext.Round[[][]float64]{{Obs: set, Action: 2, Reward: -1}}, set)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := feat[13:26], []float64{0, 0, 0, 0, 0, 0, 5, 6, 0, 0, 1, -2, 0}; !slices.Equal(got, want) {
		t.Errorf("scaled action token %v, want %v", got, want)
	}
	if enc.Positions(49) != 99 {
		t.Errorf("Positions(49) = %d, want 99", enc.Positions(49))
	}
	for _, c := range []struct {
		name   string
		enc    incontext.BanditEncoder
		rounds []incontext.Round[[][]float64]
		next   [][]float64
		want   string
	}{
		{"dim", incontext.BanditEncoder{Arms: 3}, nil, set, "Dim = 0"},
		{"scale", incontext.BanditEncoder{Dim: 2, Arms: 3, RewardScale: -1}, nil, set, "RewardScale"},
		{"arm", enc, []incontext.Round[[][]float64]{{Obs: set, Action: 3}}, set, "arm 3"},
		{"reward", enc, []incontext.Round[[][]float64]{{Obs: set, Reward: math.NaN()}}, set, "NaN"},
		{"set size", enc, nil, next[:2], "2 actions"},
		{"dimension", enc, nil, [][]float64{{1}, {2}, {3}}, "dimension 1"},
		{"not finite", enc, nil, [][]float64{{1, 2}, {3, math.Inf(1)}, {5, 6}}, "not finite"},
	} {
		if _, _, _, err := incontext.Encode(c.enc, c.rounds, c.next); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// banditSets draws T random action sets of A arms in R^d.
func banditSets(d, A, T int, rng *rand.Rand) [][][]float64 {
	sets := make([][][]float64, T)
	for t := range sets {
		sets[t] = make([][]float64, A)
		for k := range sets[t] {
			sets[t][k] = make([]float64, d)
			for i := range sets[t][k] {
				sets[t][k][i] = rng.NormFloat64()
			}
		}
	}
	return sets
}

// TestBanditMatchesForward checks that the in-context bandit learner's
// policy is the softmax (at its temperature) of the full forward pass over
// the encoded history, before and after its window slides, that Observe
// without Act and a repeated Act are handled, and greedy play.
func TestBanditMatchesForward(t *testing.T) {
	const d, A, T = 2, 3, 12
	enc := incontext.BanditEncoder{Dim: d, Arms: A, RewardScale: 0.5}
	const maxLen = 9 // 4 rounds and a query
	m, err := transformer.New[float64](transformer.Config{Layers: 2, Heads: 2, Width: 8, FeedForward: 16, Features: enc.Width(), Outputs: A, MaxLen: maxLen}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params() {
		for i := range p.Value {
			p.Value[i] *= 10
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	sets := banditSets(d, A, T, rng)
	l, err := incontext.NewBandit(m, enc, incontext.Config{Temperature: 2})
	if err != nil {
		t.Fatal(err)
	}
	var rounds []incontext.Round[[][]float64]
	slid := false
	for s := 1; s <= T; s++ {
		acts := sets[s-1]
		l.Act(s, acts, rng) // replaced by the next Act
		arm, opt := l.Act(s, acts, rng)
		wantOpt := 0.0
		for _, r := range rounds {
			wantOpt += r.Reward / float64(len(rounds))
		}
		if math.Abs(opt-wantOpt) > 1e-12 {
			t.Errorf("round %d: optimistic %v, want mean reward %v", s, opt, wantOpt)
		}
		kept := rounds[len(rounds)-l.Context():]
		if len(kept) < len(rounds) {
			slid = true
		}
		_, feat, pred, err := incontext.Encode(enc, kept, acts)
		if err != nil {
			t.Fatal(err)
		}
		if len(feat)/enc.Width() > maxLen {
			t.Fatalf("round %d: %d positions kept, MaxLen %d", s, len(feat)/enc.Width(), maxLen)
		}
		out, err := m.Forward([]transformer.Sequence[float64]{{Features: feat}})
		if err != nil {
			t.Fatal(err)
		}
		z := out[0][pred[len(kept)]*A:]
		p := l.Policy()
		sum := 0.0
		for k := range A {
			sum += math.Exp((z[k] - z[0]) / 2)
		}
		for k := range A {
			if want := math.Exp((z[k]-z[0])/2) / sum; math.Abs(p[k]-want) > 1e-9 {
				t.Fatalf("round %d (%d kept): policy %v, want softmax(z/2) of the full pass %v", s, len(kept), p, z[:A])
			}
		}
		r := rng.Float64()
		if err := l.Observe(s, acts, arm, r); err != nil {
			t.Fatal(err)
		}
		rounds = append(rounds, incontext.Round[[][]float64]{Obs: acts, Action: arm, Reward: r})
	}
	if !slid {
		t.Error("the window never slid")
	}
	// Bad feedback leaves the learner unchanged.
	acts := sets[0]
	if l.Observe(T+1, acts, A, 0) == nil || l.Observe(T+1, acts, 0, math.Inf(1)) == nil || l.Observe(T+1, acts[:2], 0, 0) == nil {
		t.Error("bad Observe: no error")
	}
	if l.Rounds() != T {
		t.Errorf("rounds %d after bad Observe, want %d", l.Rounds(), T)
	}
	l.Reset()
	if l.Context() != 0 || l.Rounds() != 0 {
		t.Errorf("after Reset: context %d, rounds %d", l.Context(), l.Rounds())
	}
	if err := l.Observe(1, acts, 2, 1); err != nil || l.Context() != 1 {
		t.Errorf("Observe without Act: err %v, context %d", err, l.Context())
	}
	// Greedy plays the argmax.
	g, err := incontext.NewBandit(m, enc, incontext.Config{Greedy: true})
	if err != nil {
		t.Fatal(err)
	}
	arm, _ := g.Act(1, acts, nil)
	if p := g.Policy(); arm != slices.Index(p, slices.Max(p)) {
		t.Errorf("greedy arm %d, policy %v", arm, p)
	}
	for _, c := range []struct {
		name string
		m    transformer.Transformer[float64]
		enc  incontext.BanditEncoder
		cfg  incontext.Config
		want string
	}{
		{"nil model", nil, enc, incontext.Config{}, "model"},
		{"features", m, incontext.BanditEncoder{Dim: 3, Arms: A}, incontext.Config{}, "feature"},
		{"temperature", m, enc, incontext.Config{Temperature: -1}, "Temperature"},
		{"encoder", m, incontext.BanditEncoder{Dim: 2}, incontext.Config{}, "Arms"},
	} {
		if _, err := incontext.NewBandit(c.m, c.enc, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// TestBanditActErrors checks that an action set that does not fit, or a
// nil source, gives the same kind of answer through Act and Observe: Act
// returns arm 0 and the next Observe the error, wrapping ErrInput, with the
// context unchanged; Observe given the set directly says the same.
func TestBanditActErrors(t *testing.T) {
	const d, A = 2, 3
	enc := incontext.BanditEncoder{Dim: d, Arms: A}
	m, err := transformer.New[float32](transformer.Config{Layers: 1, Heads: 1, Width: 4, FeedForward: 4, Features: enc.Width(), Outputs: A, MaxLen: 9}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := incontext.NewBandit(m, enc, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	good := [][]float64{{0.1, 0.2}, {0.3, 0.4}, {0.5, 0.6}}
	bad := [][]float64{{0.1, 0.2}, {0.3}} // two arms, one of the wrong dimension
	if arm, _ := l.Act(1, bad, rng); arm != 0 {
		t.Fatalf("Act on a bad set: arm %d, want 0", arm)
	}
	errAct := l.Observe(1, bad, 0, 0.5)
	if !errors.Is(errAct, incontext.ErrInput) || l.Rounds() != 0 || l.Context() != 0 {
		t.Fatalf("Observe after a bad Act: %v (rounds %d, context %d)", errAct, l.Rounds(), l.Context())
	}
	if err := l.Observe(1, bad, 0, 0.5); !errors.Is(err, incontext.ErrInput) {
		t.Fatalf("Observe of a bad set: %v", err)
	}
	if _, _ = l.Act(1, good, nil); !errors.Is(l.Observe(1, good, 0, 0.5), incontext.ErrInput) {
		t.Fatal("Act with a nil source: no error at Observe")
	}
	// The error is reported once; the learner then plays on.
	l.Act(1, good, rng)
	if err := l.Observe(1, good, 1, 0.5); err != nil || l.Rounds() != 1 {
		t.Fatalf("a good round after the errors: %v (rounds %d)", err, l.Rounds())
	}
}
