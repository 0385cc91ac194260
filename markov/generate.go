package markov

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/num"
	"gonum.org/v1/gonum/mat"
)

// RandomDiscounted returns a random discounted zero-sum Markov game with
// the given numbers of states and actions and discount gamma: every reward
// r(s,a,b) is drawn uniformly from [0, 1) and every transition row
// P(·|s,a,b) from the flat Dirichlet(1, …, 1) law on the simplex (drawn as
// independent standard exponentials divided by their sum). For each
// (s, a, b) in lexicographic order it draws the reward, then the S
// exponentials, from rng, so a seed determines the game.
//
// It returns an error if a size is not positive, gamma is outside [0, 1), or
// rng is nil. The cost is O(S²·A·B).
func RandomDiscounted(states, rows, cols int, gamma float64, rng *rand.Rand) (*Discounted, error) {
	if states <= 0 || rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("%w: random game with %d states and %d×%d actions: sizes must be positive", icrl.ErrInvalid, states, rows, cols)
	}
	if !(gamma >= 0 && gamma < 1) {
		return nil, fmt.Errorf("%w: discount γ = %v is outside [0, 1)", icrl.ErrInvalid, gamma)
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: RandomDiscounted needs a random number generator", icrl.ErrNilRand)
	}
	if _, ok := num.SizeWithin(epiMaxEntries, states, rows, cols, states); !ok {
		return nil, fmt.Errorf("%w: random game with %d states and %d×%d actions has more than 2^34 transition entries", icrl.ErrTooLarge, states, rows, cols)
	}
	n := states * rows * cols
	dk := &DenseKernel{states: states, joint: rows * cols, p: make([]float64, n*states)}
	g := &Discounted{states: states, rows: rows, cols: cols, gamma: gamma, r: make([]float64, n), kern: dk}
	for k := range n {
		g.r[k] = rng.Float64()
		row := dk.p[k*states : (k+1)*states]
		flatDirichlet(row, rng)
	}
	return g, nil
}

// PerturbedDiscounted is a family of "similar" discounted Markov games
// around a base game, the prior Λ of the Markov experiments of
// in-context-games-omd §5, which say only that "transition probabilities
// and reward matrices were perturbed from a base game with controlled
// perturbation magnitude (ρ = 0.1)". The law is inferred, in the spirit of
// game.Perturbed: a draw has rewards
//
//	r'(s,a,b) = clip_[0,1](r(s,a,b) + ρ·ξ)
//
// and transition rows
//
//	P'(s'|s,a,b) ∝ max(P(s'|s,a,b) + ρ·ξ_{s'}, 0),
//
// renormalised to sum to 1, with every ξ drawn independently from the law
// (uniform on [−1, 1] or standard normal). A transition row whose perturbed
// entries are all zero (possible only for large ρ) falls back to the base
// row. Note that zero base probabilities can become positive, so the
// perturbation may change which states are reachable. The discount and the
// dimensions are the base game's.
//
// A PerturbedDiscounted is immutable and safe for concurrent use if each
// goroutine passes its own rng.
type PerturbedDiscounted struct {
	base *Discounted
	rho  float64
	law  game.PerturbationLaw
}

// NewPerturbedDiscounted returns the family around base with magnitude rho
// and noise law law. It returns an error if base is nil or has a reward
// outside [0, 1], rho is negative or not finite, or law is unknown.
func NewPerturbedDiscounted(base *Discounted, rho float64, law game.PerturbationLaw) (*PerturbedDiscounted, error) {
	if base == nil {
		return nil, fmt.Errorf("%w: perturbed family needs a base game", icrl.ErrEmpty)
	}
	if !base.InUnit() {
		for k, r := range base.r {
			if r < 0 || r > 1 {
				s, ab := k/(base.rows*base.cols), k%(base.rows*base.cols)
				return nil, fmt.Errorf("%w: base reward r(%d, %d, %d) = %v is outside [0, 1]", icrl.ErrInvalid, s, ab/base.cols, ab%base.cols, r)
			}
		}
	}
	if !(rho >= 0) || math.IsInf(rho, 0) {
		return nil, fmt.Errorf("%w: perturbation magnitude ρ = %v must be finite and non-negative", icrl.ErrInvalid, rho)
	}
	if law != game.PerturbUniform && law != game.PerturbGaussian {
		return nil, fmt.Errorf("%w: unknown perturbation law %v", icrl.ErrInvalid, law)
	}
	return &PerturbedDiscounted{base: base, rho: rho, law: law}, nil
}

// Base returns the base game.
func (f *PerturbedDiscounted) Base() *Discounted { return f.base }

// Rho returns the perturbation magnitude ρ.
func (f *PerturbedDiscounted) Rho() float64 { return f.rho }

// Law returns the law of the noise ξ.
func (f *PerturbedDiscounted) Law() game.PerturbationLaw { return f.law }

// Sample draws one game of the family from rng: for each (s, a, b) in
// lexicographic order, the reward's ξ and then the S transition ξ's. The
// result satisfies every invariant of [NewDiscounted], with rewards in
// [0, 1]. It panics if rng is nil. The cost is O(S²·A·B).
func (f *PerturbedDiscounted) Sample(rng *rand.Rand) *Discounted {
	b := f.base
	S := b.states
	J := b.rows * b.cols
	dk := &DenseKernel{states: S, joint: J, p: make([]float64, S*J*S)}
	g := &Discounted{states: S, rows: b.rows, cols: b.cols, gamma: b.gamma, r: make([]float64, len(b.r)), kern: dk}
	var scratch []float64
	xi := func() float64 {
		if f.law == game.PerturbGaussian {
			return rng.NormFloat64()
		}
		return 2*rng.Float64() - 1
	}
	for k, r := range b.r {
		g.r[k] = min(max(r+f.rho*xi(), 0), 1)
		base := denseRow(b.kern, k/J, k%J, scratch)
		if _, ok := b.kern.(*DenseKernel); !ok {
			scratch = base
		}
		row := dk.p[k*S : (k+1)*S]
		var sum float64
		for s, p := range base {
			row[s] = max(p+f.rho*xi(), 0)
			sum += row[s]
		}
		if !(sum > 0) {
			copy(row, base)
			continue
		}
		for s := range row {
			row[s] /= sum
		}
	}
	return g
}

// MaxHittingTime returns the constant L of Assumption 4.2 of
// in-context-games-omd (§4.3): the largest expected hitting time
//
//	L = max_{s ≠ s'} max_{(x, y)} E^{x,y}[min{t ≥ 1 : s_{t+1} = s'} | s_1 = s]
//
// over ordered pairs of distinct states and pairs of stationary policies
// (the number of transitions needed to reach s' from s). For each target s'
// this is a Markov decision process whose actions are the joint actions
// (a, b), with reward 1 per step until s' is reached. A product of
// stationary policies is a randomised stationary policy of that MDP, and
// the MDP's optimum is attained by a deterministic joint action in each
// state, which is itself a product policy; so the maximum over policy pairs
// equals the maximum over deterministic joint actions.
//
// For each target, a graph computation first finds the states from which
// some policy pair avoids s' with positive probability forever: the largest
// set Z of states other than s' in which some joint action keeps the next
// state in Z with probability 1, and every state with a joint action that
// reaches that set with positive probability, recursively. If that set is
// non-empty the hitting time is infinite and MaxHittingTime returns +Inf
// (and no error). Otherwise every policy reaches s' with probability 1 and
// the maximal expected times solve a transient MDP, which is solved exactly
// by policy iteration (each step an LU solve of (I − P_{−s'})h = 1) rather
// than value iteration: the same fixed point, reached in finitely many
// steps. A single-state game has no pair of distinct states; it returns 0.
//
// Goldens: uniform transitions over S states give L = S (each step hits s'
// with probability 1/S), so a two-state game with uniform transitions has
// L = 2.
//
// It returns an error if g is nil or a linear solve fails (an expected time
// too large for float64). The cost is O(S·k·(S³ + S²·A·B)) for k policy
// iteration steps per target (typically a few).
func MaxHittingTime(g *Discounted) (float64, error) {
	if g == nil {
		return 0, fmt.Errorf("%w: MaxHittingTime of a nil game", icrl.ErrEmpty)
	}
	S := g.states
	if S == 1 {
		return 0, nil
	}
	var L float64
	for target := range S {
		h, err := g.maxHitting(target)
		if err != nil {
			return 0, err
		}
		for _, t := range h {
			L = max(L, t)
		}
		if math.IsInf(L, 1) {
			return L, nil
		}
	}
	return L, nil
}

// maxHitting returns the maximal expected hitting time of target from every
// state (0 for the target itself, +Inf where some policy avoids it with
// positive probability forever).
func (g *Discounted) maxHitting(target int) ([]float64, error) {
	S, K := g.states, g.rows*g.cols
	rows := make([][]float64, S*K) // the rows, dense (the game is small)
	for s := range S {
		for k := range K {
			rows[s*K+k] = denseRow(g.kern, s, k, nil)
		}
	}
	row := func(s, k int) []float64 { return rows[s*K+k] }
	inR := avoidingStates(S, K, target, row)
	h := make([]float64, S)
	for s, r := range inR {
		if r {
			h[s] = math.Inf(1)
		}
	}
	// Transient states: C = not target, not in R. Every joint action from
	// C puts no mass on R, so the process stays in C until it hits target.
	var idx []int
	pos := make([]int, S)
	for s := range S {
		pos[s] = -1
		if s != target && !inR[s] {
			pos[s] = len(idx)
			idx = append(idx, s)
		}
	}
	if len(idx) == 0 {
		return h, nil
	}
	t, err := maxTransientTimes(idx, pos, K, target, row)
	if err != nil {
		return nil, err
	}
	for i, s := range idx {
		h[s] = t[i]
	}
	return h, nil
}

// avoidingStates returns the states from which some joint-action sequence
// avoids target forever with positive probability: the greatest set Z of
// non-target states in which a joint action stays with probability 1, and
// the states that reach Z with positive probability while avoiding the
// target. row(s, k) is the transition law of joint action k in state s.
func avoidingStates(S, K, target int, row func(s, k int) []float64) []bool {
	inZ := make([]bool, S)
	for s := range inZ {
		inZ[s] = s != target
	}
	for changed := true; changed; {
		changed = false
		for s := range S {
			if !inZ[s] {
				continue
			}
			keep := false
			for k := range K {
				ok := true
				for s2, p := range row(s, k) {
					if p > 0 && !inZ[s2] {
						ok = false
						break
					}
				}
				if ok {
					keep = true
					break
				}
			}
			if !keep {
				inZ[s], changed = false, true
			}
		}
	}
	inR := append([]bool(nil), inZ...)
	for changed := true; changed; {
		changed = false
		for s := range S {
			if inR[s] || s == target {
				continue
			}
		search:
			for k := range K {
				for s2, p := range row(s, k) {
					if p > 0 && inR[s2] {
						inR[s], changed = true, true
						break search
					}
				}
			}
		}
	}
	return inR
}

// maxTransientTimes returns, by policy iteration, the maximal expected
// hitting times of target from the transient states idx (pos[s] is the
// index of state s in idx, or −1), over joint-action policies.
func maxTransientTimes(idx, pos []int, K, target int, row func(s, k int) []float64) ([]float64, error) {
	n := len(idx)
	pol := make([]int, n)
	t := make([]float64, n)
	m := mat.NewDense(n, n, nil)
	ones := mat.NewVecDense(n, nil)
	for i := range n {
		ones.SetVec(i, 1)
	}
	var lu mat.LU
	q := make([]float64, K)
	for it := 0; ; it++ {
		if it > 1000 {
			return nil, fmt.Errorf("%w: MaxHittingTime: policy iteration for target state %d did not stop", ErrNoConvergence, target)
		}
		m.Zero()
		for i, s := range idx {
			m.Set(i, i, 1)
			for s2, p := range row(s, pol[i]) {
				if j := pos[s2]; j >= 0 {
					m.Set(i, j, m.At(i, j)-p)
				}
			}
		}
		lu.Factorize(m)
		if err := lu.SolveVecTo(mat.NewVecDense(n, t), false, ones); err != nil {
			return nil, fmt.Errorf("markov: MaxHittingTime: hitting times of state %d: %w", target, err)
		}
		var scale float64
		for _, v := range t {
			scale = max(scale, math.Abs(v))
		}
		eps := 1e-12 * scale
		changed := false
		for i, s := range idx {
			for k := range K {
				v := 1.0
				for s2, p := range row(s, k) {
					if j := pos[s2]; j >= 0 {
						v += p * t[j]
					}
				}
				q[k] = v
			}
			if best := firstMax(q); q[best] > q[pol[i]]+eps {
				pol[i], changed = best, true
			}
		}
		if !changed {
			return t, nil
		}
	}
}

// flatDirichlet fills row with a draw from the flat Dirichlet distribution
// on the simplex (normalised standard exponentials), len(row) draws from
// rng in order.
func flatDirichlet(row []float64, rng *rand.Rand) {
	var sum float64
	for k := range row {
		row[k] = rng.ExpFloat64()
		sum += row[k]
	}
	for k := range row {
		row[k] /= sum
	}
}
