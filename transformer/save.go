package transformer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/safetensors"
)

// File names inside a model directory.
const (
	// ConfigFile holds the model's Config as JSON.
	ConfigFile = "config.json"
	// WeightsFile holds the parameters as safetensors, one tensor per
	// [Param] under its Name, row-major with the Param's Shape (linear
	// weights are stored input-major, [in, out], the transpose of PyTorch's
	// nn.Linear.weight).
	WeightsFile = "model.safetensors"
)

// tensorsOf returns the parameters as safetensors tensors, with the given
// name prefix.
func tensorsOf[F tensor.Float](prefix string, ps []*Param[F], grad bool) []safetensors.Tensor {
	out := make([]safetensors.Tensor, len(ps))
	for i, p := range ps {
		v := p.Value
		if grad {
			v = p.Grad
		}
		switch x := any(v).(type) {
		case []float32:
			out[i] = safetensors.FromFloat32(prefix+p.Name, p.Shape, x)
		case []float64:
			out[i] = safetensors.FromFloat64(prefix+p.Name, p.Shape, x)
		}
	}
	return out
}

// readTensor copies the tensor name of f into dst, checking its dtype and
// shape.
func readTensor[F tensor.Float](f *safetensors.File, name string, shape []int, dst []F) error {
	t, ok := f.Tensor(name)
	if !ok {
		return fmt.Errorf("%w: tensor %q is missing", ErrCheckpoint, name)
	}
	switch t.DType {
	case safetensors.F16, safetensors.BF16, safetensors.F32, safetensors.F64:
	default:
		return fmt.Errorf("%w: tensor %q has dtype %s, the model needs a float (F16, BF16, F32 or F64)", ErrCheckpoint, name, t.DType)
	}
	if !slices.Equal(t.Shape, shape) {
		return fmt.Errorf("%w: tensor %q has shape %v, the model needs %v", ErrCheckpoint, name, t.Shape, shape)
	}
	switch d := any(dst).(type) {
	case []float32:
		v, err := t.AsFloat32()
		if err != nil {
			return err
		}
		copy(d, v)
	case []float64:
		v, err := t.AsFloat64()
		if err != nil {
			return err
		}
		copy(d, v)
	}
	if i := firstNonFinite(dst); i >= 0 {
		return fmt.Errorf("%w: tensor %q entry %d is %v", icrl.ErrNotFinite, name, i, dst[i])
	}
	return nil
}

// Save writes the model to the directory dir (created if needed): its
// configuration as JSON in [ConfigFile] and its parameters as safetensors
// in [WeightsFile], with the dtype of F (F32 or F64). Each file is written
// atomically (a temporary file in dir, then a rename), so a crash leaves
// either the old or the new file. The weights file also records the
// configuration under the metadata key "config".
func (m *Model[F]) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	cfg, err := json.MarshalIndent(m.cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	meta := map[string]string{"config": string(cfg), "format": "icrl-transformer"}
	if err := safetensors.WriteFile(filepath.Join(dir, WeightsFile), tensorsOf("", m.params, false), meta); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, ConfigFile), append(cfg, '\n'))
}

// Load reads a model saved by [Model.Save] from dir. It returns an error
// that names the problem if a file is missing, truncated or corrupt, if the
// configuration is invalid or disagrees with the one recorded in the
// weights, or if a tensor is missing, extra, not of a float dtype, or of
// the wrong shape. Tensors are converted to F: F16, BF16 and F32 exactly,
// F64 into a float32 model by rounding to nearest (a value beyond float32's
// range is then an error, as any non-finite weight is).
func Load[F tensor.Float](dir string) (*Model[F], error) {
	raw, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, fmt.Errorf("transformer: %w", err)
	}
	cfg, err := parseConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("transformer: %s: %w", ConfigFile, err)
	}
	f, err := safetensors.ReadFile(filepath.Join(dir, WeightsFile))
	if err != nil {
		return nil, err
	}
	// Bound the model's size by the file's before allocating it (the
	// exact dtypes and shapes are checked tensor by tensor below).
	if have, want := fitsIn(f, cfg); want > have {
		return nil, fmt.Errorf("%w: %s holds %d bytes of tensors, too few for the %d parameters of %s", ErrCheckpoint, WeightsFile, have, want, ConfigFile)
	}
	m, err := newZero[F](cfg)
	if err != nil {
		return nil, fmt.Errorf("transformer: %s: %w", ConfigFile, err)
	}
	if rec, ok := f.Metadata["config"]; ok {
		c2, err := parseConfig([]byte(rec))
		if err != nil {
			return nil, fmt.Errorf("transformer: %s: metadata config: %w", WeightsFile, err)
		}
		if c2.withDefaults() != cfg.withDefaults() {
			return nil, fmt.Errorf("%w: %s was saved with a different configuration than %s", ErrCheckpoint, WeightsFile, ConfigFile)
		}
	}
	if err := loadParams(f, "", m.params); err != nil {
		return nil, err
	}
	if f.Len() != len(m.params) {
		return nil, fmt.Errorf("%w: %s has %d tensors, the model has %d parameters", ErrCheckpoint, WeightsFile, f.Len(), len(m.params))
	}
	return m, nil
}

// fitsIn returns the bytes of f's tensors and the parameter count of cfg
// (negative on overflow): a model whose count exceeds the bytes cannot be
// in the file, since a parameter takes at least one byte whatever the
// dtype, and is rejected before it is allocated.
func fitsIn(f *safetensors.File, cfg Config) (have, want int64) {
	for _, t := range f.Tensors() {
		have += int64(len(t.Data))
	}
	return have, cfg.numParams()
}

// loadParams reads every parameter (named prefix+Name) from f.
func loadParams[F tensor.Float](f *safetensors.File, prefix string, ps []*Param[F]) error {
	for _, p := range ps {
		if err := readTensor(f, prefix+p.Name, p.Shape, p.Value); err != nil {
			return err
		}
	}
	return nil
}

// parseConfig decodes a JSON configuration strictly (unknown fields are an
// error) and validates it.
func parseConfig(raw []byte) (Config, error) {
	var cfg Config
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg.withDefaults(), nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory and a rename.
func writeFileAtomic(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	return nil
}

var errNoCheckpoint = errors.New("transformer: no checkpoint")

// CheckpointFile is the file [Train] writes in its CheckpointDir: the
// model's parameters under their names, the optimiser's moments as F64
// tensors "adam.m.<name>" and "adam.v.<name>", the best validation
// parameters as "best.<name>" when RestoreBest is set, and, in the
// metadata, the configuration ("config") and the training progress
// ("train", JSON).
const CheckpointFile = "checkpoint.safetensors"

type checkpointMeta struct {
	trainState
	AdamStep int `json:"adam_step"`
}

// saveCheckpoint writes the training state to dir/CheckpointFile
// atomically.
func saveCheckpoint[F tensor.Float](dir string, m *Model[F], opt *Adam[F], st trainState, best []*Param[F]) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	cfg, err := json.Marshal(m.cfg)
	if err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	as := opt.State()
	tr, err := json.Marshal(checkpointMeta{trainState: st, AdamStep: as.Step})
	if err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	ts := tensorsOf("", m.params, false)
	for _, p := range m.params {
		ts = append(ts,
			safetensors.FromFloat64("adam.m."+p.Name, p.Shape, as.M[p.Name]),
			safetensors.FromFloat64("adam.v."+p.Name, p.Shape, as.V[p.Name]))
	}
	if best != nil {
		ts = append(ts, tensorsOf("best.", best, false)...)
	}
	meta := map[string]string{"config": string(cfg), "train": string(tr), "format": "icrl-transformer-checkpoint"}
	return safetensors.WriteFile(filepath.Join(dir, CheckpointFile), ts, meta)
}

// loadCheckpoint restores the training state from dir/CheckpointFile. It
// returns errNoCheckpoint if there is no such file.
func loadCheckpoint[F tensor.Float](dir string, m *Model[F], opt *Adam[F], st *trainState, best []*Param[F]) error {
	path := filepath.Join(dir, CheckpointFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return errNoCheckpoint
	}
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return err
	}
	cfg, err := parseConfig([]byte(f.Metadata["config"]))
	if err != nil {
		return fmt.Errorf("transformer: checkpoint config: %w", err)
	}
	if cfg != m.cfg {
		return fmt.Errorf("%w: checkpoint in %s has a different model configuration", ErrCheckpoint, dir)
	}
	var meta checkpointMeta
	if err := json.Unmarshal([]byte(f.Metadata["train"]), &meta); err != nil {
		return fmt.Errorf("transformer: checkpoint training state: %w", err)
	}
	if meta.Step < 0 || meta.AdamStep < 0 {
		return fmt.Errorf("%w: checkpoint has step %d and optimiser step %d", ErrCheckpoint, meta.Step, meta.AdamStep)
	}
	as := AdamState{Step: meta.AdamStep, M: map[string][]float64{}, V: map[string][]float64{}}
	for _, p := range m.params {
		for _, mom := range []struct {
			prefix string
			dst    map[string][]float64
		}{{"adam.m.", as.M}, {"adam.v.", as.V}} {
			v := make([]float64, len(p.Value))
			if err := readTensor(f, mom.prefix+p.Name, p.Shape, v); err != nil {
				return err
			}
			mom.dst[p.Name] = v
		}
	}
	// Read everything before changing the model or the optimiser.
	vals := cloneParams(m.params)
	if err := loadParams(f, "", vals); err != nil {
		return err
	}
	var bestVals []*Param[F]
	if best != nil {
		if _, ok := f.Tensor("best." + m.params[0].Name); ok {
			bestVals = cloneParams(m.params)
			if err := loadParams(f, "best.", bestVals); err != nil {
				return err
			}
		}
	}
	if err := opt.SetState(as); err != nil {
		return err
	}
	for i, p := range m.params {
		copy(p.Value, vals[i].Value)
		if bestVals != nil {
			copy(best[i].Value, bestVals[i].Value)
		}
	}
	*st = meta.trainState
	return nil
}
