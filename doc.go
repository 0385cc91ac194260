// Package icrl is the root of the module: learning in games and in-context
// decision making (see the README). It holds what every package shares:
// the sentinel errors. The packages re-export them under the same names
// (icrl.ErrInvalid is icrl.ErrInvalid, and so on), so that
// errors.Is(err, icrl.ErrInvalid) holds for an invalid argument found by
// any package of the module.
//
// # Randomness
//
// Every package draws its random numbers the same way, from math/rand/v2
// and never from a global source. A function or method that draws in
// sequence takes a *rand.Rand (play.SelfPlay, simplex.SampleCategorical,
// markov.Episodic.Rollout, nonstationary.RandomActions, …): the caller
// owns the stream and the order of the draws is documented. A pipeline
// that spreads independent units (games, trajectories, runs, restarts)
// over goroutines takes a base seed instead, a Seed field of its
// configuration or a seed argument (incontext.CollectConfig.Seed,
// transformer.TrainConfig.Seed, nonstationary.MonteCarlo, …), and draws
// unit k from rand.New(rand.NewPCG(seed, k)), so that its output is the
// same for any GOMAXPROCS.
package icrl
