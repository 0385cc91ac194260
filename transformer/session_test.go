package transformer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/tensor"
)

// sessionMatchesForward checks that appending a sequence position by
// position gives the logits of the full forward pass at every position.
func sessionMatchesForward[F tensor.Float](t *testing.T, c Config, tol float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	c.MaxLen = 128
	m, err := New[F](c, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params() {
		for j := range p.Value {
			p.Value[j] += F(0.2 * rng.NormFloat64())
		}
	}
	const n = causalBlock + 9 // more than one causal block
	var seq Sequence[F]
	if c.Vocab > 0 {
		for range n {
			seq.Tokens = append(seq.Tokens, rng.IntN(c.Vocab))
		}
	} else {
		for range n * c.Features {
			seq.Features = append(seq.Features, F(rng.NormFloat64()))
		}
	}
	full, err := m.Forward([]Sequence[F]{seq})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewSession()
	for round := 0; round < 2; round++ { // the second round checks Reset
		for i := 0; i < n; i++ {
			var got []F
			if c.Vocab > 0 {
				got, err = s.AppendToken(seq.Tokens[i])
			} else {
				got, err = s.AppendFeatures(seq.Features[i*c.Features : (i+1)*c.Features])
			}
			if err != nil {
				t.Fatal(err)
			}
			want := full[0][i*c.Outputs : (i+1)*c.Outputs]
			for j := range got {
				if d := math.Abs(float64(got[j] - want[j])); d > tol*max(1, math.Abs(float64(want[j]))) {
					t.Fatalf("position %d logit %d: session %v, forward %v", i, j, got[j], want[j])
				}
			}
		}
		if s.Len() != n {
			t.Fatalf("Len = %d, want %d", s.Len(), n)
		}
		s.Reset()
	}
}

func TestSessionMatchesForward(t *testing.T) {
	for _, c := range gradConfigs() {
		t.Run(configName(c)+"/float64", func(t *testing.T) { sessionMatchesForward[float64](t, c, 1e-9) })
		t.Run(configName(c)+"/float32", func(t *testing.T) { sessionMatchesForward[float32](t, c, 1e-4) })
	}
}

func TestSessionErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tok, _ := New[float64](Config{Layers: 1, Heads: 1, Width: 4, FeedForward: 4, Vocab: 3, Outputs: 2, MaxLen: 2}, rng)
	s := tok.NewSession()
	if _, err := s.AppendToken(3); err == nil {
		t.Error("token out of range accepted")
	}
	if _, err := s.AppendFeatures([]float64{1}); err == nil {
		t.Error("features accepted by a token model")
	}
	for range 2 {
		if _, err := s.AppendToken(1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AppendToken(1); err == nil {
		t.Error("append beyond MaxLen accepted")
	}
	feat, _ := New[float64](Config{Layers: 1, Heads: 1, Width: 4, FeedForward: 4, Features: 2, Outputs: 2}, rng)
	fs := feat.NewSession()
	if _, err := fs.AppendFeatures([]float64{1, math.NaN()}); err == nil {
		t.Error("NaN feature accepted")
	}
	if _, err := fs.AppendFeatures([]float64{1}); err == nil {
		t.Error("short feature vector accepted")
	}
	if _, err := fs.AppendToken(0); err == nil {
		t.Error("token accepted by a feature model")
	}
}

// TestSessionTruncate checks that truncating and appending gives exactly the
// logits of a fresh session fed the same positions.
func TestSessionTruncate(t *testing.T) {
	m, err := New[float64](Config{Layers: 2, Heads: 2, Width: 8, FeedForward: 8, Vocab: 5, Outputs: 3, MaxLen: 16}, rand.New(rand.NewPCG(8, 8)))
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewSession()
	for _, tok := range []int{0, 1, 2, 3} {
		if _, err := s.AppendToken(tok); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Truncate(2); err != nil {
		t.Fatal(err)
	}
	got, err := s.AppendToken(4)
	if err != nil {
		t.Fatal(err)
	}
	fresh := m.NewSession()
	var want []float64
	for _, tok := range []int{0, 1, 4} {
		if want, err = fresh.AppendToken(tok); err != nil {
			t.Fatal(err)
		}
	}
	for j := range want {
		if got[j] != want[j] {
			t.Fatalf("after Truncate: logits %v, fresh session %v", got, want)
		}
	}
	if s.Len() != 3 {
		t.Fatalf("Len = %d, want 3", s.Len())
	}
	if s.Truncate(4) == nil || s.Truncate(-1) == nil {
		t.Fatal("Truncate out of range accepted")
	}
}
