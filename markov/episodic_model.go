package markov

import (
	"fmt"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/tensor"
)

// EpisodicModel is a finite-horizon N-player Markov game known through its
// parts (multi-agent-meta-rl §2: players, states, actions, horizon H,
// rewards r_{h,i}(s, j), transitions P_h(·|s, j) and the initial state):
// what the episodic algorithms of package metalearn read. A caller's own
// game, a plain struct with these seven methods, enters every one of them;
// *Episodic implements it, and [TabulateEpisodic] turns any implementation
// into one. Players, States and Actions are the methods of the simulator
// (game.Multiplayer) and of the discounted model ([GeneralSumModel]), so
// one struct can be all three; a time-homogeneous game returns the same
// StepReward and StepTransition at every step h.
//
// Joint actions are flat indices j ∈ [0, J), J = Π_i A_i, in mixed radix
// with player 0 most significant, as in [Episodic.Joint].
type EpisodicModel interface {
	// Players returns the number of players N ≥ 1.
	Players() int
	// States returns the number of states S ≥ 1.
	States() int
	// Actions returns the number of actions A_p ≥ 1 of player p.
	Actions(p game.Player) int
	// Horizon returns the number of steps H ≥ 1 of an episode.
	Horizon() int
	// Initial returns the distribution of the first state; episodic
	// games start in one state, so it must put all its mass on one.
	Initial() []float64
	// StepReward returns r_{h,p}(s, j), player p's reward for joint
	// action j in state s at step h ∈ [0, H).
	StepReward(h, s, j int, p game.Player) float64
	// StepTransition returns P_h(·|s, j), a distribution over the S
	// states.
	StepTransition(h, s, j int) []float64
}

// Compile-time check: the tabular game is an EpisodicModel.
var _ EpisodicModel = (*Episodic)(nil)

// Initial returns the point mass on the start state, a new slice of S
// entries.
func (g *Episodic) Initial() []float64 {
	p := make([]float64, g.states)
	p[g.start] = 1
	return p
}

// TabulateEpisodic returns m as an *Episodic: m itself if it is one,
// otherwise the tables of its rewards and transitions, read once
// (O(H·S·J·(N+S)) calls), stored once for all steps when every step's
// rewards (or transitions) are the same. It returns an error wrapping
// ErrEmpty for a nil model (a typed nil included) or one without a player,
// state, step or action, ErrTooLarge past 2^34 stored entries (checked
// before anything is allocated), ErrInvalid if the initial distribution is
// not a point mass on a state, and the errors of [NewEpisodic] for
// rewards or transitions it rejects.
func TabulateEpisodic(m EpisodicModel) (*Episodic, error) {
	if nilness.Is(m) {
		return nil, fmt.Errorf("%w: TabulateEpisodic of a nil model", icrl.ErrEmpty)
	}
	if g, ok := m.(*Episodic); ok {
		if err := g.checkBuilt(); err != nil {
			return nil, err
		}
		return g, nil
	}
	N, S, H := m.Players(), m.States(), m.Horizon()
	if N < 1 {
		return nil, fmt.Errorf("%w: the model has %d players", icrl.ErrEmpty, N)
	}
	if N > epiMaxEntries {
		return nil, fmt.Errorf("%w: the model has %d players", icrl.ErrTooLarge, N)
	}
	actions := make([]int, 0, min(N, 64))
	for i := range N {
		actions = append(actions, m.Actions(game.Player(i)))
	}
	rho := m.Initial()
	if len(rho) != S {
		return nil, fmt.Errorf("%w: the initial distribution has %d entries, want %d states", icrl.ErrShape, len(rho), S)
	}
	start := slices.Index(rho, 1)
	for s, p := range rho {
		if (s == start) != (p == 1) || (s != start && p != 0) {
			start = -1
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("%w: an episodic game starts in one state, the initial distribution is %v", icrl.ErrInvalid, rho)
	}
	// The skeleton validates the sizes (H full layers) before anything
	// large is allocated.
	skel, err := newEpisodicSkeleton(actions, start, H, S, H)
	if err != nil {
		return nil, err
	}
	J := skel.joint
	if sz := mulSat(mulSat(H, S), mulSat(J, S)); sz > epiMaxEntries {
		return nil, fmt.Errorf("%w: the model has %d transition entries, more than 2^34", icrl.ErrTooLarge, sz)
	}
	rewards, err := tensor.New[float64](H, S, J, N)
	if err != nil {
		return nil, err
	}
	trans, err := tensor.New[float64](H, S, J, S)
	if err != nil {
		return nil, err
	}
	for h := range H {
		for s := range S {
			for j := range J {
				r := rewards.Row(h, s, j)
				for i := range N {
					r[i] = m.StepReward(h, s, j, game.Player(i))
				}
				p := m.StepTransition(h, s, j)
				if len(p) != S {
					return nil, fmt.Errorf("%w: transition P_%d(·|s=%d, joint=%d) has %d entries, want %d states", icrl.ErrShape, h, s, j, len(p), S)
				}
				copy(trans.Row(h, s, j), p)
			}
		}
	}
	if sameLayers(rewards.Data(), H) {
		if rewards, err = tensor.FromData(rewards.Data()[:S*J*N], 1, S, J, N); err != nil {
			return nil, err
		}
	}
	if sameLayers(trans.Data(), H) {
		if trans, err = tensor.FromData(trans.Data()[:S*J*S], 1, S, J, S); err != nil {
			return nil, err
		}
	}
	kernels, err := DenseKernels(trans)
	if err != nil {
		return nil, err
	}
	return NewEpisodic(actions, start, H, rewards, kernels)
}

// sameLayers reports whether the H equal parts of data are equal.
func sameLayers(data []float64, H int) bool {
	n := len(data) / H
	for h := 1; h < H; h++ {
		if !slices.Equal(data[:n], data[h*n:(h+1)*n]) {
			return false
		}
	}
	return true
}
