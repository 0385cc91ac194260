// Package control trains a transformer as an optimal control problem, the
// method of Akman, Saldı and Yüksel, "An Optimal Control Approach to
// Transformer Training" (arXiv:2603.09571, 2026). Where the paper leaves a
// detail open or prints an error, the doc comment concerned says what this
// package does and why; the list is under Corrections of the paper.
//
// # Start here
//
// [RunSection6] runs the paper's §6 experiment end to end; [NewProblem] and
// a solver ([ReachableDP], [DepthFirst], [Nested]) set up and solve the
// triply quantized dynamic programme for a
// block and data of one's own. The package consumes package quantize's
// grids and action sets and, for [TrainAdam], the Adam optimiser of package
// transformer. It defines three interfaces: [Activation] (the block's
// σ), [Solver] (what every DP solver of a [Problem] offers) and [State] (a
// quantized state of the lifted MDP, built by the Problem it belongs to).
// A trained block with its weight sequence becomes a
// transformer.Transformer with [NewTransformer] (the causal restriction of
// eq. (1)), so it plays, is evaluated and is compared through the
// in-context learners of package learner/incontext like any other model.
//
// # The model
//
// One transformer block is a discrete-time control system on N tokens
// ("particles") x^1, …, x^N ∈ R^d that share one action
// U_t = (W_t, A_t, b_t, Q_t, K_t, V_t) per layer (eq. (1)):
//
//	x^i_{t+1} = W_t σ(A_t x^i_t + b_t) + Σ_j softmax_j(β⟨Q_t x^i_t, K_t x^j_t⟩) V_t x^j_t,
//
// with no residual connection and no normalisation ([Block], [Action]).
// Token i carries the positional label p_i = i/N, which never enters the
// dynamics (eq. (1) has no positional term): the block is
// permutation-equivariant and the labels
// only say which output is compared with which target. Lifted to the
// empirical measures μ = (1/N) Σ_i δ_(p_i, x^i), a layer is the push-forward
// Φ(μ, U) = μ∘T⁻¹ of a McKean–Vlasov map (eqs. (5), (7)); for a weighted
// measure the weights enter the softmax, so that merged atoms attend as
// the tokens they replace. The ensemble of the K
// training samples' measures is the state of a deterministic finite-horizon
// MDP with terminal cost (1/K) Σ_k W²_{2,λ}(μ^k_T, ν^k) (eq. (13)), equal to
// the mean squared error when λ exceeds quantize.LambdaMin (the threshold
// N/2·diam² of Theorem 6 and Assumption 7 is too small, a counterexample is
// in the tests; λ > N²·diam² suffices, since each displaced index pays at
// least λ/N² and saves at most diam²).
//
// # Triply quantized dynamic programming (Algorithm 1)
//
// Token states are snapped to a grid S_n (a quantize.StateQuantizer, eq.
// (18)), measures to types with denominator ℓ (quantize.Reznik, or the
// position-preserving variant that is the identity whenever N divides ℓ:
// the paper's R_ℓ is Euclidean-nearest, not W_{2,λ}-nearest, and can
// move mass across positions), and actions are a finite set 𝕌_m (random nested sets as in the
// paper's experiment, or product grids). The solvers compute the optimal
// value and a closed-loop policy of the quantized MDP (eq. (30)):
// full enumeration of the quantized measure space (the literal algorithm,
// tiny problems only), dynamic programming over the states reachable from
// the data (exact at the data's initial state; line 12 of Algorithm 1 as
// printed ranges over every quantized measure, about 10^1428 ensembles in
// the paper's setting), and depth-first
// search with an optional transposition table. The policy unrolls into one
// open-loop weight sequence (Alg. 1 lines 17–24), which is deployed as an
// ordinary transformer and evaluated on held-out data, as the continuous
// block (1) without quantisation.
//
// # Refined action sets and the gradient baseline
//
// [Refine] grows the action set around the DP's optimal weights (half the
// draws local with a shrinking radius, half across the box), keeping the
// sets nested so the quantized value never increases. [Objective] is the
// continuous training error of (OP) with its exact gradient (a hand-written
// backward pass through eq. (1), finite-difference checked), and
// [TrainAdam] minimises it by projected Adam (the optimiser of package
// transformer) from random restarts in parallel: the local method the
// paper argues against, run on the same block, data and error so that the
// two can be compared (examples/control does, at equal wall time).
//
// # Corrections of the paper
//
//   - Costs are squared transport costs W², squared once: the proof of
//     Theorem 6, the unrolled display of Theorem 9 and eq. (29) mix W and
//     W², and (29)–(30) square Ŵ a second time.
//   - The terminal labels ν^k are not measures on the grid, so R_ℓ(ν^k) is
//     undefined; labels are state-quantized before R_ℓ (Algorithm 1,
//     line 6), or kept exact, selected by [TerminalMode].
//   - The atom enumeration of eq. (21) is not a bijection; the index
//     a ↔ (⌊(a−1)/|S_n|⌋+1, (a−1) mod |S_n| + 1) is used.
//   - Ties ("broken in a way to protect measurability") resolve to the
//     lowest index everywhere.
//   - Nothing keeps tokens inside the state set S without a residual
//     connection (two layers of a modest action already leave [−1, 1]²):
//     tokens that leave the grid's box are snapped and counted, or
//     rejected, or covered by per-layer grids ([OutOfGridMode]).
//   - Tables 1–2 do not say how errors are normalised: [Section6] reports
//     both per token and per sequence (N × per token).
//   - §6 leaves λ, the grid, the action distribution and the inputs open;
//     [Section6Config] documents this package's choices.
//
// # Errors
//
// Every function fed caller data (dimensions, data sets, grids, action
// sets, configs) validates it and returns an error that names the bad
// value and wraps one of [icrl.ErrInvalid] (a size, range or shape is wrong),
// [icrl.ErrNotFinite] (a NaN or infinite value) or [icrl.ErrNil] (a nil argument or
// random source), so errors.Is tells them apart; [ErrActivation] and
// [ErrNotMonotone] mark the two failures that are not bad input. Full
// enumeration, whose state space grows exponentially, is checked against
// FullEnumeration.MaxStates, and the sizes of [Section6Config] against
// [MaxEntries], before anything is allocated. Functions that
// panic on a programming error in a hot loop (mismatched lengths) say so in
// their doc comment.
//
// # References
//
//   - K. Akman, N. Saldı and S. Yüksel, "An Optimal Control Approach to
//     Transformer Training", arXiv 2603.09571, 2026. Section, equation,
//     algorithm, lemma and theorem numbers in this package are this
//     paper's.
//   - M. Reznik, "An algorithm for quantization of discrete probability
//     distributions", Data Compression Conference 2011 (the type
//     quantisation R_ℓ, in package quantize).
package control
