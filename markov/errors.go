package markov

import "errors"

// ErrEmpty is wrapped by the errors that report a nil or zero game (one not
// built by a constructor) given to a solver or evaluator.
var ErrEmpty = errors.New("markov: nil or zero game")

// ErrKernel is wrapped by the errors of the kernel constructors
// ([NewDenseKernel], [NewSparseKernel], [NewProductKernel]) and of the
// games built on kernels when a transition law is malformed or does not
// fit the game.
var ErrKernel = errors.New("markov: invalid transition kernel")
