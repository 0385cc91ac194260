package markov

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// GameKind selects the reward structure of a generated [Episodic] game.
type GameKind int

const (
	// GeneralSumGame gives every player its own independent rewards.
	GeneralSumGame GameKind = iota
	// ZeroSumGame is a two-player game with r_1 = −r_0.
	ZeroSumGame
	// CooperativeGame is a Markov team: one reward shared by every player.
	CooperativeGame
)

// String returns the kind's name.
func (k GameKind) String() string {
	switch k {
	case GeneralSumGame:
		return "general-sum"
	case ZeroSumGame:
		return "zero-sum"
	case CooperativeGame:
		return "cooperative"
	}
	return fmt.Sprintf("GameKind(%d)", int(k))
}

// RandomEpisodic returns a random finite-horizon game with the given
// numbers of actions per player, states and horizon, starting in state 0.
// Every reward is uniform on [0, 1] (for ZeroSumGame, player 0's reward is
// uniform on [0, 1] and player 1 receives its negation; for
// CooperativeGame, one uniform reward is shared), and every transition row
// P_h(·|s, j) is an independent draw from the flat Dirichlet distribution
// on the simplex (normalised standard exponentials), separately for each
// step. The draws come from rng in a fixed order, so a seed determines the
// game.
//
// It returns an error if rng is nil, kind is unknown, a ZeroSumGame does
// not have two players, or the sizes are invalid (see [NewEpisodic]). The cost is
// O(H·S·J·(N+S)) time and memory.
func RandomEpisodic(actions []int, states, horizon int, kind GameKind, rng *rand.Rand) (*Episodic, error) {
	if rng == nil {
		return nil, fmt.Errorf("%w: RandomEpisodic needs a random number generator", icrl.ErrNilRand)
	}
	if kind != GeneralSumGame && kind != ZeroSumGame && kind != CooperativeGame {
		return nil, fmt.Errorf("%w: unknown game kind %v", icrl.ErrInvalid, kind)
	}
	if kind == ZeroSumGame && len(actions) != 2 {
		return nil, fmt.Errorf("%w: zero-sum game with %d players, want 2", icrl.ErrShape, len(actions))
	}
	if states < 1 || horizon < 1 {
		return nil, fmt.Errorf("%w: random game with %d states and horizon %d", icrl.ErrInvalid, states, horizon)
	}
	joint := 1
	for i, a := range actions {
		if a < 1 {
			return nil, fmt.Errorf("%w: player %d has %d actions", icrl.ErrInvalid, i, a)
		}
		if joint = mulSat(joint, a); joint > epiMaxEntries {
			return nil, fmt.Errorf("%w: too many joint actions (more than 2^34)", icrl.ErrTooLarge)
		}
	}
	if len(actions) == 0 {
		return nil, fmt.Errorf("%w: the game has no player", icrl.ErrEmpty)
	}
	if mulSat(mulSat(mulSat(horizon, states), joint), states+len(actions)) > epiMaxEntries {
		return nil, fmt.Errorf("%w: random game too large to store", icrl.ErrTooLarge)
	}
	n := len(actions)
	var rewards *tensor.Dense[float64]
	if kind == GeneralSumGame {
		rewards, _ = tensor.New[float64](horizon, states, joint, n) // sizes checked above
	} else {
		rewards, _ = tensor.New[float64](horizon, states, joint)
	}
	trans, _ := tensor.New[float64](horizon, states, joint, states)
	r := rewards.Data()
	for h := range horizon {
		for s := range states {
			for j := range joint {
				if kind == GeneralSumGame {
					for i := range n {
						r[((h*states+s)*joint+j)*n+i] = rng.Float64()
					}
				} else {
					r[(h*states+s)*joint+j] = rng.Float64()
				}
			}
			for j := range joint {
				flatDirichlet(trans.Row(h, s, j), rng)
			}
		}
	}
	kernels, err := DenseKernels(trans)
	if err != nil {
		return nil, err
	}
	if kind == ZeroSumGame {
		zs, _ := tensor.FromData(r, horizon, states, actions[0], actions[1])
		return NewZeroSumEpisodic(actions[0], actions[1], 0, horizon, zs, kernels)
	}
	return NewEpisodic(actions, 0, horizon, rewards, kernels)
}

// TwoStateKernel returns the transition kernel of multi-agent-meta-rl
// App. F.1 and F.2, for two players with two actions each and two states,
// the same at both states and at every step (pass it as the one kernel of
// a time-homogeneous game): with j = 2a + b, after the matching joint
// actions (a_0, b_0) (j = 0) and (a_1, b_1) (j = 3) the state stays with
// probability 0.9 and switches with probability 0.1; after the opposite
// ones (a_0, b_1) (j = 1) and (a_1, b_0) (j = 2) it stays with probability
// 0.1 and switches with probability 0.9. The paper's base reward matrices
// (Table 1, and one entry of Table 2) are missing from its text; this
// package provides none.
func TwoStateKernel() *DenseKernel {
	k := &DenseKernel{states: 2, joint: 4, p: make([]float64, 2*4*2)}
	for s := range 2 {
		for j := range 4 {
			stay, move := 0.1, 0.9
			if j == 0 || j == 3 {
				stay, move = 0.9, 0.1
			}
			row := k.p[(s*4+j)*2 : (s*4+j+1)*2]
			row[s], row[1-s] = stay, move
		}
	}
	return k
}

// PerturbRewards returns a copy of base whose rewards carry independent
// Gaussian noise N(0, σ²) with standard deviation sigma, the "similar games"
// of multi-agent-meta-rl App. F.1 and F.2, which add N(0, 0.1) noise to
// each entry of a state's reward matrix. Whether the paper's 0.1 is a
// variance or a standard deviation is ambiguous; here sigma is
// a standard deviation (as numpy.random.normal(0, 0.1)), so pass
// math.Sqrt(0.1) for the variance reading.
//
// One noise value is drawn per (state, joint action, player) entry and
// added at every step h, so a time-homogeneous base game stays
// time-homogeneous (each state's reward matrix is perturbed once, as in the
// paper); see [PerturbRewardsPerStep] for independent noise per step. The
// structure is kept: in a zero-sum base game (see [Episodic.ZeroSum]) one
// draw ξ perturbs player 0's reward and player 1 receives −(r_0 + ξ); in a
// cooperative base game one draw is shared by all players (a two-player
// game with all rewards 0 is both, and is treated as cooperative). Perturbed
// rewards may leave the [0, 1] of the paper's theory. The transitions are
// shared with base (both are immutable). The draws come from rng in the
// order (s, j, i).
//
// It returns an error if base or rng is nil or sigma is negative or not
// finite.
// The cost is O(H·S·J·N).
func PerturbRewards(base *Episodic, sigma float64, rng *rand.Rand) (*Episodic, error) {
	return perturbRewards(base, sigma, false, rng)
}

// PerturbRewardsPerStep is [PerturbRewards] with independent noise for every
// step h as well: one draw per (h, s, j, i) entry, in that order.
func PerturbRewardsPerStep(base *Episodic, sigma float64, rng *rand.Rand) (*Episodic, error) {
	return perturbRewards(base, sigma, true, rng)
}

// PerturbedEpisodic returns k games drawn independently by
// [PerturbRewards] from base with standard deviation sigma: the K-game
// family of App. F.1 and F.2 (K = 10 and sigma = 0.1 in the paper). The
// games share base's transitions. It returns an error if k is negative or
// as PerturbRewards does.
func PerturbedEpisodic(base *Episodic, k int, sigma float64, rng *rand.Rand) ([]*Episodic, error) {
	if k < 0 {
		return nil, fmt.Errorf("%w: %d perturbed games", icrl.ErrInvalid, k)
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: PerturbedEpisodic needs a random number generator", icrl.ErrNilRand)
	}
	games := make([]*Episodic, k)
	for c := range games {
		g, err := PerturbRewards(base, sigma, rng)
		if err != nil {
			return nil, err
		}
		games[c] = g
	}
	return games, nil
}

func perturbRewards(base *Episodic, sigma float64, perStep bool, rng *rand.Rand) (*Episodic, error) {
	if base == nil {
		return nil, fmt.Errorf("%w: perturbation of a nil game", icrl.ErrEmpty)
	}
	if !(sigma >= 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("%w: perturbation standard deviation σ = %v must be finite and non-negative", icrl.ErrInvalid, sigma)
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: reward perturbation needs a random number generator", icrl.ErrNilRand)
	}
	g := *base
	src := base.r
	if perStep && base.rLayers < base.horizon {
		// Time-homogeneous rewards get a layer per step.
		src = make([]float64, 0, base.horizon*len(base.r))
		for range base.horizon {
			src = append(src, base.r...)
		}
		g.rLayers = base.horizon
	}
	g.r = make([]float64, len(src))
	N := g.n
	layer := g.states * g.joint * N
	draws := layer
	if perStep {
		draws = len(src)
	}
	// Noise per entry k of the first `draws` entries; entry k of step h uses
	// noise[k mod draws].
	noise := make([]float64, draws)
	for k := 0; k < draws; k += N {
		switch {
		case base.coop:
			x := sigma * rng.NormFloat64()
			for i := range N {
				noise[k+i] = x
			}
		case base.zeroSum:
			x := sigma * rng.NormFloat64()
			noise[k], noise[k+1] = x, -x
		default:
			for i := range N {
				noise[k+i] = sigma * rng.NormFloat64()
			}
		}
	}
	for k, v := range src {
		x := v + noise[k%draws]
		if math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: perturbed reward %d overflows", icrl.ErrNotFinite, k)
		}
		g.r[k] = x
	}
	if base.zeroSum {
		// Keep r_1 = c − r_0 (−r_0 exactly when c = 0) after rounding.
		for k := 0; k < len(g.r); k += 2 {
			g.r[k+1] = -g.r[k]
			if base.sum != 0 {
				g.r[k+1] = base.sum - g.r[k]
			}
		}
	}
	g.classify()
	return &g, nil
}
