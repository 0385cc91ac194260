package nonstationary

import "github.com/icrl-go/icrl"

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package that report bad input; test for
// them with errors.Is. Errors that pass on a failure of a learner or an
// environment wrap that error instead.
//
// ErrInvalid, ErrNotFinite, ErrNil and ErrTooLarge are the module's
// shared sentinels of package icrl (the same values), so errors.Is matches
// them whichever package reported the error.
var (
	// ErrInvalid reports an argument outside its domain: a size, horizon,
	// probability, window, constant or schedule that does not fit, an arm
	// or action set of the wrong size.
	ErrInvalid = icrl.ErrInvalid
	// ErrNotFinite reports a NaN or infinite value (a mean, a parameter, a
	// reward) where a finite one is needed.
	ErrNotFinite = icrl.ErrNotFinite
	// ErrNil reports a nil argument or a factory that returned nil.
	ErrNil = icrl.ErrNil
	// ErrTooLarge reports a size (horizon, arms, window, action sets)
	// whose tables would exceed [MaxEntries], rejected before anything is
	// allocated.
	ErrTooLarge = icrl.ErrTooLarge
)

// MaxEntries is the most entries a constructor of this package allocates
// for one table: 2³⁰ (8 GiB of float64s).
const MaxEntries = 1 << 30
