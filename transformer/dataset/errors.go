package dataset

import (
	"errors"

	"github.com/icrl-go/icrl"
)

// Sentinel errors of the package, wrapped by its errors; test for them
// with errors.Is. ErrInvalid is the module's shared sentinel of package
// icrl (the same value), so errors.Is matches it whichever package
// reported the error.
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
	// ErrInvalid is wrapped by the errors that report a bad argument: a
	// shard directory that is not a directory, a shard index out of
	// range, a ShardWriter used after Close.
	ErrInvalid = icrl.ErrInvalid
)
