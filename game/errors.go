package game

import "errors"

// Sentinel errors, wrapped (with the offending value in the message) by the
// errors of this package that report such a failure; test for them with
// errors.Is.
var (
	// ErrEmpty reports a game with no rows or no columns: given to a
	// constructor, or a zero ZeroSum given to a solver.
	ErrEmpty = errors.New("game: empty payoff matrix")
	// ErrNilRand reports a nil *rand.Rand where a random source is needed.
	ErrNilRand = errors.New("game: nil random source")
)
