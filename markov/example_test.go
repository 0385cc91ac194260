package markov_test

import (
	"fmt"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// t6 returns a small two-state zero-sum game with known values: γ = 0.9,
// stage rewards R_0 = [[1,0],[0,1]] and R_1 = [[1,0],[0,0.5]], and every
// transition uniform over the two states.
func t6() *markov.Discounted {
	// Rewards r(s, a, b), S × A × B, and transitions P(s'|s, a, b),
	// S × A·B × S, stored flat in row-major order.
	r, _ := tensor.FromData([]float64{1, 0, 0, 1, 1, 0, 0, 0.5}, 2, 2, 2)
	p, _ := tensor.FromData([]float64{.5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5}, 2, 4, 2)
	k, err := markov.NewDenseKernel(p)
	if err != nil {
		panic(err)
	}
	g, err := markov.NewDiscounted(r, k, 0.9)
	if err != nil {
		panic(err)
	}
	return g
}

func ExampleShapleyValueIteration() {
	g := t6()
	sol, err := markov.ShapleyValueIteration(g, 1e-10, 1000)
	if err != nil {
		fmt.Println(err)
		return
	}
	for s := range sol.V {
		fmt.Printf("state %d: V* = %.4f, x* = %.4f, y* = %.4f\n", s, sol.V[s], sol.X[s], sol.Y[s])
	}
	_, gap, _ := g.Gap(sol.X, sol.Y)
	fmt.Printf("NE-gap below 1e-9: %v\n", gap < 1e-9)
	// Output:
	// state 0: V* = 4.2500, x* = [0.5000 0.5000], y* = [0.5000 0.5000]
	// state 1: V* = 4.0833, x* = [0.3333 0.6667], y* = [0.3333 0.6667]
	// NE-gap below 1e-9: true
}

func ExampleDiscounted_Gap() {
	g := t6()
	u := markov.UniformStationary(2, 2)
	perState, maxGap, err := g.Gap(u, u)
	if err != nil {
		fmt.Println(err)
		return
	}
	br, _, _ := g.BestResponse(u, game.RowPlayer)
	worst, _, _ := g.BestResponse(u, game.ColumnPlayer)
	fmt.Printf("V^{†,y} = %.4f, V^{x,†} = %.4f\n", br, worst)
	fmt.Printf("per-state gap %.4f, Markov gap %.4f\n", perState, maxGap)
	// Output:
	// V^{†,y} = [5.0000 5.0000], V^{x,†} = [3.8750 3.6250]
	// per-state gap [1.1250 1.3750], Markov gap 1.3750
}

func ExampleMaxHittingTime() {
	L, err := markov.MaxHittingTime(t6())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("L =", L)
	// Output:
	// L = 2
}
