package omdnet

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/transformer"
)

// A unit is one hidden ReLU of an MLP: σ(bias + Σ in[c]·h_c), added to
// the residual coordinates out with the given weights.
type unit struct {
	in   []term
	bias float64
	out  []term
}

// A term is one weight on a residual coordinate.
type term struct {
	c int
	w float64
}

// retrieval is the attention of a block that copies coordinates of
// position pos (counted from 1) into other coordinates, at every position
// that can see it (pos and after).
type retrieval struct {
	pos   int
	links []link
}

// A stage is the MLP of one or more consecutive blocks: its units read
// the residual stream as it enters the stage, so a stage whose units do not
// read what the stage writes may be split over several blocks.
type stage struct {
	name       string
	round      int // the round whose update the stage computes; 0: the read-out
	units      []unit
	constants  []term     // added once to the residual (the down bias)
	attn       *retrieval // the attention of the stage's first block
	splittable bool
}

// net is the construction before it is written into a model: residual
// coordinates, named for the error messages, and the stages.
type net struct {
	coords []string
	stages []*stage
}

// coord allocates a residual coordinate.
func (n *net) coord(name string) int {
	n.coords = append(n.coords, name)
	return len(n.coords) - 1
}

// block returns the coordinates of an allocated block of size k.
func (n *net) block(name string, k int) []int {
	c := make([]int, k)
	for i := range c {
		c[i] = n.coord(fmt.Sprintf("%s[%d]", name, i))
	}
	return c
}

// add appends a stage of round k (0: the read-out) and returns it for
// filling.
func (n *net) add(k int, name string, splittable bool) *stage {
	s := &stage{name: name, round: k, splittable: splittable}
	if k > 0 {
		s.name = fmt.Sprintf("round %d: %s", k, name)
	}
	n.stages = append(n.stages, s)
	return s
}

// unit adds a hidden unit σ(bias + Σ in) with outputs out.
func (s *stage) unit(bias float64, in []term, out ...term) {
	s.units = append(s.units, unit{in: in, bias: bias, out: out})
}

// copyTo adds the units that add the value of coordinate src to dst:
// σ(h) − σ(−h) for a signed value, σ(h) for one known to be non-negative.
func (s *stage) copyTo(src, dst int, w float64, signed bool) {
	s.unit(0, []term{{src, 1}}, term{dst, w})
	if signed {
		s.unit(0, []term{{src, -1}}, term{dst, -w})
	}
}

// clear adds the units that set coordinate c to zero.
func (s *stage) clear(c int, signed bool) { s.copyTo(c, c, -1, signed) }

// layers returns the number of blocks of each stage when a block holds at
// most width units.
func (n *net) layers(width int) []int {
	l := make([]int, len(n.stages))
	for i, s := range n.stages {
		l[i] = 1
		if s.splittable && len(s.units) > width {
			l[i] = (len(s.units) + width - 1) / width
		}
	}
	return l
}

// shape returns the feed-forward width and the number of blocks when
// splittable stages are split into blocks of at most width units.
func (n *net) shape(width int) (ff, blocks int) {
	for i, k := range n.layers(width) {
		blocks += k
		u := len(n.stages[i].units)
		if k > 1 {
			u = width
		}
		ff = max(ff, u)
	}
	return max(ff, 1), blocks
}

// params returns the parameter count of a model of width d, feed-forward
// width ff and the given blocks (with biases and learned positions).
func params(d, ff, blocks, features, outputs, maxLen int) int64 {
	perBlock := int64(d)*int64(3*d) + int64(3*d) + int64(d)*int64(d) + int64(d) +
		int64(d)*int64(ff) + int64(ff) + int64(ff)*int64(d) + int64(d)
	return int64(features)*int64(d) + int64(d) + int64(maxLen)*int64(d) +
		int64(blocks)*perBlock + int64(d)*int64(outputs) + int64(outputs)
}

// bestWidth returns the feed-forward width among the widest stage and
// smaller powers of two that gives the fewest parameters.
func (n *net) bestWidth(features, outputs, maxLen int) (ff, blocks int) {
	d := len(n.coords)
	widest := 1
	for _, s := range n.stages {
		if !s.splittable {
			widest = max(widest, len(s.units))
		}
	}
	bestP := int64(-1)
	for w := widest; ; w *= 2 {
		f, b := n.shape(w)
		if p := params(d, f, b, features, outputs, maxLen); bestP < 0 || p < bestP {
			bestP, ff, blocks = p, f, b
		}
		if f < w { // no stage is split any more
			break
		}
	}
	return ff, blocks
}

// A link copies a residual coordinate of the attended position to another
// coordinate.
type link struct{ src, dst int }

// embedding is what the read-in writes: the features' coordinates, the
// constants of every position and the position coordinates.
type embedding struct {
	features []int  // residual coordinate of each input feature (−1: dropped)
	consts   []term // added at every position (the read-in bias)
	posI     int    // coordinate holding i, the position counted from 1
	posI2    int    // coordinate holding i²
	one      int    // coordinate holding 1
	logits   []int  // coordinates the read-out reads
	width    int    // the input's feature width
	outputs  int    // the number of logits
	maxLen   int    // the positions the model holds
}

// write builds the model: a ReLU-attention transformer without norms,
// with learned positions, one head, width d = len(coords).
func (n *net) write(emb embedding, maxParams int64) (*transformer.Model[float64], error) {
	d := len(n.coords)
	features, outputs, maxLen := emb.width, emb.outputs, emb.maxLen
	ff, blocks := n.bestWidth(features, outputs, maxLen)
	cfg := transformer.Config{
		Layers: blocks, Heads: 1, Width: d, FeedForward: ff,
		Features: features, Outputs: outputs, MaxLen: maxLen,
		Attention: transformer.ReLUAttention, Norm: transformer.NoNorm,
		Positions: transformer.LearnedPositions, MaxParams: maxParams,
	}
	if p := params(d, ff, blocks, features, outputs, maxLen); maxParams > 0 && p > maxParams {
		return nil, fmt.Errorf("%w: the construction has %d parameters, more than MaxParams = %d", icrl.ErrTooLarge, p, maxParams)
	}
	m, err := transformer.New[float64](cfg, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return nil, fmt.Errorf("omdnet: %w", err)
	}
	byName := make(map[string][]float64)
	for _, p := range m.Params() {
		clear(p.Value)
		byName[p.Name] = p.Value
	}
	set := func(name string, row, col, cols int, v float64) {
		byName[name][row*cols+col] += v
	}
	for f, c := range emb.features {
		if c >= 0 {
			set("embed.features.weight", f, c, d, 1)
		}
	}
	for _, t := range emb.consts {
		set("embed.features.bias", 0, t.c, d, t.w)
	}
	for p := range maxLen {
		i := float64(p + 1)
		set("embed.positions", p, emb.posI, d, i)
		set("embed.positions", p, emb.posI2, d, i*i)
	}
	for a, c := range emb.logits {
		set("head.weight", c, a, outputs, 1)
	}
	l := 0
	for si, k := range n.layers(ff) {
		s := n.stages[si]
		pre := func(j int) string { return fmt.Sprintf("layers.%d.", l+j) }
		if s.attn != nil {
			writeRetrieval(byName[pre(0)+"attn.qkv.weight"], byName[pre(0)+"attn.out.weight"], d, emb, *s.attn)
		}
		for _, t := range s.constants {
			set(pre(0)+"mlp.down.bias", 0, t.c, d, t.w)
		}
		for u, un := range s.units {
			j, h := u/ff, u%ff
			if k == 1 {
				j, h = 0, u
			}
			set(pre(j)+"mlp.up.bias", 0, h, ff, un.bias)
			for _, t := range un.in {
				set(pre(j)+"mlp.up.weight", t.c, h, ff, t.w)
			}
			for _, t := range un.out {
				set(pre(j)+"mlp.down.weight", h, t.c, d, t.w)
			}
		}
		l += k
	}
	return m, nil
}

// retrievalMargin is c in the retrieval score i·(c − (j − pos)²): the
// selected position scores i·c, every other at most i·(c − 1) < 0.
const retrievalMargin = 0.5

// writeRetrieval sets the attention of a block, qkv ([d, 3d]) and out
// ([d, d]), to copy r's coordinates of position r.pos. With query
// q_i = i·(−1, 2·pos, c − pos²) and key k_j = (j², j, 1) the score is
// i·(c − (j − pos)²): after the ReLU and the attention's 1/i it weighs
// position pos by c and every other position by 0, exactly.
func writeRetrieval(qkv, out []float64, d int, emb embedding, r retrieval) {
	root := math.Sqrt(float64(d)) // undoes the scores' 1/√d_h
	j := float64(r.pos)
	q := [3]float64{-1, 2 * j, retrievalMargin - j*j}
	for i := range 3 {
		qkv[emb.posI*3*d+i] += root * q[i]
	}
	qkv[emb.posI2*3*d+d+0] += 1
	qkv[emb.posI*3*d+d+1] += 1
	qkv[emb.one*3*d+d+2] += 1
	for _, l := range r.links {
		qkv[l.src*3*d+2*d+l.dst] += 1 / retrievalMargin
		out[l.dst*d+l.dst] = 1
	}
}
