package quantize

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package that report bad input; test for
// them with errors.Is.
//
// ErrInvalid and ErrNotFinite are the module's shared sentinels of
// package icrl (the same values), so errors.Is matches them whichever
// package reported the error.
