// Package metalearn implements meta-learning across similar Markov games,
// the algorithms of Mao, Qiu, Wang, Franke, Kalbarczyk, Iyer and Başar,
// "Multi-Agent Meta-Reinforcement Learning: Sharper Convergence Rates with
// Task Similarity" (NeurIPS 2023). Games are the tabular, exact-model
// games of package markov; everything is full-information: the algorithms
// see the exact Q-functions the paper's Section 2 assumes an oracle gives.
//
// # Start here
//
// [RunSequence] runs a sequence of similar games with a base algorithm and
// a meta-update: [ZeroSumOOMD] with [ZeroSumAverage] for zero-sum games,
// [QAscent] with [WarmStart] for potential games, [GeneralSumOOMD] with
// [GeneralSumAverage] for CCE. ExampleRunSequence shows the loop.
//
// # Interfaces
//
// [Algorithm] (a base algorithm that accepts an initialisation and returns a
// result) and [Meta] (a rule that turns earlier results into the next
// initialisation) are what [RunSequence] consumes, generic over the game,
// initialisation and result types. They are not the bandit protocol of
// package learner: these algorithms see the game's exact model (full
// information) and run a whole game per call, so a learner.Learner, which
// sees one bandit round at a time, does not plug in here; the two meet in
// the games, which both play (play.Run plays any game.Multiplayer), and
// in a meta-learned initialisation (the policies a [Meta] hands out, or
// [SoftmaxPolicies] of MAML's logits), which starts a learner through
// learner.WarmStarter (OMD.WarmStart projects it and keeps it by entering
// its schedule late).
//
// Every function takes a model, never a concrete table: the episodic
// algorithms ([ZeroSumOOMD], [GeneralSumOOMD], [QAscent], the meta-updates,
// the certified policies, [DeltaPhi]) take a markov.EpisodicModel, the
// discounted ones ([SoftmaxPG], [MAMLStep] and the other MAML functions,
// [Potential] and its derivatives, [QAscentDiscounted]) a
// markov.GeneralSumModel. A caller's own game, a plain struct with its
// players, states, actions, rewards, transitions and horizon or discount,
// enters them without building markov tables (markov.TabulateEpisodic and
// markov.Tabulate read it once per call; a table is used as it is), and the
// same struct can be the simulator of play.Run. The [Algorithm]
// adapters are generic in the game type: ZeroSumAlgorithm[*markov.Episodic]
// for tables, ZeroSumAlgorithm[MyGame] for a caller's.
//
// # Base algorithms (inner stage, eq. (1))
//
//   - [ZeroSumOOMD]: Algorithm 1, optimistic online mirror descent with
//     stage-based value updates for two-player zero-sum episodic games
//     (paper §3.1). The stage schedule is [NewSchedule]
//     (L_1 = H, L_{τ+1} = ⌊(1+1/H)L_τ⌋, Algorithm 1); each stage starts from
//     its own initialisation ([Staged]); the hindsight best responses (3),
//     (14) are recorded at each stage end; the output is the average policy.
//     [Theorem1Bound] evaluates the init-dependent bound of Theorem 1.
//   - [GeneralSumOOMD]: Algorithm 2, its N-player general-sum form for
//     coarse correlated equilibria (paper §5, App. E.1), and
//     the Algorithm 3 output policy ([CertifiedPolicy], with a Monte Carlo
//     executor) with its certified CCE-gap ([CertifiedCCEGap], App. E)
//     and the bound of Theorem 5 ([Theorem5Bound]).
//   - [QAscent] and [QAscentDiscounted]: independent projected Q-ascent (7)
//     for Markov potential games, in the finite-horizon form of the
//     paper's simulations and the discounted form of its theory (paper
//     §4.1 and App. C).
//   - Softmax policy gradients of Markov teams ([Potential],
//     [PotentialGrad] (45), [PotentialHessian]: Lemma 15 with its fourth
//     term corrected (see Corrections below), and [PotentialHVP]: exact Hessian-vector products by
//     forward-mode differentiation of the gradient, O(S·J·(S+N) + S²) with
//     one LU factorisation) and MAML ([MAMLObjective], [MAMLGrad],
//     [MAMLStep], eqs. (46)–(47), paper §4.2 and App. D). [LemmaConstants],
//     [CheckMAMLStepSizes] and [CheckQAscentStepSize] give the constants of
//     Lemmas 12–14 and Proposition 1 and reject step sizes outside the
//     guaranteed regime.
//
// # Meta-learning (outer stage, eq. (2))
//
// [RunSequence] plays a sequence of games with any [Algorithm] (a base
// algorithm that accepts an initialisation) and any [Meta] (a rule that
// turns earlier results into the next initialisation); [Fixed] is
// individual learning, the baseline. The meta-updates of the paper are
// [ZeroSumAverage] (eq. (5): the running average of α-greedy hindsight best
// responses), [GeneralSumAverage] (Theorem 6), [WarmStart] (paper §4.1) and
// [MAMLMeta] (one MAML step (47) per game, for [SoftmaxPGAlgorithm], the inner
// stage (44)).
// [DeltaMuNu], [DeltaPi] and [DeltaPhi] measure task similarity (paper
// §3.2, §4.2 and §5).
//
// # Generators
//
// markov.PerturbedEpisodic and markov.TwoStateKernel build the
// families of App. F.1–F.2; [Tracking] and [PerturbedTracking] build the
// 4-player linear-quadratic tracking game of App. F.3 (625 states, 81 joint
// actions) and its potential. The paper's Table 1 (the zero-sum base
// rewards) is missing from its text and Table 2 lacks the (a_1, b_1) entry
// of its second state: no function here invents them; examples/metalearn uses clearly labelled
// placeholders.
//
// # Corrections of the paper
//
// Where the paper's printed form cannot be run as written, this package
// departs from it, and the doc comment of the function concerned says so:
//
//   - the min-player's update in Algorithm 1, lines 5–6, is printed as an
//     argmax, which would maximise the max-player's payoff; it uses the
//     negated gradient (argmin), which agrees with eq. (14);
//   - the stage condition of Algorithm 1, line 7, lost its minus sign and
//     reads t − t^start_τ + 1 ≥ L_τ here;
//   - line 10 overwrites the played policies with the stage reset; the two
//     are kept apart, as App. B.2 confirms;
//   - the per-stage reset is the default, as the analysis needs, and warm
//     stages are an option outside the theory;
//   - the best response in hindsight (3) has ties (always at stage 1): the
//     KL-minimal maximiser is used;
//   - Algorithm 3 refers to stages before the first for early t: they are
//     clamped to stage 1, which plays the initialisation;
//   - the fourth term of Lemma 15, printed (H_12)ᵀ, has the wrong shape
//     when players have different action counts; it is
//     (1/(1−γ)) Σ d ∇_{θ_i}Q ∇ᵀ_{θ_j} log π, checked against finite
//     differences;
//   - the order of the product in (10) and (46) is not given: t = 0 is
//     leftmost;
//   - Lemma 14's MAML step α = (1−γ)³/(2NγA_max) exceeds the 1/L_G its
//     proof needs when γA_max < 3: it is capped at 1/L_G;
//   - the α-greedy parameter 1/√K of Theorem 2 leaves the required range
//     (0, 1/2) for K ≤ 4: it defaults to min(1/√K, 0.49).
//
// # Conventions
//
// Steps, players, states and actions are 0-based as in package markov
// (step h is the paper's h+1); iterations t and stages are reported
// 1-based in [Stage] as in the paper. Functions validate their inputs and
// return errors that name the bad value. Results are deterministic; no
// function keeps global state, and all are safe for concurrent use on
// distinct arguments.
//
// # Errors
//
// Every function fed caller data (games, initialisations, step sizes,
// horizons, checkpoints) validates it and returns an error that names the
// bad value and wraps one of [icrl.ErrInvalid] (a size, range or shape is
// wrong, including a schedule past [MaxStages] stages), [icrl.ErrNotFinite] (a NaN or infinite value) or [icrl.ErrNil] (a nil
// game, learner, meta-update or random source); test with errors.Is.
// Nothing panics on caller data; the few functions that panic on a
// programming error (an index out of range in a hot loop) say so in their
// doc comment.
//
// # References
//
//   - W. Mao, H. Qiu, C. Wang, H. Franke, Z. Kalbarczyk, R. K. Iyer and
//     T. Başar, "Multi-Agent Meta-Reinforcement Learning: Sharper
//     Convergence Rates with Task Similarity", Advances in Neural
//     Information Processing Systems 36 (NeurIPS 2023),
//     https://papers.nips.cc/paper_files/paper/2023/hash/d1b1a091088904cbc7f7faa2b45c8f36-Abstract-Conference.html.
//     Section,
//     equation, algorithm, lemma and appendix numbers in this package are
//     this paper's.
//   - D. Ding, C.-Y. Wei, K. Zhang and M. Jovanović, "Independent Policy
//     Gradient for Large-Scale Markov Potential Games", ICML 2022, arXiv
//     2202.04129 (the projected Q-ascent (7)).
//   - E. Hazan, "Introduction to Online Convex Optimization", 2016, §5.4.2
//     (the entropic mirror step of Lemma 18).
package metalearn
