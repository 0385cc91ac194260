package metalearn

import (
	"fmt"
	"math"
	"strings"

	"github.com/icrl-go/icrl/internal/parallel"

	"gonum.org/v1/gonum/floats"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
)

// This file implements MAML (46)–(47) of multi-agent-meta-rl for Markov
// teams, on top of the softmax policy gradient of softmaxpg.go.

// potCheckMAML validates the games, parameters and inner step and returns
// one policy-gradient handle per game.
func potCheckMAML[G markov.GeneralSumModel](games []G, th Logits, alpha float64, T int, where string) ([]*potGame, error) {
	if len(games) == 0 {
		return nil, fmt.Errorf("%w: %sno game", icrl.ErrInvalid, where)
	}
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) || alpha < 0 {
		return nil, fmt.Errorf("%w: %sinner step size α = %v must be finite and ≥ 0", icrl.ErrInvalid, where, alpha)
	}
	if T < 0 {
		return nil, fmt.Errorf("%w: %snumber of inner steps T = %d must be ≥ 0", icrl.ErrInvalid, where, T)
	}
	pgs := make([]*potGame, len(games))
	for k, g := range games {
		pg, err := newPotGame(g, fmt.Sprintf("%sgames[%d]: ", where, k))
		if err != nil {
			return nil, err
		}
		if k > 0 {
			g0 := games[0]
			if g.Players() != g0.Players() || g.States() != g0.States() || g.Discount() != g0.Discount() {
				return nil, fmt.Errorf("%w: %sgames[%d] has (N, S, γ) = (%d, %d, %v), games[0] has (%d, %d, %v): MAML games must share players, states, actions and discount", icrl.ErrInvalid,
					where, k, g.Players(), g.States(), g.Discount(), g0.Players(), g0.States(), g0.Discount())
			}
			for i := range g.Players() {
				if g.Actions(game.Player(i)) != g0.Actions(game.Player(i)) {
					return nil, fmt.Errorf("%w: %sgames[%d] gives player %d %d actions, games[0] gives %d", icrl.ErrInvalid, where, k, i, g.Actions(game.Player(i)), g0.Actions(game.Player(i)))
				}
			}
		}
		pgs[k] = pg
	}
	if err := potCheckLogits(games[0], th, where); err != nil {
		return nil, err
	}
	return pgs, nil
}

// inner runs T steps of policy gradient ascent (44) θ ← θ + α∇Φ(θ) from
// theta and returns Φ(θ^{(T)}) and, if wantGrad, the meta-gradient
// (Π_{t=0}^{T−1}(I + α∇²Φ(θ^{(t)}))) ∇Φ(θ^{(T)}) by a backward pass, the
// t = 0 factor leftmost (the paper's (10) and (46) leave the order open).
func (pg *potGame) inner(theta []float64, alpha float64, T int, wantGrad bool) (float64, []float64, error) {
	x := append([]float64(nil), theta...)
	gbuf := make([]float64, pg.P)
	var states []*potState
	if wantGrad {
		states = make([]*potState, T)
	}
	st := pg.newState()
	for t := range T {
		if err := pg.eval(st, x); err != nil {
			return 0, nil, err
		}
		pg.grad(st, gbuf)
		floats.AddScaled(x, alpha, gbuf)
		if wantGrad {
			states[t] = st
			st = pg.newState()
		}
	}
	for k, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, nil, fmt.Errorf("%w: inner policy gradient ascent produced a non-finite parameter %d", icrl.ErrNotFinite, k)
		}
	}
	if err := pg.eval(st, x); err != nil {
		return 0, nil, err
	}
	phi := pg.phi(st)
	if !wantGrad {
		return phi, nil, nil
	}
	v := make([]float64, pg.P)
	pg.grad(st, v)
	hv := gbuf
	for t := T - 1; t >= 0; t-- {
		if err := pg.hvp(states[t], v, hv); err != nil {
			return 0, nil, err
		}
		floats.AddScaled(v, alpha, hv)
	}
	return phi, v, nil
}

// potMAML runs inner on every game, the games split over
// runtime.GOMAXPROCS(0) goroutines, and returns the per-game results in
// game order (so sums do not depend on the split). where prefixes error
// messages.
func potMAML(pgs []*potGame, theta []float64, alpha float64, T int, wantGrad bool, where string) ([]float64, [][]float64, error) {
	M := len(pgs)
	phis := make([]float64, M)
	grads := make([][]float64, M)
	err := parallel.For(M, func(k int) error {
		var err error
		phis[k], grads[k], err = pgs[k].inner(theta, alpha, T, wantGrad)
		if err != nil {
			return fmt.Errorf("%w: %sgames[%d]: %s", icrl.ErrInvalid, where, k, strings.TrimPrefix(err.Error(), "metalearn: "))
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return phis, grads, nil
}

// MAMLObjective returns the T-step MAML objective (9)/(41) of
// multi-agent-meta-rl §4.2 over the finite task set games with the uniform
// task distribution (as in [66]; §4.2 and App. D),
//
//	F_T(θ) = (1/M) Σ_𝔾 Φ(θ^{(T)}(𝔾); 𝔾),   θ^{(0)} = θ,  θ^{(t+1)} = θ^{(t)} + α∇Φ(θ^{(t)}; 𝔾),
//
// where each inner step is the independent softmax policy gradient ascent
// (44), equal to gradient ascent on the potential of a team. T = 0 gives
// the mean potential.
//
// It returns an error if games is empty, a game is nil or not a Markov
// team, the games differ in players, actions, states or discount (the
// error names the game index), th does not match their shape or is not
// finite, α is negative or not finite, T < 0, or the inner ascent
// produces a non-finite parameter. The cost is (T+1)·M evaluations of
// O(S·J·(S+N) + S³), the games split over runtime.GOMAXPROCS(0)
// goroutines (deterministically).
func MAMLObjective[G markov.GeneralSumModel](games []G, th Logits, alpha float64, T int) (float64, error) {
	pgs, err := potCheckMAML(games, th, alpha, T, "MAMLObjective: ")
	if err != nil {
		return 0, err
	}
	phis, _, err := potMAML(pgs, th.Vector(), alpha, T, false, "MAMLObjective: ")
	if err != nil {
		return 0, err
	}
	return floats.Sum(phis) / float64(len(phis)), nil
}

// MAMLGrad returns the meta-gradient (10)/(46) of the T-step MAML
// objective [MAMLObjective],
//
//	∇F_T(θ) = (1/M) Σ_𝔾 (Π_{t=0}^{T−1} (I + α∇²Φ(θ^{(t)}(𝔾); 𝔾))) ∇Φ(θ^{(T)}(𝔾); 𝔾),
//
// with the t = 0 factor leftmost, computed without forming any
// Hessian by a backward pass of exact Hessian-vector products
// ([PotentialHVP]): v ← ∇Φ(θ^{(T)}), then v ← v + α∇²Φ(θ^{(t)})v for
// t = T−1, …, 0. This is the transposed chain-rule Jacobian of
// θ ↦ θ^{(T)}, which is correct because the Hessians are symmetric. The
// LU factorisations of the forward pass are kept for the backward pass.
//
// It returns an error as [MAMLObjective] does. The cost is M·(T+1)
// evaluations of O(S·J·(S+N) + S³) plus M·T products of O(S·J·(S+N) + S²),
// and O(T·(S² + S·J) + P) memory per game, the games split over
// runtime.GOMAXPROCS(0) goroutines (deterministically).
func MAMLGrad[G markov.GeneralSumModel](games []G, th Logits, alpha float64, T int) ([]float64, error) {
	pgs, err := potCheckMAML(games, th, alpha, T, "MAMLGrad: ")
	if err != nil {
		return nil, err
	}
	_, grads, err := potMAML(pgs, th.Vector(), alpha, T, true, "MAMLGrad: ")
	if err != nil {
		return nil, err
	}
	out := make([]float64, pgs[0].P)
	for _, gk := range grads {
		floats.Add(out, gk)
	}
	floats.Scale(1/float64(len(grads)), out)
	return out, nil
}

// MAMLStep returns the meta-parameter after one outer MAML step (47),
//
//	θ^{k+1} = θ^k + η ∇F_T(θ^k),
//
// full-batch over games, with the meta-gradient of [MAMLGrad]. Theorem 4
// takes η = 1/L_F and the inner step of Lemma 14; those step sizes are
// impractically small for T > 1 (L_F grows as 2^{2T}), and Lemma 14's α
// exceeds the 1/L_G its own proof needs when γA_max < 3, so both are
// parameters: use
// [CheckMAMLStepSizes] to ask for the guaranteed regime.
//
// It returns an error as [MAMLGrad] does, or if η is not positive and
// finite. The cost is that of [MAMLGrad].
func MAMLStep[G markov.GeneralSumModel](games []G, th Logits, alpha, eta float64, T int) (Logits, error) {
	if !(eta > 0) || math.IsInf(eta, 0) {
		return nil, fmt.Errorf("%w: MAMLStep: outer step size η = %v must be positive and finite", icrl.ErrInvalid, eta)
	}
	grad, err := MAMLGrad(games, th, alpha, T)
	if err != nil {
		return nil, err
	}
	next := th.Clone()
	k := 0
	for _, t := range next {
		for a := range t {
			t[a] += eta * grad[k]
			k++
		}
	}
	return next, nil
}
