// Package dataset writes in-context training data — the
// [transformer.Example] sequences that transformer.Train and the in-context
// pipelines consume — to safetensors files that other trainers can read,
// and reads them back.
//
// A dataset file is a safetensors file (see package safetensors) whose
// metadata entry "format" is "icrl-dataset" and whose entry "meta" holds
// the [Meta] as JSON, with these tensors for N sequences of P positions in
// all:
//
//	offsets   I64 [N+1]   sequence k is positions offsets[k] … offsets[k+1]−1
//	tokens    I64 [P]     token inputs (Meta.Vocab > 0), or
//	features  F   [P, W]  feature inputs (Meta.Width = W > 0)
//	labels    I64 [P]     hard targets, −1 where a position is not scored, or
//	dist      F   [P, A]  soft targets, one distribution (or zero row) a position
//	weights   F   [P]     per-position loss weights (only if Meta.Weighted)
//
// where F is F32 or F64 (Meta.DType) and A is Meta.Outputs. In Python,
// `safetensors.numpy.load_file` (or any reader of the format) gives the
// arrays; json.loads of the "meta" entry gives the metadata.
//
// Large datasets stream through a [ShardWriter], which writes a shard file
// every so many sequences and, on Close, an index (JSON) listing the shards
// and the common metadata; [ReadIndex] and [ReadShard] read them back one
// shard at a time.
//
// Everything read is validated before it is returned: shapes and offsets
// against the metadata, tokens and labels in range, floats finite,
// distributions non-negative and summing to one (or zero), weights
// non-negative. Errors wrap [ErrFormat] (a file that is not a valid
// dataset) or [ErrMismatch] (examples that do not fit their metadata).
//
// # Errors
//
// Reading never panics on file contents (the package is fuzzed): errors
// wrap [ErrFormat] or [ErrMismatch] as above, and [icrl.ErrInvalid] for a bad
// argument (a shard index out of range, a ShardWriter used after Close).
//
// # References
//
//   - The safetensors format, https://github.com/huggingface/safetensors
//     (the container; see package safetensors).
package dataset
