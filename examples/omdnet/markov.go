package main

import (
	"context"
	"math/rand/v2"

	"github.com/icrl-go/icrl/examples/internal/sweep"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext/omdnet"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/transformer"
)

// markovPlay is one Markov game's self-play with its common random
// numbers: u[t] holds the row's, the column's and the transition's uniform
// of round t+1.
type markovPlay struct {
	g      *markov.Discounted
	start  int
	u      [][3]float64
	states []int // s_1 … s_T
	hist   [2][]learner.Step
	model  [2][][]float64 // the model's policy at round t+1 in s_{t+1}
	last   [2][][]float64 // OMD self-play's policies of round T in every state
	peek   [2][][]float64 // the model's policies of round T in every state
}

// markovSelfPlay plays OMD against itself on Markov game k of the seed
// (two states, γ = 0.9, exact rewards).
func markovSelfPlay(oc omdnet.Config, seed uint64, k int) (*markovPlay, error) {
	rng := rand.New(rand.NewPCG(seed, 1<<32+uint64(k)))
	A, T := oc.OMD.Actions, oc.OMD.Horizon
	g, err := markov.RandomDiscounted(oc.OMD.States, A, A, oc.OMD.Discount, rng)
	if err != nil {
		return nil, err
	}
	p := &markovPlay{g: g, start: g.Start(rng), u: make([][3]float64, T)}
	for t := range p.u {
		p.u[t] = [3]float64{rng.Float64(), rng.Float64(), rng.Float64()}
	}
	if err := p.play(oc, 0, nil); err != nil {
		return nil, err
	}
	for i := range 2 {
		ref, err := learner.NewOMD(oc.OMD)
		if err != nil {
			return nil, err
		}
		for s := range g.States() {
			x, err := ref.Distribution(nil, p.hist[i][:T-1], s)
			if err != nil {
				return nil, err
			}
			p.last[i] = append(p.last[i], x)
		}
	}
	return p, nil
}

// play keeps the rounds before round from (0-based) and plays the rest
// with OMD's policies, except round from itself when first is set (the
// model's policies there).
func (p *markovPlay) play(oc omdnet.Config, from int, first *[2][]float64) error {
	s := p.start
	if from > 0 {
		s = p.states[from]
	}
	var ls [2]*learner.OMD
	for i := range ls {
		l, err := learner.NewOMD(oc.OMD)
		if err != nil {
			return err
		}
		for t, st := range p.hist[i][:from] {
			if err := l.Observe(st.State, st.Action, st.Reward, p.states[t+1]); err != nil {
				return err
			}
		}
		ls[i] = l
		p.hist[i] = p.hist[i][:from]
	}
	p.states = p.states[:from]
	for t := from; t < len(p.u); t++ {
		var acts [2]int
		for i, l := range ls {
			pol := l.Policy(s)
			if t == from && first != nil {
				pol = first[i]
			}
			acts[i] = inverse(pol, p.u[t][i])
		}
		r := p.g.Reward(s, acts[0], acts[1])
		next := inverse(p.g.Transition(s, acts[0], acts[1]), p.u[t][2])
		for i, l := range ls {
			ri := r
			if i == 1 {
				ri = 1 - r
			}
			if err := l.Observe(s, acts[i], ri, next); err != nil {
				return err
			}
			p.hist[i] = append(p.hist[i], learner.Step{State: s, Action: acts[i], Reward: ri})
		}
		p.states = append(p.states, s)
		s = next
	}
	return nil
}

// markovForce sets the model's policies along every play's trajectory
// and in every state at round T, in one batched forward pass: per player,
// one sequence of the first T − 1 rounds followed by each state (the one
// followed by s_T also gives the policies of rounds 1 … T).
func markovForce(model *transformer.Model[float64], oc omdnet.Config, plays []*markovPlay) error {
	var hists [][]learner.Step
	var next []int
	for _, p := range plays {
		S, T := p.g.States(), len(p.u)
		for i := range 2 {
			for s := range S {
				hists, next = append(hists, p.hist[i][:T-1]), append(next, s)
			}
		}
	}
	pols, err := forward(model, oc.Encoder(), hists, next)
	if err != nil {
		return err
	}
	k := 0
	for _, p := range plays {
		S, T := p.g.States(), len(p.u)
		for i := range 2 {
			p.peek[i] = make([][]float64, S)
			for s := range S {
				p.peek[i][s] = pols[k][T-1]
				if s == p.states[T-1] {
					p.model[i] = pols[k]
				}
				k++
			}
		}
	}
	return nil
}

// markovResolve turns the plays' OMD trajectories into the constructed
// players' own self-play with the same uniforms, as resolve does for
// matrix games, and returns the number of plays that left OMD's.
func markovResolve(ctx context.Context, model *transformer.Model[float64], oc omdnet.Config, plays []*markovPlay) (int, error) {
	left := map[*markovPlay]bool{}
	open := plays
	for len(open) > 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := markovForce(model, oc, open); err != nil {
			return 0, err
		}
		var next []*markovPlay
		for _, p := range open {
			first := -1
			for t := range p.u {
				if inverse(p.model[0][t], p.u[t][0]) != p.hist[0][t].Action || inverse(p.model[1][t], p.u[t][1]) != p.hist[1][t].Action {
					first = t
					break
				}
			}
			if first >= 0 {
				left[p] = true
				pols := [2][]float64{p.model[0][first], p.model[1][first]}
				if err := p.play(oc, first, &pols); err != nil {
					return 0, err
				}
				next = append(next, p)
			}
		}
		open = next
	}
	return len(left), nil
}

// runMarkov is one (A, ε, schedule) job on two-state games.
func runMarkov(ctx context.Context, cfg config, oc omdnet.Config, r result) (result, error) {
	stage := sweep.NewStages(ctx)
	defer stage.Done()
	stage.Next("build the model")
	model, err := omdnet.New(oc)
	if err != nil {
		return result{}, err
	}
	T := oc.OMD.Horizon
	const batch = 2
	var d tracker
	for g0 := 0; g0 < cfg.markovGames; g0 += batch {
		stage.Next("OMD self-play")
		var plays []*markovPlay
		for k := g0; k < min(g0+batch, cfg.markovGames); k++ {
			p, err := markovSelfPlay(oc, cfg.seed, k)
			if err != nil {
				return result{}, err
			}
			plays = append(plays, p)
		}
		stage.Next("the model's play")
		diverged, err := markovResolve(ctx, model, oc, plays)
		if err != nil {
			return result{}, err
		}
		r.Diverged += diverged
		stage.Next("distances and gaps")
		for _, p := range plays {
			ref, err := learner.NewOMD(oc.OMD)
			if err != nil {
				return result{}, err
			}
			for i := range 2 {
				for t := range T {
					want, err := ref.Distribution(nil, p.hist[i][:t], p.states[t])
					if err != nil {
						return result{}, err
					}
					d.add(p.model[i][t], want)
				}
			}
			_, gm, err := p.g.Gaps(p.peek[0], p.peek[1])
			if err != nil {
				return result{}, err
			}
			_, go_, err := p.g.Gaps(p.last[0], p.last[1])
			if err != nil {
				return result{}, err
			}
			r.GapModel, r.GapOMD = append(r.GapModel, gm), append(r.GapOMD, go_)
		}
	}
	r.Worst, r.MeanTV = d.worst, d.tvSum/float64(d.n)
	return r, nil
}
