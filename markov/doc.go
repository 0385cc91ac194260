// Package markov implements tabular Markov games: discounted two-player
// zero-sum games (the setting of in-context-games-omd) and finite-horizon
// N-player games, zero-sum, cooperative (potential) and general-sum (the
// setting of multi-agent-meta-rl); simulators with bandit feedback; exact
// solutions; policy evaluation, best responses, and NE and CCE gaps.
//
// # Start here
//
// [NewDiscounted] (or [RandomDiscounted]) builds a discounted zero-sum
// game, which implements game.Game, game.Model and game.NoiseModel, so the
// learners, self-play and in-context pipeline of the module play it as they
// play a matrix game; [ShapleyValueIteration] solves it. [NewEpisodic]
// and [NewZeroSumEpisodic] build the finite-horizon N-player games that
// package metalearn learns across. Reward and transition tables are
// tensor.Dense arrays; transitions enter every constructor as kernels
// ([NewDenseKernel], [DenseKernels] for a table).
//
// # Discounted zero-sum games
//
// [Discounted] is the two-player zero-sum discounted game of
// in-context-games-omd §3.1 (with the discount γ restored in Q, which the
// paper's definition omits); the row player maximises and policies are
// [Stationary] tables [s][a]. The evaluation primitives:
//
//   - [Discounted.Evaluate]: V^{x,y} = (I − γP_xy)⁻¹ r_xy by an LU solve.
//   - [Discounted.BestResponse]: the best response to a fixed stationary
//     opponent, by policy iteration on the induced MDP.
//   - [Discounted.Gap]: the per-state duality gap V^{†,y}(s) − V^{x,†}(s)
//     and its maximum, the Markov exploitability of in-context-games-omd
//     §3.2 and its experiments.
//   - [ShapleyValueIteration]: V* and a stationary equilibrium by Shapley's
//     (1953) value iteration V(s) ← val(r_s + γP_sV), a stage LP
//     (game.Solve) per state.
//   - [MaxHittingTime]: the constant L of Assumption 4.2.
//
// [RandomDiscounted] and [PerturbedDiscounted] generate games: the latter is
// the family of "similar" games of the paper's Markov experiments (§5).
//
// # Finite-horizon N-player games
//
// [Episodic] is the episodic N-player game 𝔾 = (N, H, S, {A_i}, {r_i}, P) of
// multi-agent-meta-rl §2 with a fixed start state, built by
// [NewEpisodic] (general-sum rewards, or one shared reward: a Markov team,
// which is a Markov potential game with the common value as potential, §2)
// or [NewZeroSumEpisodic] (r₂ = −r₁, the paper's zero-sum case; a
// constant-sum game such as r₂ = 1 − r₁ is zero-sum too,
// [Episodic.ConstantSum]), or read from a caller's own [EpisodicModel] by
// [TabulateEpisodic]. Steps are 0-based (step h is the
// paper's h+1) and joint actions are flat indices ([Episodic.Joint],
// [Episodic.Split]). Policies are Markov: [Policy] per player, [Product] for
// all players, [Correlated] for a joint distribution per step and state.
//
//   - [Episodic.Values]: V_{h,i}^π by backward recursion (V_{H} ≡ 0).
//   - [Episodic.BestResponse]: a deterministic Markov best response by
//     backward induction (optimal against Markov opponents).
//   - [Episodic.NEGap], [Episodic.ZeroSumNEGap] (V^{†,ν} − V^{μ,†}, the
//     NE-gap of §3), [Episodic.CoopNEGap] (the App. F.2 metric).
//   - [Episodic.SolveZeroSum]: V*, Q* and equilibrium policies by backward
//     induction with a stage LP per (h, s).
//   - [Episodic.CCEGap] and [Episodic.CertifiedCCEGap]: the exact
//     best-response gap of a Markov correlated policy and the certified bound
//     max_i Σ_σ w_σ (W_{1,i} − V_{1,i}) of multi-agent-meta-rl's Algorithm 3
//     output (App. E), which can be negative for genuinely correlated
//     policies.
//
// [RandomEpisodic], [TwoStateKernel] (the 0.9/0.1 rule of App. F.1) and
// [PerturbRewards] (reward perturbations N(0, σ²) of App. F.1/F.2) generate
// games. The paper's base reward tables (its Table 1) are missing from its
// text; no function here invents them.
//
// # Discounted N-player games
//
// [DiscountedGeneralSum] is the infinite-horizon discounted N-player game of
// multi-agent-meta-rl Appendix C, with an initial distribution
// ρ, built by [NewDiscountedGeneralSum] (with an S × J shared reward, a
// Markov team: the potential games on which package metalearn runs softmax
// policy gradients and MAML), drawn by [RandomDiscountedCooperative], or
// read from a caller's own [GeneralSumModel] by [Tabulate].
// Policies are Stationary per player; [DiscountedGeneralSum.Values] solves
// (I − γP_π)V = r_π once for all players, [DiscountedGeneralSum.Visitation]
// returns the discounted state occupancy d_ρ^π, and
// [DiscountedGeneralSum.NEGap] the metric max_i (V_i^{†,π_{−i}} − V_i^π)
// at ρ of the paper's Appendix D.1, [DiscountedGeneralSum.CCEGap] the
// same gap of a correlated stationary policy (a distribution over joint
// actions per state), the measure of no-regret play; [NEGap] and [CCEGap]
// take any [GeneralSumModel]. A DiscountedGeneralSum is also a
// game.Multiplayer (Start draws from ρ, Play returns the table's rewards
// and draws the next state), so the rollout engine play.Run plays it.
//
// # Models: a caller's own game
//
// [GeneralSumModel] (discounted) and [EpisodicModel] (finite horizon) read
// a game through its parts; the tables implement them and [Tabulate] and
// [TabulateEpisodic] read any implementation into a table. Their Players,
// States and Actions(game.Player) are the methods of game.Multiplayer, so
// one plain struct of a caller can be the simulator, the discounted model
// and the episodic model at once, and enter the engine, the gap functions
// and every algorithm of package metalearn without a wrapper.
//
// # Transition kernels
//
// Every game of the package holds its transitions as a [Kernel], the
// law P(s'|s, j) of one step behind four methods: its shape, the backup
// [Kernel.Expect] of m value vectors for all states and joint actions at
// once, the support of one row and one sample. Evaluations, best
// responses, gaps, Shapley value iteration and the simulators use only
// these (and [AddRow], which adds a scaled row to a dense vector), so a
// game's memory and time follow its kernel:
//
//   - [DenseKernel]: the S·J·S table, built by [NewDenseKernel] from a
//     tensor.Dense; fastest when most transitions are non-zero.
//   - [SparseKernel]: compressed sparse rows, O(S·J + nnz) memory and
//     O(nnz) a backup ([SparseFrom] converts any kernel).
//   - [ProductKernel]: players that move independently, each on its own
//     local states with its own local law; the state is the tuple of local
//     states. Memory is the local laws' and a backup contracts one player
//     at a time: the 4-player tracking game of multi-agent-meta-rl App. F.3
//     (625 states, 81 joint actions) takes a few kB instead of 253 MB.
//
// [NewEpisodic], [NewZeroSumEpisodic], [NewDiscountedGeneralSum] and
// [NewDiscounted] build games on any kernel, including a caller's own
// implementation of the interface. The kernels of one law agree to
// round-off (the tests hold them to 1e-12), and Sample inverts the
// cumulative distribution in state order, so the same random stream draws
// the same trajectory whatever the representation.
//
// # Conventions
//
// Constructors validate shapes, finiteness and probabilities (rows sum to 1
// within 1e-9) and return errors that name the bad entry; functions that take
// policies validate them. Simulators draw from an explicit *rand.Rand. Games
// are immutable and safe for concurrent use; the evaluation routines split
// states across goroutines deterministically, so results do not depend on
// GOMAXPROCS.
//
// # Errors
//
// Constructors and solvers fed caller data return an error that names the
// bad entry and wraps one of [icrl.ErrEmpty] (a nil or zero game, or none of a
// dimension), [icrl.ErrShape], [icrl.ErrNotFinite], [ErrKernel] (a malformed
// transition law), [icrl.ErrInvalid] (a discount, tolerance, state or player
// out of range), [icrl.ErrTooLarge] (a game past 2^34 stored entries, checked
// before allocating) or [icrl.ErrNilRand] (a nil random source, which is also an [icrl.ErrNil]); iterative solvers
// that stop at their limit wrap [ErrNoConvergence]. Test with errors.Is.
// Simulator methods on hot paths (Step) panic with a "markov: " message on
// an out-of-range state or action, as documented on each.
//
// # References
//
//   - "Provable Strategic In-Context Learning of Transformers", anonymous
//     ICLR 2026 submission, OpenReview cCm2EX7MUb (the discounted zero-sum setting).
//   - W. Mao, H. Qiu, C. Wang, H. Franke, Z. Kalbarczyk, R. K. Iyer and
//     T. Başar, "Multi-Agent Meta-Reinforcement Learning: Sharper
//     Convergence Rates with Task Similarity", NeurIPS 2023 (the episodic
//     N-player setting, NE and CCE gaps; see package metalearn for the
//     proceedings link).
//   - L. S. Shapley, "Stochastic Games", PNAS 39(10), 1953 (Shapley value
//     iteration).
package markov
