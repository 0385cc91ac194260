package learner

import (
	"github.com/icrl-go/icrl"
)

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package that report such a failure; test
// for them with errors.Is.
//
// They are the module's shared sentinels of package icrl (the same
// values), so errors.Is matches them whichever package reported the error.
var (
	// ErrOutOfRange reports a state, action or reward outside its range:
	// a state or action not below its count, or a game learner's reward
	// outside [0, 1].
	ErrOutOfRange = icrl.ErrOutOfRange
	// ErrNotFinite reports a NaN or infinite reward or value.
	ErrNotFinite = icrl.ErrNotFinite
	// ErrNil reports a nil argument (a game, a learner, a random source),
	// including a typed nil pointer in an interface.
	ErrNil = icrl.ErrNil
	// ErrShape reports a learner whose number of states or actions does not
	// match the game it is given.
	ErrShape = icrl.ErrShape
	// ErrInvalid reports a configuration value outside its domain: a
	// non-positive number of actions or rounds, a step size, confidence or
	// discount out of range, an unknown enumeration value, a schedule that
	// yields an invalid step.
	ErrInvalid = icrl.ErrInvalid
	// ErrTooLarge reports a learner whose tables (states × actions, or
	// dimension² for the linear learners) would exceed [MaxEntries],
	// rejected before anything is allocated.
	ErrTooLarge = icrl.ErrTooLarge
)

// MaxEntries is the most entries a learner's constructor allocates for its
// tables: 2³⁰ float64s, 8 GiB.
const MaxEntries = 1 << 30
