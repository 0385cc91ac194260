package metalearn

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
)

// This file implements the constants of Lemmas 12–14 and Prop. 1 of
// multi-agent-meta-rl: the smoothness, gradient bounds and admissible step
// sizes of Q-ascent and MAML.

// Constants are the smoothness constants of the softmax potential and of
// the MAML objective, Lemmas 13 and 14 of multi-agent-meta-rl (§4.2, App. D),
// for N players, discount γ, at most A_max actions per player and T inner
// steps.
type Constants struct {
	// BG = √(2N)/(1−γ)² bounds ‖∇Φ‖ (Lemma 13(i)).
	BG float64
	// LG = 6N/(1−γ)³ bounds ‖∇²Φ‖ (Lemma 13(ii)).
	LG float64
	// LH = 56N^{3/2}/(1−γ)⁴ is the Lipschitz constant of ∇²Φ
	// (Lemma 13(iii)).
	LH float64
	// InnerAlpha = min((1−γ)³/(2NγA_max), 1/L_G) is the inner step size:
	// Lemma 14's value, capped at the 1/L_G its proof needs (the lemma's
	// value exceeds 1/L_G whenever γ·A_max < 3; for γ = 0 it is 1/L_G).
	InnerAlpha float64
	// LF = (α·T·B_G·L_H + L_G)·2^{2T} at α = InnerAlpha: F_T is
	// L_F-smooth (Lemma 14). It overflows to +Inf for T ≳ 500.
	LF float64
}

// LemmaConstants returns the constants of Lemmas 13 and 14 for players
// agents, discount gamma, maxActions = A_max and T inner steps (see
// [Constants]). The bounds assume rewards in [−1, 1] (App. C). It
// returns all fields NaN if players < 1, gamma is outside [0, 1),
// maxActions < 1 or T < 0.
func LemmaConstants(players int, gamma float64, maxActions, T int) Constants {
	if players < 1 || !(gamma >= 0 && gamma < 1) || maxActions < 1 || T < 0 {
		nan := math.NaN()
		return Constants{nan, nan, nan, nan, nan}
	}
	n := float64(players)
	g := 1 - gamma
	c := Constants{
		BG: math.Sqrt(2*n) / (g * g),
		LG: 6 * n / (g * g * g),
		LH: 56 * math.Pow(n, 1.5) / (g * g * g * g),
	}
	c.InnerAlpha = 1 / c.LG
	if gamma > 0 {
		c.InnerAlpha = min(g*g*g/(2*n*gamma*float64(maxActions)), c.InnerAlpha)
	}
	c.LF = metaSmoothness(c, c.InnerAlpha, T)
	return c
}

// metaSmoothness returns L_F = (αTB_GL_H + L_G)·2^{2T}, valid for
// α ∈ (0, 1/L_G] (Lemma 14's proof).
func metaSmoothness(c Constants, alpha float64, T int) float64 {
	return (alpha*float64(T)*c.BG*c.LH + c.LG) * math.Pow(2, 2*float64(T))
}

// CheckMAMLStepSizes returns nil if the inner step α and the outer step η
// are in the regime where Theorem 4 of multi-agent-meta-rl guarantees
// convergence of MAML to a stationary point of F_T, and otherwise an
// error naming the offending step size and its bound:
//
//	0 < α ≤ min((1−γ)³/(2NγA_max), 1/L_G)   (Lemma 14, capped at 1/L_G as its proof needs),
//	0 < η ≤ 1/L_F(α),  L_F(α) = (αTB_GL_H + L_G)·2^{2T}   (Lemma 14's proof, valid for α ≤ 1/L_G).
//
// It also returns an error if players < 1, gamma is outside [0, 1),
// maxActions < 1 or T < 0. Note that 1/L_F shrinks like 4^{−T}: the
// guaranteed η is impractically small beyond a few inner steps (L_F grows as 2^{2T}).
func CheckMAMLStepSizes(players int, gamma float64, maxActions, T int, alpha, eta float64) error {
	if players < 1 || !(gamma >= 0 && gamma < 1) || maxActions < 1 || T < 0 {
		return fmt.Errorf("%w: MAML constants need N ≥ 1, γ ∈ [0, 1), A_max ≥ 1 and T ≥ 0 (got %d, %v, %d, %d)", icrl.ErrInvalid, players, gamma, maxActions, T)
	}
	c := LemmaConstants(players, gamma, maxActions, T)
	if !(alpha > 0 && alpha <= c.InnerAlpha) {
		return fmt.Errorf("%w: inner step size α = %v is outside the guaranteed range (0, %v] = (0, min((1−γ)³/(2NγA_max), 1/L_G)] (Lemma 14, capped at 1/L_G)", icrl.ErrInvalid, alpha, c.InnerAlpha)
	}
	lf := metaSmoothness(c, alpha, T)
	if !(eta > 0 && eta <= 1/lf) {
		return fmt.Errorf("%w: outer step size η = %v is outside the guaranteed range (0, 1/L_F] = (0, %v] (Theorem 4, L_F = %v at α = %v, T = %d)", icrl.ErrInvalid, eta, 1/lf, lf, alpha, T)
	}
	return nil
}

// QAscentMaxAlpha returns the largest step size of Prop. 1 (from Ding et
// al. [15]) for projected Q-ascent (7) on a discounted Markov potential
// game, (1−γ)⁴/(8κ³N·A_max), where κ ≥ 1 is the distribution mismatch
// coefficient sup_θ ‖d_ρ^θ/ρ‖_∞ (App. C). Any upper bound on κ (for
// instance 1/min_s ρ(s)) gives a smaller, still admissible, step. It
// returns NaN if kappa < 1 or is not finite, players < 1, maxActions < 1
// or gamma is outside [0, 1).
func QAscentMaxAlpha(kappa float64, players, maxActions int, gamma float64) float64 {
	if !(kappa >= 1) || math.IsInf(kappa, 0) || players < 1 || maxActions < 1 || !(gamma >= 0 && gamma < 1) {
		return math.NaN()
	}
	g := 1 - gamma
	return g * g * g * g / (8 * kappa * kappa * kappa * float64(players) * float64(maxActions))
}

// CheckQAscentStepSize returns nil if α is positive and at most
// [QAscentMaxAlpha](kappa, players, maxActions, gamma), the guaranteed
// regime of Prop. 1, and otherwise an error naming α and the bound (or
// the invalid argument).
func CheckQAscentStepSize(alpha, kappa float64, players, maxActions int, gamma float64) error {
	bound := QAscentMaxAlpha(kappa, players, maxActions, gamma)
	if math.IsNaN(bound) {
		return fmt.Errorf("%w: Prop. 1 bound needs κ ≥ 1 finite, N ≥ 1, A_max ≥ 1 and γ ∈ [0, 1) (got κ = %v, N = %d, A_max = %d, γ = %v)", icrl.ErrInvalid, kappa, players, maxActions, gamma)
	}
	if !(alpha > 0 && alpha <= bound) {
		return fmt.Errorf("%w: step size α = %v is outside the guaranteed range (0, %v] = (0, (1−γ)⁴/(8κ³N·A_max)] of Prop. 1 (κ = %v, N = %d, A_max = %d, γ = %v)", icrl.ErrInvalid, alpha, bound, kappa, players, maxActions, gamma)
	}
	return nil
}
