package nonstationary

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
)

// Noise is the reward distribution of a K-armed arm around its mean.
type Noise int

const (
	// Bernoulli rewards: r ∈ {0,1} with P(r = 1) = f_t(k); means must lie
	// in [0,1].
	Bernoulli Noise = iota
	// Gaussian rewards: r ~ N(f_t(k), σ²).
	Gaussian
)

// String returns "Bernoulli" or "Gaussian".
func (n Noise) String() string {
	switch n {
	case Bernoulli:
		return "Bernoulli"
	case Gaussian:
		return "Gaussian"
	}
	return fmt.Sprintf("Noise(%d)", int(n))
}

// KArmed is a piecewise-stationary K-armed bandit (the model of
// SMPyBandits' PieceWiseStationaryMAB, Besson 2018): the arm means are
// constant on each piece [starts[j], starts[j+1]−1] and jump at the change
// points. A stationary bandit is the one-piece case.
// Mean and OptimalMean are O(1); Sample draws one uniform (Bernoulli) or one
// normal (Gaussian). KArmed is immutable and safe for concurrent use.
type KArmed struct {
	T, k   int
	noise  Noise
	sigma  float64
	means  [][]float64 // per piece
	starts []int
	piece  []int32 // piece of round t at index t−1
	best   []float64
	arg    []int
}

// NewPiecewiseBernoulli returns a piecewise-stationary Bernoulli bandit with
// horizon T: means[j][k] ∈ [0,1] is the mean of arm k on piece j, which
// starts at round starts[j] (1-based; starts[0] = 1, strictly increasing,
// ≤ T). The inputs are copied. It returns an error naming the bad value for
// T ≤ 0, ragged or empty means, a mean outside [0,1] or NaN, or bad starts.
func NewPiecewiseBernoulli(means [][]float64, starts []int, T int) (*KArmed, error) {
	return newKArmed(means, starts, T, Bernoulli, 0)
}

// NewPiecewiseGaussian is [NewPiecewiseBernoulli] with Gaussian rewards of
// standard deviation sigma ≥ 0 and finite means of any sign.
func NewPiecewiseGaussian(means [][]float64, starts []int, sigma float64, T int) (*KArmed, error) {
	if !finite(sigma) || sigma < 0 {
		return nil, fmt.Errorf("%w: noise standard deviation %v must be finite and non-negative", icrl.ErrInvalid, sigma)
	}
	return newKArmed(means, starts, T, Gaussian, sigma)
}

func newKArmed(means [][]float64, starts []int, T int, noise Noise, sigma float64) (*KArmed, error) {
	if err := checkHorizon(T); err != nil {
		return nil, err
	}
	if len(means) == 0 {
		return nil, fmt.Errorf("%w: no pieces (means is empty)", icrl.ErrInvalid)
	}
	k := len(means[0])
	if k == 0 {
		return nil, fmt.Errorf("%w: means[0] has no arms", icrl.ErrInvalid)
	}
	m := make([][]float64, len(means))
	for j, row := range means {
		if len(row) != k {
			return nil, fmt.Errorf("%w: means[%d] has %d arms, means[0] has %d", icrl.ErrInvalid, j, len(row), k)
		}
		for i, x := range row {
			if !finite(x) {
				return nil, fmt.Errorf("%w: means[%d][%d] = %v is not finite", icrl.ErrNotFinite, j, i, x)
			}
			if noise == Bernoulli && (x < 0 || x > 1) {
				return nil, fmt.Errorf("%w: Bernoulli means[%d][%d] = %v is not in [0,1]", icrl.ErrInvalid, j, i, x)
			}
		}
		m[j] = append([]float64(nil), row...)
	}
	piece, err := checkStarts(starts, len(means), T)
	if err != nil {
		return nil, err
	}
	e := &KArmed{T: T, k: k, noise: noise, sigma: sigma, means: m,
		starts: append([]int(nil), starts...), piece: piece}
	e.best = make([]float64, len(m))
	e.arg = make([]int, len(m))
	for j, row := range m {
		e.best[j], e.arg[j] = math.Inf(-1), 0
		for i, x := range row {
			if x > e.best[j] {
				e.best[j], e.arg[j] = x, i
			}
		}
	}
	return e, nil
}

// Horizon returns T.
func (e *KArmed) Horizon() int { return e.T }

// Arms returns K.
func (e *KArmed) Arms() int { return e.k }

// Dim returns 0 (a K-armed bandit has no features).
func (e *KArmed) Dim() int { return 0 }

// Actions returns nil.
func (e *KArmed) Actions(t int) [][]float64 { return nil }

// Noise returns the reward distribution.
func (e *KArmed) Noise() Noise { return e.noise }

// Sigma returns the Gaussian standard deviation (0 for Bernoulli).
func (e *KArmed) Sigma() float64 { return e.sigma }

// Starts returns a copy of the first rounds of the declared pieces.
func (e *KArmed) Starts() []int { return append([]int(nil), e.starts...) }

// Mean returns f_t(k), the mean of arm k on the piece containing round t.
func (e *KArmed) Mean(t, k int) float64 { return e.means[e.piece[t-1]][k] }

// Sample draws a reward of arm k at round t: for Bernoulli 1 if
// rng.Float64() < f_t(k) and 0 otherwise; for Gaussian
// f_t(k) + σ·rng.NormFloat64().
func (e *KArmed) Sample(t, k int, rng *rand.Rand) float64 {
	m := e.Mean(t, k)
	if e.noise == Bernoulli {
		if rng.Float64() < m {
			return 1
		}
		return 0
	}
	return m + e.sigma*rng.NormFloat64()
}

func (e *KArmed) optimal(t int) (float64, int) {
	j := e.piece[t-1]
	return e.best[j], e.arg[j]
}

// smpyMeans holds the segment means of SMPyBandits' piecewise-stationary
// problems 1 and 2, copied from SMPyBandits/configuration_nonstationary.py
// (repository SMPyBandits/SMPyBandits, commit 05d62eed704c), "listOfMeans";
// problem 1 also appears in references §2.1.
var smpyMeans = [2][5][3]float64{
	{ // Problem 1: only one arm changes at each break.
		{0.3, 0.5, 0.9},
		{0.3, 0.2, 0.9},
		{0.3, 0.2, 0.1},
		{0.7, 0.2, 0.1},
		{0.7, 0.5, 0.1},
	},
	{ // Problem 2: all arms change at each break.
		{0.4, 0.5, 0.9},
		{0.5, 0.4, 0.7},
		{0.6, 0.3, 0.5},
		{0.7, 0.2, 0.3},
		{0.8, 0.1, 0.1},
	},
}

// SMPyProblem returns the segment means and piece starts of SMPyBandits'
// piecewise-stationary benchmark problem 1 or 2 (references §2.1, §2.6) at
// horizon T, as fresh slices that can be fed to [NewPiecewiseBernoulli] or
// [NewPiecewiseGaussian].
//
// Source: SMPyBandits/configuration_nonstationary.py (repository
// SMPyBandits/SMPyBandits, commit 05d62eed704c), problems 1 and 2, K = 3,
// five segments:
//
//	problem 1: [.3 .5 .9] → [.3 .2 .9] → [.3 .2 .1] → [.7 .2 .1] → [.7 .5 .1]
//	problem 2: [.4 .5 .9] → [.5 .4 .7] → [.6 .3 .5] → [.7 .2 .3] → [.8 .1 .1]
//
// with 0-based change points int(c·T/2000) for c = 0, 400, 800, 1200, 1600
// (Python int truncates). SMPyBandits' simulation time is 0-based and it
// switches to the next segment at the step equal to a change point, so in
// this package's 1-based rounds piece j starts at int(400·j·T/2000) + 1:
// 1, T/5+1, 2T/5+1, … (1, 401, 801, 1201, 1601 at the reference horizon
// T = 2000 of references §2.6). The integer arithmetic 400·j·T/2000 is
// exact, matching Python's float product for every T below 2^50.
// It returns an error for another problem number, T ≤ 0, or T < 5 (pieces
// would be empty).
func SMPyProblem(problem, T int) (means [][]float64, starts []int, err error) {
	if problem != 1 && problem != 2 {
		return nil, nil, fmt.Errorf("%w: SMPyBandits problem %d is not 1 or 2", icrl.ErrInvalid, problem)
	}
	if err := checkHorizon(T); err != nil {
		return nil, nil, err
	}
	if T < 5 {
		return nil, nil, fmt.Errorf("%w: horizon %d < 5 leaves empty segments in SMPyBandits problem %d", icrl.ErrInvalid, T, problem)
	}
	src := smpyMeans[problem-1]
	means = make([][]float64, len(src))
	starts = make([]int, len(src))
	for j := range src {
		means[j] = append([]float64(nil), src[j][:]...)
		starts[j] = 400*j*T/2000 + 1
	}
	return means, starts, nil
}

// NewSMPyProblem returns SMPyBandits' piecewise-stationary problem 1 or 2
// (see [SMPyProblem]) with Bernoulli arms, SMPyBandits' default ARM_TYPE.
func NewSMPyProblem(problem, T int) (*KArmed, error) {
	means, starts, err := SMPyProblem(problem, T)
	if err != nil {
		return nil, err
	}
	return NewPiecewiseBernoulli(means, starts, T)
}
