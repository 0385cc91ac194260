package markov

import (
	"fmt"

	"github.com/icrl-go/icrl/tensor"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nilness"
)

// GeneralSumModel is a discounted N-player Markov game known through its
// parts (multi-agent-meta-rl App. C: players, states, actions, rewards
// r_i(s, j), transitions P(·|s, j), discount γ and initial distribution ρ):
// what the meta-learning algorithms of package metalearn read. A caller's
// own game, a plain struct with these seven methods, enters every one of
// them; *DiscountedGeneralSum implements it, and [Tabulate] turns any
// implementation into one.
//
// Joint actions are flat indices j ∈ [0, J), J = Π_i A_i, in mixed radix
// with player 0 most significant (for two players j = a·A_1 + b), as in
// [DiscountedGeneralSum.Joint].
type GeneralSumModel interface {
	// Players returns the number of players N ≥ 1.
	Players() int
	// States returns the number of states S ≥ 1.
	States() int
	// Actions returns the number of actions A_p ≥ 1 of player p.
	Actions(p game.Player) int
	// Discount returns γ ∈ [0, 1).
	Discount() float64
	// Initial returns ρ, the distribution of the first state.
	Initial() []float64
	// Reward returns r_p(s, j), player p's reward for joint action j in
	// state s.
	Reward(s, j int, p game.Player) float64
	// Transition returns P(·|s, j), a distribution over the S states.
	Transition(s, j int) []float64
}

// Compile-time check: the tabular game is a GeneralSumModel.
var _ GeneralSumModel = (*DiscountedGeneralSum)(nil)

// Tabulate returns m as a *DiscountedGeneralSum: m itself if it is one,
// otherwise the tables of its rewards and transitions, read once
// (O(S·J·(N+S)) calls). It returns an error wrapping ErrEmpty for a nil
// model (a typed nil included), and the errors of NewDiscountedGeneralSum
// for sizes, rewards, transitions, γ or ρ it rejects; sizes are checked
// before anything is allocated.
func Tabulate(m GeneralSumModel) (*DiscountedGeneralSum, error) {
	if nilness.Is(m) {
		return nil, fmt.Errorf("%w: Tabulate of a nil model", icrl.ErrEmpty)
	}
	if g, ok := m.(*DiscountedGeneralSum); ok {
		if g.n == 0 {
			return nil, fmt.Errorf("%w: Tabulate of a zero DiscountedGeneralSum (use a constructor)", icrl.ErrEmpty)
		}
		return g, nil
	}
	N, S := m.Players(), m.States()
	if N < 1 {
		return nil, fmt.Errorf("%w: the model has %d players", icrl.ErrEmpty, N)
	}
	actions := make([]int, 0, min(N, 64)) // capped: N is validated only below, by newDGSSkeleton
	for i := range N {
		actions = append(actions, m.Actions(game.Player(i)))
	}
	skel, err := newDGSSkeleton(actions, S, m.Discount(), true)
	if err != nil {
		return nil, err
	}
	J := skel.joint
	rewards, err := tensor.New[float64](S, J, N) // sizes checked by newDGSSkeleton
	if err != nil {
		return nil, err
	}
	transitions, err := tensor.New[float64](S, J, S)
	if err != nil {
		return nil, err
	}
	for s := range S {
		for j := range J {
			r := rewards.Row(s, j)
			for i := range N {
				r[i] = m.Reward(s, j, game.Player(i))
			}
			p := m.Transition(s, j)
			if len(p) != S {
				return nil, fmt.Errorf("%w: transition P(·|s=%d, joint=%d) has %d entries, want %d states", icrl.ErrShape, s, j, len(p), S)
			}
			copy(transitions.Row(s, j), p)
		}
	}
	k, err := NewDenseKernel(transitions)
	if err != nil {
		return nil, err
	}
	return NewDiscountedGeneralSum(actions, rewards, k, m.Discount(), m.Initial())
}
