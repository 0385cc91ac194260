package transformer

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
)

// LRSchedule gives the learning rate of each optimiser step.
type LRSchedule interface {
	// LR returns the learning rate of the 0-based optimiser step: step 0
	// is the first call of [Adam.Step].
	LR(step int) float64
}

// A ValidatingSchedule is an [LRSchedule] that can check its own
// settings ([WarmupCosine] is one); [Train] calls Validate before the
// first step.
type ValidatingSchedule interface {
	LRSchedule
	// Validate returns an error naming the first bad setting.
	Validate() error
}

var (
	_ ValidatingSchedule = ConstantLR(0)
	_ ValidatingSchedule = WarmupCosine{}
)

// ConstantLR is a schedule with the same learning rate at every step.
type ConstantLR float64

// LR returns c whatever the step.
func (c ConstantLR) LR(step int) float64 { return float64(c) }

// Validate returns an error if c is negative or not finite.
func (c ConstantLR) Validate() error {
	if f := float64(c); !(f >= 0) || math.IsInf(f, 1) {
		return fmt.Errorf("%w: ConstantLR %v is not non-negative and finite", icrl.ErrInvalid, f)
	}
	return nil
}

// WarmupCosine is linear warm-up followed by cosine decay (Loshchilov and
// Hutter 2017, without restarts; the GPT schedule). For the 0-based step s:
//
//	s < Warmup:          Peak·(s+1)/Warmup
//	Warmup ≤ s < Total:  Min + (Peak−Min)·(1 + cos(π·(s−Warmup)/(Total−Warmup)))/2
//	s ≥ Total:           Min
//
// so the first step already has the non-zero rate Peak/Warmup, step
// Warmup−1 reaches Peak, decay starts at Peak at step Warmup and reaches Min
// at step Total (the steps from Warmup to Total−1 take the decay's values,
// Total−Warmup of them). Negative steps count as step 0. Warmup = 0 starts
// the decay at once; Total = Warmup gives Min after the warm-up.
type WarmupCosine struct {
	// Peak is the learning rate at the end of the warm-up; Min the final
	// one, 0 ≤ Min ≤ Peak.
	Peak, Min float64
	// Warmup is the number of warm-up steps, 0 ≤ Warmup ≤ Total; Total is
	// the step at which the decay reaches Min.
	Warmup, Total int
}

// Validate returns an error naming the bad field if the rates are not
// finite with 0 ≤ Min ≤ Peak, or the steps not 0 ≤ Warmup ≤ Total.
func (s WarmupCosine) Validate() error {
	switch {
	case !(s.Peak >= 0) || math.IsInf(s.Peak, 1):
		return fmt.Errorf("%w: WarmupCosine Peak %v is not non-negative and finite", icrl.ErrInvalid, s.Peak)
	case !(s.Min >= 0) || s.Min > s.Peak:
		return fmt.Errorf("%w: WarmupCosine Min %v not in [0, Peak = %v]", icrl.ErrInvalid, s.Min, s.Peak)
	case s.Warmup < 0:
		return fmt.Errorf("%w: WarmupCosine Warmup %d is negative", icrl.ErrInvalid, s.Warmup)
	case s.Total < s.Warmup:
		return fmt.Errorf("%w: WarmupCosine Total %d is less than Warmup %d", icrl.ErrInvalid, s.Total, s.Warmup)
	}
	return nil
}

// LR returns the learning rate of the 0-based step, as described on
// [WarmupCosine]. It does not validate s; an invalid schedule gives
// meaningless but non-panicking values.
func (s WarmupCosine) LR(step int) float64 {
	step = max(step, 0)
	switch {
	case step < s.Warmup:
		return s.Peak * float64(step+1) / float64(s.Warmup)
	case step >= s.Total:
		return s.Min
	}
	p := float64(step-s.Warmup) / float64(s.Total-s.Warmup)
	return s.Min + (s.Peak-s.Min)*(1+math.Cos(math.Pi*p))/2
}
