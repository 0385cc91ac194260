package markov

import (
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
)

// CheckCorrelatedStationary returns nil if sigma is a correlated stationary
// policy of g: one distribution over the J joint actions (flat indices of
// [DiscountedGeneralSum.Joint]) in each of the S states. Otherwise the
// error names the first bad state.
func (g *DiscountedGeneralSum) CheckCorrelatedStationary(sigma Stationary) error {
	return sigma.check("correlated policy", g.states, g.joint)
}

// CorrelatedValues returns the players' values of the correlated
// stationary policy sigma, V[i][s] = V_i^σ(s): the solution of
// (I − γP_σ) V_i = r_{i,σ} with P_σ(s, s') = Σ_j σ(j|s) P(s'|s, j) and
// r_{i,σ}(s) = Σ_j σ(j|s) r_i(s, j), as [DiscountedGeneralSum.Values] for a
// product policy. It returns an error if sigma is not a correlated
// stationary policy of g. The cost is O(S·J·(S+N) + S³).
func (g *DiscountedGeneralSum) CorrelatedValues(sigma Stationary) ([][]float64, error) {
	if err := g.CheckCorrelatedStationary(sigma); err != nil {
		return nil, err
	}
	S, N := g.states, g.n
	pm := make([]float64, S*S)
	rm := make([]float64, S*N)
	g.mixWeights(pm, rm, func(s int) []float64 { return sigma[s] })
	return g.solveValues(pm, rm)
}

// CCEGap returns the CCE-gap of the correlated stationary policy sigma,
//
//	max_i (max_{π'_i} V_i^ρ(π'_i × σ_{−i}) − V_i^ρ(σ)),
//
// and each player's term: how much player i gains from ρ by ignoring its
// recommendation and best-responding to the others' marginal σ_{−i}(·|s)
// of sigma in every state (the coarse correlated equilibrium of
// multi-agent-meta-rl §5, Definition 2, for a stationary σ). It is 0 at a
// CCE. For a product policy sigma it equals [DiscountedGeneralSum.NEGap];
// for a one-state game with γ = 0 it is the familiar normal-form CCE gap
// max_i max_a Σ_j σ(j) (r_i(a, j_{−i}) − r_i(j)). Unlike the NE-gap's, a
// player's term can be negative: following a correlated σ can be worth more
// than any deviation from it (the empirical play of no-regret dynamics
// often is, when the players' regrets are negative); the gap is the
// largest term, or 0 when every term is negative. The best responses are
// solved as in [DiscountedGeneralSum.BestResponse].
//
// It returns an error naming the bad state if sigma is not a correlated
// stationary policy of g. The cost is O(N·S·J·S) set-up and O(S³) per
// policy-iteration step.
func (g *DiscountedGeneralSum) CCEGap(sigma Stationary) (gap float64, perPlayer []float64, err error) {
	v, err := g.CorrelatedValues(sigma)
	if err != nil {
		return 0, nil, err
	}
	perPlayer = make([]float64, g.n)
	for i := range g.n {
		br, _, err := g.deviationMDP(sigma, i).solve()
		if err != nil {
			return 0, nil, err
		}
		var d float64
		for s, r := range g.rho {
			d += r * (br[s] - v[i][s])
		}
		perPlayer[i] = d
		gap = max(gap, d)
	}
	return gap, perPlayer, nil
}

// deviationMDP returns the MDP of player i who plays its own actions while
// the others follow the marginal of sigma: action a in state s earns
// Σ_j σ(j|s) r_i(s, j with a_i = a) and moves by the same mixture of P.
func (g *DiscountedGeneralSum) deviationMDP(sigma Stationary, i int) *brMDP {
	S, J, N := g.states, g.joint, g.n
	K, stride := g.actions[i], g.stride[i]
	m := &brMDP{S: S, K: K, gamma: g.gamma, r: make([]float64, S*K), p: make([]float64, S*K*S)}
	for s := range S {
		for j, wj := range sigma[s] {
			if wj == 0 {
				continue
			}
			base := j - int(g.act[j*N+i])*stride // j with a_i = 0
			for a := range K {
				d := base + a*stride
				k := s*K + a
				m.r[k] += wj * g.r[(s*J+d)*N+i]
				AddRow(m.p[k*S:(k+1)*S], g.kern, s, d, wj)
			}
		}
	}
	return m
}

// NEGap returns the NE-gap of the product of stationary policies pi in the
// model m (a caller's own struct or a table), as
// [DiscountedGeneralSum.NEGap] of Tabulate(m). It tabulates m on every
// call (O(S·J·(N+S)) calls of its methods); tabulate once to evaluate many
// policies.
func NEGap(m GeneralSumModel, pi []Stationary) (gap float64, perPlayer []float64, err error) {
	g, err := Tabulate(m)
	if err != nil {
		return 0, nil, err
	}
	return g.NEGap(pi)
}

// CCEGap returns the CCE-gap of the correlated stationary policy sigma in
// the model m, as [DiscountedGeneralSum.CCEGap] of Tabulate(m), tabulating
// m on every call.
func CCEGap(m GeneralSumModel, sigma Stationary) (gap float64, perPlayer []float64, err error) {
	g, err := Tabulate(m)
	if err != nil {
		return 0, nil, err
	}
	return g.CCEGap(sigma)
}

// Compile-time check: a tabular general-sum game is both a model and a
// simulator.
var _ game.Multiplayer = (*DiscountedGeneralSum)(nil)

// Start draws the first state from the initial distribution ρ (one draw
// from rng), so that the game is a game.Multiplayer.
func (g *DiscountedGeneralSum) Start(rng *rand.Rand) int {
	return simplex.SampleCategorical(g.rho, rng)
}

// Play plays the joint action actions (one action per player, player 0
// first) in state s: it stores every player's reward r_i(s, j) in rewards
// (the table's values themselves, with no reward noise) and draws the next
// state from P(·|s, j) with one draw from rng. It panics if s or an action
// is out of range, or actions or rewards does not have N entries. It
// costs O(N) plus one kernel draw.
func (g *DiscountedGeneralSum) Play(s int, actions []int, rewards []float64, rng *rand.Rand) int {
	if len(rewards) != g.n {
		panic(fmt.Sprintf("markov: %d rewards for %d players", len(rewards), g.n))
	}
	j := g.index(actions)
	g.check(s, j)
	copy(rewards, g.r[(s*g.joint+j)*g.n:(s*g.joint+j+1)*g.n])
	return g.kern.Sample(s, j, rng)
}
