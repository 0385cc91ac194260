package incontext_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/learner/incontext"

	"github.com/icrl-go/icrl/learner"
)

// encMatrixHistory is a three-round matrix-game history for the layout
// tests.
var encMatrixHistory = []learner.Step{
	{Action: 0, Reward: 0},
	{Action: 2, Reward: 1},
	{Action: 1, Reward: 0.55},
}

// encMarkovHistory is a two-round Markov history (2 states, 2 actions).
var encMarkovHistory = []learner.Step{
	{State: 1, Action: 0, Reward: 0.3},
	{State: 0, Action: 1, Reward: 0.75},
}

func TestEncodingVocabWidth(t *testing.T) {
	for _, c := range []struct {
		enc          incontext.GameEncoder
		vocab, width int
		perRound     int
		positions3   int // Positions(3)
	}{
		{incontext.GameEncoder{States: 1, Actions: 3}, 14, 0, 2, 7},
		{incontext.GameEncoder{States: 1, Actions: 3, RewardBins: 2}, 6, 0, 2, 7},
		{incontext.GameEncoder{States: 2, Actions: 2, RewardBins: 4}, 9, 0, 3, 11},
		{incontext.GameEncoder{States: 5, Actions: 3}, 19, 0, 3, 11},
		{incontext.GameEncoder{States: 1, Actions: 3, Features: true}, 0, 5, 1, 4},
		{incontext.GameEncoder{States: 2, Actions: 2, Features: true}, 0, 6, 2, 8},
		{incontext.GameEncoder{States: 5, Actions: 3, RewardBins: 7, Features: true}, 0, 10, 2, 8},
	} {
		if err := c.enc.Validate(); err != nil {
			t.Fatalf("%+v: %v", c.enc, err)
		}
		if got := c.enc.Vocab(); got != c.vocab {
			t.Errorf("%+v: Vocab = %d, want %d", c.enc, got, c.vocab)
		}
		if got := c.enc.Width(); got != c.width {
			t.Errorf("%+v: Width = %d, want %d", c.enc, got, c.width)
		}
		if got := c.enc.PerRound(); got != c.perRound {
			t.Errorf("%+v: PerRound = %d, want %d", c.enc, got, c.perRound)
		}
		if got := c.enc.Positions(3); got != c.positions3 {
			t.Errorf("%+v: Positions(3) = %d, want %d", c.enc, got, c.positions3)
		}
		if got := c.enc.MaxRounds(c.positions3); got != 3 {
			t.Errorf("%+v: MaxRounds(%d) = %d, want 3", c.enc, c.positions3, got)
		}
		if got := c.enc.MaxRounds(c.positions3 + c.perRound - 1); got != 3 {
			t.Errorf("%+v: MaxRounds(%d) = %d, want 3", c.enc, c.positions3+c.perRound-1, got)
		}
		if got := c.enc.MaxRounds(0); got != -1 {
			t.Errorf("%+v: MaxRounds(0) = %d, want -1", c.enc, got)
		}
	}
}

func TestEncodingBin(t *testing.T) {
	k10 := incontext.GameEncoder{States: 1, Actions: 2}
	k2 := incontext.GameEncoder{States: 1, Actions: 2, RewardBins: 2}
	for _, c := range []struct {
		enc  incontext.GameEncoder
		r    float64
		want int
	}{
		{k10, 0, 0}, {k10, 1, 9}, {k10, 0.1, 1}, {k10, 0.0999, 0}, {k10, 0.999, 9},
		{k10, 0.5, 5}, {k10, 0.9, 9}, {k10, 0.3, 3}, {k10, math.Nextafter(1, 0), 9},
		{k2, 0, 0}, {k2, 0.49, 0}, {k2, 0.5, 1}, {k2, 1, 1},
		// Out of range: clamped (Encode rejects these).
		{k10, -0.5, 0}, {k10, 3, 9}, {k10, math.NaN(), 0},
	} {
		if got := c.enc.Bin(c.r); got != c.want {
			t.Errorf("K=%d: Bin(%v) = %d, want %d", c.enc.Bins(), c.r, got, c.want)
		}
	}
	if got := k10.RewardToken(0.1); got != 1+2+1 {
		t.Errorf("RewardToken(0.1) = %d, want %d", got, 4)
	}
}

func TestEncodeTokensMatrix(t *testing.T) {
	enc := incontext.GameEncoder{States: 1, Actions: 3} // K = 10: BOS 0, actions 1..3, bins 4..13
	tokens, features, predict, err := encodeSteps(enc, encMatrixHistory, 0)
	if err != nil {
		t.Fatal(err)
	}
	// BOS, a=0, bin(0)=0, a=2, bin(1)=9, a=1, bin(0.55)=5.
	wantTok := []int{0, 1, 4, 3, 13, 2, 9}
	wantPred := []int{0, 2, 4, 6}
	if features != nil || !slices.Equal(tokens, wantTok) || !slices.Equal(predict, wantPred) {
		t.Errorf("Encode = %v, %v, %v; want %v, nil, %v", tokens, features, predict, wantTok, wantPred)
	}
	// A matrix game has only state 0, and writes no state position.
	if _, _, _, err := encodeSteps(enc, encMatrixHistory, 7); err == nil || !strings.Contains(err.Error(), "state 7") {
		t.Errorf("Encode with query 7: error %v, want one naming state 7", err)
	}
	// The empty history is BOS alone.
	tok0, _, pred0, err := encodeSteps(enc, nil, 0)
	if err != nil || !slices.Equal(tok0, []int{0}) || !slices.Equal(pred0, []int{0}) {
		t.Errorf("Encode(nil) = %v, %v, %v; want [0], [0]", tok0, pred0, err)
	}
	if len(tokens) != enc.Positions(len(encMatrixHistory)) {
		t.Errorf("len(tokens) = %d, Positions = %d", len(tokens), enc.Positions(len(encMatrixHistory)))
	}
}

func TestEncodeTokensMarkov(t *testing.T) {
	enc := incontext.GameEncoder{States: 2, Actions: 2, RewardBins: 4}
	// BOS 0, states 1..2, actions 3..4, bins 5..8.
	tokens, features, predict, err := encodeSteps(enc, encMarkovHistory, 1)
	if err != nil {
		t.Fatal(err)
	}
	// BOS, s=1, a=0, bin(0.3)=1, s=0, a=1, bin(0.75)=3, query s=1.
	wantTok := []int{0, 2, 3, 6, 1, 4, 8, 2}
	wantPred := []int{1, 4, 7}
	if features != nil || !slices.Equal(tokens, wantTok) || !slices.Equal(predict, wantPred) {
		t.Errorf("Encode = %v, %v, %v; want %v, nil, %v", tokens, features, predict, wantTok, wantPred)
	}
	tok0, _, pred0, err := encodeSteps(enc, nil, 0)
	if err != nil || !slices.Equal(tok0, []int{0, 1}) || !slices.Equal(pred0, []int{1}) {
		t.Errorf("Encode(nil, 0) = %v, %v, %v; want [0 1], [1]", tok0, pred0, err)
	}
	if len(tokens) != enc.Positions(len(encMarkovHistory)) {
		t.Errorf("len(tokens) = %d, Positions = %d", len(tokens), enc.Positions(len(encMarkovHistory)))
	}
}

func TestEncodeFeaturesMatrix(t *testing.T) {
	enc := incontext.GameEncoder{States: 1, Actions: 3, Features: true}
	// Width 5: [BOS, a0, a1, a2, r].
	tokens, features, predict, err := encodeSteps(enc, encMatrixHistory, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{
		1, 0, 0, 0, 0, // BOS
		0, 1, 0, 0, 0, // (a=0, r=0)
		0, 0, 0, 1, 1, // (a=2, r=1)
		0, 0, 1, 0, 0.55, // (a=1, r=0.55)
	}
	wantPred := []int{0, 1, 2, 3}
	if tokens != nil || !slices.Equal(features, want) || !slices.Equal(predict, wantPred) {
		t.Errorf("Encode = %v, %v, %v; want nil, %v, %v", tokens, features, predict, want, wantPred)
	}
}

func TestEncodeFeaturesMarkov(t *testing.T) {
	enc := incontext.GameEncoder{States: 2, Actions: 2, Features: true}
	// Width 6: [BOS, s0, s1, a0, a1, r].
	tokens, features, predict, err := encodeSteps(enc, encMarkovHistory, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{
		1, 0, 0, 0, 0, 0, // BOS
		0, 0, 1, 0, 0, 0, // s=1
		0, 0, 0, 1, 0, 0.3, // (a=0, r=0.3)
		0, 1, 0, 0, 0, 0, // s=0
		0, 0, 0, 0, 1, 0.75, // (a=1, r=0.75)
		0, 0, 1, 0, 0, 0, // query s=1
	}
	wantPred := []int{1, 3, 5}
	if tokens != nil || !slices.Equal(features, want) || !slices.Equal(predict, wantPred) {
		t.Errorf("Encode = %v, %v, %v; want nil, %v, %v", tokens, features, predict, want, wantPred)
	}
	if n := len(features) / enc.Width(); n != enc.Positions(len(encMarkovHistory)) {
		t.Errorf("positions = %d, Positions = %d", n, enc.Positions(len(encMarkovHistory)))
	}
}

func TestEncodeErrors(t *testing.T) {
	mat := incontext.GameEncoder{States: 1, Actions: 3}
	mk := incontext.GameEncoder{States: 2, Actions: 2, Features: true}
	good := learner.Step{Action: 1, Reward: 0.5}
	for _, c := range []struct {
		name    string
		enc     incontext.GameEncoder
		history []learner.Step
		query   int
		want    []string
	}{
		{"action high", mat, []learner.Step{good, {Action: 3, Reward: 0.5}}, 0, []string{"round 2", "action 3"}},
		{"action negative", mat, []learner.Step{{Action: -1}}, 0, []string{"round 1", "action -1"}},
		{"state in matrix game", mat, []learner.Step{good, good, {State: 1, Action: 0}}, 0, []string{"round 3", "state 1"}},
		{"state high", mk, []learner.Step{{State: 2, Action: 0}}, 0, []string{"round 1", "state 2"}},
		{"NaN reward", mat, []learner.Step{good, {Action: 0, Reward: math.NaN()}}, 0, []string{"round 2", "NaN"}},
		{"Inf reward", mk, []learner.Step{{Action: 0, Reward: math.Inf(1)}}, 0, []string{"round 1", "+Inf"}},
		{"reward above 1", mat, []learner.Step{{Action: 0, Reward: 1.5}}, 0, []string{"round 1", "1.5"}},
		{"reward below 0", mk, []learner.Step{{Action: 0, Reward: -0.1}}, 0, []string{"round 1", "-0.1"}},
		{"query high", mk, nil, 2, []string{"state 2"}},
		{"query negative", mk, []learner.Step{{Action: 0}}, -1, []string{"state -1"}},
		{"no states", incontext.GameEncoder{Actions: 2}, nil, 0, []string{"States = 0"}},
		{"no actions", incontext.GameEncoder{States: 1}, nil, 0, []string{"Actions = 0"}},
		{"negative bins", incontext.GameEncoder{States: 1, Actions: 2, RewardBins: -1}, nil, 0, []string{"RewardBins = -1"}},
	} {
		tok, feat, pred, err := encodeSteps(c.enc, c.history, c.query)
		if err == nil {
			t.Errorf("%s: no error (got %v, %v, %v)", c.name, tok, feat, pred)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
}

// The token layout for a two-state Markov game: BOS, then per
// round the state, the action and the reward bin, then the query state.
func ExampleEncode() {
	enc := incontext.GameEncoder{States: 2, Actions: 2, RewardBins: 4}
	history := []learner.Step{
		{State: 1, Action: 0, Reward: 0.3},
		{State: 0, Action: 1, Reward: 0.75},
	}
	tokens, _, predict, err := encodeSteps(enc, history, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println("vocab:", enc.Vocab())
	fmt.Println("tokens:", tokens)
	fmt.Println("predict:", predict)

	enc.Features = true
	_, features, predict, _ := encodeSteps(enc, history[:1], 0)
	w := enc.Width()
	for p := 0; p < len(features)/w; p++ {
		fmt.Println(features[p*w : (p+1)*w])
	}
	fmt.Println("predict:", predict)
	// Output:
	// vocab: 9
	// tokens: [0 2 3 6 1 4 8 2]
	// predict: [1 4 7]
	// [1 0 0 0 0 0]
	// [0 0 1 0 0 0]
	// [0 0 0 1 0 0.3]
	// [0 1 0 0 0 0]
	// predict: [1 3]
}

// encodeSteps encodes a game history given as learner.Steps.
func encodeSteps(enc incontext.GameEncoder, h []learner.Step, query int) ([]int, []float64, []int, error) {
	return incontext.Encode[int](enc, incontext.RoundsOf(h), query)
}
