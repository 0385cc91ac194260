//go:build race

package main

// raceEnabled reports whether the race detector is on: it slows the poker
// part's million-deal endgames about tenfold, so the race suite (-short)
// leaves that test out.
const raceEnabled = true
