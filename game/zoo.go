package game

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
)

// RPS returns rock-paper-scissors with payoffs in {−1, 0, 1}:
//
//	[[0, −1, 1], [1, 0, −1], [−1, 1, 0]].
//
// Its unique equilibrium is uniform for both players and its value is 0
// (OpenSpiel lp_solver_test.py). Use Rescale(RPS(), -1, 1) for bandit
// feedback in [0,1].
func RPS() *ZeroSum {
	return MustZeroSum([][]float64{{0, -1, 1}, {1, 0, -1}, {-1, 1, 0}})
}

// BiasedRPS returns the biased rock-paper-scissors game of Bošanský et al.
// (2016, §6.2) as used in OpenSpiel's tests:
//
//	[[0, −0.25, 0.5], [0.25, 0, −0.05], [−0.5, 0.05, 0]].
//
// Its unique equilibrium is (1/16, 10/16, 5/16) for both players and its
// value is 0. Use Rescale(BiasedRPS(), -0.5, 0.5) for bandit feedback.
func BiasedRPS() *ZeroSum {
	return MustZeroSum([][]float64{{0, -0.25, 0.5}, {0.25, 0, -0.05}, {-0.5, 0.05, 0}})
}

// MatchingPennies returns matching pennies with payoffs ±1: the row player
// wins 1 when the coins match, [[1, −1], [−1, 1]]. The unique equilibrium is
// uniform and the value is 0. Use Rescale(MatchingPennies(), -1, 1) for the
// [0,1] form [[1, 0], [0, 1]] with value 1/2.
func MatchingPennies() *ZeroSum {
	return MustZeroSum([][]float64{{1, -1}, {-1, 1}})
}

// Shapley returns Shapley's (1964) 3×3 general-sum game, on which
// fictitious play cycles forever:
//
//	A = [[1, 0, 0], [0, 1, 0], [0, 0, 1]],  B = [[0, 1, 0], [0, 0, 1], [1, 0, 0]].
//
// Its unique Nash equilibrium is uniform for both players, with payoffs
// (1/3, 1/3).
func Shapley() *Bimatrix {
	return MustBimatrix(
		[][]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		[][]float64{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},
	)
}

// RandomUniform returns a rows×cols zero-sum game with payoffs drawn
// independently and uniformly from [0,1]. It returns an error if rng is nil
// ([icrl.ErrNilRand]) or rows or cols is not positive.
func RandomUniform(rows, cols int, rng *rand.Rand) (*ZeroSum, error) {
	if rng == nil {
		return nil, icrl.ErrNilRand
	}
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("%w: cannot draw a %d×%d game", icrl.ErrEmpty, rows, cols)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "random game", rows, cols); err != nil {
		return nil, err
	}
	a := make([]float64, rows*cols)
	for k := range a {
		a[k] = rng.Float64()
	}
	return &ZeroSum{rows: rows, cols: cols, a: a}, nil
}

// RandomGaussian returns a rows×cols zero-sum game whose payoffs are drawn
// independently from the normal distribution N(mean, std²) truncated to
// [0,1] (by rejection, so the payoffs follow the truncated law exactly, not a
// clipped one). It returns an error if rng is nil ([icrl.ErrNilRand]), rows or
// cols is not positive, std is not positive and finite, or mean is not
// finite.
//
// The expected number of normal draws per payoff is 1/P(0 ≤ N(mean, std²) ≤ 1);
// keep mean near [0,1] or the call becomes slow.
func RandomGaussian(rows, cols int, mean, std float64, rng *rand.Rand) (*ZeroSum, error) {
	if rng == nil {
		return nil, icrl.ErrNilRand
	}
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("%w: cannot draw a %d×%d game", icrl.ErrEmpty, rows, cols)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "random game", rows, cols); err != nil {
		return nil, err
	}
	if !(std > 0) || math.IsInf(std, 0) || math.IsNaN(mean) || math.IsInf(mean, 0) {
		return nil, fmt.Errorf("%w: truncated Gaussian needs a finite mean and a positive finite std, got mean %v, std %v", icrl.ErrInvalid, mean, std)
	}
	a := make([]float64, rows*cols)
	for k := range a {
		a[k] = truncNormal(mean, std, rng)
	}
	return &ZeroSum{rows: rows, cols: cols, a: a}, nil
}

func truncNormal(mean, std float64, rng *rand.Rand) float64 {
	for {
		v := mean + std*rng.NormFloat64()
		if v >= 0 && v <= 1 {
			return v
		}
	}
}

// PerturbationLaw selects the law of the noise ξ in a [Perturbed] family.
type PerturbationLaw int

const (
	// PerturbUniform draws ξ uniformly from [−1, 1] (the default).
	PerturbUniform PerturbationLaw = iota
	// PerturbGaussian draws ξ from the standard normal distribution.
	PerturbGaussian
)

// String returns the law's name.
func (l PerturbationLaw) String() string {
	switch l {
	case PerturbUniform:
		return "uniform"
	case PerturbGaussian:
		return "gaussian"
	}
	return fmt.Sprintf("PerturbationLaw(%d)", int(l))
}

// Perturbed is a family of "similar" zero-sum games around a base game, the
// prior Λ of in-context-games-omd §5: a draw is
//
//	A_G = clip_[0,1](A_base + ρ·ξ),  ξ_ij i.i.d.,
//
// with magnitude ρ (the paper's experiments use ρ = 0.1). The paper specifies
// neither the base matrix nor the law of ξ (§5); ξ is uniform on [−1, 1]
// by default and standard normal as an option.
//
// A Perturbed value is safe for concurrent use if each goroutine passes its
// own rng.
type Perturbed struct {
	base *ZeroSum
	rho  float64
	law  PerturbationLaw
}

// NewPerturbed returns the family around base with magnitude rho and noise
// law law. It returns an error if base has a payoff outside [0,1] (use
// [Rescale] first), rho is negative or not finite, or law is unknown.
func NewPerturbed(base *ZeroSum, rho float64, law PerturbationLaw) (*Perturbed, error) {
	if base == nil {
		return nil, fmt.Errorf("%w: perturbed family needs a base game", icrl.ErrEmpty)
	}
	if !base.InUnit() {
		lo, hi := base.Bounds()
		return nil, fmt.Errorf("%w: base game payoffs span [%v, %v], outside [0,1]; use game.Rescale first", icrl.ErrInvalid, lo, hi)
	}
	if !(rho >= 0) || math.IsInf(rho, 0) {
		return nil, fmt.Errorf("%w: perturbation magnitude ρ = %v must be finite and non-negative", icrl.ErrInvalid, rho)
	}
	if law != PerturbUniform && law != PerturbGaussian {
		return nil, fmt.Errorf("%w: unknown perturbation law %v", icrl.ErrInvalid, law)
	}
	return &Perturbed{base: base, rho: rho, law: law}, nil
}

// Base returns the base game.
func (p *Perturbed) Base() *ZeroSum { return p.base }

// Rho returns the perturbation magnitude ρ.
func (p *Perturbed) Rho() float64 { return p.rho }

// Sample draws one game of the family from rng. The cost is O(rows·cols).
func (p *Perturbed) Sample(rng *rand.Rand) *ZeroSum {
	g := &ZeroSum{rows: p.base.rows, cols: p.base.cols, a: make([]float64, len(p.base.a))}
	for k, v := range p.base.a {
		var xi float64
		if p.law == PerturbGaussian {
			xi = rng.NormFloat64()
		} else {
			xi = 2*rng.Float64() - 1
		}
		g.a[k] = min(max(v+p.rho*xi, 0), 1)
	}
	return g
}
