package quantize

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/tensor"
)

// This file holds the validation helpers shared by the constructors.

// isFinite reports whether v is neither NaN nor ±Inf.
func isFinite(v float64) bool { return v-v == 0 }

// is32 reports whether F is float32.
func is32[F tensor.Float]() bool { return unsafe.Sizeof(F(0)) == 4 }

// massTol returns the tolerance on Σw = 1 for a probability vector with n
// entries of type F: 1e-9 for float64 and 1e-5 for float32, times
// max(1, n/64) (the convention of package game).
func massTol[F tensor.Float](n int) float64 {
	tol := 1e-9
	if is32[F]() {
		tol = 1e-5
	}
	return tol * max(1, float64(n)/64)
}

// checkVec returns an error if x has a NaN or infinite entry; name is the
// vector's name in the message.
func checkVec[F tensor.Float](name string, x []F) error {
	if k := num.FirstNonFinite(x); k >= 0 {
		return fmt.Errorf("%w: %s[%d] = %v is not finite", icrl.ErrNotFinite, name, k, x[k])
	}
	return nil
}

// checkBox validates the box [lo, hi] ⊂ R^d: equal non-zero lengths, finite
// entries and lo[k] < hi[k] on every axis (hi[k] − lo[k] must also be
// finite).
func checkBox[F tensor.Float](lo, hi []F) error {
	if len(lo) == 0 {
		return fmt.Errorf("%w: box has dimension 0 (lo is empty)", icrl.ErrInvalid)
	}
	if len(lo) != len(hi) {
		return fmt.Errorf("%w: box bounds have lengths len(lo) = %d and len(hi) = %d", icrl.ErrInvalid, len(lo), len(hi))
	}
	if err := checkVec("lo", lo); err != nil {
		return err
	}
	if err := checkVec("hi", hi); err != nil {
		return err
	}
	for k := range lo {
		if !(lo[k] < hi[k]) {
			return fmt.Errorf("%w: box axis %d has lo = %v ≥ hi = %v", icrl.ErrInvalid, k, lo[k], hi[k])
		}
		if !isFinite(float64(hi[k]) - float64(lo[k])) {
			return fmt.Errorf("%w: box axis %d has infinite width hi − lo = %v − %v", icrl.ErrInvalid, k, hi[k], lo[k])
		}
	}
	return nil
}

// checkProb validates a probability vector of float64 entries: non-empty,
// finite, non-negative, summing to one within massTol[float64].
func checkProb(name string, p []float64) error {
	if len(p) == 0 {
		return fmt.Errorf("%w: %s is empty", icrl.ErrInvalid, name)
	}
	s := 0.0
	for i, v := range p {
		if !isFinite(v) {
			return fmt.Errorf("%w: %s[%d] = %v is not finite", icrl.ErrNotFinite, name, i, v)
		}
		if v < 0 {
			return fmt.Errorf("%w: %s[%d] = %v is negative", icrl.ErrInvalid, name, i, v)
		}
		s += v
	}
	if math.Abs(s-1) > massTol[float64](len(p)) {
		return fmt.Errorf("%w: %s sums to %v, not 1", icrl.ErrInvalid, name, s)
	}
	return nil
}

// maxEll is the largest measure-quantisation level ℓ accepted: the counts
// of a [QMeasure] are int32.
const maxEll = math.MaxInt32

// checkEll validates the measure-quantisation level ℓ.
func checkEll(ell int) error {
	if ell < 1 {
		return fmt.Errorf("%w: measure level ℓ = %d must be at least 1", icrl.ErrInvalid, ell)
	}
	if ell > maxEll {
		return fmt.Errorf("%w: measure level ℓ = %d exceeds %d", icrl.ErrInvalid, ell, maxEll)
	}
	return nil
}
