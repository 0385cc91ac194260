package learner_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

// fixedPolicy is a learner that always plays the same policy. It records
// what it observes, so tests can check the feedback SelfPlay sends.
type fixedPolicy struct {
	p       []float64
	actions []int
	rewards []float64
	vectors [][]float64
	reject  int // reject the observation of this round (1-based); 0 never
	nanAt   int // make the policy NaN after this many observations; 0 never
	seen    int
}

func (f *fixedPolicy) Policy(int) []float64 { return f.p }

func (f *fixedPolicy) observed() error {
	f.seen++
	if f.seen == f.reject {
		return errFixed
	}
	if f.seen == f.nanAt {
		f.p = slices.Clone(f.p)
		f.p[0] = math.NaN()
	}
	return nil
}

func (f *fixedPolicy) Observe(_, a int, r float64, _ int) error {
	f.actions = append(f.actions, a)
	f.rewards = append(f.rewards, r)
	return f.observed()
}

func (f *fixedPolicy) ObserveRewards(u []float64) error {
	f.vectors = append(f.vectors, slices.Clone(u))
	return f.observed()
}

func (f *fixedPolicy) Reset() {}

type fixedError struct{}

func (fixedError) Error() string { return "fixed learner rejects this" }

var errFixed error = fixedError{}

// banditOnly hides ObserveRewards.
type banditOnly struct{ learner.Learner }

// game32 is a 3×2 game in [0,1] with dyadic payoffs.
var game32 = game.MustZeroSum([][]float64{{0.75, 0}, {0.25, 0.5}, {0, 1}})

func TestSelfPlayFixedPoliciesGiveTheirGap(t *testing.T) {
	x := []float64{0.5, 0.25, 0.25}
	y := []float64{0.25, 0.75}
	want := dualityGap(t, game32, x, y)
	// (Ay) = (0.1875, 0.4375, 0.75), xᵀA = (0.4375, 0.375): gap 0.375.
	if want != 0.375 {
		t.Fatalf("hand-computed gap 0.375, game says %v", want)
	}
	for _, fb := range []play.Feedback{play.Bandit, play.FullInformation} {
		row, col := &fixedPolicy{p: x}, &fixedPolicy{p: y}
		cfg := play.SelfPlayConfig{Rounds: 300, Feedback: fb, Checkpoints: []int{1, 7, 100}}
		res := selfPlay(t, game32, row, col, cfg, rand.New(rand.NewPCG(1, 1)))
		if res.LastGap != want || res.AverageGap != want {
			t.Errorf("%v: gaps (last %v, average %v), want exactly %v", fb, res.LastGap, res.AverageGap, want)
		}
		for _, c := range res.Checkpoints {
			if c.LastGap != want || c.AverageGap != want {
				t.Errorf("%v: checkpoint %+v, want both gaps %v", fb, c, want)
			}
		}
		if !slices.Equal(res.LastX[0], x) || !slices.Equal(res.LastY[0], y) || !slices.Equal(res.AverageX, x) || !slices.Equal(res.AverageY, y) {
			t.Errorf("%v: last (%v, %v), average (%v, %v), want (%v, %v)", fb, res.LastX, res.LastY, res.AverageX, res.AverageY, x, y)
		}
		if fb == play.FullInformation {
			// The row player sees Ay, the column player 1 − xᵀA.
			ay := game32.RowPayoffs(nil, y)
			xa := game32.ColPayoffs(nil, x)
			for j := range xa {
				xa[j] = 1 - xa[j]
			}
			if len(row.vectors) != 300 || len(col.vectors) != 300 {
				t.Fatalf("%d and %d reward vectors, want 300", len(row.vectors), len(col.vectors))
			}
			for i := range row.vectors {
				if !slices.Equal(row.vectors[i], ay) || !slices.Equal(col.vectors[i], xa) {
					t.Fatalf("round %d: reward vectors %v and %v, want %v and %v", i+1, row.vectors[i], col.vectors[i], ay, xa)
				}
			}
		} else {
			for i, r := range row.rewards {
				if (r != 0 && r != 1) || col.rewards[i] != 1-r {
					t.Fatalf("round %d: rewards %v and %v, want Bernoulli r and 1 − r", i+1, r, col.rewards[i])
				}
			}
		}
	}
	// Bandit feedback with exact rewards: the empirical mean reward
	// converges to xᵀAy (a check of the sampling order and the noise).
	row, col := &fixedPolicy{p: x}, &fixedPolicy{p: y}
	selfPlay(t, game32, row, col, play.SelfPlayConfig{Rounds: 100000, Noise: game.Exact{}}, rand.New(rand.NewPCG(2, 2)))
	var mean float64
	for _, r := range row.rewards {
		mean += r
	}
	mean /= float64(len(row.rewards))
	if v := game32.Payoff(x, y); math.Abs(mean-v) > 0.005 {
		t.Errorf("mean bandit reward %v, want ≈ xᵀAy = %v", mean, v)
	}
}

func TestSelfPlayDeterminism(t *testing.T) {
	g := mustRescale(t, game.BiasedRPS(), -0.5, 0.5)
	run := func(seed uint64, fb play.Feedback) *play.SelfPlayResult {
		x := newOMWU(t, learner.MWUConfig{Actions: 3, Eta: 0.05, Floor: 0.1})
		y := newMWU(t, learner.MWUConfig{Actions: 3, Eta: 0.05, Floor: 0.1})
		cfg := play.SelfPlayConfig{Rounds: 2000, Feedback: fb, Record: true, Checkpoints: []int{10, 100, 1000}}
		return selfPlay(t, g, x, y, cfg, rand.New(rand.NewPCG(seed, 99)))
	}
	for _, fb := range []play.Feedback{play.Bandit, play.FullInformation} {
		a, b := run(1, fb), run(1, fb)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%v: two runs with the same seed differ", fb)
		}
		c := run(2, fb)
		if reflect.DeepEqual(a.Row, c.Row) {
			t.Errorf("%v: runs with seeds 1 and 2 have identical row histories", fb)
		}
		if fb == play.Bandit && a.LastGap == c.LastGap {
			t.Errorf("bandit runs with seeds 1 and 2 end with the same gap %v", a.LastGap)
		}
		if fb == play.FullInformation && !slices.Equal(a.LastX[0], c.LastX[0]) {
			// Full-information learners never see the sampled actions.
			t.Errorf("full information: the seed changed the policies: %v vs %v", a.LastX, c.LastX)
		}
	}
}

func TestSelfPlayRecord(t *testing.T) {
	for _, fb := range []play.Feedback{play.Bandit, play.FullInformation} {
		const rounds = 500
		x := newRM(t, learner.RegretMatchingConfig{Actions: 3, Floor: 0.1})
		y := newRM(t, learner.RegretMatchingConfig{Actions: 2, Floor: 0.1})
		res := selfPlay(t, game32, x, y, play.SelfPlayConfig{Rounds: rounds, Feedback: fb, Record: true}, rand.New(rand.NewPCG(4, 4)))
		if len(res.Row) != rounds || len(res.Col) != rounds {
			t.Fatalf("%v: histories of lengths %d and %d, want %d", fb, len(res.Row), len(res.Col), rounds)
		}
		for i := range res.Row {
			r, c := res.Row[i], res.Col[i]
			if r.Action < 0 || r.Action >= 3 || c.Action < 0 || c.Action >= 2 || r.State != 0 || c.State != 0 {
				t.Fatalf("%v round %d: steps %+v and %+v out of range", fb, i+1, r, c)
			}
			if c.Reward != 1-r.Reward {
				t.Fatalf("%v round %d: column reward %v, want 1 − %v", fb, i+1, c.Reward, r.Reward)
			}
			if fb == play.FullInformation && r.Reward != game32.At(r.Action, c.Action) {
				t.Fatalf("full information round %d: recorded reward %v, want the mean A[%d][%d] = %v", i+1, r.Reward, r.Action, c.Action, game32.At(r.Action, c.Action))
			}
			if fb == play.Bandit && r.Reward != 0 && r.Reward != 1 {
				t.Fatalf("bandit round %d: reward %v is not Bernoulli", i+1, r.Reward)
			}
		}
	}
	// Without Record there are no histories.
	x := newRM(t, learner.RegretMatchingConfig{Actions: 3, Floor: 0.1})
	y := newRM(t, learner.RegretMatchingConfig{Actions: 2, Floor: 0.1})
	res := selfPlay(t, game32, x, y, play.SelfPlayConfig{Rounds: 10}, rand.New(rand.NewPCG(4, 4)))
	if res.Row != nil || res.Col != nil {
		t.Errorf("histories recorded without Record: %d and %d steps", len(res.Row), len(res.Col))
	}
}

func TestSelfPlayCheckpoints(t *testing.T) {
	for _, tc := range []struct {
		rounds int
		cps    []int
		want   []int
	}{
		{100, nil, []int{100}},
		{100, []int{1, 10, 50}, []int{1, 10, 50, 100}},
		{100, []int{1, 10, 100}, []int{1, 10, 100}},
		{1, []int{1}, []int{1}},
		{7, []int{3}, []int{3, 7}},
	} {
		x := newOMWU(t, learner.MWUConfig{Actions: 2})
		y := newOMWU(t, learner.MWUConfig{Actions: 2})
		cps := slices.Clone(tc.cps)
		res := selfPlay(t, g1, x, y, play.SelfPlayConfig{Rounds: tc.rounds, Feedback: play.FullInformation, Checkpoints: cps}, rand.New(rand.NewPCG(1, 1)))
		if !slices.Equal(cps, tc.cps) {
			t.Errorf("SelfPlay modified the configured checkpoints: %v, want %v", cps, tc.cps)
		}
		var got []int
		for _, c := range res.Checkpoints {
			got = append(got, c.Round)
			if c.LastGap < 0 || c.AverageGap < 0 || math.IsNaN(c.LastGap+c.AverageGap) {
				t.Errorf("checkpoint %+v has a bad gap", c)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Rounds %d, Checkpoints %v: recorded rounds %v, want %v", tc.rounds, tc.cps, got, tc.want)
		}
		last := res.Checkpoints[len(res.Checkpoints)-1]
		if res.LastGap != last.LastGap || res.AverageGap != last.AverageGap {
			t.Errorf("result gaps (%v, %v), last checkpoint %+v", res.LastGap, res.AverageGap, last)
		}
		if g := dualityGap(t, g1, res.LastX[0], res.LastY[0]); g != res.LastGap {
			t.Errorf("LastGap %v, but Gap(LastX, LastY) = %v", res.LastGap, g)
		}
		if g := dualityGap(t, g1, res.AverageX, res.AverageY); g != res.AverageGap {
			t.Errorf("AverageGap %v, but Gap(AverageX, AverageY) = %v", res.AverageGap, g)
		}
	}
	// The checkpoints of a long run match runs that stop there: the last
	// iterate at round t is the policy played at round t.
	x := newOMWU(t, learner.MWUConfig{Actions: 2})
	y := newOMWU(t, learner.MWUConfig{Actions: 2})
	long := selfPlay(t, g1, x, y, play.SelfPlayConfig{Rounds: 200, Feedback: play.FullInformation, Checkpoints: []int{50}}, rand.New(rand.NewPCG(1, 1)))
	x = newOMWU(t, learner.MWUConfig{Actions: 2})
	y = newOMWU(t, learner.MWUConfig{Actions: 2})
	short := selfPlay(t, g1, x, y, play.SelfPlayConfig{Rounds: 50, Feedback: play.FullInformation}, rand.New(rand.NewPCG(1, 1)))
	if !reflect.DeepEqual(long.Checkpoints[0], short.Checkpoints[0]) {
		t.Errorf("checkpoint at 50 of a 200-round run %+v, a 50-round run gives %+v", long.Checkpoints[0], short.Checkpoints[0])
	}
}

func TestSelfPlayErrors(t *testing.T) {
	rps := game.RPS() // payoffs in [−1, 1]
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 1)) }
	mwu := func(k int) learner.Learner { return newMWU(t, learner.MWUConfig{Actions: k}) }
	exp3 := func(k int) learner.Learner { return newExp3IX(t, learner.Exp3IXConfig{Actions: k}) }
	full := play.SelfPlayConfig{Rounds: 10, Feedback: play.FullInformation}
	for _, tc := range []struct {
		name     string
		g        *game.ZeroSum
		row, col learner.Learner
		cfg      play.SelfPlayConfig
		rng      *rand.Rand
		want     string
	}{
		{"game outside [0,1]", rps, mwu(3), mwu(3), play.SelfPlayConfig{Rounds: 10}, rng(), "[-1, 1]"},
		{"zero rounds", g1, mwu(2), mwu(2), play.SelfPlayConfig{}, rng(), "got 0"},
		{"negative rounds", g1, mwu(2), mwu(2), play.SelfPlayConfig{Rounds: -3}, rng(), "got -3"},
		{"nil rng", g1, mwu(2), mwu(2), play.SelfPlayConfig{Rounds: 10}, nil, "random source"},
		{"checkpoint 0", g1, mwu(2), mwu(2), play.SelfPlayConfig{Rounds: 10, Checkpoints: []int{0}}, rng(), "round 0"},
		{"checkpoint past the end", g1, mwu(2), mwu(2), play.SelfPlayConfig{Rounds: 10, Checkpoints: []int{5, 11}}, rng(), "round 11"},
		{"repeated checkpoint", g1, mwu(2), mwu(2), play.SelfPlayConfig{Rounds: 10, Checkpoints: []int{5, 5}}, rng(), "checkpoint 1 at round 5"},
		{"decreasing checkpoints", g1, mwu(2), mwu(2), play.SelfPlayConfig{Rounds: 10, Checkpoints: []int{6, 3}}, rng(), "round 3"},
		{"full information, bandit-only row", g1, exp3(2), mwu(2), full, rng(), "row learner *learner.Exp3IX"},
		{"full information, bandit-only column", g1, mwu(2), banditOnly{mwu(2)}, full, rng(), "column learner"},
		{"unknown feedback", g1, mwu(2), mwu(2), play.SelfPlayConfig{Rounds: 10, Feedback: 7}, rng(), "Feedback(7)"},
		{"row actions do not match", g1, mwu(3), mwu(2), play.SelfPlayConfig{Rounds: 10}, rng(), "row player's learner *learner.MWU has 3 actions in state 0, the game 2"},
		{"column actions do not match", game32, mwu(3), mwu(3), play.SelfPlayConfig{Rounds: 10}, rng(), "column player's learner *learner.MWU has 3 actions in state 0, the game 2"},
		{"nil game", nil, mwu(2), mwu(2), play.SelfPlayConfig{Rounds: 10}, rng(), "nil game"},
		{"nil row", g1, nil, mwu(2), play.SelfPlayConfig{Rounds: 10}, rng(), "nil learner"},
		{"nil column", g1, mwu(2), nil, play.SelfPlayConfig{Rounds: 10}, rng(), "nil learner"},
		{"rejected observation", g1, mwu(2), &fixedPolicy{p: []float64{0.5, 0.5}, reject: 4}, play.SelfPlayConfig{Rounds: 10}, rng(), "round 4, column player: fixed learner rejects"},
		{"rejected full information", g1, &fixedPolicy{p: []float64{0.5, 0.5}, reject: 2}, mwu(2), full, rng(), "round 2, row player: fixed learner rejects"},
		{"policy leaves the simplex", g1, &fixedPolicy{p: []float64{0.5, 0.5}, nanAt: 3}, mwu(2), play.SelfPlayConfig{Rounds: 10}, rng(), "round 4: icrl: not finite: row player's policy in state 0[0] = NaN"},
	} {
		res, err := play.SelfPlay(context.Background(), tc.g, tc.row, tc.col, tc.cfg, tc.rng)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
		if res != nil {
			t.Errorf("%s: non-nil result with an error", tc.name)
		}
	}
	// A rejected observation wraps the learner's error.
	_, err := play.SelfPlay(context.Background(), g1, mwu(2), &fixedPolicy{p: []float64{0.5, 0.5}, reject: 1}, play.SelfPlayConfig{Rounds: 3}, rand.New(rand.NewPCG(1, 1)))
	if err == nil || !isFixed(err) {
		t.Errorf("error %v does not wrap the learner's error", err)
	}
}

func isFixed(err error) bool { return errors.Is(err, errFixed) }

func TestSelfPlayDoesNotAllocatePerRound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates; the count is checked without it")
	}
	g := mustRescale(t, game.BiasedRPS(), -0.5, 0.5)
	allocs := func(rounds int) float64 {
		return testing.AllocsPerRun(5, func() {
			x := newOMWU(t, learner.MWUConfig{Actions: 3, Floor: 0.1})
			y := newOMWU(t, learner.MWUConfig{Actions: 3, Floor: 0.1})
			_, err := play.SelfPlay(context.Background(), g, x, y, play.SelfPlayConfig{Rounds: rounds}, rand.New(rand.NewPCG(1, 1)))
			ok(t, err)
		})
	}
	if a, b := allocs(10), allocs(10000); a != b {
		t.Errorf("%v allocations for 10 rounds, %v for 10000: self-play allocates per round", a, b)
	}
}

// TestSelfPlaySamplingOrder pins down the documented draw order: a_t ~ x_t,
// b_t ~ y_t (each by simplex.SampleCategorical) and then r_t from the noise,
// all from the one rng.
func TestSelfPlaySamplingOrder(t *testing.T) {
	x := []float64{0.3, 0, 0.7}
	y := []float64{0.6, 0.4}
	for _, noise := range []game.Noise{nil, game.UniformNoise{HalfWidth: 0.2}} {
		res := selfPlay(t, game32, &fixedPolicy{p: x}, &fixedPolicy{p: y}, play.SelfPlayConfig{Rounds: 1000, Noise: noise, Record: true}, rand.New(rand.NewPCG(8, 9)))
		if noise == nil {
			noise = game.Bernoulli{}
		}
		rng := rand.New(rand.NewPCG(8, 9))
		for i := range res.Row {
			a := simplex.SampleCategorical(x, rng)
			b := simplex.SampleCategorical(y, rng)
			r := noise.Draw(game32.At(a, b), rng)
			if got := res.Row[i]; got.Action != a || got.Reward != r || res.Col[i].Action != b {
				t.Fatalf("%T round %d: recorded (%d, %d, %v), replay gives (%d, %d, %v)", noise, i+1, got.Action, res.Col[i].Action, got.Reward, a, b, r)
			}
		}
	}
}

// TestSelfPlayCancel checks that a done context stops self-play at the
// next multiple of 64 rounds with the rounds played so far and the
// context's error, and that a nil context is an error.
func TestSelfPlayCancel(t *testing.T) {
	g := mustRescale(t, game.BiasedRPS(), -0.5, 0.5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x, y := newOMWU(t, learner.MWUConfig{Actions: 3}), newOMWU(t, learner.MWUConfig{Actions: 3})
	res, err := play.SelfPlay(ctx, g, x, y, play.SelfPlayConfig{Rounds: 5000, Checkpoints: []int{10, 2000}}, rand.New(rand.NewPCG(1, 1)))
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("cancelled self-play: result %v, error %v", res, err)
	}
	if played := res.Visits[0]; played != 63 {
		t.Errorf("cancelled self-play played %d rounds, want 63", played)
	}
	if len(res.Checkpoints) != 1 || res.Checkpoints[0].Round != 10 || res.LastGap != res.Checkpoints[0].LastGap {
		t.Errorf("cancelled self-play checkpoints %+v, last gap %v", res.Checkpoints, res.LastGap)
	}
	//lint:ignore SA1012 the nil context is the bad input under test
	if _, err := play.SelfPlay(nil, g, x, y, play.SelfPlayConfig{Rounds: 5}, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("nil context: %v", err)
	}
}
