package quantize

import "errors"

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package that report bad input; test for
// them with errors.Is.
var (
	// ErrInvalid reports an argument outside its domain: a size, level,
	// box, weight vector or point set that does not fit.
	ErrInvalid = errors.New("quantize: invalid argument")
	// ErrNotFinite reports a NaN or infinite value where a finite one is
	// needed.
	ErrNotFinite = errors.New("quantize: not finite")
)
