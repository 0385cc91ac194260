package transformer

import "errors"

// Sentinel errors, wrapped (with the offending name and value in the
// message) by the errors of this package that report such a failure; test
// for them with errors.Is.
var (
	// ErrCheckpoint reports a checkpoint that does not fit ([Import],
	// [ImportTorch], [ImportGPT2]): a missing, extra or misshapen tensor, a
	// wrong dtype, a configuration the tensors contradict.
	ErrCheckpoint = errors.New("transformer: checkpoint does not fit")
	// ErrTooLarge reports a configuration whose parameter count exceeds
	// its MaxParams (or overflows), rejected before anything is allocated.
	ErrTooLarge = errors.New("transformer: model too large")
	// ErrNotFinite reports a NaN or infinite value where a finite one is
	// needed, such as a weight read from a file.
	ErrNotFinite = errors.New("transformer: value not finite")
	// ErrZeroModel reports a method called on a Model that was not built
	// by New, Load or Import.
	ErrZeroModel = errors.New("transformer: zero Model (build it with New, Load or Import)")
)
