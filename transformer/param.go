package transformer

import (
	"fmt"

	"github.com/icrl-go/icrl/tensor"
)

// Param is one named parameter tensor of a model, with its gradient. Value
// and Grad are row-major with the given shape and have the same length. The
// optimiser reads Grad and updates Value; a backward pass accumulates into
// Grad, so callers zero it between steps (see [Model.ZeroGrad]).
type Param[F tensor.Float] struct {
	// Name identifies the tensor in files, e.g. "layers.0.attn.qkv.weight".
	Name string
	// Shape is the tensor's shape; the product of its entries is len(Value).
	Shape []int
	// Value holds the parameter's entries.
	Value []F
	// Grad holds the gradient of the loss with respect to Value.
	Grad []F
}

// newParam returns a zero parameter of the given name and shape.
func newParam[F tensor.Float](name string, shape ...int) *Param[F] {
	n := 1
	for _, s := range shape {
		if s <= 0 {
			panic(fmt.Sprintf("transformer: parameter %s has shape %v", name, shape))
		}
		n *= s
	}
	return &Param[F]{Name: name, Shape: shape, Value: make([]F, n), Grad: make([]F, n)}
}

// Size returns the number of entries of p.
func (p *Param[F]) Size() int { return len(p.Value) }
