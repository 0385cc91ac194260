//go:build !race

package learner_test

// raceEnabled reports whether the race detector is on; its instrumentation
// allocates, so allocation counts are not checked under it.
const raceEnabled = false
