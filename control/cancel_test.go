package control

import (
	"context"
	"errors"
	"testing"
	"time"
)

// section6Small returns a small Section 6 instance, its continuous
// objective, a nested solver and its solution on 10 actions.
func section6Small(t *testing.T) (*Section6[float64], *Objective, *Nested[float64], *Solution[float64]) {
	t.Helper()
	cfg := DefaultSection6Config()
	cfg.Ktrain, cfg.Ktest, cfg.MaxActions, cfg.Seed = 6, 4, 10, 7
	s, err := NewSection6[float64](cfg)
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewObjective(s.Problem.Block(), cfg.T, s.Train)
	if err != nil {
		t.Fatal(err)
	}
	n := NewNested(s.Problem, NestedOptions{})
	sol, err := n.Solve(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	return s, o, n, sol
}

// TestTrainAdamCancel: a restart far longer than the test checks the
// context inside its loop, so a cancelled TrainAdam returns ctx's error
// within 200 ms (it used to run every step of its restart and return a
// nil error).
func TestTrainAdamCancel(t *testing.T) {
	_, o, _, _ := section6Small(t)
	for _, restarts := range []int{1, 2} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := TrainAdam(ctx, o, AdamConfig{Restarts: restarts, Steps: 100_000_000, Seed: 1, Workers: restarts})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%d restarts: err = %v, want context.Canceled", restarts, err)
		}
		if d := time.Since(start); d > 250*time.Millisecond && !raceEnabled {
			t.Errorf("%d restarts: returned %v after the start, 200 ms after the cancel at most", restarts, d)
		}
	}
}

// TestRefineCancel: the draws of a round check the context, so a
// cancelled Refine returns ctx's error within 200 ms.
func TestRefineCancel(t *testing.T) {
	s, _, n, sol := section6Small(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := Refine(ctx, s.Problem, n, sol, RefineConfig{Rounds: 1, PerLayer: 1 << 20, Seed: 1})
	if !errors.Is(err, context.Canceled) || (time.Since(start) > 200*time.Millisecond && !raceEnabled) {
		t.Errorf("Refine: err = %v after %v, want context.Canceled within 200 ms", err, time.Since(start))
	}
}

// TestHugeBudgets: sizes that would not fit in memory are refused before
// anything is allocated (TrainAdam allocated the loss curves up front and
// died of out-of-memory; Refine drew actions until killed).
func TestHugeBudgets(t *testing.T) {
	s, o, n, sol := section6Small(t)
	if _, err := TrainAdam(context.Background(), o, AdamConfig{Restarts: 1, Steps: 1 << 40}); !errors.Is(err, ErrInvalid) {
		t.Errorf("TrainAdam Steps 2^40: %v, want ErrInvalid", err)
	}
	if _, err := Refine(context.Background(), s.Problem, n, sol, RefineConfig{Rounds: 1, PerLayer: 1 << 40}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Refine PerLayer 2^40: %v, want ErrInvalid", err)
	}
}

// TestRefineForeignSolution: a solution that is not the nested solver's
// last one is refused with ErrInvalid (it was reported as ErrNotMonotone
// after a round of work).
func TestRefineForeignSolution(t *testing.T) {
	s, _, n, sol := section6Small(t)
	other := *sol
	other.Value += 0.01
	if _, err := Refine(context.Background(), s.Problem, n, &other, RefineConfig{Rounds: 1, PerLayer: 2}); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrNotMonotone) {
		t.Errorf("Refine of another solution: %v, want ErrInvalid", err)
	}
	fresh := NewNested(s.Problem, NestedOptions{})
	if _, err := Refine(context.Background(), s.Problem, fresh, sol, RefineConfig{Rounds: 1, PerLayer: 2}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Refine with a solver that never solved: %v, want ErrInvalid", err)
	}
	if _, err := Refine(context.Background(), s.Problem, n, sol, RefineConfig{Rounds: 1, PerLayer: 2}); err != nil {
		t.Errorf("Refine of the solver's own solution: %v", err)
	}
}
