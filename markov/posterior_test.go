package markov_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/markov"
)

// TestPosteriorNashMatchesMatrix checks the Markov Bayes predictor in a
// one-state game with γ = 0 — a matrix game — against learner.PosteriorNash
// with Samples (an independent implementation of the same posterior mean
// of the equilibrium): equal within the Monte Carlo error, after the same
// observations.
func TestPosteriorNashMatchesMatrix(t *testing.T) {
	const K = 4000
	mk, err := markov.NewPosteriorNash(markov.PosteriorNashConfig{States: 1, Actions: 2, Opponents: 2, Samples: K, Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		t.Fatal(err)
	}
	mx, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 2, Samples: K, Rand: rand.New(rand.NewPCG(2, 2))})
	if err != nil {
		t.Fatal(err)
	}
	rounds := []jointRound{{0, 0, 1}, {0, 1, 0}, {1, 0, 0}, {1, 1, 1}, {0, 0, 1}, {1, 1, 1}, {0, 1, 1}}
	sameAsMatrix(t, mk, mx, rounds)
	if mk.Rounds() != len(rounds) {
		t.Errorf("rounds %d, want %d", mk.Rounds(), len(rounds))
	}
}

// TestPosteriorNashConcentrates feeds many rounds of a fixed two-state game
// (Bernoulli rewards, its own transitions) and checks that the Bayes
// predictor's policy in every state approaches the game's equilibrium.
func TestPosteriorNashConcentrates(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	g, err := markov.RandomDiscounted(2, 2, 2, 0.5, rng)
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := g.Nash()
	if err != nil {
		t.Fatal(err)
	}
	p, err := markov.NewPosteriorNash(markov.PosteriorNashConfig{States: 2, Actions: 2, Opponents: 2, Discount: 0.5, Samples: 64, Rand: rng})
	if err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		for a := range 2 {
			for b := range 2 {
				for range 3000 {
					r, next := g.Step(s, a, b, rng)
					if err := p.ObserveJoint(s, a, b, r, next); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	for s := range 2 {
		if d := math.Abs(p.Policy(s)[0] - x[s][0]); d > 0.05 {
			t.Errorf("state %d: Bayes predictor %v, equilibrium %v", s, p.Policy(s), x[s])
		}
	}
}

// TestPosteriorNashBadInput checks the constructor's and ObserveJoint's
// errors, and that a refused round changes nothing.
func TestPosteriorNashBadInput(t *testing.T) {
	ok := markov.PosteriorNashConfig{States: 2, Actions: 2, Opponents: 3, Discount: 0.9, Samples: 4, Rand: rand.New(rand.NewPCG(4, 4))}
	var nilRand *rand.Rand
	for _, c := range []struct {
		name string
		f    func(*markov.PosteriorNashConfig)
		want error
	}{
		{"states", func(c *markov.PosteriorNashConfig) { c.States = 0 }, icrl.ErrInvalid},
		{"discount", func(c *markov.PosteriorNashConfig) { c.Discount = 1 }, icrl.ErrInvalid},
		{"samples", func(c *markov.PosteriorNashConfig) { c.Samples = 0 }, icrl.ErrInvalid},
		{"rand", func(c *markov.PosteriorNashConfig) { c.Rand = nil }, icrl.ErrNilRand},
		{"typed nil rand", func(c *markov.PosteriorNashConfig) { c.Rand = nilRand }, icrl.ErrNilRand},
		{"tolerance", func(c *markov.PosteriorNashConfig) { c.Tolerance = math.NaN() }, icrl.ErrInvalid},
	} {
		cfg := ok
		c.f(&cfg)
		if _, err := markov.NewPosteriorNash(cfg); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
	p, err := markov.NewPosteriorNash(ok)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Observe(0, 0, 1, 0); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("Observe: error %v, want ErrInvalid", err)
	}
	for _, bad := range [][5]float64{{2, 0, 0, 1, 0}, {0, 2, 0, 1, 0}, {0, 0, 3, 1, 0}, {0, 0, 0, 1.5, 0}, {0, 0, 0, math.NaN(), 0}, {0, 0, 0, 1, -1}} {
		if err := p.ObserveJoint(int(bad[0]), int(bad[1]), int(bad[2]), bad[3], int(bad[4])); err == nil {
			t.Errorf("ObserveJoint%v: no error", bad)
		}
	}
	if p.Rounds() != 0 {
		t.Errorf("refused rounds counted: %d", p.Rounds())
	}
}

// TestPosteriorNashTransitions checks that the predictor plans through the
// observed transitions: in state 0 the learner's action a leads to state a,
// state 1 pays 1 and state 0 pays 0, so after many rounds it plays action 1
// in state 0.
func TestPosteriorNashTransitions(t *testing.T) {
	p, err := markov.NewPosteriorNash(markov.PosteriorNashConfig{States: 2, Actions: 2, Opponents: 2, Discount: 0.9, Samples: 16, Rand: rand.New(rand.NewPCG(5, 5))})
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		for a := range 2 {
			for b := range 2 {
				if err := p.ObserveJoint(0, a, b, 0, a); err != nil {
					t.Fatal(err)
				}
				if err := p.ObserveJoint(1, a, b, 1, 1); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if x := p.Policy(0); x[1] < 0.95 {
		t.Errorf("policy in state 0 %v: want action 1 (towards the paying state)", x)
	}
}

// TestPosteriorNashNoise checks the uniform-noise posterior in a one-state
// game with γ = 0 against learner.PosteriorNash with the same
// NoiseHalfWidth (an independent implementation of the matrix case):
// equal within the Monte Carlo error after the same observations; and an
// impossible reward is refused, changing nothing.
func TestPosteriorNashNoise(t *testing.T) {
	const K, h = 4000, 0.05
	mk, err := markov.NewPosteriorNash(markov.PosteriorNashConfig{States: 1, Actions: 2, Opponents: 2, Samples: K, NoiseHalfWidth: h, Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		t.Fatal(err)
	}
	mx, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: 2, Opponents: 2, Samples: K, NoiseHalfWidth: h, Rand: rand.New(rand.NewPCG(2, 2))})
	if err != nil {
		t.Fatal(err)
	}
	// Means near (0.6 0.3; 0.4 0.7): a mixed equilibrium, and each cell's
	// posterior confined to a 0.1-wide interval or less.
	rounds := []jointRound{{0, 0, 0.62}, {0, 1, 0.28}, {1, 0, 0.41}, {1, 1, 0.66}, {0, 0, 0.57}}
	p := sameAsMatrix(t, mk, mx, rounds)
	// The Bernoulli posterior after the same rewards is far wider: its
	// policy differs.
	mb, err := markov.NewPosteriorNash(markov.PosteriorNashConfig{States: 1, Actions: 2, Opponents: 2, Samples: K, Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		t.Fatal(err)
	}
	observeAll(t, mb, rounds)
	if b := mb.Policy(0); math.Abs(b[0]-p[0]) < 0.03 {
		t.Errorf("Bernoulli posterior's policy %v, uniform-noise one %v: want them apart", b, p)
	}
	// 0.9 is more than 0.05 from every mean the earlier 0.62 and 0.57 allow.
	if err := mk.ObserveJoint(0, 0, 0, 0.9, 0); !errors.Is(err, icrl.ErrOutOfRange) || mk.Rounds() != len(rounds) {
		t.Errorf("impossible reward: %v, rounds %d", err, mk.Rounds())
	}
	// Reset forgets the bounds: the same reward is possible again.
	mk.Reset()
	if err := mk.ObserveJoint(0, 0, 0, 0.9, 0); err != nil {
		t.Errorf("after Reset: %v", err)
	}
	if _, err := markov.NewPosteriorNash(markov.PosteriorNashConfig{States: 1, Actions: 2, Opponents: 2, Samples: 1, NoiseHalfWidth: 0.6, Rand: rand.New(rand.NewPCG(1, 1))}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("NoiseHalfWidth 0.6: %v", err)
	}
}

// jointRound is one observed round of a one-state game.
type jointRound struct {
	a, b int
	r    float64
}

// observeAll feeds the rounds to l in state 0.
func observeAll(t *testing.T, l learner.JointLearner, rounds []jointRound) {
	t.Helper()
	for _, o := range rounds {
		if err := l.ObserveJoint(0, o.a, o.b, o.r, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// sameAsMatrix feeds the rounds to the Markov Bayes predictor mk and the
// matrix one mx, checks that their policies agree within the Monte Carlo
// error, and returns mk's.
func sameAsMatrix(t *testing.T, mk *markov.PosteriorNash, mx *learner.PosteriorNash, rounds []jointRound) []float64 {
	t.Helper()
	observeAll(t, mk, rounds)
	observeAll(t, mx, rounds)
	p, q := mk.Policy(0), mx.Policy(0)
	if math.Abs(p[0]-q[0]) > 0.02 || math.Abs(p[0]+p[1]-1) > 1e-9 {
		t.Errorf("Markov Bayes predictor %v, matrix one %v: want equal within 0.02", p, q)
	}
	return p
}
