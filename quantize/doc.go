// Package quantize implements the three quantisations and the transport
// cost of optimal-control-transformer-training (Akman, Saldı and Yüksel,
// "An Optimal Control Approach to Transformer Training", arXiv:2603.09571): nearest-
// neighbour state quantizers on R^d, measure quantizers that round a
// probability vector to a type with denominator ℓ, finite action sets, and
// the position-weighted Wasserstein cost W²_{2,λ}. Package control builds
// the quantized dynamic programme (Algorithm 1) on top of it.
//
// # Start here
//
// [NewBoxGrid] quantizes states, [Reznik] rounds a measure to a type with
// denominator ℓ, [ProductGrid] and [NestedSampler] build action sets,
// and [Cost.W2Sq] computes W²_{2,λ}. The package defines no interface of
// its own and consumes none: its types are concrete inputs of package
// control, generic over float32 and float64.
//
// # Particles and measures
//
// A particle is an [Atom] (p, x) of 𝕏 = PE_N × S: a position label Pos ∈
// {1, …, N}, with encoding p = Pos/N, and a state x ∈ R^d (eq. (2)). A
// [Measure] is a finite probability measure on 𝕏 and [Empirical] the
// lifted sequence (1/N)Σ_i δ_{(i, x_i)} of §1.6.
//
// # Transport cost (eq. (6), (14), §2.5)
//
// [Cost] holds λ and N; its ground cost is
//
//	c_λ((p,x),(q,y))² = ‖x − y‖₂² + λ|p − q|²,
//
// and [Cost.W2Sq] solves the transportation programme min Σ π_ab c_ab
// exactly (transportation simplex). [Cost.W2SqCounts] is the rational fast
// path for two types with denominator ℓ (an ℓ×ℓ assignment, O(ℓ³)),
// and [PositionLockedW2Sq] the position-locked path, (1/N)Σ_i W_2²(μ|i, ν|i),
// valid for λ ≥ [LambdaMin] = N²·diam². For two N-atom empirical measures
// it is [SeqMSE], the per-token loss of (OP). Every value is the squared
// distance and is never squared again.
//
// # State quantisation (eq. (17), (18))
//
// A [StateQuantizer] is a finite S_n ⊂ R^d with the nearest-neighbour map
// Q^(n)(p, x) = (p, argmin_{s ∈ S_n} ‖x − s‖); the position is never
// quantised and ties go to the lowest index. [BoxGrid] is a
// cell-centred uniform grid with O(d) lookup; [NewBoxGridForRadius] builds
// the coarsest one with covering radius < r (a 1/n-net for r = 1/n: 15×15
// points on [-1,1]² for n = 10, as in the paper's experiment). [PointSet] is any finite set (a
// grid plus data points, say) with brute-force lookup. Nearest reports
// whether the state lies in the covered box: states outside are snapped to
// the nearest point, and there Lemma 20, W_{2,λ}(μ, μ∘(Q^(n))⁻¹)
// ≤ CoveringRadius, no longer holds.
//
// # Atoms of 𝕏_n (eq. (21), corrected)
//
// [AtomIndex] numbers the N·G atoms of 𝕏_n = PE_N × S_n by
// a = (pos−1)·G + j, 0-based. The printed eq. (21) is not a bijection
// (correction A3 below).
//
// # Measure quantisation R_ℓ (eq. (20), (22), Reznik 2011)
//
// The types 𝒫^(ℓ)(𝕏_n) = {r/ℓ : r ∈ ℕ₀^{|𝕏_n|}, Σ r = ℓ} number
// C(ℓ + |𝕏_n| − 1, |𝕏_n| − 1) ([CountTypes], eq. (22); [EnumerateTypes]
// lists them). [Reznik] is the paper's R_ℓ (Reznik 2011, Algorithm 1):
// round ℓp, then fix the sum at the entries whose rounding error is most
// extreme. It returns the type nearest in Euclidean distance, with the
// Euclidean bound of Prop. 10. [PositionPreserving] rounds each position
// separately with ℓ/N units, so no mass changes position; it is the
// identity on N-atom empirical measures when N | ℓ. [QuantizeMeasure]
// applies either to a sparse measure and returns a [QMeasure], whose
// [QMeasure.AppendKey] gives map keys for the dynamic programme.
//
// # Action sets (eq. (19))
//
// [ProductGrid] is a cell-centred product grid of action vectors and
// [NetPerAxis] the cells per axis, ⌈m√P⌉, of a 1/m-net on [-1,1]^P (5²²
// points for the paper's P = 22 and m = 1, as in the paper's experiment). [NestedSampler] grows
// a random action set nestedly, as the paper's experiment does (§6).
//
// # Corrections to the paper
//
//   - A1: Assumption 7's λ > (N/2)·diam² does not make W²_{2,λ} equal the
//     sequence MSE. For N = 2, x = (a, b), y = (b, a), ‖a − b‖ = D and
//     λ = 2D², W² = λ/4 = D²/2 but SeqMSE = D². The sufficient threshold is
//     λ ≥ N²·diam² ([LambdaMin]).
//   - A3: eq. (21) maps a = G−1 and a = G to the same pair and never gives
//     (i, 1); [AtomIndex] uses a = (pos−1)·G + j.
//   - A4: R_ℓ (Reznik) is Euclidean-nearest, not W_{2,λ}-nearest, and Prop.
//     10's bound is Euclidean. For three atoms at one position with states
//     0, 10, 5 and p = (½, ½, 0), R_1 gives δ_10 with W² = 50, while δ_5 has
//     W² = 25. The honest bound is W²_{2,λ}(μ, R_ℓμ) ≤ diam_λ²·|𝕏_n|/(2ℓ)
//     with diam_λ² = diam(S)² + λ(1 − 1/N)². PositionPreservingMode, which
//     does not move mass across positions, is the default [MeasureMode].
//   - A20: Assumption 11's "ℓ of order O(n^{d+1})" must be read as a lower
//     bound: by A4, R_ℓ's error vanishes only when ℓ ≫ |𝕏_n| = N·|S_n|.
//
// # Numbers and concurrency
//
// The vector types are generic over float32 and float64 (tensor.Float). Distances,
// transport costs and rounding are computed in float64 whatever F is, and
// converted to F at the end; float32 inputs therefore lose nothing beyond
// their own precision, but the mass tolerance of a float32 measure is 1e-5
// (1e-9 for float64). Measure-quantisation probabilities are float64.
// Quantizers and costs are immutable after construction and safe for
// concurrent use.
//
// # Errors
//
// Constructors and functions fed by user data validate it and return an
// error naming the bad value and wrapping [icrl.ErrInvalid] (a size, shape or
// range is wrong) or [icrl.ErrNotFinite] (a NaN or infinite value); test with
// errors.Is. Only hot-path methods panic, on programmer errors (mismatched
// lengths, indices out of range), as documented on each.
//
// # References
//
//   - K. Akman, N. Saldı and S. Yüksel, "An Optimal Control Approach to
//     Transformer Training", arXiv 2603.09571, 2026. Equation and section
//     numbers in this package are this paper's.
//   - M. Reznik, "An algorithm for quantization of discrete probability
//     distributions", Data Compression Conference 2011 (R_ℓ).
package quantize
