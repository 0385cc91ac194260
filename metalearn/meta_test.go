package metalearn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nested"
	"github.com/icrl-go/icrl/internal/tables"
	"github.com/icrl-go/icrl/markov"
)

// metaPureGame is the placeholder base "pure" (not the
// paper's missing Table 1): max-player rewards [[0.8,0.6],[0.3,0.1]] at s0
// and [[0.5,0.9],[0.2,0.4]] at s1, the F.1 transitions, start state s0,
// time-homogeneous over H steps. Both stage games have a strict pure NE.
func metaPureGame(t testing.TB, H int) *markov.Episodic {
	t.Helper()
	rew := make([][][]float64, H)
	for h := range rew {
		rew[h] = [][]float64{{0.8, 0.6, 0.3, 0.1}, {0.5, 0.9, 0.2, 0.4}}
	}
	g, err := tables.ZeroSumEpisodic(2, 2, 0, rew, tables.TwoState(1))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// metaAsGeneralSum returns the zero-sum game g as a general-sum game (the
// same rewards, no zero-sum flag needed by Algorithm 2).
func metaAsGeneralSum(t testing.TB, g *markov.Episodic) *markov.Episodic {
	t.Helper()
	H, S, J := g.Horizon(), g.States(), g.NumJoint()
	rew := make([][][][]float64, H)
	tr := make([][][][]float64, H)
	for h := range rew {
		rew[h] = make([][][]float64, S)
		tr[h] = make([][][]float64, S)
		for s := range S {
			rew[h][s] = make([][]float64, J)
			tr[h][s] = make([][]float64, J)
			for j := range J {
				rew[h][s][j] = []float64{g.StepReward(h, s, j, 0), g.StepReward(h, s, j, 1)}
				tr[h][s][j] = g.StepTransition(h, s, j)
			}
		}
	}
	gs, err := tables.Episodic([]int{g.Actions(0), g.Actions(1)}, g.Start(), rew, tr)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// metaLog is a fake learner and meta-update that record their calls.
type metaLog struct {
	calls             []string
	failNext, failRun int
	failObserve       int
}

func (l *metaLog) Run(g string, init int) (string, error) {
	l.calls = append(l.calls, fmt.Sprintf("run %s from %d", g, init))
	if init == l.failRun {
		return "", errors.New("run failed")
	}
	return "result of " + g, nil
}

func (l *metaLog) Next(k int) (int, error) {
	l.calls = append(l.calls, fmt.Sprintf("next %d", k))
	if k == l.failNext {
		return 0, errors.New("next failed")
	}
	return 100 + k, nil
}

func (l *metaLog) Observe(r string) error {
	l.calls = append(l.calls, "observe "+r)
	if r == fmt.Sprintf("result of g%d", l.failObserve) {
		return errors.New("observe failed")
	}
	return nil
}

func TestRunSequenceOrder(t *testing.T) {
	log := &metaLog{failNext: -1, failRun: -1, failObserve: -1}
	res, err := RunSequence([]string{"g0", "g1", "g2"}, Algorithm[string, int, string](log), Meta[int, string](log))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"next 0", "run g0 from 100", "observe result of g0",
		"next 1", "run g1 from 101", "observe result of g1",
		"next 2", "run g2 from 102", "observe result of g2",
	}
	if !slices.Equal(log.calls, want) {
		t.Errorf("calls %q, want %q", log.calls, want)
	}
	if !slices.Equal(res, []string{"result of g0", "result of g1", "result of g2"}) {
		t.Errorf("results %q", res)
	}
	if res, err := RunSequence(nil, Algorithm[string, int, string](log), Meta[int, string](log)); err != nil || len(res) != 0 {
		t.Errorf("no games: %v, %v", res, err)
	}
}

func TestRunSequenceErrors(t *testing.T) {
	games := []string{"g0", "g1", "g2"}
	for _, c := range []struct {
		log   metaLog
		want  string
		nDone int
	}{
		{metaLog{failNext: 2, failRun: -1, failObserve: -1}, "game 2: meta init: next failed", 2},
		{metaLog{failNext: -1, failRun: 101, failObserve: -1}, "game 1: run failed", 1},
		{metaLog{failNext: -1, failRun: -1, failObserve: 0}, "game 0: observe: observe failed", 1},
	} {
		log := c.log
		res, err := RunSequence(games, Algorithm[string, int, string](&log), Meta[int, string](&log))
		if err == nil || !strings.Contains(err.Error(), c.want) || !(strings.HasPrefix(err.Error(), "metalearn: ") || strings.HasPrefix(err.Error(), "icrl: ")) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
		if len(res) != c.nDone {
			t.Errorf("%q: %d results returned, want %d", c.want, len(res), c.nDone)
		}
	}
	log := &metaLog{}
	if _, err := RunSequence(games, nil, Meta[int, string](log)); err == nil {
		t.Error("nil learner: no error")
	}
	if _, err := RunSequence(games, Algorithm[string, int, string](log), nil); err == nil {
		t.Error("nil meta: no error")
	}
}

func TestFixedMeta(t *testing.T) {
	f := Fixed[int, string]{Init: 7}
	for k := range 3 {
		if init, err := f.Next(k); init != 7 || err != nil {
			t.Errorf("Next(%d) = %d, %v", k, init, err)
		}
		if err := f.Observe("x"); err != nil {
			t.Error(err)
		}
	}
}

func TestDefaultAlpha(t *testing.T) {
	for _, c := range []struct {
		K    int
		want float64
	}{{1, 0.49}, {4, 0.49}, {5, 1 / math.Sqrt(5)}, {10, 1 / math.Sqrt(10)}, {100, 0.1}} {
		if got := DefaultAlpha(c.K); got != c.want {
			t.Errorf("DefaultAlpha(%d) = %v, want %v", c.K, got, c.want)
		}
	}
	if !math.IsNaN(DefaultAlpha(0)) {
		t.Error("DefaultAlpha(0) is not NaN")
	}
	g := metaPureGame(t, 2)
	z, err := NewZeroSumAverage(g, 50, 9, 0, HindsightBR)
	if err != nil || z.Alpha != 1.0/3 || z.Stat != HindsightBR {
		t.Errorf("NewZeroSumAverage(K = 9, α = 0): Alpha %v, Stat %v, %v", z.Alpha, z.Stat, err)
	}
	m, err := NewGeneralSumAverage(g, 50, 9, 0.2, StageAverage)
	if err != nil || m.Alpha != 0.2 || m.Stat != StageAverage {
		t.Errorf("NewGeneralSumAverage(α = 0.2): Alpha %v, Stat %v, %v", m.Alpha, m.Stat, err)
	}
	if HindsightBR.String() != "HindsightBR" || StageAverage.String() != "StageAverage" || Statistic(7).String() != "Statistic(7)" {
		t.Error("Statistic.String")
	}
}

// metaZeroSumSequence runs K perturbed copies of the H-step pure game with
// the meta-update m and returns the games, the initialisations the meta
// produced and the results.
func metaZeroSumSequence(t *testing.T, K, H, T int, sd float64, m *ZeroSumAverage) ([]*markov.Episodic, []ZeroSumInit, []*ZeroSumResult) {
	t.Helper()
	games, err := markov.PerturbedEpisodic(metaPureGame(t, H), K, sd, rand.New(rand.NewPCG(11, 12)))
	if err != nil {
		t.Fatal(err)
	}
	rec := &metaRecorder{inner: m}
	res, err := RunSequence(games, ZeroSumAlgorithm[*markov.Episodic]{OOMDConfig{Eta: 0.02, T: T}}, Meta[ZeroSumInit, *ZeroSumResult](rec))
	if err != nil {
		t.Fatal(err)
	}
	return games, rec.inits, res
}

// metaRecorder records the initialisations of a ZeroSumAverage.
type metaRecorder struct {
	inner *ZeroSumAverage
	inits []ZeroSumInit
}

func (r *metaRecorder) Next(k int) (ZeroSumInit, error) {
	init, err := r.inner.Next(k)
	if err == nil {
		r.inits = append(r.inits, ZeroSumInit{Mu: init.Mu.Clone(), Nu: init.Nu.Clone()})
	}
	return init, err
}

func (r *metaRecorder) Observe(res *ZeroSumResult) error { return r.inner.Observe(res) }

// metaStagedEqual reports whether p and q have the same shape and entries
// within tol.
func metaStagedEqual(p, q *Staged, tol float64) bool {
	if !sameStagedShape(p, q) {
		return false
	}
	for k := range p.Dim(0) {
		for h := range p.Dim(1) {
			for s := range p.Dim(2) {
				if !closeSlices(p.Row(k, h, s), q.Row(k, h, s), tol) {
					return false
				}
			}
		}
	}
	return true
}

// TestZeroSumAverageInits checks eq. (5): Next(0) is uniform, Next(1) is
// exactly the α-greedy hindsight best response of game 0, Next(k) is the
// average of the α-greedy statistics, and every entry is ≥ α/A.
func TestZeroSumAverageInits(t *testing.T) {
	const K, H, T = 4, 3, 200
	for _, stat := range []Statistic{HindsightBR, StageAverage} {
		for _, alpha := range []float64{0, 0.1} {
			g := metaPureGame(t, H)
			m, err := NewZeroSumAverage(g, T, K, alpha, stat)
			if err != nil {
				t.Fatal(err)
			}
			a := m.Alpha
			if alpha == 0 && a != 0.49 {
				t.Fatalf("default α for K = 4: %v, want 0.49", a)
			}
			_, inits, res := metaZeroSumSequence(t, K, H, T, 0.3, m)
			if m.Observed() != K {
				t.Errorf("Observed = %d, want %d", m.Observed(), K)
			}
			uni, _ := UniformZeroSumInit(g, T)
			if !metaStagedEqual(inits[0].Mu, uni.Mu, 0) || !metaStagedEqual(inits[0].Nu, uni.Nu, 0) {
				t.Errorf("%v α=%v: Next(0) is not uniform", stat, a)
			}
			statMu := func(r *ZeroSumResult) *Staged {
				if stat == HindsightBR {
					return r.BRMu
				}
				return r.AvgMu
			}
			statNu := func(r *ZeroSumResult) *Staged {
				if stat == HindsightBR {
					return r.BRNu
				}
				return r.AvgNu
			}
			if !metaStagedEqual(inits[1].Mu, AlphaGreedy(statMu(res[0]), a), 0) || !metaStagedEqual(inits[1].Nu, AlphaGreedy(statNu(res[0]), a), 0) {
				t.Errorf("%v α=%v: Next(1) is not exactly [statistic of game 0]_α", stat, a)
			}
			for k := 2; k < K; k++ {
				want := zeroLike(inits[0].Mu)
				for _, r := range res[:k] {
					addStaged(want, AlphaGreedy(statMu(r), a))
				}
				for i := range want.Data() {
					want.Data()[i] /= float64(k)
				}
				if !metaStagedEqual(inits[k].Mu, want, 1e-15) {
					t.Errorf("%v α=%v: Next(%d) is not the average of the α-greedy statistics", stat, a, k)
				}
			}
			floor := a/2 - 1e-17
			nonUniform := false
			for k, init := range inits {
				for _, p := range []*Staged{init.Mu, init.Nu} {
					for _, v := range p.Data() {
						if v < floor {
							t.Fatalf("%v α=%v: init of game %d has entry %v < α/A = %v", stat, a, k, v, a/2)
						}
						if k > 0 && v < 0.5-1e-9 {
							nonUniform = true
						}
					}
				}
			}
			if !nonUniform {
				t.Errorf("%v α=%v: meta inits stayed uniform", stat, a)
			}
		}
	}
}

func TestZeroSumAverageErrors(t *testing.T) {
	g := metaPureGame(t, 3)
	three, err := markov.RandomEpisodic([]int{2, 2, 2}, 2, 3, markov.GeneralSumGame, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		g     *markov.Episodic
		T, K  int
		alpha float64
		stat  Statistic
		want  string
	}{
		{nil, 10, 2, 0, HindsightBR, "nil game"},
		{three, 10, 2, 0, HindsightBR, "3 players"},
		{g, 0, 2, 0, HindsightBR, "T = 0"},
		{g, 10, 0, 0, HindsightBR, "K = 0"},
		{g, 10, 2, -0.1, HindsightBR, "α = -0.1"},
		{g, 10, 2, 1.5, HindsightBR, "α = 1.5"},
		{g, 10, 2, math.NaN(), HindsightBR, "α = NaN"},
		{g, 10, 2, 0, Statistic(5), "Statistic(5)"},
	} {
		_, err := NewZeroSumAverage(c.g, c.T, c.K, c.alpha, c.stat)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewZeroSumAverage(T=%d, K=%d, α=%v, %v): error %v, want one naming %q", c.T, c.K, c.alpha, c.stat, err, c.want)
		}
	}

	m, err := NewZeroSumAverage(g, 100, 3, 0, HindsightBR)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Next(1); err == nil || !strings.Contains(err.Error(), "Next(1)") {
		t.Errorf("Next(1) before any result: %v", err)
	}
	if err := m.Observe(nil); err == nil || !strings.Contains(err.Error(), "game 0 is nil") {
		t.Errorf("Observe(nil): %v", err)
	}
	init, err := m.Next(0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := OOMDConfig{Eta: 0.02, T: 100}
	r0, err := ZeroSumOOMD(g, init, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Observe(r0); err != nil {
		t.Fatal(err)
	}
	// A result of another T (another number of stages) or another game
	// shape is rejected and names the game index; the sums are unchanged.
	other := metaPureGame(t, 4)
	uo, _ := UniformZeroSumInit(other, 100)
	rOther, err := ZeroSumOOMD(other, uo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ug, _ := UniformZeroSumInit(g, 300)
	rLong, err := ZeroSumOOMD(g, ug, OOMDConfig{Eta: 0.02, T: 300})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*ZeroSumResult{rOther, rLong} {
		err := m.Observe(r)
		if err == nil || !strings.Contains(err.Error(), "game 1 BRMu") {
			t.Errorf("Observe(mismatched result): %v", err)
		}
	}
	next, err := m.Next(1)
	if err != nil || !metaStagedEqual(next.Mu, AlphaGreedy(r0.BRMu, m.Alpha), 0) {
		t.Errorf("rejected results changed the sums (%v)", err)
	}
	m.Alpha = 2
	if _, err := m.Next(1); err == nil || !strings.Contains(err.Error(), "Alpha = 2") {
		t.Errorf("invalid Alpha field: %v", err)
	}
	m.Alpha, m.Stat = 0.3, Statistic(9)
	if _, err := m.Next(1); err == nil {
		t.Error("invalid Stat field: no error")
	}
	if err := m.Observe(r0); err == nil {
		t.Error("invalid Stat field in Observe: no error")
	}

	// A sequence mixing game shapes fails at the first mismatched game and
	// names it.
	m2, _ := NewZeroSumAverage(g, 100, 3, 0, HindsightBR)
	res, err := RunSequence([]*markov.Episodic{g, g, other}, ZeroSumAlgorithm[*markov.Episodic]{cfg}, Meta[ZeroSumInit, *ZeroSumResult](m2))
	if err == nil || !strings.Contains(err.Error(), "game 2") || len(res) != 2 {
		t.Errorf("mixed shapes: %d results, error %v", len(res), err)
	}
}

// TestMetaBeatsIndividual checks meta-learning against individual learning on the
// deterministic golden setting G-ZS2: identical games (σ = 0) built from the
// placeholder base "pure", whose stage games have strict pure equilibria,
// H = 10, T = 1000, η = 0.02. "s_1 = s_0" there is the start state (s_1 in
// the paper's notation): the two states keep their own reward matrices,
// which reproduces the individual golden values.
func TestMetaBeatsIndividual(t *testing.T) {
	const K, H, T = 3, 10, 1000
	cps := []int{10, 20, 50, 100, 200, 500, 1000}
	g := metaPureGame(t, H)
	games := []*markov.Episodic{g, g, g}
	learner := ZeroSumAlgorithm[*markov.Episodic]{OOMDConfig{Eta: 0.02, T: T, Checkpoints: cps}}
	uni, err := UniformZeroSumInit(g, T)
	if err != nil {
		t.Fatal(err)
	}
	indiv, err := RunSequence(games, learner, Meta[ZeroSumInit, *ZeroSumResult](Fixed[ZeroSumInit, *ZeroSumResult]{uni}))
	if err != nil {
		t.Fatal(err)
	}
	for _, alpha := range []float64{0, 1 / math.Sqrt(10)} {
		m, err := NewZeroSumAverage(g, T, K, alpha, HindsightBR)
		if err != nil {
			t.Fatal(err)
		}
		meta, err := RunSequence(games, learner, Meta[ZeroSumInit, *ZeroSumResult](m))
		if err != nil {
			t.Fatal(err)
		}
		if d := mustDelta(t)(DeltaMuNu(meta)); d > 1e-12 {
			t.Errorf("Δ_{μ,ν} of identical games = %v, want 0", d)
		}
		L1 := meta[0].Schedule[0].Len
		for c, tc := range cps {
			var mi, mm float64
			for k := 1; k < K; k++ {
				mi += indiv[k].Checkpoints[c].Gap / (K - 1)
				mm += meta[k].Checkpoints[c].Gap / (K - 1)
			}
			t.Logf("α = %.4f, t = %4d: mean NE-gap of games k ≥ 2: meta %.6f, individual %.6f", m.Alpha, tc, mm, mi)
			if tc >= 2*L1 && !(mm < mi) {
				t.Errorf("α = %v, t = %d: meta gap %v is not below individual %v", m.Alpha, tc, mm, mi)
			}
			if tc <= L1 && math.Abs(mm-mi) > 1e-12 {
				t.Errorf("t = %d (stage 1): meta %v and individual %v differ", tc, mm, mi)
			}
		}
		if alpha != 0 {
			// Golden values of G-ZS2 (α = 1/√10).
			for _, c := range []struct {
				idx         int
				indiv, meta float64
			}{{3, 3.402633, 1.297067}, {6, 3.16899, 0.973561}} {
				if got := indiv[0].Checkpoints[c.idx].Gap; math.Abs(got-c.indiv) > 1e-5 {
					t.Errorf("G-ZS2 individual gap at t = %d: %v, want %v", cps[c.idx], got, c.indiv)
				}
				if got := meta[1].Checkpoints[c.idx].Gap; math.Abs(got-c.meta) > 1e-5 {
					t.Errorf("G-ZS2 meta game 2 gap at t = %d: %v, want %v", cps[c.idx], got, c.meta)
				}
			}
		}
	}
}

// TestDeltaMuNu checks Δ_{μ,ν} by hand and its growth with the
// perturbation standard deviation.
func TestDeltaMuNu(t *testing.T) {
	one := func(p ...float64) *Staged { return nested.Dense4([][][][]float64{{{p}}}) } // 1 stage, 1 step, 1 state
	r := func(mu, nu *Staged) *ZeroSumResult { return &ZeroSumResult{BRMu: mu, BRNu: nu} }
	// μ: e_0, e_1 → mean (½, ½), KL = ln 2 each; ν identical → 0.
	got := mustDelta(t)(DeltaMuNu([]*ZeroSumResult{r(one(1, 0), one(0, 1)), r(one(0, 1), one(0, 1))}))
	if want := 2 * math.Ln2; math.Abs(got-want) > 1e-15 {
		t.Errorf("Δ = %v, want 2 ln 2 = %v", got, want)
	}
	// Aggregation Σ_τ Σ_h max_s: two states, the max is taken per (τ, h).
	two := func(a, b []float64) *Staged { return nested.Dense4([][][][]float64{{{a, b}}}) }
	got = mustDelta(t)(DeltaMuNu([]*ZeroSumResult{
		r(two([]float64{1, 0}, []float64{1, 0}), one(1)),
		r(two([]float64{1, 0}, []float64{0, 1}), one(1)),
		r(two([]float64{0, 1}, []float64{0, 1}), one(1)),
	}))
	// State 0: mean (⅔, ⅓): KLs ln 1.5, ln 1.5, ln 3. State 1: mean
	// (⅓, ⅔): ln 3, ln 1.5, ln 1.5. Max per game: ln 3, ln 1.5, ln 3.
	if want := 2*math.Log(3) + math.Log(1.5); math.Abs(got-want) > 1e-14 {
		t.Errorf("Δ = %v, want %v", got, want)
	}
	if mustDelta(t)(DeltaMuNu(nil)) != 0 || mustDelta(t)(DeltaPi(nil)) != 0 {
		t.Error("Δ of no results is not 0")
	}
	if _, err := DeltaMuNu([]*ZeroSumResult{r(one(1, 0), one(1)), r(one(1, 0, 0), one(1))}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("DeltaMuNu with mismatched shapes: %v", err)
	}
	if _, err := DeltaMuNu([]*ZeroSumResult{nil}); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("DeltaMuNu of a nil result: %v", err)
	}

	// Growth with σ, averaged over three seeds: Δ = 0 at σ = 0 (identical
	// games and best responses) and strictly increasing over
	// σ ∈ {0.2, 0.5, 1}, both for Δ_{μ,ν} and for Δ_π of the same games
	// cast as general-sum games.
	const K, H, T = 5, 3, 200
	base := metaPureGame(t, H)
	sds := []float64{0, 0.2, 0.5, 1}
	dmn := make([]float64, len(sds))
	dpi := make([]float64, len(sds))
	for seed := uint64(1); seed <= 3; seed++ {
		for i, sd := range sds {
			games, err := markov.PerturbedEpisodic(base, K, sd, rand.New(rand.NewPCG(seed, 2)))
			if err != nil {
				t.Fatal(err)
			}
			uni, _ := UniformZeroSumInit(base, T)
			res, err := RunSequence(games, ZeroSumAlgorithm[*markov.Episodic]{OOMDConfig{Eta: 0.02, T: T}}, Meta[ZeroSumInit, *ZeroSumResult](Fixed[ZeroSumInit, *ZeroSumResult]{uni}))
			if err != nil {
				t.Fatal(err)
			}
			gsGames := make([]*markov.Episodic, K)
			for k, g := range games {
				gsGames[k] = metaAsGeneralSum(t, g)
			}
			gu, _ := UniformGeneralSumInit(gsGames[0], T)
			gres, err := RunSequence(gsGames, GeneralSumAlgorithm[*markov.Episodic]{OOMDConfig{Eta: 0.1, T: T}}, Meta[[]*Staged, *GeneralSumResult](Fixed[[]*Staged, *GeneralSumResult]{gu}))
			if err != nil {
				t.Fatal(err)
			}
			dmn[i] += mustDelta(t)(DeltaMuNu(res)) / 3
			dpi[i] += mustDelta(t)(DeltaPi(gres)) / 3
		}
	}
	t.Logf("σ = %v: mean Δ_{μ,ν} = %.2f, mean Δ_π = %.2f", sds, dmn, dpi)
	if dmn[0] > 1e-12 || dpi[0] > 1e-12 {
		t.Errorf("Δ of identical games: Δ_{μ,ν} = %v, Δ_π = %v, want 0", dmn[0], dpi[0])
	}
	for i := 1; i < len(sds); i++ {
		if !(dmn[i] > dmn[i-1]) || !(dpi[i] > dpi[i-1]) {
			t.Errorf("Δ does not grow from σ = %v to %v: Δ_{μ,ν} %v → %v, Δ_π %v → %v", sds[i-1], sds[i], dmn[i-1], dmn[i], dpi[i-1], dpi[i])
		}
	}
}

func TestDeltaPiByHand(t *testing.T) {
	r := func(br ...*Staged) *GeneralSumResult { return &GeneralSumResult{BR: br} }
	one := func(p ...float64) *Staged { return nested.Dense4([][][][]float64{{{p}}}) }
	// Player 0: e_0, e_0, e_1 → mean (⅔, ⅓): ln 1.5 + ln 1.5 + ln 3.
	// Player 1: uniform each time → 0.
	got := mustDelta(t)(DeltaPi([]*GeneralSumResult{
		r(one(1, 0), one(0.5, 0.5)),
		r(one(1, 0), one(0.5, 0.5)),
		r(one(0, 1), one(0.5, 0.5)),
	}))
	if want := 2*math.Log(1.5) + math.Log(3); math.Abs(got-want) > 1e-14 {
		t.Errorf("Δ_π = %v, want %v", got, want)
	}
	if _, err := DeltaPi([]*GeneralSumResult{r(one(1, 0)), r(one(1, 0), one(1))}); !errors.Is(err, icrl.ErrInvalid) {
		t.Errorf("DeltaPi with mismatched players: %v", err)
	}
}

// TestGeneralSumAverage checks the Theorem 6 meta-update: uniform first,
// Next(1) = [BR of game 0]_α exactly, the α/A_i floor, and shape errors.
func TestGeneralSumAverage(t *testing.T) {
	const K, T = 3, 100
	rng := rand.New(rand.NewPCG(5, 6))
	base, err := markov.RandomEpisodic([]int{2, 3, 2}, 2, 2, markov.GeneralSumGame, rng)
	if err != nil {
		t.Fatal(err)
	}
	games, err := markov.PerturbedEpisodic(base, K, 0.1, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, stat := range []Statistic{HindsightBR, StageAverage} {
		m, err := NewGeneralSumAverage(base, T, K, 0, stat)
		if err != nil {
			t.Fatal(err)
		}
		var inits [][]*Staged
		cfg := OOMDConfig{Eta: 0.1, T: T}
		var results []*GeneralSumResult
		for k, g := range games {
			init, err := m.Next(k)
			if err != nil {
				t.Fatal(err)
			}
			inits = append(inits, init)
			r, err := GeneralSumOOMD(g, init, cfg)
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, r)
			if err := m.Observe(r); err != nil {
				t.Fatal(err)
			}
		}
		uni, _ := UniformGeneralSumInit(base, T)
		for i := range 3 {
			if !metaStagedEqual(inits[0][i], uni[i], 0) {
				t.Errorf("%v: Next(0) player %d is not uniform", stat, i)
			}
			x := results[0].BR[i]
			if stat == StageAverage {
				x = results[0].Avg[i]
			}
			if !metaStagedEqual(inits[1][i], AlphaGreedy(x, m.Alpha), 0) {
				t.Errorf("%v: Next(1) player %d is not [statistic of game 0]_α", stat, i)
			}
			floor := m.Alpha/float64(base.Actions(game.Player(i))) - 1e-17
			for k := range inits {
				for _, v := range inits[k][i].Data() {
					if v < floor {
						t.Fatalf("%v: init of game %d player %d has entry %v < α/A_i", stat, k, i, v)
					}
				}
			}
		}
	}
	m, _ := NewGeneralSumAverage(base, T, K, 0, HindsightBR)
	if err := m.Observe(nil); err == nil {
		t.Error("Observe(nil): no error")
	}
	if err := m.Observe(&GeneralSumResult{BR: []*Staged{nil}}); err == nil || !strings.Contains(err.Error(), "game 0 BR has 1 players, want 3") {
		t.Errorf("Observe(wrong players): %v", err)
	}
	bad := &GeneralSumResult{BR: []*Staged{
		UniformStaged(2, 2, 2, 2), UniformStaged(2, 2, 2, 3), UniformStaged(2, 2, 2, 2),
	}}
	if err := m.Observe(bad); err == nil || !strings.Contains(err.Error(), "game 0 BR[player 0]") {
		t.Errorf("Observe(wrong stages): %v", err)
	}
	if _, err := m.Next(1); err == nil {
		t.Error("Next(1) with no observed result: no error")
	}
	if _, err := NewGeneralSumAverage(nil, T, K, 0, HindsightBR); err == nil {
		t.Error("nil game: no error")
	}
	if _, err := NewGeneralSumAverage(base, T, K, -1, HindsightBR); err == nil {
		t.Error("α = −1: no error")
	}
}

// metaTeamGame is the F.2 base game (App. F.2, Table 2) with the missing
// (a_1, b_1) entry at s1 set to the placeholder 0.8 (the paper's Table 2 lacks it;
// not the paper's value), the F.1 transitions, start s0, H steps.
func metaTeamGame(t testing.TB, H int) *markov.Episodic {
	t.Helper()
	rew := make([][][]float64, H)
	for h := range rew {
		rew[h] = [][]float64{{0.1, 0.5, 0.5, 1}, {0.8, 0.2, 0.2, 0.8}}
	}
	g, err := tables.Team([]int{2, 2}, 0, rew, tables.TwoState(1))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestWarmStart checks the warm-start meta-update of paper §4.1: uniform first, then the previous last iterate, and the F.2 smoke
// claim (meta below individual in mean NE-gap at
// t ∈ {0, 10, 50} on games k ≥ 2).
func TestWarmStart(t *testing.T) {
	const K, H = 4, 10
	cps := []int{0, 10, 50}
	base := metaTeamGame(t, H)
	games, err := markov.PerturbedEpisodic(base, K, 0.1, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	learner := QAscentAlgorithm[*markov.Episodic]{QAscentConfig{Alpha: 0.05, T: 50, Checkpoints: cps}}
	w, err := NewWarmStart(base)
	if err != nil {
		t.Fatal(err)
	}
	var inits []markov.Product
	var meta []*QAscentResult
	for k, g := range games {
		init, err := w.Next(k)
		if err != nil {
			t.Fatal(err)
		}
		inits = append(inits, init)
		r, err := learner.Run(g, init)
		if err != nil {
			t.Fatal(err)
		}
		meta = append(meta, r)
		if err := w.Observe(r); err != nil {
			t.Fatal(err)
		}
	}
	if w.Observed() != K {
		t.Errorf("Observed = %d", w.Observed())
	}
	for i, p := range inits[0] {
		if u := base.UniformProduct()[i]; !slices.Equal(p.Shape(), u.Shape()) || !slices.Equal(p.Data(), u.Data()) {
			t.Errorf("Next(0) player %d is not uniform", i)
		}
	}
	for k := 1; k < K; k++ {
		for i := range inits[k] {
			for h := range H {
				for s := range 2 {
					if !slices.Equal(inits[k][i].Row(h, s), meta[k-1].Last[i].Row(h, s)) {
						t.Fatalf("Next(%d) player %d step %d state %d is not the last iterate of game %d", k, i, h, s, k-1)
					}
				}
			}
		}
	}
	// Next returns a copy.
	next, _ := w.Next(K)
	next[0].Row(0, 0)[0] = 42
	if meta[K-1].Last[0].At(0, 0, 0) == 42 {
		t.Error("Next aliases the observed last iterate")
	}

	indiv, err := RunSequence(games, learner, Meta[markov.Product, *QAscentResult](Fixed[markov.Product, *QAscentResult]{base.UniformProduct()}))
	if err != nil {
		t.Fatal(err)
	}
	for c, tc := range cps {
		var mi, mm float64
		for k := 1; k < K; k++ {
			mi += indiv[k].Checkpoints[c].CoopGap / (K - 1)
			mm += meta[k].Checkpoints[c].CoopGap / (K - 1)
		}
		t.Logf("t = %2d: mean F.2 NE-gap of games k ≥ 2: warm start %.4f, individual %.4f", tc, mm, mi)
		if !(mm < mi) {
			t.Errorf("t = %d: warm-start gap %v is not below individual %v", tc, mm, mi)
		}
	}

	// Errors: order, nil, shapes (naming the game index).
	w2, _ := NewWarmStart(base)
	if _, err := w2.Next(1); err == nil || !strings.Contains(err.Error(), "Next(1)") {
		t.Errorf("Next(1) first: %v", err)
	}
	if err := w2.Observe(nil); err == nil || !strings.Contains(err.Error(), "game 0 is nil") {
		t.Errorf("Observe(nil): %v", err)
	}
	short := metaTeamGame(t, 3)
	if err := w2.Observe(&QAscentResult{Last: short.UniformProduct()}); err == nil || !strings.Contains(err.Error(), "game 0 Last player 0 has shape [3 2 2], want [10 2 2]") {
		t.Errorf("Observe(wrong horizon): %v", err)
	}
	if err := w2.Observe(&QAscentResult{Last: base.UniformProduct()[:1]}); err == nil || !strings.Contains(err.Error(), "1 players, want 2") {
		t.Errorf("Observe(wrong players): %v", err)
	}
	if _, err := NewWarmStart(nil); err == nil {
		t.Error("NewWarmStart(nil): no error")
	}
	w3, _ := NewWarmStart(base)
	res, err := RunSequence([]*markov.Episodic{base, base, short}, learner, Meta[markov.Product, *QAscentResult](w3))
	if err == nil || !strings.Contains(err.Error(), "game 2") || len(res) != 2 {
		t.Errorf("mixed shapes: %d results, error %v", len(res), err)
	}
}

// mustDelta returns a function that unwraps a (Δ, error) pair, failing the
// test on an error.
func mustDelta(t *testing.T) func(float64, error) float64 {
	return func(d float64, err error) float64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
}
