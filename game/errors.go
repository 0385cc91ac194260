package game

import (
	"errors"
)

// Sentinel errors particular to this package, wrapped (with the
// offending argument and value in the message) by its errors; test for
// them with errors.Is. Errors that report bad input wrap the module's
// shared sentinels of package icrl instead (icrl.ErrInvalid and the rest).
var (
	// ErrSolver reports a failure of the linear-programming solver on a
	// valid game (a numerical breakdown, not bad input).
	ErrSolver = errors.New("game: LP solver failed")
)
