package transformer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Example is one training sequence with its targets.
type Example[F Float] struct {
	Input  Sequence[F]
	Target Target[F]
}

// TrainConfig configures [Train]. Either Steps or Epochs must be positive;
// every other zero value selects the documented default.
type TrainConfig[F Float] struct {
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
func Train[F Float](ctx context.Context, m *Model[F], data []Example[F], cfg TrainConfig[F]) (TrainResult, error) {
	res := TrainResult{BestValLoss: math.NaN()}
	if len(data) == 0 {
		return res, fmt.Errorf("%w: Train needs at least one example", ErrInvalid)
	}
	if cfg.Steps < 0 || cfg.Epochs < 0 || (cfg.Steps == 0 && cfg.Epochs == 0) {
		return res, fmt.Errorf("%w: TrainConfig needs a positive Steps or Epochs, got Steps = %d, Epochs = %d", ErrInvalid, cfg.Steps, cfg.Epochs)
	}
	if cfg.BatchSize < 0 || cfg.LossWindow < 0 || cfg.EvalEvery < 0 || cfg.Patience < 0 || cfg.ProgressEvery < 0 || cfg.CheckpointEvery < 0 {
		return res, fmt.Errorf("%w: TrainConfig counts must not be negative", ErrInvalid)
	}
	if !(cfg.ClipNorm >= 0) || math.IsInf(cfg.ClipNorm, 0) || !(cfg.TargetLoss >= 0) || math.IsInf(cfg.TargetLoss, 0) {
		return res, fmt.Errorf("%w: TrainConfig ClipNorm = %v and TargetLoss = %v must be finite and non-negative", ErrInvalid, cfg.ClipNorm, cfg.TargetLoss)
	}
	if cfg.Resume && cfg.CheckpointDir == "" {
		return res, fmt.Errorf("%w: TrainConfig Resume needs a CheckpointDir", ErrInvalid)
	}
	for k, ex := range data {
		if err := m.checkSequence(k, ex.Input); err != nil {
			return res, err
		}
		if err := m.checkTarget(k, ex.Input.length(m.cfg), ex.Target); err != nil {
			return res, err
		}
	}
	val := cfg.Validation
	for k, ex := range val {
		if err := m.checkSequence(k, ex.Input); err != nil {
			return res, fmt.Errorf("validation: %w", err)
		}
		if err := m.checkTarget(k, ex.Input.length(m.cfg), ex.Target); err != nil {
			return res, fmt.Errorf("validation: %w", err)
		}
	}
	batch := cfg.BatchSize
	if batch == 0 {
		batch = 32
	}
	batch = min(batch, len(data))
	perEpoch := (len(data) + batch - 1) / batch
	window := cfg.LossWindow
	if window == 0 {
		window = perEpoch
	}
	lr := cfg.LR
	if lr == nil {
		lr = ConstantLR(1e-3)
	}
	if v, ok := lr.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return res, err
		}
	}
	opt, err := NewAdam(m.Params(), cfg.Adam)
	if err != nil {
		return res, err
	}

	var st trainState
	var best []*Param[F]
	if cfg.RestoreBest && len(val) > 0 {
		best = cloneParams(m.Params())
	}
	if cfg.Resume {
		err := loadCheckpoint(cfg.CheckpointDir, m, opt, &st, best)
		if err != nil && !errors.Is(err, errNoCheckpoint) {
			return res, err
		}
	}

	losses := make([]Loss, 0, window)
	winSum := func() (ce, kl float64) {
		for _, l := range losses {
			ce += l.CE
			kl += l.KL()
		}
		n := float64(max(len(losses), 1))
		return ce / n, kl / n
	}
	start, lastReport := time.Now(), time.Now()
	tokens := 0
	valLoss := math.NaN()
	if st.HasBest {
		valLoss = st.BestVal
	}
	reported := -1
	report := func(lrv float64) {
		if cfg.Progress == nil || st.Step == reported {
			return
		}
		reported = st.Step
		ce, kl := winSum()
		el := time.Since(lastReport).Seconds()
		cfg.Progress(Progress{
			Step: st.Step, Epoch: float64(st.Step) / float64(perEpoch),
			Loss: ce, KL: kl, ValLoss: valLoss, LR: lrv,
			TokensPerSec: float64(tokens) / max(el, 1e-9), Elapsed: time.Since(start),
		})
		tokens, lastReport = 0, time.Now()
	}
	finish := func(reason string) (TrainResult, error) {
		res.Steps = st.Step
		res.Loss, res.KL = winSum()
		if st.HasBest {
			res.BestValLoss = st.BestVal
		}
		res.Reason = reason
		if best != nil && st.HasBest {
			for i, p := range m.Params() {
				copy(p.Value, best[i].Value)
			}
		}
		if cfg.CheckpointDir != "" {
			if err := saveCheckpoint(cfg.CheckpointDir, m, opt, st, best); err != nil {
				return res, err
			}
		}
		return res, nil
	}

	seqs := make([]Sequence[F], 0, batch)
	targets := make([]Target[F], 0, batch)
	var lrv float64
	for {
		epoch, pos := st.Step/perEpoch, st.Step%perEpoch
		switch {
		case cfg.Steps > 0 && st.Step >= cfg.Steps:
			report(lrv)
			return finish("steps")
		case cfg.Epochs > 0 && epoch >= cfg.Epochs:
			report(lrv)
			return finish("epochs")
		}
		if err := ctx.Err(); err != nil {
			report(lrv)
			r, ferr := finish("cancelled")
			if ferr != nil {
				return r, ferr
			}
			return r, err
		}
		perm := rand.New(rand.NewPCG(cfg.Seed, uint64(epoch))).Perm(len(data))
		idx := perm[pos*batch : min((pos+1)*batch, len(data))]
		seqs, targets = seqs[:0], targets[:0]
		for _, i := range idx {
			seqs = append(seqs, data[i].Input)
			targets = append(targets, data[i].Target)
			tokens += data[i].Input.length(m.cfg)
		}
		m.ZeroGrad()
		loss, err := m.Backprop(seqs, targets)
		if err != nil {
			return res, fmt.Errorf("transformer: step %d: %w", st.Step, err)
		}
		if cfg.ClipNorm > 0 {
			ClipGradNorm(m.Params(), cfg.ClipNorm)
		}
		lrv = lr.LR(st.Step)
		if err := opt.Step(lrv); err != nil {
			return res, err
		}
		st.Step++
		if len(losses) == window {
			copy(losses, losses[1:])
			losses = losses[:window-1]
		}
		losses = append(losses, loss)

		endOfEpoch := st.Step%perEpoch == 0
		if len(val) > 0 && ((cfg.EvalEvery > 0 && st.Step%cfg.EvalEvery == 0) || (cfg.EvalEvery == 0 && endOfEpoch)) {
			valLoss, err = evalLoss(m, val, batch)
			if err != nil {
				return res, fmt.Errorf("validation: %w", err)
			}
			if !st.HasBest || valLoss < st.BestVal {
				st.BestVal, st.HasBest, st.SinceBest = valLoss, true, 0
				if best != nil {
					for i, p := range m.Params() {
						copy(best[i].Value, p.Value)
					}
				}
			} else {
				st.SinceBest++
			}
		}
		if (cfg.ProgressEvery > 0 && st.Step%cfg.ProgressEvery == 0) || (cfg.ProgressEvery == 0 && endOfEpoch) {
			report(lrv)
		}
		if cfg.CheckpointDir != "" && cfg.CheckpointEvery > 0 && st.Step%cfg.CheckpointEvery == 0 {
			if err := saveCheckpoint(cfg.CheckpointDir, m, opt, st, best); err != nil {
				return res, err
			}
		}
		if cfg.Patience > 0 && st.SinceBest >= cfg.Patience {
			report(lrv)
			return finish("patience")
		}
		if cfg.TargetLoss > 0 && len(losses) == window {
			ce, kl := winSum()
			if (cfg.StopOnKL && kl <= cfg.TargetLoss) || (!cfg.StopOnKL && ce <= cfg.TargetLoss) {
				report(lrv)
				return finish("target loss")
			}
		}
	}
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
func evalLoss[F Float](m *Model[F], data []Example[F], batch int) (float64, error) {
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

func cloneParams[F Float](ps []*Param[F]) []*Param[F] {
	out := make([]*Param[F], len(ps))
	for i, p := range ps {
		out[i] = &Param[F]{Name: p.Name, Shape: p.Shape, Value: append([]F(nil), p.Value...)}
	}
	return out
}
