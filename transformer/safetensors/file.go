package safetensors

import (
	"fmt"
	"slices"
)

// File is the content of a safetensors file: its tensors in data order and
// its metadata. It is safe for concurrent reads.
type File struct {
	// Metadata holds the header's "__metadata__" object; nil if absent.
	Metadata map[string]string
	tensors  []Tensor
	index    map[string]int
}

// Len returns the number of tensors.
func (f *File) Len() int { return len(f.tensors) }

// Names returns the tensor names in data order.
func (f *File) Names() []string {
	names := make([]string, len(f.tensors))
	for i, t := range f.tensors {
		names[i] = t.Name
	}
	return names
}

// Tensors returns the tensors in data order. The slice is a copy; the
// tensors' Data share the file's buffer and must not be modified.
func (f *File) Tensors() []Tensor { return slices.Clone(f.tensors) }

// Tensor returns the tensor of the given name and whether it exists. Its Data
// shares the file's buffer and must not be modified.
func (f *File) Tensor(name string) (Tensor, bool) {
	i, ok := f.index[name]
	if !ok {
		return Tensor{}, false
	}
	return f.tensors[i], true
}

func (f *File) lookup(name string) (Tensor, error) {
	t, ok := f.Tensor(name)
	if !ok {
		return Tensor{}, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	return t, nil
}

// Float32 returns the floating-point tensor of the given name, converted
// as by [Tensor.AsFloat32], and its shape. It returns an error if there is
// no such tensor or its dtype is not a floating-point one.
func (f *File) Float32(name string) (data []float32, shape []int, err error) {
	t, err := f.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	if data, err = t.AsFloat32(); err != nil {
		return nil, nil, err
	}
	return data, slices.Clone(t.Shape), nil
}

// Float64 returns the floating-point tensor of the given name, converted
// exactly as by [Tensor.AsFloat64], and its shape. It returns an error if
// there is no such tensor or its dtype is not a floating-point one.
func (f *File) Float64(name string) (data []float64, shape []int, err error) {
	t, err := f.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	if data, err = t.AsFloat64(); err != nil {
		return nil, nil, err
	}
	return data, slices.Clone(t.Shape), nil
}
