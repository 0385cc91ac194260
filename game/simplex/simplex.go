package simplex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"unsafe"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// This file is the simplex toolkit: projections, divergences, softmax and
// sampling on the probability simplex Δ(A) = {x ∈ R^A : x ≥ 0, Σ x = 1},
// generic over float32 and float64.

// simplexTol returns the tolerance on Σp = 1 used by CheckDistribution:
// 1e-9 for float64 and 1e-5 for float32, times max(1, len/64).
func simplexTol[F tensor.Float](n int) F {
	tol := 1e-9
	if unsafe.Sizeof(F(0)) == 4 {
		tol = 1e-5
	}
	return F(tol * max(1, float64(n)/64))
}

// roundTol returns 8·n machine epsilons of F: the round-off allowed in a sum
// of n terms of order one.
func roundTol[F tensor.Float](n int) F {
	eps := 0x1p-52
	if unsafe.Sizeof(F(0)) == 4 {
		eps = 0x1p-23
	}
	return F(8 * eps * float64(n))
}

// CheckDistribution returns nil if p is a probability vector of length n
// (n < 0 accepts any non-zero length): every entry finite and non-negative
// and the sum within a small tolerance of 1 (1e-9 for float64, 1e-5 for
// float32, scaled up for long vectors). Otherwise the error names the
// argument (name), the bad entry or the sum.
func CheckDistribution[F tensor.Float](name string, p []F, n int) error {
	if n >= 0 && len(p) != n {
		return fmt.Errorf("%w: %s has length %d, want %d", icrl.ErrShape, name, len(p), n)
	}
	if len(p) == 0 {
		return fmt.Errorf("%w: %s is empty", icrl.ErrShape, name)
	}
	var s F
	for i, v := range p {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%w: %s[%d] = %v is not finite", icrl.ErrNotFinite, name, i, v)
		}
		if v < 0 {
			return fmt.Errorf("%w: %s[%d] = %v is negative: not on the simplex", icrl.ErrInvalid, name, i, v)
		}
		s += v
	}
	if d := s - 1; d > simplexTol[F](len(p)) || -d > simplexTol[F](len(p)) {
		return fmt.Errorf("%w: %s sums to %v, not 1: not on the simplex", icrl.ErrInvalid, name, s)
	}
	return nil
}

// Uniform returns the uniform distribution over n actions. It panics if
// n <= 0 or n > MaxEntries.
func Uniform[F tensor.Float](n int) []F {
	if n <= 0 || n > icrl.MaxEntries {
		panic(fmt.Sprintf("simplex: uniform distribution over %d actions", n))
	}
	p := make([]F, n)
	for i := range p {
		p[i] = 1 / F(n)
	}
	return p
}

// ProjectSimplex stores in dst the Euclidean projection of v onto the
// probability simplex; it is [ProjectTruncated] with delta = 0.
func ProjectSimplex[F tensor.Float](dst, v []F) error {
	return ProjectTruncated(dst, v, 0)
}

// ProjectTruncated stores in dst the Euclidean projection of v onto the
// truncated simplex
//
//	Ω_δ = {x : Σ_a x_a = 1, x_a ≥ δ},
//
// the feasible set of the OMD update of in-context-games-omd §4.1. The projection is Π(v)_a = max(v_a − τ, δ) with τ chosen so that the
// entries sum to one; it is found exactly by sorting (Held, Wolfe and
// Crowder 1974; Duchi et al. 2008, Fig. 1) applied to v − δ with mass
// 1 − Aδ. When Aδ = 1 the only point of Ω_δ is the uniform vector, which is
// also returned when Aδ exceeds 1 by no more than round-off (8·A machine
// epsilons), so its entries may then lie a few ulps below δ.
//
// dst must have the length of v. dst may be v itself (in place), in which
// case a scratch slice is allocated; otherwise the call does not allocate
// (dst is used as the sort buffer). The cost is O(A log A) for A = len(v).
//
// It returns an error, leaving dst unspecified, if delta is negative or not
// finite, if δ·A > 1 (Ω_δ is empty), or if v has a NaN or infinite entry. It
// panics if len(dst) != len(v) or v is empty.
func ProjectTruncated[F tensor.Float](dst, v []F, delta F) error {
	n := len(v)
	if n == 0 || len(dst) != n {
		panic(fmt.Sprintf("simplex: projection of a length-%d vector into a length-%d destination", n, len(dst)))
	}
	fd := float64(delta)
	if math.IsNaN(fd) || math.IsInf(fd, 0) || fd < 0 {
		return fmt.Errorf("%w: truncation level δ = %v must be finite and non-negative", icrl.ErrInvalid, delta)
	}
	z := 1 - F(n)*delta // mass left above the floor
	if z < -roundTol[F](n) {
		return fmt.Errorf("%w: truncation level δ = %v with %d actions has δ·A = %v > 1: the truncated simplex is empty", icrl.ErrInvalid, delta, n, F(n)*delta)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: projection input v[%d] = %v is not finite", icrl.ErrNotFinite, i, x)
		}
	}
	if z <= 0 {
		for i := range dst {
			dst[i] = 1 / F(n)
		}
		return nil
	}
	buf := dst
	if &dst[0] == &v[0] {
		buf = make([]F, n)
	}
	// The projection is invariant under v ↦ v − c·1. Shifting by the largest
	// entry keeps the support entries in [−1−δ, 0], so the running sums below
	// stay accurate however large the entries of v are (and an entry so far
	// below that the shift overflows to −Inf is correctly left at δ).
	top := slices.Max(v)
	for i, x := range v {
		buf[i] = x - top
	}
	slices.Sort(buf) // ascending; walk it from the top
	// Find θ = (Σ_{i≤ρ} u_(i) − z)/ρ for the largest ρ with u_(ρ) > θ, where
	// u = v − top − δ sorted decreasingly. ρ ≥ 1 always (u_(1) − θ_1 = z > 0).
	cum := buf[n-1] - delta
	theta := cum - z
	for k := 2; k <= n; k++ {
		u := buf[n-k] - delta
		c := cum + u
		t := (c - z) / F(k)
		if !(u > t) {
			break
		}
		cum, theta = c, t
	}
	for i, x := range v {
		dst[i] = max(x-top-delta-theta, 0) + delta
	}
	return nil
}

// KL returns the Kullback–Leibler divergence KL(p‖q) = Σ_i p_i log(p_i/q_i)
// in nats, with 0·log(0/q) = 0.
//
// Special cases are:
//
//	KL(p‖q) = +Inf if p_i > 0 and q_i = 0 for some i
//
// It panics if len(p) != len(q). It does not check that p and q are
// distributions.
func KL[F tensor.Float](p, q []F) F {
	if len(p) != len(q) {
		panic(fmt.Sprintf("simplex: KL of vectors of lengths %d and %d", len(p), len(q)))
	}
	var s float64
	for i, pi := range p {
		if pi <= 0 {
			continue
		}
		if q[i] <= 0 {
			return F(math.Inf(1))
		}
		s += float64(pi) * math.Log(float64(pi)/float64(q[i]))
	}
	return F(max(s, 0))
}

// Entropy returns the Shannon entropy −Σ_i p_i log p_i of p in nats, with
// 0·log 0 = 0. It does not check that p is a distribution.
func Entropy[F tensor.Float](p []F) F {
	var s float64
	for _, pi := range p {
		if pi > 0 {
			s -= float64(pi) * math.Log(float64(pi))
		}
	}
	return F(s)
}

// TotalVariation returns the total-variation distance ½Σ_i |p_i − q_i|. It
// panics if len(p) != len(q).
func TotalVariation[F tensor.Float](p, q []F) F {
	if len(p) != len(q) {
		panic(fmt.Sprintf("simplex: total variation of vectors of lengths %d and %d", len(p), len(q)))
	}
	var s F
	for i := range p {
		s += F(math.Abs(float64(p[i] - q[i])))
	}
	return s / 2
}

// Softmax stores softmax(logits)_i = exp(l_i)/Σ_j exp(l_j) in dst and returns
// it, computed stably by subtracting the largest logit first. dst may be
// logits itself; if dst is nil a new slice is allocated.
//
// Special cases are: logits equal to −Inf get probability 0; if every logit
// is −Inf, or any is NaN or +Inf, the result is NaN-free only for the +Inf
// case (uniform over the +Inf entries) and is NaN otherwise.
//
// It panics if dst is non-nil and len(dst) != len(logits), or logits is
// empty.
func Softmax[F tensor.Float](dst, logits []F) []F {
	dst = useF(dst, len(logits))
	m := slices.Max(logits)
	if math.IsInf(float64(m), 1) {
		var k F
		for i, l := range logits {
			if math.IsInf(float64(l), 1) {
				dst[i] = 1
				k++
			} else {
				dst[i] = 0
			}
		}
		for i := range dst {
			dst[i] /= k
		}
		return dst
	}
	var s F
	for i, l := range logits {
		e := F(math.Exp(float64(l - m)))
		dst[i] = e
		s += e
	}
	for i := range dst {
		dst[i] /= s
	}
	return dst
}

// LogSoftmax stores log softmax(logits)_i = l_i − log Σ_j exp(l_j) in dst and
// returns it, computed stably (log-sum-exp with the largest logit factored
// out). dst may be logits itself; if dst is nil a new slice is allocated. It
// panics if dst is non-nil and len(dst) != len(logits), or logits is empty.
func LogSoftmax[F tensor.Float](dst, logits []F) []F {
	dst = useF(dst, len(logits))
	lse := LogSumExp(logits)
	for i, l := range logits {
		dst[i] = l - lse
	}
	return dst
}

// LogSumExp returns log Σ_i exp(l_i), computed stably. It returns −Inf if
// every entry is −Inf. It panics if l is empty.
func LogSumExp[F tensor.Float](l []F) F {
	m := slices.Max(l)
	if math.IsInf(float64(m), 0) {
		return m
	}
	var s float64
	for _, v := range l {
		s += math.Exp(float64(v - m))
	}
	return m + F(math.Log(s))
}

// SampleCategorical draws an index i with probability p_i from rng by
// inversion, using one uniform variate. Entries need not sum exactly to one:
// the draw is scaled by the total. Zero-probability entries are never drawn.
// It panics if rng is nil, p is empty, an entry is negative or NaN, or the
// total is not positive and finite (a programming error on a hot path:
// weights come from the caller's own policy). The cost is O(len(p)).
func SampleCategorical[F tensor.Float](p []F, rng *rand.Rand) int {
	if rng == nil {
		panic("simplex: SampleCategorical with a nil random source")
	}
	var total float64
	for i, v := range p {
		if !(v >= 0) {
			panic(fmt.Sprintf("simplex: cannot sample from weights with entry %d = %v", i, v))
		}
		total += float64(v)
	}
	if !(total > 0) || math.IsInf(total, 0) {
		panic(fmt.Sprintf("simplex: cannot sample from weights with total %v", total))
	}
	u := rng.Float64() * total
	last := -1
	var c float64
	for i, v := range p {
		if v <= 0 {
			continue
		}
		c += float64(v)
		last = i
		if u < c {
			return i
		}
	}
	return last // rounding left u at the very top: the last positive entry
}

func useF[F tensor.Float](dst []F, n int) []F {
	if n == 0 {
		panic("simplex: empty vector")
	}
	if dst == nil {
		return make([]F, n)
	}
	if len(dst) != n {
		panic(fmt.Sprintf("simplex: destination has length %d, want %d", len(dst), n))
	}
	return dst
}
