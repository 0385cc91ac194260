//go:build race

package main

// raceEnabled reports whether the race detector is on: it slows the tiny
// studies' training about fiftyfold, so the race suite (-short) runs fewer
// of them.
const raceEnabled = true
