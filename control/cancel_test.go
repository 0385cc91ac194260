package control

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/icrl-go/icrl"
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
// TestTrainAdamCancel: a cancel during the restarts stops them: TrainAdam
// returns ctx's error with the restarts' curves so far, each short of its
// budget. The budget (10⁵ steps a restart) takes seconds, so a restart
// that does not check the context runs to its end and the test fails
// within seconds rather than at the test timeout.
func TestTrainAdamCancel(t *testing.T) {
	_, o, _, _ := section6Small(t)
	for _, restarts := range []int{1, 2} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		res, err := TrainAdam(ctx, o, AdamConfig{Restarts: restarts, Steps: 100_000, Seed: 1, Workers: restarts})
		if !errors.Is(err, context.Canceled) || len(res.Restarts) != restarts {
			t.Fatalf("%d restarts: err = %v, %d restarts, want context.Canceled", restarts, err, len(res.Restarts))
		}
		for r, rr := range res.Restarts {
			if len(rr.Curve) > 100_000 {
				t.Errorf("%d restarts: restart %d ran all its %d evaluations after the cancel", restarts, r, len(rr.Curve))
			}
		}
	}
}

// TestRefineCancel: the draws of a round check the context, so a
// cancelled Refine returns ctx's error with no round done. The round (1024
// draws a layer) takes seconds, so without the check the test fails within
// seconds.
func TestRefineCancel(t *testing.T) {
	s, _, n, sol := section6Small(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	steps, err := Refine(ctx, s.Problem, n, sol, RefineConfig{Rounds: 1, PerLayer: 1024, Seed: 1})
	if !errors.Is(err, context.Canceled) || len(steps) != 1 {
		t.Errorf("Refine: err = %v with %d steps, want context.Canceled before the first round", err, len(steps))
	}
}

// TestHugeBudgets: sizes that would not fit in memory are refused before
// anything is allocated (TrainAdam allocated the loss curves up front and
// died of out-of-memory; Refine drew actions until killed).
func TestHugeBudgets(t *testing.T) {
	s, o, n, sol := section6Small(t)
	if _, err := TrainAdam(context.Background(), o, AdamConfig{Restarts: 1, Steps: 1 << 40}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("TrainAdam Steps 2^40: %v, want ErrInvalid", err)
	}
	// The bound is on Restarts·(Steps+1) loss values: Steps = MaxEntries
	// is one past it, MaxEntries−1 at it (run under a cancelled context,
	// so it stops at once).
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := TrainAdam(done, o, AdamConfig{Restarts: 1, Steps: MaxEntries}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("TrainAdam Steps = MaxEntries: %v, want ErrInvalid", err)
	}
	if _, err := TrainAdam(done, o, AdamConfig{Restarts: 2, Steps: MaxEntries/2 - 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("TrainAdam 2 × MaxEntries/2 loss values: %v, want the cancelled context's error", err)
	}
	if _, err := Refine(context.Background(), s.Problem, n, sol, RefineConfig{Rounds: 1, PerLayer: 1 << 40}); !errors.Is(err, icrl.ErrInvalid) {
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
	if _, err := Refine(context.Background(), s.Problem, n, &other, RefineConfig{Rounds: 1, PerLayer: 2}); !errors.Is(err, icrl.ErrInvalid) || errors.Is(err, ErrNotMonotone) {
		t.Errorf("Refine of another solution: %v, want ErrInvalid", err)
	}
	fresh := NewNested(s.Problem, NestedOptions{})
	if _, err := Refine(context.Background(), s.Problem, fresh, sol, RefineConfig{Rounds: 1, PerLayer: 2}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("Refine with a solver that never solved: %v, want ErrInvalid", err)
	}
	if _, err := Refine(context.Background(), s.Problem, n, sol, RefineConfig{Rounds: 1, PerLayer: 2}); err != nil {
		t.Errorf("Refine of the solver's own solution: %v", err)
	}
}
