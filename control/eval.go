package control

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// EvalContinuous returns the cost of (OP) (§2.3, eq. (4)) of the
// deployed transformer with weights us on the data set of K sequences of
// N tokens:
//
//	perToken = (1/(N K)) Σ_k Σ_i ‖Forward(x^k)_i − y^{k,i}‖²,
//	perSeq   = N · perToken = (1/K) Σ_k Σ_i ‖Forward(x^k)_i − y^{k,i}‖²
//
// (both normalisations: Tables 1–2 do not say which they report), where
// Forward runs the T = len(us) blocks of eq. (1) without any quantisation
// (this is the test error, and the continuous training error, of trained
// weights). Outputs may leave S; they are not clipped. Sums are accumulated in float64.
// T = 0 evaluates the identity map.
//
// It returns an error naming the bad value if b or an action is invalid or
// has other Dims, the data set is invalid ([Dataset.Validate] with the
// block's D), or the forward pass overflows.
func EvalContinuous[F tensor.Float](b Block[F], us []Action[F], data Dataset[F]) (perToken, perSeq float64, err error) {
	if err := b.Validate(); err != nil {
		return 0, 0, err
	}
	for t := range us {
		if us[t].Dims != b.Dims {
			return 0, 0, fmt.Errorf("%w: action %d has dims %+v, block has %+v", icrl.ErrInvalid, t, us[t].Dims, b.Dims)
		}
		if err := us[t].Validate(); err != nil {
			return 0, 0, fmt.Errorf("control: action %d: %w", t, err)
		}
	}
	if err := data.Validate(b.Dims.D); err != nil {
		return 0, 0, err
	}
	K, N, D := data.Dims()
	s := b.NewScratch(N)
	buf := make([]F, N*D)
	xs := make([][]F, N)
	for i := range xs {
		xs[i] = buf[i*D : (i+1)*D : (i+1)*D]
	}
	var total float64
	for k := range K {
		for i := range xs {
			copy(xs[i], data.X.Row(k, i))
		}
		for t := range us {
			b.Layer(xs, xs, &us[t], s)
		}
		for i, x := range xs {
			for c, v := range x {
				e := float64(v) - float64(data.Y.Row(k, i)[c])
				total += e * e
			}
		}
	}
	if math.IsNaN(total) || math.IsInf(total, 0) {
		return 0, 0, fmt.Errorf("%w: forward pass overflowed (squared error %v)", icrl.ErrInvalid, total)
	}
	perToken = total / float64(N*K)
	return perToken, float64(N) * perToken, nil
}
