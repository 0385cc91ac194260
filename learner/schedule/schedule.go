// Package schedule holds the step-size schedules of online mirror descent
// (learner.OMD, in-context-games-omd §4.1 and Algorithm 1 of §4.3): the
// hyper-parameters η, β, ε, δ and α of each update as functions of the
// round, the visit count of the updated state, the horizon and the number
// of actions. [Cai] is the default of learner.OMD, [Paper] the schedule of
// the paper's analysis, and [Func] adapts any function.
package schedule

import "math"

// StepSizes are the hyper-parameters of one update of learner.OMD in the visited
// state (in-context-games-omd §4.1 and Algorithm 1 of §4.3):
//
//	ĝ_a   = ℓ·1{a = a_t}/(x_a + β) + ε·x_a
//	x(s) ← Π_{Ω_δ}(x(s) − c·η·ĝ),   Ω_δ = {x ∈ Δ(A) : x_a ≥ δ}
//	V(s) ← (1 − α)·V(s) + α·(r + γ·V(s')).
//
// In a matrix game (one state, γ = 0) α is irrelevant: the target r + γV
// is the reward itself.
type StepSizes struct {
	// Eta is the learning rate η (the paper's η).
	Eta float64
	// Beta is the implicit-exploration (IX) bias β (the paper's β̃ of
	// §4.1 and β of Lemma B.2).
	Beta float64
	// Epsilon is the weight ε of the regulariser (ε/2)‖x‖²₂.
	Epsilon float64
	// Delta is the truncation level of the set the update projects into:
	// the floor δ_{t+1} of the next policy's simplex Ω_{t+1}. It must
	// satisfy 0 ≤ Delta·A ≤ 1.
	Delta float64
	// Alpha is the value learning rate α_τ ∈ [0, 1] of line 7 of
	// Algorithm 1.
	Alpha float64
}

// A Schedule gives the step sizes of learner.OMD round by round.
type Schedule interface {
	// At returns the step sizes of the update at global round t ≥ 1, which
	// is the visit-th visit (visit ≥ 1, counting the current one: τ =
	// n_{t+1}(s_t) of Algorithm 1) to the state being updated, when the
	// horizon is horizon (0 if unknown) and the player has actions
	// actions. In a matrix game every round visits the one state, so
	// visit = t.
	At(t, visit, horizon, actions int) StepSizes
}

// Paper is the schedule of the paper's analysis, with horizon T
// (in-context-games-omd App. B, the proof of Lemma B.2, for matrix games,
// and App. C for Algorithm 1):
//
//	η = T^{−5/3},  ε = T^{−1/3},  δ = 1/(A·T²),  α_τ = τ^{−2/3},
//	β = T^{−1/3} (App. B)   or   β_τ = τ^{−1/3} per visit (App. C, Markov = true).
//
// It is kept for fidelity and as a regression test: it does not learn. Each
// update moves the policy by at most c·η·(L/β + ε), with L the loss bound
// (1 under learner.NormalizedLoss), so over T rounds the policies move by at most
// c·(L·T^{−1/3} + T^{−2/3}) → 0 and stay at their initial values.
//
// It needs a positive horizon; for horizon ≤ 0 At returns NaN step sizes
// (and learner.NewOMD rejects the configuration).
type Paper struct {
	// Markov selects the per-visit β_τ = τ^{−1/3} of App. C instead of
	// the constant β = T^{−1/3} of App. B.
	Markov bool
}

// At returns the step sizes for horizon T = horizon at visit τ = visit; t
// is ignored.
func (p Paper) At(t, visit, horizon, actions int) StepSizes {
	s := p.PolicyAt(t, visit, horizon, actions)
	if horizon > 0 {
		b := math.Pow(float64(visit), -1.0/3) // τ^{-1/3}
		s.Alpha = b * b
	}
	return s
}

// PolicyAt is At without the value rate α (left 0).
func (p Paper) PolicyAt(t, visit, horizon, actions int) StepSizes {
	if horizon <= 0 {
		nan := math.NaN()
		return StepSizes{Eta: nan, Beta: nan, Epsilon: nan, Delta: nan, Alpha: nan}
	}
	T := float64(horizon)
	e := math.Pow(T, -1.0/3) // T^{-1/3}
	e2 := e * e
	s := StepSizes{
		Eta:     e2 * e2 * e, // T^{-5/3}
		Beta:    e,
		Epsilon: e,
		Delta:   1 / (float64(actions) * T * T),
	}
	if p.Markov {
		s.Beta = math.Pow(float64(visit), -1.0/3) // τ^{-1/3}
	}
	return s
}

// Cai is the default schedule of learner.OMD: the exponents of the
// uncoupled bandit-feedback algorithm of Cai, Luo, Wei and Zheng (2023),
// "Uncoupled and convergent learning in two-player zero-sum Markov games
// with bandit feedback", clocked by the visit count τ of the updated state
// (in a matrix game τ = t):
//
//	η_τ = τ^{−5/8},  β_τ = τ^{−3/8},  ε_τ = τ^{−1/8},  α_τ = τ^{−2/3},  δ = 1/(A·(τ+1)²),
//
// δ being the floor of the set the update projects into, Ω_{τ+1}. It
// ignores t and the horizon.
//
// Cai et al. prove their Õ(t^{−1/8}) last-iterate rate for an entropy
// regulariser with a KL prox; no proof covers the squared-Euclidean variant
// of learner.OMD with this schedule. It converges empirically in matrix games
// (last-iterate gap ≈ 0.096, 0.066, 0.049 at T = 10³, 10⁴, 10⁵ on
// [[1,0],[0,0.5]]); in Markov games its last iterate improves only slowly
// (see learner.OMD).
type Cai struct {
	// Roots computes τ^{−1/8} as three square roots instead of math.Pow:
	// equal up to a few ulps and about twice as fast. learner.OMD uses it by
	// default in games with more than one state, so that runs recorded
	// with earlier versions (whose Markov learner computed it this way)
	// reproduce bit for bit; a few ulps are enough to change a sampled
	// trajectory after thousands of rounds.
	Roots bool
}

// At returns the step sizes of visit τ = visit ≥ 1.
func (c Cai) At(t, visit, horizon, actions int) StepSizes {
	s := c.PolicyAt(t, visit, horizon, actions)
	r := math.Cbrt(float64(visit))
	s.Alpha = 1 / (r * r)
	return s
}

// PolicyAt is At without the value rate α (left 0).
func (c Cai) PolicyAt(t, visit, horizon, actions int) StepSizes {
	tau := float64(visit)
	var e, b, eta float64
	if c.Roots {
		e = 1 / math.Sqrt(math.Sqrt(math.Sqrt(tau))) // τ^{-1/8}
		b = e * e * e                                // τ^{-3/8}
		eta = b * e * e
	} else {
		e = math.Pow(tau, -1.0/8)
		e2 := e * e
		b = e2 * e
		eta = b * e2
	}
	n := tau + 1
	return StepSizes{Eta: eta, Beta: b, Epsilon: e, Delta: 1 / (float64(actions) * n * n)}
}

// A PolicyScheduler is a [Schedule] that can leave out the value rate α.
// learner.OMD does not read α when the discount γ is 0 (a matrix game), and
// the cube root α costs is a fifth of a matrix-game update, so it calls
// PolicyAt instead of At there. [Cai] and [Paper] implement it.
type PolicyScheduler interface {
	Schedule
	// PolicyAt returns At(t, visit, horizon, actions) with Alpha left 0.
	PolicyAt(t, visit, horizon, actions int) StepSizes
}

// Func adapts a function to the [Schedule] interface, for custom or
// constant schedules. It is called with the arguments of [Schedule.At].
type Func func(t, visit, horizon, actions int) StepSizes

// At returns f(t, visit, horizon, actions).
func (f Func) At(t, visit, horizon, actions int) StepSizes {
	return f(t, visit, horizon, actions)
}
