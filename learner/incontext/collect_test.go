package incontext

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/tables"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/markov"
)

// markovPrior draws S-state games with A×B actions and γ = 0.7.
func markovPrior(S, A, B int) func(*rand.Rand) (*markov.Discounted, error) {
	return func(rng *rand.Rand) (*markov.Discounted, error) {
		return markov.RandomDiscounted(S, A, B, 0.7, rng)
	}
}

func TestNEExpertMatchesLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	e := &NEExpert{}
	for trial := range 10 {
		g, err := game.RandomUniform(2+trial%3, 2+trial%4, rng)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := game.Solve(g)
		if err != nil {
			t.Fatal(err)
		}
		A, B := g.Dims()
		x, y := make([]float64, A), make([]float64, B)
		if err := e.Label(x, g, game.RowPlayer, []learner.Step{{Action: 0, Reward: 1}}, 0); err != nil {
			t.Fatal(err)
		}
		if err := e.Label(y, g, game.ColumnPlayer, nil, 0); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(x, sol.X) || !reflect.DeepEqual(y, sol.Y) {
			t.Fatalf("trial %d: NE labels %v, %v; LP %v, %v", trial, x, y, sol.X, sol.Y)
		}
	}

	// Markov game: the labels are Shapley's stationary equilibrium, the
	// same for concurrent callers, computed once.
	g, err := markov.RandomDiscounted(3, 2, 3, 0.8, rng)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := markov.ShapleyValueIteration(g, 1e-9, 100000)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	wg.Add(8)
	for w := range 8 {
		go func() {
			defer wg.Done()
			for s := range 3 {
				x, y := make([]float64, 2), make([]float64, 3)
				if err := e.Label(x, g, game.RowPlayer, nil, s); err != nil {
					errs[w] = err
					return
				}
				if err := e.Label(y, g, game.ColumnPlayer, nil, s); err != nil {
					errs[w] = err
					return
				}
				if !reflect.DeepEqual(x, sol.X[s]) || !reflect.DeepEqual(y, sol.Y[s]) {
					errs[w] = errors.New("label differs from ShapleyValueIteration")
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	x1, _, _ := e.Equilibrium(g)
	x2, _, _ := e.Equilibrium(g)
	if &x1[0][0] != &x2[0][0] {
		t.Error("NEExpert recomputed the equilibrium of a cached game")
	}
	dst := make([]float64, 2)
	_ = e.Label(dst, g, game.RowPlayer, nil, 0)
	dst[0] = 42
	if x1[0][0] == 42 {
		t.Error("Label aliased the cache")
	}
	for _, c := range []struct {
		name  string
		dst   []float64
		g     game.Game
		p     game.Player
		state int
		want  string
	}{
		{"nil game", make([]float64, 2), (*markov.Discounted)(nil), game.RowPlayer, 0, "nil game"},
		{"state", make([]float64, 2), g, game.RowPlayer, 3, "state 3"},
		{"negative state", make([]float64, 2), g, game.RowPlayer, -1, "state -1"},
		{"dst length", make([]float64, 3), g, game.RowPlayer, 0, "length 3"},
		{"player", make([]float64, 2), g, 5, 0, "player"},
		{"no model", make([]float64, 2), simGame{}, game.RowPlayer, 0, "game.Model"},
	} {
		if err := e.Label(c.dst, c.g, c.p, nil, c.state); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// TestNEExpertCacheIsBounded checks that a long-lived NEExpert keeps at
// most neCacheSize games.
func TestNEExpertCacheIsBounded(t *testing.T) {
	e := &NEExpert{}
	rng := rand.New(rand.NewPCG(8, 8))
	for range neCacheSize + 20 {
		g, err := game.RandomUniform(2, 2, rng)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Label(make([]float64, 2), g, game.RowPlayer, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.cached(); n != neCacheSize {
		t.Errorf("cache holds %d games, want %d", n, neCacheSize)
	}
}

// TestOMDExpertMatchesReplay checks that the labels of trajectories
// collected with OMDExpert (which also plays them) are the policies of
// online OMD learners fed the same rounds.
func TestOMDExpertMatchesReplay(t *testing.T) {
	for _, S := range []int{1, 2} {
		const A, B, T = 3, 2, 40
		prior := func(rng *rand.Rand) (*markov.Discounted, error) {
			return markov.RandomDiscounted(S, A, B, 0.5*float64(S-1), rng)
		}
		cfg := learner.OMDConfig{ProxFactor: 1}
		e := OMDExpert{Config: cfg}
		trajs, err := Collect(context.Background(), prior, CollectConfig{Rounds: T, Games: 3, RowExpert: e, ColExpert: e, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		for i, tr := range trajs {
			for _, p := range []game.Player{game.RowPlayer, game.ColumnPlayer} {
				view := tr.Players[p]
				c := cfg
				c.States, c.Actions, c.Discount, c.Role = S, tr.Game.Actions(p), tr.Game.(*markov.Discounted).Discount(), p
				m, err := learner.NewOMD(c)
				if err != nil {
					t.Fatal(err)
				}
				moved := false
				for k, r := range view.Rounds {
					want := m.Policy(r.Obs)
					if !reflect.DeepEqual(view.Labels[k], want) {
						t.Fatalf("S=%d traj %d %v round %d: label %v, online OMD %v", S, i, p, k+1, view.Labels[k], want)
					}
					if math.Abs(want[0]-1/float64(len(want))) > 1e-6 {
						moved = true
					}
					next := tr.Final
					if k+1 < len(view.Rounds) {
						next = view.Rounds[k+1].Obs
					}
					if err := m.Observe(r.Obs, r.Action, r.Reward, next); err != nil {
						t.Fatal(err)
					}
				}
				if !moved {
					t.Errorf("S=%d traj %d: the OMD labels never left uniform", S, i)
				}
			}
		}
	}
	g, err := markov.RandomDiscounted(2, 2, 2, 0.5, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := (OMDExpert{}).Label(make([]float64, 2), g, game.RowPlayer, []learner.Step{{State: 5}}, 0); err == nil {
		t.Error("OMDExpert accepted a history state out of range")
	}
	if err := (OMDExpert{Config: learner.OMDConfig{ProxFactor: -1}}).Label(make([]float64, 2), g, game.RowPlayer, nil, 0); err == nil {
		t.Error("OMDExpert accepted an invalid config")
	}
	if err := (OMDExpert{}).Label(make([]float64, 3), g, game.RowPlayer, nil, 0); err == nil {
		t.Error("OMDExpert accepted a dst of the wrong length")
	}
}

func TestCollectDeterminism(t *testing.T) {
	cfg := CollectConfig{Rounds: 25, Games: 7, PerGame: 2, Seed: 11}
	prior := markovPrior(2, 3, 2)
	run := func(procs int) []GameTrajectory {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		trajs, err := Collect(context.Background(), prior, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return trajs
	}
	a, b, c := run(1), run(2), run(2)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(b, c) {
		t.Fatal("Collect depends on GOMAXPROCS or is not reproducible")
	}
	cfg.Seed++
	if d := run(2); reflect.DeepEqual(a[0].Players, d[0].Players) {
		t.Error("a different seed gave the same trajectory")
	}
	// Game k is drawn from rand.NewPCG(Seed, k).
	g3, err := prior(rand.New(rand.NewPCG(11, 3)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g3, a[3*2].Game) || a[3*2].Game != a[3*2+1].Game {
		t.Error("game 3 is not prior(rand.NewPCG(Seed, 3)) or differs between its trajectories")
	}
}

func TestCollectShapes(t *testing.T) {
	const S, A, B, T = 3, 3, 2, 30
	for _, uniform := range []bool{false, true} {
		for _, noise := range []game.Noise{nil, game.Exact{}} {
			cfg := CollectConfig{Rounds: T, Games: 4, PerGame: 3, Noise: noise, Seed: 5}
			if uniform {
				cfg.RowContext, cfg.ColContext = Uniform{}, Uniform{}
			}
			trajs, err := Collect(context.Background(), markovPrior(S, A, B), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(trajs) != 12 {
				t.Fatalf("got %d trajectories, want 12", len(trajs))
			}
			for i, tr := range trajs {
				row, col := tr.Players[game.RowPlayer], tr.Players[game.ColumnPlayer]
				if len(row.Rounds) != T || len(col.Rounds) != T || len(row.Labels) != T || len(col.Labels) != T {
					t.Fatalf("traj %d: lengths %d %d %d %d", i, len(row.Rounds), len(col.Rounds), len(row.Labels), len(col.Labels))
				}
				if row.Rounds[0].Obs != 0 || tr.Final < 0 || tr.Final >= S {
					t.Fatalf("traj %d: start state %d, final %d", i, row.Rounds[0].Obs, tr.Final)
				}
				g := tr.Game.(*markov.Discounted)
				for k := range T {
					rs, cs := row.Rounds[k], col.Rounds[k]
					if rs.Obs != cs.Obs || rs.Obs < 0 || rs.Obs >= S {
						t.Fatalf("traj %d round %d: states %d, %d", i, k, rs.Obs, cs.Obs)
					}
					if rs.Action < 0 || rs.Action >= A || cs.Action < 0 || cs.Action >= B {
						t.Fatalf("traj %d round %d: actions %d, %d", i, k, rs.Action, cs.Action)
					}
					if !(rs.Reward >= 0 && rs.Reward <= 1) || cs.Reward != 1-rs.Reward {
						t.Fatalf("traj %d round %d: rewards %v, %v", i, k, rs.Reward, cs.Reward)
					}
					if _, ok := noise.(game.Exact); ok && rs.Reward != g.Reward(rs.Obs, rs.Action, cs.Action) {
						t.Fatalf("traj %d round %d: exact reward %v, r(s,a,b) = %v", i, k, rs.Reward, g.Reward(rs.Obs, rs.Action, cs.Action))
					}
					if err := simplex.CheckDistribution("row label", row.Labels[k], A); err != nil {
						t.Fatal(err)
					}
					if err := simplex.CheckDistribution("col label", col.Labels[k], B); err != nil {
						t.Fatal(err)
					}
					if !uniform && (row.Labels[k][rs.Action] == 0 || col.Labels[k][cs.Action] == 0) {
						t.Fatalf("traj %d round %d: expert context played an action of probability 0", i, k)
					}
				}
			}
		}
	}
}

// TestCollectContext checks the context policies on a game with a pure
// saddle point: the experts always play it, the uniform context does not.
func TestCollectContext(t *testing.T) {
	g := game.MustZeroSum([][]float64{{0.5, 0.9}, {0.1, 0.2}}) // saddle (0, 0)
	prior := func(*rand.Rand) (*game.ZeroSum, error) { return g, nil }
	for _, c := range []struct {
		context Expert
		pure    bool
	}{{nil, true}, {Uniform{}, false}} {
		trajs, err := Collect(context.Background(), prior, CollectConfig{Rounds: 50, Games: 2, RowContext: c.context, ColContext: c.context})
		if err != nil {
			t.Fatal(err)
		}
		others := 0
		for _, tr := range trajs {
			row, col := tr.Players[0], tr.Players[1]
			for k := range row.Rounds {
				if row.Rounds[k].Action != 0 || col.Rounds[k].Action != 0 {
					others++
				}
				if row.Labels[k][0] != 1 || col.Labels[k][0] != 1 {
					t.Fatalf("%T: labels %v %v, want the pure saddle point", c.context, row.Labels[k], col.Labels[k])
				}
			}
		}
		if c.pure != (others == 0) {
			t.Errorf("%T: %d rounds off the saddle point", c.context, others)
		}
	}
}

// badExpert returns a fixed, possibly invalid label.
type badExpert struct {
	label []float64
	err   error
}

func (b badExpert) Label(dst []float64, _ game.Game, _ game.Player, _ []learner.Step, _ int) error {
	copy(dst, b.label)
	return b.err
}

type highNoise struct{}

func (highNoise) Draw(float64, *rand.Rand) float64 { return 2 }

func TestCollectErrors(t *testing.T) {
	ok := markovPrior(1, 2, 2)
	good := CollectConfig{Rounds: 3, Games: 2}
	mod := func(f func(*CollectConfig)) CollectConfig { c := good; f(&c); return c }
	bigGame, err := tables.Discounted([][][]float64{{{2}}}, [][][][]float64{{{{1}}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		prior func(*rand.Rand) (*markov.Discounted, error)
		cfg   CollectConfig
		want  string
	}{
		{"nil prior", nil, good, "prior"},
		{"rounds", ok, mod(func(c *CollectConfig) { c.Rounds = 0 }), "Rounds"},
		{"games", ok, mod(func(c *CollectConfig) { c.Games = 0 }), "Games"},
		{"per game", ok, mod(func(c *CollectConfig) { c.PerGame = -1 }), "PerGame"},
		{"prior error", func(*rand.Rand) (*markov.Discounted, error) { return nil, errors.New("boom") }, good, "boom"},
		{"nil game", func(*rand.Rand) (*markov.Discounted, error) { return nil, nil }, good, "nil game"},
		{"reward range", func(*rand.Rand) (*markov.Discounted, error) { return bigGame, nil }, good, "outside [0, 1]"},
		{"expert error", ok, mod(func(c *CollectConfig) { c.RowExpert = badExpert{[]float64{0.5, 0.5}, errors.New("expert down")} }), "expert down"},
		{"bad label", ok, mod(func(c *CollectConfig) { c.ColExpert = badExpert{label: []float64{0.7, 0.7}} }), "ColumnPlayer's expert label"},
		{"bad context", ok, mod(func(c *CollectConfig) { c.RowContext = badExpert{label: []float64{-1, 2}} }), "RowPlayer's context policy"},
		{"noise range", ok, mod(func(c *CollectConfig) { c.Noise = highNoise{} }), "reward 2"},
	} {
		_, err := Collect(context.Background(), c.prior, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
	// The reported failure is the lowest-numbered game's.
	prior := func(rng *rand.Rand) (*markov.Discounted, error) { return nil, errors.New("fail") }
	if _, err := Collect(context.Background(), prior, CollectConfig{Rounds: 1, Games: 50}); err == nil || !strings.Contains(err.Error(), "game 0:") {
		t.Errorf("err = %v, want game 0's", err)
	}
	// A simulator without a model cannot be labelled by the default NE
	// expert, but OMD labels it.
	sim := func(*rand.Rand) (simGame, error) { return simGame{}, nil }
	if _, err := Collect(context.Background(), sim, good); err == nil || !strings.Contains(err.Error(), "game.Model") {
		t.Errorf("simulator with the NE expert: err = %v, want one naming game.Model", err)
	}
	if _, err := Collect(context.Background(), sim, mod(func(c *CollectConfig) { c.RowExpert, c.ColExpert = OMDExpert{}, OMDExpert{} })); err != nil {
		t.Errorf("simulator with the OMD expert: %v", err)
	}
}

// simGame is a two-state simulator without a model: the joint action
// (a, b) pays 1 if a = b, and moves to state a.
type simGame struct{}

func (simGame) States() int             { return 2 }
func (simGame) Actions(game.Player) int { return 2 }
func (simGame) Start(*rand.Rand) int    { return 0 }
func (simGame) Step(s, a, b int, _ *rand.Rand) (float64, int) {
	if a == b {
		return 1, a
	}
	return 0, a
}

func TestExamplesTargets(t *testing.T) {
	for _, S := range []int{1, 3} {
		for _, feat := range []bool{false, true} {
			const A, B, T = 3, 2, 12
			trajs, err := Collect(context.Background(), markovPrior(S, A, B), CollectConfig{Rounds: T, Games: 3, Seed: 9,
				RowExpert: OMDExpert{}, ColExpert: &NEExpert{}})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []game.Player{game.RowPlayer, game.ColumnPlayer} {
				n := []int{A, B}[p]
				enc := GameEncoder{States: S, Actions: n, Features: feat}
				views := Views(trajs, p)
				soft, err := Examples[float32](views, enc, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				hard, err := Examples[float64](views, enc, true, rand.New(rand.NewPCG(1, 1)))
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range views {
					tok, fs, predict, err := Encode[int](enc, v.Rounds[:T-1], v.Rounds[T-1].Obs)
					if err != nil {
						t.Fatal(err)
					}
					if len(predict) != T {
						t.Fatalf("len(predict) = %d, want %d", len(predict), T)
					}
					L := enc.Positions(T - 1)
					ex, hx := soft[i], hard[i]
					if feat {
						if len(ex.Input.Features) != len(fs) || ex.Input.Tokens != nil || float64(ex.Input.Features[0]) != fs[0] {
							t.Fatal("feature input differs from Encode")
						}
					} else if !reflect.DeepEqual(ex.Input.Tokens, tok) || !reflect.DeepEqual(hx.Input.Tokens, tok) {
						t.Fatal("token input differs from Encode")
					}
					if len(ex.Target.Dist) != L*n || len(ex.Target.Weights) != L || ex.Target.Labels != nil {
						t.Fatalf("soft target shapes %d, %d", len(ex.Target.Dist), len(ex.Target.Weights))
					}
					if len(hx.Target.Labels) != L || hx.Target.Dist != nil {
						t.Fatalf("hard target shapes %d", len(hx.Target.Labels))
					}
					at := make(map[int]int, T)
					for k, q := range predict {
						at[q] = k
					}
					for q := range L {
						k, scored := at[q]
						d := ex.Target.Dist[q*n : (q+1)*n]
						if !scored {
							for _, x := range d {
								if x != 0 {
									t.Fatalf("S=%d feat=%v: position %d is not a prediction position but has target %v", S, feat, q, d)
								}
							}
							if ex.Target.Weights[q] != 0 || hx.Target.Labels[q] != -1 {
								t.Fatalf("position %d: weight %v, label %d", q, ex.Target.Weights[q], hx.Target.Labels[q])
							}
							continue
						}
						for c := range n {
							if d[c] != float32(v.Labels[k][c]) {
								t.Fatalf("position %d (round %d): target %v, label %v", q, k+1, d, v.Labels[k])
							}
						}
						if ex.Target.Weights[q] != 1 {
							t.Fatalf("position %d weight %v", q, ex.Target.Weights[q])
						}
						if c := hx.Target.Labels[q]; c < 0 || c >= n || v.Labels[k][c] == 0 {
							t.Fatalf("position %d: hard label %d of probability 0 under %v", q, c, v.Labels[k])
						}
					}
				}
			}
		}
	}
	trajs, err := Collect(context.Background(), markovPrior(2, 2, 2), CollectConfig{Rounds: 4, Games: 1})
	if err != nil {
		t.Fatal(err)
	}
	rows := Views(trajs, game.RowPlayer)
	enc := GameEncoder{States: 2, Actions: 2}
	for _, c := range []struct {
		name  string
		trajs []Trajectory[int]
		enc   GameEncoder
		hard  bool
		want  string
	}{
		{"hard labels without rng", rows, enc, true, "random source"},
		{"too few states", rows, GameEncoder{States: 1, Actions: 2}, false, "state 1"},
		{"invalid encoder", rows, GameEncoder{}, false, "States = 0"},
		{"labels shorter than rounds", []Trajectory[int]{{Rounds: rows[0].Rounds, Labels: rows[0].Labels[:2]}}, enc, false, "4 rounds but 2 labels"},
		{"empty trajectory", []Trajectory[int]{{}}, enc, false, "no rounds"},
		{"label not a distribution", []Trajectory[int]{{Rounds: rows[0].Rounds[:1], Labels: [][]float64{{0.9, 0.9}}}}, enc, false, "label of round 1"},
	} {
		_, err := Examples[float32](c.trajs, c.enc, c.hard, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
	_ = fmt.Sprint
}

// TestCollectOnlineMatchesReplay checks that the online experts (Follow)
// label and play exactly as their Label replayed at every round does: the
// same trajectories, bit for bit, for the OMD, NE and uniform experts in a
// Markov game, as labels and as context policies.
func TestCollectOnlineMatchesReplay(t *testing.T) {
	prior := markovPrior(3, 3, 2)
	for _, c := range []struct {
		name            string
		expert, context Expert
	}{{"OMD", OMDExpert{}, nil}, {"NE", &NEExpert{}, nil}, {"OMD labels, uniform play", OMDExpert{}, Uniform{}}, {"NE labels, OMD play", &NEExpert{}, OMDExpert{}}} {
		cfg := CollectConfig{Rounds: 60, Games: 3, PerGame: 2, RowExpert: c.expert, ColExpert: c.expert, RowContext: c.context, Seed: 4}
		online, err := Collect(context.Background(), prior, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RowExpert, cfg.ColExpert = labelOnly{c.expert}, labelOnly{c.expert}
		if c.context != nil {
			cfg.RowContext = labelOnly{c.context}
		}
		replayed, err := Collect(context.Background(), prior, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(online, replayed) {
			t.Errorf("%s: the online expert's trajectories differ from the replayed ones", c.name)
		}
	}
}
