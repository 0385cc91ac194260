package transformer

import (
	"errors"

	"github.com/icrl-go/icrl"
)

// Sentinel errors, wrapped (with the offending name and value in the
// message) by the errors of this package that report such a failure; test
// for them with errors.Is.
//
// ErrTooLarge, ErrNotFinite, ErrInvalid, ErrShape and ErrNil are the
// module's shared sentinels of package icrl (the same values), so errors.Is
// matches them whichever package reported the error.
var (
	// ErrCheckpoint reports a checkpoint that does not fit ([Import],
	// [ImportTorch], [ImportGPT2]): a missing, extra or misshapen tensor, a
	// wrong dtype, a configuration the tensors contradict.
	ErrCheckpoint = errors.New("transformer: checkpoint does not fit")
	// ErrTooLarge reports a configuration whose parameter count exceeds
	// its MaxParams (or overflows), rejected before anything is allocated,
	// or a sequence longer than the model's MaxLen.
	ErrTooLarge = icrl.ErrTooLarge
	// ErrNotFinite reports a NaN or infinite value where a finite one is
	// needed, such as a weight read from a file.
	ErrNotFinite = icrl.ErrNotFinite
	// ErrZeroModel reports a method called on a Model that was not built
	// by New, Load or Import.
	ErrZeroModel = errors.New("transformer: zero Model (build it with New, Load or Import)")
	// ErrInvalid reports a configuration or argument outside its domain:
	// a non-positive size, an unknown enumeration value, a learning rate
	// or optimiser constant out of range, a target that is not a
	// distribution, an empty batch.
	ErrInvalid = icrl.ErrInvalid
	// ErrShape reports inputs whose sizes do not fit the model: tokens for
	// a model that reads feature vectors (or the reverse), a token outside
	// the vocabulary, a feature vector of the wrong width, targets that do
	// not match their sequences.
	ErrShape = icrl.ErrShape
	// ErrNil reports a nil argument, such as a nil random source.
	ErrNil = icrl.ErrNil
)
