package incontext

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer"
)

// PretrainConfig configures [Pretrain] of a model with parameters of type
// F (float32 for speed, the papers' choice; float64 for exact checks).
// Every zero value selects the documented default, so the zero
// PretrainConfig trains the paper's model with the paper's optimiser
// (in-context-games-omd §4) and a stopping rule on the KL divergence to
// the expert.
type PretrainConfig[F tensor.Float] struct {
	// Model is the architecture. Zero Layers, Heads, Width and
	// FeedForward mean the paper's 2, 4, 64 and 256 (§4); the other fields
	// (Attention: softmax, Norm: pre-norm, learned positions, …) keep
	// transformer.Config's defaults. Vocab, Features and Outputs are filled
	// from the encoder's Shape; if set,
	// they must agree with it. MaxLen 0 is filled with
	// enc.Positions(T_max), T_max the longest trajectory, which is the
	// length the model needs to give the policy after all T_max rounds; a
	// set MaxLen must be at least that.
	Model transformer.Config
	// Train configures transformer.Train. A caller who sets a budget
	// (Steps or Epochs) gets that many steps, stopped early only by a
	// stopping rule it sets itself (TargetLoss, Patience). A caller who
	// sets neither gets the paper's rule, with a cap. The defaults for
	// zero values (on top of Train's own: batch 32, no gradient clipping,
	// the training loss averaged over one epoch of steps):
	//   - LR nil: constant 1e-3 with Adam (the paper's optimiser, §4).
	//   - Steps and Epochs both 0: Epochs = 100, a cap, and then
	//     TargetLoss 0 means 0.01 with StopOnKL, i.e. stop once the KL
	//     divergence to the expert's labels (cross-entropy minus their
	//     entropy) is below 0.01, and Patience 0 means 10 validation
	//     evaluations without improvement (when there is a validation set),
	//     evaluated at the end of every epoch unless EvalEvery is set. The
	//     paper stops on cross-entropy < 0.01, which a stochastic (e.g.
	//     mixed-NE) expert makes unreachable, since the cross-entropy is at
	//     least the labels' entropy. With Hard labels the KL to the one-hot
	//     labels equals the cross-entropy, so the rule rarely fires and
	//     training ends on patience or the cap.
	//   - A set TargetLoss keeps the given StopOnKL; a negative one means
	//     no target loss.
	// Validation nil: Pretrain holds out trajectories by
	// ValidationFraction and ValidationGroup. Set (for example to the
	// Examples of trajectories on held-out games), it is used as given
	// and Pretrain trains on every trajectory. Seed (the shuffling), RestoreBest, Progress and the checkpoint fields
	// are used as given.
	Train transformer.TrainConfig[F]
	// Hard trains on expert actions sampled from the labels (the literal
	// Eq. (1)) instead of the labels themselves; see [Examples]. The
	// validation set always uses the soft labels, whose cross-entropy is
	// the expected hard loss with less variance.
	Hard bool
	// ValidationFraction is the fraction of trajectories held out for
	// validation (early stopping on patience), in [0, 1); 0 means 0.1 and a negative value means none. At
	// least one trajectory is held out and at least one kept when there
	// are two or more; a single trajectory is not split.
	ValidationFraction float64
	// ValidationGroup, if above 1, holds trajectories out in consecutive
	// groups of this many, so that the trajectories of one game (Collect
	// with PerGame, or a game's two players' views interleaved) are all in
	// training or all in validation: validation by game, which sees a
	// failure to generalise to unseen games where a split by trajectory
	// inside the same games cannot. The number of trajectories must be a
	// multiple of it; the fraction then counts groups. 0 or 1 splits by
	// trajectory.
	ValidationGroup int
	// Seed determines the model's initial parameters
	// (rand.New(rand.NewPCG(Seed, 0))), the validation split
	// (rand.NewPCG(Seed, 1)) and the sampled hard labels
	// (rand.NewPCG(Seed, 2)).
	Seed uint64
	// From, if not nil, is trained further in place of a new model: the
	// second round of data-aggregation schemes (DAgger; decision-pretrained
	// transformers with on-policy context, Lee et al. 2023), in which a
	// model is trained, plays to collect more context, and is trained again
	// on the union. Model is then ignored: From's configuration must read
	// the encoder's shape and hold the longest trajectory. From is
	// modified and returned.
	From *transformer.Model[F]
}

// Pretrain trains an in-context model on trajectories of one player (from
// [Collect] through [Views], from [CollectBandits], or the caller's own):
// supervised pretraining by the objective Eq. (1) of in-context-games-omd
// §3.2, the mean negative log-likelihood of the expert's actions, which
// with soft labels is the cross-entropy to the expert's distributions. It
// builds a transformer.Model from cfg.Model and the encoder's shape, holds
// out a validation set, and runs transformer.Train with the defaults
// documented on [PretrainConfig]. The papers train one model per player.
//
// It returns the trained model, Train's result and an error if an argument
// is invalid (nil ctx, no trajectories, a model field that disagrees with
// the encoder, a MaxLen too short, a bad trajectory) or training fails. If
// ctx is cancelled it returns the model trained so far, the result and
// ctx's error. The result depends only on the trajectories, enc and cfg,
// not on GOMAXPROCS.
func Pretrain[F tensor.Float, O any](ctx context.Context, trajs []Trajectory[O], enc Encoder[O], cfg PretrainConfig[F]) (*transformer.Model[F], transformer.TrainResult, error) {
	var res transformer.TrainResult
	if ctx == nil {
		return nil, res, fmt.Errorf("%w: Pretrain needs a context, got nil", icrl.ErrNil)
	}
	if len(trajs) == 0 {
		return nil, res, fmt.Errorf("%w: Pretrain needs at least one trajectory", icrl.ErrInvalid)
	}
	if err := validate(enc); err != nil {
		return nil, res, err
	}
	frac := cfg.ValidationFraction
	switch {
	case frac == 0:
		frac = 0.1
	case frac < 0:
		frac = 0
	}
	if !(frac >= 0 && frac < 1) {
		return nil, res, fmt.Errorf("%w: Pretrain ValidationFraction = %v is not below 1", icrl.ErrInvalid, cfg.ValidationFraction)
	}
	given := cfg.Train.Validation != nil
	if given && len(cfg.Train.Validation) == 0 {
		return nil, res, fmt.Errorf("%w: Pretrain Train.Validation is empty: leave it nil for a split by ValidationFraction", icrl.ErrInvalid)
	}
	vocab, width, actions := enc.Shape()
	mc := cfg.Model
	if cfg.From != nil {
		mc = cfg.From.Config()
	}
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
	}{{"Vocab", &mc.Vocab, vocab}, {"Features", &mc.Features, width}, {"Outputs", &mc.Outputs, actions}} {
		if (*f.v != 0 || cfg.From != nil) && *f.v != f.want {
			return nil, res, fmt.Errorf("%w: Pretrain model %s = %d disagrees with the encoder's %d", icrl.ErrInvalid, f.name, *f.v, f.want)
		}
		*f.v = f.want
	}
	need := 0
	for i := range trajs {
		need = max(need, enc.Positions(len(trajs[i].Rounds)))
	}
	if mc.MaxLen == 0 {
		mc.MaxLen = need
	} else if mc.MaxLen < need {
		return nil, res, fmt.Errorf("%w: Pretrain model MaxLen = %d is shorter than the %d positions the longest trajectory needs", icrl.ErrInvalid, mc.MaxLen, need)
	}

	group := max(cfg.ValidationGroup, 1)
	if cfg.ValidationGroup < 0 || len(trajs)%group != 0 {
		return nil, res, fmt.Errorf("%w: Pretrain ValidationGroup = %d must be non-negative and divide the %d trajectories", icrl.ErrInvalid, cfg.ValidationGroup, len(trajs))
	}
	n := len(trajs) / group
	nVal := 0
	if n >= 2 && frac > 0 && !given {
		nVal = min(max(int(math.Round(frac*float64(n))), 1), n-1)
	}
	perm := rand.New(rand.NewPCG(cfg.Seed, 1)).Perm(n)
	trainT := make([]Trajectory[O], 0, (n-nVal)*group)
	valT := make([]Trajectory[O], 0, nVal*group)
	for j, i := range perm {
		if j < nVal {
			valT = append(valT, trajs[i*group:(i+1)*group]...)
		} else {
			trainT = append(trainT, trajs[i*group:(i+1)*group]...)
		}
	}
	data, err := Examples[F](trainT, enc, cfg.Hard, rand.New(rand.NewPCG(cfg.Seed, 2)))
	if err != nil {
		return nil, res, err
	}
	tc := cfg.Train
	if nVal > 0 {
		if tc.Validation, err = Examples[F](valT, enc, false, nil); err != nil {
			return nil, res, err
		}
	}
	validated := len(tc.Validation) > 0
	if tc.LR == nil {
		tc.LR = transformer.ConstantLR(1e-3)
	}
	if tc.Steps == 0 && tc.Epochs == 0 { // no budget: the paper's stopping rule, capped
		tc.Epochs = 100
		if tc.TargetLoss == 0 {
			tc.TargetLoss, tc.StopOnKL = 0.01, true
		}
		if tc.Patience == 0 && validated {
			tc.Patience = 10
		}
	}
	if tc.TargetLoss < 0 {
		tc.TargetLoss = 0
	}

	model := cfg.From
	if model == nil {
		if model, err = transformer.New[F](mc, rand.New(rand.NewPCG(cfg.Seed, 0))); err != nil {
			return nil, res, fmt.Errorf("incontext: Pretrain: %w", err)
		}
	}
	res, err = transformer.Train(ctx, model, data, tc)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return model, res, err
		}
		return nil, res, fmt.Errorf("incontext: Pretrain: %w", err)
	}
	return model, res, nil
}
