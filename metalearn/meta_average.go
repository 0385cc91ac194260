package metalearn

import (
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/markov"
)

// ZeroSumAverage is the meta-update (5) of the zero-sum meta-learner
// (paper §3.2), a [Meta] for [ZeroSumAlgorithm]: the first game
// starts from the uniform initialisation and game k ≥ 1 (0-based) from
//
//	μ̃^k = (1/k) Σ_{k' < k} [μ^{k',†}]_α,  ν̃^k = (1/k) Σ_{k' < k} [ν^{k',†}]_α,
//
// entry-wise for every stage τ, step h and state s, where μ^{k',†}, ν^{k',†}
// are the hindsight best responses of game k' (or its stage averages, see
// [Statistic]) and [x]_α = (1−α)x + α/d (§3.2). This is
// follow-the-leader on the losses KL([μ^{k',†}]_α‖·), whose minimiser is the
// arithmetic mean. Every entry of an initialisation is at least α/A (α/B),
// the floor Lemma 1 needs (tested). Because [·]_α is affine, the
// average of α-greedy statistics equals the α-greedy average: the type
// keeps running sums of the raw statistics and applies Alpha in Next.
//
// All games of a sequence must have the shape of the game given to
// [NewZeroSumAverage] (H, S, A, B) and be run for the same T, so that they
// have the same stage schedule (§3.2); Observe returns an error naming
// the game index otherwise. Memory is two per-stage tables, O(τ̄·H·S·(A+B))
// floats; Observe and Next cost O(τ̄·H·S·(A+B)).
//
// A ZeroSumAverage is not safe for concurrent use.
type ZeroSumAverage struct {
	// Alpha is the α-greedy parameter α ∈ [0, 1]; the theory needs
	// α ∈ (0, 1/2). It takes effect at the next call of Next.
	Alpha float64
	// Stat is the statistic averaged; it takes effect at the next call of
	// Observe.
	Stat Statistic

	stages, horizon, states, rows, cols int
	sumMu, sumNu                        *Staged
	n                                   int
}

// averageSetup validates the arguments shared by [NewZeroSumAverage] and
// [NewGeneralSumAverage] and returns the stage schedule and the resolved α.
func averageSetup(who string, g markov.EpisodicModel, T, K int, alpha float64, stat Statistic) (Schedule, float64, error) {
	if nilness.Is(g) {
		return nil, 0, fmt.Errorf("%w: %s: nil game", icrl.ErrNil, who)
	}
	sched, err := NewSchedule(g.Horizon(), T)
	if err != nil {
		return nil, 0, err
	}
	if alpha, err = resolveAlpha(who, K, alpha); err != nil {
		return nil, 0, err
	}
	if stat != HindsightBR && stat != StageAverage {
		return nil, 0, fmt.Errorf("%w: %s: unknown statistic %v", icrl.ErrInvalid, who, stat)
	}
	return sched, alpha, nil
}

// NewZeroSumAverage returns the meta-update (5) for a sequence of K
// two-player games with the shape of g (its horizon, states and the two
// players' numbers of actions), each run for T iterations of Algorithm 1.
// alpha is the α-greedy parameter; zero means [DefaultAlpha](K) =
// min(1/√K, 0.49) (Theorem 2's 1/√K, capped inside (0, 1/2)). K is used only for this
// default. stat is the averaged statistic ([HindsightBR] is the paper's).
//
// It returns an error if g is nil or does not have two players, T < 1,
// K < 1, alpha is outside [0, 1] or stat is unknown.
func NewZeroSumAverage(g markov.EpisodicModel, T, K int, alpha float64, stat Statistic) (*ZeroSumAverage, error) {
	const who = "NewZeroSumAverage"
	if !nilness.Is(g) && g.Players() != 2 {
		return nil, fmt.Errorf("%w: %s: game has %d players, want 2", icrl.ErrInvalid, who, g.Players())
	}
	sched, alpha, err := averageSetup(who, g, T, K, alpha, stat)
	if err != nil {
		return nil, err
	}
	z := &ZeroSumAverage{
		Alpha:   alpha,
		Stat:    stat,
		stages:  len(sched),
		horizon: g.Horizon(),
		states:  g.States(),
		rows:    g.Actions(0),
		cols:    g.Actions(1),
	}
	z.sumMu = zeroStaged(z.stages, z.horizon, z.states, z.rows)
	z.sumNu = zeroStaged(z.stages, z.horizon, z.states, z.cols)
	return z, nil
}

// Observed returns the number of results observed so far.
func (z *ZeroSumAverage) Observed() int { return z.n }

// Next returns the initialisation of game k: uniform for k = 0, otherwise
// the α-greedy running average (5) of the statistics of games 0, …, k−1.
// The result is newly allocated. It returns an error if k is not the number
// of observed results, or Alpha or Stat is invalid.
func (z *ZeroSumAverage) Next(k int) (ZeroSumInit, error) {
	if err := checkMetaState("ZeroSumAverage", z.stages, z.Alpha, z.Stat, k, z.n); err != nil {
		return ZeroSumInit{}, err
	}
	if k == 0 {
		return ZeroSumInit{
			Mu: UniformStaged(z.stages, z.horizon, z.states, z.rows),
			Nu: UniformStaged(z.stages, z.horizon, z.states, z.cols),
		}, nil
	}
	return ZeroSumInit{
		Mu: meanAlphaGreedy(z.sumMu, z.n, z.Alpha),
		Nu: meanAlphaGreedy(z.sumNu, z.n, z.Alpha),
	}, nil
}

// Observe adds the statistics (selected by Stat) of the result r of the
// next game to the running sums. It returns an error naming the game index
// if r is nil or its tables do not have the sequence's shape (another
// horizon, state or action count, or another T and so another number of
// stages) or are not distributions; the sums are then unchanged.
func (z *ZeroSumAverage) Observe(r *ZeroSumResult) error {
	if r == nil {
		return fmt.Errorf("%w: ZeroSumAverage: result of game %d is nil", icrl.ErrNil, z.n)
	}
	var mu, nu *Staged
	var names [2]string
	switch z.Stat {
	case HindsightBR:
		mu, nu = r.BRMu, r.BRNu
		names = [2]string{"BRMu", "BRNu"}
	case StageAverage:
		mu, nu = r.AvgMu, r.AvgNu
		names = [2]string{"AvgMu", "AvgNu"}
	default:
		return fmt.Errorf("%w: ZeroSumAverage: unknown statistic %v", icrl.ErrInvalid, z.Stat)
	}
	if err := CheckStaged(fmt.Sprintf("ZeroSumAverage: game %d %s", z.n, names[0]), mu, z.stages, z.horizon, z.states, z.rows); err != nil {
		return err
	}
	if err := CheckStaged(fmt.Sprintf("ZeroSumAverage: game %d %s", z.n, names[1]), nu, z.stages, z.horizon, z.states, z.cols); err != nil {
		return err
	}
	addStaged(z.sumMu, mu)
	addStaged(z.sumNu, nu)
	z.n++
	return nil
}

// GeneralSumAverage is the meta-update of Theorem 6 for Algorithm 2
// (paper §5), a [Meta] for [GeneralSumAlgorithm]: the N-player
// form of [ZeroSumAverage]. The first game starts from the uniform
// initialisation and game k ≥ 1 (0-based) from
//
//	π̃_i^k = (1/k) Σ_{k' < k} [π_i^{k',†}]_α  for every player i,
//
// entry-wise per stage, step and state. Every entry is at least α/A_i.
// All games must have the shape of the game given to
// [NewGeneralSumAverage] and be run for the same T. Memory is
// O(τ̄·H·S·Σ_i A_i) floats, as is the cost of Observe and Next.
//
// A GeneralSumAverage is not safe for concurrent use.
type GeneralSumAverage struct {
	// Alpha is the α-greedy parameter α ∈ [0, 1]; the theory needs
	// α ∈ (0, 1/2). It takes effect at the next call of Next.
	Alpha float64
	// Stat is the statistic averaged (HindsightBR: GeneralSumResult.BR;
	// StageAverage: GeneralSumResult.Avg); it takes effect at the next call
	// of Observe.
	Stat Statistic

	stages, horizon, states int
	actions                 []int
	sum                     []*Staged
	n                       int
}

// NewGeneralSumAverage returns the meta-update of Theorem 6 for a sequence
// of K games with the shape of g (horizon, states and every player's number
// of actions), each run for T iterations of Algorithm 2. alpha is the
// α-greedy parameter; zero means [DefaultAlpha](K) = min(1/√K, 0.49). stat
// is the averaged statistic.
//
// It returns an error if g is nil, T < 1, K < 1, alpha is outside [0, 1] or
// stat is unknown.
func NewGeneralSumAverage(g markov.EpisodicModel, T, K int, alpha float64, stat Statistic) (*GeneralSumAverage, error) {
	const who = "NewGeneralSumAverage"
	sched, alpha, err := averageSetup(who, g, T, K, alpha, stat)
	if err != nil {
		return nil, err
	}
	m := &GeneralSumAverage{
		Alpha:   alpha,
		Stat:    stat,
		stages:  len(sched),
		horizon: g.Horizon(),
		states:  g.States(),
		actions: make([]int, g.Players()),
		sum:     make([]*Staged, g.Players()),
	}
	for i := range m.actions {
		m.actions[i] = g.Actions(game.Player(i))
		m.sum[i] = zeroStaged(m.stages, m.horizon, m.states, m.actions[i])
	}
	return m, nil
}

// Observed returns the number of results observed so far.
func (m *GeneralSumAverage) Observed() int { return m.n }

// Next returns the initialisation of game k, one *Staged per player: uniform
// for k = 0, otherwise the α-greedy running average of the statistics of
// games 0, …, k−1. The result is newly allocated. It returns an error if k
// is not the number of observed results, or Alpha or Stat is invalid.
func (m *GeneralSumAverage) Next(k int) ([]*Staged, error) {
	if err := checkMetaState("GeneralSumAverage", m.stages, m.Alpha, m.Stat, k, m.n); err != nil {
		return nil, err
	}
	out := make([]*Staged, len(m.actions))
	for i, a := range m.actions {
		if k == 0 {
			out[i] = UniformStaged(m.stages, m.horizon, m.states, a)
		} else {
			out[i] = meanAlphaGreedy(m.sum[i], m.n, m.Alpha)
		}
	}
	return out, nil
}

// Observe adds the statistics (selected by Stat) of the result r of the
// next game to the running sums. It returns an error naming the game index
// and the player if r is nil, has the wrong number of players, or a table
// does not have the sequence's shape or is not made of distributions; the
// sums are then unchanged.
func (m *GeneralSumAverage) Observe(r *GeneralSumResult) error {
	if r == nil {
		return fmt.Errorf("%w: GeneralSumAverage: result of game %d is nil", icrl.ErrNil, m.n)
	}
	var x []*Staged
	var name string
	switch m.Stat {
	case HindsightBR:
		x, name = r.BR, "BR"
	case StageAverage:
		x, name = r.Avg, "Avg"
	default:
		return fmt.Errorf("%w: GeneralSumAverage: unknown statistic %v", icrl.ErrInvalid, m.Stat)
	}
	if len(x) != len(m.actions) {
		return fmt.Errorf("%w: GeneralSumAverage: game %d %s has %d players, want %d", icrl.ErrInvalid, m.n, name, len(x), len(m.actions))
	}
	for i, a := range m.actions {
		if err := CheckStaged(fmt.Sprintf("GeneralSumAverage: game %d %s[player %d]", m.n, name, i), x[i], m.stages, m.horizon, m.states, a); err != nil {
			return err
		}
	}
	for i := range m.actions {
		addStaged(m.sum[i], x[i])
	}
	m.n++
	return nil
}

// WarmStart is the warm-start meta-update of the Markov potential game
// meta-learner (paper §4.1), a [Meta] for [QAscentAlgorithm]:
//
//	π_i^{k,0} ← π_i^{k−1,T},
//
// each game starts from the last iterate of the previous one, and the first
// game from the uniform product policy (inferred). All games must have the
// shape (horizon, states, actions) of the game given to [NewWarmStart]. It
// stores one product policy, O(H·S·Σ_i A_i) floats; Next and Observe cost
// as much.
//
// A WarmStart is not safe for concurrent use.
type WarmStart struct {
	horizon, states int
	actions         []int
	last            markov.Product
	n               int
}

// NewWarmStart returns the warm-start meta-update for games with the shape
// of m. It returns an error if m is nil.
//
// m is a *markov.Episodic or any markov.EpisodicModel, such as a
// caller's own struct, tabulated once by markov.TabulateEpisodic.
func NewWarmStart(m markov.EpisodicModel) (*WarmStart, error) {
	g, err := tabulate("NewWarmStart", m)
	if err != nil {
		return nil, err
	}
	w := &WarmStart{horizon: g.Horizon(), states: g.States(), actions: make([]int, g.Players())}
	for i := range w.actions {
		w.actions[i] = g.Actions(game.Player(i))
	}
	return w, nil
}

// Observed returns the number of results observed so far.
func (w *WarmStart) Observed() int { return w.n }

// Next returns the initialisation of game k: the uniform product policy for
// k = 0 and a copy of the last iterate of game k−1 otherwise. It returns an
// error if k is not the number of observed results.
func (w *WarmStart) Next(k int) (markov.Product, error) {
	if k != w.n {
		return nil, fmt.Errorf("%w: WarmStart: Next(%d) called after %d observed games; want Next(%d)", icrl.ErrInvalid, k, w.n, w.n)
	}
	out := make(markov.Product, len(w.actions))
	for i, a := range w.actions {
		if k == 0 {
			out[i] = markov.UniformPolicy(w.horizon, w.states, a)
			continue
		}
		out[i] = w.last[i].Clone()
	}
	return out, nil
}

// Observe records the last iterate r.Last of the next game. It returns an
// error naming the game index if r is nil or r.Last is not a product policy
// of the sequence's shape.
func (w *WarmStart) Observe(r *QAscentResult) error {
	if r == nil {
		return fmt.Errorf("%w: WarmStart: result of game %d is nil", icrl.ErrNil, w.n)
	}
	if err := checkProductShape(fmt.Sprintf("WarmStart: game %d Last", w.n), r.Last, w.horizon, w.states, w.actions); err != nil {
		return err
	}
	w.last = r.Last
	w.n++
	return nil
}
