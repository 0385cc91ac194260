//go:build !race

package nonstationary

// raceEnabled reports whether the race detector is on; it slows the code
// about tenfold, so wall-time bounds are not checked under it.
const raceEnabled = false
