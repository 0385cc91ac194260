package control

import (
	"fmt"
	"github.com/icrl-go/icrl/tensor"
	"math"
)

// EvalContinuous returns the cost of (OP) (§2.3, eq. (4)) of the
// deployed transformer with weights us on the data set (X, Y) of K = len(X)
// sequences of N tokens:
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
// has other Dims, X is empty, len(Y) != len(X), a sequence is
// empty or has another length than X[0] (in X or Y), a token does not have
// length D or has a non-finite entry, or the forward pass overflows.
func EvalContinuous[F tensor.Float](b Block[F], us []Action[F], X, Y [][][]F) (perToken, perSeq float64, err error) {
	if err := b.Validate(); err != nil {
		return 0, 0, err
	}
	for t := range us {
		if us[t].Dims != b.Dims {
			return 0, 0, fmt.Errorf("%w: action %d has dims %+v, block has %+v", ErrInvalid, t, us[t].Dims, b.Dims)
		}
		if err := us[t].Validate(); err != nil {
			return 0, 0, fmt.Errorf("control: action %d: %w", t, err)
		}
	}
	K := len(X)
	if K == 0 {
		return 0, 0, fmt.Errorf("%w: empty data set", ErrInvalid)
	}
	if len(Y) != K {
		return 0, 0, fmt.Errorf("%w: %d input sequences but %d label sequences", ErrInvalid, K, len(Y))
	}
	N := len(X[0])
	if N == 0 {
		return 0, 0, fmt.Errorf("%w: input sequence 0 has no tokens", ErrInvalid)
	}
	D := b.Dims.D
	for k := range K {
		for _, side := range [2]struct {
			name string
			seq  [][]F
		}{{"input", X[k]}, {"label", Y[k]}} {
			if len(side.seq) != N {
				return 0, 0, fmt.Errorf("%w: %s sequence %d has %d tokens, want N = %d", ErrInvalid, side.name, k, len(side.seq), N)
			}
			for i, x := range side.seq {
				if len(x) != D {
					return 0, 0, fmt.Errorf("%w: %s token (%d, %d) has length %d, want D = %d", ErrInvalid, side.name, k, i, len(x), D)
				}
				for c, v := range x {
					if !finite(v) {
						return 0, 0, fmt.Errorf("%w: %s token (%d, %d) entry %d = %v is not finite", ErrNotFinite, side.name, k, i, c, v)
					}
				}
			}
		}
	}

	s := b.NewScratch(N)
	buf := make([]F, N*D)
	xs := make([][]F, N)
	for i := range xs {
		xs[i] = buf[i*D : (i+1)*D : (i+1)*D]
	}
	var total float64
	for k := range K {
		for i, x := range X[k] {
			copy(xs[i], x)
		}
		for t := range us {
			b.Layer(xs, xs, &us[t], s)
		}
		for i, x := range xs {
			for c, v := range x {
				e := float64(v) - float64(Y[k][i][c])
				total += e * e
			}
		}
	}
	if math.IsNaN(total) || math.IsInf(total, 0) {
		return 0, 0, fmt.Errorf("%w: forward pass overflowed (squared error %v)", ErrInvalid, total)
	}
	perToken = total / float64(N*K)
	return perToken, float64(N) * perToken, nil
}
