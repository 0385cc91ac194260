package markov

import (
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/nilness"
)

// newEpisodicKernels validates the sizes and kernels and returns a game
// without rewards.
func newEpisodicKernels(actions []int, start, horizon, rLayers int, kernels []Kernel) (*Episodic, error) {
	if horizon < 1 {
		return nil, fmt.Errorf("%w: the game has no step (horizon %d)", icrl.ErrEmpty, horizon)
	}
	if rLayers != 1 && rLayers != horizon {
		return nil, fmt.Errorf("%w: %d reward layers, want %d (one per step) or 1 (time-homogeneous)", icrl.ErrShape, rLayers, horizon)
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
