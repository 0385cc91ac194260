package control

import (
	"errors"
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
)

// Objective is the continuous training objective of (OP)
// (optimal-control-transformer-training §1.5, eq. (4)) as a function of the
// weights of all T layers, with its exact gradient: the mean squared error
// per token
//
//	J(U_0, …, U_{T−1}) = (1/(N K)) Σ_k Σ_i ‖x_T^{k,i} − y^{k,i}‖²
//
// of the deployed block of eq. (1) (no quantisation; the number
// [EvalContinuous] reports as perToken). It is what gradient descent, the
// method the paper argues against, minimises. The parameters θ are the T
// layers' flat actions ([Action.Flatten] order: W, A, b, Q, K, V)
// concatenated, T·Dims.Params() values.
//
// The gradient is computed by a hand-written backward pass through eq. (1):
// the feed-forward branch W σ(A x + b) and the attention branch
// V Σ_j softmax_j(β⟨Q x^i, K x^j⟩) x^j of every layer. σ must be ReLU (whose
// derivative at 0 is taken as 0) or Tanh. It is in float64 throughout. An
// evaluation with its gradient costs O(T·K·N·(N·(D + QK) + D·(Hidden + QK)))
// time; an Objective is immutable and safe for concurrent use, each call
// allocating its own O(T·K·N·(N + D + Hidden + QK)) scratch.
type Objective struct {
	block  Block[float64]
	layers int
	data   Dataset[float64]
	tanh   bool
}

// ErrActivation is returned when a gradient is asked of an activation other
// than ReLU or Tanh.
var ErrActivation = errors.New("control: the gradient needs ReLU or Tanh")

// NewObjective returns the objective of T layers of block b on data. It
// returns an error if b, T or the data is invalid, or σ is neither ReLU nor
// Tanh (wrapping [ErrActivation]).
func NewObjective(b Block[float64], T int, data Dataset[float64]) (*Objective, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if T < 1 {
		return nil, fmt.Errorf("%w: Objective needs T ≥ 1 layers, got %d", icrl.ErrInvalid, T)
	}
	if err := data.Validate(b.Dims.D); err != nil {
		return nil, err
	}
	o := &Objective{block: b, layers: T, data: data}
	switch b.Sigma.(type) {
	case nil, ReLU[float64]:
	case Tanh[float64]:
		o.tanh = true
	default:
		return nil, fmt.Errorf("%w, got %T", ErrActivation, b.Sigma)
	}
	return o, nil
}

// Params returns the number of parameters T·Dims.Params().
func (o *Objective) Params() int { return o.layers * o.block.Dims.Params() }

// Layers returns T.
func (o *Objective) Layers() int { return o.layers }

// Actions splits θ into the T layers' actions (copies).
func (o *Objective) Actions(theta []float64) ([]Action[float64], error) {
	if len(theta) != o.Params() {
		return nil, fmt.Errorf("%w: Objective parameters have length %d, want %d", icrl.ErrInvalid, len(theta), o.Params())
	}
	P := o.block.Dims.Params()
	us := make([]Action[float64], o.layers)
	for t := range us {
		u, err := NewAction(o.block.Dims, theta[t*P:(t+1)*P])
		if err != nil {
			return nil, err
		}
		us[t] = *u
	}
	return us, nil
}

// layerCache holds one layer's forward quantities for one sequence.
type layerCache struct {
	x, h, a, q, k, p, avg []float64 // N×D, N×H, N×H, N×QK, N×QK, N×N, N×D
}

// Eval returns J(θ) and, if grad is not nil, stores ∇J(θ) in it. It returns
// an error if θ or grad has the wrong length or the forward pass is not
// finite.
func (o *Objective) Eval(theta, grad []float64) (float64, error) {
	P := o.block.Dims.Params()
	if len(theta) != o.layers*P {
		return 0, fmt.Errorf("%w: Objective parameters have length %d, want %d", icrl.ErrInvalid, len(theta), o.layers*P)
	}
	if grad != nil {
		if len(grad) != len(theta) {
			return 0, fmt.Errorf("%w: Objective gradient has length %d, want %d", icrl.ErrInvalid, len(grad), len(theta))
		}
		clear(grad)
	}
	d := o.block.Dims
	D, H, Q := d.D, d.Hidden, d.QK
	K, N, _ := o.data.Dims()
	scale := 1 / float64(N*K)
	cache := make([]layerCache, o.layers)
	for t := range cache {
		cache[t] = layerCache{
			x: make([]float64, N*D), h: make([]float64, N*H), a: make([]float64, N*H),
			q: make([]float64, N*Q), k: make([]float64, N*Q), p: make([]float64, N*N), avg: make([]float64, N*D),
		}
	}
	y := make([]float64, N*D)
	gy := make([]float64, N*D)
	gx := make([]float64, N*D)
	gh := make([]float64, H)
	gavg := make([]float64, D)
	gq := make([]float64, Q)
	gk := make([]float64, N*Q)
	gp := make([]float64, N)
	var loss float64
	for seq := range K {
		for i, tok := range tokens(o.data.X, seq) {
			copy(cache[0].x[i*D:(i+1)*D], tok)
		}
		for t := range o.layers {
			out := y
			if t+1 < o.layers {
				out = cache[t+1].x
			}
			o.forward(&cache[t], theta[t*P:(t+1)*P], out, N)
		}
		for i, lab := range tokens(o.data.Y, seq) {
			for c := range D {
				r := y[i*D+c] - lab[c]
				loss += r * r
				gy[i*D+c] = 2 * r * scale
			}
		}
		if grad == nil {
			continue
		}
		for t := o.layers - 1; t >= 0; t-- {
			o.backward(&cache[t], theta[t*P:(t+1)*P], grad[t*P:(t+1)*P], gy, gx, gh, gavg, gq, gk, gp, N)
			gy, gx = gx, gy
		}
	}
	loss *= scale
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, fmt.Errorf("%w: Objective value %v is not finite", icrl.ErrNotFinite, loss)
	}
	return loss, nil
}

// split returns the views W, A, b, Q, K, V of one layer's flat action u.
func (o *Objective) split(u []float64) (W, A, b, Qm, Km, V []float64) {
	d := o.block.Dims
	D, H, Q := d.D, d.Hidden, d.QK
	W, u = u[:D*H], u[D*H:]
	A, u = u[:H*D], u[H*D:]
	b, u = u[:H], u[H:]
	Qm, u = u[:Q*D], u[Q*D:]
	Km, u = u[:Q*D], u[Q*D:]
	return W, A, b, Qm, Km, u[:D*D]
}

// forward runs one layer on c.x (N tokens) into out, filling the cache.
func (o *Objective) forward(c *layerCache, u, out []float64, N int) {
	d := o.block.Dims
	D, H, Q := d.D, d.Hidden, d.QK
	W, A, b, Qm, Km, V := o.split(u)
	beta := o.block.Beta
	for i := range N {
		xi := c.x[i*D : (i+1)*D]
		for r := range H {
			v := b[r]
			for cc, x := range xi {
				v += A[r*D+cc] * x
			}
			c.h[i*H+r] = v
			switch {
			case o.tanh:
				c.a[i*H+r] = math.Tanh(v)
			case v > 0:
				c.a[i*H+r] = v
			default:
				c.a[i*H+r] = 0
			}
		}
		for r := range Q {
			var qv, kv float64
			for cc, x := range xi {
				qv += Qm[r*D+cc] * x
				kv += Km[r*D+cc] * x
			}
			c.q[i*Q+r] = beta * qv
			c.k[i*Q+r] = kv
		}
	}
	for i := range N {
		p := c.p[i*N : (i+1)*N]
		m := math.Inf(-1)
		for j := range N {
			var s float64
			for r := range Q {
				s += c.q[i*Q+r] * c.k[j*Q+r]
			}
			p[j] = s
			m = max(m, s)
		}
		var den float64
		for j := range N {
			p[j] = math.Exp(p[j] - m)
			den += p[j]
		}
		avg := c.avg[i*D : (i+1)*D]
		clear(avg)
		for j := range N {
			p[j] /= den
			for cc := range D {
				avg[cc] += p[j] * c.x[j*D+cc]
			}
		}
		oi := out[i*D : (i+1)*D]
		ai := c.a[i*H : (i+1)*H]
		for r := range D {
			var v float64
			for cc := range H {
				v += W[r*H+cc] * ai[cc]
			}
			for cc := range D {
				v += V[r*D+cc] * avg[cc]
			}
			oi[r] = v
		}
	}
}

// backward accumulates one layer's parameter gradient into g given the
// gradient gy of its output, and stores the gradient of its input in gx.
func (o *Objective) backward(c *layerCache, u, g, gy, gx, gh, gavg, gq, gk, gp []float64, N int) {
	d := o.block.Dims
	D, H, Q := d.D, d.Hidden, d.QK
	W, A, _, Qm, Km, V := o.split(u)
	gW, gA, gb, gQ, gK, gV := o.split(g)
	beta := o.block.Beta
	clear(gx[:N*D])
	clear(gk[:N*Q])
	for i := range N {
		gyi := gy[i*D : (i+1)*D]
		xi := c.x[i*D : (i+1)*D]
		ai, hi := c.a[i*H:(i+1)*H], c.h[i*H:(i+1)*H]
		// Feed-forward branch.
		for cc := range H {
			var ga float64
			for r := range D {
				gW[r*H+cc] += gyi[r] * ai[cc]
				ga += W[r*H+cc] * gyi[r]
			}
			switch {
			case o.tanh:
				gh[cc] = ga * (1 - ai[cc]*ai[cc])
			case hi[cc] > 0:
				gh[cc] = ga
			default:
				gh[cc] = 0
			}
		}
		for r := range H {
			gb[r] += gh[r]
			for cc := range D {
				gA[r*D+cc] += gh[r] * xi[cc]
				gx[i*D+cc] += A[r*D+cc] * gh[r]
			}
		}
		// Attention branch: out_i += V avg_i, avg_i = Σ_j p_ij x_j.
		avg := c.avg[i*D : (i+1)*D]
		clear(gavg)
		for r := range D {
			for cc := range D {
				gV[r*D+cc] += gyi[r] * avg[cc]
				gavg[cc] += V[r*D+cc] * gyi[r]
			}
		}
		p := c.p[i*N : (i+1)*N]
		var dot float64
		for j := range N {
			xj := c.x[j*D : (j+1)*D]
			var s float64
			for cc := range D {
				s += gavg[cc] * xj[cc]
				gx[j*D+cc] += p[j] * gavg[cc]
			}
			gp[j] = s
			dot += p[j] * s
		}
		clear(gq)
		qi := c.q[i*Q : (i+1)*Q]
		for j := range N {
			gs := p[j] * (gp[j] - dot)
			for r := range Q {
				gq[r] += gs * c.k[j*Q+r]
				gk[j*Q+r] += gs * qi[r]
			}
		}
		// q_i = β Q x_i.
		for r := range Q {
			for cc := range D {
				gQ[r*D+cc] += beta * gq[r] * xi[cc]
				gx[i*D+cc] += beta * Qm[r*D+cc] * gq[r]
			}
		}
	}
	// k_j = K x_j.
	for j := range N {
		xj := c.x[j*D : (j+1)*D]
		for r := range Q {
			for cc := range D {
				gK[r*D+cc] += gk[j*Q+r] * xj[cc]
				gx[j*D+cc] += Km[r*D+cc] * gk[j*Q+r]
			}
		}
	}
}
