// Package bandit implements the stochastic and linear bandit protocol and
// its learners with optimistic values: what the non-stationary bandits of
// package nonstationary play, and what their MALG and MASTER wrappers
// compare across scales.
//
// # Interfaces
//
// A [Learner] picks one of the arms offered at round t (K arms, or a set
// of feature vectors for a linear bandit), observes that arm's reward and
// reports an optimistic value f̃_t, the auxiliary quantity of Wei and Luo
// (2021, Assumption 1). A [Factory] makes fresh learners for the wrappers
// that restart them. [Env] is the bandit environment as a harness plays
// it (a horizon, the action set of each round, a reward draw) and
// [OracleEnv] one that also knows the mean rewards, from which dynamic
// regret and the labels of decision-pretrained transformers are computed.
// The game learners of package learner are a different protocol: a game
// round has no action set and no optimistic value.
//
// # Learners (one file each)
//
//   - [UCB1] (ucb.go): Auer, Cesa-Bianchi and Fischer (2002), with Wei and
//     Luo's ρ function [RhoUCB1].
//   - [LinUCB] (linucb.go): Li, Chu, Langford and Schapire (2010).
//   - [OFUL] (oful.go): Abbasi-Yadkori, Pál and Szepesvári (2011), with
//     [RhoOFUL].
//   - [LinTS] (lints.go): linear Thompson sampling (Agrawal and Goyal
//     2013), its optimistic value chosen by [AuxRule].
//
// The linear learners share a ridge state (ridge.go) that keeps V⁻¹ by
// rank-one updates, O(d²) per round; no learner allocates per round. A
// learner is not safe for concurrent use.
//
// # Errors
//
// Constructors and Observe return errors that name the bad field or value
// and wrap one of [icrl.ErrInvalid], [icrl.ErrOutOfRange], [icrl.ErrNotFinite],
// [icrl.ErrShape] or [icrl.ErrTooLarge] (tables past [icrl.MaxEntries], checked before
// anything is allocated): the module's shared sentinels of package icrl,
// so errors.Is matches them whichever package reported the error.
//
// # References
//
// Auer, Cesa-Bianchi and Fischer (2002), "Finite-time analysis of the
// multiarmed bandit problem", Machine Learning 47. Li, Chu, Langford and
// Schapire (2010), "A contextual-bandit approach to personalized news
// article recommendation", WWW 2010. Abbasi-Yadkori, Pál and Szepesvári
// (2011), "Improved algorithms for linear stochastic bandits", NeurIPS
// 2011. Agrawal and Goyal (2013), "Thompson sampling for contextual
// bandits with linear payoffs", ICML 2013. Wei and Luo (2021),
// "Non-stationary reinforcement learning without prior knowledge: an
// optimal black-box approach", COLT 2021, arXiv 2102.05406.
// nonstationary-transformers-master: Chen, Ito and Imaizumi, "Optimal
// Dynamic Regret by Transformers for Non-Stationary Reinforcement
// Learning", NeurIPS 2025, arXiv 2508.16027.
package bandit
