// Package simplex is the toolkit of the probability simplex
// Δ(A) = {x ∈ R^A : x ≥ 0, Σ x = 1} that the module's learners, its
// in-context pipeline and its Markov and meta-learning packages share,
// generic over float32 and float64: [CheckDistribution] (the one check of
// a probability vector), [Uniform], Euclidean projection onto the simplex
// ([ProjectSimplex]) and onto the truncated simplex {x : x_a ≥ δ}
// ([ProjectTruncated], the feasible set of OMD in in-context-games-omd
// §4.1), both in O(A log A); [KL], [Entropy] and [TotalVariation]; stable
// [Softmax], [LogSoftmax] and [LogSumExp]; and categorical sampling
// ([SampleCategorical]) from an explicit *rand.Rand of math/rand/v2.
//
// Functions fed caller data return errors that name the bad value and
// wrap [icrl.ErrShape], [icrl.ErrNotFinite] or [icrl.ErrInvalid], the module's shared
// sentinels of package icrl. Functions on hot paths (the divergences,
// sampling, softmax) panic with a "simplex: " message on mismatched
// lengths or invalid weights, as documented on each. The functions are
// safe for concurrent use.
//
// # References
//
// in-context-games-omd: "Provable Strategic In-Context Learning of
// Transformers", anonymous ICLR 2026 submission, OpenReview cCm2EX7MUb.
// Wang and Carreira-Perpiñán (2013), "Projection onto the probability
// simplex: an efficient algorithm with a simple proof, and an
// application", arXiv 1309.1541.
package simplex
