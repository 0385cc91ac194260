package control

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzObjective builds a training set, a block and weights from arbitrary
// bytes — sizes, tokens and labels (some non-finite), β, weights — and
// evaluates the training error and its gradient. Nothing may panic; the
// constructor rejects what it cannot use, Eval rejects weights of the wrong
// length or non-finite weights, and what it accepts gives a finite error
// and gradient.
func FuzzObjective(f *testing.F) {
	f.Add([]byte{1, 1, 1, 1, 1, 1, 10, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f})
	f.Add([]byte{2, 2, 1, 2, 2, 2, 200, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, b []byte) {
		next := func() int {
			if len(b) == 0 {
				return 0
			}
			v := int(b[0])
			b = b[1:]
			return v
		}
		f64 := func() float64 {
			if len(b) < 8 {
				b = nil
				return 0
			}
			v := math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
			return v
		}
		dims := Dims{D: 1 + next()%2, Hidden: next() % 3, QK: next() % 3}
		K, N, T := 1+next()%3, 1+next()%3, 1+next()%2
		beta := float64(next()) / 50
		X, Y := make([][][]float64, K), make([][][]float64, K)
		for k := range K {
			X[k], Y[k] = make([][]float64, N), make([][]float64, N)
			for n := range N {
				X[k][n], Y[k][n] = make([]float64, dims.D), make([]float64, dims.D)
				for d := range dims.D {
					X[k][n][d] = float64(next())/64 - 2
					Y[k][n][d] = f64()
				}
			}
		}
		data := dataset(X, Y)
		var sigma Activation[float64] = ReLU[float64]{}
		if next()%2 == 1 {
			sigma = Tanh[float64]{}
		}
		o, err := NewObjective(Block[float64]{Dims: dims, Beta: beta, Sigma: sigma}, T, data)
		if err != nil {
			return
		}
		theta := make([]float64, o.Params()+next()%2) // sometimes one too many
		for i := range theta {
			theta[i] = float64(next())/128 - 1
		}
		grad := make([]float64, len(theta))
		v, err := o.Eval(theta, grad)
		if err != nil {
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Fatalf("training error %v (dims %+v, K %d, N %d, T %d, β %v)", v, dims, K, N, T, beta)
		}
		for i, g := range grad {
			if math.IsNaN(g) || math.IsInf(g, 0) {
				t.Fatalf("gradient entry %d is %v", i, g)
			}
		}
	})
}
