package safetensors

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// MaxHeaderSize is the largest header, in bytes, that the readers accept
// (100 MB, the reference implementation's limit) and that [Write] produces.
const MaxHeaderSize = 100_000_000

// metadataKey is the reserved header key holding the free-form metadata.
const metadataKey = "__metadata__"

// ErrInvalid is wrapped by every error that reports a malformed file or an
// invalid tensor given to [Write]; test for it with [errors.Is].
var ErrInvalid = errors.New("safetensors: invalid")

// ErrDType is wrapped by the errors of the typed accessors
// ([Tensor.AsFloat32], [Tensor.AsFloat64], [Tensor.AsInt64]) when the
// tensor holds another dtype.
var ErrDType = errors.New("safetensors: wrong dtype")

// ErrNotFound is wrapped by the errors of the typed lookups by name
// ([File.Float32], [File.Float64]) for a name the file does not hold.
var ErrNotFound = errors.New("safetensors: no such tensor")

// DType is a tensor element type, spelled as in the header ("F32", "F64", …).
type DType string

// The element types of the format. Every one can be read and written as raw
// bytes; [Tensor.AsFloat32] and [Tensor.AsFloat64] decode F32 and F64.
const (
	BOOL   DType = "BOOL"    // boolean, 1 byte
	U8     DType = "U8"      // unsigned 8-bit integer
	I8     DType = "I8"      // signed 8-bit integer
	F8E5M2 DType = "F8_E5M2" // 8-bit float, 5 exponent and 2 mantissa bits
	F8E4M3 DType = "F8_E4M3" // 8-bit float, 4 exponent and 3 mantissa bits
	I16    DType = "I16"     // signed 16-bit integer
	U16    DType = "U16"     // unsigned 16-bit integer
	F16    DType = "F16"     // IEEE 754 half precision
	BF16   DType = "BF16"    // bfloat16
	I32    DType = "I32"     // signed 32-bit integer
	U32    DType = "U32"     // unsigned 32-bit integer
	F32    DType = "F32"     // IEEE 754 single precision
	F64    DType = "F64"     // IEEE 754 double precision
	I64    DType = "I64"     // signed 64-bit integer
	U64    DType = "U64"     // unsigned 64-bit integer
)

// dtypeRank lists the dtypes in the reference implementation's enum order;
// Write lays tensors out by decreasing rank.
var dtypeRank = map[DType]int{
	BOOL: 0, U8: 1, I8: 2, F8E5M2: 3, F8E4M3: 4, I16: 5, U16: 6, F16: 7,
	BF16: 8, I32: 9, U32: 10, F32: 11, F64: 12, I64: 13, U64: 14,
}

// Size returns the size of one element in bytes, or 0 if d is not a dtype
// of the format.
func (d DType) Size() int {
	switch d {
	case BOOL, U8, I8, F8E5M2, F8E4M3:
		return 1
	case I16, U16, F16, BF16:
		return 2
	case I32, U32, F32:
		return 4
	case I64, U64, F64:
		return 8
	}
	return 0
}

// Valid reports whether d is a dtype of the format.
func (d DType) Valid() bool { return d.Size() != 0 }

// Tensor is one named tensor: its element type, shape and raw little-endian,
// row-major bytes. A scalar has an empty shape and one element.
type Tensor struct {
	// Name identifies the tensor; it must be valid UTF-8 and not
	// "__metadata__".
	Name string
	// DType is the element type.
	DType DType
	// Shape lists the dimensions, outermost first; all are ≥ 0.
	Shape []int
	// Data holds the elements, len(Data) = product(Shape) × DType.Size().
	Data []byte
}

// FromFloat32 returns an F32 tensor holding a bit-exact little-endian copy of
// data (NaN payloads, −0 and infinities are kept). The shape is copied and
// checked by [Write]: its product must be len(data).
func FromFloat32(name string, shape []int, data []float32) Tensor {
	b := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return Tensor{Name: name, DType: F32, Shape: slices.Clone(shape), Data: b}
}

// FromFloat64 returns an F64 tensor holding a bit-exact little-endian copy of
// data. The shape is copied and checked by [Write]: its product must be
// len(data).
func FromFloat64(name string, shape []int, data []float64) Tensor {
	b := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return Tensor{Name: name, DType: F64, Shape: slices.Clone(shape), Data: b}
}

// FromInt64 returns an I64 tensor holding a little-endian copy of data. The
// shape is copied and checked by [Write]: its product must be len(data).
func FromInt64(name string, shape []int, data []int64) Tensor {
	b := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	return Tensor{Name: name, DType: I64, Shape: slices.Clone(shape), Data: b}
}

// numElements returns the product of shape, checking for negative
// dimensions and overflow of the byte count for elements of elemSize bytes.
func numElements(shape []int, elemSize int) (int, error) {
	for i, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("dimension %d is %d, negative", i, d)
		}
	}
	if slices.Contains(shape, 0) {
		return 0, nil
	}
	n := 1
	for _, d := range shape {
		if n > math.MaxInt/d {
			return 0, fmt.Errorf("shape %v has more elements than fit in an int", shape)
		}
		n *= d
	}
	if elemSize > 0 && n > math.MaxInt/elemSize {
		return 0, fmt.Errorf("shape %v has more bytes than fit in an int", shape)
	}
	return n, nil
}

// check validates t's name, dtype, shape and data length.
func (t *Tensor) check() error {
	if t.Name == metadataKey {
		return fmt.Errorf("%w: tensor name %q is reserved", ErrInvalid, t.Name)
	}
	if !utf8.ValidString(t.Name) {
		return fmt.Errorf("%w: tensor name %q is not valid UTF-8", ErrInvalid, t.Name)
	}
	if !t.DType.Valid() {
		return fmt.Errorf("%w: tensor %q has unknown dtype %q", ErrInvalid, t.Name, t.DType)
	}
	n, err := numElements(t.Shape, t.DType.Size())
	if err != nil {
		return fmt.Errorf("%w: tensor %q: %v", ErrInvalid, t.Name, err)
	}
	if want := n * t.DType.Size(); len(t.Data) != want {
		return fmt.Errorf("%w: tensor %q of dtype %s and shape %v needs %d bytes, has %d",
			ErrInvalid, t.Name, t.DType, t.Shape, want, len(t.Data))
	}
	return nil
}

// AsFloat32 decodes a floating-point tensor into a new float32 slice: F16,
// BF16 and F32 exactly (every such value is a float32), F64 rounded to the
// nearest float32 (ties to even; beyond float32's range it becomes ±Inf).
// Other dtypes return an error naming the dtype.
func (t Tensor) AsFloat32() ([]float32, error) {
	switch t.DType {
	case F64:
		f, err := t.AsFloat64()
		if err != nil {
			return nil, err
		}
		out := make([]float32, len(f))
		for i, v := range f {
			out[i] = float32(v)
		}
		return out, nil
	case F16, BF16, F32:
	default:
		return nil, fmt.Errorf("%w: tensor %q has dtype %s, not F16, BF16, F32 or F64", ErrDType, t.Name, t.DType)
	}
	size := t.DType.Size()
	if len(t.Data)%size != 0 {
		return nil, fmt.Errorf("%w: tensor %q has %d bytes, not a multiple of %d", ErrInvalid, t.Name, len(t.Data), size)
	}
	out := make([]float32, len(t.Data)/size)
	switch t.DType {
	case F16:
		for i := range out {
			out[i] = Float16(binary.LittleEndian.Uint16(t.Data[2*i:]))
		}
	case BF16:
		for i := range out {
			out[i] = BFloat16(binary.LittleEndian.Uint16(t.Data[2*i:]))
		}
	default:
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
		}
	}
	return out, nil
}

// AsFloat64 decodes a floating-point tensor (F16, BF16, F32 or F64) into a
// new float64 slice, exactly. Other dtypes return an error naming the
// dtype.
func (t Tensor) AsFloat64() ([]float64, error) {
	switch t.DType {
	case F16, BF16, F32:
		f, err := t.AsFloat32()
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(f))
		for i, v := range f {
			out[i] = float64(v)
		}
		return out, nil
	case F64:
		if len(t.Data)%8 != 0 {
			return nil, fmt.Errorf("%w: tensor %q has %d bytes, not a multiple of 8", ErrInvalid, t.Name, len(t.Data))
		}
		out := make([]float64, len(t.Data)/8)
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.Data[8*i:]))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: tensor %q has dtype %s, not F16, BF16, F32 or F64", ErrDType, t.Name, t.DType)
}

// Float16 returns the value of the IEEE 754 half-precision number with
// the given bits (1 sign, 5 exponent and 10 fraction bits), exactly:
// subnormals, infinities and NaN (its payload kept in the fraction's top
// bits) included.
func Float16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	case exp != 0: // normal: rebias the exponent from 15 to 127
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign) // ±0
	}
	// Subnormal: frac·2⁻²⁴, exact in float32.
	v := float32(frac) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}

// BFloat16 returns the value of the bfloat16 number with the given bits
// (the top 16 bits of a float32), exactly.
func BFloat16(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// AsInt64 decodes an I64 tensor into a new slice. Other dtypes return an
// error naming the dtype.
func (t Tensor) AsInt64() ([]int64, error) {
	if t.DType != I64 {
		return nil, fmt.Errorf("%w: tensor %q has dtype %s, not I64", ErrDType, t.Name, t.DType)
	}
	if len(t.Data)%8 != 0 {
		return nil, fmt.Errorf("%w: tensor %q has %d bytes, not a multiple of 8", ErrInvalid, t.Name, len(t.Data))
	}
	out := make([]int64, len(t.Data)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(t.Data[8*i:]))
	}
	return out, nil
}
