package transformer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl/internal/parallel"
)

// BenchmarkStepPhases times each operation of a training step of the peer
// model on its own, on the buffers of a real forward pass, so that the
// thread scaling of every phase can be read off one run with -cpu.
func BenchmarkStepPhases(b *testing.B) {
	for _, bt := range [][2]int{{8, 32}, {16, 100}, {32, 128}, {64, 256}} {
		b.Run(fmt.Sprintf("B=%d,T=%d", bt[0], bt[1]), func(b *testing.B) { benchPhases(b, bt[0], bt[1]) })
	}
}

func benchPhases(b *testing.B, batch, length int) {
	rng := rand.New(rand.NewPCG(1, 1))
	m, err := New[float32](peerConfig, rng)
	if err != nil {
		b.Fatal(err)
	}
	opt, err := NewAdam(m.Params(), AdamConfig{})
	if err != nil {
		b.Fatal(err)
	}
	seqs, targets := peerBatch[float32](batch, length, rng)
	if _, err := m.Backprop(seqs, targets); err != nil {
		b.Fatal(err)
	}
	p := m.forward(seqs, nil, true)
	cfg := m.cfg
	n, d, ff, heads := p.n, cfg.Width, cfg.FeedForward, cfg.Heads
	blk, c := &m.blocks[0], &p.blocks[0]
	dx, tmp, dff, dqkv := make([]float32, n*d), make([]float32, n*d), make([]float32, n*ff), make([]float32, n*3*d)
	for i := range dx {
		dx[i] = float32(rng.NormFloat64())
	}
	copy(dff, c.up)
	run := func(name string, fn func()) {
		b.Run(name, func(b *testing.B) {
			spells := parallel.Shared.SerialSpells()
			for range b.N {
				fn()
			}
			// Serial spells of the team (see parallel.Team): loops that
			// ran on one goroutine while the benchmark timed them.
			b.ReportMetric(float64(parallel.Shared.SerialSpells()-spells), "spells")
		})
	}
	run("step", func() {
		m.ZeroGrad()
		if _, err := m.Backprop(seqs, targets); err != nil {
			b.Fatal(err)
		}
		if err := opt.Step(1e-3); err != nil {
			b.Fatal(err)
		}
	})
	run("forward", func() { m.ws.reset(); m.forward(seqs, m.ws, true) })
	run("adam", func() {
		if err := opt.Step(1e-3); err != nil {
			b.Fatal(err)
		}
	})
	run("zerograd", func() { m.ZeroGrad() })
	run("ln-fwd", func() {
		layerNormForward(c.a, c.mean1, c.rstd1, c.in, n, d, blk.norm1W.Value, blk.norm1B.Value, cfg.NormEpsilon)
	})
	run("ln-bwd", func() {
		layerNormBackward(tmp, blk.norm1W.Grad, blk.norm1B.Grad, dx, c.in, c.mean1, c.rstd1, n, d, blk.norm1W.Value, false)
	})
	run("qkv-fwd", func() { linearForward(c.qkv, c.a, n, d, 3*d, blk.qkvW.Value, blk.qkvB.Value) })
	run("qkv-bwd", func() {
		linearBackward(tmp, blk.qkvW.Grad, blk.qkvB.Grad, dqkv, c.a, n, d, 3*d, blk.qkvW.Value)
	})
	run("attn-fwd", func() { attnForward(cfg.Attention, c.att, c.stats, c.qkv, p.spans, d, heads) })
	run("attn-bwd", func() { attnBackward(cfg.Attention, dqkv, dx, c.stats, c.qkv, p.spans, d, heads) })
	run("out-fwd", func() { linearForward(c.r1, c.att, n, d, d, blk.outW.Value, blk.outB.Value) })
	run("out-bwd", func() { linearBackward(tmp, blk.outW.Grad, blk.outB.Grad, dx, c.att, n, d, d, blk.outW.Value) })
	run("up-fwd", func() { linearForward(c.up, c.b, n, d, ff, blk.upW.Value, blk.upB.Value) })
	run("up-bwd", func() { linearBackward(tmp, blk.upW.Grad, blk.upB.Grad, dff, c.b, n, d, ff, blk.upW.Value) })
	run("act-fwd", func() { activationForward(cfg.Activation, c.act, c.up) })
	run("act-bwd", func() { activationBackward(cfg.Activation, dff, dff, c.up) })
	run("down-fwd", func() { linearForward(c.r2, c.act, n, ff, d, blk.downW.Value, blk.downB.Value) })
	run("down-bwd", func() {
		linearBackward(dff, blk.downW.Grad, blk.downB.Grad, dx, c.act, n, ff, d, blk.downW.Value)
	})
	run("add", func() { addTo(tmp, dx) })
	run("head-bwd", func() {
		linearBackward(tmp, m.headW.Grad, m.headB.Grad, p.logits, p.fin, n, d, cfg.Outputs, m.headW.Value)
	})
}
