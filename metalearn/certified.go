package metalearn

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// CertifiedPolicy is the output policy π̄ of Algorithm 3 of
// multi-agent-meta-rl (Appendix E.1; Algorithm 3, App. E), a correlated, non-Markov
// policy: draw an iteration t uniformly from the first T and let σ_0 =
// τ(t); then at the paper's step h = 1, …, H play the policy of a uniformly
// random iteration of stage σ_0 − h, the random iteration being shared by
// all players (the coordination device). The paper's stage σ_0 − h does not
// exist when σ_0 − h < 1; stage 1 is used instead, which plays the stage-1
// initialisation because Q^1 ≡ 0; the paper leaves this boundary open.
//
// Drawing a uniformly random iteration of stage σ and playing its product
// policy is the same as drawing the joint action from the stage-average
// joint distribution ρ_σ, so π̄ is the mixture over σ_0 ∈ [τ(T)], with
// weights w_{σ_0} = (number of the first T iterations in stage σ_0)/T, of
// the Markov correlated policies that play ρ_{max(σ_0−h, 1), h} at the
// paper's step h. With 0-based stages k_0 = σ_0 − 1 and steps h = 0, …,
// H−1 (the paper's h+1) as in this package, component k_0 plays stage
// max(k_0 − h − 1, 0) at step h (PlayedStage).
//
// A CertifiedPolicy holds its own copy of the stage distributions it
// plays; it must not be modified.
type CertifiedPolicy struct {
	t       int
	weights []float64
	comps   []*markov.Correlated
}

// Output returns the output policy of Algorithm 3 for all T iterations of
// the run (Algorithm 3, App. E). r must come from GeneralSumOOMD. The cost is
// O(τ̄·H·S·J) (each component's layers are copied).
func (r *GeneralSumResult) Output() *CertifiedPolicy {
	return certifiedOutput(r.Schedule, r.StageJoint, r.Schedule.Iterations())
}

// certifiedOutput returns the Algorithm 3 output restricted to the first t
// iterations of a run with schedule sched and stage joint distributions
// joints; joints[k] must be set for k ≤ max(τ(t) − 2, 0) (0-based).
func certifiedOutput(sched Schedule, joints []*markov.Correlated, t int) *CertifiedPolicy {
	kt := sched.StageOf(t)
	p := &CertifiedPolicy{
		t:       t,
		weights: make([]float64, kt+1),
		comps:   make([]*markov.Correlated, kt+1),
	}
	hor, ns, nj := joints[0].Dim(0), joints[0].Dim(1), joints[0].Dim(2)
	for k := range kt + 1 {
		p.weights[k] = float64(min(sched[k].End, t)-sched[k].Start+1) / float64(t)
		// Component k plays, at step h, step h of the joint distribution
		// of stage playedStage(k, h): the layers are copied.
		c, err := tensor.New[float64](hor, ns, nj)
		if err != nil {
			panic(fmt.Sprintf("metalearn: certified component of %d×%d×%d: %v", hor, ns, nj, err))
		}
		for h := range hor {
			copy(c.Sub(h).Data(), joints[playedStage(k, h)].Sub(h).Data())
		}
		p.comps[k] = c
	}
	return p
}

// playedStage is the 0-based stage played at 0-based step h by the
// component of 0-based stage k: the paper's max(σ_0 − h, 1) with σ_0 = k+1
// and paper step h+1.
func playedStage(k, h int) int { return max(k-h-1, 0) }

// Iterations returns the number T of iterations the output is drawn from.
func (p *CertifiedPolicy) Iterations() int { return p.t }

// PlayedStage returns the 0-based stage whose joint distribution component
// k (σ_0 = k+1) plays at the 0-based step h: max(k − h − 1, 0), the paper's
// max(σ_0 − (h+1), 1) − 1 (Algorithm 3, with early stages clamped to stage 1). It panics if k is not a
// component.
func (p *CertifiedPolicy) PlayedStage(k, h int) int {
	if k < 0 || k >= len(p.comps) {
		panic(fmt.Sprintf("metalearn: component %d outside [0, %d)", k, len(p.comps)))
	}
	return playedStage(k, h)
}

// Components returns the mixture components of p, one Markov correlated
// policy per stage σ_0 = k+1 of the first T iterations, and their weights
// w_{σ_0} (summing to 1). The slices are new, the components they hold
// are p's and must not be modified. The cost is O(τ̄).
func (p *CertifiedPolicy) Components() ([]*markov.Correlated, []float64) {
	return append([]*markov.Correlated(nil), p.comps...), append([]float64(nil), p.weights...)
}

// Values returns each player's exact expected episode return under p,
// Σ_{σ_0} w_{σ_0} V^{σ_0}_{1,i}(s_1), with V^{σ_0} the on-policy values of
// the components (the mean of Rollout). It returns an error if m is nil or
// a component is not a correlated policy of m. The cost is
// O(τ̄·H·S·J·(S+N)).
//
// m is a *markov.Episodic or any markov.EpisodicModel, such as a
// caller's own struct, tabulated once by markov.TabulateEpisodic.
func (p *CertifiedPolicy) Values(m markov.EpisodicModel) ([]float64, error) {
	g, err := tabulate("Values of a certified policy", m)
	if err != nil {
		return nil, err
	}
	n, ns := g.Players(), g.States()
	out := make([]float64, n)
	next := make([]float64, ns*n)
	cur := make([]float64, ns*n)
	for k, c := range p.comps {
		if err := g.CheckCorrelated(c); err != nil {
			return nil, fmt.Errorf("metalearn: component %d: %w", k, err)
		}
		clear(next)
		for h := g.Horizon() - 1; h >= 0; h-- {
			clear(cur)
			for s := range ns {
				vs := cur[s*n : s*n+n]
				for j, pj := range c.Row(h, s) {
					if pj == 0 {
						continue
					}
					for i := range vs {
						vs[i] += pj * g.StepReward(h, s, j, game.Player(i))
					}
					for s2, q := range g.StepTransition(h, s, j) {
						if q == 0 {
							continue
						}
						for i := range vs {
							vs[i] += pj * q * next[s2*n+i]
						}
					}
				}
			}
			next, cur = cur, next
		}
		s1 := g.Start()
		for i := range out {
			out[i] += p.weights[k] * next[s1*n+i]
		}
	}
	return out, nil
}

// Rollout plays one episode of p in the game m (a *markov.Episodic or any
// markov.EpisodicModel, read through its methods) and stores each player's return
// Σ_h r_{h,i}(s_h, a_h) in dst (allocated if too short), which it returns:
// it draws the component σ_0 from the weights, then at every step the joint
// action from the component's distribution at the current state and the
// next state from P_h. This is the Monte Carlo executor of Algorithm 3, App. E;
// drawing the joint action from the stage average ρ is equivalent to
// Algorithm 3's draw of a uniformly random iteration of the stage followed
// by that iteration's product policy. Randomness comes from rng only, and a
// model draws the same episode as its table (markov.TabulateEpisodic). It
// panics if m does not have the horizon, states and joint actions p was
// built for, or its initial distribution is not a point mass. The cost is
// O(τ̄ + H·(J + S + N)) plus the model's calls, and it does not allocate in
// a *markov.Episodic when dst has room for N returns.
func (p *CertifiedPolicy) Rollout(m markov.EpisodicModel, rng *rand.Rand, dst []float64) []float64 {
	n := m.Players()
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	clear(dst)
	c := p.comps[simplex.SampleCategorical(p.weights, rng)]
	J := 1
	for i := range n {
		J *= m.Actions(game.Player(i))
	}
	if c.Dim(0) != m.Horizon() || c.Dim(1) != m.States() || c.Dim(2) != J {
		panic(fmt.Sprintf("metalearn: certified policy of %d steps, %d states and %d joint actions rolled out in a game of %d, %d and %d",
			c.Dim(0), c.Dim(1), c.Dim(2), m.Horizon(), m.States(), J))
	}
	g, table := m.(*markov.Episodic)
	var s int
	if table {
		s = g.Start()
	} else {
		s = slices.Index(m.Initial(), 1) // the point mass of an EpisodicModel
		if s < 0 {
			panic(fmt.Sprintf("metalearn: certified policy rolled out in a game whose initial distribution %v is not a point mass", m.Initial()))
		}
	}
	for h := range c.Dim(0) {
		j := simplex.SampleCategorical(c.Row(h, s), rng)
		if table {
			r, next := g.Step(h, s, j, rng)
			for i, v := range r {
				dst[i] += v
			}
			s = next
			continue
		}
		for i := range dst {
			dst[i] += m.StepReward(h, s, j, game.Player(i))
		}
		s = simplex.SampleCategorical(m.StepTransition(h, s, j), rng)
	}
	return dst
}

// CertifiedCCEGap returns the certified CCE-gap of the Algorithm 3 output
// p in m and each player's signed term (Algorithm 3, App. E):
//
//	max_i Σ_{σ_0} w_{σ_0} (W^{σ_0}_{1,i}(s_1) − V^{σ_0}_{1,i}(s_1)),
//
// where V^{σ_0} and W^{σ_0} are the on-policy and best-deviation values of
// the Markov correlated component σ_0 (markov.Episodic.CertifiedCCEGap).
// The deviator may know σ_0, so this upper-bounds the true CCE-gap of the
// non-Markov mixture, whose exact value is hard because the history can
// reveal σ_0; it is the quantity (1/T) Σ_t δ^t_1 that the proof
// of Theorem 5 bounds (see Theorem5Bound). It can be negative (a
// correlated policy can beat every deviation). It returns an error if m or
// p is nil or p does not fit m. The cost is O(τ̄·H·S·J·S·N).
//
// m is a *markov.Episodic or any markov.EpisodicModel, such as a
// caller's own struct, tabulated once by markov.TabulateEpisodic.
func CertifiedCCEGap(m markov.EpisodicModel, p *CertifiedPolicy) (gap float64, perPlayer []float64, err error) {
	g, err := tabulate("CertifiedCCEGap", m)
	if err != nil {
		return 0, nil, err
	}
	if p == nil {
		return 0, nil, fmt.Errorf("%w: certified CCE-gap of a nil policy", icrl.ErrInvalid)
	}
	gap, perPlayer, err = g.CertifiedCCEGap(p.comps, p.weights)
	if err != nil {
		return 0, nil, fmt.Errorf("metalearn: %w", err)
	}
	return gap, perPlayer, nil
}

// Theorem5Bound returns the right-hand side of the first display of
// Theorem 5 of multi-agent-meta-rl (Appendix E) for a run res of
// GeneralSumOOMD from init with step size eta on a game with the given
// numbers of players N and steps H:
//
//	(3/(ηT)) Σ_{τ=1}^{τ̄} Σ_{h=1}^{H} max_{i,s} KL(π^{τ,†}_{h,i}(·|s) ‖ π̃^τ_{h,i}(·|s)) + 36 N² η² H⁴,
//
// with the recorded hindsight best responses res.BR (any maximiser is
// valid; the KL-minimal tie-break makes the bound smallest). It bounds the
// certified CCE-gap of res.Output(). The theorem's display has N²; Lemmas
// 17 and 19 have (N−1)², which gives a smaller value, and N² is used here
// (the safe choice: the proof of Theorem 6 also uses N). The sum runs over all τ̄ stages, including a partial last
// one. It panics if the shapes of res and init differ. The cost is
// O(τ̄·H·S·Σ_i A_i).
func Theorem5Bound(res *GeneralSumResult, init []*Staged, eta float64, players, horizon int) float64 {
	T := float64(res.Schedule.Iterations())
	var sum float64
	for k := range res.Schedule {
		for h := range horizon {
			var m float64
			for i := range res.BR {
				for s := range res.BR[i].Dim(2) {
					m = max(m, simplex.KL(res.BR[i].Row(k, h, s), init[i].Row(k, h, s)))
				}
			}
			sum += m
		}
	}
	N, H := float64(players), float64(horizon)
	return 3/(eta*T)*sum + 36*N*N*eta*eta*H*H*H*H
}
