// Package game implements normal-form games: two-player zero-sum matrix
// games with bandit feedback, general-sum bimatrix games, their exact
// equilibria, and the probability-simplex toolkit the learners build on. It
// also defines the module's game interfaces.
//
// # Start here
//
// [NewZeroSum] (or the zoo, [RPS], [BiasedRPS], …) builds a matrix game,
// [Solve] its exact equilibrium, and [ZeroSum.Gap] the duality gap of a
// strategy pair. To play a game with learners, see package learner/play;
// to play it in context, package learner/incontext. Package game/poker is
// a river endgame of hold'em built from the public rules.
//
// # Interfaces
//
// [Multiplayer] is an N-player, general-sum game with states: players,
// states, actions per [Player], a start state and a step (Play) that plays
// a joint action and returns every player's reward and the next state. It
// is what the module's rollout engine (play.Run) plays with N
// learners; the utility kind (zero-sum, team, general-sum) is a property
// of the rewards, not a second interface. Its Players, States and Actions
// are also the methods of package markov's models, so one plain struct of
// a caller can be both the simulator and the model.
//
// [Game] is its two-player zero-sum special case, what self-play and the
// in-context pipeline play: states, actions per [Player], a start state and
// a step that samples the row player's reward and the next state;
// [AsMultiplayer] is the one place the column player's reward 1 − r is
// written. A caller's own zero-sum simulator implements its four methods
// and then runs every learner, self-play and the in-context pipeline. [Model] adds exact evaluation (per-state duality
// gaps of stationary policies and a Nash equilibrium); harnesses ask for it
// with a type assertion and report rewards only for a game without it.
// [NoiseModel] lets a harness replace the reward draw. *ZeroSum implements
// all three as the one-state case; package markov's discounted games do
// too.
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
// in O(m·n) per pivot and the duality gap of the pair it reads certifies it,
// with gonum's optimize/convex/lp as the last resort (a random 100×100 game
// takes under a millisecond). [ZeroSum.DualityGap]
// is the metric of in-context-games-omd Theorems 4.2 and 4.4 for a maximising
// row player (the paper's definitions treat x as the minimiser in places;
// this package uses one convention, x maximises xᵀAy); [ZeroSum.Improvements] and
// [ZeroSum.Exploitability] split it per player. For bimatrix games,
// [Bimatrix.NashConv] sums the players' best-response improvements and
// [SupportEnumeration] lists the equilibria of small games (all of them
// when the game is non-degenerate).
//
// # The simplex toolkit
//
// The mathematics of distributions that the learners, the in-context
// pipeline, markov and metalearn use (projections, divergences, softmax,
// sampling, CheckDistribution) is package game/simplex.
//
// # Conventions
//
// Constructors validate their input (non-empty, rectangular, finite) and
// return errors that name the bad value; functions that take strategies
// validate them with simplex.CheckDistribution. Randomness always comes from an
// explicit *rand.Rand of math/rand/v2. Games are immutable and safe for
// concurrent use.
//
// # Errors
//
// Constructors and functions fed caller data return an error that names
// the bad value and wraps one of [icrl.ErrEmpty] (no rows or columns, or a nil
// game), [icrl.ErrShape], [icrl.ErrNotFinite], [icrl.ErrInvalid] (a value outside its
// domain, such as a vector off the simplex), [icrl.ErrTooLarge] (past
// [icrl.MaxEntries], MaxSupportActions or MaxSupportPairs, checked before
// anything is allocated) or [icrl.ErrNilRand]; [ErrSolver]
// reports a numerical failure of the LP solver on a valid game. Test with
// errors.Is. The methods that sit in learners' inner loops ([ZeroSum.Gap],
// [ZeroSum.Payoff]) panic with a "game: " message on
// mismatched lengths or an invalid distribution, as documented on each;
// their error-returning forms ([ZeroSum.DualityGap], simplex.CheckDistribution)
// are for unvalidated input. The zero value of ZeroSum and Bimatrix is an
// empty game, which every solver rejects with ErrEmpty.
//
// # References
//
//   - "Provable Strategic In-Context Learning of Transformers", anonymous
//     ICLR 2026 submission, OpenReview cCm2EX7MUb (matrix and Markov games with bandit feedback, the duality
//     gap).
//   - J. von Neumann, "Zur Theorie der Gesellschaftsspiele", Mathematische
//     Annalen 100, 1928 (the minimax theorem behind [Solve]).
//   - N. Nisan, T. Roughgarden, É. Tardos and V. Vazirani (eds.),
//     "Algorithmic Game Theory", Cambridge University Press, 2007, §3
//     (support enumeration for bimatrix games).
package game
