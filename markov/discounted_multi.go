package markov

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/tensor"
)

// DiscountedGeneralSum is an infinite-horizon discounted N-player Markov
// game with an initial state distribution, the setting of the Markov
// potential game theory of multi-agent-meta-rl (App. C):
//
//	𝔾 = (N, S, {A_i}, P, {r_i}, γ, ρ),  r_i(s, a) ∈ ℝ,  s' ~ P(·|s, a),  s⁰ ~ ρ.
//
// All players observe the state s, act simultaneously with a joint action
// a = (a_0, …, a_{N−1}), player i receives r_i(s, a) and the state moves
// to s' ~ P(·|s, a). Policies are stationary: one [Stationary] table
// π_i[s][a_i] per player, joined as the product π(a|s) = Π_i π_i(a_i|s).
// The values (App. C, eq. (37)) are
//
//	V_i^π(s) = E_π[Σ_{t≥0} γ^t r_i(s^t, a^t) | s⁰ = s],
//	Q_i^π(s, a) = r_i(s, a) + γ Σ_{s'} P(s'|s, a) V_i^π(s'),
//	V_i^ρ(π) = Σ_s ρ(s) V_i^π(s),
//
// and the discounted state visitation distribution is
// d_ρ^π(s) = (1−γ) Σ_{t≥0} γ^t P_π(s^t = s | s⁰ ~ ρ). The paper's theory
// takes r_i ∈ [−1, 1]; the type accepts any finite rewards.
//
// # Indexing and storage
//
// Players, states and actions are 0-based. A joint action is a flat index
// j ∈ [0, J), J = Π_i A_i, in mixed radix with player 0 most significant,
// exactly as for [Episodic] ([DiscountedGeneralSum.Joint],
// [DiscountedGeneralSum.Split]). Rewards are stored flat as
// r[(s·J+j)·N+i] (S·J·N floats) and transitions as a [Kernel]: a
// [DenseKernel] of S·J·S floats when given as a table (the 4-player
// tracking task of multi-agent-meta-rl App. F.3, 625 states and 81 joint
// actions, takes 253 MB so), or any kernel given to
// [NewDiscountedGeneralSum] with a [ProductKernel] (its product form takes a few kB).
//
// [DiscountedGeneralSum.Cooperative] reports a Markov team (every player
// receives the same reward), a Markov potential game whose potential is the
// common value, Φ(π) = V^ρ(π) (§2, App. C).
//
// A DiscountedGeneralSum is immutable after construction and safe for
// concurrent use.
type DiscountedGeneralSum struct {
	jointSpace
	states int
	gamma  float64
	rho    []float64
	r      []float64 // r[(s*joint+j)*n+i]
	kern   Kernel
	coop   bool
}

// NewDiscountedGeneralSum returns the discounted general-sum Markov game
// with the given numbers of actions per player (N = len(actions)), rewards
// r_i(s, j) = rewards.At(s, j, i), an S × J × N array, or, for a Markov team
// in which every player receives the shared reward r(s, j) =
// rewards.At(s, j), an S × J array (a Markov potential game whose
// potential is the common value Φ(π) = V^ρ(π), §2, App. C); the transition
// law kernel over the flat joint actions j of [DiscountedGeneralSum.Joint]
// (shared, not copied: a [DenseKernel] from [NewDenseKernel], or a sparse
// or product kernel whose memory scales with its structure); discount
// gamma and initial distribution initial = ρ. The rewards and ρ are
// copied; a shared reward is stored once per player.
//
// It returns an error naming the first bad entry if there is no player, a
// player has no action, the game is too large to index (more than 2^34
// stored entries), rewards is nil ([icrl.ErrEmpty]) or not S × J (× N)
// ([icrl.ErrShape]), a reward is not finite, γ is outside [0, 1), initial is
// not a probability distribution over the states, or the kernel is nil or
// not S states × J joint actions ([ErrKernel]). The cost is O(S·J·N).
func NewDiscountedGeneralSum(actions []int, rewards *tensor.Dense[float64], kernel Kernel, gamma float64, initial []float64) (*DiscountedGeneralSum, error) {
	if rewards == nil || rewards.Rank() == 0 {
		return nil, fmt.Errorf("%w: no reward table", icrl.ErrEmpty)
	}
	if r := rewards.Rank(); r != 2 && r != 3 {
		return nil, fmt.Errorf("%w: reward table of shape %v, want S × J × N (or S × J for a team)", icrl.ErrShape, rewards.Shape())
	}
	g, err := newDGSKernel(actions, rewards.Dim(0), kernel, gamma, initial)
	if err != nil {
		return nil, err
	}
	J, N := g.joint, g.n
	if rewards.Dim(1) != J {
		return nil, fmt.Errorf("%w: reward table of shape %v has %d joint actions, want J = %d", icrl.ErrShape, rewards.Shape(), rewards.Dim(1), J)
	}
	shared := rewards.Rank() == 2
	if !shared && rewards.Dim(2) != N {
		return nil, fmt.Errorf("%w: reward table of shape %v has rewards for %d players, want %d", icrl.ErrShape, rewards.Shape(), rewards.Dim(2), N)
	}
	data := rewards.Data()
	for k, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if shared {
				return nil, fmt.Errorf("%w: reward r[s=%d][joint=%d] = %v is not finite", icrl.ErrNotFinite, k/J, k%J, v)
			}
			return nil, fmt.Errorf("%w: reward r[s=%d][joint=%d][player=%d] = %v is not finite", icrl.ErrNotFinite, k/(J*N), k/N%J, k%N, v)
		}
	}
	if !shared {
		g.r = slices.Clone(data)
		g.classify()
		return g, nil
	}
	g.r = make([]float64, 0, len(data)*N)
	for _, v := range data {
		for range N {
			g.r = append(g.r, v)
		}
	}
	g.coop = true
	return g, nil
}

// newDGSSkeleton validates the actions, number of states and discount and
// returns a game with the joint-action tables set up.
func newDGSSkeleton(actions []int, states int, gamma float64, dense bool) (*DiscountedGeneralSum, error) {
	if len(actions) == 0 {
		return nil, fmt.Errorf("%w: the game has no player", icrl.ErrEmpty)
	}
	if states <= 0 {
		return nil, fmt.Errorf("%w: the game has no state", icrl.ErrEmpty)
	}
	if !(gamma >= 0 && gamma < 1) {
		return nil, fmt.Errorf("%w: discount γ = %v is outside [0, 1)", icrl.ErrInvalid, gamma)
	}
	js, err := newJointSpace(actions)
	if err != nil {
		return nil, err
	}
	width := js.n // rewards per (s, j), plus the dense transition row
	if dense {
		width += states
	}
	if sz := mulSat(mulSat(states, js.joint), width); sz > epiMaxEntries {
		return nil, fmt.Errorf("%w: the game has %d stored entries, more than 2^34", icrl.ErrTooLarge, sz)
	}
	js.buildAct()
	g := &DiscountedGeneralSum{jointSpace: js, states: states, gamma: gamma}
	return g, nil
}

// classify sets the cooperative flag from the rewards.
func (g *DiscountedGeneralSum) classify() {
	g.coop = true
	for k := 0; k < len(g.r); k += g.n {
		rk := g.r[k : k+g.n]
		for _, v := range rk[1:] {
			if v != rk[0] {
				g.coop = false
				return
			}
		}
	}
}

// RandomDiscountedCooperative returns a random discounted Markov team with
// the given numbers of actions per player, states and discount gamma,
// and the uniform initial distribution ρ = 1/S: every shared reward r(s, j)
// is uniform on [−1, 1) (the reward range of App. C) and every
// transition row P(·|s, j) is an independent draw from the flat Dirichlet
// law on the simplex (normalised standard exponentials). For each (s, j) in
// lexicographic order it draws the reward, then the S exponentials, from
// rng, so a seed determines the game. The tables are generated in place,
// without the copies of [NewDiscountedGeneralSum].
//
// It returns an error if a size is invalid (see
// [NewDiscountedGeneralSum]), gamma is outside [0, 1) or rng is nil. The
// cost is O(S·J·(S+N)) time and memory.
func RandomDiscountedCooperative(actions []int, states int, gamma float64, rng *rand.Rand) (*DiscountedGeneralSum, error) {
	if rng == nil {
		return nil, fmt.Errorf("%w: RandomDiscountedCooperative needs a random number generator", icrl.ErrNilRand)
	}
	g, err := newDGSSkeleton(actions, states, gamma, true)
	if err != nil {
		return nil, err
	}
	S, J, N := g.states, g.joint, g.n
	g.rho = make([]float64, S)
	for s := range g.rho {
		g.rho[s] = 1 / float64(S)
	}
	g.r = make([]float64, S*J*N)
	dk := &DenseKernel{states: S, joint: J, p: make([]float64, S*J*S)}
	for k := range S * J {
		v := 2*rng.Float64() - 1
		for i := range N {
			g.r[k*N+i] = v
		}
		row := dk.p[k*S : (k+1)*S]
		flatDirichlet(row, rng)
	}
	g.kern = dk
	g.coop = true
	return g, nil
}

// Players returns the number of players N.
func (g *DiscountedGeneralSum) Players() int { return g.n }

// States returns the number of states S.
func (g *DiscountedGeneralSum) States() int { return g.states }

// Actions returns the number of actions A_p of player p. It panics if p is
// not a player.
func (g *DiscountedGeneralSum) Actions(p game.Player) int {
	if uint(p) >= uint(g.n) {
		panic(fmt.Sprintf("markov: player %d out of range [0, %d)", int(p), g.n))
	}
	return g.actions[p]
}

// NumJoint returns the number of joint actions J = Π_i A_i.
func (g *DiscountedGeneralSum) NumJoint() int { return g.joint }

// Discount returns the discount γ.
func (g *DiscountedGeneralSum) Discount() float64 { return g.gamma }

// Initial returns a copy of the initial state distribution ρ.
func (g *DiscountedGeneralSum) Initial() []float64 { return append([]float64(nil), g.rho...) }

// Cooperative reports whether the game is a Markov team: every player
// receives exactly the same reward at every entry (whatever constructor
// built it). A one-player game is cooperative.
func (g *DiscountedGeneralSum) Cooperative() bool { return g.coop }

// Joint returns the flat index of the joint action actions (one action per
// player, player 0 most significant). It panics if len(actions) is not N
// or an action is out of range.
func (g *DiscountedGeneralSum) Joint(actions []int) int { return g.index(actions) }

// Split stores the players' actions of the flat joint action j in dst and
// returns it; if dst is too short a new slice is allocated. It panics if j
// is out of range.
func (g *DiscountedGeneralSum) Split(j int, dst []int) []int { return g.split(j, dst) }

// Reward returns r_p(s, j), player p's reward for the joint action j in
// state s. It panics if an index is out of range.
func (g *DiscountedGeneralSum) Reward(s, j int, p game.Player) float64 {
	g.check(s, j)
	if uint(p) >= uint(g.n) {
		panic(fmt.Sprintf("markov: player %d out of range [0, %d)", int(p), g.n))
	}
	return g.r[(s*g.joint+j)*g.n+int(p)]
}

// Transition returns P(·|s, j) as a dense vector over the S states: a
// view of the game's storage, which the caller must not modify, if the
// kernel is a [DenseKernel], else a new slice (O(S); use
// [DiscountedGeneralSum.Kernel] and [AddRow] to read large games without
// densifying). It panics if an index is out of range.
func (g *DiscountedGeneralSum) Transition(s, j int) []float64 {
	g.check(s, j)
	return denseRow(g.kern, s, j, nil)
}

// Kernel returns the transition law P(s'|s, j).
func (g *DiscountedGeneralSum) Kernel() Kernel { return g.kern }

func (g *DiscountedGeneralSum) check(s, j int) {
	if uint(s) >= uint(g.states) || uint(j) >= uint(g.joint) {
		panic(fmt.Sprintf("markov: (state, joint action) = (%d, %d) out of range for %d states, %d joint actions", s, j, g.states, g.joint))
	}
}
