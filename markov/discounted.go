package markov

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/tensor"
)

// probTol is the tolerance on the sum of a transition row.
const probTol = 1e-9

// Discounted is a two-player zero-sum discounted Markov game, the setting of
// in-context-games-omd §3.1: a finite state space, action sets of A (row,
// max) and B (column, min) actions shared by every state, a reward
// r(s, a, b) received by the row player (the column player receives its
// negation), transitions P(·|s, a, b) and a discount γ ∈ [0, 1). The value of
// stationary policies x (row) and y (column) is
//
//	V^{x,y}(s) = E[Σ_{t≥1} γ^{t−1} r(s_t, a_t, b_t) | s_1 = s],
//	Q^{x,y}(s, a, b) = r(s, a, b) + γ Σ_{s'} P(s'|s, a, b) V^{x,y}(s')
//
// (with the γ that the paper's definition of Q omits).
//
// Bandit learners assume rewards in [0,1] ([Discounted.InUnit]). A
// Discounted is immutable after construction and safe for concurrent use.
type Discounted struct {
	states, rows, cols int
	start              int // the start state of Start
	gamma              float64
	r                  []float64 // r[(s*rows+a)*cols+b]
	kern               Kernel    // joint action j = a*cols+b
}

// NewDiscounted returns the discounted zero-sum Markov game with rewards
// r(s, a, b) = rewards.At(s, a, b), an S × A × B array (copied), the
// transition law kernel over the joint actions j = a·B + b (shared, not
// copied; [NewDenseKernel] builds one from a table) and discount gamma.
// It returns an error wrapping [icrl.ErrEmpty] if rewards is nil, [icrl.ErrShape] if
// it is not of rank 3, [icrl.ErrNotFinite] naming the first reward that is not
// finite, [icrl.ErrInvalid] if γ is outside [0, 1), or [ErrKernel] if the
// kernel is nil or its shape is not S states × A·B joint actions. The
// cost is O(S·A·B).
func NewDiscounted(rewards *tensor.Dense[float64], kernel Kernel, gamma float64) (*Discounted, error) {
	if !(gamma >= 0 && gamma < 1) {
		return nil, fmt.Errorf("%w: discount γ = %v is outside [0, 1)", icrl.ErrInvalid, gamma)
	}
	if rewards == nil || rewards.Rank() == 0 {
		return nil, fmt.Errorf("%w: no reward table", icrl.ErrEmpty)
	}
	if rewards.Rank() != 3 {
		return nil, fmt.Errorf("%w: reward table of shape %v, want S × A × B", icrl.ErrShape, rewards.Shape())
	}
	if nilness.Is(kernel) {
		return nil, fmt.Errorf("%w: nil kernel (%T)", ErrKernel, kernel)
	}
	S, A, B := rewards.Dim(0), rewards.Dim(1), rewards.Dim(2)
	if ks, kj := kernel.Shape(); ks != S || kj != A*B {
		return nil, fmt.Errorf("%w: the kernel has %d states × %d joint actions, want %d × %d", ErrKernel, ks, kj, S, A*B)
	}
	for k, r := range rewards.Data() {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return nil, fmt.Errorf("%w: reward r(%d, %d, %d) = %v is not finite", icrl.ErrNotFinite, k/(A*B), k/B%A, k%B, r)
		}
	}
	return &Discounted{states: S, rows: A, cols: B, gamma: gamma, r: slices.Clone(rewards.Data()), kern: kernel}, nil
}

// checkTransition validates one transition row over n states.
func checkTransition(row []float64, n int, name string) error {
	if len(row) != n {
		return fmt.Errorf("%w: transition %s has %d entries, want %d states", icrl.ErrShape, name, len(row), n)
	}
	var sum float64
	for s, p := range row {
		if !(p >= 0) || math.IsInf(p, 0) {
			return fmt.Errorf("%w: transition %s[%d] = %v is not a probability", ErrKernel, name, s, p)
		}
		sum += p
	}
	if math.Abs(sum-1) > probTol {
		return fmt.Errorf("%w: transition %s sums to %v, not 1", ErrKernel, name, sum)
	}
	return nil
}

// Dims returns the number of states and of row- and column-player actions.
func (g *Discounted) Dims() (states, rows, cols int) { return g.states, g.rows, g.cols }

// Discount returns the discount γ.
func (g *Discounted) Discount() float64 { return g.gamma }

// Reward returns r(s, a, b). It panics if an index is out of range.
func (g *Discounted) Reward(s, a, b int) float64 {
	g.check(s, a, b)
	return g.r[(s*g.rows+a)*g.cols+b]
}

// Transition returns P(·|s, a, b) as a dense vector over the states: a
// view of the game's storage, which the caller must not modify, if the
// kernel is a [DenseKernel], else a new slice (O(S)). It panics if an
// index is out of range.
func (g *Discounted) Transition(s, a, b int) []float64 {
	g.check(s, a, b)
	return denseRow(g.kern, s, a*g.cols+b, nil)
}

// Kernel returns the transition law, with the joint action of (a, b) at
// index a·B + b.
func (g *Discounted) Kernel() Kernel { return g.kern }

func (g *Discounted) check(s, a, b int) {
	if uint(s) >= uint(g.states) || uint(a) >= uint(g.rows) || uint(b) >= uint(g.cols) {
		panic(fmt.Sprintf("markov: (state, row action, column action) = (%d, %d, %d) out of range for %d states, %d×%d actions", s, a, b, g.states, g.rows, g.cols))
	}
}

// Bounds returns the smallest and the largest reward r(s, a, b), so that
// the game is a game.Bounded.
func (g *Discounted) Bounds() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range g.r {
		lo, hi = min(lo, r), max(hi, r)
	}
	return lo, hi
}

// InUnit reports whether every reward lies in [0,1].
func (g *Discounted) InUnit() bool {
	lo, hi := g.Bounds()
	return lo >= 0 && hi <= 1
}

// Stage returns the stage game of state s under continuation values v:
// the matrix Q(s, a, b) = r(s, a, b) + γ Σ_{s'} P(s'|s, a, b) v(s'). It panics
// if s is out of range or len(v) is not the number of states.
func (g *Discounted) Stage(s int, v []float64) *game.ZeroSum {
	q := make([]float64, g.rows*g.cols)
	g.stageInto(q, s, v)
	z, err := game.NewZeroSumDense(g.rows, g.cols, q)
	if err != nil {
		panic("markov: internal error: " + err.Error())
	}
	return z
}

// stageInto writes the stage matrix of state s under v into q (row-major).
func (g *Discounted) stageInto(q []float64, s int, v []float64) {
	if uint(s) >= uint(g.states) || len(v) != g.states {
		panic(fmt.Sprintf("markov: stage game of state %d with %d values for %d states", s, len(v), g.states))
	}
	AB := g.rows * g.cols
	r := g.r[s*AB : (s+1)*AB]
	if k, ok := g.kern.(*DenseKernel); ok {
		// rowDot's dense sum without its per-entry dispatch and index
		// checks.
		S := g.states
		p := k.p[s*AB*S : (s+1)*AB*S]
		for ab := range q {
			q[ab] = r[ab] + g.gamma*seqDot(p[ab*S:(ab+1)*S], v)
		}
		return
	}
	for ab := range q {
		q[ab] = r[ab] + g.gamma*rowDot(g.kern, s, ab, v)
	}
}

// Compile-time checks: a discounted Markov game is a game.Game with a model
// for exact evaluation and a replaceable reward noise.
var (
	_ game.Model      = (*Discounted)(nil)
	_ game.NoiseModel = (*Discounted)(nil)
)

// States returns the number of states S.
func (g *Discounted) States() int { return g.states }

// Actions returns the number of actions of player p: A for
// game.RowPlayer, B for game.ColumnPlayer. It panics if p is invalid.
func (g *Discounted) Actions(p game.Player) int {
	switch p {
	case game.RowPlayer:
		return g.rows
	case game.ColumnPlayer:
		return g.cols
	}
	panic(fmt.Sprintf("markov: invalid player %v", p))
}

// Start returns the start state, 0 (the start state of
// in-context-games-omd's experiments) unless set by [Discounted.WithStart],
// without drawing from rng.
func (g *Discounted) Start(*rand.Rand) int { return g.start }

// WithStart returns the game with start state s; the rewards and
// transitions are shared, not copied (both games are immutable). It returns
// an error if s is out of range.
func (g *Discounted) WithStart(s int) (*Discounted, error) {
	if s < 0 || s >= g.states {
		return nil, fmt.Errorf("%w: start state %d out of range [0, %d)", icrl.ErrInvalid, s, g.states)
	}
	h := *g
	h.start = s
	return &h, nil
}

// Step simulates one transition with the Bernoulli reward of the paper's
// bandit feedback: [Discounted.StepNoise] with noise nil.
func (g *Discounted) Step(s, a, b int, rng *rand.Rand) (reward float64, next int) {
	return g.StepNoise(s, a, b, nil, rng)
}

// checkBuilt returns an error wrapping ErrEmpty if g is nil or a zero
// Discounted, not built by a constructor.
func (g *Discounted) checkBuilt() error {
	if g == nil || g.states == 0 || g.kern == nil {
		return fmt.Errorf("%w: a nil or zero Discounted (build one with NewDiscounted)", icrl.ErrEmpty)
	}
	return nil
}

// Gaps returns [Discounted.Gap] for policies given as plain slices, the
// form of game.Model.
func (g *Discounted) Gaps(x, y [][]float64) (perState []float64, max float64, err error) {
	return g.Gap(x, y)
}

// Nash returns stationary equilibrium policies computed by
// [ShapleyValueIteration] to tolerance 1e-9 (their Markov gap is at most
// 1e-9) within 100000 sweeps.
func (g *Discounted) Nash() (x, y [][]float64, err error) {
	sol, err := ShapleyValueIteration(g, 1e-9, 100000)
	if err != nil {
		return nil, nil, err
	}
	return sol.X, sol.Y, nil
}

// StepNoise simulates one transition from state s under the joint action (a, b):
// it draws the row player's bandit reward through noise (nil means
// game.Bernoulli, which needs rewards in [0,1]; game.Exact returns r(s,a,b)
// itself) and the next state from P(·|s, a, b), in that order, from rng. It
// panics if an index is out of range.
func (g *Discounted) StepNoise(s, a, b int, noise game.Noise, rng *rand.Rand) (reward float64, next int) {
	m := g.Reward(s, a, b)
	if noise == nil {
		noise = game.Bernoulli{}
	}
	reward = noise.Draw(m, rng)
	next = g.kern.Sample(s, a*g.cols+b, rng)
	return reward, next
}

// Stationary is a stationary policy of one player: Stationary[s] is its
// distribution over actions in state s.
type Stationary [][]float64

// UniformStationary returns the uniform stationary policy over actions
// actions in each of states states. It panics if states is negative,
// actions is not positive, or the policy would have more than 2^34
// entries.
func UniformStationary(states, actions int) Stationary {
	if _, ok := num.SizeWithin(epiMaxEntries, states, actions); states < 0 || !ok {
		panic(fmt.Sprintf("markov: uniform stationary policy over %d states and %d actions", states, actions))
	}
	p := make(Stationary, states)
	for s := range p {
		p[s] = simplex.Uniform[float64](actions)
	}
	return p
}

// check returns an error if p is not a stationary policy over the given
// numbers of states and actions.
func (p Stationary) check(name string, states, actions int) error {
	if len(p) != states {
		return fmt.Errorf("%w: %s has %d states, want %d", icrl.ErrShape, name, len(p), states)
	}
	for s, d := range p {
		if err := simplex.CheckDistribution(fmt.Sprintf("%s[%d]", name, s), d, actions); err != nil {
			return fmt.Errorf("markov: %w", err)
		}
	}
	return nil
}
