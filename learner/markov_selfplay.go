package learner

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
)

// MarkovSelfPlayConfig configures [MarkovSelfPlay]. The zero value is not
// usable: Rounds must be positive.
type MarkovSelfPlayConfig struct {
	// Rounds is the number of rounds T.
	Rounds int
	// Start is the initial state s_1 (default 0).
	Start int
	// Noise draws the bandit rewards; nil means game.Bernoulli. Use
	// game.Exact for the deterministic rewards of the spec's simulations.
	Noise game.Noise
	// Checkpoints lists rounds t in [1, Rounds] at which to record the
	// Markov duality gap of the last iterate, in increasing order. Round
	// Rounds is always evaluated (it is the result's Gap) and need not be
	// listed.
	Checkpoints []int
	// Record keeps both players' trajectories in the result.
	Record bool
}

// MarkovCheckpoint holds the duality gaps at one round of [MarkovSelfPlay].
type MarkovCheckpoint struct {
	// Round is the round t.
	Round int
	// Gap is the Markov duality gap max_s Gap^s(x_t, y_t) of the
	// stationary policies held at round t (spec in-context-games-omd
	// §1.6), in the game's discounted-value units (at most 1/(1−γ)).
	Gap float64
	// StateGaps holds the per-state gaps
	// Gap^s = max_{x'} V^s_{x',y_t} − min_{y'} V^s_{x_t,y'}.
	StateGaps []float64
}

// MarkovSelfPlayResult is the outcome of [MarkovSelfPlay].
type MarkovSelfPlayResult struct {
	// LastX and LastY are the stationary policies the players held at the
	// final round T, the last iterate (spec resolution A18).
	LastX, LastY markov.Stationary
	// Gap and StateGaps are the Markov duality gap of (LastX, LastY) and
	// its per-state values.
	Gap       float64
	StateGaps []float64
	// Checkpoints holds the gaps at the configured rounds, in order, ending
	// with round T.
	Checkpoints []MarkovCheckpoint
	// Visits counts the rounds played in each state.
	Visits []int
	// Row and Col are the trajectories each player saw, if Record was set:
	// the state, its own action and its own reward (r_t for the row
	// player, 1 − r_t for the column player). The next state of round t is
	// the State of round t+1 (the last round's next state is Final).
	Row, Col []Step
	// Final is the state s_{T+1} reached after the last round.
	Final int
}

// MarkovSelfPlay plays the discounted zero-sum Markov game g for cfg.Rounds
// rounds between row (the maximiser) and col (the minimiser), both with
// uncoupled bandit feedback, and reports the Markov duality gap of the last
// iterate at the checkpoints (in-context-games-omd §3.1–3.2, the dynamics of
// Algorithm 1 of §4.3).
//
// Starting from s_1 = cfg.Start, each round t draws a_t ~ row.Policy(s_t) and
// b_t ~ col.Policy(s_t) from rng, then the reward r_t and the next state
// s_{t+1} through g.Step (reward first, then the transition), in that order;
// the row player then observes (s_t, a_t, r_t, s_{t+1}) and the column
// player (s_t, b_t, 1 − r_t, s_{t+1}). The run is therefore deterministic
// given the state of rng. At a checkpoint t, before round t's draws, the
// stationary policies both players hold (the ones they play at round t) are
// evaluated with g.Gap.
//
// The game's rewards must lie in [0,1]. MarkovSelfPlay returns an error if
// they do not, if the game, a learner or rng is nil, if the learners'
// stationary policies do not cover the game's states with distributions
// over its action counts, if cfg is invalid (Rounds < 1, Start out of range, checkpoints not
// increasing within [1, Rounds]), or if a learner rejects an observation.
// Every round checks the length and range of the two policies played; the
// full check (the sums) runs at the checkpoints. Neither learner is reset
// first.
//
// The cost is O(A + B) per round plus the learners' own cost (MarkovOMD:
// O(A log A + B log B)), and per checkpoint that of g.Gap (two best
// responses: value iterations or linear solves over the S states) plus a
// copy of both stationary policies. Rounds do not allocate (with Record, the
// trajectories are allocated once, for T steps each).
func MarkovSelfPlay(g *markov.Discounted, row, col MarkovLearner, cfg MarkovSelfPlayConfig, rng *rand.Rand) (*MarkovSelfPlayResult, error) {
	if g == nil {
		return nil, errors.New("learner: Markov self-play needs a game, got a nil game")
	}
	if row == nil || col == nil {
		return nil, errors.New("learner: Markov self-play got a nil learner")
	}
	if rng == nil {
		return nil, errors.New("learner: Markov self-play needs a random source")
	}
	if !g.InUnit() {
		return nil, errors.New("learner: Markov self-play needs rewards in [0,1]; the game has a reward outside")
	}
	S, A, B := g.Dims()
	if cfg.Rounds <= 0 {
		return nil, fmt.Errorf("learner: Markov self-play needs a positive number of rounds, got Rounds = %d", cfg.Rounds)
	}
	if cfg.Start < 0 || cfg.Start >= S {
		return nil, fmt.Errorf("learner: Markov self-play start state Start = %d out of range [0, %d)", cfg.Start, S)
	}
	for k, c := range cfg.Checkpoints {
		if c < 1 || c > cfg.Rounds || (k > 0 && c <= cfg.Checkpoints[k-1]) {
			return nil, fmt.Errorf("learner: Markov self-play checkpoint %d at round %d is not increasing within [1, %d]", k, c, cfg.Rounds)
		}
	}
	for _, p := range []struct {
		name    string
		pol     [][]float64
		actions int
	}{{"row player", row.StationaryPolicy(), A}, {"column player", col.StationaryPolicy(), B}} {
		if len(p.pol) != S {
			return nil, fmt.Errorf("learner: Markov self-play: the %s's policy has %d states, the game %d", p.name, len(p.pol), S)
		}
		for s, d := range p.pol {
			if err := game.CheckDistribution(fmt.Sprintf("%s's initial policy in state %d", p.name, s), d, p.actions); err != nil {
				return nil, fmt.Errorf("learner: Markov self-play: %w", err)
			}
		}
	}
	noise := cfg.Noise
	if noise == nil {
		noise = game.Bernoulli{}
	}
	checkpoints := cfg.Checkpoints
	if len(checkpoints) == 0 || checkpoints[len(checkpoints)-1] != cfg.Rounds {
		checkpoints = append(slices.Clone(checkpoints), cfg.Rounds)
	}
	res := &MarkovSelfPlayResult{
		Checkpoints: make([]MarkovCheckpoint, 0, len(checkpoints)),
		Visits:      make([]int, S),
	}
	if cfg.Record {
		res.Row = make([]Step, 0, cfg.Rounds)
		res.Col = make([]Step, 0, cfg.Rounds)
	}
	s, next := cfg.Start, 0
	for t := 1; t <= cfg.Rounds; t++ {
		if t == checkpoints[next] {
			x, y := markov.Stationary(row.StationaryPolicy()), markov.Stationary(col.StationaryPolicy())
			per, gap, err := g.Gap(x, y)
			if err != nil {
				return nil, fmt.Errorf("learner: Markov self-play round %d: %w", t, err)
			}
			res.Checkpoints = append(res.Checkpoints, MarkovCheckpoint{Round: t, Gap: gap, StateGaps: per})
			if t == cfg.Rounds {
				res.LastX, res.LastY = x, y
				res.Gap, res.StateGaps = gap, slices.Clone(per)
			}
			next++
		}
		x, y := row.Policy(s), col.Policy(s)
		if !inUnit(x, A) {
			return nil, fmt.Errorf("learner: Markov self-play round %d: row player's policy in state %d is not a distribution over %d actions: %v", t, s, A, x)
		}
		if !inUnit(y, B) {
			return nil, fmt.Errorf("learner: Markov self-play round %d: column player's policy in state %d is not a distribution over %d actions: %v", t, s, B, y)
		}
		a := game.SampleCategorical(x, rng)
		b := game.SampleCategorical(y, rng)
		r, sn := g.StepNoise(s, a, b, noise, rng)
		if cfg.Record {
			res.Row = append(res.Row, Step{State: s, Action: a, Reward: r})
			res.Col = append(res.Col, Step{State: s, Action: b, Reward: 1 - r})
		}
		if err := row.Observe(s, a, r, sn); err != nil {
			return nil, fmt.Errorf("learner: Markov self-play round %d, row player: %w", t, err)
		}
		if err := col.Observe(s, b, 1-r, sn); err != nil {
			return nil, fmt.Errorf("learner: Markov self-play round %d, column player: %w", t, err)
		}
		res.Visits[s]++
		s = sn
	}
	res.Final = s
	return res, nil
}

// inUnit reports whether p has length n, entries in [0,1] (NaN excluded) and
// a positive total: enough for sampling; the sum is checked at checkpoints.
func inUnit(p []float64, n int) bool {
	if len(p) != n {
		return false
	}
	var total float64
	for _, v := range p {
		if !(v >= 0 && v <= 1) {
			return false
		}
		total += v
	}
	return total > 0
}
