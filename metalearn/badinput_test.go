package metalearn

import (
	"errors"
	"testing"
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
		{"Q-ascent of a nil game", second(QAscent(nil, nil, QAscentConfig{Alpha: 0.1, T: 1})), ErrNil},
		{"OOMD of a nil game", second(GeneralSumOOMD(nil, nil, OOMDConfig{})), ErrNil},
		{"schedule of zero steps", second(NewSchedule(0, 10)), ErrInvalid},
		{"MAML step size", CheckMAMLStepSizes(2, 0.9, 2, 10, -1, 0.1), ErrInvalid},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want an error wrapping %v", c.name, c.err, c.want)
		}
	}
}
