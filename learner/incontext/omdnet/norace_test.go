//go:build !race

package omdnet_test

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
