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
	// its MaxParams (or overflows), rejected before anything is allocated,
	// or a sequence longer than the model's MaxLen.
	ErrTooLarge = errors.New("transformer: model too large")
	// ErrNotFinite reports a NaN or infinite value where a finite one is
	// needed, such as a weight read from a file.
	ErrNotFinite = errors.New("transformer: value not finite")
	// ErrZeroModel reports a method called on a Model that was not built
	// by New, Load or Import.
	ErrZeroModel = errors.New("transformer: zero Model (build it with New, Load or Import)")
	// ErrInvalid reports a configuration or argument outside its domain:
	// a non-positive size, an unknown enumeration value, a learning rate
	// or optimiser constant out of range, a target that is not a
	// distribution, an empty batch.
	ErrInvalid = errors.New("transformer: invalid argument")
	// ErrShape reports inputs whose sizes do not fit the model: tokens for
	// a model that reads feature vectors (or the reverse), a token outside
	// the vocabulary, a feature vector of the wrong width, targets that do
	// not match their sequences.
	ErrShape = errors.New("transformer: shape mismatch")
	// ErrNil reports a nil argument, such as a nil random source.
	ErrNil = errors.New("transformer: nil argument")
)
