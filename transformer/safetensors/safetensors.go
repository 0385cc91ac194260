package safetensors

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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

// appendJSONString appends s as a JSON string, escaping as serde_json does:
// only '"', '\\' and control characters, so the header matches the
// reference implementation's bytes.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// prepare validates the tensors and metadata and returns the padded header
// and the tensors in file order.
func prepare(tensors []Tensor, metadata map[string]string) ([]byte, []*Tensor, error) {
	order := make([]*Tensor, len(tensors))
	seen := make(map[string]bool, len(tensors))
	for i := range tensors {
		t := &tensors[i]
		if err := t.check(); err != nil {
			return nil, nil, err
		}
		if seen[t.Name] {
			return nil, nil, fmt.Errorf("%w: duplicate tensor name %q", ErrInvalid, t.Name)
		}
		seen[t.Name] = true
		order[i] = t
	}
	sort.Slice(order, func(i, j int) bool {
		ri, rj := dtypeRank[order[i].DType], dtypeRank[order[j].DType]
		if ri != rj {
			return ri > rj
		}
		return order[i].Name < order[j].Name
	})
	h := []byte{'{'}
	if metadata != nil {
		keys := make([]string, 0, len(metadata))
		for k, v := range metadata {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return nil, nil, fmt.Errorf("%w: metadata entry %q: %q is not valid UTF-8", ErrInvalid, k, v)
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		h = appendJSONString(h, metadataKey)
		h = append(h, ':', '{')
		for i, k := range keys {
			if i > 0 {
				h = append(h, ',')
			}
			h = appendJSONString(h, k)
			h = append(h, ':')
			h = appendJSONString(h, metadata[k])
		}
		h = append(h, '}')
	}
	offset := 0
	for i, t := range order {
		if i > 0 || metadata != nil {
			h = append(h, ',')
		}
		h = appendJSONString(h, t.Name)
		h = append(h, `:{"dtype":`...)
		h = appendJSONString(h, string(t.DType))
		h = append(h, `,"shape":[`...)
		for j, d := range t.Shape {
			if j > 0 {
				h = append(h, ',')
			}
			h = fmt.Appendf(h, "%d", d)
		}
		if offset > math.MaxInt-len(t.Data) {
			return nil, nil, fmt.Errorf("%w: total data size overflows an int", ErrInvalid)
		}
		h = fmt.Appendf(h, `],"data_offsets":[%d,%d]}`, offset, offset+len(t.Data))
		offset += len(t.Data)
	}
	h = append(h, '}')
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	if len(h) > MaxHeaderSize {
		return nil, nil, fmt.Errorf("%w: header of %d bytes exceeds the %d-byte limit", ErrInvalid, len(h), MaxHeaderSize)
	}
	return h, order, nil
}

// Write writes the tensors and metadata to w in the safetensors format, in
// the order described in the package documentation; metadata may be nil (no
// "__metadata__" entry). It returns an error wrapping [ErrInvalid] if a
// tensor has an unknown dtype, a negative dimension, a data length that does
// not match its shape, a reserved, duplicate or non-UTF-8 name, or if the
// metadata is not UTF-8; nothing is written then. Write errors of w are
// returned as they are.
func Write(w io.Writer, tensors []Tensor, metadata map[string]string) error {
	h, order, err := prepare(tensors, metadata)
	if err != nil {
		return err
	}
	buf := make([]byte, 8, 8+len(h))
	binary.LittleEndian.PutUint64(buf, uint64(len(h)))
	buf = append(buf, h...)
	if _, err := w.Write(buf); err != nil {
		return err
	}
	for _, t := range order {
		if _, err := w.Write(t.Data); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile writes the tensors and metadata to the named file as [Write]
// does, atomically: the bytes go to a temporary file in the same directory,
// which is synced and renamed over path, so path holds either its old content
// or the complete new file. On error the temporary file is removed and path
// is untouched. The new file has permissions 0644.
func WriteFile(path string, tensors []Tensor, metadata map[string]string) (err error) {
	h, order, err := prepare(tensors, metadata)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("safetensors: writing %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(h)))
	bw.Write(n[:])
	bw.Write(h)
	for _, t := range order {
		bw.Write(t.Data)
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// Persist the rename; not every system can sync a directory, so this
	// is best effort.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// ReadFile reads and validates the named safetensors file.
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	f, err := ReadBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return f, nil
}

// Read reads a whole safetensors file from r and validates it. It never
// allocates much more than the bytes r actually delivers, whatever the
// header length claims.
func Read(r io.Reader) (*File, error) {
	var prefix [8]byte
	if n, err := io.ReadFull(r, prefix[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("%w: file of %d bytes is shorter than the 8-byte header length", ErrInvalid, n)
		}
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	hlen := binary.LittleEndian.Uint64(prefix[:])
	if hlen > MaxHeaderSize {
		return nil, fmt.Errorf("%w: header length %d exceeds the %d-byte limit", ErrInvalid, hlen, MaxHeaderSize)
	}
	header, err := io.ReadAll(io.LimitReader(r, int64(hlen)))
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	if uint64(len(header)) < hlen {
		return nil, fmt.Errorf("%w: header length %d exceeds the %d bytes after the length prefix", ErrInvalid, hlen, len(header))
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	return parse(header, data)
}

// ReadBytes parses and validates a safetensors file held in b. The returned
// tensors' Data alias b, which must not be modified while they are in use.
func ReadBytes(b []byte) (*File, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: file of %d bytes is shorter than the 8-byte header length", ErrInvalid, len(b))
	}
	hlen := binary.LittleEndian.Uint64(b)
	if hlen > MaxHeaderSize {
		return nil, fmt.Errorf("%w: header length %d exceeds the %d-byte limit", ErrInvalid, hlen, MaxHeaderSize)
	}
	if hlen > uint64(len(b)-8) {
		return nil, fmt.Errorf("%w: header length %d exceeds the %d bytes after the length prefix", ErrInvalid, hlen, len(b)-8)
	}
	return parse(b[8:8+hlen], b[8+hlen:])
}

type entry struct {
	t          Tensor
	begin, end uint64
}

// parse validates the header and data buffer and builds the File.
func parse(header, data []byte) (*File, error) {
	if !utf8.Valid(header) {
		return nil, fmt.Errorf("%w: header is not valid UTF-8", ErrInvalid)
	}
	dec := json.NewDecoder(bytes.NewReader(header))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: header is not valid JSON: %v", ErrInvalid, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%w: header is not a JSON object (starts with %v)", ErrInvalid, tok)
	}
	f := &File{index: map[string]int{}}
	var entries []entry
	seenMeta := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: header is not valid JSON: %v", ErrInvalid, err)
		}
		name, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("%w: header is not valid JSON: key %v", ErrInvalid, tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%w: header is not valid JSON: entry %q: %v", ErrInvalid, name, err)
		}
		if name == metadataKey {
			if seenMeta {
				return nil, fmt.Errorf("%w: duplicate %q entry", ErrInvalid, metadataKey)
			}
			seenMeta = true
			if err := json.Unmarshal(raw, &f.Metadata); err != nil {
				return nil, fmt.Errorf("%w: %q is not an object of strings: %v", ErrInvalid, metadataKey, err)
			}
			continue
		}
		if _, dup := f.index[name]; dup {
			return nil, fmt.Errorf("%w: duplicate tensor name %q", ErrInvalid, name)
		}
		f.index[name] = -1
		e, err := parseEntry(name, raw)
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, fmt.Errorf("%w: header is not valid JSON: %v", ErrInvalid, err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, fmt.Errorf("%w: header is not valid JSON after the object: %v", ErrInvalid, err)
		}
		return nil, fmt.Errorf("%w: header has %v after the JSON object", ErrInvalid, tok)
	}

	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].begin != entries[j].begin {
			return entries[i].begin < entries[j].begin
		}
		return entries[i].end < entries[j].end
	})
	var pos uint64
	for i, e := range entries {
		switch {
		case e.begin < pos:
			return nil, fmt.Errorf("%w: tensor %q at bytes [%d,%d) overlaps tensor %q ending at %d",
				ErrInvalid, e.t.Name, e.begin, e.end, entries[i-1].t.Name, pos)
		case e.begin > pos:
			return nil, fmt.Errorf("%w: gap of %d bytes before tensor %q at bytes [%d,%d)",
				ErrInvalid, e.begin-pos, e.t.Name, e.begin, e.end)
		}
		pos = e.end
	}
	if pos > uint64(len(data)) {
		return nil, fmt.Errorf("%w: truncated data: tensors need %d bytes, the data buffer has %d", ErrInvalid, pos, len(data))
	}
	if pos < uint64(len(data)) {
		return nil, fmt.Errorf("%w: %d trailing bytes after the last tensor (tensors cover %d of %d)",
			ErrInvalid, uint64(len(data))-pos, pos, len(data))
	}
	f.tensors = make([]Tensor, len(entries))
	for i, e := range entries {
		e.t.Data = data[e.begin:e.end:e.end]
		f.tensors[i] = e.t
		f.index[e.t.Name] = i
	}
	return f, nil
}

// parseEntry validates one tensor's header entry. Field names match
// exactly; unknown fields are ignored, as in the reference implementation.
func parseEntry(name string, raw json.RawMessage) (entry, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return entry{}, fmt.Errorf("%w: tensor %q: header entry %.40s is not an object", ErrInvalid, name, raw)
	}
	var missing []string
	for _, k := range []string{"dtype", "shape", "data_offsets"} {
		if _, ok := fields[k]; !ok {
			missing = append(missing, k)
		}
	}
	if missing != nil {
		return entry{}, fmt.Errorf("%w: tensor %q: header entry lacks %s", ErrInvalid, name, strings.Join(missing, ", "))
	}
	var (
		dtype   string
		shape64 []int64
		offsets []uint64
	)
	if err := json.Unmarshal(fields["dtype"], &dtype); err != nil {
		return entry{}, fmt.Errorf("%w: tensor %q: dtype %.40s is not a string", ErrInvalid, name, fields["dtype"])
	}
	dt := DType(dtype)
	if !dt.Valid() {
		return entry{}, fmt.Errorf("%w: tensor %q has unknown dtype %q", ErrInvalid, name, dtype)
	}
	if err := json.Unmarshal(fields["shape"], &shape64); err != nil || shape64 == nil {
		return entry{}, fmt.Errorf("%w: tensor %q: shape %.40s is not an array of integers", ErrInvalid, name, fields["shape"])
	}
	shape := make([]int, len(shape64))
	for i, d := range shape64 {
		if d < 0 {
			return entry{}, fmt.Errorf("%w: tensor %q: dimension %d is %d, negative", ErrInvalid, name, i, d)
		}
		if uint64(d) > math.MaxInt {
			return entry{}, fmt.Errorf("%w: tensor %q: dimension %d is %d, too large", ErrInvalid, name, i, d)
		}
		shape[i] = int(d)
	}
	n, err := numElements(shape, dt.Size())
	if err != nil {
		return entry{}, fmt.Errorf("%w: tensor %q: %v", ErrInvalid, name, err)
	}
	if err := json.Unmarshal(fields["data_offsets"], &offsets); err != nil || len(offsets) != 2 {
		return entry{}, fmt.Errorf("%w: tensor %q: data_offsets %.40s is not [begin, end] of non-negative integers",
			ErrInvalid, name, fields["data_offsets"])
	}
	begin, end := offsets[0], offsets[1]
	if begin > end {
		return entry{}, fmt.Errorf("%w: tensor %q: data_offsets [%d, %d] has begin > end", ErrInvalid, name, begin, end)
	}
	if want := uint64(n) * uint64(dt.Size()); end-begin != want {
		return entry{}, fmt.Errorf("%w: tensor %q: dtype %s and shape %v need %d bytes, data_offsets [%d, %d] span %d",
			ErrInvalid, name, dt, shape, want, begin, end, end-begin)
	}
	return entry{t: Tensor{Name: name, DType: dt, Shape: shape}, begin: begin, end: end}, nil
}
