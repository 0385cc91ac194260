// Package learner implements learning dynamics for repeated games with
// bandit feedback: the [Learner] and [Policy] interfaces, online mirror
// descent on the truncated simplex (in-context-games-omd §4.1), optimistic
// and plain multiplicative weights, Exp3-IX, regret matching and RM+, and
// [SelfPlay], which pits two learners against each other in a zero-sum game.
//
// Every learner maximises rewards in [0,1] and sees only its own action and
// reward (uncoupled bandit feedback); in a zero-sum game the column player is
// fed one minus the row player's reward. Learners are not safe for
// concurrent use; use one per goroutine.
package learner
