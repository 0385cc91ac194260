package markov

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
)

// dgsTables returns valid tables of a 2-state game with 2×3 actions and
// two players, for tests to corrupt.
func dgsTables() (actions []int, r [][][]float64, p [][][]float64, rho []float64) {
	actions = []int{2, 3}
	r = make([][][]float64, 2)
	p = make([][][]float64, 2)
	for s := range 2 {
		r[s] = make([][]float64, 6)
		p[s] = make([][]float64, 6)
		for j := range 6 {
			r[s][j] = []float64{float64(j) / 6, float64(s) - float64(j)/10}
			p[s][j] = []float64{0.25 + 0.1*float64(j%3), 0.75 - 0.1*float64(j%3)}
		}
	}
	return actions, r, p, []float64{0.3, 0.7}
}

func TestNewDiscountedGeneralSumErrors(t *testing.T) {
	type tables struct {
		actions []int
		r       [][][]float64
		p       [][][]float64
		gamma   float64
		rho     []float64
	}
	cases := []struct {
		name   string
		mutate func(*tables)
		want   string
	}{
		{"no player", func(x *tables) { x.actions = nil }, "no player"},
		{"no action", func(x *tables) { x.actions[1] = 0 }, "player 1 has 0 actions"},
		{"one reward state", func(x *tables) { x.r = x.r[:1] }, "the kernel has 2 states"},
		{"gamma 1", func(x *tables) { x.gamma = 1 }, "γ = 1 is outside [0, 1)"},
		{"gamma NaN", func(x *tables) { x.gamma = math.NaN() }, "γ = NaN"},
		{"rho length", func(x *tables) { x.rho = []float64{1} }, "initial distribution ρ"},
		{"rho sum", func(x *tables) { x.rho = []float64{0.5, 0.6} }, "initial distribution ρ"},
		{"rho negative", func(x *tables) { x.rho = []float64{1.5, -0.5} }, "initial distribution ρ"},
		{"transition joint", func(x *tables) {
			for s := range x.p {
				x.p[s] = x.p[s][:5]
			}
		}, "the kernel has 5 joint actions, want 6"},
		{"transition sum", func(x *tables) { x.p[1][2] = []float64{0.5, 0.6} }, "P(·|s=1, joint=2) sums to 1.1"},
		{"transition negative", func(x *tables) { x.p[1][3] = []float64{1.1, -0.1} }, "P(s'=1|s=1, joint=3) = -0.1 is not a probability"},
		{"transition NaN", func(x *tables) { x.p[0][0] = []float64{math.NaN(), 1} }, "P(s'=0|s=0, joint=0) = NaN"},
		{"reward joint", func(x *tables) {
			for s := range x.r {
				x.r[s] = x.r[s][:2]
			}
		}, "has 2 joint actions, want J = 6"},
		{"reward players", func(x *tables) {
			for s := range x.r {
				for j := range x.r[s] {
					x.r[s][j] = x.r[s][j][:1]
				}
			}
		}, "has rewards for 1 players, want 2"},
		{"reward NaN", func(x *tables) { x.r[1][4][1] = math.NaN() }, "reward r[s=1][joint=4][player=1] = NaN is not finite"},
		{"reward Inf", func(x *tables) { x.r[0][2][0] = math.Inf(1) }, "r[s=0][joint=2][player=0] = +Inf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, r, p, rho := dgsTables()
			x := tables{a, r, p, 0.9, rho}
			c.mutate(&x)
			g, err := newGeneralSum(x.actions, x.r, x.p, x.gamma, x.rho)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("NewDiscountedGeneralSum: game %v, error %v, want %q", g, err, c.want)
			}
		})
	}
	// A shared (S × J) reward table shares the checks and is named as such.
	a, _, p, rho := dgsTables()
	shared := [][]float64{{0, 1, 2, 3, 4, 5}, {0, 1, math.Inf(-1), 3, 4, 5}}
	if _, err := newCooperative(a, shared, p, 0.5, rho); err == nil || !strings.Contains(err.Error(), "reward r[s=1][joint=2] = -Inf") {
		t.Errorf("NewDiscountedGeneralSum of a shared reward: error %v", err)
	}
	if _, err := newCooperative(a, [][]float64{{0}, {0}}, p, 0.5, rho); err == nil || !strings.Contains(err.Error(), "reward table of shape [2 1] has 1 joint actions, want J = 6") {
		t.Errorf("NewDiscountedGeneralSum of a shared reward: error %v", err)
	}
	if _, err := RandomDiscountedCooperative([]int{2}, 3, 0.9, nil); err == nil {
		t.Error("RandomDiscountedCooperative: no error for a nil rng")
	}
	if _, err := RandomDiscountedCooperative([]int{2, 0}, 3, 0.9, rand.New(rand.NewPCG(1, 2))); err == nil || !strings.Contains(err.Error(), "player 1 has 0 actions") {
		t.Errorf("RandomDiscountedCooperative: error %v", err)
	}
}

func TestDiscountedGeneralSumAccessors(t *testing.T) {
	a, r, p, rho := dgsTables()
	g, err := newGeneralSum(a, r, p, 0.8, rho)
	if err != nil {
		t.Fatal(err)
	}
	if g.Players() != 2 || g.States() != 2 || g.Actions(0) != 2 || g.Actions(1) != 3 || g.NumJoint() != 6 || g.Discount() != 0.8 {
		t.Fatalf("dims: %d players, %d states, actions %d %d, %d joint, γ %v", g.Players(), g.States(), g.Actions(0), g.Actions(1), g.NumJoint(), g.Discount())
	}
	if g.Cooperative() {
		t.Error("general-sum game reported cooperative")
	}
	for j := range 6 {
		acts := g.Split(j, nil)
		if acts[0] != j/3 || acts[1] != j%3 || g.Joint(acts) != j {
			t.Errorf("joint %d splits into %v", j, acts)
		}
	}
	if g.Reward(1, 4, 1) != r[1][4][1] || g.Transition(0, 5)[1] != p[0][5][1] {
		t.Error("Reward or Transition does not return the table entry")
	}
	ini := g.Initial()
	ini[0] = 42
	if g.Initial()[0] != 0.3 {
		t.Error("Initial exposes the game's storage")
	}
	// Inputs are copied.
	r[0][0][0] = 99
	if g.Reward(0, 0, 0) == 99 {
		t.Error("the game aliases the reward tables")
	}
	shared := [][]float64{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}}
	c, err := newCooperative(a, shared, p, 0.8, rho)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Cooperative() || c.Reward(1, 1, 0) != 4 || c.Reward(1, 1, 1) != 4 {
		t.Error("cooperative game: wrong kind or rewards")
	}
	// A general-sum construction with equal rewards is detected as a team.
	eq := make([][][]float64, 2)
	for s := range eq {
		eq[s] = make([][]float64, 6)
		for j := range eq[s] {
			eq[s][j] = []float64{shared[s][j], shared[s][j]}
		}
	}
	if c2, err := newGeneralSum(a, eq, p, 0.8, rho); err != nil || !c2.Cooperative() {
		t.Errorf("equal rewards not detected as cooperative (err %v)", err)
	}
	for _, f := range []func(){
		func() { g.Actions(2) },
		func() { g.Reward(2, 0, 0) },
		func() { g.Reward(0, 6, 0) },
		func() { g.Reward(0, 0, 2) },
		func() { g.Transition(0, -1) },
		func() { g.Split(6, nil) },
		func() { g.Joint([]int{0, 3}) },
		func() { g.Joint([]int{0}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic for an out-of-range index")
				}
			}()
			f()
		}()
	}
}

// dgsPowerValues evaluates pi by iterating V ← r_π + γP_πV from V = 0 and
// accumulating the discounted visitation Σ_t γ^t ρᵀP_π^t, with plain loops
// over joint actions (no LU).
func dgsPowerValues(g *DiscountedGeneralSum, pi []Stationary, iters int) (v [][]float64, d []float64) {
	S, J, N := g.States(), g.NumJoint(), g.Players()
	prob := func(s, j int) float64 {
		a := g.Split(j, nil)
		x := 1.0
		for i := range N {
			x *= pi[i][s][a[i]]
		}
		return x
	}
	v = make([][]float64, N)
	for i := range v {
		v[i] = make([]float64, S)
	}
	mu := g.Initial()
	d = make([]float64, S)
	for range iters {
		nv := make([][]float64, N)
		nmu := make([]float64, S)
		for i := range N {
			nv[i] = make([]float64, S)
		}
		for s := range S {
			for j := range J {
				w := prob(s, j)
				row := g.Transition(s, j)
				for i := range N {
					var ev float64
					for s2, q := range row {
						ev += q * v[i][s2]
					}
					nv[i][s] += w * (g.Reward(s, j, game.Player(i)) + g.Discount()*ev)
				}
				for s2, q := range row {
					nmu[s2] += mu[s] * w * q
				}
			}
		}
		for s := range S {
			d[s] += mu[s]
			nmu[s] *= g.Discount()
		}
		v, mu = nv, nmu
	}
	for s := range d {
		d[s] *= 1 - g.Discount()
	}
	return v, d
}

// dgsRandomPolicies returns random stationary policies of every player.
func dgsRandomPolicies(g *DiscountedGeneralSum, rng *rand.Rand) []Stationary {
	pi := make([]Stationary, g.Players())
	for i := range pi {
		pi[i] = make(Stationary, g.States())
		for s := range pi[i] {
			row := make([]float64, g.Actions(game.Player(i)))
			var sum float64
			for a := range row {
				row[a] = rng.ExpFloat64()
				sum += row[a]
			}
			for a := range row {
				row[a] /= sum
			}
			pi[i][s] = row
		}
	}
	return pi
}

func TestDiscountedGeneralSumValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	a, r, p, rho := dgsTables()
	gs, err := newGeneralSum(a, r, p, 0.7, rho)
	if err != nil {
		t.Fatal(err)
	}
	team, err := RandomDiscountedCooperative([]int{2, 2, 3}, 4, 0.8, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*DiscountedGeneralSum{gs, team} {
		for range 3 {
			pi := dgsRandomPolicies(g, rng)
			v, err := g.Values(pi)
			if err != nil {
				t.Fatal(err)
			}
			d, err := g.Visitation(pi)
			if err != nil {
				t.Fatal(err)
			}
			// γ^400 ≤ 1e-38: power iteration is exact to round-off.
			bv, bd := dgsPowerValues(g, pi, 400)
			for i := range v {
				for s := range v[i] {
					if math.Abs(v[i][s]-bv[i][s]) > 1e-12 {
						t.Errorf("V_%d(%d) = %v, power iteration %v", i, s, v[i][s], bv[i][s])
					}
				}
			}
			var sum float64
			for s := range d {
				sum += d[s]
				if math.Abs(d[s]-bd[s]) > 1e-12 {
					t.Errorf("d(%d) = %v, power iteration %v", s, d[s], bd[s])
				}
				if rho := g.Initial()[s]; d[s] < (1-g.Discount())*rho-1e-15 {
					t.Errorf("d(%d) = %v < (1−γ)ρ(%d)", s, d[s], s)
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("visitation sums to %v", sum)
			}
		}
	}
}

func TestDiscountedGeneralSumBestResponse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	a, r, p, rho := dgsTables()
	g, err := newGeneralSum(a, r, p, 0.9, rho)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		pi := dgsRandomPolicies(g, rng)
		v, err := g.Values(pi)
		if err != nil {
			t.Fatal(err)
		}
		gap, per, err := g.NEGap(pi)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			br, pol, err := g.BestResponse(pi, game.Player(i))
			if err != nil {
				t.Fatal(err)
			}
			// Enumerate player i's deterministic stationary policies: the
			// best response is at least as good in every state and equals
			// the best of them.
			A := g.Actions(game.Player(i))
			best := make([]float64, g.States())
			for s := range best {
				best[s] = math.Inf(-1)
			}
			for code := range A * A {
				dev := append([]Stationary(nil), pi...)
				dev[i] = Stationary{make([]float64, A), make([]float64, A)}
				dev[i][0][code%A] = 1
				dev[i][1][code/A] = 1
				dv, err := g.Values(dev)
				if err != nil {
					t.Fatal(err)
				}
				for s := range best {
					best[s] = max(best[s], dv[i][s])
				}
			}
			for s := range best {
				if math.Abs(br[s]-best[s]) > 1e-12 {
					t.Errorf("player %d: BR value %v at state %d, enumeration %v", i, br[s], s, best[s])
				}
				if br[s] < v[i][s]-1e-12 {
					t.Errorf("player %d: BR value %v below on-policy %v", i, br[s], v[i][s])
				}
			}
			dev := append([]Stationary(nil), pi...)
			dev[i] = pol
			dv, _ := g.Values(dev)
			var want float64
			for s := range rho {
				want += rho[s] * (dv[i][s] - v[i][s])
			}
			if math.Abs(per[i]-max(want, 0)) > 1e-12 {
				t.Errorf("player %d: NE-gap term %v, want %v", i, per[i], want)
			}
		}
		if gap != max(per[0], per[1]) || gap < 0 {
			t.Errorf("gap %v, terms %v", gap, per)
		}
	}
	// pi[i] is ignored by player i's best response.
	pi := g.UniformPolicies()
	pi[1] = nil
	if _, _, err := g.BestResponse(pi, 1); err != nil {
		t.Errorf("BestResponse with a nil own policy: %v", err)
	}
	if _, _, err := g.BestResponse(pi, 0); err == nil || !strings.Contains(err.Error(), "policy of player 1") {
		t.Errorf("BestResponse with a nil opponent policy: %v", err)
	}
	if _, _, err := g.BestResponse(pi, 2); err == nil || !strings.Contains(err.Error(), "player 2 out of range") {
		t.Errorf("BestResponse of player 2: %v", err)
	}
}

// TestDiscountedTeamNE checks that in a team the joint optimum, a
// deterministic policy found by enumeration, has NE-gap 0, and that the
// gap of a suboptimal deterministic profile can be positive.
func TestDiscountedTeamNE(t *testing.T) {
	g, err := RandomDiscountedCooperative([]int{2, 2}, 2, 0.9, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	best, bestPhi := []Stationary(nil), math.Inf(-1)
	for code := range 16 {
		pi := []Stationary{{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}}
		pi[0][0][code&1] = 1
		pi[0][1][code>>1&1] = 1
		pi[1][0][code>>2&1] = 1
		pi[1][1][code>>3&1] = 1
		v, err := g.Values(pi)
		if err != nil {
			t.Fatal(err)
		}
		phi := 0.5*v[0][0] + 0.5*v[0][1]
		if phi > bestPhi {
			best, bestPhi = pi, phi
		}
		if v[0][0] != v[1][0] {
			t.Fatalf("team values differ: %v", v)
		}
	}
	gap, _, err := g.NEGap(best)
	if err != nil {
		t.Fatal(err)
	}
	if gap > 1e-12 {
		t.Errorf("NE-gap of the joint optimum = %v, want 0", gap)
	}
}

func TestDiscountedGeneralSumPolicyErrors(t *testing.T) {
	a, r, p, rho := dgsTables()
	g, err := newGeneralSum(a, r, p, 0.9, rho)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		pi   []Stationary
		want string
	}{
		{"count", []Stationary{UniformStationary(2, 2)}, "1 policies for 2 players"},
		{"states", []Stationary{UniformStationary(1, 2), UniformStationary(2, 3)}, "policy of player 0 has 1 states, want 2"},
		{"actions", []Stationary{UniformStationary(2, 2), UniformStationary(2, 2)}, "policy of player 1[0]"},
		{"sum", []Stationary{{{0.5, 0.6}, {0.5, 0.5}}, UniformStationary(2, 3)}, "policy of player 0[0]"},
		{"NaN", []Stationary{UniformStationary(2, 2), {{1, 0, 0}, {math.NaN(), 0.5, 0.5}}}, "policy of player 1[1]"},
	}
	for _, c := range cases {
		for name, f := range map[string]func() error{
			"Values":     func() error { _, err := g.Values(c.pi); return err },
			"Visitation": func() error { _, err := g.Visitation(c.pi); return err },
			"NEGap":      func() error { _, _, err := g.NEGap(c.pi); return err },
		} {
			if err := f(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: error %v, want %q", c.name, name, err, c.want)
			}
		}
	}
}

func TestRandomDiscountedCooperative(t *testing.T) {
	g1, err := RandomDiscountedCooperative([]int{3, 2}, 5, 0.95, rand.New(rand.NewPCG(9, 9)))
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := RandomDiscountedCooperative([]int{3, 2}, 5, 0.95, rand.New(rand.NewPCG(9, 9)))
	if !g1.Cooperative() || g1.NumJoint() != 6 || g1.States() != 5 {
		t.Fatal("wrong kind or size")
	}
	for s := range 5 {
		if g1.Initial()[s] != 0.2 {
			t.Errorf("ρ(%d) = %v, want 0.2", s, g1.Initial()[s])
		}
		for j := range 6 {
			var sum float64
			for s2, q := range g1.Transition(s, j) {
				sum += q
				if q != g2.Transition(s, j)[s2] {
					t.Fatal("same seed, different transitions")
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("P(·|%d, %d) sums to %v", s, j, sum)
			}
			r := g1.Reward(s, j, 0)
			if r < -1 || r >= 1 || r != g1.Reward(s, j, 1) || r != g2.Reward(s, j, 0) {
				t.Errorf("r(%d, %d) = %v", s, j, r)
			}
		}
	}
}
