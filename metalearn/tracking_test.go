package metalearn

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// metaTrackingFull is built once, and so is its dense transition table
// (253 MB).
var (
	metaTrackingFull  *TrackingGame
	metaTrackingTable *tensor.Dense[float64]
)

func metaTrackingDense(t *testing.T) *tensor.Dense[float64] {
	t.Helper()
	if metaTrackingTable == nil {
		metaTrackingTable = metaTrackingDefault(t).DenseTransitions()
	}
	return metaTrackingTable
}

func metaTrackingDefault(t *testing.T) *TrackingGame {
	t.Helper()
	if metaTrackingFull == nil {
		g, err := Tracking(TrackingConfig{})
		if err != nil {
			t.Fatal(err)
		}
		metaTrackingFull = g
	}
	return metaTrackingFull
}

func TestTrackingSizes(t *testing.T) {
	g := metaTrackingDefault(t)
	if g.Players != 4 || g.Positions != 5 || g.Radius != 2 || g.States != 625 || g.Actions != 3 || g.Joint != 81 {
		t.Fatalf("sizes: players %d positions %d radius %d states %d actions %d joint %d, want 4 5 2 625 3 81",
			g.Players, g.Positions, g.Radius, g.States, g.Actions, g.Joint)
	}
	want := TrackingConfig{Players: 4, Positions: 5, Kappa: 0.5, Sigma: 1, Dt: 1, Drift: 1, NoiseRadius: 2}
	if g.Config != want {
		t.Errorf("resolved config %+v, want %+v", g.Config, want)
	}
	P := metaTrackingDense(t)
	if g.Rewards.Dim(0) != 625 || len(g.Potential) != 625 || P.Dim(0) != 625 {
		t.Fatalf("table lengths %d %d %d, want 625", g.Rewards.Dim(0), len(g.Potential), P.Dim(0))
	}
	if S, J := g.Kernel.Shape(); S != 625 || J != 81 {
		t.Fatalf("kernel shape %d×%d, want 625×81", S, J)
	}
	var next []int
	var prob []float64
	for s := range g.States {
		if g.Rewards.Dim(1) != 81 || len(g.Potential[s]) != 81 || P.Dim(1) != 81 {
			t.Fatalf("state %d: %d %d %d joint actions, want 81", s, g.Rewards.Dim(1), len(g.Potential[s]), P.Dim(1))
		}
		for j := range g.Joint {
			row := P.Row(s, j)
			// The product kernel's row is the dense row.
			next, prob = g.Kernel.Row(s, j, next, prob)
			krow := make([]float64, len(row))
			for e, s2 := range next {
				krow[s2] = prob[e]
			}
			if !closeSlices(krow, row, 1e-16) {
				t.Fatalf("kernel row (%d, %d) differs from the dense table", s, j)
			}
			if len(row) != 625 || g.Rewards.Dim(2) != 4 {
				t.Fatalf("state %d joint %d: row length %d, rewards %d", s, j, len(row), g.Rewards.Dim(2))
			}
			var sum float64
			for _, p := range row {
				if p < 0 {
					t.Fatalf("P(·|%d, %d) has a negative entry %v", s, j, p)
				}
				sum += p
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("P(·|%d, %d) sums to 1%+.3g", s, j, sum-1)
			}
		}
	}
}

func TestTrackingEncoding(t *testing.T) {
	g := metaTrackingDefault(t)
	pos := make([]int, 4)
	for s := range g.States {
		g.StatePositions(s, pos)
		back, err := g.StateIndex(pos)
		if err != nil || back != s {
			t.Fatalf("state %d → %v → %d, %v", s, pos, back, err)
		}
	}
	act := make([]int, 4)
	for j := range g.Joint {
		g.JointActions(j, act)
		back, err := g.JointIndex(act)
		if err != nil || back != j {
			t.Fatalf("joint %d → %v → %d, %v", j, act, back, err)
		}
	}
	if s, _ := g.StateIndex([]int{-2, -2, -2, -1}); s != 1 {
		t.Errorf("agent 3 is not least significant: state %d", s)
	}
	if j, _ := g.JointIndex([]int{0, -1, -1, -1}); j != 27 {
		t.Errorf("agent 0 is not most significant: joint %d, want 27", j)
	}
	if c := g.CenterState(); c != 312 {
		t.Errorf("CenterState = %d, want 312", c)
	}
	for _, bad := range [][]int{{0, 0, 0}, {0, 0, 3, 0}, {-3, 0, 0, 0}} {
		if _, err := g.StateIndex(bad); err == nil {
			t.Errorf("StateIndex(%v): no error", bad)
		}
	}
	for _, bad := range [][]int{{0, 0, 0, 0, 0}, {0, 2, 0, 0}} {
		if _, err := g.JointIndex(bad); err == nil {
			t.Errorf("JointIndex(%v): no error", bad)
		}
	}
}

func TestTrackingRewardsByHand(t *testing.T) {
	g := metaTrackingDefault(t)
	for _, c := range []struct {
		pos, act []int
		r        []float64
		phi      float64
	}{
		// μ = 1/4; r_i = −½a_i² − ¼(μ − s_i)²; φ = −½Σa² − ¼·¾·Σ(s−μ)².
		{[]int{-2, 0, 1, 2}, []int{1, 0, -1, 0}, []float64{-1.765625, -0.015625, -0.640625, -0.765625}, -2.640625},
		{[]int{0, 0, 0, 0}, []int{0, 0, 0, 0}, []float64{0, 0, 0, 0}, 0},
		// μ = 0; r = −½a² − ¼s².
		{[]int{2, -2, 1, -1}, []int{-1, -1, -1, -1}, []float64{-1.5, -1.5, -0.75, -0.75}, -2 - 0.1875*10},
	} {
		s, err := g.StateIndex(c.pos)
		if err != nil {
			t.Fatal(err)
		}
		j, err := g.JointIndex(c.act)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range c.r {
			if got := g.Rewards.At(s, j, i); math.Abs(got-want) > 1e-15 {
				t.Errorf("r_%d(%v, %v) = %v, want %v", i, c.pos, c.act, got, want)
			}
		}
		if got := g.Potential[s][j]; math.Abs(got-c.phi) > 1e-14 {
			t.Errorf("φ(%v, %v) = %v, want %v", c.pos, c.act, got, c.phi)
		}
	}
}

func TestTrackingTransitionsByHand(t *testing.T) {
	g := metaTrackingDefault(t)
	// Noise pmf ∝ exp(−x²/2) on {−2, …, 2}.
	z := 1 + 2*math.Exp(-0.5) + 2*math.Exp(-2)
	w := []float64{math.Exp(-2) / z, math.Exp(-0.5) / z, 1 / z, math.Exp(-0.5) / z, math.Exp(-2) / z}
	for k := range w {
		if math.Abs(g.Noise[k]-w[k]) > 1e-15 {
			t.Fatalf("noise pmf %v, want %v", g.Noise, w)
		}
	}
	P := metaTrackingDense(t)
	center := g.CenterState()
	stay, _ := g.JointIndex([]int{0, 0, 0, 0})
	if got, want := P.At(center, stay, center), math.Pow(w[2], 4); math.Abs(got-want) > 1e-15 {
		t.Errorf("P(center|center, 0) = %v, want %v", got, want)
	}
	// Agent 0 at 2 pushes right (+1): it stays at 2 (clipped) when ε ≥ −1,
	// moves to 1 when ε = −2. Agents 1..3 at −2 pull left (−1): they stay
	// at −2 when ε ≤ 1 and move to −1 when ε = 2.
	s, _ := g.StateIndex([]int{2, -2, -2, -2})
	j, _ := g.JointIndex([]int{1, -1, -1, -1})
	pEdge := w[1] + w[2] + w[3] + w[4]
	s2, _ := g.StateIndex([]int{2, -2, -2, -2})
	if got, want := P.At(s, j, s2), math.Pow(pEdge, 4); math.Abs(got-want) > 1e-15 {
		t.Errorf("P(stay at the walls) = %v, want %v", got, want)
	}
	s3, _ := g.StateIndex([]int{1, -2, -1, -2})
	if got, want := P.At(s, j, s3), w[0]*pEdge*w[4]*pEdge; math.Abs(got-want) > 1e-15 {
		t.Errorf("P((1,−2,−1,−2)|…) = %v, want %v", got, want)
	}
	// Agent at 0 with action +1: s' = clip(1 + ε) ∈ {−1, 0, 1, 2}.
	loc := g.Local.Row(2, 2)
	if want := []float64{0, w[0], w[1], w[2], w[3] + w[4]}; !closeSlices(loc, want, 1e-15) {
		t.Errorf("Local[+1][0] = %v, want %v", loc, want)
	}
}

// TestTrackingPotential checks on every state, joint action and agent that
// r_i − φ does not change when agent i changes its position or its action
// (the derivation in the TrackingGame doc).
func TestTrackingPotential(t *testing.T) {
	for _, cfg := range []TrackingConfig{{}, {Players: 3, Positions: 7, Kappa: 1.3, Dt: 0.5}, {Players: 1}} {
		var g *TrackingGame
		if cfg == (TrackingConfig{}) {
			g = metaTrackingDefault(t)
		} else {
			var err error
			if g, err = Tracking(cfg); err != nil {
				t.Fatal(err)
			}
		}
		N := g.Players
		pos := make([]int, N)
		act := make([]int, N)
		worst := 0.0
		for s := range g.States {
			for j := range g.Joint {
				g.StatePositions(s, pos)
				g.JointActions(j, act)
				for i := range N {
					ref := g.Rewards.At(s, j, i) - g.Potential[s][j]
					p0, a0 := pos[i], act[i]
					for p := -g.Radius; p <= g.Radius; p++ {
						for a := -1; a <= 1; a++ {
							pos[i], act[i] = p, a
							s2, _ := g.StateIndex(pos)
							j2, _ := g.JointIndex(act)
							worst = max(worst, math.Abs(g.Rewards.At(s2, j2, i)-g.Potential[s2][j2]-ref))
						}
					}
					pos[i], act[i] = p0, a0
				}
			}
		}
		if worst > 1e-12 {
			t.Errorf("config %+v: r_i − φ varies with (s_i, a_i) by %v", cfg, worst)
		}
	}
}

func TestTrackingBadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  TrackingConfig
		want string
	}{
		{TrackingConfig{Positions: 4}, "Positions = 4"},
		{TrackingConfig{Positions: -3}, "Positions = -3"},
		{TrackingConfig{Players: -1}, "Players = -1"},
		{TrackingConfig{Players: 9}, "too large"},
		{TrackingConfig{Players: 40, Positions: 3}, "too large"},
		{TrackingConfig{Kappa: -1}, "Kappa = -1"},
		{TrackingConfig{Sigma: -1}, "Sigma = -1"},
		{TrackingConfig{Dt: math.NaN()}, "Dt = NaN"},
		{TrackingConfig{Drift: math.Inf(1)}, "Drift = +Inf"},
		{TrackingConfig{NoiseRadius: -2}, "NoiseRadius = -2"},
	} {
		_, err := Tracking(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Tracking(%+v): error %v, want one naming %q", c.cfg, err, c.want)
		}
	}
}

func TestTrackingEpisodic(t *testing.T) {
	// The full game: one general-sum conversion (about 253 MB more).
	full := metaTrackingDefault(t)
	eg, err := full.Episodic(3, full.CenterState())
	if err != nil {
		t.Fatal(err)
	}
	if eg.States() != 625 || eg.NumJoint() != 81 || eg.Players() != 4 || eg.Horizon() != 3 || !eg.TimeHomogeneous() {
		t.Fatalf("episodic game: %d states, %d joint actions, %d players, H = %d", eg.States(), eg.NumJoint(), eg.Players(), eg.Horizon())
	}
	if got := eg.StepReward(2, 17, 40, 3); got != full.Rewards.At(17, 40, 3) {
		t.Errorf("episodic reward %v, want %v", got, full.Rewards.At(17, 40, 3))
	}
	if got := eg.StepTransition(1, 600, 80); !closeSlices(got, metaTrackingDense(t).Row(600, 80), 1e-16) {
		t.Error("episodic transitions differ from the dense table")
	}
	eg = nil

	g, err := Tracking(TrackingConfig{Players: 2})
	if err != nil {
		t.Fatal(err)
	}
	if g.States != 25 || g.Joint != 9 {
		t.Fatalf("2 players: %d states, %d joint actions", g.States, g.Joint)
	}
	gs, err := g.Episodic(4, g.CenterState())
	if err != nil {
		t.Fatal(err)
	}
	team, err := g.EpisodicTeam(4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !team.Cooperative() || gs.Cooperative() || team.Start() != 0 || gs.Start() != 12 {
		t.Errorf("kinds: team cooperative %v, general-sum cooperative %v, starts %d %d", team.Cooperative(), gs.Cooperative(), team.Start(), gs.Start())
	}
	for h := range 4 {
		for s := range g.States {
			for j := range g.Joint {
				for i := range 2 {
					if gs.StepReward(h, s, j, game.Player(i)) != g.Rewards.At(s, j, i) || team.StepReward(h, s, j, game.Player(i)) != g.Potential[s][j] {
						t.Fatalf("rewards differ at h=%d s=%d j=%d i=%d", h, s, j, i)
					}
				}
			}
		}
	}
	for _, c := range [][2]int{{0, 0}, {4, -1}, {4, 25}} {
		if _, err := g.Episodic(c[0], c[1]); err == nil {
			t.Errorf("Episodic(%d, %d): no error", c[0], c[1])
		}
		if _, err := g.EpisodicTeam(c[0], c[1]); err == nil {
			t.Errorf("EpisodicTeam(%d, %d): no error", c[0], c[1])
		}
	}
	// Under product policies in which every agent plays by its own
	// position only, the general-sum game is an exact MPG with potential φ:
	// a unilateral change of agent 0's policy changes its value and the
	// team value by the same amount.
	rng := rand.New(rand.NewPCG(1, 2))
	local := func() [][]float64 { // [p][a]
		out := make([][]float64, g.Positions)
		for p := range out {
			x := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
			sum := x[0] + x[1] + x[2]
			for a := range x {
				x[a] /= sum
			}
			out[p] = x
		}
		return out
	}
	lift := func(i int, l [][]float64) *markov.Policy {
		pol := markov.UniformPolicy(4, g.States, len(l[0]))
		pos := make([]int, 2)
		for h := range pol.Dim(0) {
			for s := range pol.Dim(1) {
				g.StatePositions(s, pos)
				copy(pol.Row(h, s), l[pos[i]+g.Radius])
			}
		}
		return pol
	}
	pi := markov.Product{lift(0, local()), lift(1, local())}
	dev := markov.Product{lift(0, local()), pi[1]}
	v1, err := gs.Values(pi)
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := gs.Values(dev)
	p1, _ := team.Values(pi)
	p2, _ := team.Values(dev)
	for s := range g.States {
		dv := v2.At(0, 0, s) - v1.At(0, 0, s)
		dp := p2.At(0, 0, s) - p1.At(0, 0, s)
		if math.Abs(dv-dp) > 1e-12 {
			t.Fatalf("state %d: unilateral change of agent 0: ΔV_0 = %v, ΔΦ = %v", s, dv, dp)
		}
	}
}

func TestPerturbedTracking(t *testing.T) {
	cfg := TrackingConfig{Players: 2}
	games, err := PerturbedTracking(cfg, 6, 0.5, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for k, g := range games {
		want := 1 + 0.5*rng.NormFloat64()
		if g.Config.Drift != want {
			t.Errorf("game %d drift %v, want %v", k, g.Config.Drift, want)
		}
		if g.Rewards != games[0].Rewards {
			t.Errorf("game %d does not share the reward table", k)
		}
		ref, err := Tracking(g.Config)
		if err != nil {
			t.Fatal(err)
		}
		for i := range g.Local.Dim(0) {
			for p := range g.Local.Dim(1) {
				if !closeSlices(g.Local.Row(i, p), ref.Local.Row(i, p), 0) {
					t.Fatalf("game %d: local kernels differ from Tracking(%+v)", k, g.Config)
				}
			}
		}
		for k2 := range k {
			same := math.Round(g.Config.Drift) == math.Round(games[k2].Config.Drift)
			shared := g.Kernel == games[k2].Kernel
			if same != shared {
				t.Errorf("games %d and %d: same rounded drift %v, shared transitions %v", k2, k, same, shared)
			}
		}
	}
	zero, err := PerturbedTracking(cfg, 3, 0, nil)
	if err == nil {
		t.Errorf("nil rng: no error (%d games)", len(zero))
	}
	zero, err = PerturbedTracking(cfg, 3, 0, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range zero {
		if g.Config.Drift != 1 {
			t.Errorf("sd = 0: drift %v", g.Config.Drift)
		}
	}
	for _, c := range []struct {
		K    int
		sd   float64
		cfg  TrackingConfig
		want string
	}{
		{-1, 0.5, cfg, "K = -1"},
		{2, -0.5, cfg, "deviation -0.5"},
		{2, math.NaN(), cfg, "deviation NaN"},
		{2, 0.5, TrackingConfig{Positions: 2}, "Positions = 2"},
	} {
		_, err := PerturbedTracking(c.cfg, c.K, c.sd, rand.New(rand.NewPCG(1, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PerturbedTracking(K=%d, sd=%v): error %v, want one naming %q", c.K, c.sd, err, c.want)
		}
	}
}

func TestTrackingMixtureDrift(t *testing.T) {
	// One agent on 21 positions (no clipping from the centre): the mean
	// displacement is c·a·Δt exactly under the mixture dynamics and
	// round(c·a·Δt) by default.
	for _, mix := range []bool{false, true} {
		g, err := Tracking(TrackingConfig{Players: 1, Positions: 21, Drift: 1.3, MixtureDrift: mix})
		if err != nil {
			t.Fatal(err)
		}
		for a := -1; a <= 1; a++ {
			var mean float64
			for q, p := range g.Local.Row(a+1, g.Radius) {
				mean += p * float64(q-g.Radius)
			}
			want := math.Round(1.3 * float64(a))
			if mix {
				want = 1.3 * float64(a)
			}
			if math.Abs(mean-want) > 1e-12 {
				t.Errorf("mixture %v action %d: mean displacement %v, want %v", mix, a, mean, want)
			}
		}
	}
}

// TestTrackingProductMatchesDense checks that the tracking game on its
// product kernel (TrackingGame.Episodic) evaluates as the same game built
// from the dense transition table (markov.NewGeneralSum): values, best
// responses, NE-gaps and 5 iterations of Q-ascent agree to 1e-12, on a
// 3-agent game with the mixture drift (125 states, 27 joint actions, H = 4),
// and the kernel's expectations do not depend on GOMAXPROCS.
func TestTrackingProductMatchesDense(t *testing.T) {
	tg, err := Tracking(TrackingConfig{Players: 3, Drift: 1.3, MixtureDrift: true})
	if err != nil {
		t.Fatal(err)
	}
	const H = 4
	g, err := tg.Episodic(H, tg.CenterState())
	if err != nil {
		t.Fatal(err)
	}
	rew, _ := tensor.New[float64](H, tg.States, tg.Joint, tg.Players)
	for h := range H {
		copy(rew.Sub(h).Data(), tg.Rewards.Data())
	}
	dk, err := markov.NewDenseKernel(tg.DenseTransitions())
	if err != nil {
		t.Fatal(err)
	}
	dense, err := markov.NewEpisodic([]int{3, 3, 3}, tg.CenterState(), H, rew, []markov.Kernel{dk})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pi := potRandomProduct(g, rng)
	gap, per, err := g.NEGap(pi)
	if err != nil {
		t.Fatal(err)
	}
	gap0, per0, err := dense.NEGap(pi)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(gap-gap0) > 1e-12 || !closeSlices(per, per0, 1e-12) || !(gap > 0) {
		t.Fatalf("NE-gap %v %v, dense %v %v", gap, per, gap0, per0)
	}
	_, v, err := g.BestResponse(pi, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, v0, err := dense.BestResponse(pi, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(v-v0) > 1e-12 {
		t.Fatalf("best-response value %v, dense %v", v, v0)
	}
	cfg := QAscentConfig{Alpha: 0.1, T: 5}
	res, err := QAscent(g, pi, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res0, err := QAscent(dense, pi, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Last {
		for h := range res.Last[i].Dim(0) {
			for s := range res.Last[i].Dim(1) {
				if !closeSlices(res.Last[i].Row(h, s), res0.Last[i].Row(h, s), 1e-12) {
					t.Fatalf("Q-ascent iterate of player %d at (%d, %d): %v, dense %v", i, h, s, res.Last[i].Row(h, s), res0.Last[i].Row(h, s))
				}
			}
		}
	}
	// Determinism: the default game's kernel (above the parallel
	// threshold) at GOMAXPROCS 1 and 2.
	k := metaTrackingDefault(t).Kernel
	vals := make([]float64, 4*625)
	for x := range vals {
		vals[x] = rng.NormFloat64()
	}
	a, b := make([]float64, 625*81*4), make([]float64, 625*81*4)
	prev := runtime.GOMAXPROCS(1)
	k.Expect(a, vals, 4)
	runtime.GOMAXPROCS(2)
	k.Expect(b, vals, 4)
	runtime.GOMAXPROCS(prev)
	for x := range a {
		if a[x] != b[x] {
			t.Fatalf("Expect entry %d: %v at GOMAXPROCS 1, %v at 2", x, a[x], b[x])
		}
	}
}
