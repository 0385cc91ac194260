package omdnet_test

import (
	"fmt"

	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/incontext/omdnet"
)

// Example builds the transformer that runs learner.OMD (its default
// schedule) for four rounds of a two-action game, plays it in context
// beside OMD itself and prints both policies round by round: they agree to
// the accuracy ε = 10⁻³.
func Example() {
	cfg := omdnet.Config{OMD: learner.OMDConfig{Actions: 2, Horizon: 4}, Accuracy: 1e-3}
	model, err := omdnet.New(cfg)
	if err != nil {
		panic(err)
	}
	player, err := incontext.NewLearner(model, cfg.Encoder(), incontext.Config{})
	if err != nil {
		panic(err)
	}
	omd, err := learner.NewOMD(cfg.OMD)
	if err != nil {
		panic(err)
	}
	sz, err := cfg.Sizes()
	if err != nil {
		panic(err)
	}
	fmt.Printf("d = %d, d' = %d, %d layers, %d parameters\n", sz.Width, sz.FeedForward, sz.Layers, sz.Params)
	rounds := []learner.Step{{Action: 0, Reward: 1}, {Action: 1, Reward: 0}, {Action: 1, Reward: 0.5}, {Action: 0, Reward: 0}}
	for t, st := range rounds {
		x, y := player.Policy(0), omd.Policy(0)
		fmt.Printf("round %d: transformer (%.4f, %.4f)  OMD (%.4f, %.4f)\n", t+1, x[0], x[1], y[0], y[1])
		for _, l := range []learner.Learner{player, omd} {
			if err := l.Observe(0, st.Action, st.Reward, 0); err != nil {
				panic(err)
			}
		}
	}
	x, y := player.Policy(0), omd.Policy(0)
	fmt.Printf("after 4:  transformer (%.4f, %.4f)  OMD (%.4f, %.4f)\n", x[0], x[1], y[0], y[1])
	// Output:
	// d = 18, d' = 28, 40 layers, 97098 parameters
	// round 1: transformer (0.5000, 0.5000)  OMD (0.5000, 0.5000)
	// round 2: transformer (0.5000, 0.5000)  OMD (0.5000, 0.5000)
	// round 3: transformer (0.6275, 0.3725)  OMD (0.6275, 0.3725)
	// round 4: transformer (0.6605, 0.3395)  OMD (0.6603, 0.3397)
	// after 4:  transformer (0.5482, 0.4518)  OMD (0.5482, 0.4518)
}
