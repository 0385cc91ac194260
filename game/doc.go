// Package game implements normal-form games: two-player zero-sum matrix
// games with bandit feedback, general-sum bimatrix games, their exact
// equilibria, and the probability-simplex toolkit the learners build on.
//
// # Games
//
// [ZeroSum] is a matrix game in which the row player maximises xᵀAy and the
// column player minimises it. Bandit learners assume payoffs in [0,1], the
// setting of in-context-games-omd (§3.1); [Rescale] and [Normalize] map any
// game there without changing its equilibria. [ZeroSum.Sample] draws a
// bandit reward through a [Noise]: [Bernoulli] (the default), [Exact] or
// [UniformNoise]. [Bimatrix] is a general-sum game in which both players
// maximise their own payoff matrix.
//
// The zoo has rock-paper-scissors ([RPS]), biased RPS ([BiasedRPS],
// Bošanský et al. 2016), matching pennies ([MatchingPennies]) and Shapley's
// game ([Shapley]); random games ([RandomUniform], [RandomGaussian]); and
// the perturbed family of in-context-games-omd §5 ([Perturbed], ρ = 0.1 in
// the paper).
//
// # Equilibria and gaps
//
// [Solve] computes an exact Nash equilibrium and the value of a zero-sum game
// by linear programming: a condensed simplex tableau finds the optimal basis
// in O(m·n) per pivot and gonum's optimize/convex/lp certifies it (a random
// 100×100 game takes a few milliseconds). [ZeroSum.DualityGap]
// is the metric of in-context-games-omd Theorems 4.2 and 4.4 for a maximising
// row player (spec resolution A1); [ZeroSum.Improvements] and
// [ZeroSum.Exploitability] split it per player. For bimatrix games,
// [Bimatrix.NashConv] sums the players' best-response improvements and
// [SupportEnumeration] lists the equilibria of small games (all of them
// when the game is non-degenerate).
//
// # The simplex toolkit
//
// Generic over float32 and float64: Euclidean projection onto the simplex
// and onto the truncated simplex {x : x_a ≥ δ} in O(A log A)
// ([ProjectTruncated]), [KL], [Entropy], [TotalVariation], stable [Softmax],
// [LogSoftmax] and [LogSumExp], and categorical sampling
// ([SampleCategorical]).
//
// # Conventions
//
// Constructors validate their input (non-empty, rectangular, finite) and
// return errors that name the bad value; functions that take strategies
// validate them with [CheckDistribution]. Randomness always comes from an
// explicit *rand.Rand of math/rand/v2. Games are immutable and safe for
// concurrent use.
package game
