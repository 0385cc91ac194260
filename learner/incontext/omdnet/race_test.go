//go:build race

package omdnet_test

// raceEnabled reports whether the race detector is on: it slows the
// forward passes of these many-layer models about tenfold, so the race
// suite plays shorter horizons.
const raceEnabled = true
