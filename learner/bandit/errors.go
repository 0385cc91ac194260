package bandit

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
)

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package; test for them with errors.Is.
// They are the module's shared sentinels of package icrl (the same values
// as package learner's), so errors.Is matches them whichever package
// reported the error.
var (
	// ErrOutOfRange reports an arm not below the number of arms.
	ErrOutOfRange = icrl.ErrOutOfRange
	// ErrNotFinite reports a NaN or infinite reward or feature.
	ErrNotFinite = icrl.ErrNotFinite
	// ErrShape reports an action set of the wrong size or dimension.
	ErrShape = icrl.ErrShape
	// ErrInvalid reports a configuration value outside its domain: a
	// non-positive number of arms, dimension or horizon, a confidence or
	// regularisation out of range.
	ErrInvalid = icrl.ErrInvalid
	// ErrTooLarge reports a learner whose tables (arms, or dimension² for
	// the linear learners) would exceed [MaxEntries], rejected before
	// anything is allocated.
	ErrTooLarge = icrl.ErrTooLarge
)

// MaxEntries is the most entries a learner's constructor allocates for its
// tables: 2³⁰ float64s, 8 GiB.
const MaxEntries = 1 << 30

// checkFeedback validates one bandit observation: the arm played among n
// and a finite reward.
func checkFeedback(arm, n int, reward float64) error {
	if arm < 0 || arm >= n {
		return fmt.Errorf("%w: action %d is not in [0, %d)", ErrOutOfRange, arm, n)
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return fmt.Errorf("%w: reward %v for action %d", ErrNotFinite, reward, arm)
	}
	return nil
}
