package incontext_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/learner/incontext"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/tables"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer"
)

// icModel returns a small random transformer that reads enc's input and
// gives enc.Actions logits. Its weights are scaled up tenfold from the
// default N(0, 0.02²) so that the policies are far from uniform (yet not
// saturated) and a wrong position or a stale cache shows.
func icModel[F tensor.Float](t testing.TB, enc incontext.GameEncoder, maxLen int, seed uint64) *transformer.Model[F] {
	t.Helper()
	cfg := transformer.Config{
		Layers: 2, Heads: 2, Width: 8, FeedForward: 16,
		Vocab: enc.Vocab(), Features: enc.Width(), Outputs: enc.Actions, MaxLen: maxLen,
	}
	m, err := transformer.New[F](cfg, rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params() {
		for i := range p.Value {
			p.Value[i] *= 10
		}
	}
	return m
}

// icReference returns softmax of the full forward pass's logits at the
// prediction position of Encode(history, query).
func icReference[F tensor.Float](t testing.TB, m *transformer.Model[F], enc incontext.GameEncoder, history []learner.Step, query int) []float64 {
	t.Helper()
	tokens, features, predict, err := encodeSteps(enc, history, query)
	if err != nil {
		t.Fatal(err)
	}
	seq := transformer.Sequence[F]{Tokens: tokens}
	if features != nil {
		seq.Features = make([]F, len(features))
		for i, v := range features {
			seq.Features[i] = F(v)
		}
	}
	out, err := m.Forward([]transformer.Sequence[F]{seq})
	if err != nil {
		t.Fatal(err)
	}
	A := enc.Actions
	pos := predict[len(history)]
	logits := make([]float64, A)
	for i := range logits {
		logits[i] = float64(out[0][pos*A+i])
	}
	return simplex.Softmax(nil, logits)
}

// icHistory draws a random history of T rounds over enc's states and
// actions, and a final next state.
func icHistory(enc incontext.GameEncoder, T int, rng *rand.Rand) ([]learner.Step, int) {
	h := make([]learner.Step, T)
	for k := range h {
		h[k] = learner.Step{State: rng.IntN(enc.States), Action: rng.IntN(enc.Actions), Reward: rng.Float64()}
	}
	// Exact bin edges and the ends of [0,1] too.
	if T > 2 {
		h[0].Reward, h[1].Reward, h[2].Reward = 0, 1, 0.1
	}
	return h, rng.IntN(enc.States)
}

func icClose(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !(math.Abs(a[i]-b[i]) <= tol) {
			return false
		}
	}
	return true
}

// TestInContextMatchesForward checks the incremental policy against the
// softmax of the full forward pass at predict[T] of Encode(history, s), for
// every prefix of a history and every state, in token and feature mode,
// matrix and Markov games.
func TestInContextMatchesForward(t *testing.T) {
	const T = 12
	for _, enc := range []incontext.GameEncoder{
		{States: 1, Actions: 3},
		{States: 1, Actions: 3, Features: true},
		{States: 3, Actions: 2, RewardBins: 4},
		{States: 3, Actions: 2, Features: true},
	} {
		m := icModel[float64](t, enc, 64, 1)
		ic, err := incontext.NewLearner(m, enc, incontext.Config{})
		if err != nil {
			t.Fatalf("%+v: %v", enc, err)
		}
		rng := rand.New(rand.NewPCG(3, 4))
		history, final := icHistory(enc, T, rng)
		spread, interior := 0.0, false
		for k := 0; k <= T; k++ {
			if ic.Rounds() != k {
				t.Fatalf("%+v: Rounds = %d, want %d", enc, ic.Rounds(), k)
			}
			// Ask the states in a scrambled order, each twice.
			order := rng.Perm(enc.States)
			order = append(order, rng.Perm(enc.States)...)
			for _, s := range order {
				got := ic.Policy(s)
				want := icReference(t, m, enc, history[:k], s)
				if !icClose(got, want, 1e-9) {
					t.Fatalf("%+v: round %d state %d: Policy = %v, Forward gives %v", enc, k+1, s, got, want)
				}
				inside := true
				for _, p := range got {
					spread = max(spread, math.Abs(p-1/float64(enc.Actions)))
					inside = inside && p > 0.01
				}
				interior = interior || inside
			}
			if k == T {
				break
			}
			next := final
			if k+1 < T {
				next = history[k+1].State
			}
			st := history[k]
			if err := ic.Observe(st.State, st.Action, st.Reward, next); err != nil {
				t.Fatalf("%+v: round %d: %v", enc, k+1, err)
			}
		}
		if spread < 0.05 {
			t.Errorf("%+v: policies within %v of uniform: the test cannot tell positions apart", enc, spread)
		}
		if !interior {
			t.Errorf("%+v: every policy is saturated: the test cannot tell positions apart", enc)
		}
		if ic.Context() != T {
			t.Errorf("%+v: Context = %d, want %d", enc, ic.Context(), T)
		}
	}
}

// TestInContextFloat32 checks a float32 model against its own forward pass.
func TestInContextFloat32(t *testing.T) {
	enc := incontext.GameEncoder{States: 2, Actions: 3}
	m := icModel[float32](t, enc, 32, 5)
	ic, err := incontext.NewLearner(m, enc, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	history, final := icHistory(enc, 6, rand.New(rand.NewPCG(1, 1)))
	for k, st := range history {
		next := final
		if k+1 < len(history) {
			next = history[k+1].State
		}
		if err := ic.Observe(st.State, st.Action, st.Reward, next); err != nil {
			t.Fatal(err)
		}
	}
	for s := range enc.States {
		got, want := ic.Policy(s), icReference(t, m, enc, history, s)
		if !icClose(got, want, 1e-5) {
			t.Errorf("state %d: Policy = %v, Forward gives %v", s, got, want)
		}
	}
}

// TestInContextQueriesDoNotChangeContext plays one history twice, once
// asking every state before each round and once only the state played, and
// checks that the policies agree.
func TestInContextQueriesDoNotChangeContext(t *testing.T) {
	enc := incontext.GameEncoder{States: 3, Actions: 2}
	m := icModel[float64](t, enc, 64, 2)
	curious, err := incontext.NewLearner(m, enc, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := incontext.NewLearner(m, enc, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	history, final := icHistory(enc, 10, rand.New(rand.NewPCG(9, 9)))
	for k, st := range history {
		for s := enc.States - 1; s >= 0; s-- {
			curious.Policy(s)
		}
		if got, want := curious.Policy(st.State), plain.Policy(st.State); !icClose(got, want, 1e-12) {
			t.Fatalf("round %d: policies differ: %v vs %v", k+1, got, want)
		}
		next := final
		if k+1 < len(history) {
			next = history[k+1].State
		}
		for _, l := range []*incontext.Learner[float64]{curious, plain} {
			if err := l.Observe(st.State, st.Action, st.Reward, next); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a, b := play.Stationary(curious, curious.States()), play.Stationary(plain, plain.States()); !reflect.DeepEqual(a, b) {
		t.Errorf("final stationary policies differ: %v vs %v", a, b)
	}
}

func TestInContextStationaryPolicy(t *testing.T) {
	enc := incontext.GameEncoder{States: 3, Actions: 3, Features: true}
	m := icModel[float64](t, enc, 64, 3)
	ic, err := incontext.NewLearner(m, enc, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := incontext.NewLearner(m, enc, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	history, final := icHistory(enc, 5, rand.New(rand.NewPCG(2, 2)))
	for k, st := range history {
		next := final
		if k+1 < len(history) {
			next = history[k+1].State
		}
		for _, l := range []*incontext.Learner[float64]{ic, fresh} {
			if err := l.Observe(st.State, st.Action, st.Reward, next); err != nil {
				t.Fatal(err)
			}
		}
	}
	pi := play.Stationary(ic, ic.States())
	if len(pi) != enc.States {
		t.Fatalf("StationaryPolicy has %d states, want %d", len(pi), enc.States)
	}
	for s := range enc.States {
		if !icClose(pi[s], fresh.Policy(s), 0) {
			t.Errorf("state %d: StationaryPolicy %v, Policy %v", s, pi[s], fresh.Policy(s))
		}
		if err := simplex.CheckDistribution("policy", pi[s], enc.Actions); err != nil {
			t.Error(err)
		}
	}
	// A copy: modifying it does not touch the learner.
	pi[0][0] = 42
	if ic.Policy(0)[0] == 42 {
		t.Error("StationaryPolicy returned the learner's own slice")
	}
}

// TestInContextSlidingWindow plays past a model's MaxLen: the learner
// slides its window (dropping the older half of the rounds) and its policy
// is then the full forward pass on the rounds it kept.
func TestInContextSlidingWindow(t *testing.T) {
	for _, c := range []struct {
		enc    incontext.GameEncoder
		maxLen int
	}{
		{incontext.GameEncoder{States: 1, Actions: 2}, 11},
		{incontext.GameEncoder{States: 2, Actions: 2}, 14},
		{incontext.GameEncoder{States: 2, Actions: 3, Features: true}, 9},
		{incontext.GameEncoder{States: 1, Actions: 2, Features: true}, 6},
	} {
		m := icModel[float64](t, c.enc, c.maxLen, 4)
		ic, err := incontext.NewLearner(m, c.enc, incontext.Config{})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(8, 8))
		history, final := icHistory(c.enc, 40, rng)
		slid := false
		for k, st := range history {
			next := final
			if k+1 < len(history) {
				next = history[k+1].State
			}
			got := ic.Policy(st.State)
			kept := history[k-ic.Context() : k]
			if ic.Context() < k {
				slid = true
			}
			if c.enc.Positions(ic.Context()) > c.maxLen {
				t.Fatalf("%+v: %d rounds kept need %d positions, MaxLen %d", c.enc, ic.Context(), c.enc.Positions(ic.Context()), c.maxLen)
			}
			if want := icReference(t, m, c.enc, kept, st.State); !icClose(got, want, 1e-9) {
				t.Fatalf("%+v: round %d (%d kept): Policy = %v, Forward on the kept rounds %v", c.enc, k+1, len(kept), got, want)
			}
			if err := ic.Observe(st.State, st.Action, st.Reward, next); err != nil {
				t.Fatalf("%+v: round %d: %v", c.enc, k+1, err)
			}
		}
		if !slid || ic.Rounds() != len(history) {
			t.Errorf("%+v, MaxLen %d: window never slid (Rounds %d, Context %d)", c.enc, c.maxLen, ic.Rounds(), ic.Context())
		}
		ic.Reset()
		if ic.Rounds() != 0 || ic.Context() != 0 {
			t.Errorf("after Reset: Rounds = %d, Context = %d", ic.Rounds(), ic.Context())
		}
	}
}

func TestInContextObserveErrors(t *testing.T) {
	enc := incontext.GameEncoder{States: 2, Actions: 3}
	m := icModel[float64](t, enc, 32, 6)
	ic, err := incontext.NewLearner(m, enc, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ic.Observe(1, 2, 0.5, 0); err != nil {
		t.Fatal(err)
	}
	before := play.Stationary(ic, ic.States())
	for _, c := range []struct {
		s, a   int
		r      float64
		next   int
		substr string
	}{
		{2, 0, 0.5, 0, "state 2"},
		{0, 0, 0.5, -1, "state -1"},
		{0, 3, 0.5, 0, "action 3"},
		{0, -1, 0.5, 0, "action -1"},
		{0, 1, math.NaN(), 0, "NaN"},
		{0, 1, math.Inf(-1), 0, "-Inf"},
		{0, 1, 1.25, 0, "1.25"},
	} {
		err := ic.Observe(c.s, c.a, c.r, c.next)
		if err == nil || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("Observe(%d, %d, %v, %d) = %v, want an error naming %q", c.s, c.a, c.r, c.next, err, c.substr)
		}
	}
	if ic.Rounds() != 1 || ic.Context() != 1 || !reflect.DeepEqual(play.Stationary(ic, ic.States()), before) {
		t.Error("rejected observations changed the learner")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Policy(2) did not panic")
			}
		}()
		ic.Policy(2)
	}()
	// A matrix-game learner only has state 0.
	mat := incontext.GameEncoder{States: 1, Actions: 2}
	icm, err := incontext.NewLearner(icModel[float64](t, mat, 16, 6), mat, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := icm.Observe(0, 0, 0.5, 1); err == nil {
		t.Error("matrix game: next state 1 accepted")
	}
}

func TestNewLearnerErrors(t *testing.T) {
	enc := incontext.GameEncoder{States: 2, Actions: 3}
	feat := incontext.GameEncoder{States: 2, Actions: 3, Features: true}
	small := incontext.GameEncoder{States: 1, Actions: 3}
	for _, c := range []struct {
		name   string
		m      transformer.Transformer[float64]
		enc    incontext.GameEncoder
		substr string
	}{
		{"nil model", nil, enc, "nil"},
		{"bad encoding", icModel[float64](t, enc, 16, 1), incontext.GameEncoder{States: 2}, "Actions = 0"},
		{"too few outputs", icModelOutputs(t, enc, 2), enc, "2 logits"},
		{"vocabulary too small", icModel[float64](t, small, 16, 1), enc, "vocabulary"},
		{"tokens for features", icModel[float64](t, enc, 16, 1), feat, "reads tokens"},
		{"features for tokens", icModel[float64](t, feat, 16, 1), enc, "vocabulary"},
		{"feature width", icModel[float64](t, incontext.GameEncoder{States: 1, Actions: 3, Features: true}, 16, 1), feat, "7 values"},
		{"no room for a round", icModel[float64](t, enc, 1, 1), enc, "positions"},
	} {
		_, err := incontext.NewLearner(c.m, c.enc, incontext.Config{})
		if err == nil || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: NewLearner = %v, want an error naming %q", c.name, err, c.substr)
		}
	}
}

// icModelOutputs returns a token model for enc with a given number of
// outputs.
func icModelOutputs(t testing.TB, enc incontext.GameEncoder, outputs int) *transformer.Model[float64] {
	t.Helper()
	m, err := transformer.New[float64](transformer.Config{
		Layers: 1, Heads: 1, Width: 4, FeedForward: 4, Vocab: enc.Vocab(), Outputs: outputs, MaxLen: 16,
	}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestInContextFloor checks that an extreme model's policy stays strictly
// inside the simplex.
func TestInContextFloor(t *testing.T) {
	enc := incontext.GameEncoder{States: 1, Actions: 3}
	m := icModel[float64](t, enc, 16, 8)
	head := m.Param("head.weight")
	if head == nil {
		for _, p := range m.Params() {
			t.Log(p.Name)
		}
		t.Fatal("no head.weight parameter")
	}
	for i := range head.Value {
		head.Value[i] *= 1e6
	}
	ic, err := incontext.NewLearner(m, enc, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 4; k++ {
		p := ic.Policy(0)
		var sum float64
		for _, v := range p {
			if !(v >= incontext.Floor/2 && v < 1) {
				t.Fatalf("round %d: policy %v leaves the interior of the simplex", k+1, p)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("round %d: policy %v sums to %v", k+1, p, sum)
		}
		if err := ic.Observe(0, k%3, 0.4, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInContextSelfPlay is the acceptance test that the in-context learner
// plugs into the same self-play harness as OMD: the in-context learner plays
// the row of a 2×2 game against OMD, deterministically by seed, and its
// final policy is the model's prediction on the recorded history.
func TestInContextSelfPlay(t *testing.T) {
	const T = 40
	enc := incontext.GameEncoder{States: 1, Actions: 2, RewardBins: 2}
	g := game.MustZeroSum([][]float64{{1, 0}, {0.2, 0.7}})
	m := icModel[float64](t, enc, enc.Positions(T), 11)
	run := func() (*play.SelfPlayResult, *incontext.Learner[float64]) {
		ic, err := incontext.NewLearner(m, enc, incontext.Config{})
		if err != nil {
			t.Fatal(err)
		}
		col, err := learner.NewOMD(learner.OMDConfig{Actions: 2, Role: game.ColumnPlayer})
		if err != nil {
			t.Fatal(err)
		}
		res, err := play.SelfPlay(context.Background(), g, ic, col,
			play.SelfPlayConfig{Rounds: T, Record: true, Checkpoints: []int{1, 10}},
			rand.New(rand.NewPCG(21, 22)))
		if err != nil {
			t.Fatal(err)
		}
		return res, ic
	}
	res, ic := run()
	res2, _ := run()
	if !reflect.DeepEqual(res, res2) {
		t.Error("two runs with the same seed differ")
	}
	if ic.Rounds() != T || len(res.Row) != T {
		t.Fatalf("Rounds = %d, recorded %d, want %d", ic.Rounds(), len(res.Row), T)
	}
	if math.IsNaN(res.LastGap) || res.LastGap < 0 || math.IsNaN(res.AverageGap) {
		t.Errorf("gaps %v, %v", res.LastGap, res.AverageGap)
	}
	// The last iterate x_T is the prediction on the first T−1 rounds.
	if want := icReference(t, m, enc, res.Row[:T-1], 0); !icClose(res.LastX[0], want, 1e-9) {
		t.Errorf("LastX = %v, the model on the recorded history gives %v", res.LastX, want)
	}
	if want := icReference(t, m, enc, res.Row, 0); !icClose(ic.Policy(0), want, 1e-9) {
		t.Errorf("final policy %v, the model on the recorded history gives %v", ic.Policy(0), want)
	}
	// Reset returns to the initial policy.
	ic.Reset()
	if want := icReference(t, m, enc, nil, 0); !icClose(ic.Policy(0), want, 1e-9) {
		t.Errorf("after Reset: %v, want %v", ic.Policy(0), want)
	}
}

// TestInContextMarkovSelfPlay runs a Markov in-context learner against
// OMD on a two-state game and checks its final policy against the
// model on the recorded trajectory.
func TestInContextMarkovSelfPlay(t *testing.T) {
	const T = 30
	half := []float64{0.5, 0.5}
	tr := [][][]float64{{half, {0.9, 0.1}}, {{0.2, 0.8}, half}}
	g, err := tables.Discounted([][][]float64{{{1, 0}, {0, 1}}, {{1, 0}, {0, 0.5}}}, [][][][]float64{tr, tr}, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []incontext.GameEncoder{
		{States: 2, Actions: 2, RewardBins: 2},
		{States: 2, Actions: 2, Features: true},
	} {
		m := icModel[float64](t, enc, enc.Positions(T), 12)
		run := func() (*play.SelfPlayResult, *incontext.Learner[float64]) {
			ic, err := incontext.NewLearner(m, enc, incontext.Config{})
			if err != nil {
				t.Fatal(err)
			}
			col, err := learner.NewOMD(learner.OMDConfig{States: 2, Actions: 2, Discount: 0.9, Role: game.ColumnPlayer})
			if err != nil {
				t.Fatal(err)
			}
			res, err := play.SelfPlay(context.Background(), g, ic, col,
				play.SelfPlayConfig{Rounds: T, Record: true, Checkpoints: []int{5, 20}},
				rand.New(rand.NewPCG(5, 6)))
			if err != nil {
				t.Fatal(err)
			}
			return res, ic
		}
		res, ic := run()
		res2, _ := run()
		if fmt.Sprint(res) != fmt.Sprint(res2) { // NaN gaps defeat DeepEqual
			t.Errorf("%+v: two runs with the same seed differ", enc)
		}
		if ic.Rounds() != T || math.IsNaN(res.LastGap) || res.LastGap < 0 {
			t.Errorf("%+v: Rounds = %d, Gap = %v", enc, ic.Rounds(), res.LastGap)
		}
		for s := range 2 {
			want := icReference(t, m, enc, res.Row, s)
			if got := ic.Policy(s); !icClose(got, want, 1e-9) {
				t.Errorf("%+v: state %d: final policy %v, model on the trajectory %v", enc, s, got, want)
			}
		}
		// The last iterate at round T is the prediction on T−1 rounds.
		for s := range 2 {
			if want := icReference(t, m, enc, res.Row[:T-1], s); !icClose(res.LastX[s], want, 1e-9) {
				t.Errorf("%+v: LastX[%d] = %v, want %v", enc, s, res.LastX[s], want)
			}
		}
	}
}

// BenchmarkInContextObserve measures one round of a Markov in-context
// learner (Policy of the played state, then Observe) on a small model.
func BenchmarkInContextObserve(b *testing.B) {
	enc := incontext.GameEncoder{States: 3, Actions: 3}
	m := icModel[float64](b, enc, 1024, 1)
	ic, err := incontext.NewLearner(m, enc, incontext.Config{})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	s := 0
	for b.Loop() {
		if ic.Rounds() == enc.MaxRounds(1024) {
			ic.Reset()
		}
		p := ic.Policy(s)
		a := simplex.SampleCategorical(p, rng)
		next := rng.IntN(enc.States)
		if err := ic.Observe(s, a, rng.Float64(), next); err != nil {
			b.Fatal(err)
		}
		s = next
	}
}
