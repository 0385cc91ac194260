package learner

import "math"

// StepSizes are the hyper-parameters of one update of [OMD] (spec
// in-context-games-omd §2.1):
//
//	ĝ_{t,a}  = ℓ_t·1{a = a_t}/(x_{t,a} + β_t) + ε_t·x_{t,a}
//	x_{t+1}  = Π_{Ω_δ}(x_t − c·η_t·ĝ_t),   Ω_δ = {x ∈ Δ(A) : x_a ≥ δ}.
type StepSizes struct {
	// Eta is the learning rate η_t (the paper's η).
	Eta float64
	// Beta is the implicit-exploration (IX) bias β_t (the paper's β̃ of
	// §4.1 and β of Lemma B.2; spec resolution A5).
	Beta float64
	// Epsilon is the weight ε_t of the regulariser (ε/2)‖x‖²₂.
	Epsilon float64
	// Delta is the truncation level of the set the update at round t
	// projects into: x_{t+1} ∈ Ω_Delta. In the spec's indexing it is
	// δ_{t+1}, the floor of Ω_{t+1} (spec §2.1: "the update into Ω_{t+1}
	// uses δ_{t+1}"; resolution A4). It must satisfy 0 ≤ Delta·A ≤ 1.
	Delta float64
}

// A Schedule gives the step sizes of [OMD] round by round.
type Schedule interface {
	// At returns the step sizes used by the update at round t (1-based:
	// the update that turns x_t into x_{t+1} after the t-th observation)
	// when the horizon is horizon (0 if unknown) and the learner has
	// actions actions. Delta is the floor of the set the update projects
	// into, δ_{t+1} (see StepSizes).
	At(t, horizon, actions int) StepSizes
}

// PaperSchedule is the constant schedule of the proof of Lemma B.2 of
// in-context-games-omd (App. B, also App. C): with horizon T,
//
//	η = T^{−5/3},  ε = β = T^{−1/3},  δ = 1/(A·T²)   for every round t.
//
// It is kept for fidelity and as a regression test: it does not learn (spec
// resolution A3, test T7). Each update moves the policy by at most
// c·η·(1/β + ε), so over T rounds the policy moves by at most
// c·(T^{−1/3} + T^{−1}) → 0 and the last iterate stays at the initial policy.
//
// It needs a positive horizon; for horizon ≤ 0 At returns NaN step sizes
// (and [NewOMD] rejects the configuration).
type PaperSchedule struct{}

// At returns the constant step sizes for horizon T = horizon; t is ignored.
func (PaperSchedule) At(t, horizon, actions int) StepSizes {
	if horizon <= 0 {
		nan := math.NaN()
		return StepSizes{Eta: nan, Beta: nan, Epsilon: nan, Delta: nan}
	}
	T := float64(horizon)
	e := math.Pow(T, -1.0/3) // T^{-1/3}
	e2 := e * e
	return StepSizes{
		Eta:     e2 * e2 * e, // T^{-5/3}
		Beta:    e,
		Epsilon: e,
		Delta:   1 / (float64(actions) * T * T),
	}
}

// CaiSchedule is the default schedule of [OMD], the exponents of the
// uncoupled bandit-feedback matrix-game algorithm of Cai, Luo, Wei and Zheng
// (2023), "Uncoupled and convergent learning in two-player zero-sum Markov
// games with bandit feedback" (spec in-context-games-omd §2.1, resolution
// A3):
//
//	η_t = t^{−5/8},  β_t = t^{−3/8},  ε_t = t^{−1/8},
//
// with the time-varying truncation δ_t = 1/(A·t²) of resolution A4; the
// update at round t projects into Ω_{t+1}, so At(t, ·, A).Delta is
// δ_{t+1} = 1/(A·(t+1)²). It ignores the horizon.
//
// Cai et al. prove their Õ(t^{−1/8}) last-iterate rate for an entropy
// regulariser with a KL prox; no proof covers the squared-Euclidean variant
// of [OMD] with this schedule (spec A3). It converges empirically (spec
// §5.2, T8a: last-iterate gap ≈ 0.096, 0.066, 0.049 at T = 10³, 10⁴, 10⁵ on
// [[1,0],[0,0.5]]).
type CaiSchedule struct{}

// At returns the step sizes of round t ≥ 1.
func (CaiSchedule) At(t, horizon, actions int) StepSizes {
	e := math.Pow(float64(t), -1.0/8) // t^{-1/8}
	e2 := e * e
	b := e2 * e // t^{-3/8}
	s := float64(t + 1)
	return StepSizes{
		Eta:     b * e2, // t^{-5/8}
		Beta:    b,
		Epsilon: e,
		Delta:   1 / (float64(actions) * s * s),
	}
}

// ScheduleFunc adapts a function to the [Schedule] interface, for custom or
// constant schedules. It is called with the same arguments as
// [Schedule.At].
type ScheduleFunc func(t, horizon, actions int) StepSizes

// At returns f(t, horizon, actions).
func (f ScheduleFunc) At(t, horizon, actions int) StepSizes { return f(t, horizon, actions) }
