package control

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/quantize"
)

// softmax2 returns the softmax of the first two values of z.
func softmax2(z []float64) []float64 {
	m := max(z[0], z[1])
	a, b := math.Exp(z[0]-m), math.Exp(z[1]-m)
	return []float64{a / (a + b), b / (a + b)}
}

// TestTransformerPlaysInContext trains a one-layer block by the quantized
// DP on encoded game histories (labels: the row player's equilibrium of
// the game in the first two coordinates), deploys the solution's weights
// as a Transformer and plays it through incontext.Play. Checked: the
// decoder's output at every position equals Block.Forward of the prefix
// (a one-layer block's causal restriction), so on a training sequence's
// last token it is what the DP optimised; and the policies the in-context
// learners held at the end of self-play are the softmax of Block.Forward
// on their recorded histories.
func TestTransformerPlaysInContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	enc := incontext.GameEncoder{States: 1, Actions: 2, Features: true} // width 4: BOS, a0, a1, r
	const K, rounds = 8, 3
	N := enc.Positions(rounds)
	var X, Y [][][]float64
	for range K {
		g, err := game.RandomUniform(2, 2, rng)
		if err != nil {
			t.Fatal(err)
		}
		x, _, err := g.Nash()
		if err != nil {
			t.Fatal(err)
		}
		var rs []incontext.Round[int]
		for range rounds {
			a := rng.IntN(2)
			rs = append(rs, incontext.Round[int]{Action: a, Reward: float64(rng.IntN(2))})
		}
		_, feats, _, err := incontext.Encode[int](enc, rs, 0)
		if err != nil {
			t.Fatal(err)
		}
		var xs, ys [][]float64
		for i := range N {
			xs = append(xs, feats[i*4:(i+1)*4])
			ys = append(ys, []float64{x[0][0], x[0][1], 0, 0})
		}
		X, Y = append(X, xs), append(Y, ys)
	}
	data := dataset(X, Y)
	grid, err := quantize.NewBoxGrid([]float64{-0.25, -0.25, -0.25, -0.25}, []float64{1.25, 1.25, 1.25, 1.25}, []int{3, 3, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	d := Dims{D: 4, Hidden: 4, QK: 2}
	block := Block[float64]{Dims: d, Beta: 1}
	p, err := NewProblem(ProblemConfig[float64]{Block: block, T: 1, Data: data, Grid: grid, Ell: N, Actions: randActions(t, rng, d, 1, 32)})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := ReachableDP[float64]{}.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewTransformer(block, sol.Weights, 2)
	if err != nil {
		t.Fatal(err)
	}
	if m.Layers() != 1 || m.Outputs() != 2 || m.Capacity() != 0 {
		t.Fatalf("Layers %d, Outputs %d, Capacity %d; want 1, 2, 0", m.Layers(), m.Outputs(), m.Capacity())
	}

	dec := m.NewDecoder()
	for k := range K {
		dec.Reset()
		for i := range N {
			got, err := dec.AppendFeatures(data.X.Row(k, i))
			if err != nil {
				t.Fatal(err)
			}
			want := block.Forward(tokens(data.X, k)[:i+1], sol.Weights)[i][:2]
			for c := range want {
				if math.Abs(got[c]-want[c]) > 1e-12 {
					t.Fatalf("sequence %d, position %d: logits %v, Forward of the prefix %v", k, i, got, want)
				}
			}
		}
	}
	// Truncate drops positions: re-feeding the last one gives the same logits.
	last := append([]float64(nil), must(dec.AppendFeatures(data.X.Row(0, 0)))...)
	if err := dec.Truncate(dec.Len() - 1); err != nil {
		t.Fatal(err)
	}
	if again := must(dec.AppendFeatures(data.X.Row(0, 0))); !slices.Equal(again, last) {
		t.Errorf("after Truncate: %v, before %v", again, last)
	}

	g, err := game.RandomUniform(2, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	const T = 12
	res, err := incontext.Play(context.Background(), g, m, m, enc, enc, play.SelfPlayConfig{Rounds: T, Record: true}, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		history []learner.Step
		policy  []float64
	}{{"row", res.Row, res.LastX[0]}, {"column", res.Col, res.LastY[0]}} {
		_, feats, _, err := incontext.Encode(enc, incontext.RoundsOf(c.history[:T-1]), 0)
		if err != nil {
			t.Fatal(err)
		}
		var xs [][]float64
		for i := range len(feats) / 4 {
			xs = append(xs, feats[i*4:(i+1)*4])
		}
		want := softmax2(block.Forward(xs, sol.Weights)[len(xs)-1])
		if math.Abs(c.policy[0]-want[0]) > 1e-12 || math.Abs(c.policy[1]-want[1]) > 1e-12 {
			t.Errorf("%s player's last policy %v, softmax of Forward on its history %v", c.name, c.policy, want)
		}
	}
	if !(res.LastGap >= 0 && res.LastGap <= 1) {
		t.Errorf("last gap %v outside [0, 1]", res.LastGap)
	}
	t.Logf("DP value %.4f; self-play gap after %d rounds %.4f", sol.Value, T, res.LastGap)
}

func must(z []float64, err error) []float64 {
	if err != nil {
		panic(err)
	}
	return z
}

// TestTransformerCausalLayers checks a two-layer decoder against the
// causal restriction of eq. (1) written with Block.Forward one layer and
// one prefix at a time, and that the decoder is not Forward of the prefix
// (whose first layer lets earlier positions see later ones).
func TestTransformerCausalLayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	d := Dims{D: 3, Hidden: 5, QK: 2}
	block := Block[float64]{Dims: d, Beta: 0.7, Sigma: Tanh[float64]{}}
	us := []Action[float64]{*randAction(t, rng, d, 1), *randAction(t, rng, d, 1)}
	m, err := NewTransformer(block, us, 0)
	if err != nil {
		t.Fatal(err)
	}
	const N = 6
	xs := make([][]float64, N)
	for i := range xs {
		xs[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	// Reference: layer by layer, position i attends to positions 0…i.
	h := xs
	for l := range us {
		next := make([][]float64, N)
		for i := range N {
			next[i] = block.Forward(h[:i+1], us[l:l+1])[i]
		}
		h = next
	}
	dec := m.NewDecoder()
	differs := false
	for i := range N {
		got, err := dec.AppendFeatures(xs[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("%d logits, want D = 3 (outputs 0)", len(got))
		}
		for c := range got {
			if math.Abs(got[c]-h[i][c]) > 1e-12 {
				t.Fatalf("position %d: %v, causal reference %v", i, got, h[i])
			}
		}
		if full := block.Forward(xs[:i+1], us)[i]; math.Abs(full[0]-got[0]) > 1e-9 {
			differs = true
		}
	}
	if !differs {
		t.Error("the two-layer decoder equals Forward of every prefix: the causal restriction is not being tested")
	}
	if dec.Len() != N {
		t.Errorf("Len = %d, want %d", dec.Len(), N)
	}
}

func TestTransformerErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	d := Dims{D: 2, Hidden: 2, QK: 1}
	block := Block[float64]{Dims: d, Beta: 1}
	u := *randAction(t, rng, d, 1)
	other := *randAction(t, rng, Dims{D: 3, Hidden: 2, QK: 1}, 1)
	bad := u.Clone()
	bad.W[0] = math.NaN()
	for _, c := range []struct {
		name    string
		b       Block[float64]
		us      []Action[float64]
		outputs int
	}{
		{"no weights", block, nil, 0},
		{"outputs above D", block, []Action[float64]{u}, 3},
		{"negative outputs", block, []Action[float64]{u}, -1},
		{"other dims", block, []Action[float64]{u, other}, 0},
		{"NaN weight", block, []Action[float64]{*bad}, 0},
		{"invalid block", Block[float64]{Dims: Dims{D: 0, Hidden: 2, QK: 1}, Beta: 1}, []Action[float64]{u}, 0},
	} {
		if _, err := NewTransformer(c.b, c.us, c.outputs); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	m, err := NewTransformer(block, []Action[float64]{u}, 1)
	if err != nil {
		t.Fatal(err)
	}
	u.W[0] = 99 // the transformer holds a copy
	dec := m.NewDecoder()
	if _, err := dec.AppendToken(0); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("AppendToken: %v, want ErrInvalid", err)
	}
	if _, err := dec.AppendFeatures([]float64{1}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("width 1: %v, want ErrInvalid", err)
	}
	if _, err := dec.AppendFeatures([]float64{1, math.Inf(1)}); !errors.Is(err, icrl.ErrNotFinite) {
		t.Errorf("Inf feature: %v, want ErrNotFinite", err)
	}
	if dec.Len() != 0 {
		t.Errorf("Len = %d after rejected appends, want 0", dec.Len())
	}
	if err := dec.Truncate(1); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("Truncate(1) of an empty decoder: %v, want ErrInvalid", err)
	}
	if m.weights[0].W[0] == 99 {
		t.Error("NewTransformer did not copy the weights")
	}
}
