package markov

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl/internal/randdist"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/tensor"
)

// DefaultPosteriorTolerance is PosteriorNashConfig.Tolerance when it is 0.
const DefaultPosteriorTolerance = 1e-3

// MaxPosteriorSamples is the largest PosteriorNashConfig.Samples.
const MaxPosteriorSamples = 1 << 12

// PosteriorNashConfig configures [NewPosteriorNash]. Every field but
// Tolerance is required.
type PosteriorNashConfig struct {
	// States, Actions and Opponents are the game's S ≥ 1 states, the
	// learner's A ≥ 1 actions and its opponent's B ≥ 1.
	States, Actions, Opponents int
	// Discount is the game's γ ∈ [0, 1).
	Discount float64
	// Samples is the number K ≥ 1 of games drawn from the posterior at
	// every round (at most MaxPosteriorSamples).
	Samples int
	// Rand draws the games.
	Rand *rand.Rand
	// Tolerance bounds the Markov gap of each drawn game's solution
	// (ShapleyValueIteration's tol); 0 means DefaultPosteriorTolerance.
	Tolerance float64
	// NoiseHalfWidth, when positive (at most ½), replaces the Beta
	// posterior of Bernoulli rewards by the exact posterior of rewards
	// drawn as game.UniformNoise{HalfWidth: NoiseHalfWidth} around each
	// cell's mean: uniform within min(h, r, 1 − r) of the mean r, so each
	// mean's posterior is ∝ min(h, r, 1 − r)^(−n) on the interval the
	// rewards allow (learner.PosteriorNashConfig's model, cell by cell).
	NoiseHalfWidth float64
}

// PosteriorNash is the Bayes predictor of a two-player zero-sum discounted
// Markov game in the joint-action setting: at every round it plays the
// posterior mean of its own equilibrium policy given everything it has
// observed — the states, both players' actions, its rewards and the
// transitions — under the prior of [RandomDiscounted]: each mean reward
// r(s, a, b) uniform on [0, 1] and each transition row P(·|s, a, b) flat
// Dirichlet. For Bernoulli rewards the posterior is exact and conjugate:
// r(s, a, b) ~ Beta(1 + Σ r, 1 + n − Σ r) over the n rewards seen in that
// cell, P(·|s, a, b) ~ Dirichlet(1 + counts); with NoiseHalfWidth the
// reward posterior is that of uniform noise instead. Each round it draws Samples
// games, solves each by ShapleyValueIteration (in the learner's own
// rewards, itself the row player) and averages the equilibrium policies
// state by state: the minimiser of the expected cross-entropy to the true
// game's equilibrium policy, which an in-context model trained on
// equilibrium labels of games from that prior approaches.
//
// It needs the opponent's action (ObserveJoint; Observe returns an error),
// as learner.PosteriorNash does in matrix games. Policy solves the Samples
// games at its first call in a round: O(K·S²·A·B) per sweep, about
// log(tol·(1−γ)/2γ)/log γ sweeps each. A PosteriorNash is not safe for
// concurrent use.
type PosteriorNash struct {
	cfg       PosteriorNashConfig
	succ, n   []float64 // reward sums and counts per cell (s, a, b)
	moves     []float64 // transition counts per (s, a, b, s')
	policy    [][]float64
	valid     bool
	rounds    int
	rewards   []float64 // scratch: one drawn game
	kernel    []float64
	tolerance float64
	lo, hi    []float64 // NoiseHalfWidth > 0: each cell's feasible means
}

// NewPosteriorNash returns a PosteriorNash at its prior. It returns an
// error wrapping icrl.ErrInvalid that names the bad field, icrl.ErrNilRand
// for a missing Rand, or icrl.ErrTooLarge for a table past icrl.MaxEntries.
func NewPosteriorNash(cfg PosteriorNashConfig) (*PosteriorNash, error) {
	S, A, B := cfg.States, cfg.Actions, cfg.Opponents
	switch {
	case S < 1 || A < 1 || B < 1:
		return nil, fmt.Errorf("%w: PosteriorNash with %d states, %d actions and %d opponent actions: all must be positive", icrl.ErrInvalid, S, A, B)
	case !(cfg.Discount >= 0 && cfg.Discount < 1):
		return nil, fmt.Errorf("%w: PosteriorNash Discount = %v is outside [0, 1)", icrl.ErrInvalid, cfg.Discount)
	case cfg.Samples < 1 || cfg.Samples > MaxPosteriorSamples:
		return nil, fmt.Errorf("%w: PosteriorNash Samples = %d is outside [1, %d]", icrl.ErrInvalid, cfg.Samples, MaxPosteriorSamples)
	case cfg.Rand == nil || nilness.Is(cfg.Rand):
		return nil, fmt.Errorf("%w: PosteriorNash needs Rand", icrl.ErrNilRand)
	case !(cfg.Tolerance >= 0) || math.IsInf(cfg.Tolerance, 0):
		return nil, fmt.Errorf("%w: PosteriorNash Tolerance = %v must be finite and not negative", icrl.ErrInvalid, cfg.Tolerance)
	case !(cfg.NoiseHalfWidth >= 0 && cfg.NoiseHalfWidth <= 0.5):
		return nil, fmt.Errorf("%w: PosteriorNash NoiseHalfWidth = %v is not in [0, ½]", icrl.ErrInvalid, cfg.NoiseHalfWidth)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, "PosteriorNash transition counts", S, A, B, S); err != nil {
		return nil, err
	}
	p := &PosteriorNash{cfg: cfg, tolerance: cfg.Tolerance,
		succ: make([]float64, S*A*B), n: make([]float64, S*A*B), moves: make([]float64, S*A*B*S),
		rewards: make([]float64, S*A*B), kernel: make([]float64, S*A*B*S)}
	if p.tolerance == 0 {
		p.tolerance = DefaultPosteriorTolerance
	}
	if cfg.NoiseHalfWidth > 0 {
		p.lo, p.hi = make([]float64, S*A*B), make([]float64, S*A*B)
		p.resetBounds()
	}
	p.policy = make([][]float64, S)
	for s := range p.policy {
		p.policy[s] = make([]float64, A)
	}
	return p, nil
}

// States returns S.
func (p *PosteriorNash) States() int { return p.cfg.States }

// Opponents returns the opponent's number of actions B.
func (p *PosteriorNash) Opponents() int { return p.cfg.Opponents }

// Rounds returns the number of rounds observed since the last Reset.
func (p *PosteriorNash) Rounds() int { return p.rounds }

// Reset returns the learner to its prior.
func (p *PosteriorNash) Reset() {
	clear(p.succ)
	clear(p.n)
	clear(p.moves)
	p.resetBounds()
	p.valid, p.rounds = false, 0
}

// resetBounds sets every cell's feasible means to [0, 1].
func (p *PosteriorNash) resetBounds() {
	for c := range p.lo {
		p.lo[c], p.hi[c] = 0, 1
	}
}

// Observe returns an error: the learner needs the opponent's action.
func (p *PosteriorNash) Observe(s, action int, reward float64, next int) error {
	return fmt.Errorf("%w: markov.PosteriorNash needs the opponent's action (ObserveJoint, under learner.JointActions)", icrl.ErrInvalid)
}

// ObserveJoint records one round: the state s, the learner's action, the
// opponent's, its reward in [0, 1] and the next state. It returns an error
// wrapping icrl.ErrOutOfRange or icrl.ErrNotFinite, changing nothing, for
// an index out of range or a reward that is not finite or outside [0, 1],
// or, with NoiseHalfWidth, impossible after the cell's earlier rewards.
func (p *PosteriorNash) ObserveJoint(s, action, opponent int, reward float64, next int) error {
	S, A, B := p.cfg.States, p.cfg.Actions, p.cfg.Opponents
	switch {
	case uint(s) >= uint(S) || uint(next) >= uint(S):
		return fmt.Errorf("%w: PosteriorNash state %d or next state %d outside [0, %d)", icrl.ErrOutOfRange, s, next, S)
	case uint(action) >= uint(A) || uint(opponent) >= uint(B):
		return fmt.Errorf("%w: PosteriorNash action %d or opponent's action %d outside [0, %d) × [0, %d)", icrl.ErrOutOfRange, action, opponent, A, B)
	case math.IsNaN(reward) || math.IsInf(reward, 0):
		return fmt.Errorf("%w: PosteriorNash reward %v", icrl.ErrNotFinite, reward)
	case reward < 0 || reward > 1:
		return fmt.Errorf("%w: PosteriorNash reward %v outside [0, 1]", icrl.ErrOutOfRange, reward)
	}
	c := (s*A+action)*B + opponent
	if h := p.cfg.NoiseHalfWidth; h > 0 {
		lo, hi := max(p.lo[c], reward-h, reward/2), min(p.hi[c], reward+h, (1+reward)/2)
		if !(lo <= hi) {
			return fmt.Errorf("%w: PosteriorNash reward %v in state %d, cell (%d, %d) is impossible under noise of half-width %v after the earlier ones", icrl.ErrOutOfRange, reward, s, action, opponent, h)
		}
		p.lo[c], p.hi[c] = lo, hi
	}
	p.succ[c] += reward
	p.n[c]++
	p.moves[c*S+next]++
	p.valid = false
	p.rounds++
	return nil
}

// Policy returns the posterior mean of the learner's equilibrium policy in
// state s. The slice belongs to the learner and is valid until the next
// ObserveJoint or Reset. It panics if s is out of range or a drawn game
// cannot be solved within 10⁵ sweeps (it always can: the Shapley operator
// is a γ-contraction).
func (p *PosteriorNash) Policy(s int) []float64 {
	if uint(s) >= uint(p.cfg.States) {
		panic(fmt.Sprintf("markov: PosteriorNash.Policy state %d out of range [0, %d)", s, p.cfg.States))
	}
	if !p.valid {
		if err := p.solve(); err != nil {
			panic(fmt.Sprintf("markov: PosteriorNash: %v", err))
		}
		p.valid = true
	}
	return p.policy[s]
}

// solve averages the equilibrium policies of Samples games drawn from the
// posterior.
func (p *PosteriorNash) solve() error {
	S, A, B := p.cfg.States, p.cfg.Actions, p.cfg.Opponents
	for s := range p.policy {
		clear(p.policy[s])
	}
	rng := p.cfg.Rand
	for range p.cfg.Samples {
		for c := range p.rewards {
			if h := p.cfg.NoiseHalfWidth; h > 0 {
				p.rewards[c] = randdist.UniformNoiseMean(p.lo[c], p.hi[c], h, int(p.n[c]), rng)
			} else {
				p.rewards[c] = randdist.Beta(1+p.succ[c], 1+p.n[c]-p.succ[c], rng)
			}
			row := p.kernel[c*S : (c+1)*S]
			sum := 0.0
			for k := range row {
				row[k] = randdist.Gamma(1+p.moves[c*S+k], rng)
				sum += row[k]
			}
			for k := range row {
				row[k] /= sum
			}
		}
		r, err := tensor.FromData(p.rewards, S, A, B)
		if err != nil {
			return err
		}
		kt, err := tensor.FromData(p.kernel, S, A*B, S)
		if err != nil {
			return err
		}
		k, err := NewDenseKernel(kt)
		if err != nil {
			return err
		}
		g, err := NewDiscounted(r, k, p.cfg.Discount)
		if err != nil {
			return err
		}
		res, err := ShapleyValueIteration(g, p.tolerance, 100000)
		if err != nil {
			return err
		}
		for s, x := range res.X {
			for a, v := range x {
				p.policy[s][a] += v / float64(p.cfg.Samples)
			}
		}
	}
	return nil
}
