package control

import (
	"fmt"
	"math"
	"reflect"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/quantize"
	"github.com/icrl-go/icrl/tensor"
)

// This file is the quantized lifted MDP 𝖬𝖣𝖯^(ℓ,n,m) of
// optimal-control-transformer-training §2 (eqs. (23)–(31)): the data set,
// the problem configuration, the ensemble states and the maps Init, Step
// and TerminalCost of Algorithm 1, with the corrections listed in the
// package doc.

// Dataset is a training (or test) set of K sequences of N tokens in R^d
// (§2.2): X and Y are K × N × d arrays, X.Row(k, i) the input token
// x^{i,k} and Y.Row(k, i) its label y^{i,k}. Build them with tensor.New
// (and Row to fill a token), tensor.FromData or tensor.Stack.
type Dataset[F tensor.Float] struct {
	X, Y *tensor.Dense[F]
}

// Dims returns K, N and d, the dimensions of X (zeros for a nil or zero
// X). It does not validate.
func (d Dataset[F]) Dims() (K, N, D int) {
	if d.X == nil || d.X.Rank() != 3 {
		return 0, 0, 0
	}
	return d.X.Dim(0), d.X.Dim(1), d.X.Dim(2)
}

// Validate returns nil if X and Y are K × N × d arrays of the same shape
// with d = dim (any d if dim ≤ 0) and every entry is finite. Otherwise the
// error names the first bad value.
func (d Dataset[F]) Validate(dim int) error {
	for _, side := range [2]struct {
		name string
		t    *tensor.Dense[F]
	}{{"input", d.X}, {"label", d.Y}} {
		if side.t == nil {
			return fmt.Errorf("%w: data set has no %s array", icrl.ErrNil, side.name)
		}
		if side.t.Rank() != 3 {
			return fmt.Errorf("%w: %s array has shape %v, want K × N × d", icrl.ErrInvalid, side.name, side.t.Shape())
		}
	}
	K, N, D := d.Dims()
	if dim > 0 && D != dim {
		return fmt.Errorf("%w: input tokens have length %d, want D = %d", icrl.ErrInvalid, D, dim)
	}
	if ys := d.Y.Shape(); ys[0] != K || ys[1] != N || ys[2] != D {
		return fmt.Errorf("%w: input array %d × %d × %d but label array %v", icrl.ErrInvalid, K, N, D, ys)
	}
	for _, side := range [2]struct {
		name string
		t    *tensor.Dense[F]
	}{{"input", d.X}, {"label", d.Y}} {
		for j, v := range side.t.Data() {
			if !finite(v) {
				k, i := j/(N*D), j/D%N
				return fmt.Errorf("%w: %s token (%d, %d) entry %d = %v is not finite", icrl.ErrNotFinite, side.name, k, i, j%D, v)
			}
		}
	}
	return nil
}

// tokens returns the N tokens of sequence k of a K × N × d array as views
// of its rows.
func tokens[F tensor.Float](t *tensor.Dense[F], k int) [][]F {
	out := make([][]F, t.Dim(1))
	for i := range out {
		out[i] = t.Row(k, i)
	}
	return out
}

// TerminalMode selects the label measures of the terminal cost. The
// paper's R_ℓ(ν^k) is undefined, because the labels ν^k are not measures
// on the grid.
type TerminalMode int

const (
	// QuantizedLabels compares with ν̂^k = R_ℓ((1/N) Σ_i δ_(p_i, Q^(n)(y^{i,k}))):
	// the labels are snapped to the last layer's grid first (Algorithm 1
	// line 7). The zero value and the default.
	QuantizedLabels TerminalMode = iota
	// RawLabels compares with the unquantised ν^k = (1/N) Σ_i δ_(p_i, y^{i,k})
	// (the (N2) process of Theorem 14), removing one error source.
	RawLabels
)

// String returns the mode's name.
func (m TerminalMode) String() string {
	switch m {
	case QuantizedLabels:
		return "QuantizedLabels"
	case RawLabels:
		return "RawLabels"
	}
	return fmt.Sprintf("TerminalMode(%d)", int(m))
}

// OutOfGridMode says what happens to a token that leaves the box a grid
// covers (without a residual connection, states need not stay in S).
type OutOfGridMode int

const (
	// Snap maps it to the nearest grid point (implicit clipping) without
	// counting. The zero value and the default.
	Snap OutOfGridMode = iota
	// Fail makes the problem constructor (for data outside the grid) or the
	// solver (for a transition leaving the grid) return an error.
	Fail
	// SnapAndCount snaps like Snap and counts the snapped tokens that were
	// outside in [Stats] and [Problem.InitOutOfGrid].
	SnapAndCount
)

// String returns the mode's name.
func (m OutOfGridMode) String() string {
	switch m {
	case Snap:
		return "Snap"
	case Fail:
		return "Fail"
	case SnapAndCount:
		return "SnapAndCount"
	}
	return fmt.Sprintf("OutOfGridMode(%d)", int(m))
}

// ProblemConfig configures [NewProblem]. The zero values of the modes are
// the defaults.
type ProblemConfig[F tensor.Float] struct {
	// Block is the transformer block of eq. (1) (sizes, β, σ; nil σ is
	// ReLU).
	Block Block[F]
	// T ≥ 1 is the horizon (number of layers).
	T int
	// Data is the training set; its token dimension must be Block.Dims.D.
	Data Dataset[F]
	// Grid is the state quantizer S_n used at every layer (eq. (17)–(18)).
	Grid quantize.StateQuantizer[F]
	// Grids, if non-nil, overrides Grid with one quantizer per time
	// t = 0, …, T (len T+1): Grids[0] quantizes the inputs, Grids[t] the
	// states after layer t and Grids[T] the outputs and labels. Per-layer
	// grids covering per-layer reachable boxes keep Lemma 20 valid.
	Grids []quantize.StateQuantizer[F]
	// Ell ≥ 1 is the measure-quantisation level ℓ (eq. (22)).
	Ell int
	// Measure selects R_ℓ of eq. (26): quantize.PositionPreservingMode
	// (the zero value and the default) rounds each position's
	// atoms separately with ℓ/N units, needs N | ℓ and is then the identity
	// on every state reachable from data; quantize.ReznikMode is the
	// paper's R_ℓ (Reznik 2011), the Euclidean-nearest type over all atoms
	// of 𝕏_n, active on the initial measures when N ∤ ℓ; being
	// Euclidean-nearest rather than W_{2,λ}-nearest, it can move mass
	// across positions.
	Measure quantize.MeasureMode
	// Terminal selects the labels of the terminal cost.
	Terminal TerminalMode
	// OutOfGrid selects the handling of tokens outside a grid.
	OutOfGrid OutOfGridMode
	// AllowDataOutsideGrid accepts training inputs (and quantized labels)
	// outside the box of their grid and handles them by OutOfGrid. By
	// default such data is an error: a grid that does not cover the data
	// is a mistake, whereas states that leave the box during the dynamics
	// are expected.
	AllowDataOutsideGrid bool
	// Lambda is λ of the ground cost c_λ² = ‖x−y‖² + λ|p−q|² (eq. (14)).
	// Zero means 2·quantize.LambdaMin(diam, N), with diam the diameter of
	// the bounding box of all grid points (and raw labels). Whenever
	// λ ≥ LambdaMin the optimal coupling keeps positions and the terminal
	// cost is the per-position squared error (Theorem 6, with the
	// corrected threshold of quantize.LambdaMin), so λ is then
	// irrelevant; a smaller positive λ is honoured by exact optimal
	// transport.
	Lambda F
	// Actions is the finite action set 𝕌_m = {U^0, …, U^{M−1}}, shared by
	// all layers (Algorithm 1). It may be empty here and filled later by
	// [Problem.AppendActions]; the solvers need at least one action.
	Actions []*Action[F]
	// General forces the general state representation (K sparse types
	// [quantize.QMeasure], eqs. (23)–(27)) even when the N-type
	// representation is exact (N | ℓ). Meant for cross-checks; slower.
	General bool
}

// Problem is the quantized MDP 𝖬𝖣𝖯^(ℓ,n,m) of Algorithm 1 for one data
// set: states are ensembles (μ̂^1, …, μ̂^K) of quantized measures, actions
// are indices into the finite set 𝕌_m, transitions are the deterministic
// map 𝚽^(ℓ,n,m) of eq. (27) and the cost is terminal (eq. (29), squared
// once).
//
// Two state representations are used:
//
//   - N-type ([NTypeState], K×N grid indices) when N | ℓ, with either
//     measure quantizer. Every reachable measure is then (1/N) Σ_i
//     δ_(p_i, s_{j_i}) with distinct positions, R_ℓ is the identity and
//     𝚽^(ℓ,n,m) is "run eq. (1) on the snapped tokens, snap the outputs"
//     (merged atoms do not arise).
//   - general ([GeneralState], K sparse types with denominator ℓ)
//     otherwise, or when forced. The softmax is weighted by the atom
//     counts (eq. (5)) and the terminal cost is exact optimal
//     transport (quantize.Cost.W2SqCounts), with the position-locked fast
//     path when it is exact (Theorem 6).
//
// For speed, every action's feed-forward output W σ(A s + b), β Q s and
// K s are tabulated on every grid point s, so a
// transition on snapped tokens costs N² small dot products, N² exps and N
// grid look-ups per sample; the tables take M·G·(D + 2·QK) scalars per
// distinct input grid. For N-type states a transition performs the
// floating-point operations of [Block.Layer] on the grid points, in the
// same order (bit-identical unless the compiler fuses multiply-adds
// differently in the two, as it may on arm64).
//
// R_ℓ is applied to the initial and label measures. After a transition it
// is the identity: the push-forward of a type with denominator ℓ is again
// such a type with the same mass at every position, on which both
// quantizers are the identity (Reznik is the identity on types; the
// position-preserving quantizer on types with mass 1/N per position).
//
// A Problem is safe for concurrent use by the solvers and by Step,
// TerminalCost and Init, except that [Problem.AppendActions] must not run
// concurrently with anything else.
type Problem[F tensor.Float] struct {
	block        Block[F]
	horizon      int
	data         Dataset[F]
	grids        []quantize.StateQuantizer[F]
	ell          int
	mq           quantize.MeasureMode
	term         TerminalMode
	oog          OutOfGridMode
	allowOutside bool
	lambda       F
	lmin         F
	locked       bool // λ ≥ LambdaMin: position-locked OT is exact
	general      bool
	actions      []*Action[F]

	K, N, D, QK, stride int

	gsize []int // G_t per time t
	ix    []quantize.AtomIndex
	pts   [][]F // flat grid points per time t (shared between equal grids)
	tabOf []int // time t → table set (t < T)
	tabs  [][][]F
	tabG  []int // table set → index of a time using it

	s0          []int32
	initOutside int
	initTotal   int

	// labels: per sample k and position i (0-based), the label point and
	// its mass labCnt/labDen (0 if absent).
	labPts []F
	labCnt []int32
	labDen int32
	// labels as atoms for exact optimal transport
	labAtoms [][]quantize.Atom[F]
	labCnts  [][]int // scaled to the common denominator lcm(ℓ, labDen)
	muScale  int     // lcm(ℓ, labDen)/ℓ, the scale of μ̂'s counts
	cost     quantize.Cost[F]
}

// NewProblem validates cfg and returns the quantized MDP. It snaps the
// data to the grids (Algorithm 1 lines 5–8), quantizes the initial and
// label measures with R_ℓ, and tabulates every action on every grid. It
// returns an error naming the bad value if the block is invalid, T < 1,
// the data set is invalid or its token dimension differs from the block's,
// a grid is missing, has another dimension or no points, len(Grids) ≠ T+1,
// ℓ < 1, the position-preserving quantizer is asked for with N ∤ ℓ, a mode
// is unknown, λ is negative or not finite, an action is nil, invalid or of
// other sizes, or (with OutOfGrid = Fail) a data token lies outside its
// grid's box.
//
// The cost is O(M·G·(Hidden·D + QK·D)) for the tables plus O(K·N) grid
// look-ups.
func NewProblem[F tensor.Float](cfg ProblemConfig[F]) (*Problem[F], error) {
	b := cfg.Block
	if b.Sigma == nil {
		b.Sigma = ReLU[F]{}
	}
	if err := checkProblemConfig(cfg); err != nil {
		return nil, err
	}
	grids, err := problemGrids(cfg)
	if err != nil {
		return nil, err
	}
	K, N, D := cfg.Data.Dims()
	p := &Problem[F]{
		block: b, horizon: cfg.T, data: cfg.Data, grids: grids, ell: cfg.Ell,
		mq: cfg.Measure, term: cfg.Terminal, oog: cfg.OutOfGrid, allowOutside: cfg.AllowDataOutsideGrid,
		general: cfg.General || cfg.Ell%N != 0,
		K:       K, N: N, D: D, QK: b.Dims.QK, stride: D + 2*b.Dims.QK,
	}
	if err := p.loadGrids(); err != nil {
		return nil, err
	}
	p.setLambda(cfg.Lambda)
	if err := p.AppendActions(cfg.Actions...); err != nil {
		return nil, err
	}
	if err := p.initStates(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkProblemConfig validates everything of cfg but the grids.
func checkProblemConfig[F tensor.Float](cfg ProblemConfig[F]) error {
	if err := cfg.Block.Validate(); err != nil {
		return err
	}
	if cfg.T < 1 {
		return fmt.Errorf("%w: horizon T = %d must be at least 1", icrl.ErrInvalid, cfg.T)
	}
	if err := cfg.Data.Validate(cfg.Block.Dims.D); err != nil {
		return err
	}
	if cfg.Ell < 1 {
		return fmt.Errorf("%w: measure level ℓ = %d must be at least 1", icrl.ErrInvalid, cfg.Ell)
	}
	if cfg.Ell > math.MaxInt32 {
		return fmt.Errorf("%w: measure level ℓ = %d exceeds %d", icrl.ErrInvalid, cfg.Ell, math.MaxInt32)
	}
	switch cfg.Measure {
	case quantize.PositionPreservingMode, quantize.ReznikMode:
	default:
		return fmt.Errorf("%w: unknown measure quantization %v", icrl.ErrInvalid, cfg.Measure)
	}
	switch cfg.Terminal {
	case QuantizedLabels, RawLabels:
	default:
		return fmt.Errorf("%w: unknown terminal mode %v", icrl.ErrInvalid, cfg.Terminal)
	}
	switch cfg.OutOfGrid {
	case Snap, Fail, SnapAndCount:
	default:
		return fmt.Errorf("%w: unknown out-of-grid mode %v", icrl.ErrInvalid, cfg.OutOfGrid)
	}
	if !finite(cfg.Lambda) || cfg.Lambda < 0 {
		return fmt.Errorf("%w: λ = %v must be finite and non-negative (0 selects the default)", icrl.ErrInvalid, cfg.Lambda)
	}
	if _, N, _ := cfg.Data.Dims(); cfg.Measure == quantize.PositionPreservingMode && cfg.Ell%N != 0 {
		return fmt.Errorf("%w: position-preserving measure quantization needs N | ℓ, have N = %d and ℓ = %d (use Reznik)", icrl.ErrInvalid, N, cfg.Ell)
	}
	return nil
}

// problemGrids returns the T+1 per-time grids of cfg (Grid repeated, or a
// copy of Grids) after checking each.
func problemGrids[F tensor.Float](cfg ProblemConfig[F]) ([]quantize.StateQuantizer[F], error) {
	_, N, D := cfg.Data.Dims()
	grids := cfg.Grids
	if grids == nil {
		if cfg.Grid == nil {
			return nil, fmt.Errorf("%w: no state grid (Grid and Grids are both nil)", icrl.ErrInvalid)
		}
		grids = make([]quantize.StateQuantizer[F], cfg.T+1)
		for t := range grids {
			grids[t] = cfg.Grid
		}
	} else {
		if len(grids) != cfg.T+1 {
			return nil, fmt.Errorf("%w: %d per-layer grids, want T+1 = %d", icrl.ErrInvalid, len(grids), cfg.T+1)
		}
		grids = append([]quantize.StateQuantizer[F](nil), grids...)
	}
	for t, g := range grids {
		if g == nil {
			return nil, fmt.Errorf("%w: grid %d is nil", icrl.ErrNil, t)
		}
		if g.Dim() != D {
			return nil, fmt.Errorf("%w: grid %d has dimension %d, want D = %d", icrl.ErrInvalid, t, g.Dim(), D)
		}
		if g.Size() < 1 {
			return nil, fmt.Errorf("%w: grid %d has no points", icrl.ErrInvalid, t)
		}
		if int64(N)*int64(g.Size()) > math.MaxInt32 {
			return nil, fmt.Errorf("%w: grid %d with %d points gives more than %d atoms for N = %d", icrl.ErrInvalid, t, g.Size(), math.MaxInt32, N)
		}
	}
	return grids, nil
}

// loadGrids copies the grid points (shared between identical grids) and
// assigns each layer's input grid a transition table slot.
func (p *Problem[F]) loadGrids() error {
	T, N, D := p.horizon, p.N, p.D
	p.gsize = make([]int, T+1)
	p.ix = make([]quantize.AtomIndex, T+1)
	p.pts = make([][]F, T+1)
	for t, g := range p.grids {
		p.gsize[t] = g.Size()
		p.ix[t] = quantize.AtomIndex{N: N, G: g.Size()}
		if u := sameGrid(p.grids, t); u < t {
			p.pts[t] = p.pts[u]
			continue
		}
		pts := make([]F, g.Size()*D)
		for j := range g.Size() {
			pt := g.Point(j)
			if len(pt) != D {
				return fmt.Errorf("%w: grid %d point %d has length %d, want D = %d", icrl.ErrInvalid, t, j, len(pt), D)
			}
			if err := checkFinite(fmt.Sprintf("grid %d point %d", t, j), pt); err != nil {
				return err
			}
			copy(pts[j*D:], pt)
		}
		p.pts[t] = pts
	}
	p.tabOf = make([]int, T)
	for t := range T {
		if u := sameGrid(p.grids, t); u < t {
			p.tabOf[t] = p.tabOf[u]
			continue
		}
		p.tabOf[t] = len(p.tabs)
		p.tabs = append(p.tabs, nil)
		p.tabG = append(p.tabG, t)
	}
	return nil
}

// setLambda sets λ (lambda, or twice LambdaMin of the grids' diameter when
// zero) and the position-locked fast path it allows.
func (p *Problem[F]) setLambda(lambda F) {
	p.lmin = quantize.LambdaMin(p.diameter(), p.N)
	p.lambda = lambda
	if p.lambda == 0 {
		p.lambda = 2 * p.lmin
		if p.lambda == 0 { // a single point: any λ > 0 works
			p.lambda = 1
		}
	}
	p.locked = p.lambda >= p.lmin
	p.cost = quantize.Cost[F]{Lambda: p.lambda, N: p.N}
}

// sameGrid returns the smallest u ≤ t whose grid is the same object as
// grids[t] (pointer-like values compared by identity; others only equal
// themselves).
func sameGrid[F tensor.Float](grids []quantize.StateQuantizer[F], t int) int {
	vt := reflect.ValueOf(grids[t])
	if !vt.Comparable() {
		return t
	}
	for u := range t {
		vu := reflect.ValueOf(grids[u])
		if vu.Type() == vt.Type() && vu.Comparable() && vu.Equal(vt) {
			return u
		}
	}
	return t
}

func checkFinite[F tensor.Float](name string, x []F) error {
	for c, v := range x {
		if !finite(v) {
			return fmt.Errorf("%w: %s entry %d = %v is not finite", icrl.ErrNotFinite, name, c, v)
		}
	}
	return nil
}

// Horizon returns T.
func (p *Problem[F]) Horizon() int { return p.horizon }

// NumActions returns M = |𝕌_m|.
func (p *Problem[F]) NumActions() int { return len(p.actions) }

// Action returns U^j (the problem's own copy; do not modify).
func (p *Problem[F]) Action(j int) *Action[F] { return p.actions[j] }

// Block returns the transformer block (with σ set).
func (p *Problem[F]) Block() Block[F] { return p.block }

// Data returns the training set.
func (p *Problem[F]) Data() Dataset[F] { return p.data }

// Grid returns the state quantizer of time t ∈ [0, T].
func (p *Problem[F]) Grid(t int) quantize.StateQuantizer[F] { return p.grids[t] }

// Ell returns ℓ.
func (p *Problem[F]) Ell() int { return p.ell }

// Lambda returns the λ in use and quantize.LambdaMin for the grids'
// bounding box; when lambda ≥ lambdaMin the terminal cost is the
// per-position squared error.
func (p *Problem[F]) Lambda() (lambda, lambdaMin F) { return p.lambda, p.lmin }

// General reports whether states use the general representation
// ([GeneralState]) rather than the N-type one ([NTypeState]).
func (p *Problem[F]) General() bool { return p.general }

// Size returns the number K of samples and N of tokens per sample.
func (p *Problem[F]) Size() (K, N int) { return p.K, p.N }

// InitOutOfGrid returns how many data tokens (inputs, and labels with
// QuantizedLabels) lay outside their grid's box when the problem was built
// (counted with SnapAndCount only), and how many were snapped.
func (p *Problem[F]) InitOutOfGrid() (outside, total int) { return p.initOutside, p.initTotal }

// ---------------------------------------------------------------------------
// States
