package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer"
	"github.com/icrl-go/icrl/transformer/safetensors"
)

// Version is the version of the file layout that this package writes and
// reads.
const Version = 1

// formatName is the value of the safetensors metadata entry "format".
const formatName = "icrl-dataset"

// Meta describes a dataset. The caller sets the shape (Vocab or Width, and
// Outputs) and the provenance (Generator, Seed, Params); [Write] and
// [ShardWriter] fill in the rest from the examples.
type Meta struct {
	// Vocab > 0 means token inputs in [0, Vocab); Width > 0 means feature
	// inputs of Width floats a position. Exactly one of them is set.
	Vocab int `json:"vocab,omitempty"`
	Width int `json:"width,omitempty"`
	// Outputs is the number of model outputs (actions) that the targets
	// range over, > 0.
	Outputs int `json:"outputs"`
	// Generator says how the data were made (a program and its flags, for
	// example); Seed is the random seed it ran with; Params holds any
	// other setting worth keeping.
	Generator string            `json:"generator,omitempty"`
	Seed      uint64            `json:"seed"`
	Params    map[string]string `json:"params,omitempty"`

	// Set on writing, reported on reading.

	// Encoding is "tokens" or "features"; Targets is "labels" (hard) or
	// "dist" (soft); Weighted tells whether the file stores per-position
	// weights.
	Encoding string `json:"encoding"`
	Targets  string `json:"targets"`
	Weighted bool   `json:"weighted"`
	// Examples and Positions count the sequences and their positions (of
	// one file, or of all shards in an [Index]).
	Examples  int `json:"examples"`
	Positions int `json:"positions"`
	// DType is the safetensors type of the float tensors, "F32" or "F64".
	DType string `json:"dtype"`
	// Version is the file layout's version, [Version].
	Version int `json:"version"`
}

// Encodings and target kinds of [Meta].
const (
	Tokens   = "tokens"
	Features = "features"
	Labels   = "labels"
	Dist     = "dist"
)

// checkShape validates the caller-set shape fields.
func (m *Meta) checkShape() error {
	switch {
	case m.Vocab < 0 || m.Width < 0:
		return fmt.Errorf("%w: negative Vocab %d or Width %d", ErrMismatch, m.Vocab, m.Width)
	case (m.Vocab > 0) == (m.Width > 0):
		return fmt.Errorf("%w: exactly one of Vocab (%d) and Width (%d) must be positive", ErrMismatch, m.Vocab, m.Width)
	case m.Outputs <= 0:
		return fmt.Errorf("%w: Outputs %d is not positive", ErrMismatch, m.Outputs)
	}
	return nil
}

// encoding is the Encoding implied by the shape fields.
func (m *Meta) encoding() string {
	if m.Vocab > 0 {
		return Tokens
	}
	return Features
}

// dtypeOf is the safetensors type of F.
func dtypeOf[F tensor.Float]() safetensors.DType {
	var z F
	if _, ok := any(z).(float32); ok {
		return safetensors.F32
	}
	return safetensors.F64
}

// describe fills in the fields of meta that the examples determine,
// validating every example against the shape fields.
func describe[F tensor.Float](meta Meta, exs []transformer.Example[F]) (Meta, error) {
	if err := meta.checkShape(); err != nil {
		return meta, err
	}
	meta.Encoding, meta.DType, meta.Version = meta.encoding(), string(dtypeOf[F]()), Version
	meta.Targets, meta.Weighted = "", false
	meta.Examples, meta.Positions = len(exs), 0
	for k := range exs {
		kind := Labels
		if exs[k].Target.Labels == nil {
			kind = Dist
		}
		if k == 0 {
			meta.Targets = kind
		} else if kind != meta.Targets {
			return meta, fmt.Errorf("%w: example %d has %s targets, example 0 %s", ErrMismatch, k, kind, meta.Targets)
		}
		if exs[k].Target.Weights != nil {
			meta.Weighted = true
		}
		n, err := check(&meta, k, &exs[k])
		if err != nil {
			return meta, err
		}
		meta.Positions += n
	}
	if meta.Targets == "" {
		meta.Targets = Labels
	}
	return meta, nil
}

// check validates example k against meta and returns its length.
func check[F tensor.Float](meta *Meta, k int, ex *transformer.Example[F]) (int, error) {
	in, tg := &ex.Input, &ex.Target
	var n int
	if meta.Vocab > 0 {
		if in.Features != nil {
			return 0, fmt.Errorf("%w: example %d has features in a token dataset", ErrMismatch, k)
		}
		n = len(in.Tokens)
		for i, t := range in.Tokens {
			if t < 0 || t >= meta.Vocab {
				return 0, fmt.Errorf("%w: example %d token %d is %d, outside [0, %d)", ErrMismatch, k, i, t, meta.Vocab)
			}
		}
	} else {
		if in.Tokens != nil {
			return 0, fmt.Errorf("%w: example %d has tokens in a feature dataset", ErrMismatch, k)
		}
		if len(in.Features)%meta.Width != 0 {
			return 0, fmt.Errorf("%w: example %d has %d features, not a multiple of the width %d", ErrMismatch, k, len(in.Features), meta.Width)
		}
		n = len(in.Features) / meta.Width
		if i := num.FirstNonFinite(in.Features); i >= 0 {
			return 0, fmt.Errorf("%w: example %d feature %d is %v", ErrMismatch, k, i, in.Features[i])
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: example %d is empty", ErrMismatch, k)
	}
	A := meta.Outputs
	switch {
	case tg.Labels != nil && tg.Dist != nil:
		return 0, fmt.Errorf("%w: example %d has both labels and distributions", ErrMismatch, k)
	case tg.Labels != nil:
		if len(tg.Labels) != n {
			return 0, fmt.Errorf("%w: example %d has %d labels for %d positions", ErrMismatch, k, len(tg.Labels), n)
		}
		for i, l := range tg.Labels {
			if l >= A {
				return 0, fmt.Errorf("%w: example %d label %d is %d, not below Outputs %d", ErrMismatch, k, i, l, A)
			}
		}
	case tg.Dist != nil:
		if len(tg.Dist) != n*A {
			return 0, fmt.Errorf("%w: example %d has %d distribution entries for %d positions × %d outputs", ErrMismatch, k, len(tg.Dist), n, A)
		}
		for i := range n {
			s := 0.0
			for c, v := range tg.Dist[i*A : (i+1)*A] {
				if !(v >= 0) || math.IsInf(float64(v), 1) {
					return 0, fmt.Errorf("%w: example %d Dist[%d][%d] is %v, not a probability", ErrMismatch, k, i, c, v)
				}
				s += float64(v)
			}
			if s != 0 && math.Abs(s-1) > 1e-4 {
				return 0, fmt.Errorf("%w: example %d Dist row %d sums to %v, not 1 or 0", ErrMismatch, k, i, s)
			}
		}
	default:
		return 0, fmt.Errorf("%w: example %d has no targets", ErrMismatch, k)
	}
	if tg.Weights != nil {
		if len(tg.Weights) != n {
			return 0, fmt.Errorf("%w: example %d has %d weights for %d positions", ErrMismatch, k, len(tg.Weights), n)
		}
		for i, w := range tg.Weights {
			if !(w >= 0) || math.IsInf(float64(w), 1) {
				return 0, fmt.Errorf("%w: example %d weight %d is %v, not a non-negative number", ErrMismatch, k, i, w)
			}
		}
	}
	return n, nil
}

// Write validates the examples against meta's shape (Vocab or Width, and
// Outputs), fills in the rest of meta, and writes them to w as one dataset
// file. Every example needs targets of one kind (Labels in all, or Dist in
// all); if any has Weights, those without get weight 1 at every position,
// which is what nil weights mean. Nothing is written if an example does
// not fit (the error wraps [ErrMismatch] and names it). Memory: a copy of
// the data, O(P·(W + A)).
func Write[F tensor.Float](w io.Writer, exs []transformer.Example[F], meta Meta) error {
	tensors, md, err := encode(exs, meta)
	if err != nil {
		return err
	}
	return safetensors.Write(w, tensors, md)
}

// WriteFile writes the examples to the named file as [Write] does,
// atomically (see safetensors.WriteFile).
func WriteFile[F tensor.Float](path string, exs []transformer.Example[F], meta Meta) error {
	tensors, md, err := encode(exs, meta)
	if err != nil {
		return err
	}
	return safetensors.WriteFile(path, tensors, md)
}

// encode builds the tensors and metadata of a dataset file.
func encode[F tensor.Float](exs []transformer.Example[F], meta Meta) ([]safetensors.Tensor, map[string]string, error) {
	meta, err := describe(meta, exs)
	if err != nil {
		return nil, nil, err
	}
	P, A := meta.Positions, meta.Outputs
	offsets := make([]int64, 0, len(exs)+1)
	offsets = append(offsets, 0)
	var tokens, labels []int64
	var feats, dist, weights []F
	if meta.Weighted {
		weights = make([]F, 0, P)
	}
	for k := range exs {
		in, tg := &exs[k].Input, &exs[k].Target
		var n int
		if meta.Vocab > 0 {
			n = len(in.Tokens)
			for _, t := range in.Tokens {
				tokens = append(tokens, int64(t))
			}
		} else {
			n = len(in.Features) / meta.Width
			feats = append(feats, in.Features...)
		}
		offsets = append(offsets, offsets[k]+int64(n))
		if meta.Targets == Labels {
			for _, l := range tg.Labels {
				labels = append(labels, int64(max(l, -1)))
			}
		} else {
			dist = append(dist, tg.Dist...)
		}
		if meta.Weighted {
			if tg.Weights != nil {
				weights = append(weights, tg.Weights...)
			} else {
				for range n {
					weights = append(weights, 1)
				}
			}
		}
	}
	tensors := []safetensors.Tensor{safetensors.FromInt64("offsets", []int{len(offsets)}, offsets)}
	if meta.Vocab > 0 {
		tensors = append(tensors, safetensors.FromInt64(Tokens, []int{P}, tokens))
	} else {
		tensors = append(tensors, fromFloats(Features, []int{P, meta.Width}, feats))
	}
	if meta.Targets == Labels {
		tensors = append(tensors, safetensors.FromInt64(Labels, []int{P}, labels))
	} else {
		tensors = append(tensors, fromFloats(Dist, []int{P, A}, dist))
	}
	if meta.Weighted {
		tensors = append(tensors, fromFloats("weights", []int{P}, weights))
	}
	js, err := json.Marshal(meta)
	if err != nil {
		return nil, nil, err
	}
	return tensors, map[string]string{"format": formatName, "meta": string(js)}, nil
}

// fromFloats encodes a float tensor of F's type.
func fromFloats[F tensor.Float](name string, shape []int, x []F) safetensors.Tensor {
	switch x := any(x).(type) {
	case []float32:
		return safetensors.FromFloat32(name, shape, x)
	case []float64:
		return safetensors.FromFloat64(name, shape, x)
	}
	panic("dataset: unsupported float type")
}

// Read reads one dataset file from r, validates it and returns its
// examples and metadata. Floats stored as F32 widen exactly to float64;
// F64 read as float32 round to nearest. Errors wrap [ErrFormat] for a file
// that is not a valid dataset (the message names the tensor or field) and
// [ErrMismatch] for data that do not fit the metadata. It allocates no
// more than a small multiple of the bytes r delivers.
func Read[F tensor.Float](r io.Reader) ([]transformer.Example[F], Meta, error) {
	f, err := safetensors.Read(r)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return decode[F](f)
}

// ReadFile reads the named dataset file as [Read] does.
func ReadFile[F tensor.Float](path string) ([]transformer.Example[F], Meta, error) {
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return decode[F](f)
}

// ReadBytes reads a dataset file held in b as [Read] does.
func ReadBytes[F tensor.Float](b []byte) ([]transformer.Example[F], Meta, error) {
	return Read[F](bytes.NewReader(b))
}

// parseMeta reads and checks the metadata of a dataset file.
func parseMeta(md map[string]string) (Meta, error) {
	var meta Meta
	if md["format"] != formatName {
		return meta, fmt.Errorf("%w: metadata \"format\" is %q, not %q", ErrFormat, md["format"], formatName)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(md["meta"])))
	if err := dec.Decode(&meta); err != nil {
		return meta, fmt.Errorf("%w: metadata \"meta\": %v", ErrFormat, err)
	}
	if meta.Version != Version {
		return meta, fmt.Errorf("%w: layout version %d, this package reads %d", ErrFormat, meta.Version, Version)
	}
	if err := meta.checkShape(); err != nil {
		return meta, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	switch {
	case meta.Encoding != meta.encoding():
		return meta, fmt.Errorf("%w: encoding %q does not match Vocab %d and Width %d", ErrFormat, meta.Encoding, meta.Vocab, meta.Width)
	case meta.Targets != Labels && meta.Targets != Dist:
		return meta, fmt.Errorf("%w: targets %q are neither %q nor %q", ErrFormat, meta.Targets, Labels, Dist)
	case meta.DType != string(safetensors.F32) && meta.DType != string(safetensors.F64):
		return meta, fmt.Errorf("%w: dtype %q is neither F32 nor F64", ErrFormat, meta.DType)
	case meta.Examples < 0 || meta.Positions < 0:
		return meta, fmt.Errorf("%w: %d examples, %d positions", ErrFormat, meta.Examples, meta.Positions)
	}
	return meta, nil
}

// decode validates a parsed safetensors file as a dataset and builds its
// examples.
func decode[F tensor.Float](f *safetensors.File) ([]transformer.Example[F], Meta, error) {
	meta, err := parseMeta(f.Metadata)
	if err != nil {
		return nil, meta, err
	}
	c, err := readColumns[F](f, &meta)
	if err != nil {
		return nil, meta, err
	}
	A, W := meta.Outputs, meta.Width
	exs := make([]transformer.Example[F], meta.Examples)
	for k := range exs {
		lo, hi := int(c.offsets[k]), int(c.offsets[k+1])
		ex := &exs[k]
		if c.tokens != nil {
			ex.Input.Tokens = c.tokens[lo:hi:hi]
		} else {
			ex.Input.Features = c.feats[lo*W : hi*W : hi*W]
		}
		if c.labels != nil {
			ex.Target.Labels = c.labels[lo:hi:hi]
		} else {
			ex.Target.Dist = c.dist[lo*A : hi*A : hi*A]
		}
		if c.weights != nil {
			ex.Target.Weights = c.weights[lo:hi:hi]
		}
		if _, err := check(&meta, k, ex); err != nil {
			return nil, meta, err
		}
	}
	return exs, meta, nil
}

// columns are a dataset file's tensors, decoded: the offsets of the
// sequences and the concatenated positions.
type columns[F tensor.Float] struct {
	offsets        []int64
	tokens, labels []int
	feats, dist    []F
	weights        []F
}

// readColumns checks that f holds exactly the tensors meta implies, with
// their shapes and dtypes, that the offsets are strictly increasing from 0
// to the number of positions and that tokens and labels are in range, and
// decodes them.
func readColumns[F tensor.Float](f *safetensors.File, meta *Meta) (columns[F], error) {
	var c columns[F]
	N, P, A := meta.Examples, meta.Positions, meta.Outputs
	want := map[string][]int{"offsets": {N + 1}}
	if meta.Vocab > 0 {
		want[Tokens] = []int{P}
	} else {
		want[Features] = []int{P, meta.Width}
	}
	if meta.Targets == Labels {
		want[Labels] = []int{P}
	} else {
		want[Dist] = []int{P, A}
	}
	if meta.Weighted {
		want["weights"] = []int{P}
	}
	for _, name := range f.Names() {
		if _, ok := want[name]; !ok {
			return c, fmt.Errorf("%w: unexpected tensor %q", ErrFormat, name)
		}
	}
	tensor := func(name string) (safetensors.Tensor, error) {
		t, ok := f.Tensor(name)
		if !ok {
			return t, fmt.Errorf("%w: tensor %q is missing", ErrFormat, name)
		}
		if !slices.Equal(t.Shape, want[name]) {
			return t, fmt.Errorf("%w: tensor %q has shape %v, want %v", ErrFormat, name, t.Shape, want[name])
		}
		integer := name == "offsets" || name == Tokens || name == Labels
		if integer && t.DType != safetensors.I64 || !integer && string(t.DType) != meta.DType {
			return t, fmt.Errorf("%w: tensor %q has dtype %s", ErrFormat, name, t.DType)
		}
		return t, nil
	}
	ints := func(name string, lo, hi int) ([]int, error) {
		t, err := tensor(name)
		if err != nil {
			return nil, err
		}
		x, err := t.AsInt64()
		if err != nil {
			return nil, err
		}
		return toInts(x, name, lo, hi)
	}
	floats := func(name string) ([]F, error) {
		t, err := tensor(name)
		if err != nil {
			return nil, err
		}
		return asFloats[F](t)
	}
	t, err := tensor("offsets")
	if err != nil {
		return c, err
	}
	if c.offsets, err = t.AsInt64(); err != nil {
		return c, err
	}
	if c.offsets[0] != 0 || c.offsets[N] != int64(P) {
		return c, fmt.Errorf("%w: offsets run from %d to %d, want 0 to %d", ErrFormat, c.offsets[0], c.offsets[N], P)
	}
	for k := range N {
		if c.offsets[k+1] <= c.offsets[k] {
			return c, fmt.Errorf("%w: offsets[%d] = %d does not exceed offsets[%d] = %d", ErrFormat, k+1, c.offsets[k+1], k, c.offsets[k])
		}
	}
	if meta.Vocab > 0 {
		c.tokens, err = ints(Tokens, 0, meta.Vocab)
	} else {
		c.feats, err = floats(Features)
	}
	if err != nil {
		return c, err
	}
	if meta.Targets == Labels {
		c.labels, err = ints(Labels, -1, A)
	} else {
		c.dist, err = floats(Dist)
	}
	if err != nil {
		return c, err
	}
	if meta.Weighted {
		c.weights, err = floats("weights")
	}
	return c, err
}

// toInts converts integer data to int, checking that each entry is in
// [lo, hi).
func toInts(x []int64, name string, lo, hi int) ([]int, error) {
	out := make([]int, len(x))
	for i, v := range x {
		if v < int64(lo) || v >= int64(hi) {
			return nil, fmt.Errorf("%w: %s[%d] is %d, outside [%d, %d)", ErrMismatch, name, i, v, lo, hi)
		}
		out[i] = int(v)
	}
	return out, nil
}

// asFloats decodes a float tensor into F.
func asFloats[F tensor.Float](t safetensors.Tensor) ([]F, error) {
	var z F
	if _, ok := any(z).(float64); ok {
		x, err := t.AsFloat64()
		return any(x).([]F), err
	}
	if t.DType == safetensors.F32 {
		x, err := t.AsFloat32()
		return any(x).([]F), err
	}
	x, err := t.AsFloat64()
	if err != nil {
		return nil, err
	}
	out := make([]F, len(x))
	for i, v := range x {
		out[i] = F(v)
	}
	return out, nil
}
