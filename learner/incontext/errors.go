package incontext

import (
	"errors"
)

// Sentinel errors particular to this package, wrapped (with the
// offending argument and value in the message) by its errors; test for
// them with errors.Is. Errors that report bad input wrap the module's
// shared sentinels of package icrl instead (icrl.ErrInvalid and the rest).
var (
	// ErrInput reports an observation or example that does not fit: an
	// action set, arm, state or reward the encoder cannot take, a model
	// output of the wrong size or not finite, a trajectory without rounds.
	// The in-context learners return it from Act and Observe alike.
	ErrInput = errors.New("incontext: input does not fit")
)
