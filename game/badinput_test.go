package game

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBadInputs replays inputs that crashed or were accepted silently and
// asserts what each gives now.
func TestBadInputs(t *testing.T) {
	// Solve of a zero ZeroSum panicked with an index out of range.
	if _, err := Solve(&ZeroSum{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("Solve(&ZeroSum{}): %v", err)
	}
	if _, err := Solve(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("Solve(nil): %v", err)
	}
	// RandomUniform with a nil source dereferenced it.
	if _, err := RandomUniform(3, 3, nil); !errors.Is(err, ErrNilRand) {
		t.Errorf("RandomUniform(3, 3, nil): %v", err)
	}
	if _, err := RandomGaussian(3, 3, 0.5, 0.1, nil); !errors.Is(err, ErrNilRand) {
		t.Errorf("RandomGaussian(…, nil): %v", err)
	}
	// SampleCategorical took negative weights (they shifted the draw).
	rng := rand.New(rand.NewPCG(1, 1))
	for _, p := range [][]float64{{2, -1}, {math.NaN(), 1}, {0, 0}} {
		func() {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.HasPrefix(msg, "game: cannot sample") {
					t.Errorf("SampleCategorical(%v): recovered %v, want a game: panic", p, r)
				}
			}()
			SampleCategorical(p, rng)
		}()
	}
}
