// Package control trains a transformer as an optimal control problem, the
// method of Akman, Saldı and Yüksel, "An Optimal Control Approach to
// Transformer Training" (arXiv:2603.09571, 2026), as made precise by the
// project's spec optimal-control-transformer-training.md.
//
// # Start here
//
// [Section6] runs the paper's §6 experiment end to end; [NewProblem] and
// [Solve] set up and solve the triply quantized dynamic programme for a
// block and data of one's own. The package consumes package quantize's
// grids and action sets and, for [TrainAdam], the Adam optimiser of package
// transformer; it defines no interface and does not use the
// transformer.Transformer of the in-context learners (its block is the
// paper's residual-free controlled particle system, not a decoder).
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
// dynamics (spec A12): the block is permutation-equivariant and the labels
// only say which output is compared with which target. Lifted to the
// empirical measures μ = (1/N) Σ_i δ_(p_i, x^i), a layer is the push-forward
// Φ(μ, U) = μ∘T⁻¹ of a McKean–Vlasov map (eqs. (5), (7)); for a weighted
// measure the weights enter the softmax (spec A22). The ensemble of the K
// training samples' measures is the state of a deterministic finite-horizon
// MDP with terminal cost (1/K) Σ_k W²_{2,λ}(μ^k_T, ν^k) (eq. (13)), equal to
// the mean squared error when λ exceeds quantize.LambdaMin (spec A1: the
// paper's threshold N/2·diam² is wrong; N²·diam² is right).
//
// # Triply quantized dynamic programming (Algorithm 1)
//
// Token states are snapped to a grid S_n (a quantize.StateQuantizer, eq.
// (18)), measures to types with denominator ℓ (quantize.Reznik, or the
// position-preserving variant that is the identity whenever N divides ℓ,
// spec A4), and actions are a finite set 𝕌_m (random nested sets as in the
// paper's experiment, or product grids). The solvers compute the optimal
// value and a closed-loop policy of the quantized MDP (eq. (30)):
// full enumeration of the quantized measure space (the literal algorithm,
// tiny problems only), dynamic programming over the states reachable from
// the data (exact at the data's initial state, spec §2.8), and depth-first
// search with an optional transposition table. The policy unrolls into one
// open-loop weight sequence (Alg. 1 lines 17–24), which is deployed as an
// ordinary transformer and evaluated on held-out data (spec A21).
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
// Costs are squared transport costs, squared once (spec A2, A5); labels are
// state-quantized before R_ℓ (A6); the atom enumeration of eq. (21) is
// replaced by a bijection (A3); ties resolve to the lowest index (A17);
// tokens that leave the grid's box are snapped and counted, or rejected, or
// covered by per-layer grids (A9).
package control
