// Package incontext is the in-context learning pipeline of the module, one
// pipeline for games and for bandits: generate expert-labelled trajectories,
// build datasets, pretrain a decoder transformer, and let any sequence model
// play in context — through its context alone, with no parameter update —
// as a learner.Learner in a game or a bandit.Learner in a bandit.
//
// # Start here
//
// A game of the caller's own needs only the four methods of game.Game. Then
//
//	func learnAndPlay(ctx context.Context, g MyGame, opponent learner.Learner, rng *rand.Rand) (*play.SelfPlayResult, error) {
//		prior := func(*rand.Rand) (MyGame, error) { return g, nil }
//		e := incontext.OMDExpert{}
//		trajs, err := incontext.Collect(ctx, prior, incontext.CollectConfig{Rounds: 40, Games: 256, RowExpert: e, ColExpert: e, Seed: 1})
//		if err != nil {
//			return nil, err
//		}
//		enc := incontext.GameEncoder{States: g.States(), Actions: g.Actions(game.RowPlayer)}
//		model, _, err := incontext.Pretrain(ctx, incontext.Views(trajs, game.RowPlayer), enc, incontext.PretrainConfig[float32]{})
//		if err != nil {
//			return nil, err
//		}
//		row, err := incontext.NewLearner(model, enc, incontext.Config{})
//		if err != nil {
//			return nil, err
//		}
//		return play.SelfPlay(ctx, g, row, opponent, play.SelfPlayConfig{Rounds: 40}, rng)
//	}
//
// collects OMD self-play labelled by OMD, pretrains the paper's model on
// it and plays the model against any learner (Example_ownGame runs this
// end to end on a two-state game written as a plain struct). For bandits,
// [CollectBandits], [BanditEncoder] and [NewBandit] take the same places.
//
// # Observations
//
// What a player sees each round is a choice. In the decentralized setting
// of in-context-games-omd (the default) it sees its own action and reward;
// in the joint-action (centralized) setting of Shi et al. 2024 it also sees
// the opponent's action, so that its context can identify the game. A
// [GameEncoder] with Opponents set is the joint-action encoder, its
// [Learner] is a learner.JointLearner, and play.SelfPlay,
// [Play] and [Collect] feed it the opponent's action under
// learner.JointActions observation. The recorded rounds ([Round]) always
// hold the opponent's action; the decentralized encoder ignores it.
//
// # Interfaces
//
// Consumed here:
//
//   - game.Game, the game played ([Collect] and [Play] take any game; the
//     equilibrium expert [NEExpert] needs a game.Model, the OMD expert does
//     not);
//   - transformer.Transformer, the sequence model ([NewLearner],
//     [NewBandit], [Imitation], [Play] take any: *transformer.Model, a model
//     written by hand, or one imported from elsewhere);
//   - bandit.Factory, the bandit experts and behaviour policies.
//
// Defined here:
//
//   - [Encoder] turns one player's rounds into sequence positions for one
//     setting, with [Writer] as the sink: [GameEncoder] writes the token or
//     feature layout of in-context-games-omd §3.2, Eq. (2) (BOS, then per
//     round the state in a Markov game, the action and the reward bin);
//     [BanditEncoder] writes the action-set and action–reward tokens of
//     nonstationary-transformers-master §2.3 (after Lin, Bai and Mei 2024).
//     Everything downstream — datasets, pretraining, the learners, the
//     imitation error — is written once against this interface.
//   - [Expert] labels a round of a game with the distribution the learner
//     should imitate, and also serves as the context policy that plays
//     while trajectories are collected: [NEExpert] (the equilibrium, the
//     expert of the paper's experiments), [OMDExpert] (online mirror
//     descent, the expert of its theory), [PosteriorExpert] (the posterior
//     mean of the equilibrium given the joint observations so far, in
//     matrix and in discounted Markov games: the equilibrium labels with
//     their noise averaged out), [Uniform],
//     [Dirichlet] (a random policy drawn per trajectory). An
//     [OnlineExpert] also follows a
//     trajectory round by round as a learner.Learner, so that labelling T
//     rounds costs O(T) (the package's experts all do; an Expert without
//     it is replayed from the history at every round, O(T²)).
//   - bandit.Env and bandit.OracleEnv, the bandit environments
//     [CollectBandits] and [CollectBanditsOptimal] play (package
//     nonstationary's environments implement them).
//
// # The pipeline
//
//   - Collection: [Collect] is play.SelfPlay between context policies
//     — the experts themselves, other experts, or learners made per
//     trajectory (CollectConfig.RowLearner and ColLearner: OMD, or
//     in-context learners over the model being trained, for on-policy
//     context) — with a recorder (play.Recorder) that labels every
//     round by the experts and stores each player's view once; [Views]
//     and [AllViews] give the players' trajectories; [CollectBandits]
//     plays bandit environments with a behaviour policy and labels every
//     round with an expert's arm, [CollectBanditsOptimal] with the arm of
//     highest mean of the hidden environment (the labels of
//     decision-pretrained transformers, Lee et al. 2023). All are
//     deterministic by seed and spread over the cores; a [Trajectory] is
//     one player's rounds and labels.
//   - Datasets: [Examples] turns trajectories into transformer.Example
//     values with soft (the label distributions) or hard (sampled actions)
//     targets at the positions that predict each round's action: the
//     pretraining objective Eq. (1) of in-context-games-omd §3.2.
//   - Pretraining: [Pretrain] builds and trains a transformer.Model with
//     the paper's defaults (2 layers, 4 heads, width 64, Adam at 1e-3),
//     holding out a validation set (by game with ValidationGroup), for
//     the caller's budget of steps or, without one, until the KL divergence
//     to the expert is small; PretrainConfig.From trains a model further
//     instead (the second round of data aggregation, DAgger, after the
//     model's own play was collected).
//   - Play: [Learner] (games) and [Bandit] (bandits) decode online with the
//     model's KV cache; when the next round would not fit in the model's
//     capacity they drop the older half of the rounds (a sliding context),
//     so a model plays any number of rounds. [Play] runs two models against
//     each other with play.SelfPlay.
//   - Evaluation: [Imitation] measures, teacher-forced along held-out
//     trajectories, the total-variation distance between the model's
//     policy and the expert's, per round and overall.
//
// Where the package departs from the papers on purpose: the expert of round
// t sees only the history before t and the state of t (the paper writes
// the expert as conditioning on the whole trajectory); soft labels are the
// default (their cross-entropy is the expectation of Eq. (1)'s log-loss,
// with less variance), hard labels an option; pretraining stops on the KL
// divergence, since a mixed expert makes the paper's cross-entropy target
// unreachable.
//
// Learners are not safe for concurrent use; the pipeline's functions are,
// given experts, priors and factories that are.
//
// # Errors
//
// Errors wrap [ErrInput] (an observation, example or model output that
// does not fit: the in-context learners return it from Act and Observe
// alike), [icrl.ErrInvalid] (a configuration out of its domain), [icrl.ErrTooLarge]
// (a size past [MaxEncoderSize], [MaxTrajectories] or [MaxCollectRounds],
// checked before allocating) or [icrl.ErrNil] (a nil model, game, prior,
// factory, context or random source); test with errors.Is. Errors of
// package transformer come through wrapped.
//
// # References
//
// in-context-games-omd: "Provable Strategic In-Context Learning of
// Transformers", anonymous ICLR 2026 submission, OpenReview cCm2EX7MUb.
// nonstationary-transformers-master: Chen, Ito and Imaizumi, "Optimal
// Dynamic Regret by Transformers for Non-Stationary Reinforcement
// Learning", NeurIPS 2025, arXiv 2508.16027. Lin, Bai and Mei (2024),
// "Transformers as decision makers: provable in-context reinforcement
// learning via supervised pretraining", ICLR 2024. Lee et al. (2023),
// "Supervised pretraining can learn in-context reinforcement learning",
// NeurIPS 2023, arXiv 2306.14892 (decision-pretrained transformers). Shi,
// Yang, Yang and Shen (2024), "Transformers as game players: provable
// in-context game-playing capabilities of pre-trained models", NeurIPS
// 2024, arXiv 2410.09701 (the decentralized and centralized settings).
package incontext
