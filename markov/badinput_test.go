package markov

import (
	"errors"
	"testing"
)

// TestBadInputs replays inputs that were accepted silently and asserts
// the sentinel each gives now.
func TestBadInputs(t *testing.T) {
	// A zero Discounted gave an empty solution and a nil error.
	if _, err := ShapleyValueIteration(&Discounted{}, 1e-8, 100); !errors.Is(err, ErrEmpty) {
		t.Errorf("ShapleyValueIteration(&Discounted{}): %v", err)
	}
	if _, err := ShapleyValueIteration(nil, 1e-8, 100); !errors.Is(err, ErrEmpty) {
		t.Errorf("ShapleyValueIteration(nil): %v", err)
	}
}
