package quantize

import "github.com/icrl-go/icrl"

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package that report bad input; test for
// them with errors.Is.
//
// ErrInvalid and ErrNotFinite are the module's shared sentinels of
// package icrl (the same values), so errors.Is matches them whichever
// package reported the error.
var (
	// ErrInvalid reports an argument outside its domain: a size, level,
	// box, weight vector or point set that does not fit.
	ErrInvalid = icrl.ErrInvalid
	// ErrNotFinite reports a NaN or infinite value where a finite one is
	// needed.
	ErrNotFinite = icrl.ErrNotFinite
)
