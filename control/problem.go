package control

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"

	"github.com/icrl-go/icrl/quantize"
)

// This file is the quantized lifted MDP 𝖬𝖣𝖯^(ℓ,n,m) of
// optimal-control-transformer-training §2 (eqs. (23)–(31)): the data set,
// the problem configuration, the ensemble states and the maps Init, Step
// and TerminalCost of Algorithm 1, with the corrections listed in the
// package doc.

// Dataset is a training (or test) set of K sequences of N tokens in R^d:
// X[k][i] is the input token x^{i,k} and Y[k][i] its label y^{i,k}
// (§2.2). Both are K × N × d.
type Dataset[F Float] struct {
	X, Y [][][]F
}

// Dims returns K = len(X), N = len(X[0]) and d = len(X[0][0]) (zeros for
// an empty set). It does not validate.
func (d Dataset[F]) Dims() (K, N, D int) {
	K = len(d.X)
	if K > 0 {
		N = len(d.X[0])
		if N > 0 {
			D = len(d.X[0][0])
		}
	}
	return K, N, D
}

// Validate returns nil if the data set is non-empty (K, N, d ≥ 1), X and Y
// have the same shape K × N × d with d = dim (any common d if dim ≤ 0) and
// every entry is finite. Otherwise the error names the first bad value.
func (d Dataset[F]) Validate(dim int) error {
	K, N, D := d.Dims()
	if K == 0 {
		return fmt.Errorf("%w: data set has no sequences", ErrInvalid)
	}
	if N == 0 {
		return fmt.Errorf("%w: input sequence 0 has no tokens", ErrInvalid)
	}
	if dim > 0 && D != dim {
		return fmt.Errorf("%w: input token (0, 0) has length %d, want D = %d", ErrInvalid, D, dim)
	}
	if D == 0 {
		return fmt.Errorf("%w: input token (0, 0) is empty", ErrInvalid)
	}
	if len(d.Y) != K {
		return fmt.Errorf("%w: %d input sequences but %d label sequences", ErrInvalid, K, len(d.Y))
	}
	for k := range K {
		for _, side := range [2]struct {
			name string
			seq  [][]F
		}{{"input", d.X[k]}, {"label", d.Y[k]}} {
			if len(side.seq) != N {
				return fmt.Errorf("%w: %s sequence %d has %d tokens, want N = %d", ErrInvalid, side.name, k, len(side.seq), N)
			}
			for i, x := range side.seq {
				if len(x) != D {
					return fmt.Errorf("%w: %s token (%d, %d) has length %d, want D = %d", ErrInvalid, side.name, k, i, len(x), D)
				}
				for c, v := range x {
					if !finite(v) {
						return fmt.Errorf("%w: %s token (%d, %d) entry %d = %v is not finite", ErrNotFinite, side.name, k, i, c, v)
					}
				}
			}
		}
	}
	return nil
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
type ProblemConfig[F Float] struct {
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
type Problem[F Float] struct {
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
func NewProblem[F Float](cfg ProblemConfig[F]) (*Problem[F], error) {
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
func checkProblemConfig[F Float](cfg ProblemConfig[F]) error {
	if err := cfg.Block.Validate(); err != nil {
		return err
	}
	if cfg.T < 1 {
		return fmt.Errorf("%w: horizon T = %d must be at least 1", ErrInvalid, cfg.T)
	}
	if err := cfg.Data.Validate(cfg.Block.Dims.D); err != nil {
		return err
	}
	if cfg.Ell < 1 {
		return fmt.Errorf("%w: measure level ℓ = %d must be at least 1", ErrInvalid, cfg.Ell)
	}
	if cfg.Ell > math.MaxInt32 {
		return fmt.Errorf("%w: measure level ℓ = %d exceeds %d", ErrInvalid, cfg.Ell, math.MaxInt32)
	}
	switch cfg.Measure {
	case quantize.PositionPreservingMode, quantize.ReznikMode:
	default:
		return fmt.Errorf("%w: unknown measure quantization %v", ErrInvalid, cfg.Measure)
	}
	switch cfg.Terminal {
	case QuantizedLabels, RawLabels:
	default:
		return fmt.Errorf("%w: unknown terminal mode %v", ErrInvalid, cfg.Terminal)
	}
	switch cfg.OutOfGrid {
	case Snap, Fail, SnapAndCount:
	default:
		return fmt.Errorf("%w: unknown out-of-grid mode %v", ErrInvalid, cfg.OutOfGrid)
	}
	if !finite(cfg.Lambda) || cfg.Lambda < 0 {
		return fmt.Errorf("%w: λ = %v must be finite and non-negative (0 selects the default)", ErrInvalid, cfg.Lambda)
	}
	if _, N, _ := cfg.Data.Dims(); cfg.Measure == quantize.PositionPreservingMode && cfg.Ell%N != 0 {
		return fmt.Errorf("%w: position-preserving measure quantization needs N | ℓ, have N = %d and ℓ = %d (use Reznik)", ErrInvalid, N, cfg.Ell)
	}
	return nil
}

// problemGrids returns the T+1 per-time grids of cfg (Grid repeated, or a
// copy of Grids) after checking each.
func problemGrids[F Float](cfg ProblemConfig[F]) ([]quantize.StateQuantizer[F], error) {
	_, N, D := cfg.Data.Dims()
	grids := cfg.Grids
	if grids == nil {
		if cfg.Grid == nil {
			return nil, fmt.Errorf("%w: no state grid (Grid and Grids are both nil)", ErrInvalid)
		}
		grids = make([]quantize.StateQuantizer[F], cfg.T+1)
		for t := range grids {
			grids[t] = cfg.Grid
		}
	} else {
		if len(grids) != cfg.T+1 {
			return nil, fmt.Errorf("%w: %d per-layer grids, want T+1 = %d", ErrInvalid, len(grids), cfg.T+1)
		}
		grids = append([]quantize.StateQuantizer[F](nil), grids...)
	}
	for t, g := range grids {
		if g == nil {
			return nil, fmt.Errorf("%w: grid %d is nil", ErrNil, t)
		}
		if g.Dim() != D {
			return nil, fmt.Errorf("%w: grid %d has dimension %d, want D = %d", ErrInvalid, t, g.Dim(), D)
		}
		if g.Size() < 1 {
			return nil, fmt.Errorf("%w: grid %d has no points", ErrInvalid, t)
		}
		if int64(N)*int64(g.Size()) > math.MaxInt32 {
			return nil, fmt.Errorf("%w: grid %d with %d points gives more than %d atoms for N = %d", ErrInvalid, t, g.Size(), math.MaxInt32, N)
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
				return fmt.Errorf("%w: grid %d point %d has length %d, want D = %d", ErrInvalid, t, j, len(pt), D)
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
func sameGrid[F Float](grids []quantize.StateQuantizer[F], t int) int {
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

func checkFinite[F Float](name string, x []F) error {
	for c, v := range x {
		if !finite(v) {
			return fmt.Errorf("%w: %s entry %d = %v is not finite", ErrNotFinite, name, c, v)
		}
	}
	return nil
}

// diameter returns the diagonal of the bounding box of every grid point
// (and of the raw labels with RawLabels), an upper bound on the diameter
// of the set of states the terminal cost can see.
func (p *Problem[F]) diameter() F {
	D := p.D
	lo := make([]float64, D)
	hi := make([]float64, D)
	for c := range D {
		lo[c], hi[c] = math.Inf(1), math.Inf(-1)
	}
	add := func(x []F) {
		for c, v := range x {
			lo[c] = min(lo[c], float64(v))
			hi[c] = max(hi[c], float64(v))
		}
	}
	for t, pts := range p.pts {
		if t > 0 && sameGrid(p.grids, t) < t {
			continue
		}
		for o := 0; o < len(pts); o += D {
			add(pts[o : o+D])
		}
	}
	if p.term == RawLabels {
		for _, seq := range p.data.Y {
			for _, y := range seq {
				add(y)
			}
		}
	}
	s := 0.0
	for c := range D {
		w := hi[c] - lo[c]
		s += w * w
	}
	return F(math.Sqrt(s))
}

// AppendActions appends actions to 𝕌_m (in order, so earlier indices keep
// their meaning: nested action sets) and tabulates them on
// the grids. It returns an error naming the action if one is nil, invalid
// or of other sizes than the block; then nothing is appended. It must not
// run concurrently with any other use of p.
func (p *Problem[F]) AppendActions(us ...*Action[F]) error {
	for j, u := range us {
		if u == nil {
			return fmt.Errorf("%w: action %d is nil", ErrNil, len(p.actions)+j)
		}
		if u.Dims != p.block.Dims {
			return fmt.Errorf("%w: action %d has dims %+v, block has %+v", ErrInvalid, len(p.actions)+j, u.Dims, p.block.Dims)
		}
		if err := u.Validate(); err != nil {
			return fmt.Errorf("control: action %d: %w", len(p.actions)+j, err)
		}
	}
	for _, u := range us {
		u = u.Clone()
		p.actions = append(p.actions, u)
		for ts, t := range p.tabG {
			p.tabs[ts] = append(p.tabs[ts], p.tabulate(t, u))
		}
	}
	return nil
}

// tabulate returns the table of action u on the grid of time t: per grid
// point s, W σ(A s + b) (D), β Q s (QK) and K s (QK), computed exactly as
// [Block.Layer] computes them.
func (p *Problem[F]) tabulate(t int, u *Action[F]) []F {
	G, D, QK, st := p.gsize[t], p.D, p.QK, p.stride
	tab := make([]F, G*st)
	h := make([]F, p.block.Dims.Hidden)
	pts := p.pts[t]
	for j := range G {
		x := pts[j*D : j*D+D]
		r := tab[j*st : j*st+st]
		p.block.feedForward(r[:D], x, u, h)
		q := r[D : D+QK]
		matVec(q, u.Q, x)
		for c := range q {
			q[c] *= p.block.Beta
		}
		matVec(r[D+QK:D+2*QK], u.K, x)
	}
	return tab
}

// initStates snaps the data and builds s0 and the labels (Algorithm 1
// lines 5–8).
func (p *Problem[F]) initStates() error {
	K, N, D, T := p.K, p.N, p.D, p.horizon
	g0, gT := p.grids[0], p.grids[T]
	idx := make([]int32, N)
	prob := make([]float64, N)
	for i := range prob {
		prob[i] = 1 / float64(N)
	}
	snap := func(g quantize.StateQuantizer[F], x []F, what string, k, i int) (int32, error) {
		j, inside := g.Nearest(x)
		if j < 0 || j >= g.Size() {
			return 0, fmt.Errorf("%w: grid returned index %d outside [0, %d) for %s token (%d, %d)", ErrInvalid, j, g.Size(), what, k, i)
		}
		p.initTotal++
		if !inside {
			if !p.allowOutside {
				return 0, fmt.Errorf("%w: %s token (%d, %d) = %v lies outside the grid's box: the grid does not cover the data (set AllowDataOutsideGrid to snap it)", ErrInvalid, what, k, i, x)
			}
			switch p.oog {
			case Fail:
				return 0, fmt.Errorf("%w: %s token (%d, %d) = %v lies outside the grid's box (OutOfGrid = Fail)", ErrInvalid, what, k, i, x)
			case SnapAndCount:
				p.initOutside++
			}
		}
		return int32(j), nil
	}
	quant := func(t int) (quantize.QMeasure, error) {
		return quantize.QuantizeMeasure(idx, prob, p.ell, p.mq, p.ix[t])
	}

	p.labPts = make([]F, K*N*D)
	p.labCnt = make([]int32, K*N)
	p.labAtoms = make([][]quantize.Atom[F], K)
	p.labCnts = make([][]int, K)
	p.s0 = p.s0[:0]
	for k := range K {
		// Inputs.
		for i := range N {
			j, err := snap(g0, p.data.X[k][i], "input", k, i)
			if err != nil {
				return err
			}
			idx[i] = int32(i)*int32(p.gsize[0]) + j
			if !p.general {
				p.s0 = append(p.s0, j)
			}
		}
		if p.general {
			q, err := quant(0)
			if err != nil {
				return fmt.Errorf("control: quantizing initial measure %d: %w", k, err)
			}
			p.s0 = appendQMeasure(p.s0, q)
		}
		// Labels.
		if p.term == RawLabels {
			p.labDen = int32(N)
			for i := range N {
				copy(p.labPts[(k*N+i)*D:], p.data.Y[k][i])
				p.labCnt[k*N+i] = 1
				p.labAtoms[k] = append(p.labAtoms[k], quantize.Atom[F]{Pos: i + 1, X: p.data.Y[k][i]})
				p.labCnts[k] = append(p.labCnts[k], 1)
			}
			continue
		}
		p.labDen = int32(p.ell)
		for i := range N {
			j, err := snap(gT, p.data.Y[k][i], "label", k, i)
			if err != nil {
				return err
			}
			idx[i] = int32(i)*int32(p.gsize[T]) + j
		}
		q, err := quant(T)
		if err != nil {
			return fmt.Errorf("control: quantizing label measure %d: %w", k, err)
		}
		for a, at := range q.Idx {
			pos, j := int(at)/p.gsize[T], int(at)%p.gsize[T]
			pt := p.pts[T][j*D : j*D+D]
			if p.labCnt[k*N+pos] == 0 {
				copy(p.labPts[(k*N+pos)*D:], pt)
				p.labCnt[k*N+pos] = q.Cnt[a]
			} else {
				p.labCnt[k*N+pos] = -1 // several atoms at one position: no fast path
			}
			p.labAtoms[k] = append(p.labAtoms[k], quantize.Atom[F]{Pos: pos + 1, X: pt})
			p.labCnts[k] = append(p.labCnts[k], int(q.Cnt[a]))
		}
	}
	// Common denominator for exact transport against the labels.
	L := lcm(p.ell, int(p.labDen))
	p.muScale = L / p.ell
	for k := range p.labCnts {
		for a := range p.labCnts[k] {
			p.labCnts[k][a] *= L / int(p.labDen)
		}
	}
	return nil
}

func lcm(a, b int) int {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

// appendQMeasure appends the internal encoding [n, idx_1, cnt_1, …] of q.
func appendQMeasure(dst []int32, q quantize.QMeasure) []int32 {
	dst = append(dst, int32(len(q.Idx)))
	for a := range q.Idx {
		dst = append(dst, q.Idx[a], q.Cnt[a])
	}
	return dst
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

// State is a state of the quantized MDP, an ensemble (μ̂^1, …, μ̂^K): an
// [NTypeState] or a [GeneralState]. AppendKey appends a canonical byte
// encoding (equal keys iff equal states of the same representation), the
// key of the closed-loop tables ([ClosedLoop]).
type State interface {
	AppendKey(dst []byte) []byte
	encode(dst []int32) []int32
}

// NTypeState is the N-type representation: Idx[k·N + i] is the grid index
// j of token i+1 of sample k, i.e. μ̂^k = (1/N) Σ_i δ_(p_i, s_{Idx[k·N+i]})
// The grid is that of the state's time.
type NTypeState struct {
	N   int
	Idx []int32
}

// AppendKey appends Idx as little-endian 32-bit words.
func (s NTypeState) AppendKey(dst []byte) []byte { return appendKey(dst, s.Idx) }

func (s NTypeState) encode(dst []int32) []int32 { return append(dst, s.Idx...) }

// GeneralState is the general representation: M[k] is μ̂^k ∈ 𝒫^(ℓ)(𝕏_n), a
// type on the atoms a = (pos−1)·G + j of the state's time (quantize.AtomIndex).
type GeneralState struct {
	M []quantize.QMeasure
}

// AppendKey appends, per sample, the support size and the (index, count)
// pairs as little-endian 32-bit words.
func (s GeneralState) AppendKey(dst []byte) []byte { return appendKey(dst, s.encode(nil)) }

func (s GeneralState) encode(dst []int32) []int32 {
	for _, q := range s.M {
		dst = appendQMeasure(dst, q)
	}
	return dst
}

func appendKey(dst []byte, s []int32) []byte {
	for _, v := range s {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(v))
	}
	return dst
}

// state converts the internal encoding of a state at time t to a State
// (copying).
func (p *Problem[F]) state(s []int32, general bool) State {
	if !general {
		return NTypeState{N: p.N, Idx: append([]int32(nil), s...)}
	}
	g := GeneralState{M: make([]quantize.QMeasure, 0, p.K)}
	for o := 0; o < len(s); {
		n := int(s[o])
		q := quantize.QMeasure{Idx: make([]int32, n), Cnt: make([]int32, n), Ell: int32(p.ell)}
		for a := range n {
			q.Idx[a], q.Cnt[a] = s[o+1+2*a], s[o+2+2*a]
		}
		g.M = append(g.M, q)
		o += 1 + 2*n
	}
	return g
}

// decode validates s as a state at time t and returns its encoding and
// representation.
func (p *Problem[F]) decode(t int, s State) ([]int32, bool, error) {
	switch s := s.(type) {
	case NTypeState:
		if s.N != p.N || len(s.Idx) != p.K*p.N {
			return nil, false, fmt.Errorf("%w: N-type state with N = %d and %d indices, want N = %d and K·N = %d", ErrInvalid, s.N, len(s.Idx), p.N, p.K*p.N)
		}
		if p.ell%p.N != 0 {
			return nil, false, fmt.Errorf("%w: N-type state needs N | ℓ, have N = %d and ℓ = %d", ErrInvalid, p.N, p.ell)
		}
		for a, j := range s.Idx {
			if j < 0 || int(j) >= p.gsize[t] {
				return nil, false, fmt.Errorf("%w: N-type state index %d = %d outside the grid of time %d (size %d)", ErrInvalid, a, j, t, p.gsize[t])
			}
		}
		return s.Idx, false, nil
	case GeneralState:
		if len(s.M) != p.K {
			return nil, false, fmt.Errorf("%w: general state with %d measures, want K = %d", ErrInvalid, len(s.M), p.K)
		}
		for k, q := range s.M {
			if int(q.Ell) != p.ell {
				return nil, false, fmt.Errorf("%w: measure %d has ℓ = %d, want %d", ErrInvalid, k, q.Ell, p.ell)
			}
			if err := q.Validate(p.ix[t]); err != nil {
				return nil, false, fmt.Errorf("control: measure %d: %w", k, err)
			}
		}
		return s.encode(nil), true, nil
	case nil:
		return nil, false, fmt.Errorf("%w: nil state", ErrInvalid)
	}
	return nil, false, fmt.Errorf("%w: unknown state type %T", ErrInvalid, s)
}

// toGeneral converts an N-type encoding (time t) to the general one.
func (p *Problem[F]) toGeneral(dst, s []int32, t int) []int32 {
	c := int32(p.ell / p.N)
	G := int32(p.gsize[t])
	for k := range p.K {
		dst = append(dst, int32(p.N))
		for i := range p.N {
			dst = append(dst, int32(i)*G+s[k*p.N+i], c)
		}
	}
	return dst
}

// Init returns the initial state ŝ_0 = (μ̂_0^1, …, μ̂_0^K), μ̂_0^k =
// R_ℓ((1/N) Σ_i δ_(p_i, Q^(n)(x^{i,k}))) (Algorithm 1 line 6, which
// prints x_t^{i,k} for the input x^{i,k}), in
// the problem's representation.
func (p *Problem[F]) Init() State { return p.state(p.s0, p.general) }

// Step returns 𝚽^(ℓ,n,m)(s; U^j) of eq. (27), the successor at time t+1 of
// the state s at time t ∈ [0, T) under action j: every atom moves by eq. (5)
// against its own sample's measure (softmax weighted by the atom masses),
// is snapped to the grid of time t+1, and atoms landing on the same point
// merge. The result has the representation of s. It returns an error if t
// or j is out of range, s is malformed, or (OutOfGrid = Fail) a token
// leaves the grid.
func (p *Problem[F]) Step(t int, s State, j int) (State, error) {
	if t < 0 || t >= p.horizon {
		return nil, fmt.Errorf("%w: step at time %d, want 0 ≤ t < T = %d", ErrInvalid, t, p.horizon)
	}
	if j < 0 || j >= len(p.actions) {
		return nil, fmt.Errorf("%w: action index %d outside [0, %d)", ErrInvalid, j, len(p.actions))
	}
	enc, general, err := p.decode(t, s)
	if err != nil {
		return nil, err
	}
	w := p.newWork()
	var dst []int32
	var out int
	if general {
		dst, out, _ = p.stepG(nil, enc, t, j, w)
	} else {
		dst = make([]int32, len(enc))
		out = p.stepN(dst, enc, t, j, w)
	}
	if out > 0 && p.oog == Fail {
		return nil, p.failErr(t, j)
	}
	return p.state(dst, general), nil
}

func (p *Problem[F]) failErr(t, j int) error {
	return fmt.Errorf("%w: action %d at layer %d moves a token outside the grid of time %d (OutOfGrid = Fail)", ErrInvalid, j, t, t+1)
}

// TerminalCost returns 𝔆_T(s) = (1/K) Σ_k Ŵ_{2,λ}(μ̂^k, ν̂^k) of eq. (29)
// for a state s at time T, with Ŵ the squared transport cost (squared once,
// see the package doc). When λ ≥ LambdaMin and every position carries the same mass
// in μ̂^k and ν̂^k, this is Σ_pos mass · W_2² of the position's conditionals,
// for N-type states (1/(N·K)) Σ_k Σ_i ‖s_{j_{k,i}} − ŷ^{k,i}‖², the mean
// squared error per token (Theorem 6); otherwise exact optimal transport.
func (p *Problem[F]) TerminalCost(s State) (float64, error) {
	enc, general, err := p.decode(p.horizon, s)
	if err != nil {
		return 0, err
	}
	w := p.newWork()
	if general {
		return p.terminalG(enc, w), nil
	}
	return p.terminalN(enc, w), nil
}
