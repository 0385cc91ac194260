package omdnet

import (
	"fmt"
	"math"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/schedule"
	"github.com/icrl-go/icrl/transformer"
)

// DefaultAccuracy is the accuracy ε of [Config] when Accuracy is 0.
const DefaultAccuracy = 1e-3

// MaxActions bounds Config.OMD.Actions: the projection's width grows as
// 2^(A−1) (see the package documentation).
const MaxActions = 64

// MaxStates bounds Config.OMD.States of a Markov game: the width grows
// as S·A.
const MaxStates = 64

// MaxHorizon bounds Config.OMD.Horizon: the retrieval scores reach T³,
// which float64 holds with room to spare up to this horizon.
const MaxHorizon = 4096

// Config configures [New] and [Config.Sizes].
type Config struct {
	// OMD is the learner the transformer runs: learner.OMD under its
	// default conventions, in a matrix game (States 0 or 1, Discount 0) or
	// a Markov game (States 2 to MaxStates, Discount in [0, 1),
	// LossScale learner.NormalizedLoss). Actions (1 to MaxActions) and
	// Horizon T (1 to MaxHorizon) are required; Convention must be
	// learner.LossDescent. Schedule, Eta, ProxFactor, Init and
	// InitByState are honoured as learner.NewOMD honours them (in a matrix
	// game the schedule must give a truncation level δ that does not
	// increase from round to round, as schedule.Cai and schedule.Paper
	// do); Role and WarmVisits make no difference here.
	OMD learner.OMDConfig
	// Accuracy is ε, the accuracy of every ReLU approximation of the
	// network (in-context-games-omd Def. A.1): of the importance weight
	// 1/(x + β) relative to its largest value, of the squares that form
	// the product ℓ·(1/(x + β)), and of the read-out's logarithm (see the
	// package documentation). 0 means DefaultAccuracy; it must lie in
	// (0, 0.25].
	Accuracy float64
	// MaxParams is the largest number of parameters New builds, checked
	// before anything is allocated; 0 means transformer.DefaultMaxParams.
	MaxParams int64
}

// Sizes are the dimensions of the constructed transformer, to set beside
// the bounds of in-context-games-omd Theorem 4.1 (d = O(A), L = L_D·T,
// M = max{M_D, O(c(A)·log(1/ε)/ε²)} heads).
type Sizes struct {
	// Width is the model width d.
	Width int
	// FeedForward is the hidden width d' of every MLP.
	FeedForward int
	// Layers is the number of blocks L (attention and MLP each).
	Layers int
	// RoundLayers is the largest number of blocks of one OMD update.
	RoundLayers int
	// ReadoutLayers is the number of blocks of the read-out's logarithm.
	ReadoutLayers int
	// Heads is the number of attention heads of every block.
	Heads int
	// Params is the number of parameters.
	Params int64
}

// Encoder returns the encoder the model reads: the decentralized feature
// layout of the learner's game (its states and actions).
func (c Config) Encoder() incontext.GameEncoder {
	return incontext.GameEncoder{States: max(c.OMD.States, 1), Actions: c.OMD.Actions, Features: true}
}

// Sizes returns the dimensions New would build, without building it. It
// returns New's errors for an invalid configuration.
func (c Config) Sizes() (Sizes, error) {
	n, emb, err := c.build()
	if err != nil {
		return Sizes{}, err
	}
	T := c.OMD.Horizon
	ff, blocks := n.bestWidth(emb.width, emb.outputs, emb.maxLen)
	perRound := make([]int, T+1)
	for i, k := range n.layers(ff) {
		perRound[n.stages[i].round] += k
	}
	return Sizes{
		Width: len(n.coords), FeedForward: ff, Layers: blocks,
		RoundLayers: slices.Max(perRound[1:]), ReadoutLayers: perRound[0], Heads: 1,
		Params: params(len(n.coords), ff, blocks, emb.width, emb.outputs, emb.maxLen),
	}, nil
}

// New returns the transformer of in-context-games-omd Theorem 4.1 (4.3 in
// a Markov game) for the configured OMD learner: a float64
// [transformer.Model] with ReLU attention, no normalisation and learned
// positions, whose weights are set by hand so that where it predicts round
// t (the position after the outcomes of rounds 1 … t−1, in a Markov game
// the state s_t's) the softmax of its logits is the policy learner.OMD
// plays at round t after those rounds, up to the accuracy ε, for every
// t ≤ T+1. It reads the encoder of [Config.Encoder] and holds T+1
// positions (2T+2 in a Markov game).
//
// It returns an error wrapping [icrl.ErrInvalid] that names the bad field
// for a configuration outside the documented domain, and one wrapping
// [icrl.ErrTooLarge] for a model past MaxParams. Building costs
// O(L·(d² + d·d') + T·d) time and twice that memory (values and
// gradients of the parameters).
func New(c Config) (*transformer.Model[float64], error) {
	n, emb, err := c.build()
	if err != nil {
		return nil, err
	}
	return n.write(emb, c.MaxParams)
}

// badConfig returns an error wrapping icrl.ErrInvalid.
func badConfig(format string, a ...any) error {
	return fmt.Errorf("%w: omdnet: "+format, append([]any{icrl.ErrInvalid}, a...)...)
}

// checkStep validates the step sizes of round k.
func checkStep(s schedule.StepSizes, A, k int) error {
	for _, v := range [...]struct {
		name string
		v    float64
	}{{"η", s.Eta}, {"β", s.Beta}, {"ε", s.Epsilon}, {"δ", s.Delta}} {
		if !(v.v >= 0) || math.IsInf(v.v, 0) {
			return badConfig("the schedule gives %s = %v at round %d: must be finite and not negative", v.name, v.v, k)
		}
	}
	if s.Delta*float64(A) > 1+1e-12 {
		return badConfig("the schedule gives δ = %v at round %d with %d actions: the truncated simplex is empty", s.Delta, k, A)
	}
	return nil
}

// validate checks the configuration and returns the schedule (the
// default where nil), the initial policy of every state and the accuracy.
func (c Config) validate() (schedule.Schedule, [][]float64, float64, error) {
	o := c.OMD
	bad := func(format string, a ...any) (schedule.Schedule, [][]float64, float64, error) {
		return nil, nil, 0, badConfig(format, a...)
	}
	A, T := o.Actions, o.Horizon
	switch {
	case A < 1 || A > MaxActions:
		return bad("OMD.Actions = %d is outside [1, %d]", A, MaxActions)
	case T < 1 || T > MaxHorizon:
		return bad("OMD.Horizon = %d is outside [1, %d]", T, MaxHorizon)
	case o.States > MaxStates:
		return bad("OMD.States = %d is more than MaxStates = %d", o.States, MaxStates)
	case o.Convention != learner.LossDescent:
		return bad("OMD.Convention = %v: the construction runs learner.LossDescent", o.Convention)
	case o.States <= 1 && o.Discount != 0:
		return bad("OMD.Discount = %v in a matrix game: set States for a Markov game", o.Discount)
	case o.States > 1 && o.LossScale != learner.NormalizedLoss:
		return bad("OMD.LossScale = %v: the Markov construction runs learner.NormalizedLoss", o.LossScale)
	}
	eps := c.Accuracy
	if eps == 0 {
		eps = DefaultAccuracy
	}
	if !(eps > 0 && eps <= 0.25) {
		return bad("Accuracy = %v is outside (0, 0.25]", c.Accuracy)
	}
	if c.MaxParams < 0 {
		return bad("MaxParams = %d is negative", c.MaxParams)
	}
	// learner.NewOMD checks the rest of its fields (States, Discount, Eta,
	// ProxFactor, Init, InitByState, the first step sizes) with the
	// messages a user of OMD knows.
	ref, err := learner.NewOMD(o)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("omdnet: %w", err)
	}
	S := max(o.States, 1)
	init := make([][]float64, S)
	for s := range S {
		init[s] = append([]float64(nil), ref.Policy(s)...)
	}
	sched := o.Schedule
	if sched == nil || nilness.Is(sched) {
		sched = schedule.Cai{Roots: S > 1}
	}
	return sched, init, eps, nil
}

// matrixSteps returns the step sizes of every round of a matrix game.
func (c Config) matrixSteps(sched schedule.Schedule, init []float64) ([]schedule.StepSizes, error) {
	A, T := c.OMD.Actions, c.OMD.Horizon
	steps := make([]schedule.StepSizes, T)
	lo := slicesMin(init)
	for k := 1; k <= T; k++ {
		s := sched.At(k, k, T, A)
		if c.OMD.Eta > 0 {
			s.Eta = c.OMD.Eta
		}
		if err := checkStep(s, A, k); err != nil {
			return nil, err
		}
		if k > 1 && s.Delta > steps[k-2].Delta {
			return nil, badConfig("the schedule's δ increases from %v at round %d to %v at round %d: rounds not yet observed would be projected", steps[k-2].Delta, k-1, s.Delta, k)
		}
		if !(lo+s.Beta > 0) {
			return nil, badConfig("the schedule gives β = 0 at round %d while the policy may reach 0: the importance weight 1/(x + β) is unbounded", k)
		}
		steps[k-1] = s
		lo = s.Delta
	}
	return steps, nil
}

// slicesMin returns the smallest entry of x.
func slicesMin(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = min(m, v)
	}
	return m
}
