package metalearn

import "github.com/icrl-go/icrl"

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package that report bad input; test for
// them with errors.Is. Errors that pass on a failure of package markov
// wrap that error instead.
//
// ErrInvalid, ErrNotFinite and ErrNil are the module's shared sentinels
// of package icrl (the same values), so errors.Is matches them whichever
// package reported the error.
var (
	// ErrInvalid reports an argument outside its domain: a step size,
	// horizon, number of games, policy or schedule that does not fit its
	// game.
	ErrInvalid = icrl.ErrInvalid
	// ErrNotFinite reports a NaN or infinite value where a finite one is
	// needed.
	ErrNotFinite = icrl.ErrNotFinite
	// ErrNil reports a nil argument.
	ErrNil = icrl.ErrNil
)
