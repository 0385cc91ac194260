package markov

import (
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/nilness"
)

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
		return nil, fmt.Errorf("%w: %d reward states but the kernel has %d states", icrl.ErrShape, rewardStates, S)
	}
	if err := simplex.CheckDistribution("initial distribution ρ", initial, S); err != nil {
		return nil, fmt.Errorf("markov: %w", err)
	}
	g.rho = append([]float64(nil), initial...)
	g.kern = kernel
	return g, nil
}
