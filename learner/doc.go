// Package learner implements learning dynamics for repeated games with
// bandit feedback, and self-play between them.
//
// # Interfaces
//
// A [Learner] holds a mixed strategy, plays it, and observes only its own
// action and reward: uncoupled bandit feedback (in-context-games-omd §3.1).
// A [FullInformationLearner] observes the reward of every action instead. A
// [Policy] maps a history of [Step]s to a distribution over actions, the
// algorithm Alg(·|D_{t−1}) of in-context-games-omd §3.2; learners that are
// deterministic functions of their history, such as [OMD], are Policies too
// and serve later packages as experts.
//
// Every learner maximises rewards in [0,1]. In a zero-sum game the row
// player is fed the row reward r_t and the column player 1 − r_t
// ([SelfPlay] does this).
//
// # Learners
//
//   - [OMD]: online mirror descent with the squared-Euclidean regulariser on
//     the truncated simplex, in-context-games-omd §4.1 (projected online
//     gradient descent with an implicit-exploration gradient estimate). The
//     spec's loss form ([LossShift]) with Cai et al.'s (2023) schedule
//     ([CaiSchedule]: η_t = t^{−5/8}, β_t = t^{−3/8}, ε_t = t^{−1/8}) is the
//     default; the paper's schedule ([PaperSchedule], η = T^{−5/3}, which
//     provably does not move the policy) and its literal sign ([Literal],
//     which diverges) are options, kept to reproduce the paper's errors
//     (spec resolutions A1–A5).
//   - [MWU]: multiplicative weights / Hedge (Littlestone and Warmuth 1994;
//     Freund and Schapire 1997), with importance-weighted estimates and an
//     exploration floor under bandit feedback (Exp3, Auer et al. 2002).
//   - [OptimisticMWU]: optimistic multiplicative weights (Rakhlin and
//     Sridharan 2013; Daskalakis and Panageas 2019), whose last iterate
//     converges in zero-sum games with a unique equilibrium under full
//     information.
//   - [Exp3IX]: Exp3 with implicit exploration (Neu 2015, Theorem 1).
//   - [RegretMatching]: regret matching (Hart and Mas-Colell 2000) and RM+
//     (Tammelin 2014), whose average iterate converges.
//
// # Stochastic and non-stationary bandits
//
// A [BanditLearner] picks an arm of a K-armed or linear bandit (per-round
// action sets) and reports an optimistic value, the auxiliary quantity of
// Wei and Luo (2021) that the multi-scale wrappers of package nonstationary
// compare: [UCB1] (Wei and Luo's Algorithm 7; [RhoUCB1]), [LinUCB] (Li et
// al. 2010), [OFUL] (Abbasi-Yadkori et al. 2011; Wei and Luo's Algorithm 8;
// [RhoOFUL]) and linear Thompson sampling [LinTS] (Agrawal and Goyal 2013).
// The linear learners keep V⁻¹ by rank-one updates, O(d²) per round.
//
// # Markov games
//
// A [MarkovLearner] plays one side of a discounted zero-sum Markov game with
// uncoupled bandit feedback: it sees the state, its own action and reward and
// the next state. [MarkovOMD] is Algorithm 1 of in-context-games-omd §4.3 in
// the spec's corrected form (§2.4, A13): per state a policy on the truncated
// simplex updated by OMD on the target q = r + γV(s'), visit counts and its
// own value estimate V updated with rate α_τ. The per-visit Cai schedule
// ([PerVisit]) with the loss normalised by U = 1/(1−γ) is the default; the
// paper's schedule ([MarkovPaperSchedule]), which does not move the policies,
// and the raw loss U − q are options. [PerState] runs one matrix-game Learner
// per state on immediate rewards, a myopic baseline. [MarkovSelfPlay] plays
// two MarkovLearners in a markov.Discounted game and reports the Markov
// duality gap (max over states) of the last iterate at checkpoints.
//
// # In-context game playing
//
// The experiments of in-context-games-omd (§5; spec §2.6 and §4) pretrain a
// decoder transformer (package transformer) on game trajectories and let it
// play unseen games from its context alone. [Collect] rolls out a context
// algorithm on games drawn from a prior (a perturbed family), each player
// seeing only its own (state,) action and reward, and labels every round
// with an [Expert]: [NEExpert], the equilibrium the experiments used, or
// [OMDExpert], the OMD policy the theory uses (spec A10). [Encoding] turns a
// player's history into tokens (BOS, state, action, reward bin: spec A9) or
// feature vectors (the theory's embedding h(a, o), Eq. (2)); [Examples]
// builds soft- or hard-label datasets, and [Pretrain] fits one model per
// player with the objective of Eq. (1), stopping on the KL divergence to the
// expert (spec A15). [InContext] wraps any sequence model with a KV-cached
// [Decoder] as a [MarkovLearner] with no parameter updates; [SingleState]
// adapts it (or [MarkovOMD]) to matrix games, so it plays in [SelfPlay]
// next to OMD and Exp3-IX. [PlayModels] runs two trained models against
// each other in a game and reports the exploitability of their last
// iterate; [MatrixAsMarkov] makes a matrix game a one-state Markov game so
// that one pipeline serves both.
//
// # Self-play
//
// [SelfPlay] pits a row learner against a column learner in a
// game.ZeroSum for T rounds, deterministically for a given random
// source, and reports the duality gap of the last iterate (the policies
// played at round T) and of the average iterate at chosen checkpoints.
//
// Learners are not safe for concurrent use; use one per goroutine. Each
// documents its cost per observation; the classical learners (OMD, MWU,
// Exp3-IX, regret matching, UCB, LinUCB, OFUL, LinTS, MarkovOMD) do not
// allocate per step.
package learner
