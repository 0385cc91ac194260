package markov

import (
	"errors"
)

// Sentinel errors particular to this package, wrapped (with the
// offending argument and value in the message) by its errors; test for
// them with errors.Is. Errors that report bad input wrap the module's
// shared sentinels of package icrl instead (icrl.ErrInvalid and the rest).
var (
	// ErrKernel reports a malformed transition law: a probability outside
	// [0, 1], a row that does not sum to one, or a kernel that does not fit
	// the game ([NewDenseKernel], [NewSparseKernel], [NewProductKernel] and
	// the games built on kernels).
	ErrKernel = errors.New("markov: invalid transition kernel")
	// ErrNoConvergence reports an iterative method that stopped at its
	// iteration limit before its tolerance; the partial result returned
	// with it is documented on the function.
	ErrNoConvergence = errors.New("markov: did not converge")
)
