//go:build race

package main

// raceEnabled reports whether the race detector is on: it slows the
// forward passes of the constructed models about tenfold, so the race
// suite resolves fewer, shorter games.
const raceEnabled = true
