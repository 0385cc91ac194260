package sweep

import (
	"fmt"
	"strconv"

	"github.com/icrl-go/icrl/internal/num"
)

// MeanStd returns the mean and the standard deviation of f over the runs
// (num.MeanStd's convention), for a table's "mean ± std over seeds".
func MeanStd[R any](runs []R, f func(R) float64) (mean, std float64) {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	return num.MeanStd(v)
}

// Seeds describes how many seeds a table or figure averages over: "N
// seeds" when the runs cover all want seeds, "k of N seeds (stopped
// early)" when a cancelled or resumed-later study has fewer. seed returns
// a run's seed; runs with the same seed count once.
func Seeds[R any](runs []R, seed func(R) int, want int) string {
	have := map[int]bool{}
	for _, r := range runs {
		have[seed(r)] = true
	}
	if len(have) >= want {
		if len(have) == 1 {
			return "1 seed"
		}
		return fmt.Sprintf("%d seeds", len(have))
	}
	return fmt.Sprintf("%d of %d seeds (stopped early)", len(have), want)
}

// SeedCount returns the number of distinct seeds among the runs.
func SeedCount[R any](runs []R, seed func(R) int) int {
	have := map[int]bool{}
	for _, r := range runs {
		have[seed(r)] = true
	}
	return len(have)
}

// PlusMinus formats a mean and standard deviation over n runs with prec
// decimals as "mean ± std", or the mean alone when n < 2: a single run has
// no spread to report.
func PlusMinus(mean, std float64, n, prec int) string {
	if n < 2 {
		return strconv.FormatFloat(mean, 'f', prec, 64)
	}
	return fmt.Sprintf("%.*f ± %.*f", prec, mean, prec, std)
}
