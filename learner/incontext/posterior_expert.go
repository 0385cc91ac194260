package incontext

import (
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/learner"
)

// PosteriorExpert labels every round of a matrix game with the posterior
// mean of the player's equilibrium given the joint observations so far: a
// learner.PosteriorNash with Samples posterior draws follows the
// trajectory. For games whose payoffs are drawn independently and
// uniformly from [0, 1] and whose rewards are Bernoulli (PriorWeight 0,
// the Beta(1, 1) prior), this is the Bayes-optimal prediction of the true
// game's equilibrium, and so the policy that minimises the expected
// cross-entropy to [NEExpert]'s labels given the context: training on it
// has the same optimum as training on equilibrium labels, with the labels'
// noise averaged out (the true game's equilibrium is one draw from this
// posterior; Samples draws divide the label's variance by Samples).
//
// It needs the opponent's action: collect under learner.JointActions
// observation. It draws its posterior samples from a stream seeded from
// the trajectory's (two draws in Follow), so [Collect] stays deterministic
// by seed. Label returns an error (the history of learner.Step has no
// opponent's action).
type PosteriorExpert struct {
	// Samples is the number of posterior draws per label, in [1,
	// learner.MaxSamples]; 0 means [DefaultPosteriorSamples].
	Samples int
	// PriorWeight is learner.PosteriorNashConfig's: 0 means the
	// Beta(1, 1) prior.
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
// g, its samples drawn from a stream seeded by two draws from rng. It
// returns an error if g or rng is nil, p is invalid, g has more than one
// state or the configuration is invalid.
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
	if g.States() != 1 {
		return nil, fmt.Errorf("%w: PosteriorExpert advises in matrix games, got %d states", icrl.ErrInvalid, g.States())
	}
	k := e.Samples
	if k == 0 {
		k = DefaultPosteriorSamples
	}
	other := game.ColumnPlayer
	if p == game.ColumnPlayer {
		other = game.RowPlayer
	}
	l, err := learner.NewPosteriorNash(learner.PosteriorNashConfig{Actions: g.Actions(p), Opponents: g.Actions(other),
		PriorWeight: e.PriorWeight, Samples: k, NoiseHalfWidth: e.NoiseHalfWidth, Rand: rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))})
	if err != nil {
		return nil, fmt.Errorf("incontext: PosteriorExpert: %w", err)
	}
	return l, nil
}
