package nonstationary

import "errors"

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package that report bad input; test for
// them with errors.Is. Errors that pass on a failure of a learner or an
// environment wrap that error instead.
var (
	// ErrInvalid reports an argument outside its domain: a size, horizon,
	// probability, window, constant or schedule that does not fit, an arm
	// or action set of the wrong size.
	ErrInvalid = errors.New("nonstationary: invalid argument")
	// ErrNotFinite reports a NaN or infinite value (a mean, a parameter, a
	// reward) where a finite one is needed.
	ErrNotFinite = errors.New("nonstationary: not finite")
	// ErrNil reports a nil argument or a factory that returned nil.
	ErrNil = errors.New("nonstationary: nil argument")
	// ErrTooLarge reports a size (horizon, arms, window, action sets)
	// whose tables would exceed [MaxEntries], rejected before anything is
	// allocated.
	ErrTooLarge = errors.New("nonstationary: too large")
)

// MaxEntries is the most entries a constructor of this package allocates
// for one table: 2³⁰ (8 GiB of float64s).
const MaxEntries = 1 << 30
