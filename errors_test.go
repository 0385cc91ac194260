package icrl_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// TestShared checks that the packages re-export the shared sentinels (the
// same values) and that a nil random source is also a nil argument.
func TestShared(t *testing.T) {
	for name, pair := range map[string][2]error{
		"game.ErrInvalid":     {game.ErrInvalid, icrl.ErrInvalid},
		"markov.ErrInvalid":   {markov.ErrInvalid, icrl.ErrInvalid},
		"learner.ErrNil":      {learner.ErrNil, icrl.ErrNil},
		"markov.ErrNilRand":   {markov.ErrNilRand, icrl.ErrNilRand},
		"tensor.ErrShape":     {tensor.ErrShape, icrl.ErrShape},
		"game.ErrNotFinite":   {game.ErrNotFinite, icrl.ErrNotFinite},
		"markov.ErrTooLarge":  {markov.ErrTooLarge, icrl.ErrTooLarge},
		"markov.ErrEmpty":     {markov.ErrEmpty, icrl.ErrEmpty},
		"icrl.ErrNilRand/Nil": {icrl.ErrNilRand, icrl.ErrNil},
	} {
		if !errors.Is(pair[0], pair[1]) {
			t.Errorf("%s does not match %v", name, pair[1])
		}
	}
	if errors.Is(icrl.ErrNil, icrl.ErrNilRand) || errors.Is(icrl.ErrInvalid, icrl.ErrShape) {
		t.Error("distinct sentinels match each other")
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
