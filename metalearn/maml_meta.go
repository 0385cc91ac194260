package metalearn

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/markov"
)

// SoftmaxPGConfig configures [SoftmaxPG].
type SoftmaxPGConfig struct {
	// Alpha is the inner step size α > 0 (Lemma 14 takes
	// LemmaConstants(N, γ, A_max, T).InnerAlpha).
	Alpha float64
	// T is the number of gradient steps, T ≥ 0.
	T int
}

// SoftmaxPGResult is the outcome of [SoftmaxPG] on one game.
type SoftmaxPGResult struct {
	// Game is the game the run played (the MAML meta-update needs it).
	Game markov.GeneralSumModel
	// Init and Last are θ^{k,0} and θ^{k,T}.
	Init, Last Logits
	// Potential[t] is Φ(θ^{k,t}) = V^ρ of the shared reward, t = 0, …, T.
	Potential []float64
}

// SoftmaxPG runs the inner stage (44) of multi-agent-meta-rl §4.2 on a
// Markov team: T steps of independent softmax policy-gradient ascent,
//
//	θ_i^{t+1} = θ_i^t + α ∇_{θ_i} V_i^ρ(θ^t),
//
// which in a team is gradient ascent on the potential Φ = V^ρ
// ([PotentialGrad], eq. (45)), from init. It records Φ at every iterate.
// The cost is T+1 evaluations, each one LU factorisation of the S×S
// matrix I − γP_π and O(S·J·(S+N)) work.
//
// It returns an error if g is not a cooperative game, init does not match
// g's shape or is not finite, α is not positive and finite, or T < 0.
func SoftmaxPG(g markov.GeneralSumModel, init Logits, cfg SoftmaxPGConfig) (*SoftmaxPGResult, error) {
	if !(cfg.Alpha > 0) || math.IsInf(cfg.Alpha, 0) {
		return nil, fmt.Errorf("%w: SoftmaxPG: step size α = %v must be positive and finite", icrl.ErrInvalid, cfg.Alpha)
	}
	if cfg.T < 0 {
		return nil, fmt.Errorf("%w: SoftmaxPG: number of steps T = %d must be ≥ 0", icrl.ErrInvalid, cfg.T)
	}
	pg, st, theta, err := potPrepare(g, init, "SoftmaxPG: ")
	if err != nil {
		return nil, err
	}
	res := &SoftmaxPGResult{Game: g, Init: init.Clone(), Potential: make([]float64, 0, cfg.T+1)}
	grad := make([]float64, pg.P)
	for t := 0; ; t++ {
		res.Potential = append(res.Potential, pg.phi(st))
		if t == cfg.T {
			break
		}
		pg.grad(st, grad)
		for k, d := range grad {
			theta[k] += cfg.Alpha * d
		}
		if err := pg.eval(st, theta); err != nil {
			return nil, fmt.Errorf("metalearn: SoftmaxPG: step %d: %w", t+1, err)
		}
	}
	res.Last, err = LogitsFromVector(g, theta)
	return res, err
}

// SoftmaxPGAlgorithm is [SoftmaxPG] as an [Algorithm] for [RunSequence].
type SoftmaxPGAlgorithm struct {
	Config SoftmaxPGConfig
}

// Run runs SoftmaxPG on g from init.
func (l SoftmaxPGAlgorithm) Run(g markov.GeneralSumModel, init Logits) (*SoftmaxPGResult, error) {
	return SoftmaxPG(g, init, l.Config)
}

// MAMLMeta is MAML as a sequential meta-update (multi-agent-meta-rl §4.2):
// the initialisation of every game is the meta-parameter θ, and after each
// game θ takes one step (47) on that game,
//
//	θ ← θ + η (Π_{t=0}^{T−1} (I + α∇²Φ(θ^{(t)}))) ∇Φ(θ^{(T)}),
//
// the meta-gradient of [MAMLGrad] for the game just played: the paper's
// outer update with one sampled game per step (its text: "sample games
// according to p"; full-batch steps over a known set of games are
// [MAMLStep]). α and T are the inner stage's, so pair it with a
// [SoftmaxPGAlgorithm] of the same configuration.
type MAMLMeta struct {
	// Eta is the outer step size η.
	Eta   float64
	inner SoftmaxPGConfig
	theta Logits
	k     int
}

// NewMAMLMeta returns the MAML meta-update for teams with the shape of g,
// starting from θ = 0 (uniform policies), with outer step η and the inner
// stage inner. It returns an error if g is nil or not cooperative, η is not
// positive and finite, or inner is invalid.
func NewMAMLMeta(g markov.GeneralSumModel, eta float64, inner SoftmaxPGConfig) (*MAMLMeta, error) {
	if nilness.Is(g) {
		return nil, fmt.Errorf("%w: NewMAMLMeta: nil game", icrl.ErrNil)
	}
	tab, err := markov.Tabulate(g)
	if err != nil {
		return nil, fmt.Errorf("metalearn: NewMAMLMeta: %w", err)
	}
	if !tab.Cooperative() {
		return nil, fmt.Errorf("%w: NewMAMLMeta: the game is not a Markov team (the potential Φ is known only for teams)", icrl.ErrInvalid)
	}
	if !(eta > 0) || math.IsInf(eta, 0) {
		return nil, fmt.Errorf("%w: NewMAMLMeta: outer step size η = %v must be positive and finite", icrl.ErrInvalid, eta)
	}
	if !(inner.Alpha > 0) || math.IsInf(inner.Alpha, 0) || inner.T < 0 {
		return nil, fmt.Errorf("%w: NewMAMLMeta: inner stage α = %v, T = %d: need α > 0 finite and T ≥ 0", icrl.ErrInvalid, inner.Alpha, inner.T)
	}
	return &MAMLMeta{Eta: eta, inner: inner, theta: ZeroLogits(g)}, nil
}

// Next returns a copy of the current meta-parameter θ for game k, which
// must equal the number of games observed.
func (m *MAMLMeta) Next(k int) (Logits, error) {
	if k != m.k {
		return nil, fmt.Errorf("%w: MAMLMeta: Next(%d) after %d observed games", icrl.ErrInvalid, k, m.k)
	}
	return m.theta.Clone(), nil
}

// Observe takes one MAML step (47) on the game of r.
func (m *MAMLMeta) Observe(r *SoftmaxPGResult) error {
	if r == nil || r.Game == nil {
		return fmt.Errorf("%w: MAMLMeta: game %d: result without its game", icrl.ErrInvalid, m.k)
	}
	th, err := MAMLStep([]markov.GeneralSumModel{r.Game}, m.theta, m.inner.Alpha, m.Eta, m.inner.T)
	if err != nil {
		return fmt.Errorf("metalearn: MAMLMeta: game %d: %w", m.k, err)
	}
	m.theta = th
	m.k++
	return nil
}

var (
	_ Algorithm[markov.GeneralSumModel, Logits, *SoftmaxPGResult] = SoftmaxPGAlgorithm{}
	_ Meta[Logits, *SoftmaxPGResult]                              = (*MAMLMeta)(nil)
)

// Theta returns a copy of the current meta-parameter.
func (m *MAMLMeta) Theta() Logits { return m.theta.Clone() }
