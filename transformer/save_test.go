package transformer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	for _, c := range gradConfigs() {
		t.Run(configName(c), func(t *testing.T) {
			dir := t.TempDir()
			m, err := New[float32](c, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			m.Params()[0].Value[0] = float32(math.Copysign(0, -1)) // −0 must survive
			if err := m.Save(dir); err != nil {
				t.Fatal(err)
			}
			l, err := Load[float32](dir)
			if err != nil {
				t.Fatal(err)
			}
			if l.Config() != m.Config() {
				t.Fatalf("config %+v, want %+v", l.Config(), m.Config())
			}
			if !sameParams(m, l) {
				t.Fatal("loaded weights differ from the saved ones")
			}
			wide, err := Load[float64](dir) // F32 weights widen exactly
			if err != nil {
				t.Fatalf("loading F32 weights into a float64 model: %v", err)
			}
			for i, p := range wide.Params() {
				for j, v := range p.Value {
					if w := m.Params()[i].Value[j]; v != float64(w) || math.Signbit(v) != math.Signbit(float64(w)) {
						t.Fatalf("%s[%d] = %v in the float64 model, want %v", p.Name, j, v, w)
					}
				}
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 2 {
				t.Fatalf("model directory holds %d files, want 2 (no temporary files left)", len(entries))
			}
		})
	}
}

// TestWeightsFileBytes checks the weights file byte by byte against the
// safetensors specification: an 8-byte little-endian header length N, N
// bytes of JSON (padded with spaces) mapping each tensor name to its dtype,
// shape and data_offsets, an optional __metadata__ of strings, and then the
// tensors tightly packed, little-endian, row-major.
func TestWeightsFileBytes(t *testing.T) {
	dir := t.TempDir()
	c := Config{Layers: 1, Heads: 1, Width: 2, FeedForward: 3, Vocab: 2, Outputs: 2, MaxLen: 3}
	m, err := New[float64](c, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(raw[:8])
	if 8+n > uint64(len(raw)) {
		t.Fatalf("header length %d exceeds the file", n)
	}
	if (8+n)%8 != 0 {
		t.Errorf("data buffer starts at byte %d, not 8-aligned", 8+n)
	}
	header := raw[8 : 8+n]
	if trimmed := bytes.TrimRight(header, " "); !json.Valid(trimmed) {
		t.Fatalf("header is not JSON: %q", header)
	}
	var h map[string]json.RawMessage
	if err := json.Unmarshal(header, &h); err != nil {
		t.Fatal(err)
	}
	var meta map[string]string
	if err := json.Unmarshal(h["__metadata__"], &meta); err != nil {
		t.Fatalf("__metadata__ is not a string map: %v", err)
	}
	if !strings.Contains(meta["config"], `"width": 2`) {
		t.Errorf("metadata config = %q", meta["config"])
	}
	data := raw[8+n:]
	type entry struct {
		DType       string `json:"dtype"`
		Shape       []int  `json:"shape"`
		DataOffsets [2]int `json:"data_offsets"`
	}
	var spans [][2]int
	for _, p := range m.Params() {
		var e entry
		if err := json.Unmarshal(h[p.Name], &e); err != nil {
			t.Fatalf("tensor %s: %v", p.Name, err)
		}
		if e.DType != "F64" || !slices.Equal(e.Shape, p.Shape) {
			t.Fatalf("tensor %s: dtype %s shape %v, want F64 %v", p.Name, e.DType, e.Shape, p.Shape)
		}
		b, end := e.DataOffsets[0], e.DataOffsets[1]
		if end-b != 8*len(p.Value) {
			t.Fatalf("tensor %s: %d bytes for %d values", p.Name, end-b, len(p.Value))
		}
		for i, v := range p.Value {
			if got := math.Float64frombits(binary.LittleEndian.Uint64(data[b+8*i:])); got != v {
				t.Fatalf("tensor %s[%d] = %v in the file, %v in the model", p.Name, i, got, v)
			}
		}
		spans = append(spans, e.DataOffsets)
	}
	if len(h) != len(m.Params())+1 {
		t.Errorf("header has %d entries, want %d tensors and __metadata__", len(h), len(m.Params()))
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	at := 0
	for _, s := range spans {
		if s[0] != at {
			t.Fatalf("tensors are not tightly packed: gap or overlap at byte %d", at)
		}
		at = s[1]
	}
	if at != len(data) {
		t.Fatalf("tensors cover %d of %d data bytes", at, len(data))
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	m := smallModel(t, 1)
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	weights, _ := os.ReadFile(filepath.Join(dir, WeightsFile))
	config, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	other := Config{Layers: 1, Heads: 2, Width: 16, FeedForward: 32, Vocab: 4, Outputs: 4, MaxLen: 16}
	otherJSON, _ := json.Marshal(other)
	for name, tc := range map[string]struct {
		weights, config []byte
		want            string
	}{
		"truncated weights": {weights[:len(weights)-5], config, ""},
		"empty weights":     {nil, config, ""},
		"bad header":        {append([]byte{255, 255, 255, 255, 0, 0, 0, 0}, weights[8:]...), config, ""},
		"bad config json":   {weights, []byte("{"), ""},
		"unknown field":     {weights, []byte(`{"layers":2,"heads":2,"width":16,"feed_forward":32,"vocab":4,"outputs":4,"colour":1}`), "colour"},
		"invalid config":    {weights, []byte(`{"layers":0}`), "Layers"},
		"other config":      {weights, otherJSON, "different configuration"},
	} {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, WeightsFile), tc.weights, 0o644)
		os.WriteFile(filepath.Join(d, ConfigFile), tc.config, 0o644)
		_, err := Load[float32](d)
		if err == nil {
			t.Errorf("%s: loaded without error", name)
		} else if tc.want != "" && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q does not mention %q", name, err, tc.want)
		}
	}
	if _, err := Load[float32](t.TempDir()); err == nil {
		t.Error("empty directory loaded")
	}
}

// FuzzLoad feeds arbitrary bytes to the loader as the weights file, next to
// a valid configuration; it must never panic.
func FuzzLoad(f *testing.F) {
	dir := f.TempDir()
	c := Config{Layers: 1, Heads: 1, Width: 2, FeedForward: 2, Vocab: 2, Outputs: 2, MaxLen: 2}
	m, _ := New[float32](c, rand.New(rand.NewPCG(1, 1)))
	if err := m.Save(dir); err != nil {
		f.Fatal(err)
	}
	weights, _ := os.ReadFile(filepath.Join(dir, WeightsFile))
	config, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	f.Add(weights, config)
	f.Add(weights[:20], config)
	f.Add([]byte{}, []byte("{}"))
	f.Add(weights, []byte(`{"layers":1,"heads":1,"width":2,"feed_forward":2,"vocab":2,"outputs":2,"max_len":3}`))
	f.Fuzz(func(t *testing.T, w, cfg []byte) {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, WeightsFile), w, 0o644)
		os.WriteFile(filepath.Join(d, ConfigFile), cfg, 0o644)
		if m, err := Load[float32](d); err == nil {
			if err := m.Config().Validate(); err != nil {
				t.Fatalf("loaded a model with an invalid config: %v", err)
			}
		}
	})
}

func TestNumParams(t *testing.T) {
	for _, c := range gradConfigs() {
		m, err := New[float32](c, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := m.Config().numParams(), int64(m.NumParams()); got != want {
			t.Errorf("%s: numParams = %d, model has %d", configName(c), got, want)
		}
	}
	if n := (Config{Layers: 1 << 40, Heads: 1, Width: 1 << 20, FeedForward: 1 << 20, Vocab: 2, Outputs: 2}).withDefaults().numParams(); n != -1 {
		t.Errorf("overflowing config: numParams = %d, want -1", n)
	}
}

// TestConvert widens a float32 model to float64 exactly, narrows it back
// to the same bits, keeps the logits within float32 rounding, and refuses
// a zero model and a float64 weight beyond float32's range.
func TestConvert(t *testing.T) {
	c := Config{Layers: 2, Heads: 2, Width: 8, FeedForward: 12, Vocab: 5, Outputs: 5, TiedHead: true, Activation: GELUTanh, FinalNorm: true}
	m32, err := New[float32](c, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	m64, err := Convert[float64](m32)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Convert[float32](m64)
	if err != nil {
		t.Fatal(err)
	}
	if m64.Config() != m32.Config() || !sameParams(m32, back) {
		t.Fatal("float32 → float64 → float32 changed the model")
	}
	for i, p := range m64.Params() {
		for j, v := range p.Value {
			if v != float64(m32.Params()[i].Value[j]) {
				t.Fatalf("%s[%d] = %v, want %v", p.Name, j, v, m32.Params()[i].Value[j])
			}
		}
	}
	seq := []int{1, 4, 0, 2}
	l32, err := m32.Forward([]Sequence[float32]{{Tokens: seq}})
	if err != nil {
		t.Fatal(err)
	}
	l64, err := m64.Forward([]Sequence[float64]{{Tokens: seq}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range l64[0] {
		if d := math.Abs(l64[0][i] - float64(l32[0][i])); d > 1e-5 {
			t.Fatalf("logit %d: float64 %v, float32 %v", i, l64[0][i], l32[0][i])
		}
	}
	if _, err := Convert[float64]((*Model[float32])(nil)); !errors.Is(err, ErrZeroModel) {
		t.Errorf("Convert(nil): %v", err)
	}
	m64.Params()[3].Value[1] = 1e300
	if _, err := Convert[float32](m64); !errors.Is(err, icrl.ErrNotFinite) || !strings.Contains(err.Error(), m64.Params()[3].Name) {
		t.Errorf("Convert of 1e300 to float32: %v", err)
	}
}
