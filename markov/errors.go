package markov

import (
	"errors"

	"github.com/icrl-go/icrl"
)

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package; test for them with errors.Is.
//
// ErrEmpty, ErrShape, ErrNotFinite, ErrInvalid, ErrNil, ErrNilRand and
// ErrTooLarge are the module's shared sentinels of package icrl (the same values), so
// errors.Is matches them whichever package reported the error.
var (
	// ErrEmpty reports a nil or zero game (one not built by a
	// constructor) given to a solver or evaluator, or a constructor asked
	// for a game with no player, state, step or action.
	ErrEmpty = icrl.ErrEmpty
	// ErrKernel reports a malformed transition law: a probability outside
	// [0, 1], a row that does not sum to one, or a kernel that does not fit
	// the game ([NewDenseKernel], [NewSparseKernel], [NewProductKernel] and
	// the games built on kernels).
	ErrKernel = errors.New("markov: invalid transition kernel")
	// ErrShape reports arguments whose sizes do not fit each other: reward
	// and transition tables of different sizes, a policy with the wrong
	// number of players, steps, states or actions.
	ErrShape = icrl.ErrShape
	// ErrNotFinite reports a NaN or infinite reward or value.
	ErrNotFinite = icrl.ErrNotFinite
	// ErrInvalid reports a value outside its domain: a discount outside
	// [0, 1), a state or player out of range, a tolerance that is not
	// positive, a game of the wrong kind for the function.
	ErrInvalid = icrl.ErrInvalid
	// ErrNil reports a nil argument.
	ErrNil = icrl.ErrNil
	// ErrNilRand reports a nil *rand.Rand where a random source is needed;
	// it wraps ErrNil.
	ErrNilRand = icrl.ErrNilRand
	// ErrTooLarge reports a game whose stored size would exceed 2^34
	// entries, rejected before anything is allocated.
	ErrTooLarge = icrl.ErrTooLarge
	// ErrNoConvergence reports an iterative method that stopped at its
	// iteration limit before its tolerance; the partial result returned
	// with it is documented on the function.
	ErrNoConvergence = errors.New("markov: did not converge")
)
