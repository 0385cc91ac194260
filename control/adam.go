package control

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/transformer"
)

// AdamConfig configures [TrainAdam]: projected Adam with random restarts on
// the continuous objective, the gradient baseline of the quantized DP.
// Zero values take the documented defaults.
type AdamConfig struct {
	// Restarts is the number of independent runs from uniform random
	// weights in the box; 0 means 16.
	Restarts int
	// Steps is the number of Adam steps per restart (one gradient
	// evaluation each); 0 means 500.
	Steps int
	// LR is Adam's learning rate; 0 means 0.02.
	LR float64
	// Bound is the weight box [−Bound, Bound] of the paper's action sets:
	// the initial weights are uniform in it and every step projects onto
	// it (clipping, the Euclidean projection onto a box); 0 means 1.
	Bound float64
	// Adam configures the moments (transformer.AdamConfig, whose optimiser
	// is reused); the zero value is Kingma and Ba's defaults.
	Adam transformer.AdamConfig
	// Seed selects the restarts: restart r draws its initial weights from
	// rand.New(rand.NewPCG(Seed, r)).
	Seed uint64
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
}

// AdamRestart is the outcome of one restart.
type AdamRestart struct {
	// Value is the best objective value J (per token) seen by the restart
	// and Theta the weights that reached it.
	Value float64
	Theta []float64
	// Curve holds the objective value after every step (Curve[0] at the
	// initial weights).
	Curve []float64
}

// AdamResult is the outcome of [TrainAdam].
type AdamResult struct {
	// Value is the best J over all restarts and Weights its T actions.
	Value   float64
	Weights []Action[float64]
	// Best is the index of the best restart (the lowest index on ties).
	Best int
	// Restarts are the restarts, in index order.
	Restarts []AdamRestart
	// Evaluations is the number of gradient evaluations, Restarts·(Steps+1).
	Evaluations int
	// Elapsed is the wall time.
	Elapsed time.Duration
}

// TrainAdam minimises the continuous objective o by projected Adam from
// cfg.Restarts random starts in the weight box, the local method
// optimal-control-transformer-training argues reaches only stationary
// points. Every step evaluates J and ∇J, takes one step of
// transformer.Adam and clips the weights to the box; a restart keeps the
// best weights it has seen. Restarts run in parallel on cfg.Workers
// goroutines; each owns its random source, so the result does not depend
// on the number of goroutines. The budget is stated in gradient
// evaluations (Restarts·(Steps+1)); Elapsed reports the seconds.
//
// It returns an error if a field of cfg is invalid (wrapping [icrl.ErrInvalid],
// including Restarts·(Steps+1) past [MaxEntries], checked before the loss
// curves are allocated), an evaluation fails, or ctx is done: every
// restart checks ctx before every gradient evaluation, and TrainAdam then
// returns ctx's error with the restarts as far as they got (each with its
// loss curve so far; a restart not started has none).
func TrainAdam(ctx context.Context, o *Objective, cfg AdamConfig) (AdamResult, error) {
	var res AdamResult
	if o == nil {
		return res, fmt.Errorf("%w: TrainAdam needs an objective, got nil", icrl.ErrInvalid)
	}
	if cfg.Restarts == 0 {
		cfg.Restarts = 16
	}
	if cfg.Steps == 0 {
		cfg.Steps = 500
	}
	if cfg.LR == 0 {
		cfg.LR = 0.02
	}
	if cfg.Bound == 0 {
		cfg.Bound = 1
	}
	switch {
	case cfg.Restarts < 1:
		return res, fmt.Errorf("%w: TrainAdam Restarts = %d must be positive", icrl.ErrInvalid, cfg.Restarts)
	case cfg.Steps < 0:
		return res, fmt.Errorf("%w: TrainAdam Steps = %d must not be negative", icrl.ErrInvalid, cfg.Steps)
	case !(cfg.LR > 0) || math.IsInf(cfg.LR, 0):
		return res, fmt.Errorf("%w: TrainAdam LR = %v must be positive and finite", icrl.ErrInvalid, cfg.LR)
	case !(cfg.Bound > 0) || math.IsInf(cfg.Bound, 0):
		return res, fmt.Errorf("%w: TrainAdam Bound = %v must be positive and finite", icrl.ErrInvalid, cfg.Bound)
	}
	if err := cfg.Adam.Validate(); err != nil {
		return res, err
	}
	if _, ok := num.SizeWithin(MaxEntries, cfg.Restarts, cfg.Steps+1); !ok {
		return res, fmt.Errorf("%w: TrainAdam Restarts × (Steps+1) = %d × %d loss values is more than MaxEntries = %d", icrl.ErrInvalid, cfg.Restarts, cfg.Steps+1, MaxEntries)
	}
	if ctx == nil {
		return res, fmt.Errorf("%w: TrainAdam needs a context, got nil", icrl.ErrInvalid)
	}
	start := time.Now()
	res.Restarts = make([]AdamRestart, cfg.Restarts)
	err := parallel.Items(ctx, cfg.Workers, cfg.Restarts, func(_, r int) error {
		rr, err := adamRestart(ctx, o, cfg, rand.New(rand.NewPCG(cfg.Seed, uint64(r))))
		res.Restarts[r] = rr
		if err != nil {
			return fmt.Errorf("control: TrainAdam restart %d: %w", r, err)
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	res.Value = math.Inf(1)
	for r, rr := range res.Restarts {
		if rr.Value < res.Value {
			res.Value, res.Best = rr.Value, r
		}
	}
	if res.Weights, err = o.Actions(res.Restarts[res.Best].Theta); err != nil {
		return res, err
	}
	res.Evaluations = cfg.Restarts * (cfg.Steps + 1)
	res.Elapsed = time.Since(start)
	return res, nil
}

// adamRestart runs one restart, checking ctx before every evaluation.
func adamRestart(ctx context.Context, o *Objective, cfg AdamConfig, rng *rand.Rand) (AdamRestart, error) {
	n := o.Params()
	p := &transformer.Param[float64]{Name: "theta", Shape: []int{n}, Value: make([]float64, n), Grad: make([]float64, n)}
	for i := range p.Value {
		p.Value[i] = cfg.Bound * (2*rng.Float64() - 1)
	}
	opt, err := transformer.NewAdam([]*transformer.Param[float64]{p}, cfg.Adam)
	if err != nil {
		return AdamRestart{}, err
	}
	rr := AdamRestart{Value: math.Inf(1), Theta: make([]float64, n), Curve: make([]float64, 0, min(cfg.Steps+1, 1<<16))}
	for step := 0; ; step++ {
		if err := ctx.Err(); err != nil {
			return rr, err
		}
		j, err := o.Eval(p.Value, p.Grad)
		if err != nil {
			return rr, err
		}
		rr.Curve = append(rr.Curve, j)
		if j < rr.Value {
			rr.Value = j
			copy(rr.Theta, p.Value)
		}
		if step == cfg.Steps {
			return rr, nil
		}
		if err := opt.Step(cfg.LR); err != nil {
			return rr, err
		}
		for i, v := range p.Value {
			p.Value[i] = max(-cfg.Bound, min(cfg.Bound, v))
		}
	}
}
