package safetensors

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"unicode/utf8"
)

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
