package transformer

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/transformer/safetensors"
)

// TestBadInputs replays inputs that crashed or were accepted silently and
// asserts the sentinel each now gives.
func TestBadInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	small := Config{Layers: 1, Heads: 1, Width: 4, FeedForward: 4, Vocab: 3, Outputs: 2, MaxLen: 8}

	// A width of 2⁴⁰ passed Validate and New tried to allocate terabytes.
	huge := small
	huge.Width, huge.Heads = 1<<40, 1
	if _, err := New[float32](huge, rng); !errors.Is(err, icrl.ErrTooLarge) || !strings.Contains(err.Error(), "Width = 1099511627776") {
		t.Errorf("New with Width 2⁴⁰: %v", err)
	}
	over := small
	over.Width, over.FeedForward, over.Layers = 1<<31, 1<<31, 1<<20
	if err := over.Validate(); !errors.Is(err, icrl.ErrTooLarge) || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("overflowing count: %v", err)
	}
	// MaxParams lowers and raises the limit.
	capped := small
	capped.MaxParams = 10
	if err := capped.Validate(); !errors.Is(err, icrl.ErrTooLarge) || !strings.Contains(err.Error(), "above MaxParams = 10") {
		t.Errorf("MaxParams 10: %v", err)
	}
	capped.MaxParams = -1
	if err := capped.Validate(); err == nil {
		t.Error("negative MaxParams: no error")
	}

	// A zero Model said it "reads feature vectors".
	var zero Model[float32]
	if _, err := zero.Forward([]Sequence[float32]{{Tokens: []int{0}}}); !errors.Is(err, ErrZeroModel) {
		t.Errorf("Forward on a zero Model: %v", err)
	}

	// NaN weights were loaded, and Forward returned NaN logits.
	m, err := New[float32](small, rng)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.ReadFile(filepath.Join(dir, WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	var ts []safetensors.Tensor
	for _, tn := range f.Tensors() {
		if tn.Name == "head.weight" {
			v, _ := tn.AsFloat32()
			v[3] = float32(math.NaN())
			tn = safetensors.FromFloat32(tn.Name, tn.Shape, v)
		}
		ts = append(ts, tn)
	}
	if err := safetensors.WriteFile(filepath.Join(dir, WeightsFile), ts, f.Metadata); err != nil {
		t.Fatal(err)
	}
	if _, err := Load[float32](dir); !errors.Is(err, icrl.ErrNotFinite) || !strings.Contains(err.Error(), `"head.weight" entry 3 is NaN`) {
		t.Errorf("Load with a NaN weight: %v", err)
	}

	// An oversized config in a saved model said "too few for the -1
	// parameters".
	raw, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	bad := strings.Replace(string(raw), `"width": 4,`, `"width": 1099511627776,`, 1)
	if bad == string(raw) {
		t.Fatalf("config.json has no width field to edit: %s", raw)
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load[float32](dir); !errors.Is(err, icrl.ErrTooLarge) {
		t.Errorf("Load with Width 2⁴⁰: %v", err)
	}
}

// TestBadInputSentinels replays bad configurations, inputs and targets and
// checks the sentinel each error wraps.
func TestBadInputSentinels(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	small := Config{Layers: 1, Heads: 1, Width: 4, FeedForward: 4, Vocab: 3, Outputs: 2, MaxLen: 4}
	m, err := New[float32](small, rng)
	if err != nil {
		t.Fatal(err)
	}
	with := func(edit func(*Config)) error {
		c := small
		edit(&c)
		return c.Validate()
	}
	forward := func(s Sequence[float32]) error {
		_, err := m.Forward([]Sequence[float32]{s})
		return err
	}
	loss := func(tg Target[float32]) error {
		_, err := m.Loss([]Sequence[float32]{{Tokens: []int{0, 1}}}, []Target[float32]{tg})
		return err
	}
	session := m.NewSession()
	_, tokErr := session.AppendToken(7)
	_, featErr := session.AppendFeatures([]float32{1})
	_, newErr := New[float32](small, nil)
	_, zeroSessionErr := new(Session[float32]).AppendToken(0)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"Config{Layers: 0}", with(func(c *Config) { c.Layers = 0 }), icrl.ErrInvalid},
		{"Config{Heads: 3}", with(func(c *Config) { c.Heads = 3 }), icrl.ErrInvalid},
		{"Config{Vocab and Features}", with(func(c *Config) { c.Features = 2 }), icrl.ErrInvalid},
		{"Config{NormEpsilon: NaN}", with(func(c *Config) { c.NormEpsilon = math.NaN() }), icrl.ErrInvalid},
		{"New(nil rng)", newErr, icrl.ErrNil},
		{"Forward(token 9)", forward(Sequence[float32]{Tokens: []int{9}}), icrl.ErrShape},
		{"Forward(features)", forward(Sequence[float32]{Features: []float32{1}}), icrl.ErrShape},
		{"Forward(empty)", forward(Sequence[float32]{}), icrl.ErrInvalid},
		{"Forward(past MaxLen)", forward(Sequence[float32]{Tokens: []int{0, 0, 0, 0, 0}}), icrl.ErrTooLarge},
		{"Loss(3 labels)", loss(Target[float32]{Labels: []int{0, 1, 1}}), icrl.ErrShape},
		{"Loss(label 5)", loss(Target[float32]{Labels: []int{0, 5}}), icrl.ErrShape},
		{"Loss(no labels)", loss(Target[float32]{}), icrl.ErrInvalid},
		{"AppendToken(7)", tokErr, icrl.ErrShape},
		{"Session{}.AppendToken", zeroSessionErr, ErrZeroModel},
		{"AppendFeatures", featErr, icrl.ErrShape},
		{"Adam(Beta1 1)", AdamConfig{Beta1: 1, Beta2: 0.9, Epsilon: 1e-8}.Validate(), icrl.ErrInvalid},
		{"ConstantLR(−1)", ConstantLR(-1).Validate(), icrl.ErrInvalid},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v, want one wrapping %v", c.name, c.err, c.want)
		}
	}
}

// TestNilCheckpoint: importing a nil safetensors file is an error (it was
// dereferenced).
func TestNilCheckpoint(t *testing.T) {
	for _, layout := range []Layout{TorchLayout, GPT2Layout} {
		if _, err := Import[float32](nil, layout, Config{}); !errors.Is(err, icrl.ErrNil) {
			t.Errorf("Import(nil, %v): %v, want ErrNil", layout, err)
		}
	}
	if _, err := ImportTorch[float64](nil, Config{}); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("ImportTorch(nil): %v, want ErrNil", err)
	}
}
