package game

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
)

// TestBadInputs replays inputs that crashed or were accepted silently and
// asserts what each gives now.
func TestBadInputs(t *testing.T) {
	// Solve of a zero ZeroSum panicked with an index out of range.
	if _, err := Solve(&ZeroSum{}); !errors.Is(err, icrl.ErrEmpty) {
		t.Errorf("Solve(&ZeroSum{}): %v", err)
	}
	if _, err := Solve(nil); !errors.Is(err, icrl.ErrEmpty) {
		t.Errorf("Solve(nil): %v", err)
	}
	// RandomUniform with a nil source dereferenced it.
	if _, err := RandomUniform(3, 3, nil); !errors.Is(err, icrl.ErrNilRand) {
		t.Errorf("RandomUniform(3, 3, nil): %v", err)
	}
	if _, err := RandomGaussian(3, 3, 0.5, 0.1, nil); !errors.Is(err, icrl.ErrNilRand) {
		t.Errorf("RandomGaussian(…, nil): %v", err)
	}
}

// TestBadInputSentinels replays bad inputs to the constructors and checks
// that each error wraps the sentinel of its kind.
func TestBadInputSentinels(t *testing.T) {
	nan := math.NaN()
	big := make([][]float64, MaxSupportActions+1)
	for i := range big {
		big[i] = make([]float64, 2)
	}
	bigGame, err := NewBimatrix(big, big)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewZeroSum([][]float64{{0, 1}, {1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 3)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"NewZeroSum(ragged)", second(NewZeroSum([][]float64{{1, 2}, {3}})), icrl.ErrShape},
		{"NewZeroSum(NaN)", second(NewZeroSum([][]float64{{nan}})), icrl.ErrNotFinite},
		{"NewZeroSum(nil)", second(NewZeroSum(nil)), icrl.ErrEmpty},
		{"NewZeroSumDense(short)", second(NewZeroSumDense(2, 2, []float64{1})), icrl.ErrShape},
		{"NewZeroSumDense(Inf)", second(NewZeroSumDense(1, 1, []float64{math.Inf(1)})), icrl.ErrNotFinite},
		{"NewBimatrix(shapes)", second(NewBimatrix([][]float64{{1, 2}}, [][]float64{{1}, {2}})), icrl.ErrShape},
		{"CheckDistribution(length)", simplex.CheckDistribution("p", []float64{1}, 2), icrl.ErrShape},
		{"CheckDistribution(NaN)", simplex.CheckDistribution("p", []float64{nan, 1}, 2), icrl.ErrNotFinite},
		{"CheckDistribution(negative)", simplex.CheckDistribution("p", []float64{-1, 2}, 2), icrl.ErrInvalid},
		{"CheckDistribution(sum)", simplex.CheckDistribution("p", []float64{0.2, 0.2}, 2), icrl.ErrInvalid},
		{"ProjectTruncated(δ·A > 1)", simplex.ProjectTruncated(dst, []float64{1, 2, 3}, 0.5), icrl.ErrInvalid},
		{"ProjectTruncated(NaN)", simplex.ProjectTruncated(dst, []float64{1, nan, 3}, 0.1), icrl.ErrNotFinite},
		{"Rescale(lo ≥ hi)", third(Rescale(g, 1, 0)), icrl.ErrInvalid},
		{"SupportEnumeration(nil)", second(SupportEnumeration(nil)), icrl.ErrEmpty},
		{"SupportEnumeration(&Bimatrix{})", second(SupportEnumeration(&Bimatrix{})), icrl.ErrEmpty},
		{"SupportEnumeration(16×2)", second(SupportEnumeration(bigGame)), icrl.ErrTooLarge},
		{"NewPerturbed(nil)", second(NewPerturbed(nil, 0.1, 0)), icrl.ErrEmpty},
		{"NewPerturbed(ρ < 0)", second(NewPerturbed(g, -1, 0)), icrl.ErrInvalid},
		{"RandomUniform(2^34 × 2^34)", second(RandomUniform(1<<34, 1<<34, rand.New(rand.NewPCG(1, 2)))), icrl.ErrTooLarge},
		{"RandomGaussian(2^20 × 2^20)", second(RandomGaussian(1<<20, 1<<20, 0, 1, rand.New(rand.NewPCG(1, 2)))), icrl.ErrTooLarge},
		{"NewZeroSumDense(2^32 × 2^32, no data)", second(NewZeroSumDense(1<<32, 1<<32, nil)), icrl.ErrTooLarge},
		{"RandomGaussian(std 0)", second(RandomGaussian(2, 2, 0.5, 0, rand.New(rand.NewPCG(1, 2)))), icrl.ErrInvalid},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v, want one wrapping %v", c.name, c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func third[T, U any](_ T, _ U, err error) error { return err }
