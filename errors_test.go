package icrl_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/markov"
)

// TestShared checks that a nil random source is also a nil argument and
// that distinct sentinels do not match each other.
func TestShared(t *testing.T) {
	if !errors.Is(icrl.ErrNilRand, icrl.ErrNil) {
		t.Error("ErrNilRand does not match ErrNil")
	}
	all := []error{icrl.ErrInvalid, icrl.ErrNotFinite, icrl.ErrNil, icrl.ErrShape, icrl.ErrTooLarge, icrl.ErrEmpty, icrl.ErrOutOfRange}
	for i, a := range all {
		for j, b := range all {
			if i != j && errors.Is(a, b) {
				t.Errorf("%v matches %v", a, b)
			}
		}
	}
}

// An invalid argument found by package learner and one found by package
// markov both match icrl.ErrInvalid; a nil random source is an ErrNilRand
// and so an ErrNil.
func Example() {
	_, err1 := learner.NewOMD(learner.OMDConfig{Actions: 2, Discount: 1})
	_, err2 := markov.RandomDiscounted(2, 2, 2, 1.5, rand.New(rand.NewPCG(1, 2)))
	_, err3 := markov.RandomDiscounted(2, 2, 2, 0.9, nil)
	fmt.Println(errors.Is(err1, icrl.ErrInvalid), errors.Is(err2, icrl.ErrInvalid), errors.Is(err3, icrl.ErrNil))
	fmt.Println(err1)
	// Output:
	// true true true
	// icrl: invalid argument: OMD Discount = 1 is outside [0, 1)
}
