package omdnet_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/learner/incontext/omdnet"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/learner/schedule"
	"github.com/icrl-go/icrl/transformer"
)

// policies encodes each history followed by its next state with the
// model's encoder (incontext.Encode), runs one batched Forward pass and
// returns, per history, the policy the model predicts for every round
// (len(history)+1 of them, the last the next round's).
func policies(t *testing.T, model *transformer.Model[float64], enc incontext.GameEncoder, hists [][]learner.Step, next []int) [][][]float64 {
	t.Helper()
	seqs := make([]transformer.Sequence[float64], len(hists))
	predict := make([][]int, len(hists))
	for k, h := range hists {
		_, f, pos, err := incontext.Encode(enc, incontext.RoundsOf(h), next[k])
		if err != nil {
			t.Fatal(err)
		}
		seqs[k], predict[k] = transformer.Sequence[float64]{Features: f}, pos
	}
	out, err := model.Forward(seqs)
	if err != nil {
		t.Fatal(err)
	}
	A := enc.Actions
	pols := make([][][]float64, len(hists))
	for k, pos := range predict {
		for _, i := range pos {
			pols[k] = append(pols[k], simplex.Softmax(nil, out[k][i*A:(i+1)*A]))
		}
	}
	return pols
}

// checkFalls checks the largest distances d at ε = 10⁻² and 10⁻³: each
// within 3ε, and falling at least fourfold.
func checkFalls(t *testing.T, d [2]float64) {
	t.Helper()
	for i, eps := range []float64{1e-2, 1e-3} {
		if d[i] > 3*eps {
			t.Errorf("ε = %g: largest distance %.3g, want at most 3ε", eps, d[i])
		}
	}
	if !(d[1] < d[0]/4) {
		t.Errorf("the distance fell from %.3g to %.3g with ε from 1e-2 to 1e-3, want at least fourfold", d[0], d[1])
	}
}

// dist is the Euclidean distance ‖p − q‖₂ of Theorem 4.1.
func dist(p, q []float64) float64 {
	s := 0.0
	for i := range p {
		s += (p[i] - q[i]) * (p[i] - q[i])
	}
	return math.Sqrt(s)
}

// checker is a play.Recorder that compares, before every round, the
// constructed player's policy with the policy learner.OMD holds after the
// same history (OMD.Distribution replays it).
type checker struct {
	player game.Player
	model  learner.Learner
	ref    *learner.OMD
	hist   []learner.Step
	worst  float64
	rounds int
}

// selfPlayChecked plays the constructed model as player p of g against
// learner.OMD with cfg.OMD for cfg.OMD.Horizon rounds, the model's policy
// compared at every round with OMD's after the same history, and returns
// the checker.
func selfPlayChecked(t *testing.T, model *transformer.Model[float64], cfg omdnet.Config, g game.Model, p game.Player, rng *rand.Rand) *checker {
	t.Helper()
	built, err := incontext.NewLearner(model, cfg.Encoder(), incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	opp, err := learner.NewOMD(cfg.OMD)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := learner.NewOMD(cfg.OMD)
	if err != nil {
		t.Fatal(err)
	}
	chk := &checker{player: p, model: built, ref: ref}
	row, col := learner.Learner(built), learner.Learner(opp)
	if p == game.ColumnPlayer {
		row, col = opp, built
	}
	if _, err := play.SelfPlay(context.Background(), g, row, col, play.SelfPlayConfig{Rounds: cfg.OMD.Horizon, Recorder: chk}, rng); err != nil {
		t.Fatal(err)
	}
	return chk
}

func (c *checker) Record(t int, tr play.Transition) error {
	want, err := c.ref.Distribution(nil, c.hist, tr.State)
	if err != nil {
		return err
	}
	c.worst = max(c.worst, dist(c.model.Policy(tr.State), want))
	c.hist = append(c.hist, tr.Step(c.player))
	c.rounds++
	return nil
}

// TestTheorem41 plays the constructed transformer, as the row player and
// as the column player, against learner.OMD with the theorem's schedule
// (schedule.Paper) on random 3×3 games for T = 200 rounds, and checks at
// every round that its policy is within the theorem's bound ε + η·A of
// the policy OMD computes from the same context, at ε = 10⁻² and (the row
// player, on the same game) 10⁻³, where the largest distance must fall at
// least fourfold.
func TestTheorem41(t *testing.T) {
	T := 200
	if testing.Short() {
		T = 40
		if raceEnabled {
			T = 12
		}
	}
	const A = 3
	var worst [2]float64 // the row player's largest distance at each ε
	for i, eps := range []float64{1e-2, 1e-3} {
		cfg := omdnet.Config{OMD: learner.OMDConfig{Actions: A, Horizon: T, Schedule: schedule.Paper{}}, Accuracy: eps}
		model, err := omdnet.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		bound := eps + math.Pow(float64(T), -5.0/3)*A
		rng := rand.New(rand.NewPCG(41, 1)) // the same games and draws at each ε
		players := []game.Player{game.RowPlayer, game.ColumnPlayer}
		if i > 0 {
			players = players[:1]
		}
		for _, p := range players {
			g, err := game.RandomUniform(A, A, rng)
			if err != nil {
				t.Fatal(err)
			}
			chk := selfPlayChecked(t, model, cfg, g, p, rng)
			if chk.rounds != T || chk.worst > bound {
				t.Errorf("%v, ε = %g: largest distance to OMD %.3g over %d rounds, want at most ε + ηA = %.4g over %d", p, eps, chk.worst, chk.rounds, bound, T)
			}
			t.Logf("%v, T = %d, ε = %g: largest ‖x − x_OMD‖₂ = %.3g (bound %.4g)", p, T, eps, chk.worst, bound)
			if p == game.RowPlayer {
				worst[i] = chk.worst
			}
		}
	}
	if !(worst[1] < worst[0]/4) {
		t.Errorf("the row player's largest distance fell from %.3g to %.3g with ε from 1e-2 to 1e-3, want at least fourfold", worst[0], worst[1])
	}
}

// worstDistance returns the largest distance between the model's policy,
// teacher-forced on random histories of the given games (one batched
// Forward pass), and OMD's policy after the same rounds, over every round.
func worstDistance(t *testing.T, cfg omdnet.Config, games int, seed uint64) float64 {
	t.Helper()
	model, err := omdnet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := learner.NewOMD(cfg.OMD)
	if err != nil {
		t.Fatal(err)
	}
	A, T := cfg.OMD.Actions, cfg.OMD.Horizon
	rng := rand.New(rand.NewPCG(seed, 2))
	hists := make([][]learner.Step, games)
	for k := range hists {
		g, err := game.RandomUniform(A, A, rng)
		if err != nil {
			t.Fatal(err)
		}
		opp, err := learner.NewOMD(cfg.OMD)
		if err != nil {
			t.Fatal(err)
		}
		me, err := learner.NewOMD(cfg.OMD)
		if err != nil {
			t.Fatal(err)
		}
		res, err := play.SelfPlay(context.Background(), g, me, opp, play.SelfPlayConfig{Rounds: T, Record: true}, rng)
		if err != nil {
			t.Fatal(err)
		}
		hists[k] = res.Row
	}
	worst := 0.0
	for k, pols := range policies(t, model, cfg.Encoder(), hists, make([]int, games)) {
		for i, x := range pols {
			want, err := ref.Distribution(nil, hists[k][:i], 0)
			if err != nil {
				t.Fatal(err)
			}
			worst = max(worst, dist(x, want))
		}
	}
	return worst
}

// TestAccuracyFalls checks, with learner.OMD's default schedule (whose steps
// move the policy), that the largest distance to OMD over every round of
// self-play falls as the accuracy ε is refined: about tenfold for a tenfold
// ε. The theorem's bound ε + η_1·A is vacuous here (η_1 = 1); on these
// games the distance stays within 3ε.
func TestAccuracyFalls(t *testing.T) {
	T := 200
	if testing.Short() {
		T = 40
		if raceEnabled {
			T = 12
		}
	}
	var d [2]float64
	for i, eps := range []float64{1e-2, 1e-3} {
		cfg := omdnet.Config{OMD: learner.OMDConfig{Actions: 3, Horizon: T}, Accuracy: eps}
		d[i] = worstDistance(t, cfg, 2, 7)
		t.Logf("schedule.Cai, T = %d, ε = %g: largest ‖x − x_OMD‖₂ = %.3g", T, eps, d[i])
	}
	checkFalls(t, d)
}

// TestSaveLoadSession checks that the constructed model round-trips
// through Save and Load bit for bit, that KV-cached decoding gives the
// logits of the batched Forward pass, and that the in-context Learner plays
// the policies of the Forward pass.
func TestSaveLoadSession(t *testing.T) {
	const A, T = 3, 20
	cfg := omdnet.Config{OMD: learner.OMDConfig{Actions: A, Horizon: T}, Accuracy: 1e-2}
	model, err := omdnet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := model.Save(dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := transformer.Load[float64](dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range model.Params() {
		q := loaded.Params()[i]
		for j := range p.Value {
			if p.Value[j] != q.Value[j] {
				t.Fatalf("%s[%d]: saved %v, loaded %v", p.Name, j, p.Value[j], q.Value[j])
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 3))
	var rounds []incontext.Round[int]
	var hist []learner.Step
	for range T {
		a, r := rng.IntN(A), rng.Float64()
		rounds = append(rounds, incontext.Round[int]{Action: a, Reward: r})
		hist = append(hist, learner.Step{Action: a, Reward: r})
	}
	_, f, _, err := incontext.Encode(cfg.Encoder(), rounds, 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := loaded.Forward([]transformer.Sequence[float64]{{Features: f}})
	if err != nil {
		t.Fatal(err)
	}
	s := loaded.NewSession()
	player, err := incontext.NewLearner(loaded, cfg.Encoder(), incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= T; i++ {
		z, err := s.AppendFeatures(f[i*(A+2) : (i+1)*(A+2)])
		if err != nil {
			t.Fatal(err)
		}
		want := out[0][i*A : (i+1)*A]
		for a := range A {
			if math.Abs(z[a]-want[a]) > 1e-9 {
				t.Fatalf("position %d: session logits %v, Forward %v", i, z, want)
			}
		}
		if d := dist(player.Policy(0), simplex.Softmax(nil, want)); d > 1e-9 {
			t.Fatalf("round %d: the Learner plays %v, Forward gives %v", i+1, player.Policy(0), simplex.Softmax(nil, want))
		}
		if i < T {
			if err := player.Observe(0, hist[i].Action, hist[i].Reward, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	if loaded.Capacity() != T+1 {
		t.Errorf("capacity %d, want T + 1 = %d", loaded.Capacity(), T+1)
	}
}

// TestSizes checks Sizes against the built model and the width formula of
// the package documentation.
func TestSizes(t *testing.T) {
	markovCfg := omdnet.Config{OMD: learner.OMDConfig{States: 2, Actions: 3, Horizon: 4, Discount: 0.9}, Accuracy: 0.01}
	sz, err := markovCfg.Sizes()
	if err != nil {
		t.Fatal(err)
	}
	model, err := omdnet.New(markovCfg)
	if err != nil {
		t.Fatal(err)
	}
	if c := model.Config(); c.Width != sz.Width || c.Layers != sz.Layers || int64(model.NumParams()) != sz.Params ||
		c.Features != 2+3+2 || c.MaxLen != 2*4+2 || sz.Width != 2*3+5*2+4*3+19+4+2 { // SA + 5S + 4A + 19 + ⌈F/2⌉ + ⌈F/4⌉
		t.Errorf("Markov game: Sizes %+v, model %+v", sz, c)
	}
	for A := 1; A <= 6; A++ {
		cfg := omdnet.Config{OMD: learner.OMDConfig{Actions: A, Horizon: 4}, Accuracy: 0.01}
		sz, err := cfg.Sizes()
		if err != nil {
			t.Fatal(err)
		}
		model, err := omdnet.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c := model.Config()
		if c.Width != sz.Width || c.FeedForward != sz.FeedForward || c.Layers != sz.Layers || c.Heads != sz.Heads ||
			int64(model.NumParams()) != sz.Params {
			t.Errorf("A = %d: Sizes %+v, model %d×%d, %d layers, %d heads, %d parameters", A, sz, c.Width, c.FeedForward, c.Layers, c.Heads, model.NumParams())
		}
		if sz.Layers < 4*sz.RoundLayers/2 || sz.ReadoutLayers < 1 || sz.Layers > 4*sz.RoundLayers+sz.ReadoutLayers {
			t.Errorf("A = %d: %d layers from %d a round over 4 rounds and %d of read-out", A, sz.Layers, sz.RoundLayers, sz.ReadoutLayers)
		}
		ceil := func(a, b int) int { return (a + b - 1) / b }
		want := 5*A + 7 + ceil(A, 2) + ceil(A, 4)
		if F := 1<<A - 1; A <= 3 {
			want = 4*A + 7 + ceil(F, 2) + ceil(F, 4)
		}
		if sz.Width != want {
			t.Errorf("A = %d: width %d, want %d", A, sz.Width, want)
		}
	}
}

// TestBadConfig checks that every invalid configuration is refused with
// an error wrapping the documented sentinel, before anything is built.
func TestBadConfig(t *testing.T) {
	ok := learner.OMDConfig{Actions: 2, Horizon: 5}
	with := func(f func(*omdnet.Config)) omdnet.Config {
		c := omdnet.Config{OMD: ok}
		f(&c)
		return c
	}
	rising := schedule.Func(func(t, visit, horizon, actions int) schedule.StepSizes {
		return schedule.StepSizes{Eta: 0.1, Beta: 0.1, Epsilon: 0.1, Delta: 0.01 * float64(t)}
	})
	noBeta := schedule.Func(func(t, visit, horizon, actions int) schedule.StepSizes {
		return schedule.StepSizes{Eta: 0.1}
	})
	for _, c := range []struct {
		name string
		cfg  omdnet.Config
		want error
	}{
		{"no actions", with(func(c *omdnet.Config) { c.OMD.Actions = 0 }), icrl.ErrInvalid},
		{"too many actions", with(func(c *omdnet.Config) { c.OMD.Actions = omdnet.MaxActions + 1 }), icrl.ErrInvalid},
		{"no horizon", with(func(c *omdnet.Config) { c.OMD.Horizon = 0 }), icrl.ErrInvalid},
		{"horizon too long", with(func(c *omdnet.Config) { c.OMD.Horizon = omdnet.MaxHorizon + 1 }), icrl.ErrInvalid},
		{"raw loss", with(func(c *omdnet.Config) { c.OMD.States, c.OMD.Discount, c.OMD.LossScale = 2, 0.9, learner.RawLoss }), icrl.ErrInvalid},
		{"too many states", with(func(c *omdnet.Config) { c.OMD.States = omdnet.MaxStates + 1 }), icrl.ErrInvalid},
		{"discount", with(func(c *omdnet.Config) { c.OMD.Discount = 0.9 }), icrl.ErrInvalid},
		{"discount 1", with(func(c *omdnet.Config) { c.OMD.States, c.OMD.Discount = 2, 1 }), icrl.ErrInvalid},
		{"convention", with(func(c *omdnet.Config) { c.OMD.Convention = learner.RewardAscent }), icrl.ErrInvalid},
		{"init by state", with(func(c *omdnet.Config) { c.OMD.States, c.OMD.InitByState = 2, [][]float64{{0.5, 0.5}} }), icrl.ErrInvalid},
		{"bad init", with(func(c *omdnet.Config) { c.OMD.Init = []float64{0.7, 0.7} }), icrl.ErrInvalid},
		{"negative prox", with(func(c *omdnet.Config) { c.OMD.ProxFactor = -1 }), icrl.ErrInvalid},
		{"accuracy", with(func(c *omdnet.Config) { c.Accuracy = 0.5 }), icrl.ErrInvalid},
		{"NaN accuracy", with(func(c *omdnet.Config) { c.Accuracy = math.NaN() }), icrl.ErrInvalid},
		{"rising δ", with(func(c *omdnet.Config) { c.OMD.Schedule = rising }), icrl.ErrInvalid},
		{"unbounded weight", with(func(c *omdnet.Config) { c.OMD.Schedule = noBeta }), icrl.ErrInvalid},
		{"MaxParams", with(func(c *omdnet.Config) { c.MaxParams = 1000 }), icrl.ErrTooLarge},
		{"negative MaxParams", with(func(c *omdnet.Config) { c.MaxParams = -1 }), icrl.ErrInvalid},
	} {
		if _, err := omdnet.New(c.cfg); !errors.Is(err, c.want) {
			t.Errorf("%s: New error %v, want %v", c.name, err, c.want)
		}
		if c.want == icrl.ErrInvalid {
			if _, err := c.cfg.Sizes(); !errors.Is(err, c.want) {
				t.Errorf("%s: Sizes error %v, want %v", c.name, err, c.want)
			}
		}
	}
	// A typed nil schedule is the default schedule, as for learner.NewOMD.
	var nilPaper *schedule.Paper
	a, errA := omdnet.Config{OMD: learner.OMDConfig{Actions: 2, Horizon: 5, Schedule: nilPaper}}.Sizes()
	b, errB := omdnet.Config{OMD: ok}.Sizes()
	if errA != nil || errB != nil || a != b {
		t.Errorf("typed nil schedule: %+v, %v; default %+v, %v", a, errA, b, errB)
	}
}
