// Package nonstationary simulates non-stationary stochastic bandits and
// measures the dynamic regret of learners on them, following Chen, Ito and
// Imaizumi, "Optimal Dynamic Regret by Transformers for Non-Stationary
// Reinforcement Learning" (NeurIPS 2025, arXiv 2508.16027; cited as
// nonstationary-transformers-master) and Wei and Luo (2021).
//
// # Start here
//
// [NewLowNonStationary] and [NewCosine] build the paper's environments,
// [MonteCarlo] measures a learner's dynamic regret on them, and [NewMaster]
// wraps any bandit.Learner (UCB1, LinUCB, OFUL, LinTS, a pretrained
// transformer from package learner/incontext) in MASTER.
//
// # Interfaces
//
// It consumes bandit.Learner and bandit.Factory (the learners
// it wraps and runs) and defines [Env], the environment, which also
// is a bandit.OracleEnv (the one definition of the bandit protocol's
// environment), so the in-context pipeline collects trajectories from it. Its wrappers (MALG, MASTER, the restarts) are
// bandit.Learners themselves.
//
// # Environments
//
// An [Env] is an oblivious bandit whose mean rewards f_t(k) are fixed before
// play (nonstationary-transformers-master §2), with 1-based rounds t = 1..T:
//
//   - [KArmed]: piecewise-stationary K-armed bandits with Bernoulli
//     ([NewPiecewiseBernoulli]) or Gaussian ([NewPiecewiseGaussian]) rewards,
//     and SMPyBandits' benchmark problems 1 and 2 ([SMPyProblem],
//     [NewSMPyProblem]; Besson 2018).
//   - [Linear]: linear bandits r_t = ⟨a_t, θ_t⟩ + ε_t over action sets that are
//     fixed or change every round ([ActionSets]: [FixedActions],
//     [PerRoundActions], [RandomActions]): stationary ([NewLinear]),
//     piecewise-stationary ([NewPiecewiseLinear]) and drifting with a
//     prescribed total variation ([NewLinearDrift]); and the paper's two
//     experimental scenarios (§5 and App. B): low non-stationarity, rewards
//     elevated to [3,4] in windows ([NewLowNonStationary], [PaperLowConfig]),
//     and high non-stationarity, r_t = (⟨a_t,w⟩ + ε_t)·cos(2πbt)
//     ([NewCosine]). [SampleLBMInstance] draws the paper's instance
//     w ~ U[0,1]^d, a ~ U[−1,1]^d.
//
// The non-stationarity measures of the paper's Definition 1 (Wei and Luo
// 2021, Definition 1) are [Variation] (Δ(t)),
// [TotalVariation] (Δ) and [Pieces] (J); [OptimalMean] is f*_t.
//
// # Dynamic regret
//
// [Run] plays any bandit.Learner on an Env and records the pseudo
// dynamic regret Σ_t (f*_t − f_t(a_t)) of the paper's eq. (3), together with the arms,
// rewards and the learner's optimistic values. [MonteCarlo] repeats Run over
// independently drawn environments on all cores and returns per-round means
// and standard deviations ([Summary]); run r is seeded with
// rand.NewPCG(seed, r), so results do not depend on GOMAXPROCS.
//
// # MALG and MASTER
//
// [MALG] (Wei and Luo 2021, Procedure 1 and Algorithm 2) runs instances of
// a base learner at several scales inside a block of 2ⁿ rounds, scheduled
// with probabilities ρ(2ⁿ)/ρ(2ᵐ) ([SchedulingProbs]); the shortest covering
// instance acts. [Master] (Algorithm 3) runs MALG on blocks of doubling
// length and restarts when one of its two stationarity tests fails; every
// constant of the tests is exposed in [MasterConfig] (the literal values by
// default, so a user can reproduce the paper or scale them down), and the
// restarts and blocks are observable ([Master.Restarts], [Master.Blocks]).
// Both wrap any bandit.Learner that reports an optimistic value and
// are bandit.Learners themselves. As Gerogiannis et al. (2024) found, the
// literal tests rarely fire at practical horizons; the tests of this package
// check the mechanics, not dominance.
//
// # Baselines
//
// [SlidingWindowUCB] and [DiscountedUCB] (Garivier and Moulines 2011), a
// CUSUM change-detection restart around any base learner ([NewCUSUMRestart];
// Liu, Lee and Shroff 2018) and an oracle that restarts at the known change
// points ([NewOracleRestart]), with SMPyBandits' default tunings.
// [ScaledMasterConfig] gives MASTER constants scaled down so that its tests
// can fire at practical horizons (documented, tuned on a flipping Bernoulli
// problem).
//
// # Transformers in context
//
// The paper's experiments (§5, App. B) pretrain a transformer on
// linear-bandit trajectories labelled by an expert and play it as a learner.
// That runs on the module's one in-context pipeline, package
// learner/incontext: the environments here are bandit.OracleEnv values,
// so incontext.CollectBandits gathers labelled trajectories from them,
// incontext.BanditEncoder lays a history out as alternating action-set and
// (action, reward) tokens (after Lin et al. 2024), incontext.Pretrain
// trains the model and incontext.NewBandit plays it as a
// bandit.Learner (which MALG and MASTER can wrap). This package adds
// [EvaluateImitation], which compares such a learner with its expert on the
// dynamic regret measured here.
//
// # Posterior over a family of environments
//
// A [LinearPrior] is a family of linear bandits as a learner that knows it
// sees it (a Gaussian parameter, Gaussian noise, and alternative reward
// scales and shifts such as the frequencies of the cosine scenario);
// [LinearPosterior] is its exact posterior (Bayesian linear regression per
// alternative, the alternatives weighted by their marginal likelihoods).
// [HighPrior] and [LowPrior] are the paper's two scenarios, their uniform
// prior of w replaced by its Gaussian moments. [PosteriorSampling] plays
// Thompson sampling with such a prior (Russo and Van Roy 2014), the
// reference a prior-aware learner is compared with, and labels rounds with
// the posterior probability of each arm being the best
// (incontext.CollectBanditsLabeled): the labels whose cross-entropy
// minimiser is the Bayes-optimal prediction of the best arm.
//
// Environments are immutable and safe for concurrent use; learners are not.
//
// # Errors
//
// Constructors and functions fed caller data return an error that names
// the bad value and wraps one of [icrl.ErrInvalid] (a size, horizon, schedule
// or probability out of range), [icrl.ErrNotFinite], [icrl.ErrTooLarge] (a horizon,
// arm count, window or action sets past [icrl.MaxEntries], checked before
// anything is allocated) or [icrl.ErrNil] (a nil environment, learner, factory
// or random source); test with errors.Is.
// MALG and MASTER return their base learner's errors wrapped, so the base
// learner's sentinels match too. Environment methods called in the inner
// loop panic on an arm out of range, as documented on each.
//
// # References
//
//   - Y. Chen, S. Ito and M. Imaizumi, "Optimal Dynamic Regret by
//     Transformers for Non-Stationary Reinforcement Learning", NeurIPS
//     2025, arXiv 2508.16027. Section, figure and algorithm numbers in
//     this package are this paper's.
//   - C.-Y. Wei and H. Luo, "Non-stationary Reinforcement Learning without
//     Prior Knowledge: An Optimal Black-box Approach", COLT 2021, arXiv
//     2102.05406 (MALG and MASTER).
//   - L. Lin, Y. Bai and S. Mei, "Transformers as Decision Makers: Provable
//     In-Context Reinforcement Learning via Supervised Pretraining", ICLR
//     2024, arXiv 2310.08566 (the bandit encoding and environment).
package nonstationary
