package learner

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/icrl-go/icrl/game"
)

// Feedback selects what the players observe in [SelfPlay].
type Feedback int

const (
	// Bandit feedback: each player observes its own sampled action and its
	// sampled reward (the default, and the setting of the papers).
	Bandit Feedback = iota
	// FullInformation feedback: each player observes the expected reward of
	// every one of its actions against the opponent's current mixed
	// strategy. Both learners must implement FullInformationLearner.
	FullInformation
)

// String returns the feedback's name.
func (f Feedback) String() string {
	switch f {
	case Bandit:
		return "bandit"
	case FullInformation:
		return "full-information"
	}
	return fmt.Sprintf("Feedback(%d)", int(f))
}

// SelfPlayConfig configures [SelfPlay]. The zero value is not usable: Rounds
// must be positive.
type SelfPlayConfig struct {
	// Rounds is the number of rounds T.
	Rounds int
	// Feedback is Bandit (default) or FullInformation.
	Feedback Feedback
	// Noise draws the bandit rewards; nil means game.Bernoulli.
	Noise game.Noise
	// Checkpoints lists rounds t in [1, Rounds] at which to record the
	// duality gaps of the last and the average iterate, in increasing
	// order. Round Rounds is always evaluated (it is the result's LastGap
	// and AverageGap) and need not be listed.
	Checkpoints []int
	// Record keeps both players' histories in the result.
	Record bool
}

// Checkpoint holds the duality gaps at one round of [SelfPlay].
type Checkpoint struct {
	// Round is the round t.
	Round int
	// LastGap is the duality gap of (x_t, y_t), the policies played at
	// round t.
	LastGap float64
	// AverageGap is the duality gap of the average policies
	// ((1/t)Σ_{s≤t} x_s, (1/t)Σ_{s≤t} y_s).
	AverageGap float64
}

// SelfPlayResult is the outcome of [SelfPlay].
type SelfPlayResult struct {
	// LastX and LastY are x_T and y_T, the policies played at the final
	// round (spec resolution A18: the theorems' "last iterate").
	LastX, LastY []float64
	// AverageX and AverageY are the average policies over the T rounds.
	AverageX, AverageY []float64
	// LastGap and AverageGap are their duality gaps (in the game's payoff
	// units).
	LastGap, AverageGap float64
	// Checkpoints holds the gaps at the configured rounds, in order, ending
	// with round T.
	Checkpoints []Checkpoint
	// Row and Col are the histories each player saw, if Record was set:
	// its own action and its own reward (the row player's reward r_t for
	// the row player, 1 − r_t for the column player). Under
	// FullInformation feedback the actions are still sampled from the
	// policies and the recorded reward is the mean A[a_t][b_t] (or one
	// minus it).
	Row, Col []Step
}

// SelfPlay plays the zero-sum game g for cfg.Rounds rounds between row (the
// maximiser) and col (the minimiser) and reports the duality gaps of the last
// and the average iterates.
//
// Each round t, both players' policies x_t and y_t are read, actions
// a_t ~ x_t and b_t ~ y_t are drawn from rng, and the row reward
// r_t ~ noise(A[a_t][b_t]) is drawn from rng, in that order; the row player
// then observes (a_t, r_t) and the column player (b_t, 1 − r_t). The whole
// run is therefore deterministic given the state of rng. Under
// FullInformation feedback the players instead observe Ay_t and 1 − x_tᵀA.
//
// The game's payoffs must lie in [0,1] (use [game.Rescale]). SelfPlay returns
// an error if they do not, if the game or a learner is nil, if the learners'
// action counts do not match the game, if cfg is invalid, if a learner's
// policy leaves the simplex, or if a learner rejects an observation. Every
// round checks that each policy has the right length and entries in [0,1];
// the full check of game.CheckDistribution (the sum is one) runs at the
// checkpoints. Neither learner is reset first.
//
// The cost is O(rows + cols) per round plus the learners' own cost, and
// O(rows·cols) per checkpoint. Rounds do not allocate.
func SelfPlay(g *game.ZeroSum, row, col Learner, cfg SelfPlayConfig, rng *rand.Rand) (*SelfPlayResult, error) {
	if g == nil {
		return nil, errors.New("learner: self-play needs a game, got a nil game")
	}
	if row == nil || col == nil {
		return nil, errors.New("learner: self-play got a nil learner")
	}
	m, n := g.Dims()
	if !g.InUnit() {
		lo, hi := g.Bounds()
		return nil, fmt.Errorf("learner: self-play needs payoffs in [0,1], the game spans [%v, %v]; use game.Rescale", lo, hi)
	}
	if cfg.Rounds <= 0 {
		return nil, fmt.Errorf("learner: self-play needs a positive number of rounds, got %d", cfg.Rounds)
	}
	if rng == nil {
		return nil, errors.New("learner: self-play needs a random source")
	}
	for k, c := range cfg.Checkpoints {
		if c < 1 || c > cfg.Rounds || (k > 0 && c <= cfg.Checkpoints[k-1]) {
			return nil, fmt.Errorf("learner: checkpoint %d at round %d is not increasing within [1, %d]", k, c, cfg.Rounds)
		}
	}
	if err := game.CheckDistribution("row player's initial policy", row.Policy(), m); err != nil {
		return nil, err
	}
	if err := game.CheckDistribution("column player's initial policy", col.Policy(), n); err != nil {
		return nil, err
	}
	var frow, fcol FullInformationLearner
	switch cfg.Feedback {
	case Bandit:
	case FullInformation:
		var ok bool
		if frow, ok = row.(FullInformationLearner); !ok {
			return nil, fmt.Errorf("learner: row learner %T does not accept full-information feedback", row)
		}
		if fcol, ok = col.(FullInformationLearner); !ok {
			return nil, fmt.Errorf("learner: column learner %T does not accept full-information feedback", col)
		}
	default:
		return nil, fmt.Errorf("learner: unknown feedback %v", cfg.Feedback)
	}
	noise := cfg.Noise
	if noise == nil {
		noise = game.Bernoulli{}
	}

	checkpoints := cfg.Checkpoints
	if len(checkpoints) == 0 || checkpoints[len(checkpoints)-1] != cfg.Rounds {
		checkpoints = append(slices.Clone(checkpoints), cfg.Rounds)
	}
	res := &SelfPlayResult{
		AverageX:    make([]float64, m),
		AverageY:    make([]float64, n),
		Checkpoints: make([]Checkpoint, 0, len(checkpoints)),
	}
	if cfg.Record {
		res.Row = make([]Step, 0, cfg.Rounds)
		res.Col = make([]Step, 0, cfg.Rounds)
	}
	sumX := make([]float64, m)
	sumY := make([]float64, n)
	var rowRewards, colRewards []float64
	if cfg.Feedback == FullInformation {
		rowRewards = make([]float64, m)
		colRewards = make([]float64, n)
	}
	next := 0
	for t := 1; t <= cfg.Rounds; t++ {
		x, y := row.Policy(), col.Policy()
		okX := accumulate(sumX, x)
		okY := accumulate(sumY, y)
		if !okX {
			if err := game.CheckDistribution("row player's policy", x, m); err != nil {
				return nil, fmt.Errorf("round %d: %w", t, err)
			}
		}
		if !okY {
			if err := game.CheckDistribution("column player's policy", y, n); err != nil {
				return nil, fmt.Errorf("round %d: %w", t, err)
			}
		}
		if t == checkpoints[next] {
			if err := game.CheckDistribution("row player's policy", x, m); err != nil {
				return nil, fmt.Errorf("round %d: %w", t, err)
			}
			if err := game.CheckDistribution("column player's policy", y, n); err != nil {
				return nil, fmt.Errorf("round %d: %w", t, err)
			}
			for i := range res.AverageX {
				res.AverageX[i] = sumX[i] / float64(t)
			}
			for j := range res.AverageY {
				res.AverageY[j] = sumY[j] / float64(t)
			}
			res.Checkpoints = append(res.Checkpoints, Checkpoint{
				Round:      t,
				LastGap:    g.Gap(x, y),
				AverageGap: g.Gap(res.AverageX, res.AverageY),
			})
			if t == cfg.Rounds {
				res.LastX, res.LastY = slices.Clone(x), slices.Clone(y)
			}
			next++
		}
		a := game.SampleCategorical(x, rng)
		b := game.SampleCategorical(y, rng)
		var r float64
		if cfg.Feedback == Bandit {
			r = noise.Draw(g.At(a, b), rng)
		} else {
			r = g.At(a, b)
			g.RowPayoffs(rowRewards, y)
			g.ColPayoffs(colRewards, x)
			for j := range colRewards {
				colRewards[j] = 1 - colRewards[j]
			}
		}
		if cfg.Record {
			res.Row = append(res.Row, Step{Action: a, Reward: r})
			res.Col = append(res.Col, Step{Action: b, Reward: 1 - r})
		}
		if cfg.Feedback == Bandit {
			if err := row.Observe(a, r); err != nil {
				return nil, fmt.Errorf("round %d, row player: %w", t, err)
			}
			if err := col.Observe(b, 1-r); err != nil {
				return nil, fmt.Errorf("round %d, column player: %w", t, err)
			}
		} else {
			if err := frow.ObserveRewards(rowRewards); err != nil {
				return nil, fmt.Errorf("round %d, row player: %w", t, err)
			}
			if err := fcol.ObserveRewards(colRewards); err != nil {
				return nil, fmt.Errorf("round %d, column player: %w", t, err)
			}
		}
	}
	last := res.Checkpoints[len(res.Checkpoints)-1]
	res.LastGap, res.AverageGap = last.LastGap, last.AverageGap
	return res, nil
}

// accumulate adds p to sum. It reports false if p has the wrong length, an
// entry outside [0, 1] (NaN included) or a zero total, in which case sum is
// unspecified; the sum-to-one tolerance is checked at the checkpoints.
func accumulate(sum, p []float64) (ok bool) {
	if len(p) != len(sum) {
		return false
	}
	var total float64
	ok = true
	for i, v := range p {
		if !(v >= 0 && v <= 1) {
			ok = false
		}
		total += v
		sum[i] += v
	}
	return ok && total > 0
}
