package markov

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/nested"
)

// TestBadInputs replays inputs that were accepted silently and asserts
// the sentinel each gives now.
func TestBadInputs(t *testing.T) {
	// A zero Discounted gave an empty solution and a nil error.
	if _, err := ShapleyValueIteration(&Discounted{}, 1e-8, 100); !errors.Is(err, icrl.ErrEmpty) {
		t.Errorf("ShapleyValueIteration(&Discounted{}): %v", err)
	}
	if _, err := ShapleyValueIteration(nil, 1e-8, 100); !errors.Is(err, icrl.ErrEmpty) {
		t.Errorf("ShapleyValueIteration(nil): %v", err)
	}
}

// TestBadInputSentinels replays bad inputs to the constructors, generators
// and solvers and checks that each error wraps the sentinel of its kind.
func TestBadInputSentinels(t *testing.T) {
	nan := math.NaN()
	rng := rand.New(rand.NewPCG(3, 4))
	r1 := [][][]float64{{{0.5}}}
	p1 := [][][][]float64{{{{1}}}}
	g, err := newDiscounted(r1, p1, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	k1 := g.Kernel()
	g0, err := newEpisodic([]int{1}, 0, [][][][]float64{{{{0.5}}}}, [][][][]float64{{{{1}}}})
	if err != nil {
		t.Fatal(err)
	}
	slow := func() error { _, err := ShapleyValueIteration(g, 1e-300, 1); return err }
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"NewDiscounted(γ = 1)", second(newDiscounted(r1, p1, 1)), icrl.ErrInvalid},
		{"NewDiscounted(NaN reward)", second(newDiscounted([][][]float64{{{nan}}}, p1, 0.9)), icrl.ErrNotFinite},
		{"NewDiscounted(no rewards)", second(NewDiscounted(nil, k1, 0.9)), icrl.ErrEmpty},
		{"NewDiscounted(rank 2 rewards)", second(NewDiscounted(nested.Dense2([][]float64{{1}}), k1, 0.9)), icrl.ErrShape},
		{"NewDiscounted(kernel of 2 states)", second(newDiscounted(r1, [][][][]float64{{{{1, 0}}}, {{{0, 1}}}}, 0.9)), ErrKernel},
		{"NewDiscounted(P = 2)", second(newDiscounted(r1, [][][][]float64{{{{2}}}}, 0.9)), ErrKernel},
		{"NewDiscounted(ΣP = 0.5)", second(newDiscounted(r1, [][][][]float64{{{{0.5}}}}, 0.9)), ErrKernel},
		{"RandomDiscounted(nil rng)", second(RandomDiscounted(2, 2, 2, 0.9, nil)), icrl.ErrNil},
		{"RandomDiscounted(0 states)", second(RandomDiscounted(0, 2, 2, 0.9, rng)), icrl.ErrInvalid},
		{"RandomEpisodic(2^40 joint actions)", second(RandomEpisodic([]int{1 << 20, 1 << 20}, 1, 1, GeneralSumGame, rng)), icrl.ErrTooLarge},
		{"RandomDiscounted(2^12 states, 2^12×2^12 actions)", second(RandomDiscounted(1<<12, 1<<12, 1<<12, 0.9, rng)), icrl.ErrTooLarge},
		{"RandomEpisodic(nil rng)", second(RandomEpisodic([]int{2, 2}, 2, 2, GeneralSumGame, nil)), icrl.ErrNil},
		{"PerturbedEpisodic(nil rng)", second(PerturbedEpisodic(g0, 2, 0.1, nil)), icrl.ErrNil},
		{"RandomEpisodic(no player)", second(RandomEpisodic(nil, 1, 1, GeneralSumGame, rng)), icrl.ErrEmpty},
		{"PerturbedEpisodic(nil)", second(PerturbedEpisodic(nil, 2, 0.1, rng)), icrl.ErrEmpty},
		{"ShapleyValueIteration(tol 0)", second(ShapleyValueIteration(g, 0, 10)), icrl.ErrInvalid},
		{"ShapleyValueIteration(1 sweep)", slow(), ErrNoConvergence},
		{"Episodic{}.Values", second((&Episodic{}).Values(nil)), icrl.ErrEmpty},
		{"Discounted{}.Evaluate", second((&Discounted{}).Evaluate(nil, nil)), icrl.ErrEmpty},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v, want one wrapping %v", c.name, c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestTypedNilKernels: a typed-nil kernel in the Kernel interface is a nil
// kernel (it was dereferenced).
func TestTypedNilKernels(t *testing.T) {
	for _, k := range []Kernel{(*SparseKernel)(nil), (*ProductKernel)(nil), (*DenseKernel)(nil)} {
		if _, err := NewDiscounted(nested.Dense3([][][]float64{{{0.5}}}), k, 0.5); !errors.Is(err, ErrKernel) {
			t.Errorf("NewDiscounted(%T nil): %v, want ErrKernel", k, err)
		}
		if _, err := NewDiscountedGeneralSum([]int{1, 1}, nested.Dense3([][][]float64{{{0.5, 0.5}}}), k, 0.5, []float64{1}); !errors.Is(err, ErrKernel) {
			t.Errorf("NewDiscountedGeneralSum(%T nil): %v, want ErrKernel", k, err)
		}
		if _, err := NewEpisodic([]int{1, 1}, 0, 2, nested.Dense4([][][][]float64{{{{0.5, 0.5}}}}), []Kernel{k}); !errors.Is(err, ErrKernel) {
			t.Errorf("NewGeneralSumKernels(%T nil): %v, want ErrKernel", k, err)
		}
	}
}
