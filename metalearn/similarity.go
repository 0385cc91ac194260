package metalearn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/markov"
)

// This file implements the task-similarity measure Δ_Φ (8) of
// multi-agent-meta-rl for sequences of Markov potential games.

// DeltaPhi returns the task-similarity measure (8) of multi-agent-meta-rl
// for a sequence of episodic Markov teams,
//
//	Δ_Φ = Σ_{k=1}^{K−1} max_π (Φ(π; 𝔾^k) − Φ(π; 𝔾^{k+1})),
//
// with the potential Φ(π; 𝔾) = V^π_1(s_1) of a team (its common value from
// the start state; §2, §1.8). Because Φ depends on an additive
// constant that is not computable from the rewards of a general Markov
// potential game, DeltaPhi is restricted to teams, and to teams
// with identical transitions: then Φ(π; 𝔾^k) − Φ(π; 𝔾^{k+1}) is the value
// of π under the reward r_k − r_{k+1}, and its maximum over product Markov
// policies is the optimum of a single-agent MDP on joint actions, attained
// by a deterministic joint Markov policy, which is a product policy. It is
// computed by backward induction,
//
//	W_h(s) = max_j (r_{k,h}(s, j) − r_{k+1,h}(s, j) + Σ_{s'} P_h(s'|s, j) W_{h+1}(s')),  W_H ≡ 0,
//
// and is 0 for K ≤ 1. Each term is ≥ Φ(π; 𝔾^k) − Φ(π; 𝔾^{k+1}) for any π,
// which is what the warm-start telescoping in the proof of Theorem 3 uses.
//
// The games are *markov.Episodic tables or any markov.EpisodicModel
// (tabulated once each by markov.TabulateEpisodic). It returns an error if
// a game is nil or not a team, or the games do not
// share players, actions, states, horizon, start state and transitions (the
// error names the game index). The cost is O(K·H·S·J·S).
func DeltaPhi[G markov.EpisodicModel](models []G) (float64, error) {
	games := make([]*markov.Episodic, len(models))
	for k, m := range models {
		if nilness.Is(m) {
			return 0, fmt.Errorf("%w: DeltaPhi: games[%d] is nil", icrl.ErrNil, k)
		}
		g, err := tabulate(fmt.Sprintf("DeltaPhi: games[%d]", k), m)
		if err != nil {
			return 0, err
		}
		games[k] = g
		if !g.Cooperative() {
			return 0, fmt.Errorf("%w: DeltaPhi: games[%d] is not a Markov team (Δ_Φ needs the potential, known only for teams)", icrl.ErrInvalid, k)
		}
		if k > 0 {
			if err := potSameEpisodic(games[0], g, k); err != nil {
				return 0, err
			}
		}
	}
	var delta float64
	for k := 0; k+1 < len(games); k++ {
		a, b := games[k], games[k+1]
		delta += potEpisodicOptimum(a, func(h, s, j int) float64 {
			return a.StepReward(h, s, j, 0) - b.StepReward(h, s, j, 0)
		})
	}
	return delta, nil
}

// potSameEpisodic returns an error naming games[k] if g differs from g0 in
// its players, actions, states, horizon, start state or transitions.
func potSameEpisodic(g0, g *markov.Episodic, k int) error {
	if g.Players() != g0.Players() || g.States() != g0.States() || g.Horizon() != g0.Horizon() || g.Start() != g0.Start() {
		return fmt.Errorf("%w: DeltaPhi: games[%d] has (N, S, H, start) = (%d, %d, %d, %d), games[0] has (%d, %d, %d, %d)", icrl.ErrInvalid,
			k, g.Players(), g.States(), g.Horizon(), g.Start(), g0.Players(), g0.States(), g0.Horizon(), g0.Start())
	}
	for i := range g.Players() {
		if g.Actions(game.Player(i)) != g0.Actions(game.Player(i)) {
			return fmt.Errorf("%w: DeltaPhi: games[%d] gives player %d %d actions, games[0] %d", icrl.ErrInvalid, k, i, g.Actions(game.Player(i)), g0.Actions(game.Player(i)))
		}
	}
	for h := range g.Horizon() {
		for s := range g.States() {
			for j := range g.NumJoint() {
				p, p0 := g.StepTransition(h, s, j), g0.StepTransition(h, s, j)
				for s2 := range p {
					if p[s2] != p0[s2] {
						return fmt.Errorf("%w: DeltaPhi: games[%d] has transition P_%d(%d|%d, joint %d) = %v, games[0] has %v: Δ_Φ needs identical transitions", icrl.ErrInvalid,
							k, h, s2, s, j, p[s2], p0[s2])
					}
				}
			}
		}
	}
	return nil
}

// potEpisodicOptimum returns max over deterministic joint Markov policies
// of the value from g's start state under the reward r(h, s, j) and g's
// transitions, by backward induction in O(H·S·J·S).
func potEpisodicOptimum(g *markov.Episodic, r func(h, s, j int) float64) float64 {
	S := g.States()
	next := make([]float64, S)
	cur := make([]float64, S)
	for h := g.Horizon() - 1; h >= 0; h-- {
		for s := range S {
			best := math.Inf(-1)
			for j := range g.NumJoint() {
				best = max(best, r(h, s, j)+floats.Dot(g.StepTransition(h, s, j), next))
			}
			cur[s] = best
		}
		next, cur = cur, next
	}
	return next[g.Start()]
}
