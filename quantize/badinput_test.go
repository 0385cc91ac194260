package quantize

import (
	"errors"
	"math"
	"testing"

	"github.com/icrl-go/icrl"
)

// TestBadInputs replays bad inputs to the constructors and asserts the
// sentinel each error wraps.
func TestBadInputs(t *testing.T) {
	second := func(_ any, err error) error { return err }
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"grid with NaN bound", second(NewBoxGrid([]float64{math.NaN()}, []float64{1}, []int{2})), icrl.ErrNotFinite},
		{"grid with lo ≥ hi", second(NewBoxGrid([]float64{1}, []float64{0}, []int{2})), icrl.ErrInvalid},
		{"grid with no cells", second(NewBoxGrid([]float64{0}, []float64{1}, []int{0})), icrl.ErrInvalid},
		{"grid of mismatched dims", second(NewBoxGrid([]float64{0, 0}, []float64{1}, []int{2})), icrl.ErrInvalid},
		{"atom index of zero tokens", second(NewAtomIndex(0, 3)), icrl.ErrInvalid},
		{"Reznik of level 0", second(Reznik(nil, []float64{0.5, 0.5}, 0)), icrl.ErrInvalid},
		{"Reznik of a negative weight", second(Reznik(nil, []float64{1.5, -0.5}, 4)), icrl.ErrInvalid},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want an error wrapping %v", c.name, c.err, c.want)
		}
	}
}
