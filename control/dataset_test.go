package control

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/nested"
	"github.com/icrl-go/icrl/tensor"
)

// dense3 returns the K × N × d array of the nested tokens v.
func dense3[F tensor.Float](v [][][]F) *tensor.Dense[F] { return nested.Dense3(v) }

// dataset returns the data set of the nested inputs X and labels Y.
func dataset[F tensor.Float](X, Y [][][]F) Dataset[F] {
	return Dataset[F]{X: dense3(X), Y: dense3(Y)}
}

// TestDatasetValidate checks the shapes and values Validate rejects, each
// error naming the bad value.
func TestDatasetValidate(t *testing.T) {
	X := [][][]float64{goldenX, goldenX}
	Y := [][][]float64{goldenTarget, goldenTarget}
	good := dataset(X, Y)
	if err := good.Validate(2); err != nil {
		t.Fatal(err)
	}
	if K, N, D := good.Dims(); K != 2 || N != 3 || D != 2 {
		t.Fatalf("Dims = %d, %d, %d; want 2, 3, 2", K, N, D)
	}
	nanX := [][]float64{{0.5, -0.25}, {math.NaN(), 0.75}, {0.2, 0.9}}
	flat, _ := tensor.New[float64](6, 2)
	for _, c := range []struct {
		name string
		d    Dataset[float64]
		dim  int
		want string
		err  error
	}{
		{"no inputs", Dataset[float64]{Y: good.Y}, 0, "no input array", icrl.ErrNil},
		{"no labels", Dataset[float64]{X: good.X}, 0, "no label array", icrl.ErrNil},
		{"rank 2", Dataset[float64]{X: flat, Y: good.Y}, 0, "input array has shape [6 2]", icrl.ErrInvalid},
		{"label count", Dataset[float64]{X: good.X, Y: dense3(Y[:1])}, 0, "input array 2 × 3 × 2 but label array [1 3 2]", icrl.ErrInvalid},
		{"label N", Dataset[float64]{X: good.X, Y: dense3([][][]float64{goldenTarget[:2], goldenTarget[:2]})}, 0, "label array [2 2 2]", icrl.ErrInvalid},
		{"dim", good, 3, "length 2, want D = 3", icrl.ErrInvalid},
		{"non-finite input", dataset([][][]float64{goldenX, nanX}, Y), 0, "input token (1, 1) entry 0 = NaN", icrl.ErrNotFinite},
		{"non-finite label", dataset(X, [][][]float64{goldenTarget, nanX}), 0, "label token (1, 1) entry 0 = NaN", icrl.ErrNotFinite},
	} {
		err := c.d.Validate(c.dim)
		if !errors.Is(err, c.err) || !strings.Contains(fmtGot(err), c.want) {
			t.Errorf("%s: %v, want %v naming %q", c.name, err, c.err, c.want)
		}
	}
}

// firstK returns the first K sequences of a K' × N × d array (a copy).
func firstK[F tensor.Float](a *tensor.Dense[F], K int) *tensor.Dense[F] {
	out, err := tensor.FromData(a.Data()[:K*a.Dim(1)*a.Dim(2)], K, a.Dim(1), a.Dim(2))
	if err != nil {
		panic(err)
	}
	return out
}

func fmtGot(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
