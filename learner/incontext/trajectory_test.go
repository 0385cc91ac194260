package learner

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
)

// randDist returns a random distribution over n actions.
func randDist(n int, rng *rand.Rand) []float64 {
	p := make([]float64, n)
	var s float64
	for i := range p {
		p[i] = rng.ExpFloat64()
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func TestMatrixAsMarkovGap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dims := range [][2]int{{1, 1}, {2, 2}, {3, 4}, {5, 2}} {
		mg, err := game.RandomUniform(dims[0], dims[1], rng)
		if err != nil {
			t.Fatal(err)
		}
		g, err := MatrixAsMarkov(mg)
		if err != nil {
			t.Fatal(err)
		}
		S, A, B := g.Dims()
		if S != 1 || A != dims[0] || B != dims[1] || g.Gamma() != 0 {
			t.Fatalf("dims %v: got S=%d A=%d B=%d γ=%v", dims, S, A, B, g.Gamma())
		}
		for range 20 {
			x, y := randDist(A, rng), randDist(B, rng)
			want, err := mg.DualityGap(x, y)
			if err != nil {
				t.Fatal(err)
			}
			per, got, err := g.Gap(markov.Stationary{x}, markov.Stationary{y})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-12 || len(per) != 1 || per[0] != got {
				t.Errorf("dims %v: Markov gap %v (per state %v), matrix duality gap %v", dims, got, per, want)
			}
		}
	}
	if _, err := MatrixAsMarkov(nil); err == nil {
		t.Error("MatrixAsMarkov(nil) did not fail")
	}
	if _, err := MatrixAsMarkov(game.MustZeroSum([][]float64{{0, 2}, {1, 0}})); err == nil || !strings.Contains(err.Error(), "[0, 1]") {
		t.Errorf("payoff outside [0,1]: err = %v", err)
	}
}

func TestNEExpertMatchesLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	e := &NEExpert{}
	for trial := range 10 {
		mg, err := game.RandomUniform(2+trial%3, 2+trial%4, rng)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := game.Solve(mg)
		if err != nil {
			t.Fatal(err)
		}
		g, err := MatrixAsMarkov(mg)
		if err != nil {
			t.Fatal(err)
		}
		A, B := mg.Dims()
		x, y := make([]float64, A), make([]float64, B)
		hist := []Step{{Action: 0, Reward: 1}}
		if err := e.Label(x, g, true, hist, 0); err != nil {
			t.Fatal(err)
		}
		if err := e.Label(y, g, false, nil, 0); err != nil {
			t.Fatal(err)
		}
		for i := range x {
			if math.Abs(x[i]-sol.X[i]) > 1e-9 {
				t.Fatalf("trial %d: NE label x = %v, LP x* = %v", trial, x, sol.X)
			}
		}
		for j := range y {
			if math.Abs(y[j]-sol.Y[j]) > 1e-9 {
				t.Fatalf("trial %d: NE label y = %v, LP y* = %v", trial, y, sol.Y)
			}
		}
	}

	// Markov game: the labels are Shapley's stationary equilibrium, the
	// same for concurrent callers, computed once.
	g := mkRandomGame(t, 3, 2, 3, 0.8, rng)
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
				if err := e.Label(x, g, true, nil, s); err != nil {
					errs[w] = err
					return
				}
				if err := e.Label(y, g, false, nil, s); err != nil {
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
	// The copycheck: a cached equilibrium must not leak into dst.
	dst := make([]float64, 2)
	_ = e.Label(dst, g, true, nil, 0)
	dst[0] = 42
	if x1[0][0] == 42 {
		t.Error("Label aliased the cache")
	}

	for _, c := range []struct {
		name  string
		dst   []float64
		g     *markov.Discounted
		state int
	}{
		{"nil game", make([]float64, 2), nil, 0},
		{"state", make([]float64, 2), g, 3},
		{"negative state", make([]float64, 2), g, -1},
		{"dst length", make([]float64, 3), g, 0},
	} {
		if err := e.Label(c.dst, c.g, true, nil, c.state); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// TestOMDExpertMatchesReplay checks that the labels of trajectories
// collected with OMDExpert (which also play them, under ExpertContext) are
// the policies of online MarkovOMD learners fed the same rounds.
func TestOMDExpertMatchesReplay(t *testing.T) {
	for _, S := range []int{1, 2} {
		const A, B, T = 3, 2, 40
		prior := func(rng *rand.Rand) (*markov.Discounted, error) {
			return markov.RandomDiscounted(S, A, B, 0.5*float64(S-1), rng)
		}
		cfg := MarkovOMDConfig{ProxFactor: 1}
		e := OMDExpert{Config: cfg}
		trajs, err := Collect(prior, CollectConfig{Rounds: T, Games: 3, RowExpert: e, ColExpert: e, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		for i, tr := range trajs {
			for _, p := range []struct {
				hist   []Step
				labels [][]float64
				n      int
				role   Role
			}{{tr.Row, tr.RowLabels, A, RowPlayer}, {tr.Col, tr.ColLabels, B, ColumnPlayer}} {
				c := cfg
				c.States, c.Actions, c.Gamma, c.Role = S, p.n, tr.Game.Gamma(), p.role
				m, err := NewMarkovOMD(c)
				if err != nil {
					t.Fatal(err)
				}
				moved := false
				for k, st := range p.hist {
					want := m.Policy(st.State)
					if !reflect.DeepEqual(p.labels[k], want) {
						t.Fatalf("S=%d traj %d round %d: label %v, online MarkovOMD %v", S, i, k+1, p.labels[k], want)
					}
					if math.Abs(want[0]-1/float64(p.n)) > 1e-6 {
						moved = true
					}
					next := tr.Final
					if k+1 < len(p.hist) {
						next = p.hist[k+1].State
					}
					if err := m.Observe(st.State, st.Action, st.Reward, next); err != nil {
						t.Fatal(err)
					}
				}
				if !moved {
					t.Errorf("S=%d traj %d: the OMD labels never left uniform", S, i)
				}
			}
		}
	}
	g := mkT6(t)
	if err := (OMDExpert{}).Label(make([]float64, 2), g, true, []Step{{State: 5}}, 0); err == nil {
		t.Error("OMDExpert accepted a history state out of range")
	}
	if err := (OMDExpert{Config: MarkovOMDConfig{ProxFactor: -1}}).Label(make([]float64, 2), g, true, nil, 0); err == nil {
		t.Error("OMDExpert accepted an invalid config")
	}
	if err := (OMDExpert{}).Label(make([]float64, 3), g, true, nil, 0); err == nil {
		t.Error("OMDExpert accepted a dst of the wrong length")
	}
}

// markovPrior draws S-state games with A×B actions and γ = 0.7.
func markovPrior(S, A, B int) func(*rand.Rand) (*markov.Discounted, error) {
	return func(rng *rand.Rand) (*markov.Discounted, error) {
		return markov.RandomDiscounted(S, A, B, 0.7, rng)
	}
}

func TestCollectDeterminism(t *testing.T) {
	cfg := CollectConfig{Rounds: 25, Games: 7, PerGame: 2, Seed: 11}
	prior := markovPrior(2, 3, 2)
	run := func(procs int) []Trajectory {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		trajs, err := Collect(prior, cfg)
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
	if d := run(2); reflect.DeepEqual(a[0].Row, d[0].Row) {
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
	for _, ctxKind := range []ContextKind{ExpertContext, UniformContext} {
		for _, noise := range []game.Noise{nil, game.Exact{}} {
			trajs, err := Collect(markovPrior(S, A, B), CollectConfig{Rounds: T, Games: 4, PerGame: 3, Noise: noise, Context: ctxKind, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(trajs) != 12 {
				t.Fatalf("got %d trajectories, want 12", len(trajs))
			}
			for i, tr := range trajs {
				if len(tr.Row) != T || len(tr.Col) != T || len(tr.RowLabels) != T || len(tr.ColLabels) != T {
					t.Fatalf("traj %d: lengths %d %d %d %d", i, len(tr.Row), len(tr.Col), len(tr.RowLabels), len(tr.ColLabels))
				}
				if tr.Row[0].State != 0 || tr.Final < 0 || tr.Final >= S {
					t.Fatalf("traj %d: start state %d, final %d", i, tr.Row[0].State, tr.Final)
				}
				for k := range T {
					rs, cs := tr.Row[k], tr.Col[k]
					if rs.State != cs.State || rs.State < 0 || rs.State >= S {
						t.Fatalf("traj %d round %d: states %d, %d", i, k, rs.State, cs.State)
					}
					if rs.Action < 0 || rs.Action >= A || cs.Action < 0 || cs.Action >= B {
						t.Fatalf("traj %d round %d: actions %d, %d", i, k, rs.Action, cs.Action)
					}
					if !(rs.Reward >= 0 && rs.Reward <= 1) || cs.Reward != 1-rs.Reward {
						t.Fatalf("traj %d round %d: rewards %v, %v", i, k, rs.Reward, cs.Reward)
					}
					if _, ok := noise.(game.Exact); ok && rs.Reward != tr.Game.Reward(rs.State, rs.Action, cs.Action) {
						t.Fatalf("traj %d round %d: exact reward %v, r(s,a,b) = %v", i, k, rs.Reward, tr.Game.Reward(rs.State, rs.Action, cs.Action))
					}
					if err := game.CheckDistribution("row label", tr.RowLabels[k], A); err != nil {
						t.Fatal(err)
					}
					if err := game.CheckDistribution("col label", tr.ColLabels[k], B); err != nil {
						t.Fatal(err)
					}
					if ctxKind == ExpertContext && (tr.RowLabels[k][rs.Action] == 0 || tr.ColLabels[k][cs.Action] == 0) {
						t.Fatalf("traj %d round %d: expert context played an action of probability 0", i, k)
					}
				}
			}
		}
	}
}

// TestCollectContext checks the context algorithms on a game with a pure
// saddle point: the expert context always plays it, the uniform one does
// not.
func TestCollectContext(t *testing.T) {
	mg := game.MustZeroSum([][]float64{{0.5, 0.9}, {0.1, 0.2}}) // saddle (0, 0)
	g, err := MatrixAsMarkov(mg)
	if err != nil {
		t.Fatal(err)
	}
	prior := func(*rand.Rand) (*markov.Discounted, error) { return g, nil }
	for _, c := range []struct {
		kind ContextKind
		pure bool
	}{{ExpertContext, true}, {UniformContext, false}} {
		trajs, err := Collect(prior, CollectConfig{Rounds: 50, Games: 2, Context: c.kind})
		if err != nil {
			t.Fatal(err)
		}
		others := 0
		for _, tr := range trajs {
			for k := range tr.Row {
				if tr.Row[k].Action != 0 || tr.Col[k].Action != 0 {
					others++
				}
				if tr.RowLabels[k][0] != 1 || tr.ColLabels[k][0] != 1 {
					t.Fatalf("%v: labels %v %v, want the pure saddle point", c.kind, tr.RowLabels[k], tr.ColLabels[k])
				}
			}
		}
		if c.pure != (others == 0) {
			t.Errorf("%v: %d rounds off the saddle point", c.kind, others)
		}
	}
	if s := UniformContext.String(); s != "UniformContext" {
		t.Errorf("String = %q", s)
	}
}

// badExpert returns a fixed, possibly invalid label.
type badExpert struct {
	label []float64
	err   error
}

func (b badExpert) Label(dst []float64, g *markov.Discounted, row bool, history []Step, state int) error {
	copy(dst, b.label)
	return b.err
}

type highNoise struct{}

func (highNoise) Draw(float64, *rand.Rand) float64 { return 2 }

func TestCollectErrors(t *testing.T) {
	ok := markovPrior(1, 2, 2)
	good := CollectConfig{Rounds: 3, Games: 2}
	mod := func(f func(*CollectConfig)) CollectConfig { c := good; f(&c); return c }
	bigGame, err := markov.NewDiscounted([][][]float64{{{2}}}, [][][][]float64{{{{1}}}}, 0)
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
		{"context", ok, mod(func(c *CollectConfig) { c.Context = 7 }), "Context"},
		{"prior error", func(*rand.Rand) (*markov.Discounted, error) { return nil, errors.New("boom") }, good, "boom"},
		{"nil game", func(*rand.Rand) (*markov.Discounted, error) { return nil, nil }, good, "nil game"},
		{"reward range", func(*rand.Rand) (*markov.Discounted, error) { return bigGame, nil }, good, "outside [0, 1]"},
		{"expert error", ok, mod(func(c *CollectConfig) { c.RowExpert = badExpert{[]float64{0.5, 0.5}, errors.New("expert down")} }), "expert down"},
		{"bad label", ok, mod(func(c *CollectConfig) { c.ColExpert = badExpert{label: []float64{0.7, 0.7}} }), "column expert's label"},
		{"noise range", ok, mod(func(c *CollectConfig) { c.Noise = highNoise{} }), "noise"},
	} {
		_, err := Collect(c.prior, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
	// The reported failure is the lowest-numbered game's.
	prior := func(rng *rand.Rand) (*markov.Discounted, error) {
		return nil, errors.New("fail")
	}
	if _, err := Collect(prior, CollectConfig{Rounds: 1, Games: 50}); err == nil || !strings.Contains(err.Error(), "game 0:") {
		t.Errorf("err = %v, want game 0's", err)
	}
}

func TestExamplesTargets(t *testing.T) {
	for _, S := range []int{1, 3} {
		for _, feat := range []bool{false, true} {
			const A, B, T = 3, 2, 12
			trajs, err := Collect(markovPrior(S, A, B), CollectConfig{Rounds: T, Games: 3, Seed: 9,
				RowExpert: OMDExpert{}, ColExpert: &NEExpert{}})
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range []bool{true, false} {
				n := B
				if row {
					n = A
				}
				enc := Encoding{States: S, Actions: n, Features: feat}
				soft, err := Examples[float32](trajs, enc, row, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				hard, err := Examples[float64](trajs, enc, row, true, rand.New(rand.NewPCG(1, 1)))
				if err != nil {
					t.Fatal(err)
				}
				for i, tr := range trajs {
					hist, labels := tr.Col, tr.ColLabels
					if row {
						hist, labels = tr.Row, tr.RowLabels
					}
					tok, fs, predict, err := enc.Encode(hist[:T-1], hist[T-1].State)
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
					for k, p := range predict {
						at[p] = k
					}
					for p := range L {
						k, scored := at[p]
						d := ex.Target.Dist[p*n : (p+1)*n]
						if !scored {
							for _, v := range d {
								if v != 0 {
									t.Fatalf("S=%d feat=%v: position %d is not a prediction position but has target %v", S, feat, p, d)
								}
							}
							if ex.Target.Weights[p] != 0 || hx.Target.Labels[p] != -1 {
								t.Fatalf("position %d: weight %v, label %d", p, ex.Target.Weights[p], hx.Target.Labels[p])
							}
							continue
						}
						for c := range n {
							if d[c] != float32(labels[k][c]) {
								t.Fatalf("position %d (round %d): target %v, label %v", p, k+1, d, labels[k])
							}
						}
						if ex.Target.Weights[p] != 1 {
							t.Fatalf("position %d weight %v", p, ex.Target.Weights[p])
						}
						if c := hx.Target.Labels[p]; c < 0 || c >= n || labels[k][c] == 0 {
							t.Fatalf("position %d: hard label %d of probability 0 under %v", p, c, labels[k])
						}
					}
				}
			}
		}
	}
	trajs, err := Collect(markovPrior(2, 2, 2), CollectConfig{Rounds: 4, Games: 1})
	if err != nil {
		t.Fatal(err)
	}
	enc := Encoding{States: 2, Actions: 2}
	if _, err := Examples[float32](trajs, enc, true, true, nil); err == nil {
		t.Error("hard labels without rng: no error")
	}
	if _, err := Examples[float32](trajs, Encoding{States: 3, Actions: 2}, true, false, nil); err == nil {
		t.Error("encoding with the wrong number of states: no error")
	}
	if _, err := Examples[float32](trajs, Encoding{}, true, false, nil); err == nil {
		t.Error("invalid encoding: no error")
	}
	bad := trajs[0]
	bad.RowLabels = bad.RowLabels[:2]
	if _, err := Examples[float32]([]Trajectory{bad}, enc, true, false, nil); err == nil {
		t.Error("labels shorter than steps: no error")
	}
	bad = trajs[0]
	bad.Row = nil
	if _, err := Examples[float32]([]Trajectory{bad}, enc, true, false, nil); err == nil {
		t.Error("empty trajectory: no error")
	}
}

// TestNEExpertCacheIsWeak checks that the cache does not keep games alive.
func TestNEExpertCacheIsWeak(t *testing.T) {
	e := &NEExpert{}
	size := func() int {
		n := 0
		e.cache.Range(func(any, any) bool { n++; return true })
		return n
	}
	func() {
		rng := rand.New(rand.NewPCG(8, 8))
		for range 5 {
			g := mkRandomGame(t, 2, 2, 2, 0.5, rng)
			if err := e.Label(make([]float64, 2), g, true, nil, 0); err != nil {
				t.Fatal(err)
			}
		}
	}()
	if n := size(); n != 5 {
		t.Fatalf("cache holds %d games, want 5", n)
	}
	for range 100 {
		runtime.GC()
		if size() == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("cache still holds %d collected games", size())
}
