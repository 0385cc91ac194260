package learner

import (
	"fmt"
)

// Convention selects the sign convention of the [OMD] gradient
// (in-context-games-omd §4.1; its gradient ĝ = r̂ − εx used with argmin
// fits neither player, see PrintedSign). The learner is always fed
// its own reward r ∈ [0,1] to maximise (see [Learner]).
type Convention int

const (
	// LossDescent is the recommended form (the default): the learner
	// descends on its loss ℓ = 1 − r (the reward shifted into a loss) with the IX estimator and a convex
	// regulariser,
	//
	//	ĝ_a = ℓ·1{a = a_t}/(x_a + β) + ε·x_a,   x_{t+1} = Π_Ω(x_t − cη·ĝ).
	//
	// For the row player of a zero-sum game ℓ = 1 − r_t, for the column
	// player (fed 1 − r_t) ℓ = r_t: the Cai et al. loss convention, under
	// which β under-estimates the loss and so encourages exploration.
	LossDescent Convention = iota

	// RewardAscent uses the paper's reward estimate for ascent:
	//
	//	r̂_a = u·1{a = a_t}/(x_a + β),   x_{t+1} = Π_Ω(x_t + cη(r̂ − ε·x)),
	//
	// where u is the learner's reward in the paper's zero-sum convention
	// (§3.1: the max player receives r_t, the min player −r_t), recovered
	// from the fed reward through the learner's Role (a game.Player): u = reward for a
	// game.RowPlayer and u = reward − 1 = −r_t for a game.ColumnPlayer (fed 1 − r_t).
	// For the column player this is exactly the LossDescent update; for the
	// row player it differs from LossDescent only in the IX bias, and it
	// behaves almost the same in self-play (the package tests compare
	// them). A column player left at the default Role ascends on its fed
	// reward 1 − r_t instead, which converges markedly worse.
	RewardAscent

	// PrintedSign is the update with the sign exactly as printed in §4.1
	// of the paper, the gradient g = r̂ − εx used with argmin:
	//
	//	g_a = u·1{a = a_t}/(x_a + β) − ε·x_a,
	//	x_{t+1} = argmin_{x∈Ω} ⟨x, g⟩ + (1/(2cη))‖x − x_t‖²₂ = Π_Ω(x_t − cη·g),
	//
	// with u the paper's per-player reward as in RewardAscent (u = r_t for
	// the row player, u = −r_t for the column player, so the Role must be set).
	// Each player thus descends on its own reward, and the −εx term is a
	// concave anti-regulariser that pushes the policy to a vertex. It
	// diverges: self-play on [[1,0],[0,0.5]] with exact
	// rewards ends, seed by seed, at a pure pair with gap 0.5 (x = e_1,
	// y = e_2) or 1 (x = e_2, y = e_1); the mean over five seeds is 0.90 at
	// T = 10³, 10⁴ and 10⁵ (0.92 over twenty seeds), against a reference
	// prototype's 0.69 and 0.79 (other splits of the same two outcomes),
	// far above the 0.25 of the uniform pair. It is kept only to document
	// that negative result.
	//
	// Two other readings do not reproduce this divergence. If the min player also used
	// the max player's r_t (§3.2: D_y records the same r_t), both players
	// would minimise r_t and self-play would converge (mean gaps 0.43, 0.19,
	// 0.10 at T = 10³, 10⁴, 10⁵); if each player used its fed [0,1] reward
	// (a column player left at the default Role), the gaps would be 0.44,
	// 0.51, 0.27.
	PrintedSign
)

// String returns the convention's name.
func (c Convention) String() string {
	switch c {
	case LossDescent:
		return "LossDescent"
	case RewardAscent:
		return "RewardAscent"
	case PrintedSign:
		return "PrintedSign"
	}
	return fmt.Sprintf("Convention(%d)", int(c))
}

// LossScale selects how [OMD] puts its target q = r + γV(s') on the
// [0,1] scale that the matrix-game conventions assume. With U = 1/(1−γ), q lies in
// [0, U] (the paper's loss shift assumes [0,1]; §4.3 leaves the scale open).
type LossScale int

const (
	// NormalizedLoss divides q by U, so that the LossDescent loss is
	// ℓ = 1 − q/U ∈ [0,1] and the IX gradient has the same scale as in a
	// matrix game (the default).
	NormalizedLoss LossScale = iota
	// RawLoss uses q itself: the LossDescent loss is ℓ = U − q ∈ [0, U], the
	// form of a corrected Algorithm 1 (§4.3), and the PrintedSign
	// gradient is the paper's (r + γV)·1{a = a_t}/(x_a + β) − ε·x_a. The
	// gradient, and so the step, is up to U times larger than with
	// NormalizedLoss.
	RawLoss
)

// String returns the loss scale's name.
func (l LossScale) String() string {
	switch l {
	case NormalizedLoss:
		return "NormalizedLoss"
	case RawLoss:
		return "RawLoss"
	}
	return fmt.Sprintf("LossScale(%d)", int(l))
}
