package learner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/transformer"
)

// Examples turns trajectories into supervised examples for one player (the
// row player if row, else the column player): the data of the pretraining
// objective Eq. (1) of in-context-games-omd §3.2,
//
//	max_θ (1/n) Σ_i Σ_t log Alg_θ(ā_t^i | D_{t−1}^i, s_t^i).
//
// Each trajectory of T rounds gives one sequence, enc.Encode(D_{T−1}, s_T):
// the player's first T−1 steps and the state of round T, whose prediction
// positions predict[0..T−1] read the policy of rounds 1..T (a causal model
// sees at predict[k] only D_k and s_{k+1}). The target at predict[k] is the
// expert's label of round k+1:
//
//   - hard = false (soft labels, the default of [Pretrain]): Target.Dist
//     holds the label's distribution at the prediction positions and an
//     all-zero (unscored) row elsewhere, with Weights 1 at the prediction
//     positions and 0 elsewhere. The cross-entropy with the soft label is
//     the expectation of Eq. (1)'s log-loss over ā_t, with less variance
//     (spec resolution A10 offers both).
//   - hard = true: ā_t is sampled from the label with rng (the literal
//     Eq. (1)) and stored in Target.Labels, −1 at the other positions.
//
// It returns an error naming the trajectory if enc is invalid, a trajectory
// is empty, its game's dimensions differ from enc (States, and Actions for
// the chosen player), the numbers of steps and labels differ, a label has
// the wrong length or is not a distribution, or Encode rejects a step; and
// if hard and rng is nil. The cost is O(T·(A + width)) per trajectory.
func Examples[F float32 | float64](trajs []Trajectory, enc Encoding, row bool, hard bool, rng *rand.Rand) ([]transformer.Example[F], error) {
	if err := enc.Validate(); err != nil {
		return nil, err
	}
	if hard && rng == nil {
		return nil, errors.New("learner: Examples with hard labels needs a random source")
	}
	player := "column"
	if row {
		player = "row"
	}
	A, w := enc.Actions, enc.Width()
	out := make([]transformer.Example[F], len(trajs))
	for i := range trajs {
		tr := &trajs[i]
		hist, labels := tr.Col, tr.ColLabels
		if row {
			hist, labels = tr.Row, tr.RowLabels
		}
		T := len(hist)
		if T == 0 {
			return nil, fmt.Errorf("learner: Examples trajectory %d has no %s-player steps", i, player)
		}
		if len(labels) != T {
			return nil, fmt.Errorf("learner: Examples trajectory %d has %d %s-player steps but %d labels", i, T, player, len(labels))
		}
		if tr.Game != nil {
			S, ga, gb := tr.Game.Dims()
			if !row {
				ga = gb
			}
			if S != enc.States || ga != A {
				return nil, fmt.Errorf("learner: Examples trajectory %d: the game has %d states and %d %s-player actions, the encoding %d and %d", i, S, ga, player, enc.States, A)
			}
		}
		tokens, feats, predict, err := enc.Encode(hist[:T-1], hist[T-1].State)
		if err != nil {
			return nil, fmt.Errorf("learner: Examples trajectory %d: %w", i, err)
		}
		var ex transformer.Example[F]
		n := len(tokens)
		if enc.Features {
			n = len(feats) / w
			ex.Input.Features = make([]F, len(feats))
			for j, v := range feats {
				ex.Input.Features[j] = F(v)
			}
		} else {
			ex.Input.Tokens = tokens
		}
		if hard {
			ex.Target.Labels = make([]int, n)
			for j := range ex.Target.Labels {
				ex.Target.Labels[j] = -1
			}
		} else {
			ex.Target.Dist = make([]F, n*A)
			ex.Target.Weights = make([]F, n)
		}
		for k, lab := range labels {
			if err := game.CheckDistribution(fmt.Sprintf("label of round %d", k+1), lab, A); err != nil {
				return nil, fmt.Errorf("learner: Examples trajectory %d, %s player: %w", i, player, err)
			}
			p := predict[k]
			if hard {
				ex.Target.Labels[p] = game.SampleCategorical(lab, rng)
				continue
			}
			d := ex.Target.Dist[p*A : (p+1)*A]
			for c, v := range lab {
				d[c] = F(v)
			}
			ex.Target.Weights[p] = 1
		}
		out[i] = ex
	}
	return out, nil
}

// PretrainConfig configures [Pretrain]. Every zero value selects the
// documented default, so the zero PretrainConfig trains the paper's model
// with the paper's optimiser (in-context-games-omd §4) and the spec's
// stopping rule (resolution A15).
type PretrainConfig struct {
	// Model is the architecture. Zero Layers, Heads, Width and
	// FeedForward mean the paper's 2, 4, 64 and 256 (§4); the other fields
	// (Attention: softmax, Norm: pre-norm, learned positions, …) keep
	// transformer.Config's defaults. Vocab, Features and Outputs are filled
	// from the Encoding (enc.Vocab(), enc.Width(), enc.Actions); if set,
	// they must agree with it. MaxLen 0 is filled with
	// enc.Positions(T_max), T_max the longest trajectory, which is the
	// length the model needs to give the policy after all T_max rounds; a
	// set MaxLen must be at least that.
	Model transformer.Config
	// Train configures transformer.Train, with these defaults for zero
	// values (on top of Train's own: batch 32, no gradient clipping, the
	// training loss averaged over one epoch of steps):
	//   - LR nil: constant 1e-3 with Adam (the paper's optimiser, §4).
	//   - TargetLoss 0: 0.01 with StopOnKL, i.e. stop once the KL
	//     divergence to the expert's labels (cross-entropy minus their
	//     entropy) is below 0.01. The paper stops on cross-entropy < 0.01,
	//     which a stochastic (e.g. mixed-NE) expert makes unreachable,
	//     since the cross-entropy is at least the labels' entropy (spec
	//     A15). A set TargetLoss keeps the given StopOnKL. With Hard
	//     labels the KL to the one-hot labels equals the cross-entropy, so
	//     the rule rarely fires and training ends on patience or the cap.
	//   - Steps and Epochs both 0: Epochs = 100, a cap.
	//   - Patience 0: 10 validation evaluations without improvement (when
	//     there is a validation set), evaluated at the end of every epoch
	//     unless EvalEvery is set.
	// Validation must be nil: Pretrain builds it from ValidationFraction.
	// Seed (the shuffling), RestoreBest, Progress and the checkpoint fields
	// are used as given.
	Train transformer.TrainConfig[float32]
	// Hard trains on expert actions sampled from the labels (the literal
	// Eq. (1)) instead of the labels themselves; see [Examples]. The
	// validation set always uses the soft labels, whose cross-entropy is
	// the expected hard loss with less variance.
	Hard bool
	// ValidationFraction is the fraction of trajectories held out for
	// validation (early stopping on patience), in [0, 1); 0 means 0.1. At
	// least one trajectory is held out and at least one kept when there
	// are two or more; a single trajectory is not split.
	ValidationFraction float64
	// Seed determines the model's initial parameters
	// (rand.New(rand.NewPCG(Seed, 0))), the validation split
	// (rand.NewPCG(Seed, 1)) and the sampled hard labels
	// (rand.NewPCG(Seed, 2)).
	Seed uint64
}

// Pretrain trains one player's in-context model (the row player's if row,
// else the column player's; the paper trains the two separately) on
// trajectories from [Collect]: supervised pretraining by the objective
// Eq. (1) of in-context-games-omd §3.2, the mean negative log-likelihood of
// the expert's actions, which with soft labels is the cross-entropy to the
// expert's distributions (see [Examples]). It builds a float32
// transformer.Model from cfg.Model, holds out a validation set, and runs
// transformer.Train with the defaults documented on [PretrainConfig].
//
// It returns the trained model, Train's result and an error if an argument
// is invalid (nil ctx, no trajectories, an invalid Encoding or
// configuration, a trajectory that does not fit enc; see [Examples]) or
// training fails. If ctx is cancelled it returns the model trained so far,
// the result and ctx's error. The result depends only on the trajectories,
// enc and cfg, not on GOMAXPROCS.
func Pretrain(ctx context.Context, trajs []Trajectory, enc Encoding, row bool, cfg PretrainConfig) (*transformer.Model[float32], transformer.TrainResult, error) {
	var res transformer.TrainResult
	if ctx == nil {
		return nil, res, errors.New("learner: Pretrain needs a context, got nil")
	}
	if len(trajs) == 0 {
		return nil, res, errors.New("learner: Pretrain needs at least one trajectory")
	}
	if err := enc.Validate(); err != nil {
		return nil, res, err
	}
	frac := cfg.ValidationFraction
	if frac == 0 {
		frac = 0.1
	}
	if !(frac >= 0 && frac < 1) {
		return nil, res, fmt.Errorf("learner: Pretrain ValidationFraction = %v is outside [0, 1)", cfg.ValidationFraction)
	}
	if cfg.Train.Validation != nil {
		return nil, res, errors.New("learner: Pretrain builds the validation set itself: leave Train.Validation nil and set ValidationFraction")
	}

	mc := cfg.Model
	for _, f := range []struct {
		v   *int
		def int
	}{{&mc.Layers, 2}, {&mc.Heads, 4}, {&mc.Width, 64}, {&mc.FeedForward, 256}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	for _, f := range []struct {
		name string
		v    *int
		want int
	}{{"Vocab", &mc.Vocab, enc.Vocab()}, {"Features", &mc.Features, enc.Width()}, {"Outputs", &mc.Outputs, enc.Actions}} {
		if *f.v != 0 && *f.v != f.want {
			return nil, res, fmt.Errorf("learner: Pretrain model %s = %d disagrees with the encoding's %d", f.name, *f.v, f.want)
		}
		*f.v = f.want
	}
	need := 0
	for i := range trajs {
		need = max(need, enc.Positions(len(trajs[i].Row)), enc.Positions(len(trajs[i].Col)))
	}
	if mc.MaxLen == 0 {
		mc.MaxLen = need
	} else if mc.MaxLen < need {
		return nil, res, fmt.Errorf("learner: Pretrain model MaxLen = %d is shorter than the %d positions the longest trajectory needs", mc.MaxLen, need)
	}

	// Validation split.
	n := len(trajs)
	nVal := 0
	if n >= 2 && frac > 0 {
		nVal = min(max(int(math.Round(frac*float64(n))), 1), n-1)
	}
	perm := rand.New(rand.NewPCG(cfg.Seed, 1)).Perm(n)
	trainT := make([]Trajectory, 0, n-nVal)
	valT := make([]Trajectory, 0, nVal)
	for j, i := range perm {
		if j < nVal {
			valT = append(valT, trajs[i])
		} else {
			trainT = append(trainT, trajs[i])
		}
	}
	data, err := Examples[float32](trainT, enc, row, cfg.Hard, rand.New(rand.NewPCG(cfg.Seed, 2)))
	if err != nil {
		return nil, res, err
	}
	tc := cfg.Train
	if nVal > 0 {
		if tc.Validation, err = Examples[float32](valT, enc, row, false, nil); err != nil {
			return nil, res, err
		}
		if tc.Patience == 0 {
			tc.Patience = 10
		}
	}
	if tc.LR == nil {
		tc.LR = transformer.ConstantLR(1e-3)
	}
	if tc.TargetLoss == 0 {
		tc.TargetLoss, tc.StopOnKL = 0.01, true
	}
	if tc.Steps == 0 && tc.Epochs == 0 {
		tc.Epochs = 100
	}

	model, err := transformer.New[float32](mc, rand.New(rand.NewPCG(cfg.Seed, 0)))
	if err != nil {
		return nil, res, fmt.Errorf("learner: Pretrain: %w", err)
	}
	res, err = transformer.Train(ctx, model, data, tc)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return model, res, err
		}
		return nil, res, fmt.Errorf("learner: Pretrain: %w", err)
	}
	return model, res, nil
}

// PlayModels plays the discounted zero-sum Markov game g between two
// pretrained in-context models, rowModel as the row (max) player and
// colModel as the column (min) player, for cfg.Rounds rounds with
// [MarkovSelfPlay]: each model is wrapped as a [MarkovLearner] by
// NewInContext(model.NewSession(), enc), so it plays the softmax of its
// read-out at the current prediction position, conditioned on its own
// history only (uncoupled). The result's Gap and StateGaps are the Markov
// duality gap (the exploitability) of the last iterate, the stationary
// policies the models hold at round T: the evaluation of
// in-context-games-omd §2.6 ("Evaluate") and §4. For a matrix game from
// [MatrixAsMarkov] it is the matrix duality gap.
//
// It returns an error if g, a model or rng is nil, a model's Vocab,
// Features or Outputs disagree with its Encoding, an Encoding's States or
// Actions disagree with the game, a model's MaxLen is too short for
// cfg.Rounds rounds (it needs rowEnc.Positions(cfg.Rounds)), or
// MarkovSelfPlay fails. It runs in O(T·(L·T·d + L·d²)) time for a model of
// L layers and width d, thanks to the KV cache of the session.
func PlayModels(g *markov.Discounted, rowModel, colModel *transformer.Model[float32], rowEnc, colEnc Encoding, cfg MarkovSelfPlayConfig, rng *rand.Rand) (*MarkovSelfPlayResult, error) {
	if g == nil {
		return nil, errors.New("learner: PlayModels needs a game, got nil")
	}
	if rowModel == nil || colModel == nil {
		return nil, errors.New("learner: PlayModels got a nil model")
	}
	if rng == nil {
		return nil, errors.New("learner: PlayModels needs a random source")
	}
	S, A, B := g.Dims()
	players := []struct {
		name    string
		m       *transformer.Model[float32]
		enc     Encoding
		actions int
	}{{"row", rowModel, rowEnc, A}, {"column", colModel, colEnc, B}}
	learners := make([]MarkovLearner, 2)
	for k, p := range players {
		if err := p.enc.Validate(); err != nil {
			return nil, fmt.Errorf("learner: PlayModels %s player: %w", p.name, err)
		}
		if p.enc.States != S || p.enc.Actions != p.actions {
			return nil, fmt.Errorf("learner: PlayModels %s player's encoding has %d states and %d actions, the game %d and %d", p.name, p.enc.States, p.enc.Actions, S, p.actions)
		}
		mc := p.m.Config()
		if mc.Vocab != p.enc.Vocab() || mc.Features != p.enc.Width() || mc.Outputs != p.enc.Actions {
			return nil, fmt.Errorf("learner: PlayModels %s player's model (Vocab %d, Features %d, Outputs %d) does not match its encoding (Vocab %d, Width %d, Actions %d)",
				p.name, mc.Vocab, mc.Features, mc.Outputs, p.enc.Vocab(), p.enc.Width(), p.enc.Actions)
		}
		if mc.Positions == transformer.LearnedPositions && cfg.Rounds > 0 && mc.MaxLen < p.enc.Positions(cfg.Rounds) {
			return nil, fmt.Errorf("learner: PlayModels %s player's model has MaxLen = %d, too short for %d rounds (%d positions)", p.name, mc.MaxLen, cfg.Rounds, p.enc.Positions(cfg.Rounds))
		}
		ic, err := NewInContext[float32](p.m.NewSession(), p.enc)
		if err != nil {
			return nil, fmt.Errorf("learner: PlayModels %s player: %w", p.name, err)
		}
		learners[k] = ic
	}
	return MarkovSelfPlay(g, learners[0], learners[1], cfg, rng)
}
