package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/markov"
)

// TestRelayModel checks the caller's game through markov.Tabulate: a team,
// the rewards of its doc comment, and the value 1/(1−γ) of always playing
// the goal (every round scores).
func TestRelayModel(t *testing.T) {
	r := Relay{Goal: [2][2]int{{0, 1}, {1, 1}}, Move: 0.5, Gamma: 0.8}
	g, err := markov.Tabulate(r)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Cooperative() {
		t.Fatal("a Relay is not a team")
	}
	for _, c := range []struct {
		s, a, b int
		want    float64
	}{{0, 0, 1, 1}, {0, 0, 0, 0.25}, {0, 1, 0, 0}, {1, 1, 1, 1}, {1, 0, 0, 0}, {1, 1, 0, 0.25}} {
		if got := g.Reward(c.s, g.Joint([]int{c.a, c.b}), 1); got != c.want {
			t.Errorf("state %d, (%d, %d): reward %v, want %v", c.s, c.a, c.b, got, c.want)
		}
	}
	goal := markov.Stationary{{1, 0}, {0, 1}} // player 0 plays 0 then 1
	other := markov.Stationary{{0, 1}, {0, 1}}
	v, err := g.Values([]markov.Stationary{goal, other})
	if err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		if math.Abs(v[0][s]-5) > 1e-12 {
			t.Errorf("V(%d) of the goal policies = %v, want 1/(1−γ) = 5", s, v[0][s])
		}
	}
}

// TestDemo runs the program at its defaults (under a second) and checks
// its numbers: meta-learning pays in both measures.
func TestDemo(t *testing.T) {
	var b bytes.Buffer
	demo(&b, 40, 20, 100, 1)
	out := b.String()
	for _, want := range []string{
		"MAML over 40 games",
		"mean over 20 fresh games: 4.165 from the meta-learned logits, 2.777 from uniform play",
		"mean reward over 100 rounds: 0.768 started from the meta-learned policies, 0.408 from uniform play",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
