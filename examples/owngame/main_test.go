package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPenaltyOdds checks the game's goal probabilities and transitions by
// Monte Carlo against the rules of its doc comment.
func TestPenaltyOdds(t *testing.T) {
	g := &Penalty{Tire: 0.5}
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 200000
	for _, c := range []struct {
		s, shot, dive int
		goal          float64 // 1 − save probability
	}{{0, 0, 0, 0.3}, {0, 0, 1, 0.9}, {1, 1, 1, 0.6}, {1, 1, 0, 0.95}} {
		goals, tired := 0.0, 0
		for range n {
			r, next := g.Step(c.s, c.shot, c.dive, rng)
			goals += r
			if r == 1 && next != 0 {
				t.Fatalf("state %d: a goal left the keeper in state %d", c.s, next)
			}
			if next == 1 {
				tired++
			}
		}
		if p := goals / n; math.Abs(p-c.goal) > 0.005 {
			t.Errorf("state %d, shot %d, dive %d: goal rate %.4f, want %.2f", c.s, c.shot, c.dive, p, c.goal)
		}
		wantTired := (1 - c.goal) * g.Tire
		if c.s == 1 {
			wantTired = 1 - c.goal // a tired keeper stays tired after a save
		}
		if p := float64(tired) / n; math.Abs(p-wantTired) > 0.005 {
			t.Errorf("state %d: tired after the kick %.4f, want %.3f", c.s, p, wantTired)
		}
	}
}

// TestDemo runs the program at a tiny scale.
func TestDemo(t *testing.T) {
	var b bytes.Buffer
	demo(&b, 20, 8, 5, 1)
	out := b.String()
	for _, want := range []string{"OMD          against OMD", "pretrained on 8 trajectories: 5 steps", "transformer  against OMD"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q does not contain %q", out, want)
		}
	}
}
