package sweep

import "github.com/icrl-go/icrl/internal/num"

// MeanStd returns the mean and the standard deviation of f over the runs
// (num.MeanStd's convention), for a table's "mean ± std over seeds".
func MeanStd[R any](runs []R, f func(R) float64) (mean, std float64) {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	return num.MeanStd(v)
}
