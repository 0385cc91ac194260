// Package omdnet builds the transformers of in-context-games-omd Theorem 4.1
// (matrix games, proof in its Appendix A) and Theorem 4.3 (Markov games,
// App. D): decoders with ReLU attention whose weights are set by hand, not
// trained, so that in context they play online mirror descent — the policy
// learner.OMD holds after the same rounds, at every round, to a chosen
// accuracy ε. It turns the theorems into something a test can run and
// shows what their sizes mean for a given game size and horizon.
//
// # Start here
//
//	cfg := omdnet.Config{OMD: learner.OMDConfig{Actions: 3, Horizon: 200}, Accuracy: 1e-3}
//	// or a Markov game: learner.OMDConfig{States: 2, Actions: 3, Horizon: 50, Discount: 0.9}
//	model, err := omdnet.New(cfg)                         // a *transformer.Model[float64]
//	player, err := incontext.NewLearner(model, cfg.Encoder(), incontext.Config{})
//
// The model is an ordinary transformer.Model: it plays through the
// in-context Learner with KV-cached decoding, saves and loads, and runs a
// batched Forward pass. [Config.Sizes] reports its dimensions without
// building it.
//
// # The construction
//
// The model reads the decentralized feature layout of a matrix game
// (incontext.GameEncoder with Features set): BOS, then one position per
// round with the one-hot action a_k and the reward r_k. Position t (counted
// from 1) must output x_t, the policy of round t after rounds 1 … t−1.
// Every position carries its own copy of the policy x in its residual
// stream, set to the initial policy by the read-in's bias. The blocks of
// round k then apply OMD's update (in-context-games-omd §4.1, learner.OMD
// with learner.LossDescent)
//
//	ĝ_a = ℓ·1{a = a_k}/(x_a + β) + ε_k·x_a,   ℓ = 1 − r_k,
//	x  ← Π_{Ω_δ}(x − c·η·ĝ),                 Ω_δ = {x ∈ Δ(A) : x_a ≥ δ},
//
// with the step sizes η, β, ε_k, δ of round k from the schedule, in every
// position that can see round k, and leave the others unchanged:
//
//  1. Gather (one attention head and an MLP). The head reads round k's
//     outcome from position k+1: with learned positions holding i and i²,
//     its score i·(c − (j − k − 1)²), c = ½, is positive only at j = k+1,
//     where the ReLU attention's weight relu(i·c)/i is exactly c. The MLP
//     starts y = x − c·η·ε_k·x and forms v = φ̂(x_{a_k})/Φ, the importance
//     weight φ(x) = 1/(x + β) interpolated piecewise-linearly to accuracy ε
//     and scaled by its largest value Φ. Products of a value in [0, 1] and
//     an indicator are exact gates σ(u + 1{·} − 1), so a position that
//     cannot see round k (indicators 0) computes no step.
//  2. Product (MLP). w ≈ ℓ·v = ((ℓ + v)² − (ℓ − v)²)/4, each square
//     interpolated to accuracy ε.
//  3. Step (MLP). y_{a_k} −= c·η·Φ·w, gated by the one-hot of a_k.
//  4. Projection (MLPs), exact: the Euclidean projection onto Ω_δ is the
//     continuous piecewise-linear map x = δ + σ(y − δ − λ), where λ is the
//     largest of the affine functions (Σ_{a∈I} y_a − |I|·δ − (1 − A·δ))/|I|
//     over the non-empty subsets I of actions. Up to three actions the
//     maximum runs over all 2^A − 1 subsets, ⌈log₂(2^A − 1)⌉ blocks of
//     pairwise maxima max(f, g) = f + σ(g − f); from four actions on, the
//     blocks sort a copy of y with Batcher's odd–even merge network (each
//     comparator one ReLU) and take the maximum over the A prefixes.
//     Positions that cannot see round k hold x ∈ Ω_δ' with δ' ≥ δ, which
//     the projection leaves in place.
//  5. Clearing. The last block resets every scratch coordinate to 0.
//
// After the T rounds the read-out blocks write the logits log max(x_a, θ),
// θ = ε/(8A), each interpolated to within ε/(8A·x_a), so that the softmax
// of the logits is within ε/2 of x in ℓ1. Every approximation is a
// piecewise-linear interpolant written as a sum of ReLUs (Def. A.1), its
// knots placed greedily for the stated accuracy.
//
// # Markov games
//
// With OMD.States = S > 1 the model runs Algorithm 1 of §4.3 as
// learner.OMD does (normalised loss ℓ = 1 − q/U, U = 1/(1 − γ)): it reads
// the Markov feature layout (BOS, then per round the state s_k and the
// outcome (a_k, r_k), then the current state) and outputs at each state
// position the policy of that state. Every position carries the policy
// x(s), the value V(s) = U/2 and the visit count n(s) = 0 of every state.
// The blocks of round k read s_k, (a_k, r_k) and s_{k+1} (positions 2k,
// 2k+1 and 2k+2) with one retrieval head each, select x(s_k), V(s_k),
// V(s_{k+1}) and τ − 1 = n(s_k) by exact gates, evaluate the visit's step
// sizes η_τ, β_τ, ε_τ, α_τ, δ_τ and η_τ·ε_τ as interpolants of τ through
// the integers (within ε of their largest value), form ℓ·φ(x_{a_k} + β_τ)
// with φ(u) = 1/u interpolated, the products with η_τ, η_τ·ε_τ and α_τ by
// the squares identity, and write
//
//	x(s_k) ← Π_{Ω_δτ}(x(s_k) − c·η_τ·ĝ),  V(s_k) += α_τ·(q − V(s_k)),  n(s_k) += 1,
//	q = r_k + γ·V(s_{k+1}),
//
// through gates σ(u − B·(1 − 1{s = s_k}) − B·(1 − 1{s_{k+1} visible})), so
// that positions before s_{k+1} and the other states are untouched. A
// round takes 9 to 16 blocks for A ≤ 3 (Sizes.RoundLayers), and the width
// is d = S·A + 5S + 4A + 19 plus the maximum's banks as below (and A more
// for the sorted copy from four actions on). The read-out selects the
// position's own state's policy before the logarithm. The V-update
// realisation that App. D cites from Shi et al. (2024) is not given in the
// paper; this one is the plain gated product above.
//
// # Accuracy
//
// A round's step is exact except for the importance weight and the
// product, each within ε of the scaled value, so its error is at most of
// order c·η·Φ·ε; the projection is exact and non-expansive. With the
// schedule of the theorem (schedule.Paper, η = T^(−5/3)) the accumulated
// error stays far below ε and the read-out's ε/2 dominates: the model is
// within the theorem's ‖·‖₂ bound ε + η·A of OMD at every round (the tests
// check it). With learner.OMD's default schedule (schedule.Cai, whose
// η_τ = τ^(−5/8) moves the policy) the steps are long, errors compound
// through the importance weight, and the distance is larger than ε but
// still falls with it. The examples/omdnet study reports both.
//
// # Sizes
//
// One attention head (the theorem allows max{M_D, O(c(A)·log(1/ε)/ε²)});
// the width is
//
//	d = 4A + 7 + ⌈F/2⌉ + ⌈F/4⌉,   F = 2^A − 1 (A ≤ 3),
//	d = 5A + 7 + ⌈A/2⌉ + ⌈A/4⌉               (A ≥ 4),
//
// about 5.75·A + 7 for A ≥ 4 (the paper's token has 11A coordinates).
// Each round takes the same blocks for a given A — gather, product, step,
// ⌈log₂(2^A − 1)⌉ maxima (A ≤ 3) or the sorting network's depth and
// ⌈log₂ A⌉ maxima (A ≥ 4), projection — plus those an interpolant too wide
// for d' is split into ([Sizes].RoundLayers), so L = O(T) as the theorem's
// L = L_D·T. The MLP width d' is chosen to minimise the
// parameter count, the interpolants that do not fit being split over
// consecutive blocks; their knots grow as ε^(−1/2) (the theorem's generic
// approximation needs ε^(−2) heads). The parameters number
// O(L·(d² + d·d')), a few million at A = 3, T = 200.
//
// # Corrections of the paper
//
//   - App. A forms the products r_t·ã_t and ε·x_t as inner products of two
//     A-vectors in self-attention (steps 1 and 5), which give scalars. Here
//     they are exact ReLU gates in MLPs.
//   - App. A's token carries x_t as an input and no layer moves x_{t+1} to
//     the next position, so the T one-step blocks it stacks are never
//     connected. Here each position carries its own policy and the blocks
//     of round k retrieve round k's outcome by position (step 1 above).
//     The retrieval's query weights grow as T², so the weight norm is
//     O(T²·√d), not the theorem's max{F_D, 3}: the theorem's norm bound
//     leaves no way to address a position.
//   - Lemma A.1's surrogate (a log-sum-exp penalty for the constraints)
//     does not yield a point of Ω, and its bound ‖x̃ − x_{t+1}‖ ≤ √A·η
//     fails. The projection onto Ω_δ is piecewise-linear, so the network
//     computes it exactly (step 4) with O(log A) or O(log² A) blocks.
//   - The division of Assumption 4.1 is replaced by the interpolated
//     importance weight and the squares identity for the product.
//   - The read-out softmax(A_x·h) of a probability vector is not that
//     vector; the logits must be log x (clipped at θ), which the read-out
//     blocks compute.
//
// # Limits
//
// learner.OMD's default conventions only (learner.LossDescent, and
// learner.NormalizedLoss in Markov games). The model is float64: the
// retrieval scores reach T³ and select exactly only in float64
// (transformer.Convert to float32 is not supported for it). It holds T+1
// positions (2T+2 in a Markov game); an in-context Learner played past T
// rounds slides its window and no longer runs OMD. The parameters grow as
// T·(d² + d·d'): tens of millions for a Markov game at T = 200.
//
// # References
//
//   - "Provable Strategic In-Context Learning of Transformers", anonymous
//     ICLR 2026 submission, OpenReview cCm2EX7MUb (in-context-games-omd):
//     §4.1 (OMD), Theorem 4.1 and App. A (the construction), Def. A.1.
//   - K. E. Batcher, "Sorting networks and their applications", AFIPS 1968;
//     D. E. Knuth, The Art of Computer Programming, vol. 3, §5.3.4.
//   - W. Wang and M. Á. Carreira-Perpiñán, "Projection onto the probability
//     simplex", arXiv 1309.1541, 2013 (the threshold λ).
package omdnet
