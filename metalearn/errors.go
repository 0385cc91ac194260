package metalearn

import "errors"

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package that report bad input; test for
// them with errors.Is. Errors that pass on a failure of package markov
// wrap that error instead.
var (
	// ErrInvalid reports an argument outside its domain: a step size,
	// horizon, number of games, policy or schedule that does not fit its
	// game.
	ErrInvalid = errors.New("metalearn: invalid argument")
	// ErrNotFinite reports a NaN or infinite value where a finite one is
	// needed.
	ErrNotFinite = errors.New("metalearn: not finite")
	// ErrNil reports a nil argument.
	ErrNil = errors.New("metalearn: nil argument")
)
