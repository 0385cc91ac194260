// Package markov implements tabular Markov games: discounted two-player
// zero-sum games (the setting of in-context-games-omd) and finite-horizon
// N-player games, zero-sum, cooperative (potential) and general-sum (the
// setting of multi-agent-meta-rl); simulators with bandit feedback; exact
// solutions; policy evaluation, best responses, and NE and CCE gaps.
package markov
