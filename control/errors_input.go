package control

import "errors"

// Sentinel errors for bad input, wrapped (with the offending argument and
// value in the message) by the errors of this package that report it; test
// for them with errors.Is. [ErrActivation] and [ErrNotMonotone] report
// the two failures that are not about an argument's value.
var (
	// ErrInvalid reports an argument outside its domain: sizes, horizon,
	// levels, grids, data or action sets that do not fit.
	ErrInvalid = errors.New("control: invalid argument")
	// ErrNotFinite reports a NaN or infinite value where a finite one is
	// needed.
	ErrNotFinite = errors.New("control: not finite")
	// ErrNil reports a nil argument.
	ErrNil = errors.New("control: nil argument")
)
