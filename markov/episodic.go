package markov

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
)

// epiProbTol is the tolerance on the sum of a transition row of an
// [Episodic] game.
const epiProbTol = 1e-9

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
// S·J·N when one layer serves every step, see [NewGeneralSumKernels]).
// The transitions are one [Kernel] per step, or one for every step
// (time-homogeneous): the constructors that take tables store a
// [DenseKernel] of S·J·S floats per layer, [NewGeneralSumKernels] takes
// any kernel. Every evaluation reaches the transitions through one
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
}

// NewGeneralSum returns the general-sum Markov game with the given numbers
// of actions per player (N = len(actions)), start state, rewards
// rewards[h][s][j][i] = r_{h,i}(s, j) and transitions
// transitions[h][s][j][s'] = P_h(s'|s, j), where j is the flat joint action
// of [Episodic.Joint]. The horizon is H = len(rewards) and the number of
// states S = len(rewards[0]). transitions has either H layers or exactly one
// layer, which is then used at every step (time-homogeneous transitions,
// the setting of the paper's simulations, App. F; stored once). The
// slices are copied.
//
// It returns an error naming the first bad entry if there is no player,
// step or state, a player has no action, the shapes are inconsistent, the
// game is too large to index (more than 2^34 stored entries), a reward is
// not finite, a probability is negative or not finite, a transition row
// does not sum to 1 within 1e-9, or start is not a state. The cost is
// O(H·S·J·(N+S)).
func NewGeneralSum(actions []int, start int, rewards [][][][]float64, transitions [][][][]float64) (*Episodic, error) {
	g, err := newEpisodicShape(actions, start, len(rewards), rewardStates(rewards), transitions)
	if err != nil {
		return nil, err
	}
	if err := g.setRewards(rewards); err != nil {
		return nil, err
	}
	g.copyTransitions(transitions)
	g.classify()
	return g, nil
}

// setRewards validates rewards [h][s][j][i] (one layer per stored reward
// layer) and stores them.
func (g *Episodic) setRewards(rewards [][][][]float64) error {
	for h := range rewards {
		if len(rewards[h]) != g.states {
			return fmt.Errorf("%w: rewards of step %d have %d states, want %d", ErrShape, h, len(rewards[h]), g.states)
		}
		for s := range rewards[h] {
			if len(rewards[h][s]) != g.joint {
				return fmt.Errorf("%w: rewards of step %d, state %d have %d joint actions, want %d", ErrShape, h, s, len(rewards[h][s]), g.joint)
			}
			for j, rj := range rewards[h][s] {
				if len(rj) != g.n {
					return fmt.Errorf("%w: rewards of step %d, state %d, joint action %d have %d players, want %d", ErrShape, h, s, j, len(rj), g.n)
				}
				for i, v := range rj {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						return fmt.Errorf("%w: reward r[h=%d][s=%d][joint=%d][player=%d] = %v is not finite", ErrNotFinite, h, s, j, i, v)
					}
				}
			}
		}
	}
	g.r = make([]float64, 0, len(rewards)*g.states*g.joint*g.n)
	for h := range rewards {
		for s := range rewards[h] {
			for _, rj := range rewards[h][s] {
				g.r = append(g.r, rj...)
			}
		}
	}
	return nil
}

// NewZeroSumEpisodic returns the two-player zero-sum Markov game (§2)
// in which player 0 (the max-player, with rows actions) receives
// r_h(s, a, b) = rewards[h][s][a*cols+b] and player 1 (the min-player, with
// cols actions) receives its negation. transitions[h][s][a*cols+b][s'] =
// P_h(s'|s, a, b), with H layers or one time-homogeneous layer as in
// [NewGeneralSum]. The slices are copied. It returns an error naming the
// first bad entry under the conditions of [NewGeneralSum]. Bandit learners
// assume r ∈ [0, 1], as the paper's theory does.
func NewZeroSumEpisodic(rows, cols, start int, rewards [][][]float64, transitions [][][][]float64) (*Episodic, error) {
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("%w: zero-sum game with %d×%d actions", ErrEmpty, rows, cols)
	}
	g, err := newEpisodicShape([]int{rows, cols}, start, len(rewards), sharedStates(rewards), transitions)
	if err != nil {
		return nil, err
	}
	if err := checkShared(rewards, g.states, g.joint); err != nil {
		return nil, err
	}
	g.r = make([]float64, 0, 2*g.horizon*g.states*g.joint)
	for h := range rewards {
		for s := range rewards[h] {
			for _, v := range rewards[h][s] {
				g.r = append(g.r, v, -v)
			}
		}
	}
	g.copyTransitions(transitions)
	g.classify()
	return g, nil
}

// NewCooperative returns the Markov team (§2) in which every player
// receives the shared reward rewards[h][s][j] = r_h(s, j): a Markov
// potential game whose potential is the common value. actions,
// start and transitions are as in [NewGeneralSum]. The slices are copied.
// It returns an error naming the first bad entry under the conditions of
// [NewGeneralSum]. The shared reward is stored once per player.
func NewCooperative(actions []int, start int, rewards [][][]float64, transitions [][][][]float64) (*Episodic, error) {
	g, err := newEpisodicShape(actions, start, len(rewards), sharedStates(rewards), transitions)
	if err != nil {
		return nil, err
	}
	if err := g.setShared(rewards); err != nil {
		return nil, err
	}
	g.copyTransitions(transitions)
	g.classify()
	return g, nil
}

func rewardStates(r [][][][]float64) int {
	if len(r) == 0 {
		return 0
	}
	return len(r[0])
}

func sharedStates(r [][][]float64) int {
	if len(r) == 0 {
		return 0
	}
	return len(r[0])
}

// setShared validates shared rewards [h][s][j] (one layer per stored
// reward layer) and stores them once per player.
func (g *Episodic) setShared(rewards [][][]float64) error {
	if err := checkShared(rewards, g.states, g.joint); err != nil {
		return err
	}
	g.r = make([]float64, 0, g.n*len(rewards)*g.states*g.joint)
	for h := range rewards {
		for s := range rewards[h] {
			for _, v := range rewards[h][s] {
				for range g.n {
					g.r = append(g.r, v)
				}
			}
		}
	}
	return nil
}

// checkShared validates shared rewards [h][s][j].
func checkShared(rewards [][][]float64, states, joint int) error {
	for h := range rewards {
		if len(rewards[h]) != states {
			return fmt.Errorf("%w: rewards of step %d have %d states, want %d", ErrShape, h, len(rewards[h]), states)
		}
		for s, rs := range rewards[h] {
			if len(rs) != joint {
				return fmt.Errorf("%w: rewards of step %d, state %d have %d joint actions, want %d", ErrShape, h, s, len(rs), joint)
			}
			for j, v := range rs {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%w: reward r[h=%d][s=%d][joint=%d] = %v is not finite", ErrNotFinite, h, s, j, v)
				}
			}
		}
	}
	return nil
}

// newEpisodicShape validates the actions, sizes, start state and
// transitions and returns a game with everything but the rewards set up.
func newEpisodicShape(actions []int, start, horizon, states int, transitions [][][][]float64) (*Episodic, error) {
	g, err := newEpisodicSkeleton(actions, start, horizon, states, horizon)
	if err != nil {
		return nil, err
	}
	joint := g.joint
	layers := len(transitions)
	if layers != horizon && layers != 1 {
		return nil, fmt.Errorf("%w: %d transition layers, want %d (one per step) or 1 (time-homogeneous)", ErrShape, layers, horizon)
	}
	if sz := mulSat(mulSat(mulSat(layers, states), states), joint); sz > epiMaxEntries {
		return nil, fmt.Errorf("%w: the game has %d transition entries, more than 2^34", ErrTooLarge, sz)
	}
	for h, ph := range transitions {
		if len(ph) != states {
			return nil, fmt.Errorf("%w: transitions of step %d have %d states, want %d", ErrShape, h, len(ph), states)
		}
		for s, ps := range ph {
			if len(ps) != joint {
				return nil, fmt.Errorf("%w: transitions of step %d, state %d have %d joint actions, want %d", ErrShape, h, s, len(ps), joint)
			}
			for j, row := range ps {
				if len(row) != states {
					return nil, fmt.Errorf("%w: transition P_h=%d(·|s=%d, joint=%d) has %d entries, want %d states", ErrShape, h, s, j, len(row), states)
				}
				var sum float64
				for s2, v := range row {
					if !(v >= 0) || math.IsInf(v, 0) {
						return nil, fmt.Errorf("%w: transition P_h=%d(s'=%d|s=%d, joint=%d) = %v is not a probability", ErrKernel, h, s2, s, j, v)
					}
					sum += v
				}
				if math.Abs(sum-1) > epiProbTol {
					return nil, fmt.Errorf("%w: transition P_h=%d(·|s=%d, joint=%d) sums to %v, not 1", ErrKernel, h, s, j, sum)
				}
			}
		}
	}
	return g, nil
}

// newEpisodicSkeleton validates the actions, sizes and start state of a
// game with rLayers reward layers and returns it without rewards and
// transitions.
func newEpisodicSkeleton(actions []int, start, horizon, states, rLayers int) (*Episodic, error) {
	n := len(actions)
	if n == 0 {
		return nil, fmt.Errorf("%w: the game has no player", ErrEmpty)
	}
	if horizon < 1 {
		return nil, fmt.Errorf("%w: the game has no step (horizon %d)", ErrEmpty, horizon)
	}
	if states < 1 {
		return nil, fmt.Errorf("%w: the game has no state", ErrEmpty)
	}
	js, err := newJointSpace(actions)
	if err != nil {
		return nil, err
	}
	joint := js.joint
	if mulSat(horizon, n) > epiMaxEntries || states > epiMaxEntries {
		return nil, fmt.Errorf("%w: the game is too large to store", ErrTooLarge)
	}
	if sz := mulSat(mulSat(rLayers*n, states), joint); sz > epiMaxEntries {
		return nil, fmt.Errorf("%w: the game has %d reward entries, more than 2^34", ErrTooLarge, sz)
	}
	if start < 0 || start >= states {
		return nil, fmt.Errorf("%w: start state %d out of range [0, %d)", ErrInvalid, start, states)
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

// copyTransitions stores validated transitions as dense kernels, one per
// layer.
func (g *Episodic) copyTransitions(transitions [][][][]float64) {
	g.kern = make([]Kernel, len(transitions))
	for h, ph := range transitions {
		k := &DenseKernel{states: g.states, joint: g.joint, p: make([]float64, 0, g.states*g.joint*g.states)}
		for _, ps := range ph {
			for _, row := range ps {
				k.p = append(k.p, row...)
			}
		}
		g.kern[h] = k
	}
}

// classify sets the zero-sum and cooperative flags from the rewards.
func (g *Episodic) classify() {
	g.zeroSum = g.n == 2
	g.coop = true
	for k := 0; k < len(g.r); k += g.n {
		rk := g.r[k : k+g.n]
		if g.zeroSum && rk[0]+rk[1] != 0 {
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

// Actions returns the number of actions A_i of player i. It panics if i is
// not a player.
func (g *Episodic) Actions(i int) int {
	if uint(i) >= uint(g.n) {
		panic(fmt.Sprintf("markov: player %d out of range [0, %d)", i, g.n))
	}
	return g.actions[i]
}

// States returns the number of states S.
func (g *Episodic) States() int { return g.states }

// Horizon returns the number of steps H of an episode.
func (g *Episodic) Horizon() int { return g.horizon }

// Start returns the fixed initial state s_1 (0-based).
func (g *Episodic) Start() int { return g.start }

// NumJoint returns the number of joint actions J = Π_i A_i.
func (g *Episodic) NumJoint() int { return g.joint }

// ZeroSum reports whether the game is a two-player zero-sum game:
// r_{h,1}(s, a) = −r_{h,0}(s, a) exactly for every entry.
func (g *Episodic) ZeroSum() bool { return g.zeroSum }

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

// Reward returns r_{h,i}(s, j). It panics if an index is out of range.
func (g *Episodic) Reward(h, s, j, i int) float64 {
	g.check(h, s, j)
	if uint(i) >= uint(g.n) {
		panic(fmt.Sprintf("markov: player %d out of range [0, %d)", i, g.n))
	}
	return g.r[g.rIndex(h, s, j)+i]
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

// Transition returns P_h(·|s, j) as a dense vector over the S states: a
// view of the game's storage, which the caller must not modify, if the
// kernel is a [DenseKernel], else a new slice filled from [Kernel.Row]
// (O(S) time and memory; use [Episodic.Kernel] to read large games
// without densifying). It panics if an index is out of range.
func (g *Episodic) Transition(h, s, j int) []float64 {
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
