package icrl

import (
	"errors"
	"fmt"
)

// The sentinel errors shared by the module's packages. Every error a
// package returns for a bad input wraps one of them (with the offending
// argument and value in its message) or a package-specific sentinel; test
// for them with errors.Is.
var (
	// ErrInvalid reports a value outside its domain: a size, a step, a
	// probability, a configuration field, an index.
	ErrInvalid = errors.New("icrl: invalid argument")
	// ErrNotFinite reports a NaN or infinite value where a finite one is
	// needed.
	ErrNotFinite = errors.New("icrl: not finite")
	// ErrNil reports a nil argument (a typed nil included) where a value
	// is needed.
	ErrNil = errors.New("icrl: nil argument")
	// ErrNilRand reports a nil *rand.Rand where a random source is needed;
	// it wraps ErrNil, so errors.Is(err, ErrNil) holds for it too.
	ErrNilRand = fmt.Errorf("%w (a random source)", ErrNil)
	// ErrShape reports arguments whose sizes do not fit each other.
	ErrShape = errors.New("icrl: shape mismatch")
	// ErrTooLarge reports a problem whose size would exceed a documented
	// limit, rejected before anything is allocated.
	ErrTooLarge = errors.New("icrl: too large")
	// ErrEmpty reports a nil, zero or empty value (a game not built by a
	// constructor, an empty payoff matrix) where a built one is needed.
	ErrEmpty = errors.New("icrl: empty or zero value")
	// ErrOutOfRange reports an observation outside its range: a state,
	// action or arm not below its count, a reward outside the range a
	// learner takes.
	ErrOutOfRange = errors.New("icrl: out of range")
)

// MaxEntries is the most entries a constructor of the module allocates for
// one table (a game's payoffs, a learner's policies, an environment's arms
// or features): 2³⁰ float64s, 8 GiB. A larger size is rejected with an
// error wrapping [ErrTooLarge] before anything is allocated.
const MaxEntries = 1 << 30
