package transformer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// Example is one training sequence with its targets.
type Example[F tensor.Float] struct {
	Input  Sequence[F]
	Target Target[F]
}

// TrainConfig configures [Train]. Either Steps or Epochs must be positive;
// every other zero value selects the documented default.
type TrainConfig[F tensor.Float] struct {
	// BatchSize is the number of sequences per optimiser step; 0 means 32.
	BatchSize int
	// Steps caps the number of optimiser steps; 0 means no cap.
	Steps int
	// Epochs caps the number of passes over the data; 0 means no cap.
	Epochs int
	// Seed selects the shuffling: epoch e visits the examples in the order
	// of rand.New(rand.NewPCG(Seed, e)).Perm(len(data)).
	Seed uint64

	// LR is the learning-rate schedule; nil means ConstantLR(1e-3).
	LR LRSchedule
	// Adam configures the optimiser (Adam, or AdamW with Decoupled).
	Adam AdamConfig
	// ClipNorm clips the gradient to this global L2 norm before each step;
	// 0 means no clipping.
	ClipNorm float64

	// TargetLoss stops training once the mean training loss over the last
	// LossWindow steps is at most this value; 0 disables it. With
	// StopOnKL the KL divergence to the targets (cross-entropy minus the
	// targets' entropy; see [Loss]) is compared instead, which is the right
	// criterion for soft targets, whose cross-entropy cannot fall below
	// their entropy.
	TargetLoss float64
	// StopOnKL compares the KL divergence, not the cross-entropy, with
	// TargetLoss.
	StopOnKL bool
	// LossWindow is the number of recent steps averaged for TargetLoss and
	// reported in Progress; 0 means one epoch's worth of batches.
	LossWindow int

	// Validation holds held-out examples, evaluated every EvalEvery steps
	// (0 means at the end of every epoch).
	Validation []Example[F]
	// EvalEvery is the number of steps between validation evaluations.
	EvalEvery int
	// Patience stops training after this many evaluations without a new
	// best validation loss; 0 disables early stopping on validation.
	Patience int
	// RestoreBest copies the parameters of the best validation evaluation
	// back into the model when training stops.
	RestoreBest bool

	// Progress, if non-nil, is called every ProgressEvery steps (0 means
	// every epoch) and after the last step (once per step at most).
	Progress func(Progress)
	// ProgressEvery is the number of steps between Progress calls.
	ProgressEvery int

	// CheckpointDir, if non-empty, is a directory where Train writes a
	// checkpoint (weights, optimiser state and progress) every
	// CheckpointEvery steps and at the end; see [SaveCheckpoint].
	CheckpointDir string
	// CheckpointEvery is the number of steps between checkpoints; 0 means
	// only at the end.
	CheckpointEvery int
	// Resume continues from the checkpoint in CheckpointDir, if there is
	// one: the model's weights, the optimiser's state and the step count
	// are restored, and training goes on exactly as if it had not stopped.
	Resume bool
}

// Progress reports the state of [Train].
type Progress struct {
	// Step is the number of optimiser steps taken; Epoch the number of
	// completed passes plus the fraction of the current one.
	Step  int
	Epoch float64
	// Loss and KL are the training cross-entropy and KL divergence averaged
	// over the last LossWindow steps.
	Loss, KL float64
	// ValLoss is the latest validation cross-entropy, or NaN if none.
	ValLoss float64
	// LR is the learning rate of the last step.
	LR float64
	// TokensPerSec is the training throughput since the last report, in
	// positions per second.
	TokensPerSec float64
	// Elapsed is the time since Train started.
	Elapsed time.Duration
}

// TrainResult summarises a call of [Train].
type TrainResult struct {
	// Steps is the total number of optimiser steps (including those of a
	// resumed checkpoint).
	Steps int
	// Loss and KL are the final windowed training loss and KL divergence.
	Loss, KL float64
	// BestValLoss is the best validation loss seen, or NaN.
	BestValLoss float64
	// Reason says why training stopped: "steps", "epochs", "target loss",
	// "patience" or "cancelled".
	Reason string
}

// Train fits the model to data by minimising the weighted cross-entropy of
// [Loss] with Adam (Kingma and Ba 2015) on shuffled minibatches: the
// supervised pretraining objective of in-context-games-omd Eq. (1). Each
// step packs BatchSize variable-length sequences into one batch, runs the
// forward and backward passes on all cores, optionally clips the gradient,
// and updates the parameters. The result depends only on the model's
// initial parameters, the data and cfg, not on GOMAXPROCS.
//
// Train stops at the first of: Steps steps, Epochs epochs, the target loss,
// the validation patience, or the cancellation of ctx. On cancellation it
// writes a final checkpoint (if CheckpointDir is set) and returns the
// result with ctx's error.
//
// It returns an error if cfg or an example is invalid.
func Train[F tensor.Float](ctx context.Context, m *Model[F], data []Example[F], cfg TrainConfig[F]) (TrainResult, error) {
	r, err := newTrainRun(m, data, cfg)
	if err != nil {
		return TrainResult{BestValLoss: math.NaN()}, err
	}
	for {
		if reason := r.stopBefore(); reason != "" {
			r.report()
			return r.finish(reason)
		}
		if err := ctx.Err(); err != nil {
			r.report()
			res, ferr := r.finish("cancelled")
			if ferr != nil {
				return res, ferr
			}
			return res, err
		}
		if err := r.step(); err != nil {
			return r.res, err
		}
		if err := r.afterStep(); err != nil {
			return r.res, err
		}
		if reason := r.stopAfter(); reason != "" {
			r.report()
			return r.finish(reason)
		}
	}
}

// trainRun is the state of one call of [Train]: the validated
// configuration with its defaults filled in, the optimiser, the progress
// that checkpoints store, the loss window and the progress reporting.
type trainRun[F tensor.Float] struct {
	m          *Model[F]
	data, val  []Example[F]
	cfg        TrainConfig[F]
	batch      int // minibatch size
	perEpoch   int // steps per epoch
	window     int // loss-window length
	lr         LRSchedule
	opt        *Adam[F]
	st         trainState
	best       []*Param[F] // best parameters so far, if RestoreBest
	losses     []Loss      // the last window losses
	seqs       []Sequence[F]
	targets    []Target[F]
	lrv        float64 // learning rate of the last step
	valLoss    float64 // last validation loss, or NaN
	tokens     int     // tokens since the last report
	reported   int     // step of the last report
	start      time.Time
	lastReport time.Time
	res        TrainResult
}

// newTrainRun validates cfg and data, fills in the defaults, builds the
// optimiser and, with cfg.Resume, loads the checkpoint.
func newTrainRun[F tensor.Float](m *Model[F], data []Example[F], cfg TrainConfig[F]) (*trainRun[F], error) {
	if err := validateTrain(m, data, cfg); err != nil {
		return nil, err
	}
	r := &trainRun[F]{m: m, data: data, val: cfg.Validation, cfg: cfg, lr: cfg.LR, valLoss: math.NaN(), reported: -1}
	r.res.BestValLoss = math.NaN()
	r.batch = cfg.BatchSize
	if r.batch == 0 {
		r.batch = 32
	}
	r.batch = min(r.batch, len(data))
	r.perEpoch = (len(data) + r.batch - 1) / r.batch
	r.window = cfg.LossWindow
	if r.window == 0 {
		r.window = r.perEpoch
	}
	if r.lr == nil {
		r.lr = ConstantLR(1e-3)
	}
	if v, ok := r.lr.(ValidatingSchedule); ok {
		if err := v.Validate(); err != nil {
			return nil, err
		}
	}
	var err error
	if r.opt, err = NewAdam(m.Params(), cfg.Adam); err != nil {
		return nil, err
	}
	if cfg.RestoreBest && len(r.val) > 0 {
		r.best = cloneParams(m.Params())
	}
	if cfg.Resume {
		err := loadCheckpoint(cfg.CheckpointDir, m, r.opt, &r.st, r.best)
		if err != nil && !errors.Is(err, errNoCheckpoint) {
			return nil, err
		}
	}
	if r.st.HasBest {
		r.valLoss = r.st.BestVal
	}
	r.losses = make([]Loss, 0, r.window)
	r.seqs = make([]Sequence[F], 0, r.batch)
	r.targets = make([]Target[F], 0, r.batch)
	r.start, r.lastReport = time.Now(), time.Now()
	return r, nil
}

// validateTrain checks cfg and every example of data and cfg.Validation.
func validateTrain[F tensor.Float](m *Model[F], data []Example[F], cfg TrainConfig[F]) error {
	if len(data) == 0 {
		return fmt.Errorf("%w: Train needs at least one example", icrl.ErrInvalid)
	}
	if cfg.Steps < 0 || cfg.Epochs < 0 || (cfg.Steps == 0 && cfg.Epochs == 0) {
		return fmt.Errorf("%w: TrainConfig needs a positive Steps or Epochs, got Steps = %d, Epochs = %d", icrl.ErrInvalid, cfg.Steps, cfg.Epochs)
	}
	if cfg.BatchSize < 0 || cfg.LossWindow < 0 || cfg.EvalEvery < 0 || cfg.Patience < 0 || cfg.ProgressEvery < 0 || cfg.CheckpointEvery < 0 {
		return fmt.Errorf("%w: TrainConfig counts must not be negative", icrl.ErrInvalid)
	}
	if !(cfg.ClipNorm >= 0) || math.IsInf(cfg.ClipNorm, 0) || !(cfg.TargetLoss >= 0) || math.IsInf(cfg.TargetLoss, 0) {
		return fmt.Errorf("%w: TrainConfig ClipNorm = %v and TargetLoss = %v must be finite and non-negative", icrl.ErrInvalid, cfg.ClipNorm, cfg.TargetLoss)
	}
	if cfg.Resume && cfg.CheckpointDir == "" {
		return fmt.Errorf("%w: TrainConfig Resume needs a CheckpointDir", icrl.ErrInvalid)
	}
	for _, set := range []struct {
		prefix string
		exs    []Example[F]
	}{{"", data}, {"validation: ", cfg.Validation}} {
		for k, ex := range set.exs {
			if err := m.checkSequence(k, ex.Input); err != nil {
				return fmt.Errorf("%s%w", set.prefix, err)
			}
			if err := m.checkTarget(k, ex.Input.length(m.cfg), ex.Target); err != nil {
				return fmt.Errorf("%s%w", set.prefix, err)
			}
		}
	}
	return nil
}

// windowLoss returns the mean cross-entropy and KL over the loss window.
func (r *trainRun[F]) windowLoss() (ce, kl float64) {
	for _, l := range r.losses {
		ce += l.CE
		kl += l.KL()
	}
	n := float64(max(len(r.losses), 1))
	return ce / n, kl / n
}

// report calls cfg.Progress once per step at most.
func (r *trainRun[F]) report() {
	if r.cfg.Progress == nil || r.st.Step == r.reported {
		return
	}
	r.reported = r.st.Step
	ce, kl := r.windowLoss()
	el := time.Since(r.lastReport).Seconds()
	r.cfg.Progress(Progress{
		Step: r.st.Step, Epoch: float64(r.st.Step) / float64(r.perEpoch),
		Loss: ce, KL: kl, ValLoss: r.valLoss, LR: r.lrv,
		TokensPerSec: float64(r.tokens) / max(el, 1e-9), Elapsed: time.Since(r.start),
	})
	r.tokens, r.lastReport = 0, time.Now()
}

// finish fills in the result, restores the best parameters if asked, and
// writes the final checkpoint.
func (r *trainRun[F]) finish(reason string) (TrainResult, error) {
	r.res.Steps = r.st.Step
	r.res.Loss, r.res.KL = r.windowLoss()
	if r.st.HasBest {
		r.res.BestValLoss = r.st.BestVal
	}
	r.res.Reason = reason
	if r.best != nil && r.st.HasBest {
		for i, p := range r.m.Params() {
			copy(p.Value, r.best[i].Value)
		}
	}
	if r.cfg.CheckpointDir != "" {
		if err := saveCheckpoint(r.cfg.CheckpointDir, r.m, r.opt, r.st, r.best); err != nil {
			return r.res, err
		}
	}
	return r.res, nil
}

// stopBefore returns the reason to stop before the next step: "steps" or
// "epochs" when the budget is spent, "" otherwise.
func (r *trainRun[F]) stopBefore() string {
	switch {
	case r.cfg.Steps > 0 && r.st.Step >= r.cfg.Steps:
		return "steps"
	case r.cfg.Epochs > 0 && r.st.Step/r.perEpoch >= r.cfg.Epochs:
		return "epochs"
	}
	return ""
}

// step draws the next minibatch of the epoch's permutation, runs the
// forward and backward passes, clips and takes one Adam step.
func (r *trainRun[F]) step() error {
	epoch, pos := r.st.Step/r.perEpoch, r.st.Step%r.perEpoch
	perm := rand.New(rand.NewPCG(r.cfg.Seed, uint64(epoch))).Perm(len(r.data))
	idx := perm[pos*r.batch : min((pos+1)*r.batch, len(r.data))]
	r.seqs, r.targets = r.seqs[:0], r.targets[:0]
	for _, i := range idx {
		r.seqs = append(r.seqs, r.data[i].Input)
		r.targets = append(r.targets, r.data[i].Target)
		r.tokens += r.data[i].Input.length(r.m.cfg)
	}
	r.m.ZeroGrad()
	loss, err := r.m.Backprop(r.seqs, r.targets)
	if err != nil {
		return fmt.Errorf("transformer: step %d: %w", r.st.Step, err)
	}
	if r.cfg.ClipNorm > 0 {
		ClipGradNorm(r.m.Params(), r.cfg.ClipNorm)
	}
	r.lrv = r.lr.LR(r.st.Step)
	if err := r.opt.Step(r.lrv); err != nil {
		return err
	}
	r.st.Step++
	if len(r.losses) == r.window {
		copy(r.losses, r.losses[1:])
		r.losses = r.losses[:r.window-1]
	}
	r.losses = append(r.losses, loss)
	return nil
}

// afterStep validates, reports and checkpoints when their periods say so.
func (r *trainRun[F]) afterStep() error {
	cfg, step := r.cfg, r.st.Step
	endOfEpoch := step%r.perEpoch == 0
	if len(r.val) > 0 && ((cfg.EvalEvery > 0 && step%cfg.EvalEvery == 0) || (cfg.EvalEvery == 0 && endOfEpoch)) {
		if err := r.validate(); err != nil {
			return err
		}
	}
	if (cfg.ProgressEvery > 0 && step%cfg.ProgressEvery == 0) || (cfg.ProgressEvery == 0 && endOfEpoch) {
		r.report()
	}
	if cfg.CheckpointDir != "" && cfg.CheckpointEvery > 0 && step%cfg.CheckpointEvery == 0 {
		return saveCheckpoint(cfg.CheckpointDir, r.m, r.opt, r.st, r.best)
	}
	return nil
}

// validate computes the validation loss and keeps the best parameters.
func (r *trainRun[F]) validate() error {
	var err error
	if r.valLoss, err = evalLoss(r.m, r.val, r.batch); err != nil {
		return fmt.Errorf("validation: %w", err)
	}
	if r.st.HasBest && !(r.valLoss < r.st.BestVal) {
		r.st.SinceBest++
		return nil
	}
	r.st.BestVal, r.st.HasBest, r.st.SinceBest = r.valLoss, true, 0
	if r.best != nil {
		for i, p := range r.m.Params() {
			copy(r.best[i].Value, p.Value)
		}
	}
	return nil
}

// stopAfter returns the reason to stop after a step: "patience" or
// "target loss", or "".
func (r *trainRun[F]) stopAfter() string {
	if r.cfg.Patience > 0 && r.st.SinceBest >= r.cfg.Patience {
		return "patience"
	}
	if r.cfg.TargetLoss > 0 && len(r.losses) == r.window {
		ce, kl := r.windowLoss()
		if (r.cfg.StopOnKL && kl <= r.cfg.TargetLoss) || (!r.cfg.StopOnKL && ce <= r.cfg.TargetLoss) {
			return "target loss"
		}
	}
	return ""
}

// trainState is the progress a checkpoint stores besides the weights and
// the optimiser.
type trainState struct {
	Step      int     `json:"step"`
	HasBest   bool    `json:"has_best"`
	BestVal   float64 `json:"best_val"`
	SinceBest int     `json:"since_best"`
}

// evalLoss returns the mean cross-entropy over examples, weighting each
// batch by its total position weight.
func evalLoss[F tensor.Float](m *Model[F], data []Example[F], batch int) (float64, error) {
	var ce, w float64
	for lo := 0; lo < len(data); lo += batch {
		hi := min(lo+batch, len(data))
		seqs := make([]Sequence[F], 0, hi-lo)
		targets := make([]Target[F], 0, hi-lo)
		for _, ex := range data[lo:hi] {
			seqs = append(seqs, ex.Input)
			targets = append(targets, ex.Target)
		}
		l, err := m.Loss(seqs, targets)
		if err != nil {
			return 0, err
		}
		ce += l.CE * l.Weight
		w += l.Weight
	}
	return ce / w, nil
}

func cloneParams[F tensor.Float](ps []*Param[F]) []*Param[F] {
	out := make([]*Param[F], len(ps))
	for i, p := range ps {
		out[i] = &Param[F]{Name: p.Name, Shape: p.Shape, Value: append([]F(nil), p.Value...)}
	}
	return out
}
