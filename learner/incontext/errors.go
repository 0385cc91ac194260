package incontext

import (
	"errors"

	"github.com/icrl-go/icrl"
)

// Sentinel errors, wrapped (with the offending argument and value in the
// message) by the errors of this package; test for them with errors.Is.
//
// ErrInvalid and ErrNil are the module's shared sentinels of package
// icrl (the same values), so errors.Is matches them whichever package
// reported the error.
var (
	// ErrInput reports an observation or example that does not fit: an
	// action set, arm, state or reward the encoder cannot take, a model
	// output of the wrong size or not finite, a trajectory without rounds.
	// The in-context learners return it from Act and Observe alike.
	ErrInput = errors.New("incontext: input does not fit")
	// ErrInvalid reports a configuration outside its domain: a
	// non-positive count, an encoder or model whose sizes disagree, a game
	// that draws rewards outside [0, 1] or states out of range.
	ErrInvalid = icrl.ErrInvalid
	// ErrNil reports a nil argument: a model, game, prior, factory,
	// context or random source.
	ErrNil = icrl.ErrNil
	// ErrTooLarge reports a size past a documented limit (MaxEncoderSize,
	// MaxTrajectories, MaxCollectRounds), rejected before anything is
	// allocated.
	ErrTooLarge = icrl.ErrTooLarge
)
