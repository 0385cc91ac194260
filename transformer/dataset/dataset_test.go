package dataset

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer"
	"github.com/icrl-go/icrl/transformer/safetensors"
)

// tokenExamples returns n token sequences of random lengths 1..8 with hard
// labels (some −1) over A outputs.
func tokenExamples(rng *rand.Rand, n, vocab, A int) []transformer.Example[float32] {
	exs := make([]transformer.Example[float32], n)
	for k := range exs {
		T := 1 + rng.IntN(8)
		ex := &exs[k]
		ex.Input.Tokens = make([]int, T)
		ex.Target.Labels = make([]int, T)
		for i := range T {
			ex.Input.Tokens[i] = rng.IntN(vocab)
			ex.Target.Labels[i] = rng.IntN(A+1) - 1
		}
	}
	return exs
}

// featureExamples returns n feature sequences of width W with soft
// targets over A outputs (some rows zero) and, for every other example,
// weights.
func featureExamples[F tensor.Float](rng *rand.Rand, n, W, A int) []transformer.Example[F] {
	exs := make([]transformer.Example[F], n)
	for k := range exs {
		T := 1 + rng.IntN(6)
		ex := &exs[k]
		ex.Input.Features = make([]F, T*W)
		for i := range ex.Input.Features {
			ex.Input.Features[i] = F(rng.NormFloat64())
		}
		ex.Input.Features[0] = F(math.Copysign(0, -1)) // −0 must survive
		ex.Target.Dist = make([]F, T*A)
		for i := range T {
			if rng.IntN(3) == 0 {
				continue // a position left out
			}
			row := ex.Target.Dist[i*A : (i+1)*A]
			row[rng.IntN(A)] = 1
		}
		if k%2 == 0 {
			ex.Target.Weights = make([]F, T)
			for i := range ex.Target.Weights {
				ex.Target.Weights[i] = F(rng.Float64())
			}
		}
	}
	return exs
}

// withOnes returns a copy of exs in which nil weights are ones, what a
// weighted file stores for them; A is the number of outputs.
func withOnes[F tensor.Float](exs []transformer.Example[F], A int) []transformer.Example[F] {
	out := make([]transformer.Example[F], len(exs))
	for k, ex := range exs {
		out[k] = ex
		if ex.Target.Weights == nil {
			n := len(ex.Target.Labels)
			if ex.Target.Dist != nil {
				n = len(ex.Target.Dist) / A
			}
			w := make([]F, n)
			for i := range w {
				w[i] = 1
			}
			out[k].Target.Weights = w
		}
	}
	return out
}

// sameBits reports whether two example sets are equal, floats compared by
// their bits.
func sameBits[F tensor.Float](a, b []transformer.Example[F]) bool {
	if len(a) != len(b) {
		return false
	}
	bits := func(x []F) []uint64 {
		out := make([]uint64, len(x))
		for i, v := range x {
			out[i] = math.Float64bits(float64(v))
		}
		return out
	}
	for k := range a {
		x, y := a[k], b[k]
		if !reflect.DeepEqual(x.Input.Tokens, y.Input.Tokens) || !reflect.DeepEqual(x.Target.Labels, y.Target.Labels) ||
			!reflect.DeepEqual(bits(x.Input.Features), bits(y.Input.Features)) ||
			!reflect.DeepEqual(bits(x.Target.Dist), bits(y.Target.Dist)) || !reflect.DeepEqual(bits(x.Target.Weights), bits(y.Target.Weights)) {
			return false
		}
	}
	return true
}

func roundTrip[F tensor.Float](t *testing.T, exs []transformer.Example[F], meta Meta) ([]transformer.Example[F], Meta) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, exs, meta); err != nil {
		t.Fatal(err)
	}
	got, gm, err := Read[F](&buf)
	if err != nil {
		t.Fatal(err)
	}
	return got, gm
}

func TestRoundTripTokens(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	exs := tokenExamples(rng, 20, 11, 4)
	meta := Meta{Vocab: 11, Outputs: 4, Generator: "test", Seed: 42, Params: map[string]string{"T": "8"}}
	got, gm := roundTrip(t, exs, meta)
	if !sameBits(got, exs) {
		t.Fatal("token examples differ after the round trip")
	}
	want := meta
	want.Encoding, want.Targets, want.Examples, want.DType, want.Version = Tokens, Labels, 20, "F32", Version
	for _, ex := range exs {
		want.Positions += len(ex.Input.Tokens)
	}
	if !reflect.DeepEqual(gm, want) {
		t.Fatalf("metadata %+v, want %+v", gm, want)
	}
}

func TestRoundTripFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, f64 := range []bool{false, true} {
		if f64 {
			exs := featureExamples[float64](rng, 15, 3, 5)
			got, gm := roundTrip(t, exs, Meta{Width: 3, Outputs: 5})
			if !sameBits(got, withOnes(exs, 5)) || gm.DType != "F64" || !gm.Weighted || gm.Targets != Dist {
				t.Fatalf("float64 feature examples differ after the round trip (meta %+v)", gm)
			}
			continue
		}
		exs := featureExamples[float32](rng, 15, 3, 5)
		got, gm := roundTrip(t, exs, Meta{Width: 3, Outputs: 5})
		if !sameBits(got, withOnes(exs, 5)) || gm.DType != "F32" {
			t.Fatalf("float32 feature examples differ after the round trip (meta %+v)", gm)
		}
		// F32 read as float64 widens exactly.
		var buf bytes.Buffer
		if err := Write(&buf, exs, Meta{Width: 3, Outputs: 5}); err != nil {
			t.Fatal(err)
		}
		wide, _, err := Read[float64](&buf)
		if err != nil {
			t.Fatal(err)
		}
		if float64(exs[3].Input.Features[4]) != wide[3].Input.Features[4] {
			t.Fatal("F32 features do not widen exactly")
		}
	}
}

func TestWriteRejects(t *testing.T) {
	good := func() []transformer.Example[float64] {
		return []transformer.Example[float64]{{
			Input:  transformer.Sequence[float64]{Features: []float64{1, 2, 3, 4, 5, 6}},
			Target: transformer.Target[float64]{Dist: []float64{0.5, 0.5, 0, 0}},
		}}
	}
	meta := Meta{Width: 3, Outputs: 2}
	cases := []struct {
		name  string
		edit  func([]transformer.Example[float64]) []transformer.Example[float64]
		meta  Meta
		wants string
	}{
		{"no shape", nil, Meta{Outputs: 2}, "exactly one of Vocab"},
		{"both shapes", nil, Meta{Vocab: 3, Width: 3, Outputs: 2}, "exactly one of Vocab"},
		{"no outputs", nil, Meta{Width: 3}, "Outputs 0"},
		{"width", func(e []transformer.Example[float64]) []transformer.Example[float64] {
			e[0].Input.Features = e[0].Input.Features[:5]
			return e
		}, meta, "not a multiple of the width 3"},
		{"NaN feature", func(e []transformer.Example[float64]) []transformer.Example[float64] {
			e[0].Input.Features[4] = math.NaN()
			return e
		}, meta, "feature 4 is NaN"},
		{"dist sum", func(e []transformer.Example[float64]) []transformer.Example[float64] {
			e[0].Target.Dist[1] = 0.4
			return e
		}, meta, "sums to 0.9"},
		{"negative prob", func(e []transformer.Example[float64]) []transformer.Example[float64] {
			e[0].Target.Dist[2], e[0].Target.Dist[3] = -1, 2
			return e
		}, meta, "Dist[1][0] is -1"},
		{"weights length", func(e []transformer.Example[float64]) []transformer.Example[float64] {
			e[0].Target.Weights = []float64{1}
			return e
		}, meta, "1 weights for 2 positions"},
		{"negative weight", func(e []transformer.Example[float64]) []transformer.Example[float64] {
			e[0].Target.Weights = []float64{1, -0.5}
			return e
		}, meta, "weight 1 is -0.5"},
		{"no targets", func(e []transformer.Example[float64]) []transformer.Example[float64] {
			e[0].Target.Dist = nil
			return e
		}, meta, "has no targets"},
		{"mixed kinds", func(e []transformer.Example[float64]) []transformer.Example[float64] {
			return append(e, transformer.Example[float64]{
				Input:  transformer.Sequence[float64]{Features: []float64{1, 2, 3}},
				Target: transformer.Target[float64]{Labels: []int{1}},
			})
		}, meta, "example 1 has labels targets, example 0 dist"},
		{"label range", func(e []transformer.Example[float64]) []transformer.Example[float64] {
			e[0].Target.Dist, e[0].Target.Labels = nil, []int{0, 2}
			return e
		}, meta, "label 1 is 2"},
		{"tokens in a feature set", func(e []transformer.Example[float64]) []transformer.Example[float64] {
			e[0].Input.Tokens = []int{1}
			return e
		}, meta, "has tokens in a feature dataset"},
		{"empty", func(e []transformer.Example[float64]) []transformer.Example[float64] {
			e[0].Input.Features, e[0].Target.Dist = []float64{}, []float64{}
			return e
		}, meta, "example 0 is empty"},
	}
	for _, c := range cases {
		exs := good()
		if c.edit != nil {
			exs = c.edit(exs)
		}
		var buf bytes.Buffer
		err := Write(&buf, exs, c.meta)
		if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), c.wants) {
			t.Errorf("%s: got %v, want ErrMismatch with %q", c.name, err, c.wants)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: %d bytes written despite the error", c.name, buf.Len())
		}
	}
	tok := []transformer.Example[float32]{{
		Input:  transformer.Sequence[float32]{Tokens: []int{0, 4}},
		Target: transformer.Target[float32]{Labels: []int{1, -1}},
	}}
	var buf bytes.Buffer
	if err := Write(&buf, tok, Meta{Vocab: 4, Outputs: 2}); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "token 1 is 4, outside [0, 4)") {
		t.Errorf("token range: got %v", err)
	}
}

// validFiles returns the bytes of a small weighted feature dataset and of a
// small token dataset.
func validFiles(t testing.TB) [][]byte {
	rng := rand.New(rand.NewPCG(4, 4))
	var a, b bytes.Buffer
	if err := Write(&a, featureExamples[float32](rng, 4, 3, 2), Meta{Width: 3, Outputs: 2, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, tokenExamples(rng, 5, 6, 3), Meta{Vocab: 6, Outputs: 3}); err != nil {
		t.Fatal(err)
	}
	return [][]byte{a.Bytes(), b.Bytes()}
}

func TestReadRejectsTruncated(t *testing.T) {
	for _, file := range validFiles(t) {
		for n := range len(file) {
			if _, _, err := ReadBytes[float32](file[:n]); !errors.Is(err, ErrFormat) {
				t.Fatalf("truncated to %d of %d bytes: got %v, want ErrFormat", n, len(file), err)
			}
		}
	}
}

// rewrite parses a dataset file, lets edit change its tensors and metadata,
// and writes it again.
func rewrite(t *testing.T, file []byte, edit func(ts map[string]safetensors.Tensor, meta *Meta, md map[string]string)) []byte {
	t.Helper()
	f, err := safetensors.ReadBytes(file)
	if err != nil {
		t.Fatal(err)
	}
	ts := map[string]safetensors.Tensor{}
	for _, tn := range f.Tensors() {
		ts[tn.Name] = tn
	}
	var meta Meta
	if err := json.Unmarshal([]byte(f.Metadata["meta"]), &meta); err != nil {
		t.Fatal(err)
	}
	md := map[string]string{"format": f.Metadata["format"]}
	edit(ts, &meta, md)
	js, _ := json.Marshal(meta)
	if _, ok := md["meta"]; !ok {
		md["meta"] = string(js)
	}
	var list []safetensors.Tensor
	for _, tn := range ts {
		list = append(list, tn)
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, list, md); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadRejectsMismatched(t *testing.T) {
	files := validFiles(t)
	feat, tok := files[0], files[1]
	cases := []struct {
		name  string
		file  []byte
		edit  func(ts map[string]safetensors.Tensor, meta *Meta, md map[string]string)
		is    error
		wants string
	}{
		{"format", feat, func(_ map[string]safetensors.Tensor, _ *Meta, md map[string]string) { md["format"] = "pt" }, ErrFormat, `"format" is "pt"`},
		{"meta JSON", feat, func(_ map[string]safetensors.Tensor, _ *Meta, md map[string]string) { md["meta"] = "{" }, ErrFormat, `metadata "meta"`},
		{"version", feat, func(_ map[string]safetensors.Tensor, m *Meta, _ map[string]string) { m.Version = 2 }, ErrFormat, "layout version 2"},
		{"encoding", feat, func(_ map[string]safetensors.Tensor, m *Meta, _ map[string]string) { m.Encoding = Tokens }, ErrFormat, "encoding"},
		{"missing tensor", feat, func(ts map[string]safetensors.Tensor, _ *Meta, _ map[string]string) { delete(ts, "weights") }, ErrFormat, `"weights" is missing`},
		{"extra tensor", feat, func(ts map[string]safetensors.Tensor, _ *Meta, _ map[string]string) {
			ts["extra"] = safetensors.FromFloat32("extra", []int{1}, []float32{1})
		}, ErrFormat, `unexpected tensor "extra"`},
		{"width", feat, func(_ map[string]safetensors.Tensor, m *Meta, _ map[string]string) { m.Width = 2 }, ErrFormat, `"features" has shape`},
		{"examples", feat, func(_ map[string]safetensors.Tensor, m *Meta, _ map[string]string) { m.Examples++ }, ErrFormat, `"offsets" has shape`},
		{"dtype", feat, func(_ map[string]safetensors.Tensor, m *Meta, _ map[string]string) { m.DType = "F64" }, ErrFormat, "has dtype F32"},
		{"offsets order", tok, func(ts map[string]safetensors.Tensor, _ *Meta, _ map[string]string) {
			o, _ := ts["offsets"].AsInt64()
			o[1], o[2] = o[2], o[1]
			ts["offsets"] = safetensors.FromInt64("offsets", []int{len(o)}, o)
		}, ErrFormat, "does not exceed"},
		{"empty example", tok, func(ts map[string]safetensors.Tensor, _ *Meta, _ map[string]string) {
			o, _ := ts["offsets"].AsInt64()
			o[1] = o[0]
			ts["offsets"] = safetensors.FromInt64("offsets", []int{len(o)}, o)
		}, ErrFormat, "offsets[1] = 0 does not exceed offsets[0] = 0"},
		{"offsets start", tok, func(ts map[string]safetensors.Tensor, _ *Meta, _ map[string]string) {
			o, _ := ts["offsets"].AsInt64()
			o[0] = 1
			ts["offsets"] = safetensors.FromInt64("offsets", []int{len(o)}, o)
		}, ErrFormat, "offsets run from 1"},
		{"token at the vocabulary", tok, func(ts map[string]safetensors.Tensor, m *Meta, _ map[string]string) {
			x, _ := ts[string(Tokens)].AsInt64()
			m.Vocab = int(slices.Max(x)) // the largest token is now one past the vocabulary
		}, ErrMismatch, "outside [0, "},
		{"vocab", tok, func(_ map[string]safetensors.Tensor, m *Meta, _ map[string]string) { m.Vocab = 1 }, ErrMismatch, "outside [0, 1)"},
		{"outputs", tok, func(_ map[string]safetensors.Tensor, m *Meta, _ map[string]string) { m.Outputs = 1 }, ErrMismatch, "outside [-1, 1)"},
		{"NaN weight", feat, func(ts map[string]safetensors.Tensor, _ *Meta, _ map[string]string) {
			w := ts["weights"]
			binary.LittleEndian.PutUint32(w.Data[4:], math.Float32bits(float32(math.NaN())))
		}, ErrMismatch, "weight 1 is NaN"},
	}
	for _, c := range cases {
		_, _, err := ReadBytes[float32](rewrite(t, c.file, c.edit))
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.wants) {
			t.Errorf("%s: got %v, want %v with %q", c.name, err, c.is, c.wants)
		}
	}
}

func TestReadRejectsCorrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, file := range validFiles(t) {
		for range 300 {
			b := append([]byte(nil), file...)
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
			exs, _, err := ReadBytes[float32](b)
			if err == nil {
				// A flipped data byte can leave a valid dataset; it must
				// then write back unchanged.
				var buf bytes.Buffer
				if werr := Write(&buf, exs, mustMeta(t, b)); werr != nil {
					t.Fatalf("accepted corrupt file does not write back: %v", werr)
				}
			}
		}
	}
}

func mustMeta(t *testing.T, file []byte) Meta {
	f, err := safetensors.ReadBytes(file)
	if err != nil {
		t.Fatal(err)
	}
	var m Meta
	_ = json.Unmarshal([]byte(f.Metadata["meta"]), &m)
	return m
}

func TestShards(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(6, 6))
	exs := tokenExamples(rng, 10, 7, 3)
	meta := Meta{Vocab: 7, Outputs: 3, Generator: "shard test", Seed: 9}
	w, err := NewShardWriter[float32](dir, "train", meta, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(exs); i += 4 {
		if err := w.Add(exs[i:min(i+4, len(exs))]...); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Shards) != 4 || ix.Meta.Examples != 10 || ix.Shards[3].Examples != 1 {
		t.Fatalf("index %+v", ix)
	}
	read, err := ReadIndex(filepath.Join(dir, "train.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, ix) {
		t.Fatalf("index read back %+v, written %+v", read, ix)
	}
	var all []transformer.Example[float32]
	for i := range read.Shards {
		part, err := ReadShard[float32](read, dir, i)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, part...)
	}
	if !sameBits(all, exs) {
		t.Fatal("shards do not give back the examples")
	}
	// A shard replaced by another dataset's file is caught.
	other := validFiles(t)[1]
	if err := os.WriteFile(filepath.Join(dir, read.Shards[1].File), other, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadShard[float32](read, dir, 1); !errors.Is(err, ErrFormat) {
		t.Fatalf("foreign shard: got %v, want ErrFormat", err)
	}
	// An index whose counts do not add up is caught.
	bad := *read
	bad.Meta.Examples++
	js, _ := json.Marshal(bad)
	path := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(path, js, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadIndex(path); !errors.Is(err, ErrFormat) {
		t.Fatalf("bad index: got %v, want ErrFormat", err)
	}
	if _, err := w.Close(); err == nil {
		t.Fatal("second Close: no error")
	}
	if _, err := NewShardWriter[float32](dir, "a/b", meta, 3); err == nil {
		t.Fatal("name with a separator: no error")
	}
	if _, err := NewShardWriter[float32](dir, "x", meta, 0); err == nil {
		t.Fatal("zero per shard: no error")
	}
}

// TestReadShardNilIndex: a nil index is an error (it was dereferenced).
func TestReadShardNilIndex(t *testing.T) {
	if _, err := ReadShard[float32](nil, t.TempDir(), 0); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("ReadShard(nil): %v, want ErrInvalid", err)
	}
}
