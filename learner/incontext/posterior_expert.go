package incontext

import (
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/markov"
)

// PosteriorExpert labels every round with the posterior mean of the
// player's equilibrium given the joint observations so far: in a matrix
// game a learner.PosteriorNash with Samples posterior draws follows the
// trajectory, in a discounted Markov game (a game.Discounter with more
// than one state) a markov.PosteriorNash, which draws rewards and
// transitions and solves each drawn game by Shapley value iteration. For
// games whose payoffs are drawn independently and uniformly from [0, 1]
// (in Markov games also each transition row from the flat Dirichlet law,
// markov.RandomDiscounted's prior) and whose rewards are Bernoulli
// (PriorWeight 0, the Beta(1, 1) prior), this is the Bayes-optimal
// prediction of the true game's equilibrium, and so the policy that
// minimises the expected cross-entropy to [NEExpert]'s labels given the
// context: training on it has the same optimum as training on equilibrium
// labels, with the labels' noise averaged out (the true game's equilibrium
// is one draw from this posterior; Samples draws divide the label's
// variance by Samples).
//
// It needs the opponent's action: collect under learner.JointActions
// observation. It draws its posterior samples from a stream seeded from
// the trajectory's (two draws in Follow), so [Collect] stays deterministic
// by seed. Label returns an error (the history of learner.Step has no
// opponent's action). A label costs Samples LPs of A×B in a matrix game,
// and Samples solves of an S-state game in a Markov game.
type PosteriorExpert struct {
	// Samples is the number of posterior draws per label, in [1,
	// learner.MaxSamples]; 0 means [DefaultPosteriorSamples].
	Samples int
	// PriorWeight is learner.PosteriorNashConfig's: 0 means the
	// Beta(1, 1) prior. Markov games have that prior only: there it must
	// be 0 or learner.DefaultPriorWeight, unless NoiseHalfWidth is set
	// (whose posterior does not use it).
	PriorWeight float64
	// NoiseHalfWidth is learner.PosteriorNashConfig's: when positive, the
	// labels are the posterior mean under the exact posterior of rewards
	// drawn as game.UniformNoise{HalfWidth: NoiseHalfWidth} around
	// uniform means (the Bayes-optimal prediction for such rewards) instead
	// of the Beta posterior of Bernoulli rewards.
	NoiseHalfWidth float64
}

// DefaultPosteriorSamples is the number of posterior draws per label of a
// [PosteriorExpert] whose Samples is 0.
const DefaultPosteriorSamples = 16

// Compile-time check: PosteriorExpert is online.
var _ OnlineExpert = PosteriorExpert{}

// Label returns an error: the posterior needs the opponent's actions,
// which a history of learner.Step does not hold; use the expert through
// Collect under learner.JointActions observation.
func (e PosteriorExpert) Label([]float64, game.Game, game.Player, []learner.Step, int) error {
	return fmt.Errorf("%w: PosteriorExpert needs the opponent's actions: use it in Collect under JointActions observation", icrl.ErrInvalid)
}

// Follow returns a learner.PosteriorNash for player p of the matrix game
// g, or a markov.PosteriorNash of the game's states and discount in a
// Markov game, its samples drawn from a stream seeded by two draws from
// rng. It returns an error if g or rng is nil, p is invalid, a game of
// more than one state has no discount (game.Discounter) or the
// configuration is invalid.
func (e PosteriorExpert) Follow(g game.Game, p game.Player, rng *rand.Rand) (learner.Learner, error) {
	if nilness.Is(g) {
		return nil, fmt.Errorf("%w: PosteriorExpert of a nil game", icrl.ErrNil)
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: PosteriorExpert needs the trajectory's random source", icrl.ErrNil)
	}
	if !p.Valid() {
		return nil, fmt.Errorf("%w: PosteriorExpert of invalid player %v", icrl.ErrInvalid, p)
	}
	k := e.Samples
	if k == 0 {
		k = DefaultPosteriorSamples
	}
	other := game.ColumnPlayer
	if p == game.ColumnPlayer {
		other = game.RowPlayer
	}
	if g.States() > 1 {
		return e.followMarkov(g, p, other, k, rng)
	}
	l, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: g.Actions(p), Opponents: g.Actions(other),
		PriorWeight: e.PriorWeight, Samples: k, NoiseHalfWidth: e.NoiseHalfWidth, Rand: rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))})
	if err != nil {
		return nil, fmt.Errorf("incontext: PosteriorExpert: %w", err)
	}
	return l, nil
}

// followMarkov returns the markov.PosteriorNash that follows player p of
// the Markov game g with k draws a round.
func (e PosteriorExpert) followMarkov(g game.Game, p, other game.Player, k int, rng *rand.Rand) (learner.Learner, error) {
	d, ok := g.(game.Discounter)
	if !ok {
		return nil, fmt.Errorf("%w: PosteriorExpert in a game of %d states without a discount (game.Discounter)", icrl.ErrInvalid, g.States())
	}
	if e.NoiseHalfWidth == 0 && e.PriorWeight != 0 && e.PriorWeight != learner.DefaultPriorWeight {
		return nil, fmt.Errorf("%w: PosteriorExpert PriorWeight = %v in a Markov game, whose posterior has the Beta(1, 1) prior only (0 or %v)",
			icrl.ErrInvalid, e.PriorWeight, float64(learner.DefaultPriorWeight))
	}
	l, err := markov.NewPosteriorNash(markov.PosteriorNashConfig{States: g.States(), Actions: g.Actions(p), Opponents: g.Actions(other),
		Discount: d.Discount(), Samples: k, NoiseHalfWidth: e.NoiseHalfWidth, Rand: rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))})
	if err != nil {
		return nil, fmt.Errorf("incontext: PosteriorExpert: %w", err)
	}
	return l, nil
}
