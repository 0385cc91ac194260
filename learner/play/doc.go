// Package play is the module's rollout engine: it plays learners (package
// learner) against each other in a game and measures the play.
//
// [Run] plays N learners in any game.Multiplayer: N players, any rewards
// (zero-sum, team, general-sum), a matrix game or a Markov game, a markov
// table or a simulator of the caller's own. It is deterministic given its
// random source: per round the players' actions in order, then the game's
// draw. A [RoundRecorder] sees every [Round] before the learners observe
// it. Full-information feedback feeds each player the expected reward of
// its actions against the others' mixed strategies in a one-state model.
// At chosen checkpoints it reports the players' mean rewards and, when the
// game is also a markov.GeneralSumModel (one struct can be both), the
// NE-gap of the last iterate and the CCE-gap of the empirical joint play.
//
// [SelfPlay] is the same engine for a two-player zero-sum game.Game (on
// its zero-sum view, game.AsMultiplayer): for a game.Model it reports the
// duality gap of the last iterate (the maximum over states of the
// per-state gaps) and, in a matrix game, of the average iterate. Its
// [Recorder] sees every round as a [Transition] (trajectory collection,
// package learner/incontext, is self-play plus a recorder); its Noise
// option replaces the game's reward draw (game.NoiseModel).
//
// Both validate their arguments once, before the first round, and wrap the
// learners' and the game's errors, so the shared sentinels of package icrl
// match through them (errors.Is).
//
// References: in-context-games-omd, "Provable Strategic In-Context
// Learning of Transformers", anonymous ICLR 2026 submission, OpenReview
// cCm2EX7MUb (§1.3, §3.1: the uncoupled bandit-feedback protocol; §4.1:
// the average and last iterates).
package play
