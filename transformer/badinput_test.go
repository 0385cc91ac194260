package transformer

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if _, err := New[float32](huge, rng); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "Width = 1099511627776") {
		t.Errorf("New with Width 2⁴⁰: %v", err)
	}
	over := small
	over.Width, over.FeedForward, over.Layers = 1<<31, 1<<31, 1<<20
	if err := over.Validate(); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("overflowing count: %v", err)
	}
	// MaxParams lowers and raises the limit.
	capped := small
	capped.MaxParams = 10
	if err := capped.Validate(); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "above MaxParams = 10") {
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
	if _, err := Load[float32](dir); !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), `"head.weight" entry 3 is NaN`) {
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
	if _, err := Load[float32](dir); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Load with Width 2⁴⁰: %v", err)
	}
}
