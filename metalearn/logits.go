package metalearn

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/markov"
)

// Logits are the softmax policy parameters θ = (θ_0, …, θ_{N−1}) of a
// discounted game (App. C): Logits[i][s·A_i + a] = θ_i(a|s), and
// π_{θ_i}(a|s) = exp θ_i(a|s) / Σ_{a'} exp θ_i(a'|s). Gradients and
// Hessian-vector products are flat vectors: the players' blocks
// concatenated in player order ([Logits.Vector]), P = S·Σ_i A_i entries.
type Logits [][]float64

// ZeroLogits returns the all-zero parameters of g: the uniform policies.
// It panics if g is nil.
func ZeroLogits(g markov.GeneralSumModel) Logits {
	th := make(Logits, g.Players())
	for i := range th {
		th[i] = make([]float64, g.States()*g.Actions(game.Player(i)))
	}
	return th
}

// Vector returns the players' parameters concatenated in player order.
func (th Logits) Vector() []float64 {
	var n int
	for _, t := range th {
		n += len(t)
	}
	v := make([]float64, 0, n)
	for _, t := range th {
		v = append(v, t...)
	}
	return v
}

// Clone returns a deep copy of th.
func (th Logits) Clone() Logits {
	c := make(Logits, len(th))
	for i, t := range th {
		c[i] = append([]float64(nil), t...)
	}
	return c
}

// LogitsFromVector splits a flat vector of g's parameters (the layout of
// [Logits.Vector]) into per-player logits, copying it. It returns an error
// if the length is not S·Σ_i A_i.
func LogitsFromVector(g markov.GeneralSumModel, v []float64) (Logits, error) {
	if nilness.Is(g) {
		return nil, fmt.Errorf("%w: LogitsFromVector: nil game", icrl.ErrNil)
	}
	th := ZeroLogits(g)
	var n int
	for _, t := range th {
		n += len(t)
	}
	if len(v) != n {
		return nil, fmt.Errorf("%w: parameter vector has %d entries, want S·Σ_i A_i = %d", icrl.ErrInvalid, len(v), n)
	}
	k := 0
	for _, t := range th {
		k += copy(t, v[k:])
	}
	return th, nil
}

// SoftmaxPolicies returns the stationary policies π_θ of the logits th on
// g (one per player). It returns an error if th does not match g's shape
// or has a non-finite entry.
func SoftmaxPolicies(g markov.GeneralSumModel, th Logits) ([]markov.Stationary, error) {
	if nilness.Is(g) {
		return nil, fmt.Errorf("%w: SoftmaxPolicies: nil game", icrl.ErrNil)
	}
	if err := potCheckLogits(g, th, ""); err != nil {
		return nil, err
	}
	S := g.States()
	pi := make([]markov.Stationary, len(th))
	for i, t := range th {
		A := g.Actions(game.Player(i))
		pi[i] = make(markov.Stationary, S)
		for s := range S {
			pi[i][s] = simplex.Softmax(nil, t[s*A:(s+1)*A])
		}
	}
	return pi, nil
}

// potCheckLogits returns an error naming the player and entry if th does
// not have g's shape or is not finite. where prefixes the message.
func potCheckLogits(g markov.GeneralSumModel, th Logits, where string) error {
	if len(th) != g.Players() {
		return fmt.Errorf("%w: %slogits for %d players, the game has %d", icrl.ErrInvalid, where, len(th), g.Players())
	}
	for i, t := range th {
		if want := g.States() * g.Actions(game.Player(i)); len(t) != want {
			return fmt.Errorf("%w: %slogits of player %d have %d entries, want S·A_%d = %d", icrl.ErrInvalid, where, i, len(t), i, want)
		}
		for k, x := range t {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%w: %slogit θ_%d[%d] (state %d, action %d) = %v is not finite", icrl.ErrNotFinite, where, i, k, k/g.Actions(game.Player(i)), k%g.Actions(game.Player(i)), x)
			}
		}
	}
	return nil
}
