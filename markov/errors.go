package markov

import "errors"

// ErrKernel is wrapped by the errors of the kernel constructors
// ([NewDenseKernel], [NewSparseKernel], [NewProductKernel]) and of the
// games built on kernels when a transition law is malformed or does not
// fit the game.
var ErrKernel = errors.New("markov: invalid transition kernel")
