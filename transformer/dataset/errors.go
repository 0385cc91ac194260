package dataset

import (
	"errors"
)

// Sentinel errors particular to this package, wrapped (with the
// offending argument and value in the message) by its errors; test for
// them with errors.Is. Errors that report bad input wrap the module's
// shared sentinels of package icrl instead (icrl.ErrInvalid and the rest).
var (
	// ErrFormat is wrapped by the errors that report a file that is not a
	// valid dataset: unreadable or truncated safetensors, missing or
	// malformed metadata, missing, extra or misshapen tensors.
	ErrFormat = errors.New("dataset: invalid file")
	// ErrMismatch is wrapped by the errors that report examples that do not
	// fit their metadata, on writing or on reading: a token or label out of
	// range, a feature row of the wrong width, a non-finite value, a
	// distribution that does not sum to one, a negative weight, targets of
	// mixed kinds.
	ErrMismatch = errors.New("dataset: examples do not match their metadata")
)
