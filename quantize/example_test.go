package quantize_test

import (
	"fmt"

	"github.com/icrl-go/icrl/quantize"
)

// The golden values of the paper for the paper's measure quantizer R_ℓ.
func ExampleReznik() {
	for _, c := range []struct {
		p   []float64
		ell int
	}{
		{[]float64{0.1, 0.25, 0.65}, 4},
		{[]float64{0.14, 0.16, 0.70}, 4},
		{[]float64{0.11, 0.28, 0.29, 0.32}, 4},
		{[]float64{0.4, 0.35, 0.25}, 7},
	} {
		r, err := quantize.Reznik(nil, c.p, c.ell)
		if err != nil {
			panic(err)
		}
		fmt.Printf("R_%d%v = %v/%d\n", c.ell, c.p, r, c.ell)
	}
	// Output:
	// R_4[0.1 0.25 0.65] = [0 1 3]/4
	// R_4[0.14 0.16 0.7] = [0 1 3]/4
	// R_4[0.11 0.28 0.29 0.32] = [1 1 1 1]/4
	// R_7[0.4 0.35 0.25] = [3 2 2]/7
}

// The 1/n-net of the paper's state space S = [-1,1]² for n = 10 (the paper's experiment).
func ExampleBoxGrid() {
	g, err := quantize.NewBoxGridForRadius([]float64{-1, -1}, []float64{1, 1}, 0.1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("cells %v, %d points, covering radius %.4f\n", g.Cells(), g.Size(), g.CoveringRadius())
	for _, x := range [][]float64{{0.05, -0.93}, {1.6, 2.5}} {
		j, inside := g.Nearest(x)
		p := g.Point(j)
		fmt.Printf("%v → point %d = (%.4f, %.4f), inside %v\n", x, j, p[0], p[1], inside)
	}
	// Output:
	// cells [15 15], 225 points, covering radius 0.0943
	// [0.05 -0.93] → point 105 = (0.0000, -0.9333), inside true
	// [1.6 2.5] → point 224 = (0.9333, 0.9333), inside false
}

// The A1 counterexample: with the paper's threshold λ > (N/2)·D² the
// optimal coupling swaps the two tokens, and W² is not the sequence MSE;
// with λ ≥ LambdaMin = N²·D² it is.
func ExampleCost_W2Sq() {
	a, b := []float64{0, 0}, []float64{3, 4} // D = 5
	x, err := quantize.Empirical([][]float64{a, b})
	if err != nil {
		panic(err)
	}
	y, err := quantize.Empirical([][]float64{b, a})
	if err != nil {
		panic(err)
	}
	for _, lambda := range []float64{2 * 25, quantize.LambdaMin(5.0, 2)} {
		w2, err := quantize.Cost[float64]{Lambda: lambda, N: 2}.W2Sq(x, y)
		if err != nil {
			panic(err)
		}
		fmt.Printf("λ = %v: W² = %v\n", lambda, w2)
	}
	fmt.Println("SeqMSE =", quantize.SeqMSE([][]float64{a, b}, [][]float64{b, a}))
	// Output:
	// λ = 50: W² = 12.5
	// λ = 100: W² = 25
	// SeqMSE = 25
}

// Two types with denominator ℓ = 4 compared by the ℓ×ℓ assignment.
func ExampleCost_W2SqCounts() {
	c := quantize.Cost[float64]{Lambda: 100, N: 2}
	A := []quantize.Atom[float64]{{Pos: 1, X: []float64{0}}, {Pos: 2, X: []float64{1}}}
	B := []quantize.Atom[float64]{{Pos: 1, X: []float64{0.5}}, {Pos: 2, X: []float64{1}}}
	w2, err := c.W2SqCounts(A, []int{2, 2}, B, []int{2, 2})
	if err != nil {
		panic(err)
	}
	fmt.Println(w2)
	// Output:
	// 0.125
}

// Quantising the lifted measure of a 2-token sequence on 𝕏_n with G = 3
// state points: the position-preserving quantizer keeps mass 1/2 on each
// position, and the key identifies the type.
func ExampleQuantizeMeasure() {
	ix := quantize.AtomIndex{N: 2, G: 3}
	idx := []int32{int32(ix.Encode(1, 0)), int32(ix.Encode(1, 2)), int32(ix.Encode(2, 1))}
	prob := []float64{0.3, 0.2, 0.5}
	q, err := quantize.QuantizeMeasure(idx, prob, 4, quantize.PositionPreservingMode, ix)
	if err != nil {
		panic(err)
	}
	fmt.Printf("Idx %v Cnt %v Ell %d key %x\n", q.Idx, q.Cnt, q.Ell, q.AppendKey(nil))
	// Output:
	// Idx [0 2 4] Cnt [1 1 2] Ell 4 key 0403000102010202
}

// The cube net on [-1,1]^P with Frobenius radius ≤ 1/m, and random nested
// action sets as in the paper's experiment.
func ExampleNetPerAxis() {
	fmt.Println("P = 22, m = 1:", quantize.NetPerAxis(22, 1), "cells per axis")
	pts, err := quantize.ProductGrid([]float64{-1, -1}, []float64{1, 1}, []int{quantize.NetPerAxis(2, 1), quantize.NetPerAxis(2, 1)}, 100)
	if err != nil {
		panic(err)
	}
	fmt.Println("P = 2, m = 1:", pts)
	// Output:
	// P = 22, m = 1: 5 cells per axis
	// P = 2, m = 1: [[-0.5 -0.5] [-0.5 0.5] [0.5 -0.5] [0.5 0.5]]
}
