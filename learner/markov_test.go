package learner_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/tables"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/learner/schedule"
	"github.com/icrl-go/icrl/markov"
)

// mkT6 is a two-state test game (T6): γ = 0.9, R_0 = [[1,0],[0,1]],
// R_1 = [[1,0],[0,0.5]], every transition ½/½. Gap(uniform) = (1.125, 1.375).
func mkT6(t testing.TB) *markov.Discounted {
	t.Helper()
	half := []float64{0.5, 0.5}
	tr := [][][]float64{{half, half}, {half, half}}
	g, err := tables.Discounted(
		[][][]float64{{{1, 0}, {0, 1}}, {{1, 0}, {0, 0.5}}},
		[][][][]float64{tr, tr}, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// mkRandomGame returns a random game with S states and A×B actions, rewards
// uniform in [0,1] and transition rows from normalised uniform weights.
func mkRandomGame(t testing.TB, S, A, B int, gamma float64, rng *rand.Rand) *markov.Discounted {
	t.Helper()
	r := make([][][]float64, S)
	p := make([][][][]float64, S)
	for s := range S {
		r[s] = make([][]float64, A)
		p[s] = make([][][]float64, A)
		for a := range A {
			r[s][a] = make([]float64, B)
			p[s][a] = make([][]float64, B)
			for b := range B {
				r[s][a][b] = rng.Float64()
				row := make([]float64, S)
				var sum float64
				for k := range row {
					row[k] = rng.Float64() + 1e-3
					sum += row[k]
				}
				for k := range row {
					row[k] /= sum
				}
				p[s][a][b] = row
			}
		}
	}
	g, err := tables.Discounted(r, p, gamma)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// mkConst is a Learner that plays a fixed policy and is not a HistoryPolicy.
type mkConst []float64

func (c mkConst) Policy(int) []float64                 { return c }
func (c mkConst) Observe(int, int, float64, int) error { return nil }
func (c mkConst) Reset()                               {}

func mustMarkovOMD(t testing.TB, cfg learner.OMDConfig) *learner.OMD {
	t.Helper()
	m, err := learner.NewOMD(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mkPair returns row and column OMD learners for g.
func mkPair(t testing.TB, g *markov.Discounted, cfg learner.OMDConfig) (*learner.OMD, *learner.OMD) {
	t.Helper()
	S, A, B := g.Dims()
	cfg.States, cfg.Discount = S, g.Discount()
	cfg.Actions, cfg.Role = A, game.RowPlayer
	x := mustMarkovOMD(t, cfg)
	cfg.Actions, cfg.Role = B, game.ColumnPlayer
	y := mustMarkovOMD(t, cfg)
	return x, y
}

// TestOMDValueT10 checks hand-computed one-step values (T10).
func TestMarkovOMDValueT10(t *testing.T) {
	for _, sched := range []schedule.Schedule{nil, schedule.Paper{Markov: true}} {
		m := mustMarkovOMD(t, learner.OMDConfig{States: 2, Actions: 2, Discount: 0.9, Horizon: 100, Schedule: sched})
		for s := range 2 {
			if v := m.Value(s); math.Abs(v-5) > 1e-12 {
				t.Fatalf("%T: V_1(%d) = %v, want 5", sched, s, v)
			}
		}
		if err := m.Observe(0, 0, 1, 1); err != nil {
			t.Fatal(err)
		}
		if v := m.Value(0); math.Abs(v-5.5) > 1e-12 {
			t.Errorf("%T: V_2(0) = %.10f, want 5.5", sched, v)
		}
		if v := m.Value(1); math.Abs(v-5) > 1e-12 {
			t.Errorf("%T: V_2(1) = %v, want 5 (unvisited)", sched, v)
		}
		if a := learner.OMDSchedule(m).At(2, 2, 100, 2).Alpha; math.Abs(a-0.6299605249) > 1e-10 {
			t.Errorf("%T: α_2 = %.10f, want 0.6299605249", sched, a)
		}
		// q = 0 + 0.9·5.5 = 4.95 (V before this step's update).
		if err := m.Observe(0, 1, 0, 0); err != nil {
			t.Fatal(err)
		}
		if v := m.Value(0); math.Abs(v-5.1535217113) > 1e-9 {
			t.Errorf("%T: V_3(0) = %.10f, want 5.1535217113", sched, v)
		}
		if m.Visits(0) != 2 || m.Visits(1) != 0 || m.Round() != 2 {
			t.Errorf("%T: visits (%d, %d), round %d; want (2, 0), 2", sched, m.Visits(0), m.Visits(1), m.Round())
		}
		if p := m.Policy(1); p[0] != 0.5 || p[1] != 0.5 {
			t.Errorf("%T: unvisited state's policy %v changed", sched, p)
		}
		m.Reset()
		if math.Abs(m.Value(0)-5) > 1e-12 || m.Visits(0) != 0 || m.Round() != 0 || m.Policy(0)[0] != 0.5 {
			t.Errorf("%T: Reset left V = %v, n = %d, t = %d, x = %v", sched, m.Value(0), m.Visits(0), m.Round(), m.Policy(0))
		}
	}
}

// TestOMDInvariants checks invariants along random runs:
// V ∈ [0, 1/(1−γ)], only s_t's entries change, x(s) ∈ Ω_δ, visits sum to t.
func TestMarkovOMDInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	const S, T = 4, 3000
	for _, cfg := range []learner.OMDConfig{
		{Actions: 3, Discount: 0.9},
		{Actions: 3, Discount: 0.9, LossScale: learner.RawLoss},
		{Actions: 2, Discount: 0.5, Convention: learner.RewardAscent, Role: game.ColumnPlayer},
		{Actions: 5, Discount: 0.99, Convention: learner.PrintedSign, LossScale: learner.RawLoss},
		{Actions: 3, Discount: 0.9, Schedule: schedule.Paper{Markov: true}, Horizon: T, ProxFactor: 1},
		{Actions: 4, Discount: 0, Schedule: schedule.Func(func(t, visit, horizon, actions int) schedule.StepSizes {
			z := schedule.Paper{}.At(t, visit, horizon, actions)
			z.Alpha = 0.3
			return z
		}), Horizon: T},
	} {
		cfg.States = S
		m := mustMarkovOMD(t, cfg)
		U := 1 / (1 - cfg.Discount)
		A := cfg.Actions
		for step := 1; step <= T; step++ {
			s, a, sn := rng.IntN(S), rng.IntN(A), rng.IntN(S)
			r := rng.Float64()
			if step%7 == 0 {
				r = float64(rng.IntN(2)) // the extremes
			}
			xBefore := slices.Clone(learner.OMDTable(m))
			vBefore := m.Values()
			delta := learner.OMDSchedule(m).At(step, m.Visits(s)+1, cfg.Horizon, A).Delta
			if err := m.Observe(s, a, r, sn); err != nil {
				t.Fatal(err)
			}
			for k := range S {
				if k == s {
					continue
				}
				if m.Value(k) != vBefore[k] || !slices.Equal(learner.OMDTable(m)[k*A:(k+1)*A], xBefore[k*A:(k+1)*A]) {
					t.Fatalf("%+v step %d: state %d changed but s_t = %d", cfg, step, k, s)
				}
			}
			if v := m.Value(s); !(v >= 0 && v <= U) {
				t.Fatalf("%+v step %d: V(%d) = %v outside [0, %v]", cfg, step, s, v, U)
			}
			if err := simplex.CheckDistribution("x(s)", m.Policy(s), A); err != nil {
				t.Fatalf("%+v step %d: %v", cfg, step, err)
			}
			if lo := slices.Min(m.Policy(s)); lo < delta-1e-12 {
				t.Fatalf("%+v step %d: min x(%d) = %v below δ = %v", cfg, step, s, lo, delta)
			}
			var visits int
			for k := range S {
				visits += m.Visits(k)
			}
			if visits != step || m.Round() != step {
				t.Fatalf("%+v step %d: visits sum to %d, round %d", cfg, step, visits, m.Round())
			}
		}
	}
}

// TestOMDMatchesOMD checks that one state with γ = 0 is exactly the
// matrix-game OMD with the same schedule clocked by rounds (U = 1, q = r).
func TestMarkovOMDMatchesOMD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, conv := range []learner.Convention{learner.LossDescent, learner.RewardAscent, learner.PrintedSign} {
		for _, role := range []game.Player{game.RowPlayer, game.ColumnPlayer} {
			m := mustMarkovOMD(t, learner.OMDConfig{States: 1, Actions: 3, Convention: conv, Role: role, Schedule: schedule.Cai{}})
			o := mustMarkovOMD(t, learner.OMDConfig{Actions: 3, Convention: conv, Role: role})
			for step := range 500 {
				a, r := rng.IntN(3), rng.Float64()
				if err := m.Observe(0, a, r, 0); err != nil {
					t.Fatal(err)
				}
				if err := o.Observe(0, a, r, 0); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(m.Policy(0), o.Policy(0)) {
					t.Fatalf("%v %v step %d: OMD %v, OMD %v", conv, role, step, m.Policy(0), o.Policy(0))
				}
			}
		}
	}
}

// TestCaiPerVisit checks that schedule.Cai depends on the visit count only: the per-visit Cai
// schedule with α_τ = τ^{−2/3}.
func TestCaiPerVisit(t *testing.T) {
	for _, tau := range []int{1, 2, 3, 10, 1000, 123456789} {
		got := schedule.Cai{}.At(7, tau, 0, 3)
		want := schedule.Cai{}.At(tau, tau, 0, 3)
		alpha := math.Pow(float64(tau), -2.0/3)
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"η", got.Eta, want.Eta}, {"β", got.Beta, want.Beta}, {"ε", got.Epsilon, want.Epsilon}, {"δ", got.Delta, want.Delta}, {"α", got.Alpha, alpha}} {
			if math.Abs(c.got-c.want) > 1e-14*c.want {
				t.Errorf("τ = %d: %s = %v, want %v", tau, c.name, c.got, c.want)
			}
		}
	}
	p := schedule.Paper{Markov: true}.At(5, 8, 1000, 2)
	if math.Abs(p.Eta-1e-5) > 1e-18 || math.Abs(p.Epsilon-0.1) > 1e-15 || math.Abs(p.Beta-0.5) > 1e-15 || math.Abs(p.Alpha-0.25) > 1e-15 || p.Delta != 1/(2*1e6) {
		t.Errorf("MarkovPaperSchedule at T = 1000, τ = 8: %+v, want η = 1e-5, ε = 0.1, β = 0.5, α = 0.25, δ = 5e-7", p)
	}
}

// TestOMDObserveAllocs checks that Observe does not allocate.
func TestMarkovOMDObserveAllocs(t *testing.T) {
	m := mustMarkovOMD(t, learner.OMDConfig{States: 5, Actions: 10, Discount: 0.9})
	k := 0
	allocs := testing.AllocsPerRun(1000, func() {
		k++
		if err := m.Observe(k%5, k%10, float64(k%3)/2, (k*3)%5); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Observe allocates %v times per call, want 0", allocs)
	}
}

// mkFinalGap runs Markov OMD self-play on g with exact rewards and returns
// the final max-gap.
func mkFinalGap(t testing.TB, g *markov.Discounted, cfg learner.OMDConfig, T int, seed uint64) float64 {
	t.Helper()
	cfg.Horizon = T
	x, y := mkPair(t, g, cfg)
	res, err := play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: T, Noise: game.Exact{}}, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if !(res.LastGap >= 0) || math.IsInf(res.LastGap, 0) {
		t.Fatalf("gap %v is not finite and non-negative", res.LastGap)
	}
	return res.LastGap
}

// TestMarkovUniformGapT6 checks the T6 value the other tests lean on.
func TestMarkovUniformGapT6(t *testing.T) {
	g := mkT6(t)
	per, max, err := g.Gap(markov.UniformStationary(2, 2), markov.UniformStationary(2, 2))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(per[0]-1.125) > 1e-9 || math.Abs(per[1]-1.375) > 1e-9 || math.Abs(max-1.375) > 1e-9 {
		t.Errorf("gap(uniform) = %v, max %v; want (1.125, 1.375), 1.375", per, max)
	}
}

// TestOMDPaperScheduleT7 is the Markov part of the paper-schedule test: with the
// paper's exponents Algorithm 1 does not move the policies, and the final
// max-gap stays at gap(uniform) = 1.375.
func TestMarkovOMDPaperScheduleT7(t *testing.T) {
	g := mkT6(t)
	for _, T := range []int{1000, 10000} {
		// Deterministic movement bound: ‖x_T(s) − x_1(s)‖₂ ≤ c·(L·T^{−1/3} + T^{−2/3}).
		for _, scale := range []learner.LossScale{learner.NormalizedLoss, learner.RawLoss} {
			x, y := mkPair(t, g, learner.OMDConfig{Schedule: schedule.Paper{Markov: true}, Horizon: T, LossScale: scale})
			if _, err := play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: T}, rand.New(rand.NewPCG(9, 9))); err != nil {
				t.Fatal(err)
			}
			L := 1.0
			if scale == learner.RawLoss {
				L = 10
			}
			bound := 0.5 * (L*math.Pow(float64(T), -1.0/3) + math.Pow(float64(T), -2.0/3))
			for _, l := range []*learner.OMD{x, y} {
				for s := range 2 {
					p := l.Policy(s)
					if d := math.Hypot(p[0]-0.5, p[1]-0.5); d > bound {
						t.Errorf("%v T = %d: ‖x_T(%d) − uniform‖ = %v > bound %v", scale, T, s, d, bound)
					}
				}
			}
		}
		for seed := range uint64(3) {
			gap := mkFinalGap(t, g, learner.OMDConfig{Schedule: schedule.Paper{Markov: true}}, T, seed)
			t.Logf("MarkovPaperSchedule, T = %d, seed %d: final max-gap %.4f", T, seed, gap)
			if math.Abs(gap-1.375) > 0.01 {
				t.Errorf("T = %d, seed %d: max-gap %v, want 1.375 ± 0.01 (gap(uniform))", T, seed, gap)
			}
		}
	}
}

// TestOMDPerVisitT8 reports the Markov part of the working-schedule test (per-visit
// schedule, three seeds) for both loss scales. Convergence is not asserted
// (a statistical claim would be flaky); only the invariants and gap ≥ 0 are.
func TestMarkovOMDPerVisitT8(t *testing.T) {
	g := mkT6(t)
	Ts := []int{1000, 10000, 100000}
	if testing.Short() {
		Ts = Ts[:2]
	}
	for _, scale := range []learner.LossScale{learner.NormalizedLoss, learner.RawLoss} {
		for _, T := range Ts {
			var sum float64
			for seed := range uint64(3) {
				x, y := mkPair(t, g, learner.OMDConfig{LossScale: scale, Horizon: T})
				res, err := play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: T, Noise: game.Exact{}}, rand.New(rand.NewPCG(seed, 0)))
				if err != nil {
					t.Fatal(err)
				}
				if !(res.LastGap >= 0) || math.IsInf(res.LastGap, 0) {
					t.Fatalf("%v T = %d: gap %v", scale, T, res.LastGap)
				}
				for _, l := range []*learner.OMD{x, y} {
					var n int
					for s := range 2 {
						n += l.Visits(s)
						if v := l.Value(s); !(v >= 0 && v <= 10) {
							t.Errorf("%v T = %d: V(%d) = %v outside [0, 10]", scale, T, s, v)
						}
					}
					if n != T {
						t.Errorf("%v T = %d: visits sum to %d", scale, T, n)
					}
				}
				sum += res.LastGap
			}
			t.Logf("PerVisit %v, T = %6d: mean final max-gap over 3 seeds %.4f (uniform: 1.375)", scale, T, sum/3)
		}
	}
}

// TestMarkovSelfPlayDeterminism checks that a seed fixes the whole run.
func TestMarkovSelfPlayDeterminism(t *testing.T) {
	g := mkRandomGame(t, 3, 3, 2, 0.8, rand.New(rand.NewPCG(1, 1)))
	run := func(seed uint64) *play.SelfPlayResult {
		x, y := mkPair(t, g, learner.OMDConfig{})
		g, err := g.WithStart(2)
		if err != nil {
			t.Fatal(err)
		}
		res, err := play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: 2000, Checkpoints: []int{1, 500}, Record: true}, rand.New(rand.NewPCG(seed, 7)))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, c := run(1), run(1), run(2)
	if !slices.Equal(a.Row, b.Row) || !slices.Equal(a.Col, b.Col) || a.LastGap != b.LastGap || a.Final != b.Final {
		t.Error("two runs with the same seed differ")
	}
	for k := range a.Checkpoints {
		if a.Checkpoints[k].LastGap != b.Checkpoints[k].LastGap {
			t.Errorf("checkpoint %d: gaps %v and %v with the same seed", k, a.Checkpoints[k].LastGap, b.Checkpoints[k].LastGap)
		}
	}
	if slices.Equal(a.Row, c.Row) {
		t.Error("two seeds gave the same trajectory")
	}
	if len(a.Checkpoints) != 3 || a.Checkpoints[2].Round != 2000 || a.Checkpoints[2].LastGap != a.LastGap {
		t.Errorf("checkpoints %+v, want rounds 1, 500, 2000 ending with the final gap", a.Checkpoints)
	}
	if a.Row[0].State != 2 {
		t.Errorf("first state %d, want Start = 2", a.Row[0].State)
	}
	var n int
	for s, v := range a.Visits {
		n += v
		var k int
		for _, st := range a.Row {
			if st.State == s {
				k++
			}
		}
		if k != v {
			t.Errorf("Visits[%d] = %d, trajectory has %d", s, v, k)
		}
	}
	if n != 2000 {
		t.Errorf("visits sum to %d", n)
	}
	for k, st := range a.Row {
		if a.Col[k].State != st.State || a.Col[k].Reward != 1-st.Reward {
			t.Fatalf("round %d: row step %+v, column step %+v", k+1, st, a.Col[k])
		}
	}
	// Uniform policies at round 1.
	_, want, err := g.Gap(markov.UniformStationary(3, 3), markov.UniformStationary(3, 2))
	if err != nil {
		t.Fatal(err)
	}
	if a.Checkpoints[0].LastGap != want {
		t.Errorf("round-1 gap %v, want gap(uniform) = %v", a.Checkpoints[0].LastGap, want)
	}
}

// TestOMDReplay checks that Distribution replays a recorded
// trajectory to the policy played at each round, bit for bit, for both
// players (in the Markov setting).
func TestMarkovOMDReplay(t *testing.T) {
	g := mkRandomGame(t, 3, 2, 3, 0.9, rand.New(rand.NewPCG(2, 2)))
	for _, cfg := range []learner.OMDConfig{{}, {Convention: learner.PrintedSign, LossScale: learner.RawLoss}} {
		x, y := mkPair(t, g, cfg)
		const T = 300
		res, err := play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: T, Record: true}, rand.New(rand.NewPCG(5, 5)))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct {
			l    *learner.OMD
			traj []learner.Step
		}{{x, res.Row}, {y, res.Col}} {
			fresh := mustMarkovOMD(t, learner.OMDConfig{States: p.l.States(), Actions: p.l.Actions(), Discount: p.l.Discount(), Convention: cfg.Convention, Role: learner.OMDRole(p.l), LossScale: cfg.LossScale})
			dst := make([]float64, p.l.Actions())
			for k := 1; k <= T; k++ {
				st := p.traj[k-1]
				got, err := p.l.Distribution(dst, p.traj[:k-1], p.traj[k-1].State)
				if err != nil {
					t.Fatal(err)
				}
				if want := fresh.Policy(st.State); !slices.Equal(got, want) {
					t.Fatalf("round %d: replay %v, online %v", k, got, want)
				}
				sn := res.Final
				if k < T {
					sn = p.traj[k].State
				}
				if err := fresh.Observe(st.State, st.Action, st.Reward, sn); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := play.Stationary(fresh, fresh.States()), play.Stationary(p.l, p.l.States()); !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("final policies differ: %v vs %v", got, want)
			}
		}
	}
	m := mustMarkovOMD(t, learner.OMDConfig{States: 2, Actions: 3, Discount: 0.5})
	if d, err := m.Distribution(nil, nil, 0); err != nil || d[0] != 1.0/3 {
		t.Errorf("empty history: %v, %v; want uniform", d, err)
	}
	if _, err := m.Distribution(nil, []learner.Step{{State: 0, Action: 0, Reward: math.NaN()}}, 1); err == nil || !strings.Contains(err.Error(), "step 0") {
		t.Errorf("NaN reward in history: error %v, want one naming step 0", err)
	}
	if _, err := m.Distribution(nil, nil, 5); err == nil {
		t.Error("out-of-range query state: no error")
	}
}

// TestPerStateSelfPlay runs PerState-wrapped OMD learners in self-play.
func TestPerStateSelfPlay(t *testing.T) {
	g := mkT6(t)
	mk := func(role game.Player) *learner.PerState {
		p, err := learner.NewPerState(2, func(int) (learner.Learner, error) {
			return learner.NewOMD(learner.OMDConfig{Actions: 2, Role: role})
		})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	x, y := mk(game.RowPlayer), mk(game.ColumnPlayer)
	const T = 20000
	res, err := play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: T, Noise: game.Exact{}, Record: true, Checkpoints: []int{1000}}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PerState OMD (myopic), T = %d: max-gaps %.4f (t = 1000), %.4f (t = T), per state %.4f", T, res.Checkpoints[0].LastGap, res.LastGap, res.StateGaps)
	if !(res.LastGap >= 0) || math.IsInf(res.LastGap, 0) {
		t.Errorf("gap %v", res.LastGap)
	}
	for s := range 2 {
		if n := x.Learner(s).(*learner.OMD).Round(); n != res.Visits[s] {
			t.Errorf("state %d's learner saw %d rounds, the state was visited %d times", s, n, res.Visits[s])
		}
	}
	// Replay through the per-state learners' Distribution.
	for _, k := range []int{1, 2, 100, T} {
		d, err := x.Distribution(nil, res.Row[:k-1], res.Row[k-1].State)
		if err != nil {
			t.Fatal(err)
		}
		if k == T {
			if !slices.Equal(d, res.LastX[res.Row[T-1].State]) {
				t.Errorf("replay at T: %v, last iterate %v", d, res.LastX[res.Row[T-1].State])
			}
		}
		if k == 1 && d[0] != 0.5 {
			t.Errorf("replay at round 1: %v, want uniform", d)
		}
	}
	if sp := play.Stationary(x, 2); !slices.EqualFunc(sp, [][]float64{x.Policy(0), x.Policy(1)}, slices.Equal) {
		t.Errorf("StationaryPolicy %v", sp)
	}
	x.Reset()
	if x.Learner(0).(*learner.OMD).Round() != 0 || x.Policy(1)[0] != 0.5 {
		t.Error("Reset did not reset the per-state learners")
	}
}

func TestMarkovErrors(t *testing.T) {
	wantErr := func(name string, err error, sub string) { t.Helper(); wantErrContaining(t, name, err, sub) }
	for _, c := range []struct {
		name string
		cfg  learner.OMDConfig
		sub  string
	}{
		{"negative states", learner.OMDConfig{States: -1, Actions: 2}, "States"},
		{"no actions", learner.OMDConfig{States: 2, Discount: 0.5}, "Actions"},
		{"γ = 1", learner.OMDConfig{States: 2, Actions: 2, Discount: 1}, "Discount"},
		{"γ NaN", learner.OMDConfig{States: 2, Actions: 2, Discount: math.NaN()}, "Discount"},
		{"γ < 0", learner.OMDConfig{States: 2, Actions: 2, Discount: -0.1}, "Discount"},
		{"horizon < 0", learner.OMDConfig{States: 2, Actions: 2, Horizon: -1}, "Horizon"},
		{"paper without horizon", learner.OMDConfig{States: 2, Actions: 2, Schedule: schedule.Paper{Markov: true}}, "Horizon"},
		{"convention", learner.OMDConfig{States: 2, Actions: 2, Convention: 9}, "Convention"},
		{"role", learner.OMDConfig{States: 2, Actions: 2, Role: 9}, "Role"},
		{"loss scale", learner.OMDConfig{States: 2, Actions: 2, LossScale: 9}, "LossScale"},
		{"prox", learner.OMDConfig{States: 2, Actions: 2, ProxFactor: -1}, "ProxFactor"},
		{"prox Inf", learner.OMDConfig{States: 2, Actions: 2, ProxFactor: math.Inf(1)}, "ProxFactor"},
		{"α > 1", learner.OMDConfig{States: 2, Actions: 2, Schedule: schedule.Func(func(t, v, h, a int) schedule.StepSizes {
			z := schedule.Cai{}.At(t, v, h, a)
			z.Alpha = 2
			return z
		})}, "α"},
		{"δ too big", learner.OMDConfig{States: 2, Actions: 2, Schedule: schedule.Func(func(t, v, h, a int) schedule.StepSizes {
			return schedule.StepSizes{Eta: 1, Beta: 1, Epsilon: 1, Delta: 0.6, Alpha: 1}
		})}, "δ"},
		{"η NaN", learner.OMDConfig{States: 2, Actions: 2, Schedule: schedule.Func(func(t, v, h, a int) schedule.StepSizes {
			return schedule.StepSizes{Eta: math.NaN(), Alpha: 1}
		})}, "η"},
	} {
		_, err := learner.NewOMD(c.cfg)
		wantErr(c.name, err, c.sub)
	}

	m := mustMarkovOMD(t, learner.OMDConfig{States: 2, Actions: 3, Discount: 0.9})
	before, vBefore := play.Stationary(m, 2), m.Values()
	for _, c := range []struct {
		name       string
		s, a, next int
		r          float64
		sub        string
	}{
		{"NaN reward", 0, 0, 0, math.NaN(), "not finite"},
		{"Inf reward", 0, 0, 0, math.Inf(1), "not finite"},
		{"state", 2, 0, 0, 0.5, "state 2"},
		{"negative state", -1, 0, 0, 0.5, "state -1"},
		{"next state", 0, 0, 7, 0.5, "next state 7"},
		{"action", 0, 3, 0, 0.5, "action 3"},
	} {
		wantErr(c.name, m.Observe(c.s, c.a, c.r, c.next), c.sub)
	}
	if m.Round() != 0 || m.Visits(0) != 0 || !slices.Equal(vBefore, m.Values()) || !slices.EqualFunc(before, play.Stationary(m, 2), slices.Equal) {
		t.Error("a rejected observation changed the learner")
	}
	// A schedule that turns bad later is rejected at Observe, unchanged.
	late := mustMarkovOMD(t, learner.OMDConfig{States: 1, Actions: 2, Schedule: schedule.Func(func(t, v, h, a int) schedule.StepSizes {
		if v > 1 {
			return schedule.StepSizes{Eta: 1, Beta: -1, Alpha: 1}
		}
		return schedule.StepSizes{Eta: 1, Beta: 1, Alpha: 1}
	})})
	if err := late.Observe(0, 0, 1, 0); err != nil {
		t.Fatal(err)
	}
	wantErr("β < 0 at visit 2", late.Observe(0, 0, 1, 0), "β")
	if late.Visits(0) != 1 {
		t.Error("a rejected schedule changed the visit count")
	}
}

// wantErrContaining reports an error unless err is non-nil and mentions
// sub.
func wantErrContaining(t *testing.T, name string, err error, sub string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", name)
		return
	}
	if !strings.Contains(err.Error(), sub) {
		t.Errorf("%s: error %q does not mention %q", name, err, sub)
	}
}

// TestPerStateErrors replays bad constructions, observations and replays
// of PerState.
func TestPerStateErrors(t *testing.T) {
	wantErr := func(name string, err error, sub string) { t.Helper(); wantErrContaining(t, name, err, sub) }
	_, err := learner.NewPerState(0, func(int) (learner.Learner, error) { return learner.NewOMD(learner.OMDConfig{Actions: 2}) })
	wantErr("PerState no states", err, "states")
	_, err = learner.NewPerState(2, nil)
	wantErr("PerState nil factory", err, "factory")
	_, err = learner.NewPerState(2, func(s int) (learner.Learner, error) { return learner.NewOMD(learner.OMDConfig{Actions: 2 + s}) })
	wantErr("PerState action counts", err, "state 1")
	_, err = learner.NewPerState(2, func(s int) (learner.Learner, error) { return learner.NewOMD(learner.OMDConfig{Actions: s - 1}) })
	wantErr("PerState factory error", err, "state 0")
	ps, err := learner.NewPerState(2, func(int) (learner.Learner, error) { return learner.NewOMD(learner.OMDConfig{Actions: 2}) })
	if err != nil {
		t.Fatal(err)
	}
	wantErr("PerState NaN", ps.Observe(0, 0, math.NaN(), 1), "not finite")
	wantErr("PerState state", ps.Observe(3, 0, 0.5, 1), "state 3")
	wantErr("PerState next", ps.Observe(0, 0, 0.5, -1), "next state -1")
	ns, err := learner.NewPerState(1, func(int) (learner.Learner, error) { return mkConst{0.5, 0.5}, nil })
	if err != nil {
		t.Fatal(err)
	}
	_, err = ns.Distribution(nil, nil, 0)
	wantErr("PerState non-Policy replay", err, "not a HistoryPolicy")
	_, err = ps.Distribution(nil, []learner.Step{{State: 4}}, 0)
	wantErr("PerState replay state", err, "state 4")
}

// TestMarkovSelfPlayErrors replays bad arguments to play.SelfPlay on a Markov
// game, and a learner that fails mid-run.
func TestMarkovSelfPlayErrors(t *testing.T) {
	wantErr := func(name string, err error, sub string) { t.Helper(); wantErrContaining(t, name, err, sub) }
	g := mkT6(t)
	x, y := mkPair(t, g, learner.OMDConfig{})
	rng := rand.New(rand.NewPCG(1, 1))
	ok := play.SelfPlayConfig{Rounds: 10}
	_, err := play.SelfPlay(context.Background(), nil, x, y, ok, rng)
	wantErr("nil game", err, "nil game")
	_, err = play.SelfPlay(context.Background(), g, nil, y, ok, rng)
	wantErr("nil learner", err, "nil learner")
	_, err = play.SelfPlay(context.Background(), g, x, y, ok, nil)
	wantErr("nil rng", err, "random source")
	_, err = play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{}, rng)
	wantErr("no rounds", err, "got 0")
	_, err = g.WithStart(2)
	wantErr("start", err, "start state 2")
	_, err = play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: 10, Checkpoints: []int{5, 5}}, rng)
	wantErr("checkpoints", err, "checkpoint")
	_, err = play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: 10, Checkpoints: []int{11}}, rng)
	wantErr("checkpoint beyond", err, "checkpoint")
	three := mustMarkovOMD(t, learner.OMDConfig{States: 2, Actions: 3, Discount: 0.9})
	_, err = play.SelfPlay(context.Background(), g, three, y, ok, rng)
	wantErr("action count", err, "row player")
	oneState := mustMarkovOMD(t, learner.OMDConfig{States: 1, Actions: 2, Discount: 0.9})
	_, err = play.SelfPlay(context.Background(), g, x, oneState, ok, rng)
	wantErr("state count", err, "column player's learner *learner.OMD has 1 states")
	half := []float64{0.5, 0.5}
	tr := [][][]float64{{half, half}, {half, half}}
	big, err := tables.Discounted([][][]float64{{{2, 0}, {0, 1}}, {{1, 0}, {0, 1}}}, [][][][]float64{tr, tr}, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	_, err = play.SelfPlay(context.Background(), big, x, y, ok, rng)
	wantErr("rewards outside [0,1]", err, "[0,1]")
	// A learner that rejects an observation stops the run with its error.
	gamma0 := mustMarkovOMD(t, learner.OMDConfig{States: 2, Actions: 2, Discount: 0.9, Schedule: schedule.Func(func(t, v, h, a int) schedule.StepSizes {
		if t > 3 {
			return schedule.StepSizes{Eta: math.Inf(1), Alpha: 1}
		}
		return schedule.StepSizes{Eta: 0.1, Beta: 0.1, Alpha: 1}
	})})
	_, err = play.SelfPlay(context.Background(), g, gamma0, y, ok, rng)
	wantErr("learner error", err, "round 4, row player")
}

// TestMarkovOMDLiteralDiverges is the Markov counterpart of the one-state
// PrintedSign test: the
// paper's literal sign (line 5 of Algorithm 1 used with argmin) ends far
// above the uniform policies' gap of 1.375.
func TestMarkovOMDLiteralDiverges(t *testing.T) {
	g := mkT6(t)
	for _, scale := range []learner.LossScale{learner.NormalizedLoss, learner.RawLoss} {
		var sum float64
		for seed := range uint64(3) {
			sum += mkFinalGap(t, g, learner.OMDConfig{Convention: learner.PrintedSign, LossScale: scale}, 10000, seed)
		}
		t.Logf("PrintedSign %v, T = 10⁴: mean final max-gap %.4f", scale, sum/3)
		if sum/3 < 2 {
			t.Errorf("PrintedSign %v: mean gap %v, want > 2 (divergence; uniform is 1.375)", scale, sum/3)
		}
	}
}

// TestSelfPlayDiscountAndStates checks the named capabilities play.SelfPlay
// looks for: a learner whose discount (a game.Discounter) differs from a
// game.Discounter's, or whose state count (StateCounter) differs from the
// game's, is refused with an error naming both; matching ones play.
func TestSelfPlayDiscountAndStates(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	g := mkRandomGame(t, 2, 2, 2, 0.9, rng)
	var _ game.Discounter = g
	var _ game.Bounded = g
	var _ game.Discounter = (*learner.OMD)(nil)
	var _ learner.StateCounter = (*learner.OMD)(nil)
	playOMD := func(row, col *learner.OMD) error {
		_, err := play.SelfPlay(context.Background(), g, row, col, play.SelfPlayConfig{Rounds: 5}, rand.New(rand.NewPCG(1, 1)))
		return err
	}
	ok := mustMarkovOMD(t, learner.OMDConfig{States: 2, Actions: 2, Discount: 0.9})
	if err := playOMD(ok, mustMarkovOMD(t, learner.OMDConfig{States: 2, Actions: 2, Discount: 0.9})); err != nil {
		t.Fatalf("matching discounts: %v", err)
	}
	err := playOMD(ok, mustMarkovOMD(t, learner.OMDConfig{States: 2, Actions: 2, Discount: 0.8}))
	if !errors.Is(err, icrl.ErrInvalid) || !strings.Contains(err.Error(), "column player's learner *learner.OMD has discount 0.8, the game 0.9") {
		t.Errorf("discount 0.8 in a game of discount 0.9: %v", err)
	}
	err = playOMD(mustMarkovOMD(t, learner.OMDConfig{States: 3, Actions: 2, Discount: 0.9}), ok)
	if !errors.Is(err, icrl.ErrShape) || !strings.Contains(err.Error(), "row player's learner *learner.OMD has 3 states, the game 2") {
		t.Errorf("3 states in a 2-state game: %v", err)
	}
}
