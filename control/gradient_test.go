package control

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gradData draws K sequences of N tokens uniform on [−1, 1]^D with the
// self-attention target.
func gradData(K, N, D int, rng *rand.Rand) Dataset[float64] {
	X, Y := make([][][]float64, K), make([][][]float64, K)
	for k := range K {
		X[k] = make([][]float64, N)
		for i := range N {
			X[k][i] = make([]float64, D)
			for c := range D {
				X[k][i][c] = 2*rng.Float64() - 1
			}
		}
		Y[k] = SelfAttentionTarget(X[k], 1)
	}
	return dataset(X, Y)
}

// TestObjectiveMatchesEval checks J against EvalContinuous.
func TestObjectiveMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dims := Dims{D: 2, Hidden: 3, QK: 2}
	for _, T := range []int{1, 2, 3} {
		b := Block[float64]{Dims: dims, Beta: 0.5}
		data := gradData(5, 4, 2, rng)
		o, err := NewObjective(b, T, data)
		if err != nil {
			t.Fatal(err)
		}
		theta := make([]float64, o.Params())
		for i := range theta {
			theta[i] = 2*rng.Float64() - 1
		}
		j, err := o.Eval(theta, nil)
		if err != nil {
			t.Fatal(err)
		}
		us, err := o.Actions(theta)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := EvalContinuous(b, us, data)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(j-want) > 1e-12*max(1, want) {
			t.Errorf("T = %d: J = %v, EvalContinuous %v", T, j, want)
		}
	}
}

// TestObjectiveGradient checks ∇J against central finite differences to
// 1e-6 relative, for ReLU and Tanh, at random points away from ReLU's kinks.
func TestObjectiveGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		sigma Activation[float64]
		T     int
		dims  Dims
	}{
		{nil, 2, Dims{D: 2, Hidden: 3, QK: 2}},
		{Tanh[float64]{}, 2, Dims{D: 2, Hidden: 3, QK: 2}},
		{Tanh[float64]{}, 3, Dims{D: 3, Hidden: 2, QK: 1}},
		{ReLU[float64]{}, 1, Dims{D: 1, Hidden: 2, QK: 2}},
	} {
		b := Block[float64]{Dims: c.dims, Beta: 0.7, Sigma: c.sigma}
		o, err := NewObjective(b, c.T, gradData(4, 3, c.dims.D, rng))
		if err != nil {
			t.Fatal(err)
		}
		theta := make([]float64, o.Params())
		for i := range theta {
			theta[i] = 2*rng.Float64() - 1
		}
		grad := make([]float64, len(theta))
		j0, err := o.Eval(theta, grad)
		if err != nil {
			t.Fatal(err)
		}
		const h = 1e-6
		var worst float64
		for i := range theta {
			old := theta[i]
			theta[i] = old + h
			jp, _ := o.Eval(theta, nil)
			theta[i] = old - h
			jm, _ := o.Eval(theta, nil)
			theta[i] = old
			fd := (jp - jm) / (2 * h)
			rel := math.Abs(fd-grad[i]) / max(math.Abs(fd), math.Abs(grad[i]), 1e-3)
			worst = max(worst, rel)
		}
		if worst > 1e-6 {
			t.Errorf("%T, T = %d, %+v: worst relative gradient error %.3g", c.sigma, c.T, c.dims, worst)
		}
		if j1, _ := o.Eval(theta, nil); j1 != j0 {
			t.Errorf("Eval is not a pure function: %v then %v", j0, j1)
		}
	}
	if _, err := NewObjective(Block[float64]{Dims: Dims{D: 1, Hidden: 1, QK: 1}, Beta: 1, Sigma: sigmoidLike{}}, 1, gradData(1, 2, 1, rng)); err == nil {
		t.Error("an activation without a derivative was accepted")
	}
}

// sigmoidLike is an activation the gradient does not know.
type sigmoidLike struct{}

func (sigmoidLike) Apply(dst, src []float64) { copy(dst, src) }
