package learner_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/learner/schedule"
)

// TestBadInputs replays inputs that crashed or were accepted silently and
// asserts the sentinel each gives now.
func TestBadInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	g, _, err := game.Rescale(game.MatchingPennies(), -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	omd := func(actions int) *learner.OMD {
		m, err := learner.NewOMD(learner.OMDConfig{Actions: actions})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cfg := play.SelfPlayConfig{Rounds: 10}

	// A typed-nil learner.
	if _, err := play.SelfPlay(context.Background(), g, (*learner.OMD)(nil), omd(2), cfg, rng); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("play.SelfPlay with a typed-nil learner: %v", err)
	}
	if _, err := play.SelfPlay(context.Background(), nil, omd(2), omd(2), cfg, rng); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("play.SelfPlay with a nil game: %v", err)
	}
	if _, err := play.SelfPlay(context.Background(), g, omd(2), omd(2), cfg, nil); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("play.SelfPlay with a nil source: %v", err)
	}
	// A learner of the wrong size said "game: row player's initial policy
	// has length 3".
	_, err = play.SelfPlay(context.Background(), g, omd(3), omd(2), cfg, rng)
	if !errors.Is(err, icrl.ErrShape) || !strings.Contains(err.Error(), "row player's learner *learner.OMD has 3 actions in state 0, the game 2") {
		t.Errorf("play.SelfPlay with a 3-action learner on a 2×2 game: %v", err)
	}
	// OMD took a reward of 5.
	if err := omd(2).Observe(0, 1, 5, 0); !errors.Is(err, icrl.ErrOutOfRange) || !strings.Contains(err.Error(), "reward 5") {
		t.Errorf("OMD.Observe with reward 5: %v", err)
	}
	// A schedule with a negative step size is rejected by NewOMD.
	neg := schedule.Func(func(t, visit, horizon, actions int) schedule.StepSizes { return schedule.StepSizes{Eta: -1} })
	if _, err := learner.NewOMD(learner.OMDConfig{Actions: 2, Schedule: neg}); err == nil || !strings.Contains(err.Error(), "η = -1") {
		t.Errorf("NewOMD with η = −1: %v", err)
	}
}

// TestBadConfigSentinels replays invalid configurations and observations
// and checks the sentinel each error wraps.
func TestBadConfigSentinels(t *testing.T) {
	second := func(_ any, err error) error { return err }
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"NewOMD(Actions 0)", second(learner.NewOMD(learner.OMDConfig{})), icrl.ErrInvalid},
		{"NewOMD(Discount 1)", second(learner.NewOMD(learner.OMDConfig{Actions: 2, States: 2, Discount: 1})), icrl.ErrInvalid},
		{"NewMWU(Eta −1)", second(learner.NewMWU(learner.MWUConfig{Actions: 2, Eta: -1})), icrl.ErrInvalid},
		{"NewExp3IX(Actions 0)", second(learner.NewExp3IX(learner.Exp3IXConfig{})), icrl.ErrInvalid},
		{"NewPerState(nil)", second(learner.NewPerState(2, nil)), icrl.ErrNil},
		{"NewOMD(2^20 × 2^20)", second(learner.NewOMD(learner.OMDConfig{States: 1 << 20, Actions: 1 << 20})), icrl.ErrTooLarge},
		{"NewMWU(2^40 actions)", second(learner.NewMWU(learner.MWUConfig{Actions: 1 << 40})), icrl.ErrTooLarge},
		{"NewExp3IX(2^40 actions)", second(learner.NewExp3IX(learner.Exp3IXConfig{Actions: 1 << 40})), icrl.ErrTooLarge},
		{"NewRegretMatching(2^40 actions)", second(learner.NewRegretMatching(learner.RegretMatchingConfig{Actions: 1 << 40})), icrl.ErrTooLarge},
		{"NewPerState(2^40 states)", second(learner.NewPerState(1<<40, nil)), icrl.ErrTooLarge},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v, want one wrapping %v", c.name, c.err, c.want)
		}
	}
}
