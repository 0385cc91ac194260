package game

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/num"
)

// ZeroSum is a two-player zero-sum matrix game. The row player chooses a row
// i, the column player a column j, and the row player receives A[i][j], which
// it maximises; the column player receives −A[i][j] (equivalently, it
// minimises A[i][j]). For mixed strategies x (rows) and y (columns) the
// expected payoff is xᵀAy.
//
// The payoffs may be any finite numbers. Bandit feedback (see [ZeroSum.Sample]
// and the learners of package learner) assumes payoffs in [0,1], the setting
// of in-context-games-omd §3.1; [Rescale] and [Normalize] map any game to
// that range by an affine transformation that leaves every equilibrium
// unchanged.
//
// A ZeroSum is immutable after construction and safe for concurrent use.
type ZeroSum struct {
	rows, cols int
	a          []float64 // row-major, a[i*cols+j] = A[i][j]
}

// NewZeroSum returns the zero-sum game with row-player payoffs
// payoff[i][j]. The matrix is copied. It returns an error if the matrix is
// empty, ragged, or has a NaN or infinite entry; the error names the first bad
// row or entry.
func NewZeroSum(payoff [][]float64) (*ZeroSum, error) {
	rows, cols, a, err := flatten("payoff", payoff)
	if err != nil {
		return nil, err
	}
	return &ZeroSum{rows: rows, cols: cols, a: a}, nil
}

// NewZeroSumDense returns the rows×cols zero-sum game whose row-major payoffs
// are data (data[i*cols+j] = A[i][j]). The slice is copied. It returns an
// error if rows or cols is not positive, len(data) != rows*cols, or an entry
// is not finite.
func NewZeroSumDense(rows, cols int, data []float64) (*ZeroSum, error) {
	if err := checkDense("payoff", rows, cols, data); err != nil {
		return nil, err
	}
	return &ZeroSum{rows: rows, cols: cols, a: append([]float64(nil), data...)}, nil
}

// MustZeroSum is like [NewZeroSum] but panics on error. It is meant for
// literal games in tests and examples.
func MustZeroSum(payoff [][]float64) *ZeroSum {
	g, err := NewZeroSum(payoff)
	if err != nil {
		panic(err)
	}
	return g
}

func flatten(name string, m [][]float64) (rows, cols int, a []float64, err error) {
	rows = len(m)
	if rows == 0 {
		return 0, 0, nil, fmt.Errorf("%w: %s has no rows", icrl.ErrEmpty, name)
	}
	cols = len(m[0])
	if cols == 0 {
		return 0, 0, nil, fmt.Errorf("%w: %s has no columns", icrl.ErrEmpty, name)
	}
	a = make([]float64, 0, rows*cols)
	for i, row := range m {
		if len(row) != cols {
			return 0, 0, nil, fmt.Errorf("%w: %s is ragged: row %d has %d entries, row 0 has %d", icrl.ErrShape, name, i, len(row), cols)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, 0, nil, fmt.Errorf("%w: %s[%d][%d] = %v is not finite", icrl.ErrNotFinite, name, i, j, v)
			}
		}
		a = append(a, row...)
	}
	return rows, cols, a, nil
}

func checkDense(name string, rows, cols int, data []float64) error {
	if rows <= 0 || cols <= 0 {
		return fmt.Errorf("%w: %s is %d×%d", icrl.ErrEmpty, name, rows, cols)
	}
	if err := num.CheckSize(icrl.ErrTooLarge, icrl.MaxEntries, name, rows, cols); err != nil {
		return err
	}
	if len(data) != rows*cols {
		return fmt.Errorf("%w: %s has %d entries, want %d×%d = %d", icrl.ErrShape, name, len(data), rows, cols, rows*cols)
	}
	for k, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d][%d] = %v is not finite", icrl.ErrNotFinite, name, k/cols, k%cols, v)
		}
	}
	return nil
}

// Dims returns the number of rows (row-player actions) and columns
// (column-player actions).
func (g *ZeroSum) Dims() (rows, cols int) { return g.rows, g.cols }

// At returns the row player's payoff A[i][j]. It panics if i or j is out of
// range.
func (g *ZeroSum) At(i, j int) float64 {
	if uint(i) >= uint(g.rows) || uint(j) >= uint(g.cols) {
		panic(fmt.Sprintf("game: index (%d, %d) out of range for %d×%d game", i, j, g.rows, g.cols))
	}
	return g.a[i*g.cols+j]
}

// Payoffs returns a copy of the payoff matrix as a slice of rows.
func (g *ZeroSum) Payoffs() [][]float64 {
	m := make([][]float64, g.rows)
	for i := range m {
		m[i] = append([]float64(nil), g.a[i*g.cols:(i+1)*g.cols]...)
	}
	return m
}

// RawPayoffs returns a copy of the row-major payoff data.
func (g *ZeroSum) RawPayoffs() []float64 { return append([]float64(nil), g.a...) }

// Bounds returns the smallest and the largest payoff.
func (g *ZeroSum) Bounds() (lo, hi float64) { return bounds(g.a) }

// InUnit reports whether every payoff lies in [0,1], the range bandit
// feedback assumes.
func (g *ZeroSum) InUnit() bool {
	lo, hi := g.Bounds()
	return lo >= 0 && hi <= 1
}

// Transpose returns the game seen from the column player as a maximiser:
// the returned game has payoffs −Aᵀ, so its row player is this game's column
// player. Its value is the negated value of g.
func (g *ZeroSum) Transpose() *ZeroSum {
	t := &ZeroSum{rows: g.cols, cols: g.rows, a: make([]float64, len(g.a))}
	for i := 0; i < g.rows; i++ {
		for j := 0; j < g.cols; j++ {
			t.a[j*g.rows+i] = -g.a[i*g.cols+j]
		}
	}
	return t
}

// RowPayoffs stores Ay, the expected payoff of each row against the column
// strategy y, in dst and returns it. If dst is nil a new slice is allocated.
// It panics if len(y) != cols or dst is non-nil with len(dst) != rows.
// The cost is O(rows·cols).
func (g *ZeroSum) RowPayoffs(dst, y []float64) []float64 {
	if len(y) != g.cols {
		panic(fmt.Sprintf("game: column strategy has length %d, want %d", len(y), g.cols))
	}
	dst = use(dst, g.rows)
	for i := range dst {
		row := g.a[i*g.cols : (i+1)*g.cols]
		var s float64
		for j, v := range row {
			s += v * y[j]
		}
		dst[i] = s
	}
	return dst
}

// ColPayoffs stores xᵀA, the expected row-player payoff of each column
// against the row strategy x, in dst and returns it. If dst is nil a new slice
// is allocated. It panics if len(x) != rows or dst is non-nil with
// len(dst) != cols. The cost is O(rows·cols).
func (g *ZeroSum) ColPayoffs(dst, x []float64) []float64 {
	if len(x) != g.rows {
		panic(fmt.Sprintf("game: row strategy has length %d, want %d", len(x), g.rows))
	}
	dst = use(dst, g.cols)
	clear(dst)
	for i, xi := range x {
		if xi == 0 {
			continue
		}
		row := g.a[i*g.cols : (i+1)*g.cols]
		for j, v := range row {
			dst[j] += xi * v
		}
	}
	return dst
}

// Payoff returns xᵀAy, the row player's expected payoff. It panics if the
// lengths do not match the game.
func (g *ZeroSum) Payoff(x, y []float64) float64 {
	if len(x) != g.rows || len(y) != g.cols {
		panic(fmt.Sprintf("game: strategies have lengths (%d, %d), want (%d, %d)", len(x), len(y), g.rows, g.cols))
	}
	var s float64
	for i, xi := range x {
		if xi == 0 {
			continue
		}
		row := g.a[i*g.cols : (i+1)*g.cols]
		var r float64
		for j, v := range row {
			r += v * y[j]
		}
		s += xi * r
	}
	return s
}

// DualityGap returns the duality gap of the strategy pair (x, y),
//
//	Gap(x, y) = max_x' x'ᵀAy − min_y' xᵀAy' = max_i (Ay)_i − min_j (xᵀA)_j ≥ 0,
//
// the metric of in-context-games-omd Theorems 4.2 and 4.4 written for a
// maximising row player (the paper writes some of its definitions for a
// minimising x; here x maximises xᵀAy throughout). It is zero exactly at a
// Nash equilibrium and equals the sum of the two players' improvements
// returned by [ZeroSum.Improvements] (OpenSpiel's NashConv; OpenSpiel's
// "exploitability" is half of it).
//
// It returns an error naming the problem if x or y is not a probability
// vector of the right length (see simplex.CheckDistribution). The cost is
// O(rows·cols).
func (g *ZeroSum) DualityGap(x, y []float64) (float64, error) {
	if err := g.checkPair(x, y); err != nil {
		return 0, err
	}
	return g.gap(x, y), nil
}

// Improvements returns how much each player gains by switching to a best
// response while the other keeps its strategy:
//
//	row = max_i (Ay)_i − xᵀAy,   col = xᵀAy − min_j (xᵀA)_j.
//
// Both are non-negative and row + col is the duality gap. It returns an error
// if x or y is not a probability vector of the right length.
func (g *ZeroSum) Improvements(x, y []float64) (row, col float64, err error) {
	if err := g.checkPair(x, y); err != nil {
		return 0, 0, err
	}
	v := g.Payoff(x, y)
	return max(maxOf(g.RowPayoffs(nil, y))-v, 0), max(v-minOf(g.ColPayoffs(nil, x)), 0), nil
}

// Exploitability returns each player's exploitability against the game
// value v (the value returned by [Solve]):
//
//	row = v − min_j (xᵀA)_j,   col = max_i (Ay)_i − v,
//
// what a best-responding opponent takes from each player beyond the value.
// Both are non-negative when v is the game's value, and row + col is the
// duality gap; a player is optimal exactly when its exploitability is zero.
// It returns an error if x or y is not a probability vector of the right
// length or v is not finite.
func (g *ZeroSum) Exploitability(x, y []float64, v float64) (row, col float64, err error) {
	if err := g.checkPair(x, y); err != nil {
		return 0, 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, 0, fmt.Errorf("%w: game value %v is not finite", icrl.ErrNotFinite, v)
	}
	return v - minOf(g.ColPayoffs(nil, x)), maxOf(g.RowPayoffs(nil, y)) - v, nil
}

// BestResponseRow returns a pure best response of the row player to the
// column strategy y (the smallest index among ties) and its payoff
// max_i (Ay)_i. It returns an error if y is not a probability vector over the
// columns.
func (g *ZeroSum) BestResponseRow(y []float64) (i int, payoff float64, err error) {
	if err := simplex.CheckDistribution("column strategy", y, g.cols); err != nil {
		return 0, 0, err
	}
	i, payoff = argmax(g.RowPayoffs(nil, y))
	return i, payoff, nil
}

// BestResponseCol returns a pure best response of the column player (the
// minimiser) to the row strategy x (the smallest index among ties) and the
// row player's resulting payoff min_j (xᵀA)_j. It returns an error if x is
// not a probability vector over the rows.
func (g *ZeroSum) BestResponseCol(x []float64) (j int, payoff float64, err error) {
	if err := simplex.CheckDistribution("row strategy", x, g.rows); err != nil {
		return 0, 0, err
	}
	j, payoff = argmin(g.ColPayoffs(nil, x))
	return j, payoff, nil
}

// Gap is [ZeroSum.DualityGap] without validation, for hot loops that already
// know x and y are distributions of the right lengths. It panics on a length
// mismatch and allocates two short slices.
func (g *ZeroSum) Gap(x, y []float64) float64 { return g.gap(x, y) }

func (g *ZeroSum) gap(x, y []float64) float64 {
	return max(maxOf(g.RowPayoffs(nil, y))-minOf(g.ColPayoffs(nil, x)), 0)
}

func (g *ZeroSum) checkPair(x, y []float64) error {
	if err := simplex.CheckDistribution("row strategy", x, g.rows); err != nil {
		return err
	}
	return simplex.CheckDistribution("column strategy", y, g.cols)
}

// Sample draws the row player's bandit reward for the joint action (a, b):
// a random variable with mean A[a][b] drawn by noise from rng. A nil noise
// means [Bernoulli]. The column player's reward is the negation (or, in the
// [0,1] convention of the learners, 1 minus the row player's reward). It
// panics if a or b is out of range.
func (g *ZeroSum) Sample(a, b int, noise Noise, rng *rand.Rand) float64 {
	m := g.At(a, b)
	if noise == nil {
		return Bernoulli{}.Draw(m, rng)
	}
	return noise.Draw(m, rng)
}

// Affine is the map v ↦ Scale·v + Shift with Scale > 0. Applied to every
// payoff of a game it leaves best responses and equilibria unchanged, maps
// the value v to Apply(v), and multiplies duality gaps and exploitabilities
// by Scale.
type Affine struct {
	Scale, Shift float64
}

// Apply returns Scale·v + Shift.
func (f Affine) Apply(v float64) float64 { return f.Scale*v + f.Shift }

// Invert returns the inverse of Apply: (v − Shift)/Scale.
func (f Affine) Invert(v float64) float64 { return (v - f.Shift) / f.Scale }

// Rescale returns the game with every payoff mapped by
// r ↦ (r − lo)/(hi − lo), so that payoffs in [lo, hi] land in [0,1], and the
// affine map it used. Use it to give bandit learners a game with arbitrary
// payoffs: for rock-paper-scissors, Rescale(RPS(), -1, 1) has value 1/2 and
// the same equilibrium. The payoffs are computed as (r − lo)/(hi − lo) (with
// a common factor taken out when hi − lo would overflow), so a payoff equal
// to lo or hi maps exactly to 0 or 1. It returns an error if lo or hi is
// not finite, hi <= lo, a payoff lies outside [lo, hi], or hi − lo is so
// small (below about 5.6e-309) that the scale 1/(hi − lo) overflows.
func Rescale(g *ZeroSum, lo, hi float64) (*ZeroSum, Affine, error) {
	if math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0) || hi <= lo {
		return nil, Affine{}, fmt.Errorf("%w: rescale range [%v, %v] is not a finite interval with lo < hi", icrl.ErrInvalid, lo, hi)
	}
	glo, ghi := g.Bounds()
	if glo < lo || ghi > hi {
		return nil, Affine{}, fmt.Errorf("%w: payoffs in [%v, %v] do not fit in the rescale range [%v, %v]", icrl.ErrInvalid, glo, ghi, lo, hi)
	}
	out, f := rescale(g, lo, hi)
	if math.IsInf(f.Scale, 0) {
		return nil, Affine{}, fmt.Errorf("%w: rescale range [%v, %v] is too narrow: the scale 1/(hi − lo) overflows", icrl.ErrInvalid, lo, hi)
	}
	return out, f, nil
}

// rescale maps the payoffs of g by r ↦ (r − lo)/(hi − lo), clamped to
// [0,1], for finite lo < hi. The differences are formed after dividing by
// s = max(|lo|, |hi|), so they cannot overflow.
func rescale(g *ZeroSum, lo, hi float64) (*ZeroSum, Affine) {
	s := max(math.Abs(lo), math.Abs(hi))
	slo, d := lo/s, hi/s-lo/s
	out := &ZeroSum{rows: g.rows, cols: g.cols, a: make([]float64, len(g.a))}
	for k, v := range g.a {
		out.a[k] = min(max((v/s-slo)/d, 0), 1)
	}
	return out, Affine{Scale: 1 / s / d, Shift: -slo / d}
}

// Normalize is [Rescale] with lo and hi the game's own smallest and largest
// payoffs, so the result spans [0,1] exactly. A constant game (lo == hi) maps
// to the all-zero game with Scale 1 and Shift −lo. If hi − lo is below about
// 5.6e-309 the game is still normalised but the returned Scale is +Inf.
func Normalize(g *ZeroSum) (*ZeroSum, Affine) {
	lo, hi := g.Bounds()
	if hi == lo {
		return &ZeroSum{rows: g.rows, cols: g.cols, a: make([]float64, len(g.a))}, Affine{Scale: 1, Shift: -lo}
	}
	return rescale(g, lo, hi)
}

// A Noise draws a bandit reward with a given mean. Implementations must be
// deterministic given the state of rng.
type Noise interface {
	// Draw returns a reward whose expectation is mean.
	Draw(mean float64, rng *rand.Rand) float64
}

// Bernoulli rewards are 1 with probability mean and 0 otherwise, the default
// bandit feedback for games with payoffs in [0,1]. A mean outside [0,1] is
// clamped to it.
type Bernoulli struct{}

// Draw returns 1 with probability mean, else 0.
func (Bernoulli) Draw(mean float64, rng *rand.Rand) float64 {
	if rng.Float64() < mean {
		return 1
	}
	return 0
}

// Exact feedback returns the mean itself: deterministic rewards
// r_t = A[a_t][b_t], the setting of this module's self-play golden tests.
type Exact struct{}

// Draw returns mean.
func (Exact) Draw(mean float64, _ *rand.Rand) float64 { return mean }

// UniformNoise adds zero-mean uniform noise of half-width at most HalfWidth
// while keeping rewards in [0,1]: the reward is mean + w·U with U uniform on
// [−1, 1] and w = min(HalfWidth, mean, 1−mean), so its expectation is exactly
// mean and it never leaves [0,1] when mean is in [0,1]. A negative HalfWidth
// is treated as zero.
type UniformNoise struct {
	HalfWidth float64
}

// Draw returns mean plus bounded zero-mean noise.
func (n UniformNoise) Draw(mean float64, rng *rand.Rand) float64 {
	w := min(n.HalfWidth, mean, 1-mean)
	if w <= 0 {
		return mean
	}
	return mean + w*(2*rng.Float64()-1)
}

func use(dst []float64, n int) []float64 {
	if dst == nil {
		return make([]float64, n)
	}
	if len(dst) != n {
		panic(fmt.Sprintf("game: destination has length %d, want %d", len(dst), n))
	}
	return dst
}

func bounds(a []float64) (lo, hi float64) {
	lo, hi = a[0], a[0]
	for _, v := range a[1:] {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	return lo, hi
}

func maxOf(s []float64) float64 { _, v := argmax(s); return v }
func minOf(s []float64) float64 { _, v := argmin(s); return v }

// argmax returns the first index of the largest element and its value.
func argmax(s []float64) (int, float64) {
	k, m := 0, s[0]
	for i, v := range s[1:] {
		if v > m {
			k, m = i+1, v
		}
	}
	return k, m
}

// argmin returns the first index of the smallest element and its value.
func argmin(s []float64) (int, float64) {
	k, m := 0, s[0]
	for i, v := range s[1:] {
		if v < m {
			k, m = i+1, v
		}
	}
	return k, m
}
