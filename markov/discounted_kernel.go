package markov

import (
	"fmt"
	"math"

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

// NewDiscountedKernel is [NewDiscounted] with the transitions given as a
// kernel over the joint actions j = a·B + b of the row player's A and the
// column player's B actions, shared rather than copied. The numbers of
// states S and actions A, B are those of rewards[s][a][b]. It returns an
// error naming the first bad entry if the game has no state or action,
// the shapes are inconsistent, a reward is not finite or γ is outside
// [0, 1), or wrapping [ErrKernel] if the kernel is nil or its shape is
// not S states × A·B joint actions. The cost is O(S·A·B).
func NewDiscountedKernel(rewards [][][]float64, kernel Kernel, gamma float64) (*Discounted, error) {
	if !(gamma >= 0 && gamma < 1) {
		return nil, fmt.Errorf("%w: discount γ = %v is outside [0, 1)", ErrInvalid, gamma)
	}
	S := len(rewards)
	if S == 0 || len(rewards[0]) == 0 || len(rewards[0][0]) == 0 {
		return nil, fmt.Errorf("%w: the game has no state or no action", ErrEmpty)
	}
	if nilness.Is(kernel) {
		return nil, fmt.Errorf("%w: nil kernel (%T)", ErrKernel, kernel)
	}
	A, B := len(rewards[0]), len(rewards[0][0])
	if ks, kj := kernel.Shape(); ks != S || kj != A*B {
		return nil, fmt.Errorf("%w: the kernel has %d states × %d joint actions, want %d × %d", ErrKernel, ks, kj, S, A*B)
	}
	g := &Discounted{states: S, rows: A, cols: B, gamma: gamma, r: make([]float64, 0, S*A*B), kern: kernel}
	for s := range S {
		if len(rewards[s]) != A {
			return nil, fmt.Errorf("%w: state %d has %d reward rows, want %d row-player actions", ErrShape, s, len(rewards[s]), A)
		}
		for a := range A {
			if len(rewards[s][a]) != B {
				return nil, fmt.Errorf("%w: state %d, row action %d has %d rewards, want %d column-player actions", ErrShape, s, a, len(rewards[s][a]), B)
			}
			for b, r := range rewards[s][a] {
				if math.IsNaN(r) || math.IsInf(r, 0) {
					return nil, fmt.Errorf("%w: reward r(%d, %d, %d) = %v is not finite", ErrNotFinite, s, a, b, r)
				}
				g.r = append(g.r, r)
			}
		}
	}
	return g, nil
}
