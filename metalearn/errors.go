package metalearn

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package that report bad input; test for
// them with errors.Is. Errors that pass on a failure of package markov
// wrap that error instead.
//
// ErrInvalid, ErrNotFinite and ErrNil are the module's shared sentinels
// of package icrl (the same values), so errors.Is matches them whichever
// package reported the error.
