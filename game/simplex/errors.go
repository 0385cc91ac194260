package simplex

import "github.com/icrl-go/icrl"

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package: the module's shared sentinels of
// package icrl (the same values), so errors.Is matches them whichever
// package reported the error.
var (
	// ErrShape reports a vector of the wrong length, or an empty one.
	ErrShape = icrl.ErrShape
	// ErrNotFinite reports a NaN or infinite entry.
	ErrNotFinite = icrl.ErrNotFinite
	// ErrInvalid reports a vector off the simplex or a truncation level
	// that admits nothing.
	ErrInvalid = icrl.ErrInvalid
)

// MaxEntries is the longest distribution [Uniform] makes: 2³⁰ entries.
const MaxEntries = 1 << 30
