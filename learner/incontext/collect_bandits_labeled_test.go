package incontext_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/learner/bandit"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/nonstationary"
)

// countLabeler labels round t with weight t on arm 0 and 1 on the others
// (normalised) and records what it observed.
type countLabeler struct {
	seen []int
	bad  bool
}

func (c *countLabeler) Label(dst []float64, t int, actions [][]float64, _ *rand.Rand) ([]float64, error) {
	dst = dst[:0]
	K := len(actions)
	s := float64(t + K - 1)
	for k := range K {
		v := 1 / s
		if k == 0 {
			v = float64(t) / s
		}
		dst = append(dst, v)
	}
	if c.bad {
		dst[0] += 1
	}
	return dst, nil
}

func (c *countLabeler) Observe(t int, _ [][]float64, arm int, _ float64) error {
	c.seen = append(c.seen, arm)
	return nil
}

// TestCollectBanditsLabeled checks that every round carries the labeler's
// distribution after the same history, that the behaviour policy plays,
// and the errors.
func TestCollectBanditsLabeled(t *testing.T) {
	env := func(rng *rand.Rand) (*nonstationary.Linear, error) {
		w, acts := nonstationary.SampleLBMInstance(3, 4, rng)
		set, err := nonstationary.FixedActions(acts)
		if err != nil {
			return nil, err
		}
		return nonstationary.NewLinear(w, set, 0.1, 6)
	}
	uniformArm := func() (bandit.Learner, error) { return bandit.NewUCB1(bandit.UCB1Config{Arms: 4, Horizon: 6}) }
	var labelers []*countLabeler
	trajs, err := incontext.CollectBanditsLabeled(context.Background(), env, uniformArm, func() (incontext.BanditLabeler, error) {
		l := &countLabeler{}
		labelers = append(labelers, l)
		return l, nil
	}, 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	tr := trajs[0]
	for i, lab := range tr.Labels {
		T := float64(i + 1)
		if want := T / (T + 3); lab[0] != want {
			t.Errorf("round %d: label %v, want %v on arm 0", i+1, lab, want)
		}
		if tr.Rounds[i].Action != labelers[0].seen[i] {
			t.Errorf("round %d: the labeler observed arm %d, the trajectory has %d", i+1, labelers[0].seen[i], tr.Rounds[i].Action)
		}
	}
	// UCB1 plays every arm once first: the behaviour policy, not the labels.
	for i := range 4 {
		if tr.Rounds[i].Action != i {
			t.Errorf("round %d: arm %d, want UCB1's %d", i+1, tr.Rounds[i].Action, i)
		}
	}
	_, err = incontext.CollectBanditsLabeled(context.Background(), env, uniformArm, func() (incontext.BanditLabeler, error) { return &countLabeler{bad: true}, nil }, 1, 7)
	if !errors.Is(err, incontext.ErrInput) || !strings.Contains(err.Error(), "expert label") {
		t.Errorf("a label that is not a distribution: %v", err)
	}
	if _, err := incontext.CollectBanditsLabeled[*nonstationary.Linear](context.Background(), env, uniformArm, nil, 1, 7); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("nil labeler: %v", err)
	}
	if _, err := incontext.CollectBanditsLabeled(context.Background(), env, nil, func() (incontext.BanditLabeler, error) { return &countLabeler{}, nil }, 1, 7); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("nil behaviour: %v", err)
	}
}
