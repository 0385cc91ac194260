package bandit

import (
	"errors"
	"math"
	"testing"

	"github.com/icrl-go/icrl"
)

// TestBadConfigSentinels replays invalid configurations and observations
// and checks the sentinel each error wraps.
func TestBadConfigSentinels(t *testing.T) {
	second := func(_ any, err error) error { return err }
	ucb, err := NewUCB1(UCB1Config{Arms: 2, Horizon: 10})
	if err != nil {
		t.Fatal(err)
	}
	lin, err := NewLinUCB(LinUCBConfig{Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	two := [][]float64{{1, 0}, {0, 1}}
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"NewUCB1(Arms 0)", second(NewUCB1(UCB1Config{Horizon: 10})), icrl.ErrInvalid},
		{"NewLinUCB(Dim 0)", second(NewLinUCB(LinUCBConfig{})), icrl.ErrInvalid},
		{"NewOFUL(Delta 2)", second(NewOFUL(OFULConfig{Dim: 2, Horizon: 10, Delta: 2})), icrl.ErrInvalid},
		{"UCB1.Observe(3 arms)", ucb.Observe(1, [][]float64{{1}, {2}, {3}}, 0, 0.5), icrl.ErrShape},
		{"LinUCB.Observe(arm 5)", lin.Observe(1, two, 5, 0.5), icrl.ErrOutOfRange},
		{"LinUCB.Observe(dim 3)", lin.Observe(1, [][]float64{{1, 0, 0}}, 0, 0.5), icrl.ErrShape},
		{"LinUCB.Observe(NaN)", lin.Observe(1, two, 0, math.NaN()), icrl.ErrNotFinite},
		{"NewUCB1(2^40 arms)", second(NewUCB1(UCB1Config{Arms: 1 << 40, Horizon: 10})), icrl.ErrTooLarge},
		{"NewLinUCB(Dim 2^20)", second(NewLinUCB(LinUCBConfig{Dim: 1 << 20})), icrl.ErrTooLarge},
		{"NewOFUL(Dim 2^20)", second(NewOFUL(OFULConfig{Dim: 1 << 20, Horizon: 10})), icrl.ErrTooLarge},
		{"NewLinTS(Dim 2^20)", second(NewLinTS(LinTSConfig{Dim: 1 << 20})), icrl.ErrTooLarge},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v, want one wrapping %v", c.name, c.err, c.want)
		}
	}
}
