// Package metalearn implements meta-learning across similar Markov games,
// the algorithms of Mao, Qiu, Wang, Franke, Kalbarczyk, Iyer and Başar,
// "Multi-Agent Meta-Reinforcement Learning: Sharper Convergence Rates with
// Task Similarity" (NeurIPS 2023), as made precise by the project's spec
// multi-agent-meta-rl.md. Games are the tabular, exact-model games of
// package markov; everything is full-information (spec §1.6).
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
// [Learner] (a base algorithm that accepts an initialisation and returns a
// result) and [Meta] (a rule that turns earlier results into the next
// initialisation) are what [RunSequence] consumes, generic over the game,
// initialisation and result types. They are not the bandit protocol of
// package learner: these algorithms see the game's exact model (full
// information) and run a whole game per call, so a learner.Learner, which
// sees one bandit round at a time, does not plug in here; the two meet in
// the games of package markov, which both play.
//
// # Base algorithms (inner stage, eq. (1))
//
//   - [ZeroSumOOMD]: Algorithm 1, optimistic online mirror descent with
//     stage-based value updates for two-player zero-sum episodic games
//     (paper §3.1, spec §2.1). The stage schedule is [NewSchedule]
//     (L_1 = H, L_{τ+1} = ⌊(1+1/H)L_τ⌋, spec §2.0); each stage starts from
//     its own initialisation ([Staged]); the hindsight best responses (3),
//     (14) are recorded at each stage end; the output is the average policy.
//     [Theorem1Bound] evaluates the init-dependent bound of Theorem 1.
//   - [GeneralSumOOMD]: Algorithm 2, its N-player general-sum form for
//     coarse correlated equilibria (paper §5, App. E.1, spec §2.5), and
//     the Algorithm 3 output policy ([CertifiedPolicy], with a Monte Carlo
//     executor) with its certified CCE-gap ([CertifiedCCEGap], spec §2.6)
//     and the bound of Theorem 5 ([Theorem5Bound]).
//   - [QAscent] and [QAscentDiscounted]: independent projected Q-ascent (7)
//     for Markov potential games, in the finite-horizon form of the
//     paper's simulations and the discounted form of its theory (paper
//     §4.1, spec §2.3).
//   - Softmax policy gradients of Markov teams ([Potential],
//     [PotentialGrad] (45), [PotentialHessian]: Lemma 15 with the spec's
//     correction E8, and [PotentialHVP]: exact Hessian-vector products by
//     forward-mode differentiation of the gradient, O(S·J·(S+N) + S²) with
//     one LU factorisation) and MAML ([MAMLObjective], [MAMLGrad],
//     [MAMLStep], eqs. (46)–(47), paper §4.2, spec §2.4). [LemmaConstants],
//     [CheckMAMLStepSizes] and [CheckQAscentStepSize] give the constants of
//     Lemmas 12–14 and Proposition 1 and reject step sizes outside the
//     guaranteed regime.
//
// # Meta-learning (outer stage, eq. (2))
//
// [RunSequence] plays a sequence of games with any [Learner] (a base
// algorithm that accepts an initialisation) and any [Meta] (a rule that
// turns earlier results into the next initialisation); [Fixed] is
// individual learning, the baseline. The meta-updates of the paper are
// [ZeroSumAverage] (eq. (5): the running average of α-greedy hindsight best
// responses), [GeneralSumAverage] (Theorem 6), [WarmStart] (paper §4.1) and
// [MAMLMeta] (one MAML step (47) per game, for [SoftmaxPGLearner], the inner
// stage (44)).
// [DeltaMuNu], [DeltaPi] and [DeltaPhi] measure task similarity (spec
// §1.8).
//
// # Generators
//
// markov.PerturbedEpisodic and markov.TwoStateTransitions build the
// families of App. F.1–F.2; [Tracking] and [PerturbedTracking] build the
// 4-player linear-quadratic tracking game of App. F.3 (625 states, 81 joint
// actions) and its potential. The paper's Table 1 (the zero-sum base
// rewards) is missing from its text and Table 2 lacks an entry (spec G1):
// no function here invents them; examples/metalearn uses clearly labelled
// placeholders.
//
// # Corrections of the paper
//
// Following the spec's §6: the min-player's update of Algorithm 1 uses the
// negated gradient (E1); played policies and the stage resets are kept
// apart (E3); the per-stage reset is the default and warm stages are an
// option outside the theory (E4); hindsight best responses are the
// KL-minimal maximisers (E5); Algorithm 3 clamps missing stages to stage 1
// (E7); the fourth term of Lemma 15 is ∇Q ∇ᵀlog π (E8); the meta-gradient
// product is taken with t = 0 leftmost (E9); the MAML inner step is capped at
// 1/L_G (E10); the α-greedy parameter defaults to min(1/√K, 0.49) (E15).
//
// # Conventions
//
// Steps, players, states and actions are 0-based as in package markov
// (step h is the paper's h+1); iterations t and stages are reported
// 1-based in [Stage] as in the paper. Functions validate their inputs and
// return errors that name the bad value. Results are deterministic; no
// function keeps global state, and all are safe for concurrent use on
// distinct arguments.
package metalearn
