package metalearn

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/tables"
	"github.com/icrl-go/icrl/markov"
)

// gsChicken returns the single-state, H = 1 "chicken" game of golden
// G-CCE1 (golden values of an independent Python implementation): payoffs (row, col) (a0,b0) = (0.5, 0.5),
// (a0,b1) = (0.2, 1), (a1,b0) = (1, 0.2), (a1,b1) = (0, 0).
func gsChicken(t testing.TB) *markov.Episodic {
	t.Helper()
	r := [][][][]float64{{{{0.5, 0.5}, {0.2, 1.0}, {1.0, 0.2}, {0, 0}}}}
	P := [][][][]float64{{{{1}, {1}, {1}, {1}}}}
	g, err := tables.Episodic([]int{2, 2}, 0, r, P)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// gsRunUniform runs GeneralSumOOMD from the uniform initialisation.
func gsRunUniform(t testing.TB, g *markov.Episodic, cfg OOMDConfig) ([]*Staged, *GeneralSumResult) {
	t.Helper()
	init, err := UniformGeneralSumInit(g, cfg.T)
	if err != nil {
		t.Fatal(err)
	}
	res, err := GeneralSumOOMD(g, init, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return init, res
}

// gsGap returns the certified CCE-gap of the run's output.
func gsGap(t testing.TB, g *markov.Episodic, res *GeneralSumResult) float64 {
	t.Helper()
	gap, _, err := CertifiedCCEGap(g, res.Output())
	if err != nil {
		t.Fatal(err)
	}
	return gap
}

// gsRandomInit returns a random per-stage initialisation with entries
// bounded away from 0.
func gsRandomInit(g *markov.Episodic, T int, rng *rand.Rand) []*Staged {
	sched, _ := NewSchedule(g.Horizon(), T)
	init := make([]*Staged, g.Players())
	for i := range init {
		init[i] = UniformStaged(len(sched), g.Horizon(), g.States(), g.Actions(game.Player(i)))
		for k := range init[i].Dim(0) {
			for h := range init[i].Dim(1) {
				for s := range init[i].Dim(2) {
					d := init[i].Row(k, h, s)
					var sum float64
					for a := range d {
						d[a] = 0.2 + rng.Float64()
						sum += d[a]
					}
					for a := range d {
						d[a] /= sum
					}
				}
			}
		}
	}
	return init
}

// TestGeneralSumGoldenCCE1 reproduces golden G-CCE1 (golden values of an independent Python implementation,
// §5.1 test 10): η = T^{−1/3}, uniform initialisation.
func TestGeneralSumGoldenCCE1(t *testing.T) {
	g := gsChicken(t)
	for _, c := range []struct {
		T            int
		gap, maxStep float64
		stepTol      float64
		lemma18      float64
	}{
		{100, 0.04707, 0.0323, 1e-4, 1.97},
		{1000, 0.02484, 0.015, 1e-4, 1.34},
		{10000, 0.00872, 0.007, 1e-4, 0.91},
	} {
		eta := math.Pow(float64(c.T), -1.0/3)
		_, res := gsRunUniform(t, g, OOMDConfig{Eta: eta, T: c.T, Checkpoints: []int{c.T}})
		gap := gsGap(t, g, res)
		if math.Abs(gap-c.gap) > 1e-4 {
			t.Errorf("T=%d: certified CCE-gap %.6f, want %.5f", c.T, gap, c.gap)
		}
		if cp := res.Checkpoints[0]; cp.T != c.T || math.Abs(cp.Gap-gap) > 1e-15 {
			t.Errorf("T=%d: checkpoint %+v, want the output's gap %v", c.T, cp, gap)
		}
		if math.Abs(res.MaxStep-c.maxStep) > 5e-4 {
			t.Errorf("T=%d: max ‖Δπ_i‖₁ = %.5f, want %.4f", c.T, res.MaxStep, c.maxStep)
		}
		bound := 3 * math.Sqrt(2*eta)
		if math.Abs(bound-c.lemma18) > 0.01 || res.MaxStep > bound {
			t.Errorf("T=%d: Lemma 18 bound %.3f (want %.2f) vs max step %.5f", c.T, bound, c.lemma18, res.MaxStep)
		}
		t.Logf("T=%5d: certified CCE-gap %.6f (golden %.5f), max step %.5f (golden %.4f), Lemma 18 bound %.3f",
			c.T, gap, c.gap, res.MaxStep, c.maxStep, bound)
	}
}

// TestGeneralSumReference compares GeneralSumOOMD with a literal,
// unoptimised transcription of Algorithm 2 (per-iteration product
// policies, the value update summed over the stage's iterations, regrets
// (61) summed over iterations) on games with unequal action sets.
func TestGeneralSumReference(t *testing.T) {
	for _, c := range []struct {
		acts    []int
		S, H, T int
		eta     float64
		warm    bool
	}{
		{[]int{2, 3, 2}, 2, 3, 40, 0.3, false},
		{[]int{3, 2}, 3, 2, 37, 0.5, false},
		{[]int{3, 2}, 2, 2, 30, 0.4, true},
		{[]int{3}, 2, 3, 25, 0.7, false},
	} {
		rng := rand.New(rand.NewPCG(uint64(len(c.acts)), uint64(c.T)))
		g, err := markov.RandomEpisodic(c.acts, c.S, c.H, markov.GeneralSumGame, rng)
		if err != nil {
			t.Fatal(err)
		}
		init := gsRandomInit(g, c.T, rng)
		res, err := GeneralSumOOMD(g, init, OOMDConfig{Eta: c.eta, T: c.T, WarmStages: c.warm})
		if err != nil {
			t.Fatal(err)
		}
		ref := gsReference(g, init, c.eta, c.T, c.warm)
		const tol = 1e-12
		if math.Abs(res.MaxStep-ref.maxStep) > tol {
			t.Errorf("%v: MaxStep %v, reference %v", c.acts, res.MaxStep, ref.maxStep)
		}
		for k := range res.Schedule {
			for h := range c.H {
				for s := range c.S {
					for j, p := range res.StageJoint[k].Row(h, s) {
						if math.Abs(p-ref.joint[k][h][s][j]) > tol {
							t.Fatalf("%v: ρ[%d][%d][%d][%d] = %v, reference %v", c.acts, k, h, s, j, p, ref.joint[k][h][s][j])
						}
					}
					for i := range c.acts {
						if d := res.Regret.Row(k, h, s)[i] - ref.regret[k][h][s][i]; math.Abs(d) > tol {
							t.Fatalf("%v: regret[%d][%d][%d][%d] = %v, reference %v", c.acts, k, h, s, i, res.Regret.Row(k, h, s)[i], ref.regret[k][h][s][i])
						}
						for a, v := range res.BR[i].Row(k, h, s) {
							if math.Abs(v-ref.br[i][k][h][s][a]) > tol {
								t.Fatalf("%v: BR[%d][%d][%d][%d] = %v, reference %v", c.acts, i, k, h, s, res.BR[i].Row(k, h, s), ref.br[i][k][h][s])
							}
						}
						for a, v := range res.Avg[i].Row(k, h, s) {
							if math.Abs(v-ref.avg[i][k][h][s][a]) > tol {
								t.Fatalf("%v: Avg[%d][%d][%d][%d] = %v, reference %v", c.acts, i, k, h, s, res.Avg[i].Row(k, h, s), ref.avg[i][k][h][s])
							}
						}
					}
				}
			}
		}
	}
}

// gsRefResult holds the statistics of gsReference.
type gsRefResult struct {
	joint   [][][][]float64   // [k][h][s][j]
	br, avg [][][][][]float64 // [i][k][h][s][a]
	regret  [][][][]float64   // [k][h][s][i]
	maxStep float64
}

// gsReference is a literal transcription of Algorithm 2 (App. E.1): it
// keeps every iteration's product policy of the current stage and sums
// the value update and the regrets (61) over the iterations.
func gsReference(g *markov.Episodic, init []*Staged, eta float64, T int, warm bool) gsRefResult {
	r := &gsRef{g: g, init: init, N: g.Players(), H: g.Horizon(), S: g.States(), J: g.NumJoint()}
	sched, _ := NewSchedule(r.H, T)
	Q := r.newQ()
	prev, aux := r.newPol(), r.newPol()
	r.load(prev, 0)
	r.load(aux, 0)
	r.out.br = make([][][][][]float64, r.N)
	r.out.avg = make([][][][][]float64, r.N)
	var hist [][][][][]float64 // iterations of the current stage
	k := 0
	for t := 1; t <= T; t++ {
		cur := r.step(prev, aux, Q, eta)
		hist = append(hist, cur)
		prev = cur
		if t != sched[k].End {
			continue
		}
		r.stageEnd(hist, Q, k)
		if t < T {
			Q = r.valueUpdate(hist, Q)
		}
		hist = nil
		k++
		if k < len(sched) && !warm {
			prev = r.newPol()
			r.load(prev, k)
			r.load(aux, k)
		}
	}
	return r.out
}

// gsRef holds the game and sizes of gsReference; policies are [i][h][s][a]
// and Q tables [i][h][s][j].
type gsRef struct {
	g          *markov.Episodic
	init       []*Staged
	N, H, S, J int
	out        gsRefResult
}

func (r *gsRef) split(j int) []int { return r.g.Split(j, nil) }

func (r *gsRef) newPol() [][][][]float64 {
	p := make([][][][]float64, r.N)
	for i := range p {
		p[i] = make([][][]float64, r.H)
		for h := range p[i] {
			p[i][h] = make([][]float64, r.S)
			for s := range p[i][h] {
				p[i][h][s] = make([]float64, r.g.Actions(game.Player(i)))
			}
		}
	}
	return p
}

func (r *gsRef) load(dst [][][][]float64, k int) {
	for i := range dst {
		for h := range dst[i] {
			for s := range dst[i][h] {
				copy(dst[i][h][s], r.init[i].Row(k, h, s))
			}
		}
	}
}

// prob returns the probability of joint action j under p at (h, s),
// leaving out player skip (−1 for none).
func (r *gsRef) prob(p [][][][]float64, h, s, j, skip int) float64 {
	a := r.split(j)
	x := 1.0
	for i := range r.N {
		if i != skip {
			x *= p[i][h][s][a[i]]
		}
	}
	return x
}

func (r *gsRef) newQ() [][][][]float64 {
	q := make([][][][]float64, r.N)
	for i := range q {
		q[i] = make([][][]float64, r.H+1)
		for h := range q[i] {
			q[i][h] = make([][]float64, r.S)
			for s := range q[i][h] {
				q[i][h][s] = make([]float64, r.J)
			}
		}
	}
	return q
}

// step runs one iteration of lines 5–6 from prev, updating aux, and
// returns the played policy.
func (r *gsRef) step(prev, aux, Q [][][][]float64, eta float64) [][][][]float64 {
	cur := r.newPol()
	for i := range r.N {
		for h := range r.H {
			for s := range r.S {
				A := r.g.Actions(game.Player(i))
				grad := make([]float64, A)
				for j := range r.J {
					grad[r.split(j)[i]] += r.prob(prev, h, s, j, i) * Q[i][h][s][j]
				}
				var z1, z2 float64
				for a := range A {
					aux[i][h][s][a] *= math.Exp(eta * grad[a])
					z1 += aux[i][h][s][a]
				}
				for a := range A {
					aux[i][h][s][a] /= z1
					cur[i][h][s][a] = aux[i][h][s][a] * math.Exp(eta*grad[a])
					z2 += cur[i][h][s][a]
				}
				var d float64
				for a := range A {
					cur[i][h][s][a] /= z2
					d += math.Abs(cur[i][h][s][a] - prev[i][h][s][a])
				}
				r.out.maxStep = max(r.out.maxStep, d)
			}
		}
	}
	return cur
}

// stageEnd records the joint stage average, the regrets (61), the
// hindsight best responses and the stage averages of stage k.
func (r *gsRef) stageEnd(hist [][][][][]float64, Q [][][][]float64, k int) {
	N, H, S, J := r.N, r.H, r.S, r.J
	L := float64(len(hist))
	joint := make([][][]float64, H)
	reg := make([][][]float64, H)
	for h := range H {
		joint[h] = make([][]float64, S)
		reg[h] = make([][]float64, S)
		for s := range S {
			joint[h][s] = make([]float64, J)
			for _, p := range hist {
				for j := range J {
					joint[h][s][j] += r.prob(p, h, s, j, -1) / L
				}
			}
			reg[h][s] = make([]float64, N)
		}
	}
	r.out.joint = append(r.out.joint, joint)
	for i := range N {
		A := r.g.Actions(game.Player(i))
		br, avg := make([][][]float64, H), make([][][]float64, H)
		for h := range H {
			br[h], avg[h] = make([][]float64, S), make([][]float64, S)
			for s := range S {
				score := make([]float64, A)
				var on float64
				avg[h][s] = make([]float64, A)
				for _, p := range hist {
					for j := range J {
						a := r.split(j)[i]
						score[a] += r.prob(p, h, s, j, i) * Q[i][h][s][j] / L
						on += r.prob(p, h, s, j, -1) * Q[i][h][s][j] / L
					}
					for a := range A {
						avg[h][s][a] += p[i][h][s][a] / L
					}
				}
				best, arg := math.Inf(-1), 0
				for a, v := range score {
					if v > best {
						best, arg = v, a
					}
				}
				reg[h][s][i] = best - on
				br[h][s] = make([]float64, A)
				if k == 0 { // Q ≡ 0: all actions tie
					copy(br[h][s], r.init[i].Row(k, h, s))
				} else {
					br[h][s][arg] = 1
				}
			}
		}
		r.out.br[i] = append(r.out.br[i], br)
		r.out.avg[i] = append(r.out.avg[i], avg)
	}
	r.out.regret = append(r.out.regret, reg)
}

// valueUpdate returns the next stage's Q: the stage average of the
// one-step backups of every iteration's policy.
func (r *gsRef) valueUpdate(hist [][][][][]float64, Q [][][][]float64) [][][][]float64 {
	next := r.newQ()
	L := float64(len(hist))
	for i := range r.N {
		for h := range r.H {
			for s := range r.S {
				for j := range r.J {
					var sum float64
					for _, p := range hist {
						v := r.g.StepReward(h, s, j, game.Player(i))
						for s2, ps := range r.g.StepTransition(h, s, j) {
							for j2 := range r.J {
								if h+1 < r.H {
									v += ps * r.prob(p, h+1, s2, j2, -1) * Q[i][h+1][s2][j2]
								}
							}
						}
						sum += v
					}
					next[i][h][s][j] = sum / L
				}
			}
		}
	}
	return next
}

// TestGeneralSumMarginalGrads checks the prefix/suffix gradients and joint
// accumulation against direct sums over joint actions.
func TestGeneralSumMarginalGrads(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, acts := range [][]int{{2}, {3, 2}, {2, 3, 4}, {2, 1, 3, 2}} {
		g, err := markov.RandomEpisodic(acts, 1, 1, markov.GeneralSumGame, rng)
		if err != nil {
			t.Fatal(err)
		}
		init, _ := UniformGeneralSumInit(g, 1)
		w := newGSRun(g, init, Schedule{{1, 1, 1}}, OOMDConfig{Eta: 1, T: 1})
		pol := make([]float64, w.sumA)
		for i := range pol {
			pol[i] = rng.Float64()
		}
		q := make([]float64, w.nj*w.n)
		for i := range q {
			q[i] = rng.NormFloat64()
		}
		w.marginalGrads(pol, q)
		acc := make([]float64, w.nj)
		w.accumulate(acc, pol)
		want := make([]float64, w.sumA)
		for j := range w.nj {
			a := g.Split(j, nil)
			full := 1.0
			for i := range a {
				full *= pol[w.off[i]+a[i]]
			}
			if math.Abs(acc[j]-full) > 1e-15 {
				t.Errorf("%v: joint %d = %v, want %v", acts, j, acc[j], full)
			}
			for i := range a {
				others := 1.0
				for k := range a {
					if k != i {
						others *= pol[w.off[k]+a[k]]
					}
				}
				want[w.off[i]+a[i]] += others * q[j*w.n+i]
			}
		}
		for x := range want {
			if math.Abs(w.grad[x]-want[x]) > 1e-12 {
				t.Errorf("%v: gradient %d = %v, want %v", acts, x, w.grad[x], want[x])
			}
		}
	}
}

// TestGeneralSumStageOneIdentity checks, for Algorithm 2:
// with Q^1 ≡ 0 every stage-1 iterate equals the initialisation exactly,
// the stage-1 hindsight best response equals it too (KL-minimal
// tie-break), and the stage-1 regrets vanish.
func TestGeneralSumStageOneIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g, err := markov.RandomEpisodic([]int{2, 3, 2}, 3, 4, markov.GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	const T = 30
	init := gsRandomInit(g, T, rng)
	sched, _ := NewSchedule(g.Horizon(), T)
	w := newGSRun(g, init, sched, OOMDConfig{Eta: 0.5, T: T})
	w.loadInit(w.prev, 0)
	w.loadInit(w.aux, 0)
	want := append([]float64(nil), w.prev...)
	for it := range sched[0].Iterations() {
		w.iterate()
		for x := range want {
			if w.cur[x] != want[x] {
				t.Fatalf("iteration %d: policy entry %d = %v, want the initialisation %v", it+1, x, w.cur[x], want[x])
			}
		}
		w.prev, w.cur = w.cur, w.prev
	}
	res, err := GeneralSumOOMD(g, init, OOMDConfig{Eta: 0.5, T: T})
	if err != nil {
		t.Fatal(err)
	}
	if res.MaxStep == 0 {
		t.Error("MaxStep = 0: later stages did not move")
	}
	for i := range init {
		for h := range g.Horizon() {
			for s := range g.States() {
				for a, v := range init[i].Row(0, h, s) {
					if math.Abs(res.BR[i].Row(0, h, s)[a]-v) > 1e-15 || math.Abs(res.Avg[i].Row(0, h, s)[a]-v) > 1e-15 {
						t.Fatalf("player %d step %d state %d: stage-1 BR %v, average %v, want the init %v",
							i, h, s, res.BR[i].Row(0, h, s), res.Avg[i].Row(0, h, s), init[i].Row(0, h, s))
					}
				}
				if r := res.Regret.Row(0, h, s)[i]; r != 0 {
					t.Fatalf("stage-1 regret %v, want 0", r)
				}
			}
		}
	}
}

// TestGeneralSumOutputSimplex checks that every recorded table and every
// component of the output is a distribution, and the weights sum to 1.
func TestGeneralSumOutputSimplex(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	g, err := markov.RandomEpisodic([]int{2, 3}, 2, 3, markov.GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, warm := range []bool{false, true} {
		const T = 200
		init, res := gsRunUniform(t, g, OOMDConfig{Eta: 0.3, T: T, WarmStages: warm})
		K := len(res.Schedule)
		for i := range init {
			if err := CheckStaged("BR", res.BR[i], K, 3, 2, g.Actions(game.Player(i))); err != nil {
				t.Error(err)
			}
			if err := CheckStaged("Avg", res.Avg[i], K, 3, 2, g.Actions(game.Player(i))); err != nil {
				t.Error(err)
			}
		}
		for k, rho := range res.StageJoint {
			if err := g.CheckCorrelated(rho); err != nil {
				t.Errorf("stage %d: %v", k, err)
			}
		}
		p := res.Output()
		comps, weights := p.Components()
		if len(comps) != K || len(weights) != K || p.Iterations() != T {
			t.Fatalf("%d components, %d weights, %d iterations; want %d, %d, %d", len(comps), len(weights), p.Iterations(), K, K, T)
		}
		var sum float64
		for k, c := range comps {
			if err := g.CheckCorrelated(c); err != nil {
				t.Errorf("component %d: %v", k, err)
			}
			sum += weights[k]
			if want := float64(res.Schedule[k].Iterations()) / T; weights[k] != want {
				t.Errorf("weight %d = %v, want %v", k, weights[k], want)
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("weights sum to %v", sum)
		}
	}
}

// TestCertifiedOutputMapping checks the Algorithm 3 stage mapping (with early
// stages clamped to stage 1) on a hand example: H = 2, T = 20 gives the stages (1,2),
// (3,5), (6,9), (10,15), (16,20). Component σ_0 plays stage
// max(σ_0 − h, 1) at the paper's step h ∈ {1, 2}.
func TestCertifiedOutputMapping(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	g, err := markov.RandomEpisodic([]int{2, 2}, 2, 2, markov.GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	_, res := gsRunUniform(t, g, OOMDConfig{Eta: 0.5, T: 20})
	if len(res.Schedule) != 5 {
		t.Fatalf("%d stages, want 5", len(res.Schedule))
	}
	p := res.Output()
	comps, weights := p.Components()
	// want[σ_0−1] = paper stages played at paper steps 1 and 2.
	want := [][2]int{{1, 1}, {1, 1}, {2, 1}, {3, 2}, {4, 3}}
	wantW := []float64{2.0 / 20, 3.0 / 20, 4.0 / 20, 6.0 / 20, 5.0 / 20}
	for k, c := range comps {
		if math.Abs(weights[k]-wantW[k]) > 1e-15 {
			t.Errorf("w_%d = %v, want %v", k+1, weights[k], wantW[k])
		}
		for h := range 2 {
			stage := want[k][h] - 1
			if got := p.PlayedStage(k, h); got != stage {
				t.Errorf("σ_0 = %d, step %d: PlayedStage %d, want %d", k+1, h+1, got+1, stage+1)
			}
			if !slices.Equal(c.Sub(h).Data(), res.StageJoint[stage].Sub(h).Data()) {
				t.Errorf("σ_0 = %d, step %d does not play ρ of stage %d", k+1, h+1, stage+1)
			}
		}
	}
	// A literal simulation of Algorithm 3's index draws: t ~ U[T], then at
	// each step j ~ U(stage τ(t) − 1) (stage 1 if none), t ← j.
	counts := make([][2][5]int, 5)
	const n = 20000
	for range n {
		t0 := 1 + rng.IntN(20)
		s0 := res.Schedule.StageOf(t0)
		cur := t0
		for h := range 2 {
			k := max(res.Schedule.StageOf(cur)-1, 0)
			st := res.Schedule[k]
			cur = st.Start + rng.IntN(st.Iterations())
			counts[s0][h][res.Schedule.StageOf(cur)]++
		}
	}
	for k := range counts {
		for h := range 2 {
			for m, c := range counts[k][h] {
				if (c > 0) != (m == want[k][h]-1) {
					t.Errorf("literal Algorithm 3: σ_0 = %d, step %d played stage %d %d times", k+1, h+1, m+1, c)
				}
			}
		}
	}
}

// TestCertifiedRollout checks the Monte Carlo executor: the mean of many
// rollouts matches the exact mixture values within a few standard errors.
func TestCertifiedRollout(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	g, err := markov.RandomEpisodic([]int{2, 3, 2}, 3, 3, markov.GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	_, res := gsRunUniform(t, g, OOMDConfig{Eta: 0.5, T: 300})
	p := res.Output()
	exact, err := p.Values(g)
	if err != nil {
		t.Fatal(err)
	}
	// Independent exact values: Σ_σ w_σ V^σ from the components.
	comps, weights := p.Components()
	for i := range exact {
		var v float64
		for k, c := range comps {
			v += weights[k] * gsCorrelatedValue(g, c, i)
		}
		if math.Abs(v-exact[i]) > 1e-12 {
			t.Errorf("player %d: Values %v, direct %v", i, exact[i], v)
		}
	}
	n := 40000
	if testing.Short() {
		n = 10000
	}
	sum := make([]float64, g.Players())
	sq := make([]float64, g.Players())
	var dst []float64
	for range n {
		dst = p.Rollout(g, rng, dst)
		for i, v := range dst {
			sum[i] += v
			sq[i] += v * v
		}
	}
	for i := range sum {
		mean := sum[i] / float64(n)
		se := math.Sqrt((sq[i]/float64(n) - mean*mean) / float64(n))
		if math.Abs(mean-exact[i]) > 4*se {
			t.Errorf("player %d: Monte Carlo mean %v ± %v, exact %v", i, mean, se, exact[i])
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { dst = p.Rollout(g, rng, dst) }); allocs != 0 {
		t.Errorf("Rollout allocates %v times", allocs)
	}
}

// gsCorrelatedValue returns V_{1,i}(s_1) of a Markov correlated policy by
// a recursive expectation over joint actions and next states.
func gsCorrelatedValue(g *markov.Episodic, c *markov.Correlated, i int) float64 {
	var rec func(h, s int) float64
	rec = func(h, s int) float64 {
		if h == g.Horizon() {
			return 0
		}
		var v float64
		for j, p := range c.Row(h, s) {
			if p == 0 {
				continue
			}
			x := g.StepReward(h, s, j, game.Player(i))
			for s2, q := range g.StepTransition(h, s, j) {
				if q > 0 {
					x += q * rec(h+1, s2)
				}
			}
			v += p * x
		}
		return v
	}
	return rec(0, g.Start())
}

// TestGeneralSumLemma18 checks the stability bound of Lemma 18,
// ‖π^t_{h,i} − π^{t−1}_{h,i}‖₁ ≤ 3√(2ηH), at every iteration (MaxStep is
// the maximum over all of them) on random general-sum games with rewards
// in [0, 1], over a range of step sizes.
func TestGeneralSumLemma18(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	T := 300
	if testing.Short() {
		T = 100
	}
	for trial := range 12 {
		N := 2 + trial%2
		acts := make([]int, N)
		for i := range acts {
			acts[i] = 2 + rng.IntN(2)
		}
		S, H := 1+rng.IntN(3), 1+rng.IntN(3)
		g, err := markov.RandomEpisodic(acts, S, H, markov.GeneralSumGame, rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, eta := range []float64{0.01, 0.1, 0.3, 1} {
			_, res := gsRunUniform(t, g, OOMDConfig{Eta: eta, T: T})
			if bound := 3 * math.Sqrt(2*eta*float64(H)); res.MaxStep > bound {
				t.Errorf("acts %v S=%d H=%d η=%v: max step %v > Lemma 18 bound %v", acts, S, H, eta, res.MaxStep, bound)
			}
		}
	}
}

// TestCertifiedGapTheorem5 checks that the certified CCE-gap decreases in
// T and stays below the Theorem 5 bound on random general-sum games, with
// the theorem's step size η = H^{−2/3} T^{−1/3} (N−1)^{−2/3}.
func TestCertifiedGapTheorem5(t *testing.T) {
	Ts := []int{100, 1000, 10000}
	if testing.Short() {
		Ts = Ts[:2]
	}
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		acts := []int{2, 2, 2}
		const S, H = 2, 2
		g, err := markov.RandomEpisodic(acts, S, H, markov.GeneralSumGame, rng)
		if err != nil {
			t.Fatal(err)
		}
		last := math.Inf(1)
		for _, T := range Ts {
			N := float64(len(acts))
			eta := math.Pow(H, -2.0/3) * math.Pow(float64(T), -1.0/3) * math.Pow(N-1, -2.0/3)
			init, res := gsRunUniform(t, g, OOMDConfig{Eta: eta, T: T})
			gap := gsGap(t, g, res)
			bound := Theorem5Bound(res, init, eta, len(acts), H)
			if gap > bound {
				t.Errorf("seed %d T=%d: certified gap %v > Theorem 5 bound %v", seed, T, gap, bound)
			}
			if gap >= last {
				t.Errorf("seed %d T=%d: certified gap %v did not decrease from %v", seed, T, gap, last)
			}
			t.Logf("seed %d T=%5d: certified gap %.5f, Theorem 5 bound %.3f", seed, T, gap, bound)
			last = gap
		}
	}
}

// TestCertifiedGapZeroSum runs Algorithm 2 on two-player zero-sum games
// cast as general-sum (r_0 ∈ [0, 1], r_1 = −r_0, a zero-sum game cast with rewards in [0, 1]): the certified
// gap decreases towards 0 as T grows.
func TestCertifiedGapZeroSum(t *testing.T) {
	Ts := []int{100, 1000, 10000, 100000}
	if testing.Short() {
		Ts = Ts[:3]
	}
	rng := rand.New(rand.NewPCG(1, 7))
	g, err := markov.RandomEpisodic([]int{2, 3}, 2, 2, markov.ZeroSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	last := math.Inf(1)
	var res *GeneralSumResult
	for _, T := range Ts {
		eta := math.Pow(2, -2.0/3) * math.Pow(float64(T), -1.0/3)
		var init []*Staged
		init, res = gsRunUniform(t, g, OOMDConfig{Eta: eta, T: T})
		gap := gsGap(t, g, res)
		if gap >= last || gap < -1e-12 {
			t.Errorf("T=%d: certified gap %v, previous %v", T, gap, last)
		}
		if bound := Theorem5Bound(res, init, eta, 2, 2); gap > bound {
			t.Errorf("T=%d: certified gap %v > Theorem 5 bound %v", T, gap, bound)
		}
		t.Logf("T=%6d: certified gap %.5f", T, gap)
		last = gap
	}
	if want := map[bool]float64{true: 0.11, false: 0.035}[testing.Short()]; last > want {
		t.Errorf("certified gap %v at T=%d, want ≤ %v", last, Ts[len(Ts)-1], want)
	}
	// In a zero-sum game each component's deviation values bracket the
	// game value (W_0 ≥ V* and W_1 ≥ −V*), so the output's value for the
	// max-player is within the certified gap of V* from the LP solution.
	V, _, _, _, err := g.SolveZeroSum()
	if err != nil {
		t.Fatal(err)
	}
	vals, err := res.Output().Values(g)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(vals[0] - V[0][g.Start()]); d > last+1e-12 {
		t.Errorf("output value %v differs from the game value %v by more than the gap %v", vals[0], V[0][g.Start()], last)
	}
}

// TestGeneralSumCheckpoints checks that a checkpoint at t equals the
// certified gap of a separate run of t iterations (Algorithm 2 is causal
// and the stages of a shorter run are a prefix), including checkpoints
// inside the unfinished first stage.
func TestGeneralSumCheckpoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	g, err := markov.RandomEpisodic([]int{2, 2, 3}, 2, 3, markov.GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	const T = 120
	init := gsRandomInit(g, T, rng)
	cps := []int{1, 2, 3, 4, 7, 30, 31, 119, 120}
	res, err := GeneralSumOOMD(g, init, OOMDConfig{Eta: 0.4, T: T, Checkpoints: cps})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checkpoints) != len(cps) {
		t.Fatalf("%d checkpoints, want %d", len(res.Checkpoints), len(cps))
	}
	for c, tc := range cps {
		sched, _ := NewSchedule(g.Horizon(), tc)
		sub := make([]*Staged, len(init))
		for i := range init {
			sub[i] = firstStages(init[i], len(sched))
		}
		r2, err := GeneralSumOOMD(g, sub, OOMDConfig{Eta: 0.4, T: tc})
		if err != nil {
			t.Fatal(err)
		}
		gap, per, err := CertifiedCCEGap(g, r2.Output())
		if err != nil {
			t.Fatal(err)
		}
		cp := res.Checkpoints[c]
		if cp.T != tc || math.Abs(cp.Gap-gap) > 1e-12 {
			t.Errorf("checkpoint %d: %+v, separate run of %d iterations gives %v", c, cp, tc, gap)
		}
		for i := range per {
			if math.Abs(cp.PerPlayer[i]-per[i]) > 1e-12 {
				t.Errorf("checkpoint %d player %d: %v, want %v", c, i, cp.PerPlayer[i], per[i])
			}
		}
	}
}

// TestGeneralSumSinglePlayer runs Algorithm 2 on a one-player game (an
// MDP): the certified gap is the suboptimality of the output and
// decreases in T.
func TestGeneralSumSinglePlayer(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 19))
	g, err := markov.RandomEpisodic([]int{3}, 2, 2, markov.GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	last := math.Inf(1)
	for _, T := range []int{100, 1000} {
		_, res := gsRunUniform(t, g, OOMDConfig{Eta: math.Pow(float64(T), -1.0/3), T: T})
		gap := gsGap(t, g, res)
		if gap < -1e-12 || gap >= last {
			t.Errorf("T=%d: gap %v, previous %v", T, gap, last)
		}
		last = gap
	}
}

// TestGeneralSumWarmStages checks the warm-start variant: it runs, keeps
// stage 1 at the initialisation, and differs from the literal algorithm.
func TestGeneralSumWarmStages(t *testing.T) {
	g := gsChicken(t)
	_, lit := gsRunUniform(t, g, OOMDConfig{Eta: 0.2, T: 500})
	_, warm := gsRunUniform(t, g, OOMDConfig{Eta: 0.2, T: 500, WarmStages: true})
	if warm.Avg[0].Row(0, 0, 0)[0] != 0.5 {
		t.Errorf("warm variant: stage-1 average %v, want the initialisation", warm.Avg[0].Row(0, 0, 0))
	}
	gl, gw := gsGap(t, g, lit), gsGap(t, g, warm)
	if gl == gw {
		t.Errorf("warm and literal variants give the same gap %v", gl)
	}
	t.Logf("literal %.5f, warm stages %.5f", gl, gw)
}

// TestGeneralSumErrors checks that bad inputs give errors naming the bad
// value.
func TestGeneralSumErrors(t *testing.T) {
	g := gsChicken(t)
	init, _ := UniformGeneralSumInit(g, 10)
	ok := OOMDConfig{Eta: 0.1, T: 10}
	bad3 := UniformStaged(4, 1, 1, 3)
	short := firstStages(init[0], 2)
	notDist := init[0].Clone()
	notDist.Row(1, 0, 0)[0] = 0.7
	for _, c := range []struct {
		name string
		g    *markov.Episodic
		init []*Staged
		cfg  OOMDConfig
		want string
	}{
		{"nil game", nil, init, ok, "nil game"},
		{"players", g, init[:1], ok, "1 initial policies for 2 players"},
		{"stages", g, []*Staged{short, init[1]}, ok, "init[0] has shape [2 1 1 2], want [4 1 1 2]"},
		{"actions", g, []*Staged{init[0], bad3}, ok, "init[1]"},
		{"distribution", g, []*Staged{notDist, init[1]}, ok, "init[0][stage 1][step 0][state 0]"},
		{"eta zero", g, init, OOMDConfig{T: 10}, "η = 0"},
		{"eta NaN", g, init, OOMDConfig{Eta: math.NaN(), T: 10}, "η = NaN"},
		{"eta inf", g, init, OOMDConfig{Eta: math.Inf(1), T: 10}, "η = +Inf"},
		{"T", g, init, OOMDConfig{Eta: 0.1, T: 0}, "T = 0"},
		{"tie", g, init, OOMDConfig{Eta: 0.1, T: 10, TieTol: -1}, "tie tolerance -1"},
		{"checkpoint range", g, init, OOMDConfig{Eta: 0.1, T: 10, Checkpoints: []int{11}}, "checkpoint 0 = 11 outside [1, T = 10]"},
		{"checkpoint zero", g, init, OOMDConfig{Eta: 0.1, T: 10, Checkpoints: []int{0}}, "checkpoint 0 = 0"},
		{"checkpoint order", g, init, OOMDConfig{Eta: 0.1, T: 10, Checkpoints: []int{5, 5}}, "checkpoint 1 = 5 not after checkpoint 0 = 5"},
	} {
		_, err := GeneralSumOOMD(c.g, c.init, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !(strings.HasPrefix(err.Error(), "metalearn: ") || strings.HasPrefix(err.Error(), "icrl: ")) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := UniformGeneralSumInit(nil, 10); err == nil {
		t.Error("UniformGeneralSumInit(nil): no error")
	}
	if _, err := UniformGeneralSumInit(g, 0); err == nil || !strings.Contains(err.Error(), "T = 0") {
		t.Errorf("UniformGeneralSumInit(T = 0): %v", err)
	}
	if _, _, err := CertifiedCCEGap(nil, nil); err == nil {
		t.Error("CertifiedCCEGap(nil, nil): no error")
	}
	if _, _, err := CertifiedCCEGap(g, nil); err == nil {
		t.Error("CertifiedCCEGap(g, nil): no error")
	}
	// An output evaluated in a game of another shape.
	_, res := gsRunUniform(t, g, ok)
	other, _ := markov.RandomEpisodic([]int{2, 3}, 1, 1, markov.GeneralSumGame, rand.New(rand.NewPCG(1, 1)))
	if _, _, err := CertifiedCCEGap(other, res.Output()); err == nil || !(strings.HasPrefix(err.Error(), "metalearn: ") || strings.HasPrefix(err.Error(), "icrl: ")) {
		t.Errorf("CertifiedCCEGap in another game: %v", err)
	}
	if _, err := res.Output().Values(other); err == nil {
		t.Error("Values in another game: no error")
	}
}

// TestGeneralSumAllocations checks that the iterations do not allocate:
// runs of T and 4T iterations allocate about as often (the schedule's
// slice grows by appends, a few allocations more for more stages).
func TestGeneralSumAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 21))
	g, err := markov.RandomEpisodic([]int{2, 2, 2}, 2, 3, markov.GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	allocs := func(T int) float64 {
		init, _ := UniformGeneralSumInit(g, T)
		return testing.AllocsPerRun(3, func() {
			if _, err := GeneralSumOOMD(g, init, OOMDConfig{Eta: 0.1, T: T}); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := allocs(250), allocs(1000); b-a > 4 {
		t.Errorf("%v allocations for T = 250, %v for T = 1000", a, b)
	}
}
