// Package learner implements learning dynamics for repeated games with
// bandit feedback: the learner side of the module's composable core, and
// the learners of in-context-games-omd and its classical baselines.
// Package learner/play is the rollout engine that plays them against each
// other, package learner/schedule holds OMD's step-size schedules, package
// learner/bandit the stochastic and linear bandit protocol, and package
// learner/incontext the transformer that plays in context.
//
// # Interfaces
//
// This package defines the learner side of the module's composable core
// (the game side is game.Game, consumed here):
//
//   - [Learner] plays one side of a game with states under uncoupled bandit
//     feedback (in-context-games-omd §1.3, §3.1): it sees the state, its
//     own action and reward and the next state. A matrix game is the
//     one-state case, so the same learner, harness and pipeline serve
//     matrix and Markov games; no adapter sits between them.
//   - [FullInformationLearner] is a one-state Learner that can also observe
//     the reward of every action.
//   - [JointLearner] (two players) and [ProfileLearner] (N players) opt in
//     to the joint-action observation: the others' actions as well as the
//     learner's own.
//   - [WarmStarter] is a Learner that starts from given policies: the
//     hand-over of a meta-learned initialisation (package metalearn) to an
//     online learner. [OMD.WarmStart] projects the start onto its feasible
//     set and enters its schedule after [DefaultWarmVisits] visits, so the
//     early large steps do not throw a good start away.
//   - [HistoryPolicy] maps a player's own history and current state to a
//     distribution, the algorithm Alg(·|D_{t−1}, s_t) of §3.2; learners
//     that are deterministic functions of their history ([OMD]) are
//     Policies, and serve the in-context pipeline (package
//     learner/incontext) as experts.
//
// Every learner maximises rewards in [0,1]. In a zero-sum game the row
// player is fed the row reward r_t and the column player 1 − r_t
// (game.AsMultiplayer writes this once, for the rollout engine).
//
// # Learners (one file each)
//
//   - [OMD] (omd.go): online mirror descent with the
//     squared-Euclidean regulariser on the truncated simplex: Alg_OMD of
//     in-context-games-omd §4.1 in a matrix game and Algorithm 1 of §4.3
//     (per state a policy updated on the target q = r + γV(s'), visit
//     counts and a value estimate) in a Markov game, the matrix game being
//     its one-state, γ = 0 case. The default schedule is Cai et al.'s
//     (2023) exponents per visit ([schedule.Cai]); the paper's schedule
//     ([schedule.Paper], which provably does not move the policy) and its
//     printed sign ([PrintedSign], which diverges) are options, kept to
//     reproduce the paper's errors.
//   - [PerState] (perstate.go): one one-state learner per state, on
//     immediate rewards, a myopic baseline for Markov games.
//   - [MWU] and [OptimisticMWU] (mwu.go): multiplicative weights / Hedge
//     (Littlestone and Warmuth 1994; Freund and Schapire 1997), with
//     importance-weighted estimates and an exploration floor under bandit
//     feedback (Exp3, Auer et al. 2002), and the optimistic variant
//     (Rakhlin and Sridharan 2013; Daskalakis and Panageas 2019).
//   - [Exp3IX] (exp3.go): Exp3 with implicit exploration (Neu 2015).
//   - [RegretMatching] (regret.go): regret matching (Hart and Mas-Colell
//     2000) and RM+ (Tammelin 2014).
//
// The one-state learners (MWU, OptimisticMWU, Exp3IX, RegretMatching)
// reject states other than 0; [PerState] runs one per state of a larger
// game.
//
// Learners are not safe for concurrent use; use one per goroutine. Each
// documents its cost per observation; the classical learners (OMD, MWU,
// Exp3-IX, regret matching) do not allocate per
// step.
//
// # Errors
//
// Constructors and Observe methods fed caller data return an error that
// names the bad argument and value and wraps one of [icrl.ErrInvalid] (a
// configuration value out of its domain), [icrl.ErrOutOfRange] (a state,
// action or reward outside its range; the game learners take rewards in
// [0, 1]), [icrl.ErrNotFinite], [icrl.ErrShape] (a learner whose size does not fit
// the game), [icrl.ErrTooLarge] (tables past [icrl.MaxEntries], checked before
// anything is allocated) or [icrl.ErrNil] (a nil game, learner, factory or
// random source, including a typed nil); test with errors.Is. Learner.Policy panics on a
// state out of range (it sits in the inner loop of every run; the states
// come from the caller's own game, which Observe has validated).
//
// # References
//
// in-context-games-omd: "Provable Strategic In-Context Learning of
// Transformers", anonymous ICLR 2026 submission, OpenReview cCm2EX7MUb.
// Cai, Luo, Wei and Zheng (2023), "Uncoupled and convergent learning in
// two-player zero-sum Markov games with bandit feedback", NeurIPS 2023.
// Wei and Luo (2021), "Non-stationary reinforcement learning without prior
// knowledge: an optimal black-box approach", COLT 2021, arXiv 2102.05406.
// multi-agent-meta-rl: Mao, Qiu, Wang, Franke, Kalbarczyk, Iyer and Başar,
// "Multi-Agent Meta-Reinforcement Learning: Sharper Convergence Rates with
// Task Similarity", NeurIPS 2023. Hart and Mas-Colell (2000), "A simple
// adaptive procedure leading to correlated equilibrium", Econometrica 68.
package learner
