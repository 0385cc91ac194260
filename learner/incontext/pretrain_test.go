package incontext

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/transformer"
)

// mixedBase draws an A×A base game with payoffs uniform in [0,1] whose
// equilibrium is fully mixed with every probability in [lo, 1−lo], so that
// the games of a ρ = 0.1 family around it have mixed equilibria too, and
// far from uniform: each player's equilibrium is at least far away from it
// in the sup norm, so that the uniform policy is clearly exploitable. The
// draws are deterministic given rng.
func mixedBase(t testing.TB, A int, lo, far float64, rng *rand.Rand) *game.ZeroSum {
	t.Helper()
	for range 10000 {
		g, err := game.RandomUniform(A, A, rng)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := game.Solve(g)
		if err != nil {
			t.Fatal(err)
		}
		ok := true
		var dx, dy float64
		for i := range A {
			ok = ok && sol.X[i] >= lo && sol.X[i] <= 1-lo && sol.Y[i] >= lo && sol.Y[i] <= 1-lo
			dx = max(dx, math.Abs(sol.X[i]-1/float64(A)))
			dy = max(dy, math.Abs(sol.Y[i]-1/float64(A)))
		}
		ok = ok && dx >= far && dy >= far
		if ok {
			return g
		}
	}
	t.Fatal("no base game with a mixed equilibrium")
	return nil
}

// pipelineResult holds the mean held-out gaps of one pipeline run.
type pipelineResult struct {
	model, uniform, expert float64
	base                   float64 // the base game's equilibrium, played in every game
	wins                   int     // held-out games where the models beat uniform
	games                  int
	rowRes, colRes         transformer.TrainResult
}

// runPipeline collects trajectories on games from prior, pretrains both
// players' models, and plays them on held-out games from the same prior.
func runPipeline[G game.Model](t *testing.T, prior func(*rand.Rand) (G, error), base game.Model, T, trainGames, testGames int, pc PretrainConfig[float32]) pipelineResult {
	t.Helper()
	S, A, B := base.States(), base.Actions(game.RowPlayer), base.Actions(game.ColumnPlayer)
	trajs, err := Collect(context.Background(), prior, CollectConfig{Rounds: T, Games: trainGames, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rowEnc := GameEncoder{States: S, Actions: A, RewardBins: 2}
	colEnc := GameEncoder{States: S, Actions: B, RewardBins: 2}
	ctx := context.Background()
	rowM, rowRes, err := Pretrain(ctx, Views(trajs, game.RowPlayer), rowEnc, pc)
	if err != nil {
		t.Fatal(err)
	}
	pc.Seed++
	colM, colRes, err := Pretrain(ctx, Views(trajs, game.ColumnPlayer), colEnc, pc)
	if err != nil {
		t.Fatal(err)
	}
	out := pipelineResult{games: testGames, rowRes: rowRes, colRes: colRes}
	ne := &NEExpert{}
	bx, by, err := ne.Equilibrium(base)
	if err != nil {
		t.Fatal(err)
	}
	for k := range testGames {
		// Held-out games: a seed stream disjoint from Collect's (Seed 1).
		g, err := prior(rand.New(rand.NewPCG(1000, uint64(k))))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Play(context.Background(), g, rowM, colM, rowEnc, colEnc, play.SelfPlayConfig{Rounds: T}, rand.New(rand.NewPCG(2000, uint64(k))))
		if err != nil {
			t.Fatal(err)
		}
		_, ug, err := g.Gaps(markov.UniformStationary(S, A), markov.UniformStationary(S, B))
		if err != nil {
			t.Fatal(err)
		}
		x, y, err := ne.Equilibrium(g)
		if err != nil {
			t.Fatal(err)
		}
		_, eg, err := g.Gaps(x, y)
		if err != nil {
			t.Fatal(err)
		}
		_, bg, err := g.Gaps(bx, by)
		if err != nil {
			t.Fatal(err)
		}
		out.base += bg / float64(testGames)
		out.model += res.LastGap / float64(testGames)
		out.uniform += ug / float64(testGames)
		out.expert += eg / float64(testGames)
		if res.LastGap < ug {
			out.wins++
		}
	}
	return out
}

// TestPretrainPipeline is the acceptance test of the pretraining pipeline
// (in-context-games-omd §2.6 and the replication plan of §4, at a tiny
// scale): NE-expert trajectories on 2×2 games of a ρ = 0.1 perturbed family,
// soft-label pretraining of a small transformer per player, and self-play
// of the two models on held-out games of the family. The models' last
// iterate must be less exploitable than the uniform policy.
func TestPretrainPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two transformers (run without -short)")
	}
	const A, T = 2, 12
	base := mixedBase(t, A, 0.1, 0.2, rand.New(rand.NewPCG(42, 0)))
	fam, err := game.NewPerturbed(base, 0.1, game.PerturbUniform)
	if err != nil {
		t.Fatal(err)
	}
	prior := func(rng *rand.Rand) (*game.ZeroSum, error) { return fam.Sample(rng), nil }
	pc := PretrainConfig[float32]{
		Model: transformer.Config{Layers: 2, Heads: 2, Width: 32, FeedForward: 64},
		Train: transformer.TrainConfig[float32]{Steps: 300, BatchSize: 32, Seed: 3},
		Seed:  5,
	}
	r := runPipeline(t, prior, base, T, 256, 100, pc)
	sol, _ := game.Solve(base)
	t.Logf("base %.3f, NE x* = %.3f, y* = %.3f", base.Payoffs(), sol.X, sol.Y)
	r.log(t, T)
	r.check(t)
}

// log reports the run.
func (r pipelineResult) log(t *testing.T, T int) {
	t.Helper()
	t.Logf("training: row %d steps (%s), KL %.4f, val CE %.4f; col %d steps (%s), KL %.4f, val CE %.4f",
		r.rowRes.Steps, r.rowRes.Reason, r.rowRes.KL, r.rowRes.BestValLoss, r.colRes.Steps, r.colRes.Reason, r.colRes.KL, r.colRes.BestValLoss)
	t.Logf("held-out mean duality gap over %d games after T = %d: models %.4f, uniform %.4f, base game's NE %.4f, NE expert %.2g; models better than uniform on %d games",
		r.games, T, r.model, r.uniform, r.base, r.expert, r.wins)
}

// check asserts that the models beat the uniform policy.
func (r pipelineResult) check(t *testing.T) {
	t.Helper()
	if !(r.model < r.uniform) {
		t.Errorf("trained models' gap %.4f is not below the uniform policy's %.4f", r.model, r.uniform)
	}
}

// TestPretrainPipelineMarkov runs the pipeline on a tiny Markov family: 2
// states, 2×2 actions, γ = 0.5, rewards and transitions perturbed by
// ρ = 0.1 around a random base (markov.PerturbedDiscounted), the Markov
// experiments of in-context-games-omd §4 at a tiny scale.
func TestPretrainPipelineMarkov(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two transformers (run without -short)")
	}
	const T = 14
	// A base whose equilibrium is far from uniform in some state.
	var base *markov.Discounted
	brng := rand.New(rand.NewPCG(43, 0))
	for base == nil {
		g, err := markov.RandomDiscounted(2, 2, 2, 0.5, brng)
		if err != nil {
			t.Fatal(err)
		}
		_, ug, err := g.Gaps(markov.UniformStationary(2, 2), markov.UniformStationary(2, 2))
		if err != nil {
			t.Fatal(err)
		}
		if ug > 0.3 {
			base = g
		}
	}
	fam, err := markov.NewPerturbedDiscounted(base, 0.1, game.PerturbUniform)
	if err != nil {
		t.Fatal(err)
	}
	prior := func(rng *rand.Rand) (*markov.Discounted, error) { return fam.Sample(rng), nil }
	pc := PretrainConfig[float32]{
		Model: transformer.Config{Layers: 2, Heads: 2, Width: 32, FeedForward: 64},
		Train: transformer.TrainConfig[float32]{Steps: 200, BatchSize: 32, Seed: 3},
		Seed:  5,
	}
	r := runPipeline(t, prior, base, T, 256, 100, pc)
	x, y, _ := (&NEExpert{}).Equilibrium(base)
	t.Logf("base NE x* = %.3f, y* = %.3f", x, y)
	r.log(t, T)
	r.check(t)
}

func TestPretrainConfig(t *testing.T) {
	trajs, err := Collect(context.Background(), markovPrior(2, 3, 2), CollectConfig{Rounds: 6, Games: 10, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows, cols := Views(trajs, game.RowPlayer), Views(trajs, game.ColumnPlayer)
	enc := GameEncoder{States: 2, Actions: 3}
	tiny := transformer.Config{Layers: 1, Heads: 1, Width: 8, FeedForward: 8}
	ctx := context.Background()
	m, res, err := Pretrain(ctx, rows, enc, PretrainConfig[float32]{Model: tiny, Train: transformer.TrainConfig[float32]{Steps: 3}, Hard: true})
	if err != nil {
		t.Fatal(err)
	}
	mc := m.Config()
	if mc.Vocab != enc.Vocab() || mc.Features != 0 || mc.Outputs != 3 || mc.MaxLen != enc.Positions(6) || res.Steps != 3 {
		t.Errorf("config %+v, %d steps", mc, res.Steps)
	}
	// The zero model is the paper's; feature encodings set Features.
	fenc := GameEncoder{States: 2, Actions: 2, Features: true}
	m, _, err = Pretrain(ctx, cols, fenc, PretrainConfig[float32]{Train: transformer.TrainConfig[float32]{Steps: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if mc := m.Config(); mc.Layers != 2 || mc.Heads != 4 || mc.Width != 64 || mc.FeedForward != 256 || mc.Features != fenc.Width() || mc.Vocab != 0 {
		t.Errorf("default config %+v", mc)
	}
	// Same inputs, same model.
	a, _, err := Pretrain(ctx, rows, enc, PretrainConfig[float32]{Model: tiny, Train: transformer.TrainConfig[float32]{Steps: 3}, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Pretrain(ctx, rows, enc, PretrainConfig[float32]{Model: tiny, Train: transformer.TrainConfig[float32]{Steps: 3}, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range a.Params() {
		for j, v := range p.Value {
			if b.Params()[i].Value[j] != v {
				t.Fatalf("Pretrain is not reproducible: parameter %d[%d]", i, j)
			}
		}
	}
	// Cancellation returns the model and ctx's error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if m, _, err := Pretrain(cctx, rows, enc, PretrainConfig[float32]{Model: tiny, Train: transformer.TrainConfig[float32]{Steps: 3}}); err != context.Canceled || m == nil {
		t.Errorf("cancelled: model %v, err %v", m != nil, err)
	}

	bad := func(f func(*PretrainConfig[float32])) PretrainConfig[float32] {
		c := PretrainConfig[float32]{Model: tiny, Train: transformer.TrainConfig[float32]{Steps: 1}}
		f(&c)
		return c
	}
	for _, c := range []struct {
		name  string
		ctx   context.Context
		trajs []Trajectory[int]
		enc   GameEncoder
		cfg   PretrainConfig[float32]
		want  string
	}{
		{"nil ctx", nil, rows, enc, bad(func(*PretrainConfig[float32]) {}), "context"},
		{"no trajectories", ctx, nil, enc, bad(func(*PretrainConfig[float32]) {}), "trajectory"},
		{"encoding", ctx, rows, GameEncoder{States: 2}, bad(func(*PretrainConfig[float32]) {}), "Actions"},
		{"encoding mismatch", ctx, rows, GameEncoder{States: 2, Actions: 2}, bad(func(*PretrainConfig[float32]) {}), "length 3, want 2"},
		{"fraction", ctx, rows, enc, bad(func(c *PretrainConfig[float32]) { c.ValidationFraction = 1 }), "ValidationFraction"},
		{"fraction NaN", ctx, rows, enc, bad(func(c *PretrainConfig[float32]) { c.ValidationFraction = math.NaN() }), "ValidationFraction"},
		{"validation", ctx, rows, enc, bad(func(c *PretrainConfig[float32]) { c.Train.Validation = []transformer.Example[float32]{} }), "Validation is empty"},
		{"vocab", ctx, rows, enc, bad(func(c *PretrainConfig[float32]) { c.Model.Vocab = 99 }), "Vocab"},
		{"outputs", ctx, rows, enc, bad(func(c *PretrainConfig[float32]) { c.Model.Outputs = 2 }), "Outputs"},
		{"max len", ctx, rows, enc, bad(func(c *PretrainConfig[float32]) { c.Model.MaxLen = 5 }), "MaxLen"},
		{"heads", ctx, rows, enc, bad(func(c *PretrainConfig[float32]) { c.Model.Heads = 3 }), "Heads"},
		{"train", ctx, rows, enc, bad(func(c *PretrainConfig[float32]) { c.Train.Steps = -1 }), "Steps"},
	} {
		_, _, err := Pretrain(c.ctx, c.trajs, c.enc, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

func TestPlayErrors(t *testing.T) {
	g, err := markov.RandomDiscounted(2, 2, 2, 0.9, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	enc := GameEncoder{States: 2, Actions: 2}
	newModel := func(cfg transformer.Config) *transformer.Model[float32] {
		m, err := transformer.New[float32](cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	base := transformer.Config{Layers: 1, Heads: 1, Width: 8, FeedForward: 8, Vocab: enc.Vocab(), Outputs: 2, MaxLen: enc.Positions(10)}
	m := newModel(base)
	rng := rand.New(rand.NewPCG(1, 2))
	cfg := play.SelfPlayConfig{Rounds: 10}
	res, err := Play(context.Background(), g, m, m, enc, enc, cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.LastX) != 2 || res.LastGap < 0 {
		t.Errorf("result %+v", res)
	}
	// A model shorter than the game slides its window instead of failing.
	short := base
	short.MaxLen = enc.Positions(3)
	if _, err := Play(context.Background(), g, newModel(short), m, enc, enc, cfg, rng); err != nil {
		t.Errorf("short model: %v", err)
	}
	wrongOut := base
	wrongOut.Outputs = 3
	for _, c := range []struct {
		name     string
		g        game.Game
		row, col transformer.Transformer[float32]
		renc     GameEncoder
		cfg      play.SelfPlayConfig
		rng      *rand.Rand
		want     string
	}{
		{"nil game", nil, m, m, enc, cfg, rng, "game"},
		{"nil model", g, nil, m, enc, cfg, rng, "model"},
		{"nil rng", g, m, m, enc, cfg, nil, "random"},
		{"encoding vs game", g, m, m, GameEncoder{States: 1, Actions: 2}, cfg, rng, "states"},
		{"model vs encoding", g, newModel(wrongOut), m, enc, cfg, rng, "3 logits"},
		{"rounds", g, m, m, enc, play.SelfPlayConfig{}, rng, "rounds"},
	} {
		_, err := Play(context.Background(), c.g, c.row, c.col, c.renc, enc, c.cfg, c.rng)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

// TestPretrainTrainsTheBudget: a caller who asks for a number of steps
// gets them (the labels here are learnt within a few dozen steps, which
// the paper's KL rule would stop at), unless it sets a stopping rule; with
// no budget the paper's rule stops training early.
func TestPretrainTrainsTheBudget(t *testing.T) {
	g, err := game.NewZeroSum([][]float64{{0.9, 0.1}, {0.2, 0.8}})
	if err != nil {
		t.Fatal(err)
	}
	trajs, err := Collect(context.Background(), func(*rand.Rand) (*game.ZeroSum, error) { return g, nil }, CollectConfig{Rounds: 4, Games: 40, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows := Views(trajs, game.RowPlayer)
	enc := GameEncoder{States: 1, Actions: 2}
	tiny := transformer.Config{Layers: 1, Heads: 1, Width: 8, FeedForward: 16}
	for _, c := range []struct {
		name      string
		train     transformer.TrainConfig[float32]
		want, cap int // want exactly, or fewer than cap
		reason    string
	}{
		{"budget", transformer.TrainConfig[float32]{Steps: 400, BatchSize: 8}, 400, 0, "steps"},
		{"budget with a target", transformer.TrainConfig[float32]{Steps: 400, BatchSize: 8, TargetLoss: 0.01, StopOnKL: true}, 0, 400, "target loss"},
		{"no budget", transformer.TrainConfig[float32]{BatchSize: 8}, 0, 100 * 5, "target loss"},
	} {
		_, res, err := Pretrain(context.Background(), rows, enc, PretrainConfig[float32]{Model: tiny, Train: c.train, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if (c.want > 0 && res.Steps != c.want) || (c.cap > 0 && res.Steps >= c.cap) || res.Reason != c.reason {
			t.Errorf("%s: %d steps (%s), want %d or fewer than %d (%s)", c.name, res.Steps, res.Reason, c.want, c.cap, c.reason)
		}
	}
}

// TestPretrainFloat64 pretrains the same tiny model in float32 and in
// float64 from the same seed: the float64 model starts from the float32
// model's weights widened, follows the same steps, and ends within float32
// round-off of it (its loss to 1e-4, every logit of a held-out history to
// 1e-3), and it plays through NewLearner.
func TestPretrainFloat64(t *testing.T) {
	g, err := game.NewZeroSum([][]float64{{0.9, 0.1}, {0.2, 0.8}})
	if err != nil {
		t.Fatal(err)
	}
	trajs, err := Collect(context.Background(), func(*rand.Rand) (*game.ZeroSum, error) { return g, nil }, CollectConfig{Rounds: 4, Games: 40, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows := Views(trajs, game.RowPlayer)
	enc := GameEncoder{States: 1, Actions: 2, Features: true}
	tiny := transformer.Config{Layers: 1, Heads: 1, Width: 8, FeedForward: 16}
	m32, r32, err := Pretrain(context.Background(), rows, enc, PretrainConfig[float32]{Model: tiny, Train: transformer.TrainConfig[float32]{Steps: 50, BatchSize: 8}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m64, r64, err := Pretrain(context.Background(), rows, enc, PretrainConfig[float64]{Model: tiny, Train: transformer.TrainConfig[float64]{Steps: 50, BatchSize: 8}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r32.Steps != 50 || r64.Steps != 50 || math.Abs(r32.Loss-r64.Loss) > 1e-4 {
		t.Fatalf("float32: %d steps, loss %v; float64: %d steps, loss %v", r32.Steps, r32.Loss, r64.Steps, r64.Loss)
	}
	_, feats, _, err := Encode[int](enc, trajs[0].Players[0].Rounds, 0)
	if err != nil {
		t.Fatal(err)
	}
	d32, d64 := m32.NewDecoder(), m64.NewDecoder()
	W := enc.Width()
	for p := range len(feats) / W {
		x32 := make([]float32, W)
		for i, v := range feats[p*W : (p+1)*W] {
			x32[i] = float32(v)
		}
		l32, err := d32.AppendFeatures(x32)
		if err != nil {
			t.Fatal(err)
		}
		l64, err := d64.AppendFeatures(feats[p*W : (p+1)*W])
		if err != nil {
			t.Fatal(err)
		}
		for a := range l64 {
			if math.Abs(float64(l32[a])-l64[a]) > 1e-3 {
				t.Errorf("position %d, logit %d: float32 %v, float64 %v", p, a, l32[a], l64[a])
			}
		}
	}
	l, err := NewLearner[float64](m64, enc, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if p := l.Policy(0); math.Abs(p[0]+p[1]-1) > 1e-12 {
		t.Errorf("float64 learner's policy %v is not a distribution", p)
	}
}

// TestPretrainGivenValidation: a validation set given in Train.Validation
// (here the trajectories of games held out) is used as given, and the
// model trains on every trajectory: it is the model trained without a
// validation split, parameter for parameter.
func TestPretrainGivenValidation(t *testing.T) {
	trajs, err := Collect(context.Background(), markovPrior(2, 2, 2), CollectConfig{Rounds: 5, Games: 12, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	rows := Views(trajs, game.RowPlayer)
	enc := GameEncoder{States: 2, Actions: 2}
	val, err := Examples[float32](rows[10:], enc, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	tiny := transformer.Config{Layers: 1, Heads: 1, Width: 8, FeedForward: 16, MaxLen: enc.Positions(5)}
	train := transformer.TrainConfig[float32]{Steps: 20, BatchSize: 4}
	given := train
	given.Validation = val
	a, resA, err := Pretrain(context.Background(), rows[:10], enc, PretrainConfig[float32]{Model: tiny, Train: given, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Pretrain(context.Background(), rows[:10], enc, PretrainConfig[float32]{Model: tiny, Train: train, ValidationFraction: -1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !(resA.BestValLoss > 0) || math.IsInf(resA.BestValLoss, 0) {
		t.Errorf("best validation loss %v with a given validation set", resA.BestValLoss)
	}
	pa, pb := a.Params(), b.Params()
	for i := range pa {
		if !slices.Equal(pa[i].Value, pb[i].Value) {
			t.Fatalf("parameter %s differs: the given validation set changed the training data", pa[i].Name)
		}
	}
}
