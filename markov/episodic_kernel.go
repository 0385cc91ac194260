package markov

import (
	"fmt"

	"github.com/icrl-go/icrl/internal/nilness"
)

// NewGeneralSumKernels returns the general-sum Markov game of
// [NewGeneralSum] with horizon H = horizon, rewards rewards[h][s][j][i] =
// r_{h,i}(s, j) given for every step (H layers) or once for all steps (one
// layer, time-homogeneous rewards, stored once), and transitions given as
// kernels: one per step or one for every step. The number of states S is
// that of the kernels. The rewards are copied; the kernels are shared,
// which is safe since kernels are immutable. This is how a game whose
// transitions are sparse ([SparseKernel]) or factor across players
// ([ProductKernel]) is built without its S·J·S table: every evaluation of
// [Episodic] reaches the transitions through [Kernel] only.
//
// It returns an error naming the first bad entry under the conditions of
// [NewGeneralSum], if horizon < 1, if the number of reward layers is
// neither 1 nor H, or (wrapping [ErrKernel]) if the number of kernels is
// neither 1 nor H, a kernel is nil, or a kernel's shape is not S states ×
// J = Π_i A_i joint actions. The cost is O(L·S·J·N) for L reward layers.
func NewGeneralSumKernels(actions []int, start, horizon int, rewards [][][][]float64, kernels []Kernel) (*Episodic, error) {
	g, err := newEpisodicKernels(actions, start, horizon, len(rewards), kernels)
	if err != nil {
		return nil, err
	}
	if err := g.setRewards(rewards); err != nil {
		return nil, err
	}
	g.classify()
	return g, nil
}

// NewCooperativeKernels is [NewCooperative] with the transitions given as
// kernels and the rewards rewards[h][s][j] = r_h(s, j) shared by all
// players, given for every step or once for all steps, as in
// [NewGeneralSumKernels], which lists the errors.
func NewCooperativeKernels(actions []int, start, horizon int, rewards [][][]float64, kernels []Kernel) (*Episodic, error) {
	g, err := newEpisodicKernels(actions, start, horizon, len(rewards), kernels)
	if err != nil {
		return nil, err
	}
	if err := g.setShared(rewards); err != nil {
		return nil, err
	}
	g.classify()
	return g, nil
}

// newEpisodicKernels validates the sizes and kernels and returns a game
// without rewards.
func newEpisodicKernels(actions []int, start, horizon, rLayers int, kernels []Kernel) (*Episodic, error) {
	if horizon < 1 {
		return nil, fmt.Errorf("%w: the game has no step (horizon %d)", ErrEmpty, horizon)
	}
	if rLayers != 1 && rLayers != horizon {
		return nil, fmt.Errorf("%w: %d reward layers, want %d (one per step) or 1 (time-homogeneous)", ErrShape, rLayers, horizon)
	}
	if len(kernels) != 1 && len(kernels) != horizon {
		return nil, fmt.Errorf("%w: %d kernels, want %d (one per step) or 1 (time-homogeneous)", ErrKernel, len(kernels), horizon)
	}
	for h, k := range kernels {
		if nilness.Is(k) {
			return nil, fmt.Errorf("%w: the kernel of step %d is nil", ErrKernel, h)
		}
	}
	states, _ := kernels[0].Shape()
	g, err := newEpisodicSkeleton(actions, start, horizon, states, rLayers)
	if err != nil {
		return nil, err
	}
	for h, k := range kernels {
		if S, J := k.Shape(); S != states || J != g.joint {
			return nil, fmt.Errorf("%w: the kernel of step %d has %d states × %d joint actions, want %d × %d", ErrKernel, h, S, J, states, g.joint)
		}
	}
	g.kern = append([]Kernel(nil), kernels...)
	return g, nil
}
