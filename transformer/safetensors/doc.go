// Package safetensors reads and writes tensors in the safetensors format
// (https://huggingface.co/docs/safetensors, reference implementation
// https://github.com/huggingface/safetensors), the weight format of the
// transformer package's checkpoints.
//
// # Format
//
// A safetensors file is
//
//	┌──────────────┬──────────────────────────┬─────────────────────────┐
//	│ N: uint64 LE │ N bytes of UTF-8 JSON    │ data buffer             │
//	└──────────────┴──────────────────────────┴─────────────────────────┘
//
// The header is a JSON object that maps each tensor name to
//
//	{"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
//
// where begin and end are byte offsets relative to the start of the data
// buffer, plus an optional "__metadata__" entry holding an object of
// string → string. Tensor data are little-endian and row-major (C order);
// the tensors tile the data buffer exactly, with no gaps and no overlaps.
//
// # Writing
//
// [Write] follows the reference implementation (safetensors/src/tensor.rs of
// huggingface/safetensors): the header is compact JSON with "__metadata__"
// first (its keys sorted, where the reference uses hash order), then the
// tensors in data order, each as {"dtype":…,"shape":…,"data_offsets":…}; the
// header is padded with trailing spaces so that N is a multiple of 8 and the
// data buffer starts 8-byte aligned. Tensors are laid out in the reference's
// order: by dtype, in the order U64, I64, F64, F32, U32, I32, BF16, F16, U16,
// I16, F8_E4M3, F8_E5M2, I8, U8, BOOL (so element sizes decrease and every
// tensor is aligned to its element size), ties broken by name in byte order.
// The same tensors and metadata therefore always give the same bytes, and
// without metadata (or with one metadata key) the bytes are those the
// reference writes.
//
// [WriteFile] writes atomically: it writes a temporary file in the target's
// directory, syncs it to disk and renames it over the target, so a reader sees
// either the old file or the complete new one, never a partial write.
//
// # Reading
//
// [Read], [ReadBytes] and [ReadFile] validate the whole file and return an
// error wrapping [ErrInvalid] that names the problem: a file shorter than the
// 8-byte prefix, a header length beyond the file or beyond [MaxHeaderSize]
// (100 MB, the reference implementation's cap), a header that is not UTF-8 or
// not a JSON object, duplicate names, an unknown dtype, negative dimensions or
// an element count that overflows, malformed data_offsets, a byte range that
// does not match shape × element size, overlapping or gapped tensors, a data
// buffer not exactly covered, truncated data. No input makes them panic
// (FuzzRead checks this).
//
// All dtypes of the format (BOOL, U8, I8, F8_E5M2, F8_E4M3, I16, U16, F16,
// BF16, I32, U32, F32, I64, U64, F64) are read and written as raw bytes;
// [Tensor.AsFloat32] and [Tensor.AsFloat64] decode F32 and F64 bit-exactly
// (NaN payloads, −0 and infinities included), and AsFloat64 also widens F32
// exactly. Other conversions return an error. Dtypes added to the format
// after these (F4, F6_E2M3, F6_E3M2, F8_E8M0, C64) are rejected as unknown.
//
// # Cost
//
// Reading and writing are O(header + data) time; reading holds the whole file
// in memory once ([ReadBytes] keeps the caller's slice, no copy).
//
// # Concurrency
//
// A [File] is safe for concurrent reads; nothing in the package keeps global
// state.
//
// # Errors
//
// Readers never panic on file contents (the package is fuzzed): a
// malformed file, or an invalid tensor given to [Write], gives an error
// wrapping [ErrInvalid]; a typed accessor on another dtype wraps
// [ErrDType]; a lookup of a missing name wraps [ErrNotFound].
//
// # References
//
//   - Hugging Face, safetensors format specification,
//     https://github.com/huggingface/safetensors.
package safetensors
