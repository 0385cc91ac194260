package control

import "github.com/icrl-go/icrl"

// Sentinel errors for bad input, wrapped (with the offending argument and
// value in the message) by the errors of this package that report it; test
// for them with errors.Is. [ErrActivation] and [ErrNotMonotone] report
// the two failures that are not about an argument's value.
//
// ErrInvalid, ErrNotFinite and ErrNil are the module's shared sentinels
// of package icrl (the same values), so errors.Is matches them whichever
// package reported the error.
var (
	// ErrInvalid reports an argument outside its domain: sizes, horizon,
	// levels, grids, data or action sets that do not fit.
	ErrInvalid = icrl.ErrInvalid
	// ErrNotFinite reports a NaN or infinite value where a finite one is
	// needed.
	ErrNotFinite = icrl.ErrNotFinite
	// ErrNil reports a nil argument.
	ErrNil = icrl.ErrNil
)
