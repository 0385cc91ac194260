package control

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/tensor"
)

// EvalQuantized returns the quantized cost 𝔆_T(ŝ_T) of eq. (31) (squared
// once) of the open-loop action sequence actions (len T) run from
// [Problem.Init] through the quantized dynamics 𝚽^(ℓ,n,m). It returns an
// error if len(actions) ≠ T, an index is out of range, or a transition
// fails (OutOfGrid = Fail).
func EvalQuantized[F tensor.Float](p *Problem[F], actions []int) (float64, error) {
	if len(actions) != p.horizon {
		return 0, fmt.Errorf("%w: %d actions for horizon T = %d", icrl.ErrInvalid, len(actions), p.horizon)
	}
	for t, j := range actions {
		if j < 0 || j >= len(p.actions) {
			return 0, fmt.Errorf("%w: action %d at time %d outside [0, %d)", icrl.ErrInvalid, j, t, len(p.actions))
		}
	}
	w := p.newWork()
	enc := p.s0
	for t, j := range actions {
		var out int
		enc, out = p.stepAny(enc, t, j, p.general, w)
		if out > 0 && p.oog == Fail {
			return 0, p.failErr(t, j)
		}
	}
	return p.terminal(enc, w), nil
}

// maxSequences bounds the action sequences of the brute-force evaluations.
const maxSequences = 1 << 24

// ContinuousCosts returns the continuous (OP) cost per token, (1/(NK))
// Σ_k Σ_i ‖x_T^{i,k} − y^{i,k}‖² of the unquantised transformer (eq. (1)),
// of every action sequence in 𝕌_m^T, in lexicographic order: entry
// Σ_t j_t·M^{T−1−t} belongs to (j_0, …, j_{T−1}). It runs depth-first,
// reusing each prefix's layer outputs, so the cost is about M^T·K layers.
// It returns an error if the block, an action or the data is invalid,
// T < 0, the action set is empty, or M^T exceeds 2^24.
func ContinuousCosts[F tensor.Float](b Block[F], actions []*Action[F], T int, data Dataset[F]) ([]float64, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if T < 0 {
		return nil, fmt.Errorf("%w: horizon T = %d must be non-negative", icrl.ErrInvalid, T)
	}
	if err := data.Validate(b.Dims.D); err != nil {
		return nil, err
	}
	M := len(actions)
	if M == 0 {
		return nil, fmt.Errorf("%w: empty action set", icrl.ErrInvalid)
	}
	for j, u := range actions {
		if u == nil {
			return nil, fmt.Errorf("%w: action %d is nil", icrl.ErrNil, j)
		}
		if u.Dims != b.Dims {
			return nil, fmt.Errorf("%w: action %d has dims %+v, block has %+v", icrl.ErrInvalid, j, u.Dims, b.Dims)
		}
		if err := u.Validate(); err != nil {
			return nil, fmt.Errorf("control: action %d: %w", j, err)
		}
	}
	n := 1
	for range T {
		if n > maxSequences/M {
			return nil, fmt.Errorf("%w: %d^%d action sequences exceed %d", icrl.ErrInvalid, M, T, maxSequences)
		}
		n *= M
	}
	K, N, D := data.Dims()
	// states[t] holds the K·N tokens after t layers.
	states := make([][][]F, T+1)
	for t := range states {
		buf := make([]F, K*N*D)
		states[t] = make([][]F, K*N)
		for i := range states[t] {
			states[t][i] = buf[i*D : (i+1)*D : (i+1)*D]
		}
	}
	for k := range K {
		for i := range N {
			copy(states[0][k*N+i], data.X.Row(k, i))
		}
	}
	sc := b.NewScratch(N)
	costs := make([]float64, 0, n)
	var rec func(t int)
	rec = func(t int) {
		if t == T {
			total := 0.0
			for k := range K {
				for i := range N {
					total += sqDist(states[T][k*N+i], data.Y.Row(k, i))
				}
			}
			if math.IsNaN(total) || math.IsInf(total, 0) {
				total = math.Inf(1)
			}
			costs = append(costs, total/float64(N*K))
			return
		}
		for j := range M {
			for k := range K {
				b.Layer(states[t+1][k*N:(k+1)*N], states[t][k*N:(k+1)*N], actions[j], sc)
			}
			rec(t + 1)
		}
	}
	rec(0)
	return costs, nil
}

// BruteForceContinuous returns the lowest-index minimiser over 𝕌_m^T of the
// continuous (OP) cost per token (see [ContinuousCosts]) and its value:
// the reference min_{U ∈ 𝕌_m^T} V(U) of the quantisation gap of
// Theorem 14. Tiny action sets only; errors are those of ContinuousCosts.
func BruteForceContinuous[F tensor.Float](b Block[F], actions []*Action[F], T int, data Dataset[F]) ([]int, float64, error) {
	costs, err := ContinuousCosts(b, actions, T, data)
	if err != nil {
		return nil, 0, err
	}
	best := 0
	for e, c := range costs {
		if c < costs[best] {
			best = e
		}
	}
	seq := make([]int, T)
	for t, e := T-1, best; t >= 0; t-- {
		seq[t] = e % len(actions)
		e /= len(actions)
	}
	return seq, costs[best], nil
}
