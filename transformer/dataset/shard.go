package dataset

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer"
	"github.com/icrl-go/icrl/transformer/safetensors"
)

// Index lists the shard files of a dataset written by a [ShardWriter]; it
// is stored as JSON beside them.
type Index struct {
	// Meta is the metadata common to the shards, with Examples and
	// Positions counting all of them.
	Meta Meta `json:"meta"`
	// Shards lists the shard files in order.
	Shards []Shard `json:"shards"`
}

// Shard is one file of a sharded dataset.
type Shard struct {
	// File is the shard's file name, relative to the index's directory.
	File string `json:"file"`
	// Examples and Positions count its sequences and positions.
	Examples  int `json:"examples"`
	Positions int `json:"positions"`
}

// ShardWriter writes a dataset as a sequence of shard files, so that a
// dataset larger than memory can be produced a batch at a time. It is not
// safe for concurrent use.
type ShardWriter[F tensor.Float] struct {
	dir, name string
	meta      Meta
	per       int
	buf       []transformer.Example[F]
	index     Index
	closed    bool
}

// NewShardWriter returns a writer of the files name-00000.safetensors,
// name-00001.safetensors, … in dir, each of perShard sequences (the last
// may hold fewer), and on Close the index name.json. meta gives the shape
// and provenance as for [Write]. It returns an error if perShard < 1, name
// is empty or holds a path separator, dir is not a directory, or meta's
// shape is invalid.
func NewShardWriter[F tensor.Float](dir, name string, meta Meta, perShard int) (*ShardWriter[F], error) {
	switch {
	case perShard < 1:
		return nil, fmt.Errorf("%w: %d sequences a shard", ErrMismatch, perShard)
	case name == "" || strings.ContainsAny(name, `/\`):
		return nil, fmt.Errorf("%w: shard name %q is empty or holds a path separator", ErrMismatch, name)
	}
	if err := meta.checkShape(); err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory", icrl.ErrInvalid, dir)
	}
	return &ShardWriter[F]{dir: dir, name: name, meta: meta, per: perShard}, nil
}

// Add validates the examples and queues them, writing a shard whenever
// perShard have accumulated. An example that does not fit the metadata is
// reported (wrapping [ErrMismatch]) and nothing of this call is kept.
// The examples are kept by reference until their shard is written.
func (w *ShardWriter[F]) Add(exs ...transformer.Example[F]) error {
	if w.closed {
		return fmt.Errorf("%w: Add after Close", icrl.ErrInvalid)
	}
	m := w.meta
	for k := range exs {
		if _, err := check(&m, len(w.buf)+k, &exs[k]); err != nil {
			return err
		}
	}
	for _, ex := range exs {
		w.buf = append(w.buf, ex)
		if len(w.buf) == w.per {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush writes the queued examples as the next shard.
func (w *ShardWriter[F]) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	file := fmt.Sprintf("%s-%05d.safetensors", w.name, len(w.index.Shards))
	tensors, md, err := encode(w.buf, w.meta)
	if err != nil {
		return err
	}
	meta, err := parseMeta(md)
	if err != nil {
		return err
	}
	if len(w.index.Shards) > 0 && (meta.Targets != w.index.Meta.Targets || meta.Weighted != w.index.Meta.Weighted) {
		return fmt.Errorf("%w: shard %d has %s targets (weighted %v), the first shard %s (weighted %v)",
			ErrMismatch, len(w.index.Shards), meta.Targets, meta.Weighted, w.index.Meta.Targets, w.index.Meta.Weighted)
	}
	if err := safetensors.WriteFile(filepath.Join(w.dir, file), tensors, md); err != nil {
		return err
	}
	if len(w.index.Shards) == 0 {
		w.index.Meta = meta
		w.index.Meta.Examples, w.index.Meta.Positions = 0, 0
	}
	w.index.Meta.Examples += meta.Examples
	w.index.Meta.Positions += meta.Positions
	w.index.Shards = append(w.index.Shards, Shard{File: file, Examples: meta.Examples, Positions: meta.Positions})
	clear(w.buf)
	w.buf = w.buf[:0]
	return nil
}

// Close writes the last shard and the index, and returns the index.
func (w *ShardWriter[F]) Close() (*Index, error) {
	if w.closed {
		return nil, fmt.Errorf("%w: Close called twice", icrl.ErrInvalid)
	}
	w.closed = true
	if err := w.flush(); err != nil {
		return nil, err
	}
	if len(w.index.Shards) == 0 {
		return nil, fmt.Errorf("%w: no examples were added", ErrMismatch)
	}
	js, err := json.MarshalIndent(&w.index, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(w.dir, w.name+".json"), append(js, '\n'), 0o644); err != nil {
		return nil, err
	}
	ix := w.index
	return &ix, nil
}

// ReadIndex reads and checks the index of a sharded dataset: its metadata
// as for a file, shard names without path separators, and counts that add
// up.
func ReadIndex(path string) (*Index, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ix Index
	if err := json.Unmarshal(b, &ix); err != nil {
		return nil, fmt.Errorf("%w: index %s: %v", ErrFormat, path, err)
	}
	js, _ := json.Marshal(ix.Meta)
	if _, err := parseMeta(map[string]string{"format": formatName, "meta": string(js)}); err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	if len(ix.Shards) == 0 {
		return nil, fmt.Errorf("%w: index %s lists no shards", ErrFormat, path)
	}
	ex, pos := 0, 0
	for i, s := range ix.Shards {
		if s.File == "" || strings.ContainsAny(s.File, `/\`) || s.Examples < 1 || s.Positions < s.Examples {
			return nil, fmt.Errorf("%w: index %s shard %d (%q, %d examples, %d positions) is invalid", ErrFormat, path, i, s.File, s.Examples, s.Positions)
		}
		ex += s.Examples
		pos += s.Positions
	}
	if ex != ix.Meta.Examples || pos != ix.Meta.Positions {
		return nil, fmt.Errorf("%w: index %s: shards hold %d examples and %d positions, the metadata says %d and %d", ErrFormat, path, ex, pos, ix.Meta.Examples, ix.Meta.Positions)
	}
	return &ix, nil
}

// ReadShard reads shard i of the index, whose files are in dir, and checks
// it against the index: the same shape, targets and provenance, and the
// listed counts.
func ReadShard[F tensor.Float](ix *Index, dir string, i int) ([]transformer.Example[F], error) {
	if ix == nil {
		return nil, fmt.Errorf("%w: ReadShard of a nil index", icrl.ErrInvalid)
	}
	if i < 0 || i >= len(ix.Shards) {
		return nil, fmt.Errorf("%w: shard %d out of range [0, %d)", icrl.ErrInvalid, i, len(ix.Shards))
	}
	s := ix.Shards[i]
	exs, meta, err := ReadFile[F](filepath.Join(dir, s.File))
	if err != nil {
		return nil, fmt.Errorf("shard %s: %w", s.File, err)
	}
	want := ix.Meta
	want.Examples, want.Positions = s.Examples, s.Positions
	if !sameMeta(meta, want) {
		return nil, fmt.Errorf("%w: shard %s has metadata %+v, the index %+v", ErrFormat, s.File, meta, want)
	}
	return exs, nil
}

// sameMeta reports whether two metadata agree in every field.
func sameMeta(a, b Meta) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
