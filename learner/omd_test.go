package learner_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/learner/schedule"
)

// g1 is the game G1 = [[1,0],[0,0.5]]: NE (1/3, 2/3) for both players,
// value 1/3, Gap(uniform) = 0.25.
func omdG1() *game.ZeroSum { return game.MustZeroSum([][]float64{{1, 0}, {0, 0.5}}) }

// constSchedule is the constant schedule of the hand-computed T2 vectors:
// δ = 1/(A·T²) with the given T.
func constSchedule(eta, beta, eps float64, T int) schedule.Func {
	return func(t, visit, horizon, actions int) schedule.StepSizes {
		return schedule.StepSizes{Eta: eta, Beta: beta, Epsilon: eps, Delta: 1 / (float64(actions) * float64(T*T))}
	}
}

// projectBisect is an independent reference for simplex.ProjectTruncated:
// Π(v)_a = max(v_a − τ, δ) with τ found by bisection.
func projectBisect(v []float64, delta float64) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	lo -= 1 // Σ max(v−τ, δ) ≥ A·1 ≥ 1 at τ = min v − 1
	sum := func(tau float64) float64 {
		var s float64
		for _, x := range v {
			s += max(x-tau, delta)
		}
		return s
	}
	for range 200 {
		mid := (lo + hi) / 2
		if sum(mid) > 1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = max(x-(lo+hi)/2, delta)
	}
	return out
}

func norm2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func dist2(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}

func assertVec(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s has length %d, want %d", name, len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol {
			t.Errorf("%s = %.12f, want %.12f (entry %d)", name, got, want, i)
			return
		}
	}
}

func mustOMD(t testing.TB, cfg learner.OMDConfig) *learner.OMD {
	t.Helper()
	o, err := learner.NewOMD(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestOMDStepT2 checks one update against hand-computed exact vectors (
// T2) and the RewardAscent and PrintedSign forms against an independent
// projection.
func TestOMDStepT2(t *testing.T) {
	third := []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	for _, tc := range []struct {
		name       string
		conv       learner.Convention
		role       game.Player
		prox       float64
		sched      schedule.Func
		init       []float64
		action     int
		reward     float64 // the learner's own reward, as fed
		grad, want []float64
	}{
		{
			name: "min player, prox ½", prox: 0.5, sched: constSchedule(0.5, 0.1, 0.1, 10),
			role: game.ColumnPlayer, init: third, action: 0, reward: 1 - 0.8,
			grad: []float64{1.879487179487, 0.033333333333, 0.033333333333},
			want: []float64{0.025641025641, 0.487179487179, 0.487179487179},
		},
		{
			name: "min player, prox 1 (floor active)", prox: 1, sched: constSchedule(0.5, 0.1, 0.1, 10),
			role: game.ColumnPlayer, init: third, action: 0, reward: 1 - 0.8,
			grad: []float64{1.879487179487, 0.033333333333, 0.033333333333},
			want: []float64{0.003333333333, 0.498333333333, 0.498333333333},
		},
		{
			name: "max player, prox ½", prox: 0, sched: constSchedule(0.5, 0.1, 0.1, 10),
			init: third, action: 0, reward: 0.8,
			grad: []float64{0.494871794872, 0.033333333333, 0.033333333333},
			want: []float64{0.25641025641, 0.371794871795, 0.371794871795},
		},
		{
			name: "floor case", sched: constSchedule(1, 0.01, 0, 5),
			init: []float64{0.2, 0.3, 0.5}, action: 0, reward: 0,
			grad: []float64{4.761904761905, 0, 0},
			want: []float64{0.013333333333, 0.393333333333, 0.593333333333},
		},
		{
			// r̂ = (0.8/(1/3+0.1), 0, 0); ĝ = εx − r̂.
			name: "max player, RewardAscent", conv: learner.RewardAscent, sched: constSchedule(0.5, 0.1, 0.1, 10),
			init: third, action: 0, reward: 0.8,
			grad: []float64{0.1/3 - 0.8/(1.0/3+0.1), 0.1 / 3, 0.1 / 3},
		},
		{
			// u = −r_t = −0.8 for the min player: ĝ = εy + 0.8/(y+β)e_0,
			// the LossDescent gradient of the min player.
			name: "min player, RewardAscent", conv: learner.RewardAscent, role: game.ColumnPlayer, sched: constSchedule(0.5, 0.1, 0.1, 10),
			init: third, action: 0, reward: 1 - 0.8,
			grad: []float64{1.879487179487, 0.033333333333, 0.033333333333},
			want: []float64{0.025641025641, 0.487179487179, 0.487179487179},
		},
		{
			// The paper's g = r̂ − εx, argmin.
			name: "max player, PrintedSign", conv: learner.PrintedSign, sched: constSchedule(0.5, 0.1, 0.1, 10),
			init: third, action: 0, reward: 0.8,
			grad: []float64{0.8/(1.0/3+0.1) - 0.1/3, -0.1 / 3, -0.1 / 3},
		},
		{
			name: "min player, PrintedSign", conv: learner.PrintedSign, role: game.ColumnPlayer, sched: constSchedule(0.5, 0.1, 0.1, 10),
			init: third, action: 1, reward: 1 - 0.8,
			grad: []float64{-0.1 / 3, -0.8/(1.0/3+0.1) - 0.1/3, -0.1 / 3},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := mustOMD(t, learner.OMDConfig{Actions: 3, Schedule: tc.sched, Convention: tc.conv, Role: tc.role, ProxFactor: tc.prox, Init: tc.init})
			g, err := o.Gradient(nil, 0, tc.action, tc.reward, 0)
			if err != nil {
				t.Fatal(err)
			}
			assertVec(t, "ĝ", g, tc.grad, 1e-9)
			c := tc.prox
			if c == 0 {
				c = 0.5
			}
			s := tc.sched(1, 1, 0, 3)
			v := make([]float64, 3)
			for i := range v {
				v[i] = tc.init[i] - c*s.Eta*g[i]
			}
			if err := o.Observe(0, tc.action, tc.reward, 0); err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = projectBisect(v, s.Delta)
			}
			assertVec(t, "x_{t+1}", o.Policy(0), want, 1e-9)
			assertVec(t, "x_{t+1} vs bisection", o.Policy(0), projectBisect(v, s.Delta), 1e-9)
		})
	}
	// The hand-computed pre-projection points.
	o := mustOMD(t, learner.OMDConfig{Actions: 3, Schedule: constSchedule(0.5, 0.1, 0.1, 10), Role: game.ColumnPlayer})
	g, _ := o.Gradient(nil, 0, 0, 0.2, 0)
	v := []float64{1.0/3 - 0.25*g[0], 1.0/3 - 0.25*g[1], 1.0/3 - 0.25*g[2]}
	assertVec(t, "min-player v", v, []float64{-0.136538461538, 0.325, 0.325}, 1e-9)
	o = mustOMD(t, learner.OMDConfig{Actions: 3, Schedule: constSchedule(1, 0.01, 0, 5), Init: []float64{0.2, 0.3, 0.5}})
	g, _ = o.Gradient(nil, 0, 0, 0, 0)
	assertVec(t, "floor-case v", []float64{0.2 - 0.5*g[0], 0.3 - 0.5*g[1], 0.5 - 0.5*g[2]}, []float64{-2.180952380952, 0.3, 0.5}, 1e-9)
}

// TestOMDEstimatorT3 checks the exact expectation of the IX estimator over
// a ~ x: E[ĝ_a] = x_a·ℓ̄_a/(x_a+β) + ε·x_a, unbiased when β = ε = 0, and
// ‖ĝ‖₂ ≤ 1/β + ε.
func TestOMDEstimatorT3(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := range 200 {
		n := 1 + rng.IntN(6)
		x := make([]float64, n)
		var s float64
		for i := range x {
			x[i] = 0.05 + rng.Float64()
			s += x[i]
		}
		for i := range x {
			x[i] /= s
		}
		meanReward := make([]float64, n)
		for i := range meanReward {
			meanReward[i] = rng.Float64()
		}
		for _, p := range []struct{ beta, eps float64 }{{0, 0}, {0.1, 0}, {0.3, 0.2}} {
			o := mustOMD(t, learner.OMDConfig{Actions: n, Init: x, Schedule: schedule.Func(func(t, visit, h, a int) schedule.StepSizes {
				return schedule.StepSizes{Eta: 0.1, Beta: p.beta, Epsilon: p.eps}
			})})
			mean := make([]float64, n)
			for a := range n {
				g, err := o.Gradient(nil, 0, a, meanReward[a], 0)
				if err != nil {
					t.Fatal(err)
				}
				if p.beta > 0 {
					if ng := norm2(g); ng > 1/p.beta+p.eps+1e-12 {
						t.Errorf("trial %d: ‖ĝ‖ = %v > 1/β + ε = %v", trial, ng, 1/p.beta+p.eps)
					}
				}
				for i := range g {
					mean[i] += x[a] * g[i]
				}
			}
			want := make([]float64, n)
			for a := range n {
				loss := 1 - meanReward[a]
				want[a] = x[a]*loss/(x[a]+p.beta) + p.eps*x[a]
				if p.beta == 0 && p.eps == 0 && math.Abs(want[a]-loss) > 1e-12 {
					t.Fatalf("β = 0: expectation %v is not the mean loss %v", want[a], loss)
				}
			}
			assertVec(t, fmt.Sprintf("trial %d β=%v ε=%v E[ĝ]", trial, p.beta, p.eps), mean, want, 1e-12)
		}
	}
}

// TestOMDReplayT4 checks that Distribution replays a history to exactly the
// online learner's policy, and that it depends only on the player's own
// (action, reward) steps.
func TestOMDReplayT4(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, cfg := range []learner.OMDConfig{
		{Actions: 1},
		{Actions: 3},
		{Actions: 5, Convention: learner.RewardAscent, Role: game.ColumnPlayer, ProxFactor: 1},
		{Actions: 4, Convention: learner.PrintedSign, Init: []float64{0.1, 0.2, 0.3, 0.4}},
		{Actions: 7, Horizon: 300, Schedule: schedule.Paper{}},
	} {
		o := mustOMD(t, cfg)
		replay := mustOMD(t, cfg)
		var hist []learner.Step
		dst := make([]float64, cfg.Actions)
		for step := range 300 {
			got, err := replay.Distribution(dst, hist, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range o.Policy(0) {
				if got[i] != p {
					t.Fatalf("%+v, round %d: Distribution = %v, online policy %v", cfg, step+1, got, o.Policy(0))
				}
			}
			a := simplex.SampleCategorical(o.Policy(0), rng)
			r := rng.Float64()
			if step%10 == 0 {
				r = float64(rng.IntN(2))
			}
			if err := o.Observe(0, a, r, 0); err != nil {
				t.Fatal(err)
			}
			hist = append(hist, learner.Step{Action: a, Reward: r})
		}
		if o.Round() != len(hist) {
			t.Errorf("Round = %d after %d observations", o.Round(), len(hist))
		}
		a, _ := replay.Distribution(nil, hist, 0)
		b, _ := o.Distribution(nil, hist, 0)
		for i := range a {
			if a[i] != b[i] || a[i] != o.Policy(0)[i] {
				t.Fatalf("%+v: replay %v, replay by the learner itself %v, online %v", cfg, a, b, o.Policy(0))
			}
		}
		if replay.Round() != 0 {
			t.Errorf("Distribution changed the learner: Round = %d", replay.Round())
		}
	}

	// In self-play each player's last iterate x_T is the replay of its own
	// recorded history D_{T−1}: the opponent's actions never enter.
	for _, conv := range []learner.Convention{learner.LossDescent, learner.RewardAscent, learner.PrintedSign} {
		x := mustOMD(t, learner.OMDConfig{Actions: 2, Convention: conv})
		y := mustOMD(t, learner.OMDConfig{Actions: 2, Convention: conv, Role: game.ColumnPlayer})
		const T = 500
		res, err := play.SelfPlay(context.Background(), omdG1(), x, y, play.SelfPlayConfig{Rounds: T, Record: true}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		rx, _ := x.Distribution(nil, res.Row[:T-1], 0)
		ry, _ := y.Distribution(nil, res.Col[:T-1], 0)
		for i := range rx {
			if rx[i] != res.LastX[0][i] || ry[i] != res.LastY[0][i] {
				t.Fatalf("%v: replay (%v, %v), self-play last iterate (%v, %v)", conv, rx, ry, res.LastX, res.LastY)
			}
		}
	}
}

// TestOMDInitByState checks per-state initial policies: each state starts
// at its own, an update in one state leaves the other's untouched, Reset
// and Distribution of an empty or other-state history return them, and
// bad tables are rejected naming the state.
func TestOMDInitByState(t *testing.T) {
	init := [][]float64{{0.5, 0.3, 0.2}, {0.2, 0.2, 0.6}}
	o := mustOMD(t, learner.OMDConfig{States: 2, Actions: 3, Discount: 0.5, Init: []float64{0.9, 0.05, 0.05}, InitByState: init})
	assertVec(t, "state 0", o.Policy(0), init[0], 0)
	assertVec(t, "state 1", o.Policy(1), init[1], 0)
	if err := o.Observe(0, 1, 0.9, 0); err != nil {
		t.Fatal(err)
	}
	assertVec(t, "state 1 after an update in state 0", o.Policy(1), init[1], 0)
	for s := range 2 {
		d, err := o.Distribution(nil, nil, s)
		if err != nil {
			t.Fatal(err)
		}
		assertVec(t, fmt.Sprintf("Distribution of no history in state %d", s), d, init[s], 0)
	}
	d, err := o.Distribution(nil, []learner.Step{{State: 0, Action: 1, Reward: 0.9}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	assertVec(t, "Distribution in state 1 after a round in state 0", d, init[1], 0)
	o.Reset()
	init[1][0] = 0 // copied
	assertVec(t, "state 0 after Reset", o.Policy(0), []float64{0.5, 0.3, 0.2}, 0)
	assertVec(t, "state 1 after Reset", o.Policy(1), []float64{0.2, 0.2, 0.6}, 0)
	for _, c := range []struct {
		name string
		init [][]float64
		want string
	}{
		{"one state", [][]float64{{0.5, 0.3, 0.2}}, "InitByState has 1 states, want States = 2"},
		{"length", [][]float64{{0.5, 0.3, 0.2}, {0.5, 0.5}}, "InitByState[1] has length 2"},
		{"below δ", [][]float64{{0.5, 0.3, 0.2}, {0.01, 0.49, 0.5}}, "InitByState[1][0] = 0.01 is below"},
	} {
		_, err := learner.NewOMD(learner.OMDConfig{States: 2, Actions: 3, Discount: 0.5, InitByState: c.init})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
}

func TestOMDReset(t *testing.T) {
	init := []float64{0.5, 0.25, 0.25}
	o := mustOMD(t, learner.OMDConfig{Actions: 3, Init: init})
	for range 5 {
		if err := o.Observe(0, 1, 0.9, 0); err != nil {
			t.Fatal(err)
		}
	}
	if o.Round() != 5 || o.Policy(0)[1] <= 0.25 {
		t.Fatalf("after 5 rewards of 0.9 for action 1: round %d, policy %v", o.Round(), o.Policy(0))
	}
	o.Reset()
	if o.Round() != 0 {
		t.Errorf("Round after Reset = %d", o.Round())
	}
	assertVec(t, "policy after Reset", o.Policy(0), init, 0)
	init[0] = 0 // the configuration was copied
	assertVec(t, "policy after changing cfg.Init", o.Policy(0), []float64{0.5, 0.25, 0.25}, 0)
	if o.Actions() != 3 {
		t.Errorf("Actions = %d", o.Actions())
	}
}

// TestOMDPaperScheduleT7 is the critical regression test of the paper's schedule: under
// schedule.Paper the policy cannot move, so self-play stays at the uniform
// pair.
func TestOMDPaperScheduleT7(t *testing.T) {
	s := schedule.Paper{}.At(1, 1, 1000, 2)
	if math.Abs(s.Eta-1e-5) > 1e-15 || math.Abs(s.Beta-0.1) > 1e-15 || s.Beta != s.Epsilon || s.Delta != 1/(2*1e6) {
		t.Errorf("schedule.Paper at T = 1000 = %+v, want η = 1e-5, β = ε = 0.1, δ = 5e-7", s)
	}
	s = schedule.Paper{}.At(1, 1, 10, 3)
	if math.Abs(s.Eta-0.021544346900) > 1e-11 || math.Abs(s.Beta-0.464158883361) > 1e-11 {
		t.Errorf("schedule.Paper at T = 10 = %+v, want η = 0.02154, β = ε = 0.4642", s)
	}

	rng := rand.New(rand.NewPCG(7, 7))
	for _, T := range []int{10, 100, 1000} {
		for _, prox := range []float64{0.5, 1} {
			bound := 2 * prox * (math.Pow(float64(T), -1.0/3) + 1/float64(T)) / 2
			for trial := range 20 {
				n := 2 + rng.IntN(5)
				o := mustOMD(t, learner.OMDConfig{Actions: n, Horizon: T, Schedule: schedule.Paper{}, ProxFactor: prox})
				for range T {
					if err := o.Observe(0, simplex.SampleCategorical(o.Policy(0), rng), rng.Float64(), 0); err != nil {
						t.Fatal(err)
					}
				}
				if d := dist2(o.Policy(0), simplex.Uniform[float64](n)); d > bound+1e-12 {
					t.Errorf("T = %d, prox %v, trial %d: ‖x_{T+1} − x_1‖ = %v > %v", T, prox, trial, d, bound)
				}
			}
		}
	}

	for _, T := range []int{100, 1000, 10000, 100000} {
		gap := meanGap(t, schedule.Paper{}, learner.LossDescent, T, 5)
		t.Logf("schedule.Paper self-play on G1: mean last-iterate gap %.4f at T = %d", gap, T)
		if math.Abs(gap-0.25) >= 0.01 {
			t.Errorf("schedule.Paper self-play, T = %d: gap %v, want 0.25 ± 0.01 (Gap(uniform))", T, gap)
		}
	}
}

// meanGap is the mean over seeds 0..seeds−1 of the last-iterate gap of OMD
// self-play on G1 with exact rewards and prox ½.
func meanGap(t testing.TB, sched schedule.Schedule, conv learner.Convention, T, seeds int) float64 {
	t.Helper()
	var sum float64
	for seed := range uint64(seeds) {
		x := mustOMD(t, learner.OMDConfig{Actions: 2, Horizon: T, Schedule: sched, Convention: conv})
		y := mustOMD(t, learner.OMDConfig{Actions: 2, Horizon: T, Schedule: sched, Convention: conv, Role: game.ColumnPlayer})
		res, err := play.SelfPlay(context.Background(), omdG1(), x, y, play.SelfPlayConfig{Rounds: T, Noise: game.Exact{}}, rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		sum += res.LastGap
	}
	return sum / float64(seeds)
}

// TestOMDCaiScheduleT8 checks the working schedule (statistical):
// LossDescent and RewardAscent converge slowly, PrintedSign diverges.
func TestOMDCaiScheduleT8(t *testing.T) {
	gaps := make(map[learner.Convention][3]float64)
	for _, conv := range []learner.Convention{learner.LossDescent, learner.RewardAscent, learner.PrintedSign} {
		var g [3]float64
		for k, T := range []int{1000, 10000, 100000} {
			g[k] = meanGap(t, nil, conv, T, 5)
		}
		gaps[conv] = g
		t.Logf("schedule.Cai %v self-play on G1: mean last-iterate gaps %.4f, %.4f, %.4f at T = 1e3, 1e4, 1e5", conv, g[0], g[1], g[2])
	}
	if g := gaps[learner.LossDescent]; !(g[1] < 0.1 && g[2] < g[0]) {
		t.Errorf("T8a LossDescent: gaps %v, want gap(1e4) < 0.1 and gap(1e5) < gap(1e3)", g)
	}
	if g := gaps[learner.RewardAscent]; !(g[2] < 0.1 && g[2] < g[0]) {
		t.Errorf("T8b RewardAscent: gaps %v, want gap(1e5) < 0.1 and gap(1e5) < gap(1e3)", g)
	}
	if g := gaps[learner.PrintedSign]; !(g[0] > 0.25 && g[2] > 0.25) {
		t.Errorf("T8c PrintedSign: gaps %v, want > 0.25 (worse than uniform)", g)
	}
}

// TestOMDInvariants checks x_t ∈ Ω_{δ_t} and ‖x_{t+1} − x_t‖₂ ≤ cη_t‖ĝ_t‖₂
// along random bandit runs.
func TestOMDInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, cfg := range []learner.OMDConfig{
		{Actions: 2},
		{Actions: 3, ProxFactor: 1},
		{Actions: 6, Convention: learner.RewardAscent, Role: game.ColumnPlayer},
		{Actions: 4, Convention: learner.PrintedSign},
		{Actions: 5, Horizon: 2000, Schedule: schedule.Paper{}, ProxFactor: 1},
		{Actions: 3, Schedule: schedule.Func(func(t, visit, h, a int) schedule.StepSizes {
			return schedule.StepSizes{Eta: 5, Beta: 0.01, Epsilon: 0.5, Delta: 0.2}
		})},
	} {
		o := mustOMD(t, cfg)
		sched := cfg.Schedule
		if sched == nil {
			sched = schedule.Cai{}
		}
		c := cfg.ProxFactor
		if c == 0 {
			c = 0.5
		}
		prev := make([]float64, cfg.Actions)
		g := make([]float64, cfg.Actions)
		for step := 1; step <= 2000; step++ {
			copy(prev, o.Policy(0))
			a := simplex.SampleCategorical(prev, rng)
			r := rng.Float64()
			if _, err := o.Gradient(g, 0, a, r, 0); err != nil {
				t.Fatal(err)
			}
			if err := o.Observe(0, a, r, 0); err != nil {
				t.Fatal(err)
			}
			s := sched.At(step, step, cfg.Horizon, cfg.Actions)
			x := o.Policy(0)
			var sum float64
			for i, p := range x {
				if p < s.Delta-1e-12 {
					t.Fatalf("%+v round %d: x[%d] = %v below δ = %v", cfg, step, i, p, s.Delta)
				}
				sum += p
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("%+v round %d: policy sums to %v", cfg, step, sum)
			}
			if d, b := dist2(x, prev), c*s.Eta*norm2(g); d > b+1e-12 {
				t.Fatalf("%+v round %d: ‖x_{t+1} − x_t‖ = %v > cη‖ĝ‖ = %v", cfg, step, d, b)
			}
		}
	}
}

func TestOMDObserveAllocs(t *testing.T) {
	o := mustOMD(t, learner.OMDConfig{Actions: 10})
	k := 0
	allocs := testing.AllocsPerRun(1000, func() {
		k++
		if err := o.Observe(0, k%10, float64(k%3)/2, 0); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Observe allocates %v times per call, want 0", allocs)
	}
}

func TestOMDErrors(t *testing.T) {
	bigDelta := schedule.Func(func(t, visit, h, a int) schedule.StepSizes {
		return schedule.StepSizes{Eta: 0.1, Beta: 0.1, Epsilon: 0.1, Delta: 1/float64(a) + 0.1}
	})
	for _, tc := range []struct {
		name string
		cfg  learner.OMDConfig
		want string
	}{
		{"no actions", learner.OMDConfig{}, "Actions = 0"},
		{"negative horizon", learner.OMDConfig{Actions: 2, Horizon: -1}, "Horizon = -1"},
		{"paper schedule without horizon", learner.OMDConfig{Actions: 2, Schedule: schedule.Paper{}}, "schedule.Paper needs a positive Horizon"},
		{"δ·A > 1 at round 1", learner.OMDConfig{Actions: 2, Schedule: bigDelta}, "δ·A = 1.2 > 1"},
		{"NaN η", learner.OMDConfig{Actions: 2, Schedule: schedule.Func(func(t, visit, h, a int) schedule.StepSizes { return schedule.StepSizes{Eta: math.NaN()} })}, "η = NaN"},
		{"negative β", learner.OMDConfig{Actions: 2, Schedule: schedule.Func(func(t, visit, h, a int) schedule.StepSizes { return schedule.StepSizes{Beta: -1} })}, "β = -1"},
		{"negative prox", learner.OMDConfig{Actions: 2, ProxFactor: -1}, "ProxFactor = -1"},
		{"NaN prox", learner.OMDConfig{Actions: 2, ProxFactor: math.NaN()}, "ProxFactor = NaN"},
		{"infinite prox", learner.OMDConfig{Actions: 2, ProxFactor: math.Inf(1)}, "ProxFactor = +Inf"},
		{"Init length", learner.OMDConfig{Actions: 3, Init: []float64{0.5, 0.5}}, "Init has length 2, want 3"},
		{"Init sum", learner.OMDConfig{Actions: 2, Init: []float64{0.5, 0.6}}, "Init sums to 1.1"},
		{"Init negative", learner.OMDConfig{Actions: 2, Init: []float64{-0.5, 1.5}}, "Init[0] = -0.5 is negative"},
		{"Init NaN", learner.OMDConfig{Actions: 2, Init: []float64{math.NaN(), 1}}, "Init[0] = NaN"},
		{"Init below δ", learner.OMDConfig{Actions: 2, Init: []float64{0.1, 0.9}}, "Init[0] = 0.1 is below the truncation level δ = 0.125"},
		{"convention", learner.OMDConfig{Actions: 2, Convention: 7}, "Convention(7)"},
		{"role", learner.OMDConfig{Actions: 2, Role: -1}, "Player(-1)"},
	} {
		_, err := learner.NewOMD(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewOMD error %v, want one containing %q", tc.name, err, tc.want)
		}
	}

	o := mustOMD(t, learner.OMDConfig{Actions: 3})
	if err := o.Observe(0, 0, 0.5, 0); err != nil {
		t.Fatal(err)
	}
	before := append([]float64(nil), o.Policy(0)...)
	for _, tc := range []struct {
		action int
		reward float64
		want   string
	}{
		{0, math.NaN(), "not finite: reward NaN for action 0"},
		{1, math.Inf(-1), "not finite: reward -Inf for action 1"},
		{3, 0.5, "action 3 is not in [0, 3)"},
		{-1, 0.5, "action -1 is not in"},
	} {
		err := o.Observe(0, tc.action, tc.reward, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Observe(%d, %v) error %v, want one containing %q", tc.action, tc.reward, err, tc.want)
		}
		if _, err := o.Gradient(nil, 0, tc.action, tc.reward, 0); err == nil {
			t.Errorf("Gradient(%d, %v) accepted the observation", tc.action, tc.reward)
		}
	}
	assertVec(t, "policy after rejected observations", o.Policy(0), before, 0)
	if o.Round() != 1 {
		t.Errorf("Round = %d after rejected observations, want 1", o.Round())
	}

	// A schedule whose floor becomes too high at round 3: Observe fails
	// there and leaves the learner unchanged.
	late := schedule.Func(func(t, visit, h, a int) schedule.StepSizes {
		s := schedule.StepSizes{Eta: 0.1, Beta: 0.1, Epsilon: 0.1, Delta: 0.01}
		if t >= 3 {
			s.Delta = 0.5
		}
		return s
	})
	o = mustOMD(t, learner.OMDConfig{Actions: 3, Schedule: late})
	for range 2 {
		if err := o.Observe(0, 0, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	before = append(before[:0], o.Policy(0)...)
	err := o.Observe(0, 0, 1, 0)
	if err == nil || !strings.Contains(err.Error(), "δ = 0.5 at round 3, visit 3 with 3 actions: δ·A = 1.5 > 1") {
		t.Errorf("Observe at round 3 error %v, want δ·A > 1", err)
	}
	assertVec(t, "policy after failed round 3", o.Policy(0), before, 0)
	if o.Round() != 2 {
		t.Errorf("Round = %d after a failed round 3, want 2", o.Round())
	}
	_, err = o.Distribution(nil, []learner.Step{{Action: 0, Reward: 1}, {Action: 1, Reward: 1}, {Action: 2, Reward: 1}}, 0)
	if err == nil || !strings.Contains(err.Error(), "history step 2") || !strings.Contains(err.Error(), "δ·A = 1.5") {
		t.Errorf("Distribution error %v, want one naming step 2 and δ·A", err)
	}
	_, err = o.Distribution(nil, []learner.Step{{Action: 0, Reward: math.NaN()}}, 0)
	if err == nil || !strings.Contains(err.Error(), "history step 0") || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("Distribution error %v, want one naming step 0 and the NaN reward", err)
	}

	// With β = 0 and δ = 0 an action of probability zero has no importance
	// weight.
	zero := schedule.Func(func(t, visit, h, a int) schedule.StepSizes { return schedule.StepSizes{Eta: 1} })
	o = mustOMD(t, learner.OMDConfig{Actions: 2, Schedule: zero, Init: []float64{1, 0}})
	if err := o.Observe(0, 1, 0.5, 0); err == nil || !strings.Contains(err.Error(), "x[1] + β = 0 + 0 is not positive") {
		t.Errorf("Observe of a zero-probability action with β = 0: error %v", err)
	}
}

func TestScheduleValues(t *testing.T) {
	for _, tt := range []int{1, 2, 10, 1000, 123456} {
		s := schedule.Cai{}.At(tt, tt, 0, 4)
		f := float64(tt)
		want := schedule.StepSizes{Eta: math.Pow(f, -5.0/8), Beta: math.Pow(f, -3.0/8), Epsilon: math.Pow(f, -1.0/8), Delta: 1 / (4 * (f + 1) * (f + 1))}
		if math.Abs(s.Eta-want.Eta) > 1e-14 || math.Abs(s.Beta-want.Beta) > 1e-14 ||
			math.Abs(s.Epsilon-want.Epsilon) > 1e-14 || math.Abs(s.Delta-want.Delta) > 1e-18 {
			t.Errorf("schedule.Cai.At(%d) = %+v, want %+v", tt, s, want)
		}
	}
	if s := (schedule.Paper{}).At(1, 1, 0, 2); !math.IsNaN(s.Eta) {
		t.Errorf("schedule.Paper with horizon 0 = %+v, want NaN", s)
	}
	f := schedule.Func(func(t, visit, h, a int) schedule.StepSizes {
		return schedule.StepSizes{Eta: float64(t), Beta: float64(h), Delta: float64(a)}
	})
	if s := f.At(1, 1, 2, 3); s != (schedule.StepSizes{Eta: 1, Beta: 2, Delta: 3}) {
		t.Errorf("schedule.Func.At = %+v", s)
	}
	for _, c := range []fmt.Stringer{learner.LossDescent, learner.RewardAscent, learner.PrintedSign, learner.Convention(9), game.RowPlayer, game.ColumnPlayer, game.Player(5)} {
		if c.String() == "" {
			t.Errorf("empty name for %d", c)
		}
	}
}

// TestOMDConstantEta checks that OMDConfig.Eta replaces the schedule's η
// and nothing else: the learner matches one given the same step sizes
// through a schedule.Func, observation by observation, and differs from the
// default schedule's.
func TestOMDConstantEta(t *testing.T) {
	const eta = 0.05
	plain, err := learner.NewOMD(learner.OMDConfig{Actions: 3, Eta: eta})
	if err != nil {
		t.Fatal(err)
	}
	byFunc, err := learner.NewOMD(learner.OMDConfig{Actions: 3, Schedule: schedule.Func(func(t, v, h, a int) schedule.StepSizes {
		s := schedule.Cai{}.At(t, v, h, a)
		s.Eta = eta
		return s
	})})
	if err != nil {
		t.Fatal(err)
	}
	def, err := learner.NewOMD(learner.OMDConfig{Actions: 3})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for range 200 {
		a, r := rng.IntN(3), rng.Float64()
		for _, l := range []*learner.OMD{plain, byFunc, def} {
			if err := l.Observe(0, a, r, 0); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(plain.Policy(0), byFunc.Policy(0)) {
			t.Fatalf("Eta %v: policy %v, the same step sizes through a schedule.Func give %v", eta, plain.Policy(0), byFunc.Policy(0))
		}
	}
	if slices.Equal(plain.Policy(0), def.Policy(0)) {
		t.Errorf("Eta %v left the policy of the default schedule unchanged: %v", eta, def.Policy(0))
	}
	for _, bad := range []float64{-0.1, math.Inf(1), math.NaN()} {
		if _, err := learner.NewOMD(learner.OMDConfig{Actions: 3, Eta: bad}); !errors.Is(err, icrl.ErrInvalid) {
			t.Errorf("Eta %v: error %v, want ErrInvalid", bad, err)
		}
	}
}
