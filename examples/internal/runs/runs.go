// Package runs holds what the example programs share about runs: the
// log-spaced checkpoints at which learning curves are recorded.
package runs

// Checkpoints returns the rounds 1, 2, 5, 10, 20, 50, … below T, and T.
func Checkpoints(T int) []int {
	var cps []int
	for p := 1; p <= T; p *= 10 {
		for _, k := range []int{1, 2, 5} {
			if c := k * p; c < T {
				cps = append(cps, c)
			}
		}
		if p > T/10 {
			break
		}
	}
	return append(cps, T)
}
