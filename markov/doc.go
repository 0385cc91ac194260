// Package markov implements tabular Markov games: discounted two-player
// zero-sum games (the setting of in-context-games-omd) and finite-horizon
// N-player games, zero-sum, cooperative (potential) and general-sum (the
// setting of multi-agent-meta-rl); simulators with bandit feedback; exact
// solutions; policy evaluation, best responses, and NE and CCE gaps.
//
// # Discounted zero-sum games
//
// [Discounted] is the two-player zero-sum discounted game of
// in-context-games-omd §3.1 (spec §1.2, with γ restored in Q, resolution
// A13); the row player maximises and policies are [Stationary] tables
// [s][a]. The evaluation primitives of spec §2.8:
//
//   - [Discounted.Evaluate]: V^{x,y} = (I − γP_xy)⁻¹ r_xy by an LU solve.
//   - [Discounted.BestResponse]: the best response to a fixed stationary
//     opponent, by policy iteration on the induced MDP.
//   - [Discounted.Gap]: the per-state duality gap V^{†,y}(s) − V^{x,†}(s)
//     and its maximum, the Markov exploitability of spec §1.6.
//   - [ShapleyValueIteration]: V* and a stationary equilibrium by Shapley's
//     (1953) value iteration V(s) ← val(r_s + γP_sV), a stage LP
//     (game.Solve) per state.
//   - [MaxHittingTime]: the constant L of Assumption 4.2.
//
// [RandomDiscounted] and [PerturbedDiscounted] generate games: the latter is
// the family of "similar" games of the paper's Markov experiments (§5).
package markov
