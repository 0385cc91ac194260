package markov

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/tensor"
)

// epiMaxEntries bounds the number of stored reward or transition entries of
// an [Episodic] game (2^34 float64s, 128 GiB), so that shape arithmetic
// cannot overflow.
const epiMaxEntries = 1 << 34

// Episodic is a finite-horizon N-player Markov game with a fixed start
// state, the setting of multi-agent-meta-rl (§2):
//
//	𝔾 = (N, H, S, {A_i}, {r_i}, P),  r_{h,i}(s, a) ∈ ℝ,  s_{h+1} ~ P_h(·|s_h, a_h).
//
// At each step h all players observe the state s, act simultaneously with a
// joint action a = (a_0, …, a_{N−1}), player i receives r_{h,i}(s, a) and
// the state moves to s' ~ P_h(·|s, a). An episode has H steps and starts in
// the state [Episodic.Start]. The paper's theory assumes rewards in [0, 1];
// the type accepts any finite rewards (perturbed games leave [0, 1]).
//
// # Indexing
//
// Everything is 0-based: players i = 0, …, N−1 (the paper's agent i+1),
// steps h = 0, …, H−1 (the paper's step h+1), states s = 0, …, S−1 and
// actions a_i = 0, …, A_i−1. A joint action is a flat index in [0, J),
// J = Π_i A_i, in mixed radix with player 0 most significant:
//
//	j = ((a_0·A_1 + a_1)·A_2 + a_2)··· ,
//
// so in a two-player game j = a·A_1 + b ([Episodic.Joint], [Episodic.Split]).
// Value tables returned by this package have H+1 layers: layer h is the
// paper's V_{h+1} and layer H is the terminal V_{H+1} ≡ 0.
//
// # Storage and cost
//
// Rewards are stored flat as r[((h·S+s)·J+j)·N+i] (H·S·J·N floats, or
// S·J·N when one layer serves every step, see [NewEpisodic]).
// The transitions are one [Kernel] per step, or one for every step
// (time-homogeneous): a table becomes a [DenseKernel] of S·J·S floats per
// layer ([DenseKernels]); any other kernel is taken as it is. Every evaluation reaches the transitions through one
// [Kernel.Expect] per step, so its cost is that of the kernel's backup
// (O(S·J·S·m) dense, O(nnz·m) sparse, far less for a [ProductKernel])
// plus O(S·J·N) for the policies: the 4-player tracking task of
// multi-agent-meta-rl App. F.3 (625 states, 81 joint actions) takes
// 253 MB as a dense table and a few kB as a product kernel.
//
// # Kinds
//
// [Episodic.ZeroSum] reports a two-player game with r_1 = −r_0 exactly
// (the zero-sum case of §2; player 0 is the max-player and its reward is
// the game's reward), and [Episodic.Cooperative] a Markov team, in which every player
// receives the same reward: a Markov potential game whose potential Φ_s is
// the common value V_0^π(s) (§2). Both are detected from the rewards
// whatever constructor built the game.
//
// An Episodic is immutable after construction and safe for concurrent use.
type Episodic struct {
	jointSpace
	states, horizon, start int
	r                      []float64
	rLayers                int      // 1 (time-homogeneous rewards) or horizon
	kern                   []Kernel // 1 (time-homogeneous) or horizon layers
	zeroSum, coop          bool
	sum                    float64 // r_0 + r_1 of a zero-sum or constant-sum game
}

// NewEpisodic returns the finite-horizon N-player Markov game (§2) with
// the given numbers of actions per player (N = len(actions)), start state
// start and horizon H = horizon; rewards r_{h,i}(s, j) = rewards.At(h, s,
// j, i), an L × S × J × N array, or, for a Markov team in which every
// player receives the shared reward r_h(s, j) = rewards.At(h, s, j), an
// L × S × J array (a Markov potential game whose potential is the common
// value); and transitions given as kernels over the flat joint actions j
// of [Episodic.Joint]. Rewards and kernels come one per step (L = H) or
// one for every step (L = 1, time-homogeneous, stored once).
// [DenseKernels] builds the kernels of a table; the kernels are shared
// (they are immutable), the rewards copied, a shared reward once per
// player. The number of states S is the kernels'.
//
// It returns an error naming the first bad entry if there is no player,
// step or state, a player has no action, the game is too large to index
// (more than 2^34 stored entries), rewards is nil ([icrl.ErrEmpty]) or of
// another shape ([icrl.ErrShape]), a reward is not finite, start is not a
// state, or (wrapping [ErrKernel]) the number of kernels is neither 1 nor
// H, a kernel is nil or its shape is not S states × J = Π_i A_i joint
// actions. The cost is O(L·S·J·N).
func NewEpisodic(actions []int, start, horizon int, rewards *tensor.Dense[float64], kernels []Kernel) (*Episodic, error) {
	if rewards == nil || rewards.Rank() == 0 {
		return nil, fmt.Errorf("%w: no reward table", icrl.ErrEmpty)
	}
	if r := rewards.Rank(); r != 3 && r != 4 {
		return nil, fmt.Errorf("%w: reward table of shape %v, want L × S × J × N (or L × S × J for a team)", icrl.ErrShape, rewards.Shape())
	}
	g, err := newEpisodicKernels(actions, start, horizon, rewards.Dim(0), kernels)
	if err != nil {
		return nil, err
	}
	shared := rewards.Rank() == 3
	if rewards.Dim(1) != g.states || rewards.Dim(2) != g.joint || (!shared && rewards.Dim(3) != g.n) {
		want := fmt.Sprintf("%d × %d × %d × %d (layers × states × joint actions × players)", rewards.Dim(0), g.states, g.joint, g.n)
		if shared {
			want = fmt.Sprintf("%d × %d × %d (layers × states × joint actions)", rewards.Dim(0), g.states, g.joint)
		}
		return nil, fmt.Errorf("%w: reward table of shape %v, want %s", icrl.ErrShape, rewards.Shape(), want)
	}
	if err := checkRewards(rewards, shared, g.states, g.joint, g.n); err != nil {
		return nil, err
	}
	if shared {
		g.r = make([]float64, 0, rewards.Len()*g.n)
		for _, v := range rewards.Data() {
			for range g.n {
				g.r = append(g.r, v)
			}
		}
	} else {
		g.r = slices.Clone(rewards.Data())
	}
	g.classify()
	return g, nil
}

// checkRewards returns an error naming the first reward of an episodic
// table that is not finite.
func checkRewards(rewards *tensor.Dense[float64], shared bool, S, J, N int) error {
	for k, v := range rewards.Data() {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if shared {
				return fmt.Errorf("%w: reward r[h=%d][s=%d][joint=%d] = %v is not finite", icrl.ErrNotFinite, k/(S*J), k/J%S, k%J, v)
			}
			return fmt.Errorf("%w: reward r[h=%d][s=%d][joint=%d][player=%d] = %v is not finite", icrl.ErrNotFinite, k/(S*J*N), k/(J*N)%S, k/N%J, k%N, v)
		}
	}
	return nil
}

// NewZeroSumEpisodic returns the two-player zero-sum Markov game (§2) in
// which player 0 (the max-player, with rows actions) receives r_h(s, a, b)
// = rewards.At(h, s, a, b), an L × S × rows × cols array (L = horizon, or
// 1 for time-homogeneous rewards), and player 1 (the min-player, with cols
// actions) its negation, with the transition kernels over the joint
// actions j = a·cols + b, one per step or one for every step, as in
// [NewEpisodic], which lists the errors. Bandit learners assume
// r ∈ [0, 1], as the paper's theory does.
func NewZeroSumEpisodic(rows, cols, start, horizon int, rewards *tensor.Dense[float64], kernels []Kernel) (*Episodic, error) {
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("%w: zero-sum game with %d×%d actions", icrl.ErrEmpty, rows, cols)
	}
	if rewards == nil || rewards.Rank() == 0 {
		return nil, fmt.Errorf("%w: no reward table", icrl.ErrEmpty)
	}
	if rewards.Rank() != 4 || rewards.Dim(2) != rows || rewards.Dim(3) != cols {
		return nil, fmt.Errorf("%w: reward table of shape %v, want L × S × %d × %d", icrl.ErrShape, rewards.Shape(), rows, cols)
	}
	g, err := newEpisodicKernels([]int{rows, cols}, start, horizon, rewards.Dim(0), kernels)
	if err != nil {
		return nil, err
	}
	if rewards.Dim(1) != g.states {
		return nil, fmt.Errorf("%w: reward table of shape %v for kernels of %d states", icrl.ErrShape, rewards.Shape(), g.states)
	}
	if err := checkRewards(rewards, true, g.states, g.joint, 2); err != nil {
		return nil, err
	}
	g.r = make([]float64, 0, 2*rewards.Len())
	for _, v := range rewards.Data() {
		g.r = append(g.r, v, -v)
	}
	g.classify()
	return g, nil
}

// DenseKernels returns the kernels of an L × S × J × S transition table
// (or L × S × A_0 × … × A_{N−1} × S, the joint action in mixed radix with
// player 0 most significant): one [DenseKernel] per layer h, built by
// [NewDenseKernel] from layer h, for [NewEpisodic] and
// [NewZeroSumEpisodic]. It returns an error wrapping [ErrKernel] that names
// the layer if p is nil or of rank below 4, or a layer is not a kernel.
func DenseKernels(p *tensor.Dense[float64]) ([]Kernel, error) {
	if p == nil || p.Rank() < 4 {
		var shape []int
		if p != nil {
			shape = p.Shape()
		}
		return nil, fmt.Errorf("%w: transition table of shape %v, want L × S × J × S", ErrKernel, shape)
	}
	ks := make([]Kernel, p.Dim(0))
	for h := range ks {
		k, err := NewDenseKernel(p.Sub(h))
		if err != nil {
			return nil, fmt.Errorf("transitions of layer %d: %w", h, err)
		}
		ks[h] = k
	}
	return ks, nil
}

// newEpisodicSkeleton validates the actions, sizes and start state of a
// game with rLayers reward layers and returns it without rewards and
// transitions.
func newEpisodicSkeleton(actions []int, start, horizon, states, rLayers int) (*Episodic, error) {
	n := len(actions)
	if n == 0 {
		return nil, fmt.Errorf("%w: the game has no player", icrl.ErrEmpty)
	}
	if horizon < 1 {
		return nil, fmt.Errorf("%w: the game has no step (horizon %d)", icrl.ErrEmpty, horizon)
	}
	if states < 1 {
		return nil, fmt.Errorf("%w: the game has no state", icrl.ErrEmpty)
	}
	js, err := newJointSpace(actions)
	if err != nil {
		return nil, err
	}
	joint := js.joint
	if mulSat(horizon, n) > epiMaxEntries || states > epiMaxEntries {
		return nil, fmt.Errorf("%w: the game is too large to store", icrl.ErrTooLarge)
	}
	if sz := mulSat(mulSat(rLayers*n, states), joint); sz > epiMaxEntries {
		return nil, fmt.Errorf("%w: the game has %d reward entries, more than 2^34", icrl.ErrTooLarge, sz)
	}
	if start < 0 || start >= states {
		return nil, fmt.Errorf("%w: start state %d out of range [0, %d)", icrl.ErrInvalid, start, states)
	}
	js.buildAct()
	return &Episodic{jointSpace: js, states: states, horizon: horizon, start: start, rLayers: rLayers}, nil
}

// mulSat returns a·b for non-negative a and b, saturated at 2^62.
func mulSat(a, b int) int {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > 1<<62 {
		return 1 << 62
	}
	return int(lo)
}

// classify sets the zero-sum and cooperative flags from the rewards.
func (g *Episodic) classify() {
	g.zeroSum = g.n == 2
	g.coop = true
	g.sum = 0
	if g.zeroSum {
		g.sum = g.r[0] + g.r[1]
	}
	tol := 1e-12 * max(1, math.Abs(g.sum))
	if g.sum == 0 {
		tol = 0
	}
	for k := 0; k < len(g.r); k += g.n {
		rk := g.r[k : k+g.n]
		if g.zeroSum && !(math.Abs(rk[0]+rk[1]-g.sum) <= tol) {
			g.zeroSum = false
		}
		for _, v := range rk[1:] {
			if v != rk[0] {
				g.coop = false
				break
			}
		}
		if !g.zeroSum && !g.coop {
			return
		}
	}
}

// Players returns the number of players N.
func (g *Episodic) Players() int { return g.n }

// Actions returns the number of actions A_p of player p. It panics if p is
// not a player.
func (g *Episodic) Actions(p game.Player) int {
	if uint(p) >= uint(g.n) {
		panic(fmt.Sprintf("markov: player %d out of range [0, %d)", int(p), g.n))
	}
	return g.actions[p]
}

// States returns the number of states S.
func (g *Episodic) States() int { return g.states }

// Horizon returns the number of steps H of an episode.
func (g *Episodic) Horizon() int { return g.horizon }

// Start returns the fixed initial state s_1 (0-based).
func (g *Episodic) Start() int { return g.start }

// NumJoint returns the number of joint actions J = Π_i A_i.
func (g *Episodic) NumJoint() int { return g.joint }

// ZeroSum reports whether the game is a two-player zero-sum game, or
// constant-sum, which is the same game strategically: r_{h,0}(s, j) +
// r_{h,1}(s, j) = c for one constant c at every entry (exactly when c = 0,
// within 1e-12·max(1, |c|) otherwise), such as the [0, 1] convention
// r_1 = 1 − r_0 of the bandit learners. Player 0 is the max-player, its
// reward the game's reward; [Episodic.ConstantSum] returns c.
func (g *Episodic) ZeroSum() bool { return g.zeroSum }

// ConstantSum returns the constant c = r_0 + r_1 of a zero-sum or
// constant-sum game ([Episodic.ZeroSum]), 0 for a zero-sum one, and NaN for
// a game that is neither.
func (g *Episodic) ConstantSum() float64 {
	if !g.zeroSum {
		return math.NaN()
	}
	return g.sum
}

// Cooperative reports whether the game is a Markov team: every player
// receives exactly the same reward at every entry. A one-player game is
// cooperative.
func (g *Episodic) Cooperative() bool { return g.coop }

// TimeHomogeneous reports whether the game has H > 1 steps and stores one
// transition kernel shared by all of them (it was built from a single
// transition layer). A game built with H identical layers reports false;
// its behaviour is the same.
func (g *Episodic) TimeHomogeneous() bool { return len(g.kern) == 1 && g.horizon > 1 }

// Kernel returns the transition law P_h of step h (the same kernel at
// every step if the transitions are time-homogeneous). It panics if h is
// not a step.
func (g *Episodic) Kernel(h int) Kernel {
	if uint(h) >= uint(g.horizon) {
		panic(fmt.Sprintf("markov: step %d out of range [0, %d)", h, g.horizon))
	}
	return g.kernel(h)
}

// kernel returns the kernel of step h without a range check.
func (g *Episodic) kernel(h int) Kernel {
	if len(g.kern) == 1 {
		return g.kern[0]
	}
	return g.kern[h]
}

// Joint returns the flat index of the joint action actions (one action per
// player, player 0 most significant). It panics if len(actions) is not N or
// an action is out of range.
func (g *Episodic) Joint(actions []int) int { return g.index(actions) }

// Split stores the players' actions of the flat joint action j in dst and
// returns it; if dst is too short a new slice is allocated. It panics if j
// is out of range.
func (g *Episodic) Split(j int, dst []int) []int { return g.split(j, dst) }

// StepReward returns r_{h,p}(s, j), player p's reward for the joint action
// j in state s at step h. It panics if an index is out of range.
func (g *Episodic) StepReward(h, s, j int, p game.Player) float64 {
	g.check(h, s, j)
	if uint(p) >= uint(g.n) {
		panic(fmt.Sprintf("markov: player %d out of range [0, %d)", int(p), g.n))
	}
	return g.r[g.rIndex(h, s, j)+int(p)]
}

// Rewards returns the rewards of every joint action and player at step h
// in state s, r[j·N+i] = r_{h,i}(s, j), as a view of the game's storage
// (J·N values), which the caller must not modify. It panics if h or s is
// out of range.
func (g *Episodic) Rewards(h, s int) []float64 {
	g.check(h, s, 0)
	k := g.rIndex(h, s, 0)
	return g.r[k : k+g.joint*g.n : k+g.joint*g.n]
}

// StepTransition returns P_h(·|s, j) as a dense vector over the S states: a
// view of the game's storage, which the caller must not modify, if the
// kernel is a [DenseKernel], else a new slice filled from [Kernel.Row]
// (O(S) time and memory; use [Episodic.Kernel] to read large games
// without densifying). It panics if an index is out of range.
func (g *Episodic) StepTransition(h, s, j int) []float64 {
	g.check(h, s, j)
	return denseRow(g.kernel(h), s, j, nil)
}

// Step simulates step h from state s under the joint action j: it returns
// the players' exact rewards r_{h,i}(s, j) (a view of the game's storage,
// which the caller must not modify) and the next state drawn from
// P_h(·|s, j) with one draw from rng. It panics if an index is out of
// range. See [Episodic.StepNoisy] for bandit rewards.
func (g *Episodic) Step(h, s, j int, rng *rand.Rand) (rewards []float64, next int) {
	g.check(h, s, j)
	k := g.rIndex(h, s, j)
	return g.r[k : k+g.n : k+g.n], g.kernel(h).Sample(s, j, rng)
}

// StepNoisy is [Episodic.Step] with bandit rewards drawn through noise
// (nil means game.Bernoulli, which needs rewards in [0, 1]; game.Exact
// returns the exact rewards). The rewards are stored in dst (allocated if
// too short) and drawn before the next state. Each player's reward is an
// independent draw with mean r_{h,i}(s, j), except that a zero-sum game
// draws player 0's reward and gives player 1 its negation, and a
// cooperative game draws one reward shared by all players, so both keep
// their structure. It panics if an index is out of range.
func (g *Episodic) StepNoisy(h, s, j int, noise game.Noise, rng *rand.Rand, dst []float64) (rewards []float64, next int) {
	g.check(h, s, j)
	if noise == nil {
		noise = game.Bernoulli{}
	}
	if cap(dst) < g.n {
		dst = make([]float64, g.n)
	}
	dst = dst[:g.n]
	r := g.r[g.rIndex(h, s, j):]
	switch {
	case g.coop:
		x := noise.Draw(r[0], rng)
		for i := range dst {
			dst[i] = x
		}
	case g.zeroSum:
		dst[0] = noise.Draw(r[0], rng)
		dst[1] = -dst[0]
		if g.sum != 0 {
			dst[1] = g.sum - dst[0]
		}
	default:
		for i := range dst {
			dst[i] = noise.Draw(r[i], rng)
		}
	}
	return dst, g.kernel(h).Sample(s, j, rng)
}

func (g *Episodic) rIndex(h, s, j int) int {
	if g.rLayers == 1 {
		h = 0
	}
	return ((h*g.states+s)*g.joint + j) * g.n
}

func (g *Episodic) check(h, s, j int) {
	if uint(h) >= uint(g.horizon) || uint(s) >= uint(g.states) || uint(j) >= uint(g.joint) {
		panic(fmt.Sprintf("markov: (step, state, joint action) = (%d, %d, %d) out of range for %d steps, %d states, %d joint actions", h, s, j, g.horizon, g.states, g.joint))
	}
}
