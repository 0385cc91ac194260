package main

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/incontext/omdnet"
	"github.com/icrl-go/icrl/learner/schedule"
)

// TestResolveIsOwnSelfPlay checks the study's measurement: after resolve,
// a matrix game's trajectory is exactly the constructed players' own
// self-play with the same uniforms, played round by round through the
// in-context Learner (KV-cached decoding), on games whose OMD trajectory
// the models leave.
func TestResolveIsOwnSelfPlay(t *testing.T) {
	const A = 2
	T, games := 30, 8
	if raceEnabled {
		T, games = 20, 4
	}
	oc := omdnet.Config{OMD: learner.OMDConfig{Actions: A, Horizon: T, Schedule: schedule.Cai{}}, Accuracy: 0.2}
	model, err := omdnet.New(oc)
	if err != nil {
		t.Fatal(err)
	}
	var plays []*selfPlay
	for k := range games {
		p, err := omdSelfPlay(oc, 1, A, k)
		if err != nil {
			t.Fatal(err)
		}
		plays = append(plays, p)
	}
	diverged, err := resolve(context.Background(), model, oc, plays)
	if err != nil {
		t.Fatal(err)
	}
	if diverged == 0 {
		t.Fatal("no game left OMD's trajectory: the test checks nothing")
	}
	for k, p := range plays {
		var ls [2]*incontext.Learner[float64]
		for i := range ls {
			if ls[i], err = incontext.NewLearner(model, oc.Encoder(), incontext.Config{}); err != nil {
				t.Fatal(err)
			}
		}
		for r := range T {
			var acts [2]int
			for i, l := range ls {
				acts[i] = inverse(l.Policy(0), p.u[r][i])
				if acts[i] != p.hist[i][r].Action {
					t.Fatalf("game %d, round %d, player %d: own self-play plays %d, the resolved trajectory %d", k, r+1, i, acts[i], p.hist[i][r].Action)
				}
			}
			rew := p.g.At(acts[0], acts[1])
			for i, l := range ls {
				ri := rew
				if i == 1 {
					ri = 1 - rew
				}
				if err := l.Observe(0, acts[i], ri, 0); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	t.Logf("%d of %d games left OMD's trajectory", diverged, len(plays))
}

// TestRunTiny runs the study at a tiny scale: one CSV row per (S,
// schedule), the theorem's bound held with the paper's schedule, gaps
// non-negative.
func TestRunTiny(t *testing.T) {
	out := t.TempDir()
	job, err := parseFlags([]string{"-actions", "2", "-accuracies", "0.05", "-games", "2", "-markov-games", "1", "-horizon", "6", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	if err := job(context.Background()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "omdnet.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+4 {
		t.Fatalf("%d rows, want a header and 4 (S = 1, 2 × two schedules)", len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	num := func(r []string, c string) float64 {
		v, err := strconv.ParseFloat(r[col[c]], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, r := range rows[1:] {
		if r[col["schedule"]] == "paper" && num(r, "largest_distance") > num(r, "bound") {
			t.Errorf("%v: the distance exceeds the theorem's bound", r)
		}
		if num(r, "gap_model") < 0 || num(r, "gap_omd") < 0 {
			t.Errorf("%v: negative gap", r)
		}
	}
}

// TestMarkovResolveIsOwnSelfPlay is TestResolveIsOwnSelfPlay in two-state
// Markov games: actions and transitions drawn at the common uniforms.
func TestMarkovResolveIsOwnSelfPlay(t *testing.T) {
	const A = 2
	T, games := 15, 4
	if raceEnabled {
		T, games = 10, 2
	}
	oc := omdnet.Config{OMD: learner.OMDConfig{States: 2, Actions: A, Horizon: T, Discount: 0.9}, Accuracy: 0.2}
	model, err := omdnet.New(oc)
	if err != nil {
		t.Fatal(err)
	}
	var plays []*markovPlay
	for k := range games {
		p, err := markovSelfPlay(oc, 1, k)
		if err != nil {
			t.Fatal(err)
		}
		plays = append(plays, p)
	}
	diverged, err := markovResolve(context.Background(), model, oc, plays)
	if err != nil {
		t.Fatal(err)
	}
	if diverged == 0 {
		t.Fatal("no game left OMD's trajectory: the test checks nothing")
	}
	for k, p := range plays {
		var ls [2]*incontext.Learner[float64]
		for i := range ls {
			if ls[i], err = incontext.NewLearner(model, oc.Encoder(), incontext.Config{}); err != nil {
				t.Fatal(err)
			}
		}
		s := p.start
		for r := range T {
			if s != p.states[r] {
				t.Fatalf("game %d, round %d: own self-play in state %d, the resolved trajectory in %d", k, r+1, s, p.states[r])
			}
			var acts [2]int
			for i, l := range ls {
				acts[i] = inverse(l.Policy(s), p.u[r][i])
				if acts[i] != p.hist[i][r].Action {
					t.Fatalf("game %d, round %d, player %d: own self-play plays %d, the resolved trajectory %d", k, r+1, i, acts[i], p.hist[i][r].Action)
				}
			}
			rew := p.g.Reward(s, acts[0], acts[1])
			next := inverse(p.g.Transition(s, acts[0], acts[1]), p.u[r][2])
			for i, l := range ls {
				ri := rew
				if i == 1 {
					ri = 1 - rew
				}
				if err := l.Observe(s, acts[i], ri, next); err != nil {
					t.Fatal(err)
				}
			}
			s = next
		}
	}
	t.Logf("%d of %d games left OMD's trajectory", diverged, len(plays))
}
