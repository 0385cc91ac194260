//go:build race

package gemm

// raceEnabled reports whether the race detector is on: under it sync.Pool
// drops a share of what is put back, so the allocation checks are skipped.
const raceEnabled = true
