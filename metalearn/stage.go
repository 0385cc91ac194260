package metalearn

import (
	"fmt"
	"iter"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/tensor"
)

// Stage is one stage τ of the stage schedule of Algorithms 1 and 2
// (multi-agent-meta-rl Algorithm 1). Iterations are 1-based and inclusive:
// the stage runs iterations Start, …, End. Len is the planned length L_τ;
// the last stage of a run may be cut short by T, and then
// End − Start + 1 < Len and the stage gets no value update (its
// iterations still count in the output average).
type Stage struct {
	Start, End, Len int
}

// Complete reports whether the stage ran its full planned length L_τ.
func (s Stage) Complete() bool { return s.End-s.Start+1 >= s.Len }

// Iterations returns the number of iterations the stage ran.
func (s Stage) Iterations() int { return s.End - s.Start + 1 }

// Schedule is the stage schedule of a run of T iterations with horizon H:
// L_1 = H and L_{τ+1} = ⌊(1 + 1/H)L_τ⌋, computed in exact integer
// arithmetic as L·(H+1)/H (Algorithm 1: floating-point ⌊1.1·L⌋ can be off
// by one). Schedule[k] is the paper's stage τ = k+1.
type Schedule []Stage

// NewSchedule returns the stage schedule for horizon H ≥ 1 and T ≥ 1
// iterations. For H = 10 and T = 1000 it has 29 stages with
// L = 10, 11, …, 20, 22, 24, …, 94, the last one (960, 1000) partial.
// It returns an error if H or T is not positive or the schedule would have
// more than MaxStages stages. The cost is O(τ̄), with τ̄ ≤ 4H ln T stages
// for T ≥ 3 (the paper's bound).
func NewSchedule(H, T int) (Schedule, error) {
	if H < 1 {
		return nil, fmt.Errorf("%w: horizon H = %d must be ≥ 1", icrl.ErrInvalid, H)
	}
	if T < 1 {
		return nil, fmt.Errorf("%w: number of iterations T = %d must be ≥ 1", icrl.ErrInvalid, T)
	}
	n := 0
	for range stages(H, T) {
		if n++; n > MaxStages {
			return nil, fmt.Errorf("%w: horizon H = %d and T = %d give more than MaxStages = %d stages", icrl.ErrInvalid, H, T, MaxStages)
		}
	}
	s := make(Schedule, 0, n)
	for st := range stages(H, T) {
		s = append(s, st)
	}
	return s, nil
}

// MaxStages is the most stages [NewSchedule] builds (2²⁴): the schedule,
// and the per-stage tables of the algorithms that use it, are allocated
// from the count.
const MaxStages = 1 << 24

// stages yields the stages of the schedule for horizon H and T iterations.
// L ≥ H throughout, so ⌊(1+1/H)L⌋ = L + ⌊L/H⌋ ≥ L + 1: the stages grow,
// and the update cannot overflow before L exceeds T.
func stages(H, T int) iter.Seq[Stage] {
	return func(yield func(Stage) bool) {
		start, L := 1, H
		for start <= T {
			end := start + min(L, T-start+1) - 1
			if !yield(Stage{Start: start, End: end, Len: L}) {
				return
			}
			start = end + 1
			L += L / H
		}
	}
}

// Iterations returns T, the number of iterations the schedule covers.
func (s Schedule) Iterations() int {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1].End
}

// StageOf returns the 0-based index k of the stage containing iteration t
// (the paper's τ(t) − 1). It panics if t is outside [1, T]. The cost is
// O(log τ̄).
func (s Schedule) StageOf(t int) int {
	if t < 1 || t > s.Iterations() {
		panic(fmt.Sprintf("metalearn: iteration %d outside [1, %d]", t, s.Iterations()))
	}
	lo, hi := 0, len(s)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if s[mid].End < t {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Staged is a per-stage Markov policy of one player: a K×H×S×A
// [tensor.Dense] whose row (k, h, s), p.Row(k, h, s), is a distribution
// over the player's actions at stage k (the paper's τ = k+1), step h
// (0-based) and state s; p.Sub(k) is stage k's [markov.Policy]. It is the
// per-stage initialisation μ̃, ν̃, π̃_i of Algorithms 1 and 2 and the shape
// of their recorded hindsight best responses and stage averages.
type Staged = tensor.Dense[float64]

// UniformStaged returns the uniform *Staged policy with the given numbers of
// stages, steps, states and actions. It panics if a size is not positive
// or the policy would have more than 2^34 entries.
func UniformStaged(stages, horizon, states, actions int) *Staged {
	if stages < 1 || horizon < 1 || states < 1 || actions < 1 {
		panic(fmt.Sprintf("metalearn: UniformStaged(%d, %d, %d, %d): sizes must be positive", stages, horizon, states, actions))
	}
	if _, ok := num.SizeWithin(1<<34, stages, horizon, states, actions); !ok {
		panic(fmt.Sprintf("metalearn: UniformStaged(%d, %d, %d, %d): more than 2^34 entries", stages, horizon, states, actions))
	}
	out := newStaged(stages, horizon, states, actions)
	u := 1 / float64(actions)
	for i := range out.Data() {
		out.Data()[i] = u
	}
	return out
}

// newStaged returns a zero K×H×S×A *Staged; the sizes must be checked by
// the caller.
func newStaged(stages, horizon, states, actions int) *Staged {
	p, err := tensor.New[float64](stages, horizon, states, actions)
	if err != nil {
		panic(fmt.Sprintf("metalearn: staged policy of %d×%d×%d×%d: %v", stages, horizon, states, actions, err))
	}
	return p
}

// CheckStaged returns nil if p is a stages×horizon×states×actions *Staged
// policy whose every row is a probability distribution
// (simplex.CheckDistribution); otherwise the error names name and the first
// bad stage, step and state, and wraps [icrl.ErrNil] for a nil p and
// [icrl.ErrInvalid] for a wrong shape.
func CheckStaged(name string, p *Staged, stages, horizon, states, actions int) error {
	if p == nil {
		return fmt.Errorf("%w: %s is nil", icrl.ErrNil, name)
	}
	if p.Rank() != 4 || p.Dim(0) != stages || p.Dim(1) != horizon || p.Dim(2) != states || p.Dim(3) != actions {
		return fmt.Errorf("%w: %s has shape %v, want [%d %d %d %d]", icrl.ErrInvalid, name, p.Shape(), stages, horizon, states, actions)
	}
	for k := range stages {
		for h := range horizon {
			for s := range states {
				// The name is formatted only on failure: the check runs on
				// every initialisation, with thousands of entries.
				if err := simplex.CheckDistribution("distribution", p.Row(k, h, s), actions); err != nil {
					return fmt.Errorf("metalearn: %s[stage %d][step %d][state %d]: %w", name, k, h, s, err)
				}
			}
		}
	}
	return nil
}

// AlphaGreedy returns [x]_α = (1 − α)x + α/d applied to every distribution
// of p (§3.2), a new *Staged. Every entry of the result is at least
// α/d, the floor Lemma 1 needs. It panics if α is not in [0, 1].
func AlphaGreedy(p *Staged, alpha float64) *Staged {
	if !(alpha >= 0 && alpha <= 1) {
		panic(fmt.Sprintf("metalearn: α-greedy parameter %v outside [0, 1]", alpha))
	}
	out := p.Clone()
	d := out.Data()
	A := out.Dim(out.Rank() - 1)
	for i := 0; i < len(d); i += A {
		alphaGreedy(d[i:i+A], d[i:i+A], alpha)
	}
	return out
}

// alphaGreedy stores [x]_α in dst (which may alias x).
func alphaGreedy(dst, x []float64, alpha float64) {
	u := alpha / float64(len(x))
	for a, v := range x {
		dst[a] = (1-alpha)*v + u
	}
}

// mwuStep stores in dst the entropic mirror step
//
//	argmax_{x ∈ Δ} η⟨x, g⟩ − KL(x‖c),  x(a) ∝ c(a)·exp(η g(a)),
//
// of Algorithm 1 (Lemma 18; Hazan §5.4.2), computed in log space with the
// maximum subtracted so that it neither overflows nor underflows to a zero
// sum. Entries with c(a) = 0 stay 0. A constant gradient (in particular a
// zero one) returns c exactly, so that stage 1 of Algorithms 1 and 2, where
// Q ≡ 0, keeps the initialisation bit for bit (tested). dst may
// alias c. It panics if the lengths differ.
func mwuStep(dst, c, g []float64, eta float64) {
	if len(c) != len(g) || len(dst) != len(c) {
		panic("metalearn: mwuStep length mismatch")
	}
	constant := true
	for _, v := range g {
		if v != g[0] {
			constant = false
			break
		}
	}
	if constant {
		copy(dst, c)
		return
	}
	m := math.Inf(-1)
	for a, ca := range c {
		if ca > 0 {
			if v := math.Log(ca) + eta*g[a]; v > m {
				m = v
			}
		}
	}
	var sum float64
	for a, ca := range c {
		if ca > 0 {
			e := math.Exp(math.Log(ca) + eta*g[a] - m)
			dst[a] = e
			sum += e
		} else {
			dst[a] = 0
		}
	}
	for a := range dst {
		dst[a] /= sum
	}
}

// klMinBestResponse stores in dst the hindsight best response of Algorithm 1
// (the paper leaves ties open): among the maximisers of ⟨x, score⟩ over the simplex, which form the
// face spanned by the arg-max set M = {a : score(a) ≥ max − tol·max(1,
// |max|)}, the one closest to init in KL,
//
//	x(a) = init(a)·1[a ∈ M] / init(M),
//
// so that KL(x‖init) = −ln init(M). If init(M) = 0 it returns the uniform
// distribution on M. To minimise, pass the negated scores.
func klMinBestResponse(dst, init, score []float64, tol float64) {
	m := math.Inf(-1)
	for _, v := range score {
		m = max(m, v)
	}
	thr := m - tol*max(1, math.Abs(m))
	var mass float64
	n := 0
	for a, v := range score {
		if v >= thr {
			mass += init[a]
			n++
		}
	}
	if n == len(score) { // every action ties: the init itself, exactly
		copy(dst, init)
		return
	}
	for a, v := range score {
		switch {
		case v < thr:
			dst[a] = 0
		case mass > 0:
			dst[a] = init[a] / mass
		default:
			dst[a] = 1 / float64(n)
		}
	}
}

// checkCheckpoints returns an error wrapping [icrl.ErrInvalid] unless the
// iterations cps are strictly increasing within [lo, T].
func checkCheckpoints(cps []int, lo, T int) error {
	for k, t := range cps {
		if t < lo || t > T {
			return fmt.Errorf("%w: checkpoint %d = %d outside [%d, T = %d]", icrl.ErrInvalid, k, t, lo, T)
		}
		if k > 0 && t <= cps[k-1] {
			return fmt.Errorf("%w: checkpoint %d = %d not after checkpoint %d = %d", icrl.ErrInvalid, k, t, k-1, cps[k-1])
		}
	}
	return nil
}
