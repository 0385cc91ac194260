package markov

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/tensor"
)

// Policy is one player's Markov policy in an [Episodic] game: an H×S×A_i
// [tensor.Dense] whose row (h, s), p.Row(h, s), is the player's
// distribution over its own actions at step h (0-based) in state s,
// π_{h+1,i}(·|s) in the paper's notation.
type Policy = tensor.Dense[float64]

// Product is a product (independent) Markov policy: Product[i] is player
// i's [Policy].
type Product []*Policy

// Correlated is a Markov correlated policy: an H×S×J [tensor.Dense] whose
// row (h, s) is a distribution over flat joint actions (see
// [Episodic.Joint]) at step h in state s, shared by all players. It is one
// component ρ_{σ_h, h} of the certified output policy of Algorithm 3
// (App. E).
type Correlated = tensor.Dense[float64]

// UniformPolicy returns the policy that plays each of actions actions with
// equal probability at every step and state. It panics if an argument is
// not positive or the policy would have more than 2^34 entries.
func UniformPolicy(horizon, states, actions int) *Policy {
	if _, ok := num.SizeWithin(epiMaxEntries, horizon, states, actions); horizon < 1 || states < 1 || actions < 1 || !ok {
		panic(fmt.Sprintf("markov: uniform policy over %d steps, %d states, %d actions", horizon, states, actions))
	}
	return newPolicy(horizon, states, actions, 1/float64(actions))
}

// newPolicy returns an H×S×A policy filled with v. The sizes must be
// checked by the caller.
func newPolicy(horizon, states, actions int, v float64) *Policy {
	buf := make([]float64, horizon*states*actions)
	if v != 0 {
		for k := range buf {
			buf[k] = v
		}
	}
	p, err := tensor.FromData(buf, horizon, states, actions)
	if err != nil {
		panic(fmt.Sprintf("markov: policy of %d×%d×%d: %v", horizon, states, actions, err))
	}
	return p
}

// UniformProduct returns the product of the players' uniform policies.
func (g *Episodic) UniformProduct() Product {
	pi := make(Product, g.n)
	for i := range pi {
		pi[i] = UniformPolicy(g.horizon, g.states, g.actions[i])
	}
	return pi
}

// CheckPolicy returns nil if p is a Markov policy of player i: H steps of S
// states, each a distribution over A_i actions (entries finite, non-negative
// and summing to 1 within simplex.CheckDistribution's tolerance). Otherwise
// checkBuilt returns an error wrapping ErrEmpty if g is nil or a zero
// Episodic, not built by a constructor.
func (g *Episodic) checkBuilt() error {
	if g == nil || g.n == 0 || g.horizon == 0 {
		return fmt.Errorf("%w: a nil or zero Episodic (build one with NewEpisodic or NewZeroSumEpisodic)", icrl.ErrEmpty)
	}
	return nil
}

// the error names the player, step and state. It costs O(H·S·A_i).
func (g *Episodic) CheckPolicy(i int, p *Policy) error {
	if err := g.checkBuilt(); err != nil {
		return err
	}
	if uint(i) >= uint(g.n) {
		return fmt.Errorf("%w: player %d out of range [0, %d)", icrl.ErrInvalid, i, g.n)
	}
	return checkTable(fmt.Sprintf("policy of player %d", i), p, g.horizon, g.states, g.actions[i])
}

// CheckProduct returns nil if pi holds one valid Markov policy per player
// (see [Episodic.CheckPolicy]); otherwise the error names the first bad
// player, step and state.
func (g *Episodic) CheckProduct(pi Product) error {
	if err := g.checkBuilt(); err != nil {
		return err
	}
	if len(pi) != g.n {
		return fmt.Errorf("%w: product policy has %d players, want %d", icrl.ErrShape, len(pi), g.n)
	}
	for i, p := range pi {
		if err := g.CheckPolicy(i, p); err != nil {
			return err
		}
	}
	return nil
}

// CheckCorrelated returns nil if pi is a Markov correlated policy: H steps
// of S states, each a distribution over the J joint actions. Otherwise the
// error names the step and state. It costs O(H·S·J).
func (g *Episodic) CheckCorrelated(pi *Correlated) error {
	return checkTable("correlated policy", pi, g.horizon, g.states, g.joint)
}

// checkTable validates an H×S×n table of distributions.
func checkTable(name string, p *tensor.Dense[float64], horizon, states, n int) error {
	if p == nil {
		return fmt.Errorf("%w: %s is nil", icrl.ErrNil, name)
	}
	if p.Rank() != 3 || p.Dim(0) != horizon || p.Dim(1) != states || p.Dim(2) != n {
		return fmt.Errorf("%w: %s has shape %v, want [%d %d %d]", icrl.ErrShape, name, p.Shape(), horizon, states, n)
	}
	for h := range horizon {
		for s := range states {
			d := p.Row(h, s)
			if plainDistribution(d, n) {
				continue // the fast path; simplex.CheckDistribution names the error
			}
			if err := simplex.CheckDistribution(fmt.Sprintf("%s at step %d, state %d", name, h, s), d, n); err != nil {
				return fmt.Errorf("markov: %w", err)
			}
		}
	}
	return nil
}

// plainDistribution reports whether d has length n, finite non-negative
// entries and a sum within 1e-12 of 1, a sufficient condition for
// simplex.CheckDistribution to accept it; it does not allocate.
func plainDistribution(d []float64, n int) bool {
	if len(d) != n || n == 0 {
		return false
	}
	var sum float64
	for _, v := range d {
		if !(v >= 0 && v <= 1) {
			return false
		}
		sum += v
	}
	return math.Abs(sum-1) <= 1e-12
}

// Correlate returns the product policy pi written as a Markov correlated
// policy: ρ_h(j|s) = Π_i π_{h,i}(a_i|s) for the joint action j = (a_0, …).
// It returns an error if pi is not a valid product policy. It costs
// O(H·S·J·N).
func (g *Episodic) Correlate(pi Product) (*Correlated, error) {
	if err := g.CheckProduct(pi); err != nil {
		return nil, err
	}
	c := newPolicy(g.horizon, g.states, g.joint, 0)
	for h := range g.horizon {
		for s := range g.states {
			g.jointWeights(c.Row(h, s), pi, h, s, -1)
		}
	}
	return c, nil
}

// jointWeights stores in w the product over players k ≠ skip of
// π_{h,k}(a_k|s), indexed in mixed radix over the players other than skip
// (player 0 most significant); with skip = −1 this is the joint
// distribution indexed by flat joint actions. It returns the filled prefix
// of w.
func (g *Episodic) jointWeights(w []float64, pi Product, h, s, skip int) []float64 {
	n := 1
	w[0] = 1
	for k := range g.n {
		if k == skip {
			continue
		}
		d := pi[k].Row(h, s)
		a := len(d)
		for idx := n - 1; idx >= 0; idx-- {
			v := w[idx]
			for b := a - 1; b >= 0; b-- {
				w[idx*a+b] = v * d[b]
			}
		}
		n *= a
	}
	return w[:n]
}

// Rollout plays one episode of the product policy pi from the start state,
// sampling each player's action and the next state from rng, and stores
// in dst (allocated if too short) each player's undiscounted return
// Σ_h r_{h,i}(s_h, a_h). It panics if pi is not a valid product policy
// (check it once with [Episodic.CheckProduct]: Rollout is meant for Monte
// Carlo loops). It costs O(H·(Σ_i A_i + N + S)).
func (g *Episodic) Rollout(pi Product, rng *rand.Rand, dst []float64) []float64 {
	if len(pi) != g.n {
		panic(fmt.Sprintf("markov: rollout of a product policy of %d players, want %d", len(pi), g.n))
	}
	if cap(dst) < g.n {
		dst = make([]float64, g.n)
	}
	dst = dst[:g.n]
	clear(dst)
	s := g.start
	for h := range g.horizon {
		j := 0
		for i, p := range pi {
			a := simplex.SampleCategorical(p.Row(h, s), rng)
			if a >= g.actions[i] {
				panic(fmt.Sprintf("markov: policy of player %d at step %d, state %d has %d actions, want %d", i, h, s, len(p.Row(h, s)), g.actions[i]))
			}
			j = j*g.actions[i] + a
		}
		k := g.rIndex(h, s, j)
		for i := range dst {
			dst[i] += g.r[k+i]
		}
		s = g.kernel(h).Sample(s, j, rng)
	}
	return dst
}

// RolloutCorrelated is [Episodic.Rollout] for a Markov correlated policy:
// at each step one joint action is drawn from pi.Row(h, s). It panics if pi is
// not a valid correlated policy (see [Episodic.CheckCorrelated]).
func (g *Episodic) RolloutCorrelated(pi *Correlated, rng *rand.Rand, dst []float64) []float64 {
	if cap(dst) < g.n {
		dst = make([]float64, g.n)
	}
	dst = dst[:g.n]
	clear(dst)
	s := g.start
	for h := range g.horizon {
		j := simplex.SampleCategorical(pi.Row(h, s), rng)
		k := g.rIndex(h, s, j)
		for i := range dst {
			dst[i] += g.r[k+i]
		}
		s = g.kernel(h).Sample(s, j, rng)
	}
	return dst
}
