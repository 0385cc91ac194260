package incontext

import "errors"

// ErrInput is wrapped by the errors of the in-context learners that report
// an observation they cannot take: an action set, arm, state or reward that
// does not fit the encoder, a model that fails on it, a missing random
// source. Test for it with errors.Is.
var ErrInput = errors.New("incontext: input does not fit")
