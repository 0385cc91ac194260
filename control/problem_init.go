package control

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/quantize"
)

// diameter returns the diagonal of the bounding box of every grid point
// (and of the raw labels with RawLabels), an upper bound on the diameter
// of the set of states the terminal cost can see.
func (p *Problem[F]) diameter() F {
	D := p.D
	lo := make([]float64, D)
	hi := make([]float64, D)
	for c := range D {
		lo[c], hi[c] = math.Inf(1), math.Inf(-1)
	}
	add := func(x []F) {
		for c, v := range x {
			lo[c] = min(lo[c], float64(v))
			hi[c] = max(hi[c], float64(v))
		}
	}
	for t, pts := range p.pts {
		if t > 0 && sameGrid(p.grids, t) < t {
			continue
		}
		for o := 0; o < len(pts); o += D {
			add(pts[o : o+D])
		}
	}
	if p.term == RawLabels {
		_, _, D := p.data.Dims()
		ys := p.data.Y.Data()
		for o := 0; o < len(ys); o += D {
			add(ys[o : o+D])
		}
	}
	s := 0.0
	for c := range D {
		w := hi[c] - lo[c]
		s += w * w
	}
	return F(math.Sqrt(s))
}

// AppendActions appends actions to 𝕌_m (in order, so earlier indices keep
// their meaning: nested action sets) and tabulates them on
// the grids. It returns an error naming the action if one is nil, invalid
// or of other sizes than the block; then nothing is appended. It must not
// run concurrently with any other use of p.
func (p *Problem[F]) AppendActions(us ...*Action[F]) error {
	for j, u := range us {
		if u == nil {
			return fmt.Errorf("%w: action %d is nil", icrl.ErrNil, len(p.actions)+j)
		}
		if u.Dims != p.block.Dims {
			return fmt.Errorf("%w: action %d has dims %+v, block has %+v", icrl.ErrInvalid, len(p.actions)+j, u.Dims, p.block.Dims)
		}
		if err := u.Validate(); err != nil {
			return fmt.Errorf("control: action %d: %w", len(p.actions)+j, err)
		}
	}
	for _, u := range us {
		u = u.Clone()
		p.actions = append(p.actions, u)
		for ts, t := range p.tabG {
			p.tabs[ts] = append(p.tabs[ts], p.tabulate(t, u))
		}
	}
	return nil
}

// tabulate returns the table of action u on the grid of time t: per grid
// point s, W σ(A s + b) (D), β Q s (QK) and K s (QK), computed exactly as
// [Block.Layer] computes them.
func (p *Problem[F]) tabulate(t int, u *Action[F]) []F {
	G, D, QK, st := p.gsize[t], p.D, p.QK, p.stride
	tab := make([]F, G*st)
	h := make([]F, p.block.Dims.Hidden)
	pts := p.pts[t]
	for j := range G {
		x := pts[j*D : j*D+D]
		r := tab[j*st : j*st+st]
		p.block.feedForward(r[:D], x, u, h)
		q := r[D : D+QK]
		matVec(q, u.Q, x)
		for c := range q {
			q[c] *= p.block.Beta
		}
		matVec(r[D+QK:D+2*QK], u.K, x)
	}
	return tab
}

// initStates snaps the data and builds s0 and the labels (Algorithm 1
// lines 5–8).
func (p *Problem[F]) initStates() error {
	K, N, D, T := p.K, p.N, p.D, p.horizon
	g0, gT := p.grids[0], p.grids[T]
	idx := make([]int32, N)
	prob := make([]float64, N)
	for i := range prob {
		prob[i] = 1 / float64(N)
	}
	snap := func(g quantize.StateQuantizer[F], x []F, what string, k, i int) (int32, error) {
		j, inside := g.Nearest(x)
		if j < 0 || j >= g.Size() {
			return 0, fmt.Errorf("%w: grid returned index %d outside [0, %d) for %s token (%d, %d)", icrl.ErrInvalid, j, g.Size(), what, k, i)
		}
		p.initTotal++
		if !inside {
			if !p.allowOutside {
				return 0, fmt.Errorf("%w: %s token (%d, %d) = %v lies outside the grid's box: the grid does not cover the data (set AllowDataOutsideGrid to snap it)", icrl.ErrInvalid, what, k, i, x)
			}
			switch p.oog {
			case Fail:
				return 0, fmt.Errorf("%w: %s token (%d, %d) = %v lies outside the grid's box (OutOfGrid = Fail)", icrl.ErrInvalid, what, k, i, x)
			case SnapAndCount:
				p.initOutside++
			}
		}
		return int32(j), nil
	}
	quant := func(t int) (quantize.QMeasure, error) {
		return quantize.QuantizeMeasure(idx, prob, p.ell, p.mq, p.ix[t])
	}

	p.labPts = make([]F, K*N*D)
	p.labCnt = make([]int32, K*N)
	p.labAtoms = make([][]quantize.Atom[F], K)
	p.labCnts = make([][]int, K)
	p.s0 = p.s0[:0]
	for k := range K {
		// Inputs.
		for i := range N {
			j, err := snap(g0, p.data.X.Row(k, i), "input", k, i)
			if err != nil {
				return err
			}
			idx[i] = int32(i)*int32(p.gsize[0]) + j
			if !p.general {
				p.s0 = append(p.s0, j)
			}
		}
		if p.general {
			q, err := quant(0)
			if err != nil {
				return fmt.Errorf("control: quantizing initial measure %d: %w", k, err)
			}
			p.s0 = appendQMeasure(p.s0, q)
		}
		// Labels.
		if p.term == RawLabels {
			p.labDen = int32(N)
			for i := range N {
				copy(p.labPts[(k*N+i)*D:], p.data.Y.Row(k, i))
				p.labCnt[k*N+i] = 1
				p.labAtoms[k] = append(p.labAtoms[k], quantize.Atom[F]{Pos: i + 1, X: p.data.Y.Row(k, i)})
				p.labCnts[k] = append(p.labCnts[k], 1)
			}
			continue
		}
		p.labDen = int32(p.ell)
		for i := range N {
			j, err := snap(gT, p.data.Y.Row(k, i), "label", k, i)
			if err != nil {
				return err
			}
			idx[i] = int32(i)*int32(p.gsize[T]) + j
		}
		q, err := quant(T)
		if err != nil {
			return fmt.Errorf("control: quantizing label measure %d: %w", k, err)
		}
		for a, at := range q.Idx {
			pos, j := int(at)/p.gsize[T], int(at)%p.gsize[T]
			pt := p.pts[T][j*D : j*D+D]
			if p.labCnt[k*N+pos] == 0 {
				copy(p.labPts[(k*N+pos)*D:], pt)
				p.labCnt[k*N+pos] = q.Cnt[a]
			} else {
				p.labCnt[k*N+pos] = -1 // several atoms at one position: no fast path
			}
			p.labAtoms[k] = append(p.labAtoms[k], quantize.Atom[F]{Pos: pos + 1, X: pt})
			p.labCnts[k] = append(p.labCnts[k], int(q.Cnt[a]))
		}
	}
	// Common denominator for exact transport against the labels.
	L := lcm(p.ell, int(p.labDen))
	p.muScale = L / p.ell
	for k := range p.labCnts {
		for a := range p.labCnts[k] {
			p.labCnts[k][a] *= L / int(p.labDen)
		}
	}
	return nil
}

func lcm(a, b int) int {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

// appendQMeasure appends the internal encoding [n, idx_1, cnt_1, …] of q.
func appendQMeasure(dst []int32, q quantize.QMeasure) []int32 {
	dst = append(dst, int32(len(q.Idx)))
	for a := range q.Idx {
		dst = append(dst, q.Idx[a], q.Cnt[a])
	}
	return dst
}
