package metalearn

import (
	"errors"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
)

// TestBadInputs replays bad inputs and asserts the sentinel each error
// wraps.
func TestBadInputs(t *testing.T) {
	second := func(_ any, err error) error { return err }
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"Q-ascent of a nil game", second(QAscent(nil, nil, QAscentConfig{Alpha: 0.1, T: 1})), icrl.ErrNil},
		{"OOMD of a nil game", second(GeneralSumOOMD(nil, nil, OOMDConfig{})), icrl.ErrNil},
		{"schedule of zero steps", second(NewSchedule(0, 10)), icrl.ErrInvalid},
		{"schedule of more than 2^24 stages", second(NewSchedule(1<<22, 1<<60)), icrl.ErrInvalid},
		{"ZeroSumAverage{}.Next", second(new(ZeroSumAverage).Next(0)), icrl.ErrInvalid},
		{"MAML step size", CheckMAMLStepSizes(2, 0.9, 2, 10, -1, 0.1), icrl.ErrInvalid},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want an error wrapping %v", c.name, c.err, c.want)
		}
	}
	// The message of SoftmaxPG ran its name into the next word
	// ("SoftmaxPGlogits for 1 players").
	team := potRandomTeam(t, []int{2, 2}, 2, 0.9, 1)
	_, err := SoftmaxPG(team, Logits{make([]float64, 4)}, SoftmaxPGConfig{Alpha: 0.1, T: 1})
	if !errors.Is(err, icrl.ErrInvalid) || !strings.Contains(err.Error(), "SoftmaxPG: logits for 1 players") {
		t.Errorf("SoftmaxPG with one player's logits: %v", err)
	}
}
