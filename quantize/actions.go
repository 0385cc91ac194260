package quantize

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// This file builds finite action sets 𝕌_m (eq. (19) of the paper) as vectors
// in a box [lo, hi] ⊂ R^P; package control turns each vector into a
// transformer action U = (W, A, b, Q, K, V).

// ProductGrid returns the cell-centred product grid over [lo, hi]: axis k
// is cut into perAxis[k] equal cells and the points are the cell centres,
// in the row-major order of [BoxGrid] (the last axis varies fastest; the
// same points and order as NewBoxGrid(lo, hi, perAxis)). With perAxis[k] =
// [NetPerAxis](P, m) on [-1,1]^P it is a 1/m-net in the Frobenius norm
// (eq. (19)). The vectors share one backing array.
//
// It returns an error naming the bad value if the box is invalid (see
// [NewBoxGrid]), len(perAxis) ≠ len(lo), some perAxis[k] < 1, or the grid
// has more than maxSize points (or more than [MaxGridEntries]
// coordinates). It costs O(size·P).
func ProductGrid[F tensor.Float](lo, hi []F, perAxis []int, maxSize int) ([][]F, error) {
	if err := checkBox(lo, hi); err != nil {
		return nil, err
	}
	P := len(lo)
	if len(perAxis) != P {
		return nil, fmt.Errorf("%w: len(perAxis) = %d, want the box dimension %d", icrl.ErrInvalid, len(perAxis), P)
	}
	size := 1
	for k, c := range perAxis {
		if c < 1 {
			return nil, fmt.Errorf("%w: perAxis[%d] = %d must be at least 1", icrl.ErrInvalid, k, c)
		}
		if size > maxSize/c || size > MaxGridEntries/P/c {
			return nil, fmt.Errorf("%w: product grid with %v points per axis exceeds maxSize = %d (or %d coordinates)", icrl.ErrInvalid, perAxis, maxSize, MaxGridEntries)
		}
		size *= c
	}
	if size > maxSize {
		return nil, fmt.Errorf("%w: product grid of %d points exceeds maxSize = %d", icrl.ErrInvalid, size, maxSize)
	}
	g, err := NewBoxGrid(lo, hi, perAxis)
	if err != nil {
		return nil, err
	}
	out := make([][]F, size)
	for j := range out {
		out[j] = g.pts[j*P : (j+1)*P : (j+1)*P]
	}
	return out, nil
}

// NetPerAxis returns ⌈m·√P⌉, the number of cells per axis of a
// cell-centred cube net on [-1,1]^P whose Frobenius covering radius √P/c is
// at most 1/m (the paper's experiment: 5 for P = 22, m = 1, so 5²² points). It returns 0
// if P < 1 or m is not finite and positive.
func NetPerAxis(P int, m float64) int {
	if P < 1 || !isFinite(m) || m <= 0 {
		return 0
	}
	x := m * math.Sqrt(float64(P))
	if x >= math.MaxInt32 {
		return math.MaxInt32
	}
	c := int(math.Ceil(x))
	// Guard against √P rounding up past an exact integer.
	if c > 1 && float64(c-1)*float64(c-1) >= m*m*float64(P) {
		c--
	}
	return max(c, 1)
}

// NestedSampler draws i.i.d. uniform vectors from the box [Lo, Hi] ⊂ R^P
// (entry k uniform on [Lo[k], Hi[k]); Lo[k] = Hi[k] fixes that entry),
// the random nested action sets of the paper's experiment (§6: 10 new
// actions per level). It is a value type, safe for concurrent use with
// different rngs.
type NestedSampler[F tensor.Float] struct{ Lo, Hi []F }

// Validate returns nil if Lo and Hi have the same non-zero length, finite
// entries and Lo[k] ≤ Hi[k]; the error names the bad value.
func (s NestedSampler[F]) Validate() error {
	if len(s.Lo) == 0 {
		return fmt.Errorf("%w: sampler box has dimension 0 (Lo is empty)", icrl.ErrInvalid)
	}
	if len(s.Lo) != len(s.Hi) {
		return fmt.Errorf("%w: sampler bounds have lengths len(Lo) = %d and len(Hi) = %d", icrl.ErrInvalid, len(s.Lo), len(s.Hi))
	}
	if err := checkVec("Lo", s.Lo); err != nil {
		return err
	}
	if err := checkVec("Hi", s.Hi); err != nil {
		return err
	}
	for k := range s.Lo {
		if !(s.Lo[k] <= s.Hi[k]) {
			return fmt.Errorf("%w: sampler axis %d has Lo = %v > Hi = %v", icrl.ErrInvalid, k, s.Lo[k], s.Hi[k])
		}
	}
	return nil
}

// Extend returns set with k new vectors appended, drawn i.i.d. uniform
// from the box with k·P calls to rng.Float64 (vector by vector, entry by
// entry), so the same seed gives the same vectors and the set grows
// nestedly: the first vectors are those of a shorter run. The existing
// vectors are not touched; the new ones share one backing array. It costs
// O(k·P). It panics if the sampler is invalid (see
// [NestedSampler.Validate]), k < 0 or rng is nil.
func (s NestedSampler[F]) Extend(set [][]F, k int, rng *rand.Rand) [][]F {
	if err := s.Validate(); err != nil {
		panic(err.Error())
	}
	if k < 0 || rng == nil {
		panic(fmt.Sprintf("quantize: NestedSampler.Extend with k = %d and rng = %v", k, rng))
	}
	P := len(s.Lo)
	buf := make([]F, k*P)
	for i := range k {
		v := buf[i*P : (i+1)*P : (i+1)*P]
		for j := range v {
			lo, hi := float64(s.Lo[j]), float64(s.Hi[j])
			x := F(lo + (hi-lo)*rng.Float64())
			if x > s.Hi[j] { // float32 rounding
				x = s.Hi[j]
			}
			v[j] = x
		}
		set = append(set, v)
	}
	return set
}
