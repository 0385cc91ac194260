package omdnet_test

import (
	"testing"

	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/incontext/omdnet"
)

// BenchmarkNew builds the model of a 3-action game for T = 200 rounds at
// ε = 10⁻²: about 6.4 million parameters.
func BenchmarkNew(b *testing.B) {
	cfg := omdnet.Config{OMD: learner.OMDConfig{Actions: 3, Horizon: 200}, Accuracy: 1e-2}
	for b.Loop() {
		if _, err := omdnet.New(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlay plays the model of a 3-action game for T = 200 rounds in
// context (KV-cached decoding through incontext.Learner), one op per game:
// each round reads every weight once.
func BenchmarkPlay(b *testing.B) {
	cfg := omdnet.Config{OMD: learner.OMDConfig{Actions: 3, Horizon: 200}, Accuracy: 1e-2}
	model, err := omdnet.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	l, err := incontext.NewLearner(model, cfg.Encoder(), incontext.Config{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		l.Reset()
		for t := range 200 {
			_ = l.Policy(0)
			if err := l.Observe(0, t%3, float64(t%2), 0); err != nil {
				b.Fatal(err)
			}
		}
	}
}
