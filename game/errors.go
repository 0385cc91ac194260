package game

import (
	"errors"

	"github.com/icrl-go/icrl"
)

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package; test for them with errors.Is.
//
// ErrEmpty, ErrNilRand, ErrShape, ErrNotFinite, ErrInvalid and
// ErrTooLarge are the module's shared sentinels of package icrl (the same
// values), so errors.Is matches them whichever package reported the error.
var (
	// ErrEmpty reports a game with no rows or no columns, or a nil game:
	// given to a constructor, or a zero ZeroSum given to a solver.
	ErrEmpty = icrl.ErrEmpty
	// ErrNilRand reports a nil *rand.Rand where a random source is needed.
	ErrNilRand = icrl.ErrNilRand
	// ErrShape reports arguments whose sizes do not fit: a ragged matrix,
	// row and column payoffs of different shapes, a strategy of the wrong
	// length.
	ErrShape = icrl.ErrShape
	// ErrNotFinite reports a NaN or infinite payoff, probability or
	// parameter.
	ErrNotFinite = icrl.ErrNotFinite
	// ErrInvalid reports a value outside its domain: a vector that is not
	// a probability distribution, a truncation level or range that admits
	// nothing, payoffs outside the range a function needs, an unknown
	// enumeration value.
	ErrInvalid = icrl.ErrInvalid
	// ErrTooLarge reports a problem whose size exceeds a documented limit
	// (MaxEntries, MaxSupportActions, MaxSupportPairs), rejected before
	// any work.
	ErrTooLarge = icrl.ErrTooLarge
	// ErrSolver reports a failure of the linear-programming solver on a
	// valid game (a numerical breakdown, not bad input).
	ErrSolver = errors.New("game: LP solver failed")
)

// MaxEntries is the most payoff entries a game may have: 2³⁰ float64s,
// 8 GiB. Constructors and generators check it before allocating.
const MaxEntries = 1 << 30
