// Package icrl is the root of the module: learning in games and in-context
// decision making (see the README). It holds what every package shares:
// the sentinel errors. The packages re-export them under the same names
// (game.ErrInvalid is icrl.ErrInvalid, and so on), so that
// errors.Is(err, icrl.ErrInvalid) holds for an invalid argument found by
// any package of the module.
package icrl
