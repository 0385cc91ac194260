package metalearn

import (
	"fmt"
	"math"
	"slices"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/markov"
)

// Algorithm is a base algorithm ψ that runs on one game from an
// initialisation, the inner stage (1) of the meta-learning protocol of
// multi-agent-meta-rl §2, eqs. (1)–(2):
//
//	π^{k,t} ← ψ(π^{k,t−1}; 𝔾^k),  t ∈ [T],  from π^{k,0} = init.
//
// G is the game type, I the initialisation and R the result the algorithm
// reports (the statistics a meta-update needs). Run must not modify init.
// [ZeroSumAlgorithm], [GeneralSumAlgorithm] and [QAscentAlgorithm] adapt the
// package's base algorithms.
type Algorithm[G, I, R any] interface {
	Run(g G, init I) (R, error)
}

// Meta is a meta-update Ψ, the outer stage (2) of the protocol (§2):
//
//	π^{k+1,0} ← Ψ({π^{k',t}}_{k' ≤ k, t ∈ [T]}; 𝔾^1, …, 𝔾^k).
//
// Next returns the initialisation for game k (0-based) given the results of
// games 0, …, k−1 passed to Observe, in order. Implementations in this
// package require Next(k) to be called with k equal to the number of results
// observed so far, and return an error otherwise. [Fixed] (individual
// learning), [ZeroSumAverage], [GeneralSumAverage] and [WarmStart] implement
// it.
type Meta[I, R any] interface {
	Next(k int) (I, error)
	Observe(r R) error
}

// RunSequence plays the games in order with the learner l and the
// meta-update m, the online meta-learning protocol of §2, eqs. (1)–(2): for
// k = 0, 1, …,
//
//	init ← m.Next(k);  r_k ← l.Run(games[k], init);  m.Observe(r_k).
//
// It returns the results r_k. On error it returns the results of the games
// completed so far and an error that names the game index k and the stage
// (meta init, run or observe) that failed. The cost is that of the
// algorithm's and the meta-update's calls.
func RunSequence[G, I, R any](games []G, l Algorithm[G, I, R], m Meta[I, R]) ([]R, error) {
	if l == nil {
		return nil, fmt.Errorf("%w: RunSequence: nil algorithm", icrl.ErrNil)
	}
	if m == nil {
		return nil, fmt.Errorf("%w: RunSequence: nil meta-update", icrl.ErrInvalid)
	}
	results := make([]R, 0, len(games))
	for k, g := range games {
		init, err := m.Next(k)
		if err != nil {
			return results, fmt.Errorf("metalearn: game %d: meta init: %w", k, err)
		}
		r, err := l.Run(g, init)
		if err != nil {
			return results, fmt.Errorf("metalearn: game %d: %w", k, err)
		}
		results = append(results, r)
		if err := m.Observe(r); err != nil {
			return results, fmt.Errorf("metalearn: game %d: observe: %w", k, err)
		}
	}
	return results, nil
}

// Fixed is the meta-update that always returns the same initialisation
// Init and ignores the results: individual learning, the baseline of the
// paper's simulations (App. F) when Init is uniform (e.g.
// [UniformZeroSumInit], [UniformGeneralSumInit],
// markov.Episodic.UniformProduct). Init is returned as is, not copied, so
// learners must not modify it (the package's learners do not).
type Fixed[I, R any] struct {
	Init I
}

// Next returns f.Init for every k.
func (f Fixed[I, R]) Next(k int) (I, error) { return f.Init, nil }

// Observe does nothing.
func (f Fixed[I, R]) Observe(r R) error { return nil }

// ZeroSumAlgorithm is Algorithm 1 ([ZeroSumOOMD]) with a fixed configuration
// as an [Algorithm] on two-player zero-sum episodic games of type G (a
// *markov.Episodic or a caller's own markov.EpisodicModel); the
// initialisation is the per-stage (μ̃, ν̃) of Algorithm 1.
type ZeroSumAlgorithm[G markov.EpisodicModel] struct {
	Config OOMDConfig
}

// Run returns ZeroSumOOMD(g, init, l.Config).
func (l ZeroSumAlgorithm[G]) Run(g G, init ZeroSumInit) (*ZeroSumResult, error) {
	return ZeroSumOOMD(g, init, l.Config)
}

// GeneralSumAlgorithm is Algorithm 2 ([GeneralSumOOMD]) with a fixed
// configuration as an [Algorithm] on N-player episodic games of type G; the
// initialisation is one per-stage policy π̃_i per player (Algorithm 2, App. E.1).
type GeneralSumAlgorithm[G markov.EpisodicModel] struct {
	Config OOMDConfig
}

// Run returns GeneralSumOOMD(g, init, l.Config).
func (l GeneralSumAlgorithm[G]) Run(g G, init []*Staged) (*GeneralSumResult, error) {
	return GeneralSumOOMD(g, init, l.Config)
}

// QAscentAlgorithm is finite-horizon independent projected Q-ascent (7)
// ([QAscent]) with a fixed configuration as an [Algorithm] on episodic
// potential games of type G; the initialisation is the product policy
// π^{k,0} (§4.1).
type QAscentAlgorithm[G markov.EpisodicModel] struct {
	Config QAscentConfig
}

// Run returns QAscent(g, init, l.Config).
func (l QAscentAlgorithm[G]) Run(g G, init markov.Product) (*QAscentResult, error) {
	return QAscent(g, init, l.Config)
}

// The adapters and meta-updates implement the interfaces.
var (
	_ Algorithm[*markov.Episodic, ZeroSumInit, *ZeroSumResult]    = ZeroSumAlgorithm[*markov.Episodic]{}
	_ Algorithm[*markov.Episodic, []*Staged, *GeneralSumResult]   = GeneralSumAlgorithm[*markov.Episodic]{}
	_ Algorithm[*markov.Episodic, markov.Product, *QAscentResult] = QAscentAlgorithm[*markov.Episodic]{}
	_ Meta[ZeroSumInit, *ZeroSumResult]                           = (*ZeroSumAverage)(nil)
	_ Meta[[]*Staged, *GeneralSumResult]                          = (*GeneralSumAverage)(nil)
	_ Meta[markov.Product, *QAscentResult]                        = (*WarmStart)(nil)
	_ Meta[ZeroSumInit, *ZeroSumResult]                           = Fixed[ZeroSumInit, *ZeroSumResult]{}
)

// Statistic selects which per-stage policies of a run the averaging
// meta-updates [ZeroSumAverage] and [GeneralSumAverage] average.
type Statistic int

const (
	// HindsightBR averages the hindsight best responses μ^{τ,†}, ν^{τ,†}
	// (π_i^{τ,†}) of (3), (14) and (61), the statistic of eq. (5) and
	// Theorems 2 and 6. It is the default. The best responses are pure
	// except for ties, so on games with mixed equilibria the average pulls
	// the initialisation towards vertices and can hurt (seen in
	// examples/metalearn on the zero-sum family).
	HindsightBR Statistic = iota
	// StageAverage averages the stage averages of the played policies
	// (ZeroSumResult.AvgMu, AvgNu; GeneralSumResult.Avg). It is a
	// practical variant outside the paper's theory.
	StageAverage
)

// String returns the name of the statistic.
func (s Statistic) String() string {
	switch s {
	case HindsightBR:
		return "HindsightBR"
	case StageAverage:
		return "StageAverage"
	}
	return fmt.Sprintf("Statistic(%d)", int(s))
}

// DefaultAlpha returns the α-greedy parameter min(1/√K, 0.49) for a
// sequence of K ≥ 1 games: Theorems 2 and 6 take α = 1/√K, which is
// outside the required range (0, 1/2) for K ≤ 4, so it is capped at 0.49
// (this library's choice). It returns NaN if K < 1.
func DefaultAlpha(K int) float64 {
	if K < 1 {
		return math.NaN()
	}
	return min(1/math.Sqrt(float64(K)), 0.49)
}

// resolveAlpha validates the α-greedy parameter of a meta-update
// constructor; zero means DefaultAlpha(K).
func resolveAlpha(who string, K int, alpha float64) (float64, error) {
	if K < 1 {
		return 0, fmt.Errorf("%w: %s: number of games K = %d must be ≥ 1", icrl.ErrInvalid, who, K)
	}
	if alpha == 0 {
		return DefaultAlpha(K), nil
	}
	if !(alpha > 0 && alpha <= 1) {
		return 0, fmt.Errorf("%w: %s: α-greedy parameter α = %v outside [0, 1]", icrl.ErrInvalid, who, alpha)
	}
	return alpha, nil
}

// checkMetaState validates the fields a caller may have changed and the
// call order of Next.
func checkMetaState(who string, stages int, alpha float64, stat Statistic, k, observed int) error {
	if stages == 0 {
		return fmt.Errorf("%w: %s: a zero %s (build it with New%s)", icrl.ErrInvalid, who, who, who)
	}
	if !(alpha >= 0 && alpha <= 1) {
		return fmt.Errorf("%w: %s: α-greedy parameter Alpha = %v outside [0, 1]", icrl.ErrInvalid, who, alpha)
	}
	if stat != HindsightBR && stat != StageAverage {
		return fmt.Errorf("%w: %s: unknown statistic %v", icrl.ErrInvalid, who, stat)
	}
	if k != observed {
		return fmt.Errorf("%w: %s: Next(%d) called after %d observed games; want Next(%d)", icrl.ErrInvalid, who, k, observed, observed)
	}
	return nil
}

// addStaged adds x to sum entry-wise. The shapes must agree (checked
// before).
func addStaged(sum, x *Staged) {
	d := sum.Data()
	for i, v := range x.Data() {
		d[i] += v
	}
}

// meanAlphaGreedy returns [sum/n]_α, a new *Staged.
func meanAlphaGreedy(sum *Staged, n int, alpha float64) *Staged {
	out := sum.Clone()
	if n != 1 {
		inv := 1 / float64(n)
		for i := range out.Data() {
			out.Data()[i] *= inv
		}
	}
	return AlphaGreedy(out, alpha)
}

// zeroStaged returns a *Staged of zeros with the given shape.
func zeroStaged(stages, horizon, states, actions int) *Staged {
	return newStaged(stages, horizon, states, actions)
}

// checkProductShape returns nil if pi is a product Markov policy with the
// given shape whose entries are distributions.
func checkProductShape(name string, pi markov.Product, horizon, states int, actions []int) error {
	if len(pi) != len(actions) {
		return fmt.Errorf("%w: %s has %d players, want %d", icrl.ErrInvalid, name, len(pi), len(actions))
	}
	for i, p := range pi {
		if p == nil {
			return fmt.Errorf("%w: %s player %d is nil", icrl.ErrNil, name, i)
		}
		if p.Rank() != 3 || p.Dim(0) != horizon || p.Dim(1) != states || p.Dim(2) != actions[i] {
			return fmt.Errorf("%w: %s player %d has shape %v, want [%d %d %d]", icrl.ErrInvalid, name, i, p.Shape(), horizon, states, actions[i])
		}
		for h := range horizon {
			for s := range states {
				if err := simplex.CheckDistribution(fmt.Sprintf("%s[player %d][step %d][state %d]", name, i, h, s), p.Row(h, s), actions[i]); err != nil {
					return fmt.Errorf("metalearn: %w", err)
				}
			}
		}
	}
	return nil
}

// stagedKLSpread returns Σ_k Σ_τ Σ_h max_s KL(x_k[τ][h][s] ‖ x̄[τ][h][s]),
// where x̄ is the entry-wise mean of the tables xs: the aggregated
// divergence of the task-similarity measures (App. B.3 and E.4).
// Every KL is finite because x̄ ≥ x_k/K entry-wise, and clamped at 0
// against round-off. It panics naming who and the table if the shapes
// differ.
func stagedKLSpread(who string, xs []*Staged) (float64, error) {
	if len(xs) == 0 {
		return 0, nil
	}
	ref := xs[0]
	for k, x := range xs {
		if x == nil {
			return 0, fmt.Errorf("%w: %s: table of result %d is nil", icrl.ErrNil, who, k)
		}
		if !sameStagedShape(ref, x) {
			return 0, fmt.Errorf("%w: %s: result %d has a table of another shape than result 0", icrl.ErrInvalid, who, k)
		}
	}
	mean := zeroLike(ref)
	for _, x := range xs {
		addStaged(mean, x)
	}
	inv := 1 / float64(len(xs))
	for i := range mean.Data() {
		mean.Data()[i] *= inv
	}
	var total float64
	for _, x := range xs {
		for t := range x.Dim(0) {
			for h := range x.Dim(1) {
				var worst float64
				for s := range x.Dim(2) {
					worst = max(worst, simplex.KL(x.Row(t, h, s), mean.Row(t, h, s)))
				}
				total += worst
			}
		}
	}
	return total, nil
}

// zeroLike returns a *Staged of zeros with the shape of p.
func zeroLike(p *Staged) *Staged {
	return newStaged(p.Dim(0), p.Dim(1), p.Dim(2), p.Dim(3))
}

// sameStagedShape reports whether p and q have the same shape.
func sameStagedShape(p, q *Staged) bool {
	return slices.Equal(p.Shape(), q.Shape())
}

// DeltaMuNu returns the task-similarity measure of the zero-sum
// meta-learner (paper §3.2),
//
//	Δ_{μ,ν} = Σ_k ( KL(μ^{k,†}‖μ^⋆) + KL(ν^{k,†}‖ν^⋆) ),
//
// where μ^{k,†}, ν^{k,†} are the hindsight best responses (BRMu, BRNu) of
// results[k], μ^⋆ = (1/K) Σ_k μ^{k,†} and ν^⋆ likewise are their entry-wise
// averages (not equilibria), and the KL of policy tables is the
// aggregation of App. B.3 with the stage index τ its display omits,
//
//	KL(μ^{k,†}‖μ^⋆) = Σ_h Σ_τ max_s KL(μ_h^{k,τ,†}(·|s) ‖ μ_h^{⋆,τ}(·|s)).
//
// Every KL is finite (μ^⋆ ≥ μ^{k,†}/K) and is clamped at 0 against
// round-off. Δ is 0 for identical best responses (up to round-off in the
// mean, of order 1e-16). It returns 0 for no results, and an error
// wrapping ErrNil if a result is nil or ErrInvalid if the results' tables
// have different shapes (different games or T). The cost is
// O(K·τ̄·H·S·(A+B)) time and O(τ̄·H·S·(A+B)) memory.
func DeltaMuNu(results []*ZeroSumResult) (float64, error) {
	mus := make([]*Staged, len(results))
	nus := make([]*Staged, len(results))
	for k, r := range results {
		if r == nil {
			return 0, fmt.Errorf("%w: DeltaMuNu: result %d is nil", icrl.ErrNil, k)
		}
		mus[k], nus[k] = r.BRMu, r.BRNu
	}
	dmu, err := stagedKLSpread("DeltaMuNu (BRMu)", mus)
	if err != nil {
		return 0, err
	}
	dnu, err := stagedKLSpread("DeltaMuNu (BRNu)", nus)
	return dmu + dnu, err
}

// DeltaPi returns the task-similarity measure of the general-sum
// meta-learner (paper §5),
//
//	Δ_π = Σ_k Σ_i KL(π_i^{k,†}‖π_i^⋆),  π_i^⋆ = (1/K) Σ_k π_i^{k,†},
//
// where π_i^{k,†} are the hindsight best responses (BR[i]) of results[k],
// with the aggregation of App. E.4 (and the stage index τ it omits),
//
//	Σ_h Σ_τ Σ_i max_s KL(π_{h,i}^{k,τ,†}(·|s) ‖ π_{h,i}^{⋆,τ}(·|s)).
//
// Every KL is finite and clamped at 0 against round-off. It returns 0 for
// no results, and an error wrapping ErrNil if a result is nil or
// ErrInvalid if the results have different numbers of players or table
// shapes. The cost is O(K·τ̄·H·S·Σ_i A_i).
func DeltaPi(results []*GeneralSumResult) (float64, error) {
	if len(results) == 0 {
		return 0, nil
	}
	for k, r := range results {
		if r == nil {
			return 0, fmt.Errorf("%w: DeltaPi: result %d is nil", icrl.ErrNil, k)
		}
		if len(r.BR) != len(results[0].BR) {
			return 0, fmt.Errorf("%w: DeltaPi: result %d has %d players, result 0 has %d", icrl.ErrInvalid, k, len(r.BR), len(results[0].BR))
		}
	}
	var total float64
	xs := make([]*Staged, len(results))
	for i := range results[0].BR {
		for k, r := range results {
			xs[k] = r.BR[i]
		}
		d, err := stagedKLSpread(fmt.Sprintf("DeltaPi (player %d)", i), xs)
		if err != nil {
			return 0, err
		}
		total += d
	}
	return total, nil
}
