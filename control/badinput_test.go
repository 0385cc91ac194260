package control

import (
	"errors"
	"math"
	"testing"

	"github.com/icrl-go/icrl"
)

// TestBadInputs replays bad inputs and asserts the sentinel each error
// wraps.
func TestBadInputs(t *testing.T) {
	dims := Dims{D: 2, Hidden: 2, QK: 2}
	data := dataset([][][]float64{{{0, 0}}}, [][][]float64{{{math.NaN(), 0}}})
	second := func(_ any, err error) error { return err }
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"zero β", second(NewObjective(Block[float64]{Dims: dims}, 1, data)), icrl.ErrInvalid},
		{"zero layers", second(NewObjective(Block[float64]{Dims: dims, Beta: 1}, 0, data)), icrl.ErrInvalid},
		{"NaN label", second(NewObjective(Block[float64]{Dims: dims, Beta: 1}, 1, data)), icrl.ErrNotFinite},
		{"zero dims", (Dims{}).Validate(), icrl.ErrInvalid},
		{"Section6 with 2^40 training tokens", second(NewSection6[float64](Section6Config{N: 1 << 20, Ktrain: 1 << 20})), icrl.ErrInvalid},
		{"Section6 with D = 2^40", second(NewSection6[float64](Section6Config{D: 1 << 40, Hidden: 1 << 40})), icrl.ErrInvalid},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want an error wrapping %v", c.name, c.err, c.want)
		}
	}
}
