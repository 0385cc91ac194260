package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"unicode/utf8"
)

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
