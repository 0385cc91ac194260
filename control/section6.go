package control

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/quantize"
	"github.com/icrl-go/icrl/tensor"
)

// This file reproduces the numerical experiment of the paper's §6: a
// two-layer block with d = 2, N = 4, β = 0.5 and ReLU is trained by
// Algorithm 1 to approximate the self-attention map T(x)_i = Σ_j
// softmax_j(0.3⟨x_i, x_j⟩) x_j, with nested random action sets of size 10,
// 20, …, 100.

// Section6Config configures [RunSection6]. Zero fields take the defaults
// of [DefaultSection6Config] (the paper's values), except Seed, Workers
// and the booleans.
type Section6Config struct {
	// N tokens of dimension D; Hidden = d₁ and QK = d₂ (the paper's l, k).
	N, D, Hidden, QK int
	// T is the number of layers.
	T int
	// Beta is β of eq. (1); TargetC the scale c of the target map.
	Beta, TargetC float64
	// Ktrain and Ktest are the numbers of training and test sequences.
	Ktrain, Ktest int
	// StateN is n: the grid on [−1, 1]^D has covering radius < 1/n (15×15
	// = 225 points for n = 10 and D = 2; the paper does not give the grid).
	StateN int
	// Ell is ℓ. With N | ℓ the position-preserving quantizer (the identity
	// on reachable states) and N-type states are used; otherwise Reznik's
	// R_ℓ and general states.
	Ell int
	// Step is the number of actions added per level and MaxActions the
	// last level (levels Step, 2·Step, …, MaxActions).
	Step, MaxActions int
	// EntryBound b: action entries are i.i.d. uniform on [−b, b] (§6 does
	// not give the distribution; this is this package's choice).
	EntryBound float64
	// Seed seeds the data (stream 1) and the actions (stream 2).
	Seed uint64
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Reznik forces the paper's R_ℓ even when N | ℓ (general states).
	Reznik bool
	// Scratch solves each level from scratch with [DepthFirst] instead of
	// extending the previous level with [Nested] (for timing comparisons
	// with the paper, whose times are per level).
	Scratch bool
	// Float32 runs the float32 core instead of float64.
	Float32 bool
}

// DefaultSection6Config returns the paper's §6 setting: N = 4, D = Hidden =
// QK = 2, T = 2, β = 0.5, c = 0.3, 35 training and 15 test sequences,
// n = 10, ℓ = 20, levels 10, 20, …, 100, entries in [−1, 1].
func DefaultSection6Config() Section6Config {
	return Section6Config{
		N: 4, D: 2, Hidden: 2, QK: 2, T: 2, Beta: 0.5, TargetC: 0.3,
		Ktrain: 35, Ktest: 15, StateN: 10, Ell: 20, Step: 10, MaxActions: 100,
		EntryBound: 1,
	}
}

func (c Section6Config) withDefaults() Section6Config {
	d := DefaultSection6Config()
	set := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	setf := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	set(&c.N, d.N)
	set(&c.D, d.D)
	set(&c.Hidden, d.Hidden)
	set(&c.QK, d.QK)
	set(&c.T, d.T)
	setf(&c.Beta, d.Beta)
	setf(&c.TargetC, d.TargetC)
	set(&c.Ktrain, d.Ktrain)
	set(&c.Ktest, d.Ktest)
	set(&c.StateN, d.StateN)
	set(&c.Ell, d.Ell)
	set(&c.Step, d.Step)
	set(&c.MaxActions, d.MaxActions)
	setf(&c.EntryBound, d.EntryBound)
	return c
}

func (c Section6Config) validate() error {
	for _, v := range []struct {
		name string
		v    int
	}{{"N", c.N}, {"D", c.D}, {"Hidden", c.Hidden}, {"QK", c.QK}, {"T", c.T}, {"Ktrain", c.Ktrain},
		{"Ktest", c.Ktest}, {"StateN", c.StateN}, {"Ell", c.Ell}, {"Step", c.Step}, {"MaxActions", c.MaxActions}} {
		if v.v < 0 {
			return fmt.Errorf("%w: Section6Config.%s = %d must be positive", icrl.ErrInvalid, v.name, v.v)
		}
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"Beta", c.Beta}, {"EntryBound", c.EntryBound}} {
		if math.IsNaN(v.v) || math.IsInf(v.v, 0) || v.v <= 0 {
			return fmt.Errorf("%w: Section6Config.%s = %v must be finite and positive", icrl.ErrInvalid, v.name, v.v)
		}
	}
	if math.IsNaN(c.TargetC) || math.IsInf(c.TargetC, 0) {
		return fmt.Errorf("%w: Section6Config.TargetC = %v is not finite", icrl.ErrNotFinite, c.TargetC)
	}
	if c.Workers < 0 {
		return fmt.Errorf("%w: Section6Config.Workers = %d must be non-negative", icrl.ErrInvalid, c.Workers)
	}
	// The data (K·N·D scalars per set), the actions (MaxActions ×
	// parameters) and the reachable tree (about MaxActions^T leaves) are
	// allocated from these sizes.
	for _, sz := range []struct {
		what string
		dims []int
	}{
		{"Ktrain × N × D", []int{c.Ktrain, c.N, c.D}},
		{"Ktest × N × D", []int{c.Ktest, c.N, c.D}},
		{"D × Hidden", []int{c.D, c.Hidden}},
		{"QK × D", []int{c.QK, c.D}},
		{"D × D", []int{c.D, c.D}},
		{"MaxActions × 4·(D + Hidden + QK)²", []int{c.MaxActions, 4 * (c.D + c.Hidden + c.QK), c.D + c.Hidden + c.QK}},
	} {
		if _, ok := num.SizeWithin(MaxEntries, sz.dims...); !ok {
			return fmt.Errorf("%w: Section6Config %s = %v exceeds MaxEntries = %d", icrl.ErrInvalid, sz.what, sz.dims, MaxEntries)
		}
	}
	return nil
}

// MaxEntries is the most scalars [NewSection6] allocates for one table
// (its data sets and its actions): 2²⁸.
const MaxEntries = 1 << 28

// Levels returns the action levels Step, 2·Step, …, with MaxActions last.
func (c Section6Config) Levels() []int {
	c = c.withDefaults()
	var l []int
	for m := c.Step; m < c.MaxActions; m += c.Step {
		l = append(l, m)
	}
	return append(l, c.MaxActions)
}

// Section6 is the experiment's set-up: the quantized problem on the
// training set (with all MaxActions actions, nested: the first Step·i are
// level i's set), the test set and the action list.
type Section6[F tensor.Float] struct {
	Config  Section6Config // with defaults filled in
	Problem *Problem[F]
	Train   Dataset[F]
	Test    Dataset[F]
	Actions []*Action[F]
}

// NewSection6 builds the experiment for cfg, deterministically from
// cfg.Seed: inputs i.i.d. uniform on [−1, 1]^D per token, targets
// [SelfAttentionTarget] with c = TargetC, the grid of radius < 1/StateN on
// [−1, 1]^D (tokens leaving it are snapped and counted), and
// MaxActions actions with i.i.d. uniform entries in [−EntryBound,
// EntryBound], drawn Step at a time by quantize.NestedSampler (one nested
// set shared by all layers; §6 leaves this open). It returns an error naming the bad
// field.
func NewSection6[F tensor.Float](cfg Section6Config) (*Section6[F], error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	dims := Dims{D: cfg.D, Hidden: cfg.Hidden, QK: cfg.QK}
	block := Block[F]{Dims: dims, Beta: F(cfg.Beta), Sigma: ReLU[F]{}}
	drng := rand.New(rand.NewPCG(cfg.Seed, 1))
	arng := rand.New(rand.NewPCG(cfg.Seed, 2))
	gen := func(K int) Dataset[F] {
		X, _ := tensor.New[F](K, cfg.N, cfg.D) // sizes validated above
		Y, _ := tensor.New[F](K, cfg.N, cfg.D)
		for k := range K {
			xs := tokens(X, k)
			for _, x := range xs {
				for c := range x {
					x[c] = F(2*drng.Float64() - 1)
				}
			}
			for i, y := range SelfAttentionTarget(xs, F(cfg.TargetC)) {
				copy(Y.Row(k, i), y)
			}
		}
		return Dataset[F]{X: X, Y: Y}
	}
	train := gen(cfg.Ktrain)
	test := gen(cfg.Ktest)

	P := dims.Params()
	lo, hi := make([]F, P), make([]F, P)
	for i := range lo {
		lo[i], hi[i] = F(-cfg.EntryBound), F(cfg.EntryBound)
	}
	sampler := quantize.NestedSampler[F]{Lo: lo, Hi: hi}
	var flat [][]F
	for len(flat) < cfg.MaxActions {
		flat = sampler.Extend(flat, min(cfg.Step, cfg.MaxActions-len(flat)), arng)
	}
	actions := make([]*Action[F], len(flat))
	for j, v := range flat {
		u, err := NewAction(dims, v)
		if err != nil {
			return nil, fmt.Errorf("control: sampled action %d: %w", j, err)
		}
		actions[j] = u
	}

	glo, ghi := make([]F, cfg.D), make([]F, cfg.D)
	for c := range glo {
		glo[c], ghi[c] = -1, 1
	}
	grid, err := quantize.NewBoxGridForRadius(glo, ghi, F(1/float64(cfg.StateN)))
	if err != nil {
		return nil, err
	}
	mq := quantize.PositionPreservingMode
	if cfg.Reznik || cfg.Ell%cfg.N != 0 {
		mq = quantize.ReznikMode
	}
	p, err := NewProblem(ProblemConfig[F]{
		Block: block, T: cfg.T, Data: train, Grid: grid, Ell: cfg.Ell,
		Measure: mq, OutOfGrid: SnapAndCount, Actions: actions,
	})
	if err != nil {
		return nil, err
	}
	return &Section6[F]{Config: cfg, Problem: p, Train: train, Test: test, Actions: actions}, nil
}

// Section6Row is one action level of the experiment (one row of the
// paper's Tables 1 and 2).
type Section6Row struct {
	// M is the number of actions.
	M int
	// Value is the quantised training value 𝔆_0(ŝ_0) (per token).
	Value float64
	// Train and test errors of the deployed open-loop weights, run through
	// the unquantised transformer, per token and per sequence (per
	// sequence = N × per token; Tables 1–2 do not say which they report).
	TrainPerToken, TrainPerSeq float64
	TestPerToken, TestPerSeq   float64
	// Improvements (%) of the per-token errors and of the quantised value
	// relative to the first level, 100·(1 − e/e_first).
	TrainImprovement, TestImprovement, ValueImprovement float64
	// Actions are the open-loop action indices.
	Actions []int
	// Nodes and Leaves of the search tree at this level (Nodes ≤ 1 + M +
	// M² for T = 2); Evaluated is the leaves computed for this level.
	Nodes, Leaves, Evaluated int64
	// OutOfGrid is the fraction of the tokens snapped by the search (up to
	// this level) that lay outside [−1, 1]^D; leaves abandoned
	// by the exact bound count only their evaluated samples.
	OutOfGrid float64
	// Time is the wall time of this level's solve; Total the cumulative
	// time of the run so far (including set-up).
	Time, Total time.Duration
}

// RunSection6 runs the experiment of the paper's §6 (see [NewSection6] for
// the set-up) and returns one row per action level. The quantised values
// are non-increasing in M (nested sets, exact DP); the continuous errors
// need not be. Deterministic for a given Seed, whatever Workers. It
// returns an error for an invalid configuration or when ctx is cancelled.
func RunSection6(ctx context.Context, cfg Section6Config) ([]Section6Row, error) {
	if cfg.Float32 {
		return runSection6[float32](ctx, cfg)
	}
	return runSection6[float64](ctx, cfg)
}

func runSection6[F tensor.Float](ctx context.Context, cfg Section6Config) ([]Section6Row, error) {
	start := time.Now()
	s, err := NewSection6[F](cfg)
	if err != nil {
		return nil, err
	}
	cfg = s.Config
	p := s.Problem
	nested := NewNested(p, NestedOptions{Workers: cfg.Workers})
	var rows []Section6Row
	for _, m := range cfg.Levels() {
		var sol *Solution[F]
		if cfg.Scratch {
			sol, err = DepthFirst[F]{Workers: cfg.Workers, M: m}.Solve(ctx, p)
		} else {
			sol, err = nested.Solve(ctx, m)
		}
		if err != nil {
			return nil, err
		}
		b := p.Block()
		trTok, trSeq, err := EvalContinuous(b, sol.Weights, s.Train)
		if err != nil {
			return nil, err
		}
		teTok, teSeq, err := EvalContinuous(b, sol.Weights, s.Test)
		if err != nil {
			return nil, err
		}
		r := Section6Row{
			M: m, Value: sol.Value, TrainPerToken: trTok, TrainPerSeq: trSeq,
			TestPerToken: teTok, TestPerSeq: teSeq, Actions: sol.Actions,
			Nodes: sol.Stats.Nodes, Leaves: sol.Stats.Leaves, Evaluated: sol.Stats.Evaluated,
			OutOfGrid: sol.Stats.OutOfGrid, Time: sol.Stats.Elapsed, Total: time.Since(start),
		}
		if len(rows) > 0 {
			f := rows[0]
			r.TrainImprovement = improvement(f.TrainPerToken, trTok)
			r.TestImprovement = improvement(f.TestPerToken, teTok)
			r.ValueImprovement = improvement(f.Value, sol.Value)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func improvement(first, e float64) float64 {
	if first == 0 {
		return 0
	}
	return 100 * (1 - e/first)
}
