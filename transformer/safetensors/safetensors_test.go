package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// goldenFile is a small file written out by hand: tensors "b" (F32, shape
// [2], values 1, −2) and "a" (F64 scalar 0.5) with metadata format=pt.
// F64 sorts before F32, so "a" comes first in the data buffer.
func goldenFile() []byte {
	header := `{"__metadata__":{"format":"pt"},` +
		`"a":{"dtype":"F64","shape":[],"data_offsets":[0,8]},` +
		`"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}`
	var b []byte
	// 138 bytes of JSON + 6 spaces of padding = 144 = 0x90.
	b = append(b, 0x90, 0, 0, 0, 0, 0, 0, 0)
	b = append(b, header...)
	b = append(b, "      "...)
	b = append(b, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f) // 0.5 as float64 LE
	b = append(b, 0, 0, 0x80, 0x3f)             // 1 as float32 LE
	b = append(b, 0, 0, 0, 0xc0)                // −2 as float32 LE
	return b
}

func TestGoldenWrite(t *testing.T) {
	want := goldenFile()
	if len(want) != 8+144+16 {
		t.Fatalf("golden file has %d bytes, want 168", len(want))
	}
	var buf bytes.Buffer
	err := Write(&buf, []Tensor{
		FromFloat32("b", []int{2}, []float32{1, -2}),
		FromFloat64("a", nil, []float64{0.5}),
	}, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("Write gave\n%q\nwant\n%q", buf.Bytes(), want)
	}
}

func TestGoldenRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func([]byte) (*File, error)
	}{
		{"ReadBytes", ReadBytes},
		{"Read", func(b []byte) (*File, error) { return Read(bytes.NewReader(b)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.read(goldenFile())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(f.Metadata, map[string]string{"format": "pt"}) {
				t.Errorf("metadata %v", f.Metadata)
			}
			if got := f.Names(); !reflect.DeepEqual(got, []string{"a", "b"}) {
				t.Errorf("names %v, want [a b]", got)
			}
			a, shape, err := f.Float64("a")
			if err != nil || !reflect.DeepEqual(a, []float64{0.5}) || len(shape) != 0 {
				t.Errorf("a = %v %v %v", a, shape, err)
			}
			b, shape, err := f.Float32("b")
			if err != nil || !reflect.DeepEqual(b, []float32{1, -2}) || !reflect.DeepEqual(shape, []int{2}) {
				t.Errorf("b = %v %v %v", b, shape, err)
			}
			b64, _, err := f.Float64("b")
			if err != nil || !reflect.DeepEqual(b64, []float64{1, -2}) {
				t.Errorf("b widened = %v %v", b64, err)
			}
			if a32, _, err := f.Float32("a"); err != nil || len(a32) == 0 {
				t.Errorf("Float32 of an F64 tensor (narrowed): %v, %v", a32, err)
			}
			if _, _, err := f.Float32("c"); err == nil || !strings.Contains(err.Error(), `"c"`) {
				t.Errorf("missing tensor: err = %v", err)
			}
		})
	}
}

// TestReferenceVectors checks Write against byte vectors from the reference
// implementation's own tests (huggingface/safetensors, safetensors/src/
// tensor.rs: test_serialization_forced_alignement and test_empty).
func TestReferenceVectors(t *testing.T) {
	forced := []byte{
		72, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 48, 34, 58, 123, 34, 100, 116,
		121, 112, 101, 34, 58, 34, 70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34, 58,
		91, 49, 44, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97, 116, 97, 95, 111, 102, 102,
		115, 101, 116, 115, 34, 58, 91, 48, 44, 50, 52, 93, 125, 125, 32, 32, 32, 32, 32,
		32, 32, 0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0,
		160, 64,
	}
	empty := []byte{8, 0, 0, 0, 0, 0, 0, 0, 123, 125, 32, 32, 32, 32, 32, 32}
	emptyMeta := []byte{
		40, 0, 0, 0, 0, 0, 0, 0, 123, 34, 95, 95, 109, 101, 116, 97, 100, 97, 116, 97, 95,
		95, 34, 58, 123, 34, 102, 114, 97, 109, 101, 119, 111, 114, 107, 34, 58, 34, 112,
		116, 34, 125, 125, 32, 32, 32, 32, 32,
	}
	for _, tc := range []struct {
		name    string
		tensors []Tensor
		meta    map[string]string
		want    []byte
	}{
		{"forced alignment", []Tensor{FromFloat32("attn0", []int{1, 1, 2, 3}, []float32{0, 1, 2, 3, 4, 5})}, nil, forced},
		{"empty", nil, nil, empty},
		{"empty with metadata", nil, map[string]string{"framework": "pt"}, emptyMeta},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, tc.tensors, tc.meta); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !bytes.Equal(buf.Bytes(), tc.want) {
			t.Errorf("%s: Write gave\n%q\nwant\n%q", tc.name, buf.Bytes(), tc.want)
		}
		f, err := ReadBytes(tc.want)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if f.Len() != len(tc.tensors) || !reflect.DeepEqual(f.Metadata, tc.meta) {
			t.Errorf("%s: read %d tensors, metadata %v", tc.name, f.Len(), f.Metadata)
		}
	}
}

func TestOrder(t *testing.T) {
	// Reference order: dtype rank descending (U64, I64, F64, F32, …, BOOL),
	// then name.
	ts := []Tensor{
		{Name: "z", DType: BOOL, Shape: []int{1}, Data: []byte{1}},
		{Name: "y", DType: BF16, Shape: []int{1}, Data: []byte{0, 0}},
		{Name: "b", DType: F32, Shape: []int{1}, Data: make([]byte, 4)},
		{Name: "a", DType: F32, Shape: []int{1}, Data: make([]byte, 4)},
		{Name: "x", DType: F64, Shape: []int{1}, Data: make([]byte, 8)},
		{Name: "w", DType: I64, Shape: []int{1}, Data: make([]byte, 8)},
		{Name: "v", DType: U8, Shape: []int{0}, Data: nil},
	}
	var buf bytes.Buffer
	if err := Write(&buf, ts, nil); err != nil {
		t.Fatal(err)
	}
	f, err := ReadBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"w", "x", "a", "b", "y", "v", "z"}
	if got := f.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	// Every tensor is aligned to its element size within the file.
	hlen := binary.LittleEndian.Uint64(buf.Bytes())
	pos := 8 + int(hlen)
	for _, tt := range f.Tensors() {
		if pos%tt.DType.Size() != 0 {
			t.Errorf("tensor %q at file offset %d, not aligned to %d", tt.Name, pos, tt.DType.Size())
		}
		pos += len(tt.Data)
	}
}

func TestRoundTripBitExact(t *testing.T) {
	f32 := []float32{
		0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffa00000), // quiet NaN with payload, signalling NaN
		math.SmallestNonzeroFloat32, math.MaxFloat32, 1.0 / 3,
	}
	f64 := []float64{
		0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1),
		math.Float64frombits(0x7ff8000000000123), math.Float64frombits(0xfff0000000000001),
		math.SmallestNonzeroFloat64, math.MaxFloat64, 1.0 / 3,
	}
	var buf bytes.Buffer
	err := Write(&buf, []Tensor{
		FromFloat32("f32", []int{3, 3}, f32),
		FromFloat64("f64", []int{9}, f64),
		FromFloat32("empty", []int{2, 0, 3}, nil),
	}, map[string]string{"k\"ey\n": "välue\x01", "": ""})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Read", "ReadBytes"} {
		var f *File
		if name == "Read" {
			f, err = Read(bytes.NewReader(buf.Bytes()))
		} else {
			f, err = ReadBytes(buf.Bytes())
		}
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(f.Metadata, map[string]string{"k\"ey\n": "välue\x01", "": ""}) {
			t.Errorf("%s: metadata %q", name, f.Metadata)
		}
		g32, shape, err := f.Float32("f32")
		if err != nil || !reflect.DeepEqual(shape, []int{3, 3}) {
			t.Fatalf("%s: %v %v", name, shape, err)
		}
		for i := range f32 {
			if math.Float32bits(g32[i]) != math.Float32bits(f32[i]) {
				t.Errorf("%s: f32[%d] = %#x, want %#x", name, i, math.Float32bits(g32[i]), math.Float32bits(f32[i]))
			}
		}
		g64, _, err := f.Float64("f64")
		if err != nil {
			t.Fatal(err)
		}
		for i := range f64 {
			if math.Float64bits(g64[i]) != math.Float64bits(f64[i]) {
				t.Errorf("%s: f64[%d] = %#x, want %#x", name, i, math.Float64bits(g64[i]), math.Float64bits(f64[i]))
			}
		}
		e, shape, err := f.Float32("empty")
		if err != nil || len(e) != 0 || !reflect.DeepEqual(shape, []int{2, 0, 3}) {
			t.Errorf("%s: empty = %v %v %v", name, e, shape, err)
		}
	}
}

// header builds a file from a header text and a data buffer, with the
// header length prefix set to the header's length.
func header(h string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	b = append(b, h...)
	return append(b, data...)
}

// readErrorCases are malformed files and a substring their error must
// contain.
var readErrorCases = []struct {
	name, want string
	file       []byte
}{
	{"empty file", "shorter than the 8-byte", nil},
	{"7 bytes", "file of 7 bytes", []byte{1, 2, 3, 4, 5, 6, 7}},
	{"header beyond file", "header length 100 exceeds the 2 bytes", append(binary.LittleEndian.AppendUint64(nil, 100), '{', '}')},
	{"header beyond cap", "exceeds the 100000000-byte limit", binary.LittleEndian.AppendUint64(nil, 100_000_001)},
	{"header length 2^64-1", "exceeds the 100000000-byte limit", binary.LittleEndian.AppendUint64(nil, math.MaxUint64)},
	{"not UTF-8", "not valid UTF-8", header("{\"\xff\":1}", nil)},
	{"not JSON", "not valid JSON", header("{nope", nil)},
	{"empty header", "not valid JSON", header("", nil)},
	{"array header", "not a JSON object", header("[1,2]", nil)},
	{"string header", "not a JSON object", header(`"x"`, nil)},
	{"trailing garbage", "after the JSON object", header(`{} {}`, nil)},
	{"unterminated", "not valid JSON", header(`{"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}`, make([]byte, 4))},
	{"entry not object", "is not an object", header(`{"a":3}`, nil)},
	{"missing fields", "lacks shape, data_offsets", header(`{"a":{"dtype":"F32"}}`, nil)},
	{"wrong-case field", "lacks dtype", header(`{"a":{"DTYPE":"F32","shape":[],"data_offsets":[0,4]}}`, make([]byte, 4))},
	{"unknown dtype", `unknown dtype "F128"`, header(`{"a":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}}`, make([]byte, 16))},
	{"dtype not string", "dtype 32 is not a string", header(`{"a":{"dtype":32,"shape":[1],"data_offsets":[0,4]}}`, make([]byte, 4))},
	{"negative dim", "dimension 1 is -2, negative", header(`{"a":{"dtype":"F32","shape":[1,-2],"data_offsets":[0,8]}}`, make([]byte, 8))},
	{"fractional dim", "not an array of integers", header(`{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}}`, make([]byte, 4))},
	{"shape overflow", "more elements than fit", header(`{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, nil)},
	{"byte overflow", "more bytes than fit", header(`{"a":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}}`, nil)},
	{"offsets of 3", "is not [begin, end]", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}}`, make([]byte, 4))},
	{"negative offset", "is not [begin, end]", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}}`, make([]byte, 4))},
	{"begin > end", "has begin > end", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}`, make([]byte, 4))},
	{"size mismatch", "need 8 bytes, data_offsets [0, 4] span 4", header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, make([]byte, 4))},
	{"overlap", `"b" at bytes [4,12) overlaps tensor "a" ending at 8`, header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, make([]byte, 12))},
	{"gap", `gap of 4 bytes before tensor "b"`, header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}}`, make([]byte, 16))},
	{"gap at start", `gap of 4 bytes before tensor "a"`, header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8))},
	{"one-byte gap", `gap of 1 bytes before tensor "b"`, header(`{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[1],"data_offsets":[3,4]}}`, make([]byte, 4))},
	{"one-byte gap at start", `gap of 1 bytes before tensor "a"`, header(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, make([]byte, 2))},
	{"trailing data", "3 trailing bytes", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, make([]byte, 7))},
	{"one trailing byte", "1 trailing bytes", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, make([]byte, 5))},
	{"one missing byte", "truncated data", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, make([]byte, 3))},
	{"data without tensors", "5 trailing bytes", header(`{}`, make([]byte, 5))},
	{"truncated data", "truncated data: tensors need 8 bytes, the data buffer has 6", header(`{"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}`, make([]byte, 6))},
	{"duplicate name", `duplicate tensor name "a"`, header(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"\u0061":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, make([]byte, 2))},
	{"duplicate metadata", `duplicate "__metadata__"`, header(`{"__metadata__":{},"__metadata__":{}}`, nil)},
	{"metadata not strings", "not an object of strings", header(`{"__metadata__":{"a":1}}`, nil)},
	{"metadata not object", "not an object of strings", header(`{"__metadata__":[]}`, nil)},
	{"deep nesting", "not valid JSON", header(`{"a":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+`}`, nil)},
}

func TestReadErrors(t *testing.T) {
	for _, tc := range readErrorCases {
		for _, how := range []string{"ReadBytes", "Read"} {
			var err error
			if how == "Read" {
				_, err = Read(bytes.NewReader(tc.file))
			} else {
				_, err = ReadBytes(tc.file)
			}
			if err == nil {
				t.Errorf("%s %s: no error", how, tc.name)
				continue
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%s %s: error %q does not wrap ErrInvalid", how, tc.name, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s: error %q does not contain %q", how, tc.name, err, tc.want)
			}
		}
	}
}

func TestReadAccepts(t *testing.T) {
	// Files the format allows that Write does not produce: tensors listed
	// out of data order, unknown fields, leading whitespace, a null
	// metadata, zero-size tensors at any offset.
	for _, tc := range []struct {
		name  string
		file  []byte
		names []string
	}{
		{"out of order", header(`{"b":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{7, 9}), []string{"a", "b"}},
		{"extra fields", header(` {"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"extra":[1]}}`, []byte{7}), []string{"a"}},
		{"null metadata", header(`{"__metadata__":null}`, nil), []string{}},
		{"zero-size", header(`{"e":{"dtype":"F32","shape":[0],"data_offsets":[1,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"f":{"dtype":"F32","shape":[3,0],"data_offsets":[0,0]}}`, []byte{7}), []string{"f", "a", "e"}},
	} {
		f, err := ReadBytes(tc.file)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := f.Names(); !reflect.DeepEqual(got, tc.names) {
			t.Errorf("%s: names %v, want %v", tc.name, got, tc.names)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	ok := FromFloat32("ok", []int{1}, []float32{1})
	for _, tc := range []struct {
		name, want string
		tensors    []Tensor
		meta       map[string]string
	}{
		{"length mismatch", `"w" of dtype F32 and shape [2 2] needs 16 bytes, has 12`, []Tensor{FromFloat32("w", []int{2, 2}, []float32{1, 2, 3})}, nil},
		{"negative dim", "dimension 0 is -1", []Tensor{{Name: "w", DType: F32, Shape: []int{-1}}}, nil},
		{"overflow", "more elements than fit", []Tensor{{Name: "w", DType: F32, Shape: []int{1 << 40, 1 << 40}}}, nil},
		{"unknown dtype", `unknown dtype "F128"`, []Tensor{{Name: "w", DType: "F128", Shape: []int{}}}, nil},
		{"duplicate", `duplicate tensor name "ok"`, []Tensor{ok, ok}, nil},
		{"reserved name", `"__metadata__" is reserved`, []Tensor{{Name: "__metadata__", DType: U8, Shape: []int{0}}}, nil},
		{"bad UTF-8 name", "not valid UTF-8", []Tensor{{Name: "\xff", DType: U8, Shape: []int{0}}}, nil},
		{"bad UTF-8 metadata", "not valid UTF-8", []Tensor{ok}, map[string]string{"k": "\xfe"}},
	} {
		var buf bytes.Buffer
		err := Write(&buf, tc.tensors, tc.meta)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: wrote %d bytes despite the error", tc.name, buf.Len())
		}
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n <= 0 {
		return 0, io.ErrClosedPipe
	}
	w.n--
	return len(p), nil
}

func TestWriteWriterError(t *testing.T) {
	ts := []Tensor{FromFloat32("a", []int{1}, []float32{1})}
	for n := 0; n < 2; n++ {
		if err := Write(&failWriter{n: n}, ts, nil); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("writer failing after %d writes: err = %v", n, err)
		}
	}
}

func TestAsFloatErrors(t *testing.T) {
	u8 := Tensor{Name: "h", DType: U8, Shape: []int{2}, Data: []byte{0x80, 0x3f}}
	if _, err := u8.AsFloat32(); !errors.Is(err, ErrDType) || !strings.Contains(err.Error(), "U8") {
		t.Errorf("AsFloat32 of U8: %v", err)
	}
	if _, err := u8.AsFloat64(); !errors.Is(err, ErrDType) || !strings.Contains(err.Error(), "U8") {
		t.Errorf("AsFloat64 of U8: %v", err)
	}
	odd := Tensor{Name: "b", DType: BF16, Data: []byte{1, 2, 3}}
	if _, err := odd.AsFloat32(); !errors.Is(err, ErrInvalid) {
		t.Errorf("AsFloat32 of 3 bytes of BF16: %v", err)
	}
	bad := Tensor{Name: "x", DType: F32, Data: []byte{1, 2, 3}}
	if _, err := bad.AsFloat32(); err == nil {
		t.Error("AsFloat32 of 3 bytes: no error")
	}
	bad.DType = F64
	if _, err := bad.AsFloat64(); err == nil {
		t.Error("AsFloat64 of 3 bytes: no error")
	}
}

// listDir returns the names in dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.safetensors")
	old := []Tensor{FromFloat64("x", []int{2}, []float64{1, 2})}
	if err := WriteFile(path, old, nil); err != nil {
		t.Fatal(err)
	}
	oldBytes, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	Write(&want, old, nil)
	if !bytes.Equal(oldBytes, want.Bytes()) {
		t.Fatal("WriteFile and Write differ")
	}
	if got := listDir(t, dir); !reflect.DeepEqual(got, []string{"w.safetensors"}) {
		t.Errorf("directory holds %v after WriteFile", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}

	// Overwrite: the new content replaces the old.
	if err := WriteFile(path, []Tensor{FromFloat64("x", []int{1}, []float64{3})}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if x, _, _ := f.Float64("x"); !reflect.DeepEqual(x, []float64{3}) {
		t.Errorf("after overwrite x = %v", x)
	}
	os.WriteFile(path, oldBytes, 0o644)

	// Invalid tensors: error, no temporary file, old file intact.
	if err := WriteFile(path, []Tensor{FromFloat64("x", []int{3}, []float64{1})}, nil); err == nil {
		t.Error("invalid tensors: no error")
	}
	// Rename fails (the target is a non-empty directory) after the
	// temporary file was written: it must be removed.
	target := filepath.Join(dir, "sub")
	os.Mkdir(target, 0o755)
	os.WriteFile(filepath.Join(target, "keep"), []byte("k"), 0o644)
	if err := WriteFile(target, old, nil); err == nil || !strings.Contains(err.Error(), target) {
		t.Errorf("rename over a directory: err = %v", err)
	}
	// Missing directory.
	if err := WriteFile(filepath.Join(dir, "nope", "w.safetensors"), old, nil); err == nil {
		t.Error("missing directory: no error")
	}
	if got := listDir(t, dir); !reflect.DeepEqual(got, []string{"sub", "w.safetensors"}) {
		t.Errorf("directory holds %v after failed writes", got)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, oldBytes) {
		t.Error("failed writes changed the old file")
	}

	// Read-only directory: only meaningful when permissions are enforced.
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o755)
	rpath := filepath.Join(ro, "w.safetensors")
	if err := WriteFile(rpath, old, nil); err != nil {
		t.Fatal(err)
	}
	os.Chmod(ro, 0o555)
	defer os.Chmod(ro, 0o755)
	if probe, err := os.CreateTemp(ro, "probe"); err == nil {
		probe.Close()
		os.Remove(probe.Name())
		t.Log("permissions not enforced (running as root?): read-only case skipped")
	} else {
		if err := WriteFile(rpath, []Tensor{FromFloat64("y", nil, []float64{1})}, nil); err == nil {
			t.Error("read-only directory: no error")
		}
		if b, _ := os.ReadFile(rpath); !bytes.Equal(b, oldBytes) {
			t.Error("read-only directory: old file changed")
		}
		if got := listDir(t, ro); !reflect.DeepEqual(got, []string{"w.safetensors"}) {
			t.Errorf("read-only directory holds %v", got)
		}
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file: no error")
	}
	p := filepath.Join(dir, "bad.safetensors")
	os.WriteFile(p, []byte{1, 2, 3}, 0o644)
	if _, err := ReadFile(p); err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), p) {
		t.Errorf("short file: err = %v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(goldenFile())
	var buf bytes.Buffer
	Write(&buf, []Tensor{
		FromFloat32("w", []int{2, 3}, []float32{1, 2, 3, 4, 5, 6}),
		{Name: "i", DType: I64, Shape: []int{1}, Data: make([]byte, 8)},
		{Name: "z", DType: BF16, Shape: []int{0, 4}},
	}, map[string]string{"format": "pt", "n": "1"})
	f.Add(buf.Bytes())
	for _, tc := range readErrorCases {
		if len(tc.file) < 10000 {
			f.Add(tc.file)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		f1, err1 := ReadBytes(b)
		f2, err2 := Read(bytes.NewReader(b))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("ReadBytes err %v, Read err %v", err1, err2)
		}
		if err1 != nil {
			if !errors.Is(err1, ErrInvalid) || !errors.Is(err2, ErrInvalid) {
				t.Fatalf("errors %v, %v do not wrap ErrInvalid", err1, err2)
			}
			return
		}
		if !reflect.DeepEqual(f1.Tensors(), f2.Tensors()) || !reflect.DeepEqual(f1.Metadata, f2.Metadata) {
			t.Fatal("Read and ReadBytes disagree")
		}
		// A valid file writes back and reads back to the same content.
		var out bytes.Buffer
		if err := Write(&out, f1.Tensors(), f1.Metadata); err != nil {
			t.Fatalf("rewriting a valid file: %v", err)
		}
		f3, err := ReadBytes(out.Bytes())
		if err != nil {
			t.Fatalf("reading a rewritten file: %v", err)
		}
		if !reflect.DeepEqual(f3.Metadata, f1.Metadata) || f3.Len() != f1.Len() {
			t.Fatal("rewrite changed the metadata or tensor count")
		}
		for _, t1 := range f1.Tensors() {
			t3, ok := f3.Tensor(t1.Name)
			if !ok || t3.DType != t1.DType || !reflect.DeepEqual(t3.Shape, t1.Shape) || !bytes.Equal(t3.Data, t1.Data) {
				t.Fatalf("rewrite changed tensor %q", t1.Name)
			}
			t1.AsFloat32()
			t1.AsFloat64()
		}
	})
}

func benchTensors(n int) []Tensor {
	w := make([]float32, n)
	for i := range w {
		w[i] = float32(i)
	}
	return []Tensor{FromFloat32("w", []int{n}, w), FromFloat64("b", []int{64}, make([]float64, 64))}
}

func BenchmarkWrite(b *testing.B) {
	ts := benchTensors(1 << 20)
	b.SetBytes(4 << 20)
	for range b.N {
		Write(io.Discard, ts, nil)
	}
}

func BenchmarkReadBytes(b *testing.B) {
	var buf bytes.Buffer
	Write(&buf, benchTensors(1<<20), nil)
	b.SetBytes(int64(buf.Len()))
	for range b.N {
		f, err := ReadBytes(buf.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := f.Float32("w"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestInt64RoundTrip(t *testing.T) {
	want := []int64{0, -1, 1, math.MaxInt64, math.MinInt64, 1 << 40}
	var buf bytes.Buffer
	if err := Write(&buf, []Tensor{FromInt64("i", []int{2, 3}, want)}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tn, _ := f.Tensor("i")
	got, err := tn.AsInt64()
	if err != nil || !slices.Equal(got, want) || !slices.Equal(tn.Shape, []int{2, 3}) {
		t.Fatalf("got %v %v (shape %v), want %v", got, err, tn.Shape, want)
	}
	if _, err := FromFloat32("f", []int{1}, []float32{1}).AsInt64(); err == nil {
		t.Fatal("AsInt64 of an F32 tensor: no error")
	}
}

// TestHalfConversions checks F16 and BF16 decoding against values worked
// by hand (normals, subnormals, ±0, ±Inf, NaN) and, for every one of the
// 65,536 F16 bit patterns, against the formula (−1)^s·2^(e−15)·(1 + f/1024)
// (2⁻¹⁴·f/1024 for subnormals); and that AsFloat64 widens and AsFloat32
// narrows F64 by rounding to nearest.
func TestHalfConversions(t *testing.T) {
	for _, c := range []struct {
		bits uint16
		want float32
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x3555, 0.333251953125}, {0x7bff, 65504}, {0x0400, 0x1p-14},
		{0x0001, 0x1p-24}, {0x03ff, 1023 * 0x1p-24}, {0x8001, -0x1p-24}, {0x0000, 0},
		{0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))},
	} {
		if got := Float16(c.bits); got != c.want {
			t.Errorf("Float16(%#04x) = %v, want %v", c.bits, got, c.want)
		}
	}
	if got := Float16(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("Float16(0x8000) = %v, want −0", got)
	}
	if got := Float16(0x7e00); got == got {
		t.Errorf("Float16(0x7e00) = %v, want NaN", got)
	}
	for b := 0; b < 1<<16; b++ {
		s, e, f := b>>15, (b>>10)&0x1f, b&0x3ff
		if e == 0x1f {
			continue
		}
		want := math.Ldexp(1+float64(f)/1024, e-15)
		if e == 0 {
			want = math.Ldexp(float64(f)/1024, -14)
		}
		if s == 1 {
			want = -want
		}
		if got := Float16(uint16(b)); float64(got) != want {
			t.Fatalf("Float16(%#04x) = %v, want %v", b, got, want)
		}
	}
	for _, c := range []struct {
		bits uint16
		want float32
	}{{0x3f80, 1}, {0xc040, -3}, {0x3e80, 0.25}, {0x0001, math.Float32frombits(1 << 16)}, {0x7f80, float32(math.Inf(1))}} {
		if got := BFloat16(c.bits); got != c.want {
			t.Errorf("BFloat16(%#04x) = %v, want %v", c.bits, got, c.want)
		}
	}
	half := Tensor{Name: "h", DType: F16, Shape: []int{2}, Data: []byte{0x00, 0x3c, 0x00, 0xc0}}
	if v, err := half.AsFloat64(); err != nil || v[0] != 1 || v[1] != -2 {
		t.Errorf("AsFloat64 of F16 = %v, %v", v, err)
	}
	bf := Tensor{Name: "b", DType: BF16, Shape: []int{1}, Data: []byte{0x80, 0x3f}}
	if v, err := bf.AsFloat32(); err != nil || v[0] != 1 {
		t.Errorf("AsFloat32 of BF16 = %v, %v", v, err)
	}
	d := FromFloat64("d", []int{3}, []float64{0.1, 1 + 0x1p-24, 1e300})
	v, err := d.AsFloat32()
	if err != nil || v[0] != float32(0.1) || v[1] != 1 || !math.IsInf(float64(v[2]), 1) {
		t.Errorf("AsFloat32 of F64 = %v, %v (want rounding to nearest, ties to even, and +Inf)", v, err)
	}
}
