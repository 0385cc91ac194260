package control

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
)

// RefineConfig configures [Refine]. Zero values take the documented
// defaults.
type RefineConfig struct {
	// Rounds is the number of refinements; 0 means 30.
	Rounds int
	// PerLayer is the number of actions drawn for each layer per round;
	// 0 means 20.
	PerLayer int
	// Radius is the half-width of the first round's local draws around the
	// current weights (each entry moves, with probability ½, by a uniform
	// step in [−r, r], and is clipped to the box); 0 means Bound.
	Radius float64
	// Shrink multiplies the radius after every round, in (0, 1]; 0 means
	// 0.9.
	Shrink float64
	// Bound is the weight box [−Bound, Bound]; 0 means 1.
	Bound float64
	// Explore is the fraction of each round's draws taken uniformly from
	// the whole box instead of around the incumbent, in [0, 1); local
	// draws alone get trapped in the incumbent's basin (on the package's
	// brute-force test instance they stalled at 4 times the optimum for 4
	// seeds of 6). 0 means 0.5; a negative value means none.
	Explore float64
	// PerLayerSets gives each layer its own action set: the draws around
	// layer t's weights join layer t's set only (the global draws join
	// every layer's), so the search is Σ_t of the sets' product instead of
	// the shared set's T-th power. Otherwise every new action joins the
	// one set all layers share.
	PerLayerSets bool
	// Seed selects the draws: round i uses rand.New(rand.NewPCG(Seed, i)).
	Seed uint64
}

// RefineStep is the state after one refinement (Round 0 is the start).
type RefineStep struct {
	// Round is the refinement, 0 for the solution Refine started from.
	Round int
	// M is the size of the action set solved (of layer 0's set with
	// PerLayerSets).
	M int
	// Sizes are the sizes of the layers' sets.
	Sizes []int
	// Radius is the radius of the round's draws (0 at Round 0).
	Radius float64
	// Value is the optimal quantized value on the first M actions.
	Value float64
	// Actions are the optimal open-loop action indices and Weights the
	// corresponding actions.
	Actions []int
	Weights []Action[float64]
	// Elapsed is the wall time since Refine started.
	Elapsed time.Duration
}

// ErrNotMonotone is returned by [Refine] if a refinement increased the
// quantized value, which nested action sets and an exact DP exclude.
var ErrNotMonotone = errors.New("control: the quantized value increased across a refinement")

// Refine is the DP's own answer to a random action set that ran out of good
// actions: after the solution sol of the problem on its first n.M()
// actions, it draws cfg.PerLayer new actions around each layer's optimal
// weights U^{j_t} (uniform in a box of half-width r, clipped to the weight
// box), appends them to the problem's action set, re-solves with n on the
// enlarged set, shrinks r and repeats. The sets stay nested (old actions
// are kept), so the optimal quantized value never increases (Refine checks
// it and returns [ErrNotMonotone] otherwise), and the final solution keeps
// Algorithm 1's near-optimality guarantee on the final set. The new actions
// are shared by all layers, as the problem's action set is.
//
// Each round costs the new leaves of the nested search, (M+T·PerLayer)^T −
// M^T for T layers. The draws are deterministic by seed; the solver is
// deterministic at any number of workers. It returns the steps (Round 0 is
// sol) and an error if an argument is invalid, a solve fails or ctx is
// cancelled.
func Refine(ctx context.Context, p *Problem[float64], n *Nested[float64], sol *Solution[float64], cfg RefineConfig) ([]RefineStep, error) {
	if p == nil || n == nil || sol == nil || ctx == nil {
		return nil, fmt.Errorf("%w: Refine needs a context, a problem, its nested solver and a solution", icrl.ErrInvalid)
	}
	if cfg.Rounds == 0 {
		cfg.Rounds = 30
	}
	if cfg.PerLayer == 0 {
		cfg.PerLayer = 20
	}
	if cfg.Bound == 0 {
		cfg.Bound = 1
	}
	if cfg.Radius == 0 {
		cfg.Radius = cfg.Bound
	}
	if cfg.Shrink == 0 {
		cfg.Shrink = 0.9
	}
	switch {
	case cfg.Explore == 0:
		cfg.Explore = 0.5
	case cfg.Explore < 0:
		cfg.Explore = 0
	}
	switch {
	case cfg.Rounds < 0 || cfg.PerLayer < 0:
		return nil, fmt.Errorf("%w: Refine Rounds = %d and PerLayer = %d must not be negative", icrl.ErrInvalid, cfg.Rounds, cfg.PerLayer)
	case !(cfg.Radius > 0) || math.IsInf(cfg.Radius, 0):
		return nil, fmt.Errorf("%w: Refine Radius = %v must be positive and finite", icrl.ErrInvalid, cfg.Radius)
	case !(cfg.Shrink > 0 && cfg.Shrink <= 1):
		return nil, fmt.Errorf("%w: Refine Shrink = %v must lie in (0, 1]", icrl.ErrInvalid, cfg.Shrink)
	case !(cfg.Bound > 0) || math.IsInf(cfg.Bound, 0):
		return nil, fmt.Errorf("%w: Refine Bound = %v must be positive and finite", icrl.ErrInvalid, cfg.Bound)
	case !(cfg.Explore < 1):
		return nil, fmt.Errorf("%w: Refine Explore = %v must lie in [0, 1)", icrl.ErrInvalid, cfg.Explore)
	}
	if n.p != p {
		return nil, fmt.Errorf("%w: Refine's nested solver is of another problem", icrl.ErrInvalid)
	}
	start := time.Now()
	sets := n.Sets()
	if len(sets) == 0 || n.root.arg < 0 || float64(sol.Value) != n.root.val {
		return nil, fmt.Errorf("%w: Refine needs the last solution of its nested solver (solution value %v; use the *Solution that n.Solve or n.SolveLayers returned)", icrl.ErrInvalid, sol.Value)
	}
	if _, ok := num.SizeWithin(MaxEntries, len(sol.Weights), cfg.PerLayer, p.Block().Dims.Params()); !ok {
		return nil, fmt.Errorf("%w: Refine PerLayer = %d draws %d layers × %d × %d weights a round, more than MaxEntries = %d", icrl.ErrInvalid, cfg.PerLayer, len(sol.Weights), cfg.PerLayer, p.Block().Dims.Params(), MaxEntries)
	}
	sizes := func() []int {
		out := make([]int, len(sets))
		for t, s := range sets {
			out[t] = len(s)
		}
		return out
	}
	steps := []RefineStep{{M: n.M(), Sizes: sizes(), Value: sol.Value, Actions: sol.Actions, Weights: sol.Weights, Elapsed: time.Since(start)}}
	dims := p.Block().Dims
	P := dims.Params()
	flat := make([]float64, P)
	r := cfg.Radius
	for round := 1; round <= cfg.Rounds; round++ {
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(round)))
		var add []*Action[float64]
		owner := []int{} // per new action: its layer, or −1 for every layer
		for t := range sol.Weights {
			center := sol.Weights[t].Flatten(nil)
			for k := range cfg.PerLayer {
				if k%256 == 0 {
					if err := ctx.Err(); err != nil {
						return steps, err
					}
				}
				global := rng.Float64() < cfg.Explore
				for i, c := range center {
					v := c
					switch {
					case global:
						v = cfg.Bound * (2*rng.Float64() - 1)
					case rng.IntN(2) == 0: // each coordinate moves with probability ½
						v += r * (2*rng.Float64() - 1)
					}
					flat[i] = max(-cfg.Bound, min(cfg.Bound, v))
				}
				u, err := NewAction(dims, flat)
				if err != nil {
					return steps, err
				}
				add = append(add, u)
				if global || !cfg.PerLayerSets {
					owner = append(owner, -1)
				} else {
					owner = append(owner, t)
				}
			}
		}
		first := p.NumActions()
		if err := p.AppendActions(add...); err != nil {
			return steps, err
		}
		for k, o := range owner {
			for t := range sets {
				if o < 0 || o == t {
					sets[t] = append(sets[t], first+k)
				}
			}
		}
		next, err := n.SolveLayers(ctx, sets)
		if err != nil {
			return steps, err
		}
		if next.Value > sol.Value {
			return steps, fmt.Errorf("%w: round %d, %v → %v", ErrNotMonotone, round, sol.Value, next.Value)
		}
		sol = next
		steps = append(steps, RefineStep{Round: round, M: n.M(), Sizes: sizes(), Radius: r, Value: sol.Value, Actions: sol.Actions, Weights: sol.Weights, Elapsed: time.Since(start)})
		r *= cfg.Shrink
	}
	return steps, nil
}
