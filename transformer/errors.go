package transformer

import (
	"errors"
)

// Sentinel errors particular to this package, wrapped (with the
// offending argument and value in the message) by its errors; test for
// them with errors.Is. Errors that report bad input wrap the module's
// shared sentinels of package icrl instead (icrl.ErrInvalid and the rest).
var (
	// ErrCheckpoint reports a checkpoint that does not fit ([Import],
	// [ImportTorch], [ImportGPT2]): a missing, extra or misshapen tensor, a
	// wrong dtype, a configuration the tensors contradict.
	ErrCheckpoint = errors.New("transformer: checkpoint does not fit")
	// ErrZeroModel reports a method called on a Model that was not built
	// by New, Load or Import.
	ErrZeroModel = errors.New("transformer: zero Model (build it with New, Load or Import)")
)
