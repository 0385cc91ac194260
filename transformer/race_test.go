//go:build race

package transformer

// raceEnabled reports whether the race detector is on. It slows the
// finite-difference gradient checks about sixtyfold, so under it they check
// fewer entries per tensor (the full checks run without it).
const raceEnabled = true
