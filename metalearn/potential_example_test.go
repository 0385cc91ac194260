package metalearn_test

import (
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/metalearn"
	"github.com/icrl-go/icrl/tensor"
)

// Finite-horizon projected Q-ascent (7) on the two-player team of App. F.2:
// two states, the 0.9/0.1 transitions, H = 10, α = 0.05. Table 2 of the
// paper lacks the (a_1, b_1) reward of the second state; 0.8 below is a
// placeholder, not the paper's value. On this unperturbed game
// the iterates reach a pure equilibrium, where the App. F.2 NE-gap is
// exactly 0, before t = 50.
func ExampleQAscent() {
	const H = 10
	rewards, _ := tensor.New[float64](H, 2, 4) // shared r_h(s, 2a+b)
	for h := range H {
		copy(rewards.Sub(h).Data(), []float64{0.1, 0.5, 0.5, 1, 0.8, 0.2, 0.2, 0.8 /* placeholder */})
	}
	g, err := markov.NewEpisodic([]int{2, 2}, 0, H, rewards, []markov.Kernel{markov.TwoStateKernel()})
	if err != nil {
		log.Fatal(err)
	}
	cfg := metalearn.QAscentConfig{Alpha: 0.05, T: 1000, Checkpoints: []int{0, 10, 20, 50, 1000}}
	res, err := metalearn.QAscent(g, g.UniformProduct(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range res.Checkpoints {
		fmt.Printf("t = %4d  NE-gap (F.2) %.4f  Φ = V_1(s_1) %.4f\n", c.T, c.CoopGap, c.Values[0])
	}
	// Output:
	// t =    0  NE-gap (F.2) 1.2375  Φ = V_1(s_1) 5.1375
	// t =   10  NE-gap (F.2) 1.1172  Φ = V_1(s_1) 5.7308
	// t =   20  NE-gap (F.2) 0.9779  Φ = V_1(s_1) 6.5164
	// t =   50  NE-gap (F.2) 0.0000  Φ = V_1(s_1) 9.3055
	// t = 1000  NE-gap (F.2) 0.0000  Φ = V_1(s_1) 9.3055
}

// The softmax potential of a discounted Markov team, its policy gradient
// (45) and one MAML step (47) over a family of three teams, with the step
// sizes checked against the guaranteed regime of Theorem 4 (Lemma 14 with
// the inner step capped at 1/L_G).
func ExampleMAMLStep() {
	rng := rand.New(rand.NewPCG(1, 2))
	var games []*markov.DiscountedGeneralSum
	for range 3 {
		g, err := markov.RandomDiscountedCooperative([]int{2, 2}, 3, 0.5, rng)
		if err != nil {
			log.Fatal(err)
		}
		games = append(games, g)
	}
	const T = 2
	c := metalearn.LemmaConstants(2, 0.5, 2, T)
	alpha, eta := c.InnerAlpha, 1/c.LF
	if err := metalearn.CheckMAMLStepSizes(2, 0.5, 2, T, alpha, eta); err != nil {
		log.Fatal(err)
	}
	// A step 10⁴ times the guaranteed one is refused in that regime.
	fmt.Println(metalearn.CheckMAMLStepSizes(2, 0.5, 2, T, alpha, 1e4*eta) != nil)

	th := metalearn.ZeroLogits(games[0]) // uniform policies
	f0, err := metalearn.MAMLObjective(games, th, alpha, T)
	if err != nil {
		log.Fatal(err)
	}
	// The guaranteed η is tiny (L_F grows like 4^T); take 1000 steps.
	for range 1000 {
		if th, err = metalearn.MAMLStep(games, th, alpha, eta, T); err != nil {
			log.Fatal(err)
		}
	}
	f1, err := metalearn.MAMLObjective(games, th, alpha, T)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("1/L_G = %.5f, inner α = %.5f, η = 1/L_F = %.3g\n", 1/c.LG, alpha, eta)
	fmt.Printf("F_T: %.5f → %.5f\n", f0, f1)
	// Output:
	// true
	// 1/L_G = 0.01042, inner α = 0.01042, η = 1/L_F = 0.000121
	// F_T: 0.30391 → 0.30537
}
