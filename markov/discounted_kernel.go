package markov

import (
	"fmt"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nilness"
)

// NewDiscountedGeneralSumKernel is [NewDiscountedGeneralSum] with the
// transitions given as a kernel, shared rather than copied (kernels are
// immutable): the way to build a discounted game whose transitions are
// sparse ([SparseKernel]) or factor across players ([ProductKernel])
// without its S·J·S table. The number of states S is the kernel's. It
// returns an error naming the first bad entry under the conditions of
// [NewDiscountedGeneralSum], or wrapping [ErrKernel] if the kernel is nil
// or its shape is not S states × J = Π_i A_i joint actions. The cost is
// O(S·J·N).
func NewDiscountedGeneralSumKernel(actions []int, rewards [][][]float64, kernel Kernel, gamma float64, initial []float64) (*DiscountedGeneralSum, error) {
	g, err := newDGSKernel(actions, len(rewards), kernel, gamma, initial)
	if err != nil {
		return nil, err
	}
	if err := g.setRewards(rewards); err != nil {
		return nil, err
	}
	g.classify()
	return g, nil
}

// NewDiscountedCooperativeKernel is [NewDiscountedCooperative] with the
// transitions given as a kernel, as in [NewDiscountedGeneralSumKernel],
// which lists the errors.
func NewDiscountedCooperativeKernel(actions []int, rewards [][]float64, kernel Kernel, gamma float64, initial []float64) (*DiscountedGeneralSum, error) {
	g, err := newDGSKernel(actions, len(rewards), kernel, gamma, initial)
	if err != nil {
		return nil, err
	}
	if err := g.setShared(rewards); err != nil {
		return nil, err
	}
	return g, nil
}

// newDGSKernel validates the sizes, kernel, discount and initial
// distribution and returns a game without rewards.
func newDGSKernel(actions []int, rewardStates int, kernel Kernel, gamma float64, initial []float64) (*DiscountedGeneralSum, error) {
	if nilness.Is(kernel) {
		return nil, fmt.Errorf("%w: nil kernel (%T)", ErrKernel, kernel)
	}
	S, J := kernel.Shape()
	g, err := newDGSSkeleton(actions, S, gamma, false)
	if err != nil {
		return nil, err
	}
	if J != g.joint {
		return nil, fmt.Errorf("%w: the kernel has %d joint actions, want %d", ErrKernel, J, g.joint)
	}
	if rewardStates != S {
		return nil, fmt.Errorf("%w: %d reward states but the kernel has %d states", ErrShape, rewardStates, S)
	}
	if err := game.CheckDistribution("initial distribution ρ", initial, S); err != nil {
		return nil, fmt.Errorf("markov: %w", err)
	}
	g.rho = append([]float64(nil), initial...)
	g.kern = kernel
	return g, nil
}
