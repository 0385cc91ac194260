package metalearn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// TrackingConfig parameterises the finite-agent 1-D linear-quadratic
// tracking game of multi-agent-meta-rl App. F.3 (App. F.3). Zero values
// mean the defaults; the defaults marked (paper) are the paper's, the
// others are this library's choices, which the paper leaves open.
type TrackingConfig struct {
	// Players is the number of agents N ≥ 1 (default 4, paper).
	Players int
	// Positions is the odd number of positions per agent; the positions
	// are −R, …, R with R = (Positions−1)/2 (default 5: −2, …, 2, paper).
	Positions int
	// Kappa is the tracking weight κ > 0 (default 0.5, paper).
	Kappa float64
	// Sigma is the noise scale σ > 0 (default 1, paper).
	Sigma float64
	// Dt is the time step Δt > 0 (default 1, paper).
	Dt float64
	// Drift is the drift magnitude c of the local dynamics, the quantity
	// the paper perturbs to make similar games (default 1, inferred; any
	// finite non-zero value, negative allowed).
	Drift float64
	// NoiseRadius is the radius of the noise support {−NoiseRadius, …,
	// NoiseRadius} (default 2, paper).
	NoiseRadius int
	// MixtureDrift, when true, moves an agent by the displacement c·a·Δt
	// in expectation: by ⌊c·a·Δt⌋ or ⌈c·a·Δt⌉ with the probabilities that
	// give that mean (App. F.3's "distributional mixture" alternative,
	// inferred). The default (false) moves it by round(c·a·Δt), under which
	// drifts with the same rounded displacement give the same game.
	MixtureDrift bool
}

// Defaults of TrackingConfig and the size limit of Tracking.
const (
	defaultTrackingPlayers   = 4
	defaultTrackingPositions = 5
	defaultTrackingKappa     = 0.5
	defaultTrackingSigma     = 1
	defaultTrackingDt        = 1
	defaultTrackingDrift     = 1
	defaultTrackingNoise     = 2

	// maxTrackingEntries bounds the reward and potential tables,
	// S·J·(N+1) floats (1 GiB); the default game has 625·81·5 ≈ 2.5e5
	// (2 MB).
	maxTrackingEntries = 1 << 27

	// maxTrackingNoise bounds NoiseRadius (the noise pmf is stored).
	maxTrackingNoise = 1 << 20
)

// withDefaults returns c with its zero fields replaced by the defaults.
func (c TrackingConfig) withDefaults() TrackingConfig {
	if c.Players == 0 {
		c.Players = defaultTrackingPlayers
	}
	if c.Positions == 0 {
		c.Positions = defaultTrackingPositions
	}
	if c.Kappa == 0 {
		c.Kappa = defaultTrackingKappa
	}
	if c.Sigma == 0 {
		c.Sigma = defaultTrackingSigma
	}
	if c.Dt == 0 {
		c.Dt = defaultTrackingDt
	}
	if c.Drift == 0 {
		c.Drift = defaultTrackingDrift
	}
	if c.NoiseRadius == 0 {
		c.NoiseRadius = defaultTrackingNoise
	}
	return c
}

// validate checks a configuration whose defaults have been applied and
// returns the numbers of states and joint actions.
func (c TrackingConfig) validate() (states, joint int, err error) {
	switch {
	case c.Players < 1:
		return 0, 0, fmt.Errorf("%w: tracking game: Players = %d must be ≥ 1", icrl.ErrInvalid, c.Players)
	case c.Positions < 1 || c.Positions%2 == 0:
		return 0, 0, fmt.Errorf("%w: tracking game: Positions = %d must be odd and positive", icrl.ErrInvalid, c.Positions)
	case !(c.Kappa >= 0) || math.IsInf(c.Kappa, 0):
		return 0, 0, fmt.Errorf("%w: tracking game: Kappa = %v must be finite and non-negative", icrl.ErrInvalid, c.Kappa)
	case !(c.Sigma > 0) || math.IsInf(c.Sigma, 0):
		return 0, 0, fmt.Errorf("%w: tracking game: Sigma = %v must be finite and positive", icrl.ErrInvalid, c.Sigma)
	case !(c.Dt > 0) || math.IsInf(c.Dt, 0):
		return 0, 0, fmt.Errorf("%w: tracking game: Dt = %v must be finite and positive", icrl.ErrInvalid, c.Dt)
	case math.IsNaN(c.Drift) || math.IsInf(c.Drift, 0) || math.Abs(c.Drift*c.Dt) > 1e9:
		return 0, 0, fmt.Errorf("%w: tracking game: Drift = %v must be finite (and |Drift·Dt| ≤ 1e9)", icrl.ErrInvalid, c.Drift)
	case c.NoiseRadius < 0 || c.NoiseRadius > maxTrackingNoise:
		return 0, 0, fmt.Errorf("%w: tracking game: NoiseRadius = %d outside [0, %d]", icrl.ErrInvalid, c.NoiseRadius, maxTrackingNoise)
	}
	states, joint = 1, 1
	for range c.Players {
		states *= c.Positions
		joint *= trackingActions
		if states > maxTrackingEntries || joint > maxTrackingEntries || states > maxTrackingEntries/joint/(c.Players+1) {
			return 0, 0, fmt.Errorf("%w: tracking game with %d players and %d positions is too large: the rewards need more than %d entries", icrl.ErrInvalid, c.Players, c.Positions, maxTrackingEntries)
		}
	}
	return states, joint, nil
}

// trackingActions is the number of actions {−1, 0, 1} of an agent.
const trackingActions = 3

// TrackingGame is the finite-agent 1-D linear-quadratic tracking game of
// multi-agent-meta-rl App. F.3, a discretisation of the
// mean-field LQ game of its references [37, 46, 52], in tabular form with
// factored transitions (a markov.ProductKernel).
//
// # Model
//
// Agent i has a position s_i ∈ {−R, …, R} and an action a_i ∈ {−1, 0, 1}.
// The paper's dynamics s_{t+1,i} = s_{t,i} + a_{t,i}Δt + σε_t√Δt, with "ε_t
// i.i.d. on {−2, …, 2} following a normal distribution", and its drift
// perturbation leave details open; this library's defaults are:
//
//	s'_i = clip(s_i + round(c·a_i·Δt) + ε_i, −R, R),
//	P(ε_i = x) ∝ exp(−x²/(2σ²Δt)),  x ∈ {−NoiseRadius, …, NoiseRadius},
//
// independently per agent (the discretised N(0, σ²Δt) of the increment
// σε√Δt; with the paper's σ = Δt = 1 the pmf is ∝ exp(−x²/2)), where c is
// the drift magnitude (1 in the base game) and round rounds half away from
// zero (see TrackingConfig.MixtureDrift for the alternative). The joint
// transition is the product of the agents' local transitions. The rewards
// are the paper's,
//
//	r_i(s, a) = (−½a_i² − (κ/2)(μ − s_i)²)Δt,  μ = (1/N) Σ_j s_j,
//
// time-homogeneous, with no terminal cost. They are ≤ 0, outside the
// [0, 1] of the theory (the algorithms still run; bounds that need
// Q ≥ 0 do not apply).
//
// # Potential
//
// Let φ(s, a) = −½Δt Σ_j a_j² − (κ/2)(1 − 1/N)Δt Σ_j (s_j − μ)². Then
// r_i − φ does not depend on (s_i, a_i). The action part is clear:
// −½a_i²Δt appears in both. For the position part write m = Σ_{j≠i} s_j and
// q = Σ_{j≠i} s_j², so μ = (s_i + m)/N and Σ_j (s_j − μ)² = s_i² + q −
// (s_i + m)²/N. Then
//
//	(s_i − μ)² − (1 − 1/N) Σ_j (s_j − μ)²
//	  = s_i²(1 − 1/N)² − 2s_i m(1 − 1/N)/N + m²/N²
//	    − (1 − 1/N)(s_i²(1 − 1/N) − 2s_i m/N − m²/N + q)
//	  = m²/N² + (1 − 1/N)(m²/N − q),
//
// in which the s_i² terms and the s_i m terms cancel. So r_i(s, a) −
// φ(s, a) = g_i(s_{−i}, a_{−i}) (checked on every entry by the tests), and
// the static stage game is an exact potential game with potential φ. Since
// agent i's transition depends only on (s_i, a_i), a unilateral change of
// agent i's behaviour changes r_i and φ by the same amount along every
// realised trajectory, and the expected returns by the same amount whenever
// the law of the other agents' path (s_{−i}, a_{−i}) does not depend on
// agent i, e.g. when every agent's policy depends only on its own position.
// For Markov policies on the joint state, the other agents may react to
// s_i, and the identity E[Σ r_i] − E[Σ φ] = E[Σ g_i] need not be invariant:
// the paper's "Markov potential game" claim is then unproven (the paper asserts it), and
// the team game [TrackingGame.EpisodicTeam] with reward φ is the exact MPG
// surrogate.
//
// # Indexing and memory
//
// States and joint actions are flat mixed-radix indices with agent 0 most
// significant, as markov.Episodic joint actions: state s = Σ_i p_i·P^{N−1−i}
// with p_i = s_i + R ∈ [0, P), P = Positions, and joint action j with
// action index a_i + 1 ∈ {0, 1, 2}. The tables hold S·J·(N+1) rewards and
// potentials; the transitions are the product of the agents' local
// kernels (3·P² floats), so the default game (S = 625, J = 81) takes about
// 2 MB instead of the 253 MB of its dense S·J·S transition table
// ([TrackingGame.DenseTransitions] builds that table on demand).
// Construction costs O(S·J·N) time.
//
// A TrackingGame must not be modified (games made by [PerturbedTracking]
// share tables); it is then safe for concurrent use.
type TrackingGame struct {
	// Config is the configuration with the defaults applied.
	Config TrackingConfig
	// Players is the number of agents N.
	Players int
	// Positions is the number of positions P per agent; Radius is R.
	Positions, Radius int
	// States is the number of joint states S = P^N.
	States int
	// Actions is the number of actions per agent, 3: a_i ∈ {−1, 0, 1}.
	Actions int
	// Joint is the number of joint actions J = 3^N.
	Joint int
	// Rewards.At(s, j, i) is r_i(s, j): an S × J × N array.
	Rewards *tensor.Dense[float64]
	// Potential[s][j] is φ(s, j).
	Potential [][]float64
	// Kernel is the time-homogeneous transition law P(s'|s, j), the
	// product of the agents' local kernels Local.
	Kernel *markov.ProductKernel
	// Noise[x+NoiseRadius] is P(ε = x).
	Noise []float64
	// Local.At(a+1, p, p') is an agent's local transition probability
	// from position index p to p' under action a (the same for every
	// agent): a 3 × P × P array.
	Local *tensor.Dense[float64]
}

// Tracking returns the linear-quadratic tracking game of App. F.3 with the
// configuration cfg (zero fields take the defaults of [TrackingConfig]).
// It returns an error naming the bad value if a field is invalid (Players
// or NoiseRadius negative, Positions even or negative, Kappa negative,
// Sigma or Dt negative, a non-finite value) or the reward tables would
// have more than 2^27 entries. The default game takes about 2 MB and a few
// milliseconds to build; see [TrackingGame].
func Tracking(cfg TrackingConfig) (*TrackingGame, error) {
	cfg = cfg.withDefaults()
	states, joint, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	t, err := newTrackingShell(cfg, states, joint)
	if err != nil {
		return nil, err
	}
	t.Rewards, t.Potential = trackingRewards(t)
	return t, nil
}

// newTrackingShell returns a TrackingGame with everything but the reward
// tables.
func newTrackingShell(cfg TrackingConfig, states, joint int) (*TrackingGame, error) {
	t := &TrackingGame{
		Config:    cfg,
		Players:   cfg.Players,
		Positions: cfg.Positions,
		Radius:    (cfg.Positions - 1) / 2,
		States:    states,
		Actions:   trackingActions,
		Joint:     joint,
	}
	// Noise pmf ∝ exp(−x²/(2σ²Δt)).
	t.Noise = make([]float64, 2*cfg.NoiseRadius+1)
	var sum float64
	for k := range t.Noise {
		x := float64(k - cfg.NoiseRadius)
		t.Noise[k] = math.Exp(-x * x / (2 * cfg.Sigma * cfg.Sigma * cfg.Dt))
		sum += t.Noise[k]
	}
	for k := range t.Noise {
		t.Noise[k] /= sum
	}
	// Local kernels.
	P := t.Positions
	local, err := tensor.New[float64](trackingActions, P, P)
	if err != nil {
		return nil, fmt.Errorf("%w: tracking game: %v", icrl.ErrInvalid, err)
	}
	t.Local = local
	for ai := range trackingActions {
		a := float64(ai - 1)
		d := cfg.Drift * a * cfg.Dt
		// Displacements and their probabilities.
		var moves []int
		var probs []float64
		if cfg.MixtureDrift {
			lo := math.Floor(d)
			frac := d - lo
			moves = []int{int(lo), int(lo) + 1}
			probs = []float64{1 - frac, frac}
		} else {
			moves = []int{int(math.Round(d))}
			probs = []float64{1}
		}
		for p := range P {
			row := t.Local.Row(ai, p)
			for m, move := range moves {
				if probs[m] == 0 {
					continue
				}
				for k, w := range t.Noise {
					// Positions are clipped to [−R, R] (index [0, P−1]).
					q := min(max(p+move+k-cfg.NoiseRadius, 0), P-1)
					row[q] += probs[m] * w
				}
			}
		}
	}
	laws := make([]*tensor.Dense[float64], t.Players)
	for i := range laws {
		laws[i] = t.Local
	}
	k, err := markov.NewProductKernel(laws)
	if err != nil {
		return nil, fmt.Errorf("metalearn: tracking game: %w", err)
	}
	t.Kernel = k
	return t, nil
}

// trackingRewards returns the S × J × N reward table and the potential
// table [s][j]. The cost is O(S·J·N).
func trackingRewards(t *TrackingGame) (*tensor.Dense[float64], [][]float64) {
	N, S, J := t.Players, t.States, t.Joint
	kappa, dt := t.Config.Kappa, t.Config.Dt
	rew, _ := tensor.New[float64](S, J, N) // sizes validated by Tracking
	pot := make([][]float64, S)
	pflat := make([]float64, S*J)
	pos := make([]int, N)
	act := make([]int, N)
	for s := range S {
		t.StatePositions(s, pos)
		var mu float64
		for _, p := range pos {
			mu += float64(p)
		}
		mu /= float64(N)
		var spread float64
		for _, p := range pos {
			d := float64(p) - mu
			spread += d * d
		}
		pot[s] = pflat[s*J : (s+1)*J : (s+1)*J]
		for j := range J {
			t.JointActions(j, act)
			r := rew.Row(s, j)
			var effort float64
			for i, a := range act {
				d := mu - float64(pos[i])
				r[i] = (-0.5*float64(a*a) - kappa/2*d*d) * dt
				effort += float64(a * a)
			}
			pot[s][j] = -0.5*effort*dt - kappa/2*(1-1/float64(N))*spread*dt
		}
	}
	return rew, pot
}

// PerturbedTracking returns K tracking games that differ in their drift
// magnitude, the similar games of App. F.3 ("N(0, 0.5) perturbations to
// the local state transition drift magnitudes"): game k has drift
//
//	c_k = c + ξ_k,  ξ_k ~ N(0, sd²),
//
// with c = cfg.Drift (after defaults) and the other parameters of cfg; sd is
// a standard deviation (the paper's N(0, σ) does not say; pass math.Sqrt(0.5) for the variance
// reading of the paper's 0.5). The ξ_k are drawn from rng in order. Under
// the default rounding dynamics, drifts with the same rounded displacement
// round(c_k·Δt) give identical games (with sd = 0.5 and c = 1, about 68%
// of the draws); see TrackingConfig.MixtureDrift. The games share the
// reward and potential tables, and games with identical local kernels
// share Local and Kernel.
//
// It returns an error if K < 0, sd is negative or not finite, rng is nil
// (with K > 0), or cfg is invalid (see [Tracking]).
func PerturbedTracking(cfg TrackingConfig, K int, sd float64, rng *rand.Rand) ([]*TrackingGame, error) {
	if K < 0 {
		return nil, fmt.Errorf("%w: PerturbedTracking: number of games K = %d must be ≥ 0", icrl.ErrInvalid, K)
	}
	if !(sd >= 0) || math.IsInf(sd, 0) {
		return nil, fmt.Errorf("%w: PerturbedTracking: standard deviation %v must be finite and non-negative", icrl.ErrInvalid, sd)
	}
	if K > 0 && rng == nil {
		return nil, fmt.Errorf("%w: PerturbedTracking: nil random number generator", icrl.ErrNil)
	}
	cfg = cfg.withDefaults()
	states, joint, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	var base *TrackingGame
	games := make([]*TrackingGame, K)
	for k := range games {
		c := cfg
		c.Drift = cfg.Drift + sd*rng.NormFloat64()
		if _, _, err := c.validate(); err != nil {
			return nil, fmt.Errorf("metalearn: PerturbedTracking: game %d: %w", k, err)
		}
		t, err := newTrackingShell(c, states, joint)
		if err != nil {
			return nil, fmt.Errorf("metalearn: PerturbedTracking: game %d: %w", k, err)
		}
		if base == nil {
			t.Rewards, t.Potential = trackingRewards(t)
			base = t
		} else {
			t.Rewards, t.Potential = base.Rewards, base.Potential
		}
		for _, prev := range games[:k] {
			if sameLocal(prev.Local, t.Local) {
				t.Local, t.Kernel = prev.Local, prev.Kernel
				break
			}
		}
		games[k] = t
	}
	return games, nil
}

// sameLocal reports whether two local kernels are identical.
func sameLocal(a, b *tensor.Dense[float64]) bool {
	return slices.Equal(a.Shape(), b.Shape()) && slices.Equal(a.Data(), b.Data())
}
