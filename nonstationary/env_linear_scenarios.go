package nonstationary

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
)

// DriftConfig configures [NewLinearDrift]: a linear bandit whose parameter
// moves smoothly along the segment through Center in direction Direction,
//
//	θ_t = Center + s·sin(2π·Cycles·(t−1)/T)·Direction,
//
// with the scale s ≥ 0 chosen so that the total variation of the means,
// [TotalVariation] = Σ_t Δ(t) with Δ(t) as in [Variation], equals
// TotalVariation exactly (up to rounding) for the given action sets. This is
// the drifting environment (NewLinearDrift) for the
// Δ^{1/3}T^{2/3} dynamic-regret tests of §5.6 item 12: fixing Δ and growing
// T keeps the amount of change constant while the drift gets slower.
type DriftConfig struct {
	Center, Direction []float64 // length d; Direction must not be orthogonal to every action
	TotalVariation    float64   // prescribed Δ ≥ 0; 0 gives a stationary bandit at Center
	Cycles            float64   // number of sine periods over the horizon, > 0
	Actions           ActionSets
	NoiseStd          float64
	Horizon           int
}

// NewLinearDrift returns the drifting linear bandit of cfg. It stores one θ_t
// per round (8·T·d bytes). It returns an error naming the bad value for a
// bad horizon, dimension mismatch, non-finite entries, negative or
// non-finite TotalVariation, Cycles ≤ 0, or a Direction (or horizon) along
// which the means cannot change although TotalVariation > 0.
func NewLinearDrift(cfg DriftConfig) (*Linear, error) {
	T := cfg.Horizon
	if err := checkHorizon(T); err != nil {
		return nil, err
	}
	c, err := copyThetas([][]float64{cfg.Center, cfg.Direction})
	if err != nil {
		return nil, fmt.Errorf("%w (thetas[0] is Center, thetas[1] is Direction)", err)
	}
	center, dir := c[0], c[1]
	if !finite(cfg.TotalVariation) || cfg.TotalVariation < 0 {
		return nil, fmt.Errorf("%w: TotalVariation %v must be finite and non-negative", icrl.ErrInvalid, cfg.TotalVariation)
	}
	if !finite(cfg.Cycles) || cfg.Cycles <= 0 {
		return nil, fmt.Errorf("%w: Cycles %v must be positive and finite", icrl.ErrInvalid, cfg.Cycles)
	}
	if err := cfg.Actions.check(T, len(center)); err != nil {
		return nil, err
	}
	g := make([]float64, T)
	for t := 1; t <= T; t++ {
		g[t-1] = math.Sin(2 * math.Pi * cfg.Cycles * float64(t-1) / float64(T))
	}
	// Δ(t) = s·|g(t+1) − g(t)|·m_t with m_t = max_{a ∈ A_t ∪ A_{t+1}} |⟨a, dir⟩|.
	unit := 0.0
	for t := 1; t < T; t++ {
		m := 0.0
		for _, set := range [2][][]float64{cfg.Actions.At(t), cfg.Actions.At(t + 1)} {
			for _, a := range set {
				s := 0.0
				for i, x := range a {
					s += x * dir[i]
				}
				m = math.Max(m, math.Abs(s))
			}
		}
		unit += m * math.Abs(g[t]-g[t-1])
	}
	scale := 0.0
	if cfg.TotalVariation > 0 {
		if unit == 0 {
			return nil, fmt.Errorf("%w: drift direction %v cannot change the means (orthogonal to every action, or T = 1) but TotalVariation = %v", icrl.ErrInvalid, dir, cfg.TotalVariation)
		}
		scale = cfg.TotalVariation / unit
	}
	thetas := make([][]float64, T)
	buf := make([]float64, T*len(center))
	idx := make([]int32, T)
	for t := range thetas {
		th := buf[t*len(center) : (t+1)*len(center)]
		for i := range th {
			th[i] = center[i] + scale*g[t]*dir[i]
		}
		thetas[t] = th
		idx[t] = int32(t)
	}
	return newLinear(thetas, idx, cfg.Actions, cfg.NoiseStd, T, nil, nil)
}

// LowConfig configures [NewLowNonStationary], the paper's "low
// non-stationarity" environment (nonstationary-transformers-master §5): a stationary linear
// bandit whose rewards are normalised to [0,1] and lifted to [Shift, Shift+1]
// inside the elevation windows. [PaperLowConfig] fills in the paper's values.
type LowConfig struct {
	W        []float64  // w*, length d
	Actions  ActionSets // the paper (§5) uses one fixed set
	NoiseStd float64    // σ of ε_t before normalisation; the paper uses 1.5
	Horizon  int        // the paper evaluates 1,000 rounds
	// Windows are the closed rounds [first, last] (1-based, 1 ≤ first ≤
	// last ≤ Horizon) with elevated rewards; the paper's are [50,100] and
	// [350,400]. They must not overlap.
	Windows [][2]int
	// Shift is the elevation added inside the windows; the paper's rewards
	// are "scaled to [3,4]", Shift = 3.
	Shift float64
	// Raw skips the normalisation: f_t(a) = ⟨a,w⟩ (+ Shift in a window).
	Raw bool
}

// PaperLowConfig returns the §4.2 configuration on w and a fixed action set:
// σ = 1.5, T = 1000, windows [50,100] and [350,400], Shift = 3, normalised.
func PaperLowConfig(w []float64, actions ActionSets) LowConfig {
	return LowConfig{W: w, Actions: actions, NoiseStd: 1.5, Horizon: 1000,
		Windows: [][2]int{{50, 100}, {350, 400}}, Shift: 3}
}

// NewLowNonStationary returns the low non-stationarity scenario of nonstationary-transformers-master §5.
// The paper says only that rewards are "normalized" to [0,1] and "elevated
// … scaled to [3,4]" in t ∈ [50,100] ∪ [350,400]; the exact procedure is
// unstated, and this implements the following reading: with m_t = min_k ⟨a_{t,k},w⟩ and M_t = max_k ⟨a_{t,k},w⟩,
//
//	r_t = (⟨a_t,w⟩ + ε_t − m_t)/(M_t − m_t) + Shift·1[t in a window],
//
// i.e. α_t = 1/(M_t − m_t), β_t = −m_t·α_t + Shift·1[window], so the means
// lie in [0,1] outside the windows and in [Shift, Shift+1] inside, and the
// noise is normalised by the same affine map (standard deviation
// σ/(M_t − m_t)). The optimal arm is unchanged by the elevation. With a
// fixed action set and windows [50,100], [350,400] at T = 1000,
// Δ(t) = Shift at t ∈ {49, 100, 349, 400} and 0 elsewhere: Δ = 4·Shift,
// J = 5 (nonstationary-transformers-master §5). With per-round action sets the normalisation is per
// round, so the means move between rounds as well. Errors name the bad value
// (as for [NewLinear], plus bad or overlapping windows, a non-finite Shift,
// or an action set with M_t = m_t, which cannot be normalised).
func NewLowNonStationary(cfg LowConfig) (*Linear, error) {
	T := cfg.Horizon
	if err := checkHorizon(T); err != nil {
		return nil, err
	}
	th, err := copyThetas([][]float64{cfg.W})
	if err != nil {
		return nil, err
	}
	if !finite(cfg.Shift) {
		return nil, fmt.Errorf("%w: Shift %v is not finite", icrl.ErrNotFinite, cfg.Shift)
	}
	if err := cfg.Actions.check(T, len(th[0])); err != nil {
		return nil, err
	}
	in := make([]bool, T)
	for i, w := range cfg.Windows {
		if w[0] < 1 || w[1] < w[0] || w[1] > T {
			return nil, fmt.Errorf("%w: window %d = [%d,%d] is not within [1,%d] with first ≤ last", icrl.ErrInvalid, i, w[0], w[1], T)
		}
		for t := w[0]; t <= w[1]; t++ {
			if in[t-1] {
				return nil, fmt.Errorf("%w: window %d = [%d,%d] overlaps an earlier window at round %d", icrl.ErrInvalid, i, w[0], w[1], t)
			}
			in[t-1] = true
		}
	}
	alpha := make([]float64, T)
	beta := make([]float64, T)
	for t := 1; t <= T; t++ {
		a, b := 1.0, 0.0
		if !cfg.Raw {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, x := range cfg.Actions.At(t) {
				s := 0.0
				for i, v := range x {
					s += v * th[0][i]
				}
				lo, hi = math.Min(lo, s), math.Max(hi, s)
			}
			if !(hi > lo) {
				return nil, fmt.Errorf("%w: all actions of round %d have the same mean %v: cannot normalise", icrl.ErrInvalid, t, lo)
			}
			a = 1 / (hi - lo)
			b = -lo * a
		}
		if in[t-1] {
			b += cfg.Shift
		}
		alpha[t-1], beta[t-1] = a, b
	}
	return newLinear(th, make([]int32, T), cfg.Actions, cfg.NoiseStd, T, alpha, beta)
}

// NewCosine returns the paper's "high non-stationarity" scenario (nonstationary-transformers-master §5 and App. B;
// paper §5): r_t = (⟨a_t, w⟩ + ε_t)·cos(2πbt), ε_t ~ N(0, noiseStd²), so
// f_t(a) = ⟨a,w⟩·cos(2πbt) (the noise is modulated too) and the optimal arm
// flips between argmax and argmin of ⟨a,w⟩ with the sign of the cosine. For
// a fixed set Δ(t) = max_k |⟨a_k,w⟩|·|cos 2πb(t+1) − cos 2πbt|. The paper
// trains on b ∈ {0.005, 0.01, 0.015, 0.02} and evaluates b ∈ {0.018, 0.025}
// over T = 200 rounds with d = 32, A = 10, σ = 1.5. Errors as for
// [NewLinear], plus a non-finite b.
func NewCosine(w []float64, acts ActionSets, noiseStd, b float64, T int) (*Linear, error) {
	if err := checkHorizon(T); err != nil {
		return nil, err
	}
	if !finite(b) {
		return nil, fmt.Errorf("%w: frequency b = %v is not finite", icrl.ErrNotFinite, b)
	}
	th, err := copyThetas([][]float64{w})
	if err != nil {
		return nil, err
	}
	alpha := make([]float64, T)
	beta := make([]float64, T)
	for t := 1; t <= T; t++ {
		alpha[t-1] = math.Cos(2 * math.Pi * b * float64(t))
	}
	return newLinear(th, make([]int32, T), acts, noiseStd, T, alpha, beta)
}

// SampleLBMInstance draws the paper's linear-bandit instance (nonstationary-transformers-master §5,
// §4.1, following the LBM code envs/bandit_env.py): w ~ U[0,1]^d and A
// actions a_k ~ U[−1,1]^d. The draws are, in order, w[0..d−1] as
// rng.Float64() and then actions[0][0..d−1], actions[1][…], … as
// 2·rng.Float64() − 1. The actions share one backing array. It panics if
// d < 1, A < 1, d·A exceeds MaxEntries or rng is nil (a programmer error:
// the sizes are constants of an experiment).
func SampleLBMInstance(d, A int, rng *rand.Rand) (w []float64, actions [][]float64) {
	if d < 1 || A < 1 || rng == nil {
		panic(fmt.Sprintf("nonstationary: SampleLBMInstance needs d ≥ 1, A ≥ 1 and a random source, got d=%d A=%d rng=%v", d, A, rng))
	}
	if _, ok := num.SizeWithin(icrl.MaxEntries, d, A); !ok {
		panic(fmt.Sprintf("nonstationary: SampleLBMInstance with d=%d, A=%d exceeds MaxEntries", d, A))
	}
	w = make([]float64, d)
	for i := range w {
		w[i] = rng.Float64()
	}
	buf := make([]float64, A*d)
	for i := range buf {
		buf[i] = 2*rng.Float64() - 1
	}
	actions = make([][]float64, A)
	for k := range actions {
		actions[k] = buf[k*d : (k+1)*d : (k+1)*d]
	}
	return w, actions
}
