package nonstationary

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/learner/bandit"
)

// mstStub is a scripted base learner for the MALG and MASTER tests: it
// plays arm obs mod K, reports the optimistic value aux(obs) (obs = the
// number of observations since its last Reset), checks that it is called
// with its own round counter, and rejects negative or non-finite rewards.
type mstStub struct {
	k      int
	aux    func(obs int) float64
	obs    int
	sum    float64
	resets int
	lastT  int // local time of the last Act
}

func (s *mstStub) Reset() { s.obs, s.sum, s.lastT = 0, 0, 0; s.resets++ }

func (s *mstStub) Act(t int, actions [][]float64, rng *rand.Rand) (int, float64) {
	s.lastT = t
	return s.obs % s.k, s.aux(s.obs)
}

func (s *mstStub) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if t != s.obs+1 {
		return fmt.Errorf("mstStub: Observe(%d) after %d observations", t, s.obs)
	}
	if arm < 0 || arm >= s.k || math.IsNaN(reward) || math.IsInf(reward, 0) || reward < 0 {
		return errors.New("mstStub: bad feedback")
	}
	s.obs++
	s.sum += reward
	return nil
}

// mstStubFactory makes stubs with a constant optimistic value and counts
// the learners made.
func mstStubFactory(aux float64, made *int) bandit.Factory {
	return func() (bandit.Learner, error) {
		if made != nil {
			*made++
		}
		return &mstStub{k: 2, aux: func(int) float64 { return aux }}, nil
	}
}

// mstGreedy is a deterministic-given-rng stateful learner: it tries each
// arm once, then plays the best mean plus 1/sqrt(count), breaking ties with
// rng, and reports that index clipped to [0, 1] as its optimistic value.
type mstGreedy struct {
	sums   []float64
	counts []int
}

func newMstGreedy(k int) *mstGreedy {
	return &mstGreedy{sums: make([]float64, k), counts: make([]int, k)}
}

func (g *mstGreedy) Reset() {
	clear(g.sums)
	clear(g.counts)
}

func (g *mstGreedy) Act(t int, actions [][]float64, rng *rand.Rand) (int, float64) {
	best, arm := math.Inf(-1), 0
	for a := range g.sums {
		v := 2.0
		if g.counts[a] > 0 {
			v = g.sums[a]/float64(g.counts[a]) + 1/math.Sqrt(float64(g.counts[a]))
		}
		v += 1e-3 * rng.Float64() // random tie-break
		if v > best {
			best, arm = v, a
		}
	}
	return arm, math.Min(1, best)
}

func (g *mstGreedy) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if arm < 0 || arm >= len(g.sums) || math.IsNaN(reward) || math.IsInf(reward, 0) {
		return errors.New("mstGreedy: bad feedback")
	}
	g.sums[arm] += reward
	g.counts[arm]++
	return nil
}

func mstGreedyFactory(k int) bandit.Factory {
	return func() (bandit.Learner, error) { return newMstGreedy(k), nil }
}

// mstInvSqrt is ρ(t) = 1/√t (RhoSqrt(1, 0)).
func mstInvSqrt(t int) float64 { return 1 / math.Sqrt(float64(t)) }

// mstRhoUCB1 is UCB1's ρ(t) = sqrt(A log(T/δ)/t) + A log(T/δ)/t (Wei and Luo 2021, §2.1 and App. I).
func mstRhoUCB1(A, T int, delta float64) RhoFunc {
	c := float64(A) * math.Log(float64(T)/delta)
	return func(t int) float64 { return math.Sqrt(c/float64(t)) + c/float64(t) }
}

// mstFixture is the n = 4 schedule of Wei and Luo 2021, Fig. 2,
// in block-relative rounds.
var mstFixture = []Instance{
	{Order: 4, Start: 1},
	{Order: 2, Start: 5}, {Order: 2, Start: 13},
	{Order: 1, Start: 3}, {Order: 1, Start: 7},
	{Order: 0, Start: 2}, {Order: 0, Start: 6}, {Order: 0, Start: 9}, {Order: 0, Start: 13}, {Order: 0, Start: 14},
}

func mstShift(sched []Instance, start int) []Instance {
	out := make([]Instance, len(sched))
	for i, in := range sched {
		out[i] = Instance{Order: in.Order, Start: in.Start + start - 1}
	}
	return out
}

// TestMALGFixtureActiveSequence checks the fixture's property: the active
// sequence of the §2.5 schedule, the order-4 instance's four active rounds
// (1, 10, 11, 12) and that the order-0 instances at 13 and 14 are distinct,
// the second starting from scratch.
func TestMALGFixtureActiveSequence(t *testing.T) {
	type slot struct{ order, start int }
	want := []slot{ // rounds 1..16
		{4, 1}, {0, 2}, {1, 3}, {1, 3}, {2, 5}, {0, 6}, {1, 7}, {1, 7},
		{0, 9}, {4, 1}, {4, 1}, {4, 1}, {0, 13}, {0, 14}, {2, 13}, {2, 13},
	}
	for _, start := range []int{1, 17, 1000} {
		made := 0
		m, err := NewMALGFromSchedule(4, start, mstShift(mstFixture, start), mstStubFactory(0.5, &made))
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Instances()) != 10 {
			t.Fatalf("start %d: %d instances, want 10", start, len(m.Instances()))
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for r, w := range want {
			tt := start + r
			in := m.Active(tt)
			if in == nil || in.Order != w.order || in.Start != start+w.start-1 {
				t.Fatalf("start %d: Active(%d) = %+v, want order %d at %d", start, tt, in, w.order, start+w.start-1)
			}
			local := in.ActiveRounds + 1
			m.Act(tt, nil, rng)
			st := in.lrn.(*mstStub)
			if st.lastT != local || st.obs != local-1 {
				t.Fatalf("start %d round %d: instance called at local time %d with %d observations, want %d and %d", start, tt, st.lastT, st.obs, local, local-1)
			}
			if err := m.Observe(tt, nil, 0, 0.5); err != nil {
				t.Fatal(err)
			}
		}
		top := m.Active(start)
		if top.Order != 4 || top.ActiveRounds != 4 {
			t.Errorf("start %d: order-4 instance %+v, want 4 active rounds", start, top)
		}
		a13, a14 := m.Active(start+12), m.Active(start+13)
		if a13 == a14 || a13.ActiveRounds != 1 || a14.ActiveRounds != 1 {
			t.Errorf("start %d: order-0 instances at 13 and 14: %p %+v, %p %+v", start, a13, a13, a14, a14)
		}
		total := 0
		for _, in := range m.Instances() {
			total += in.ActiveRounds
		}
		if total != 16 {
			t.Errorf("start %d: active rounds sum to %d, want 16", start, total)
		}
		// At most n+2 learners exist at once thanks to recycling.
		if made > 6 {
			t.Errorf("start %d: factory called %d times, want at most 6", start, made)
		}
		// EndingAt (block-relative 8: O1[7,8], O2[5,8]; 16: O2[13,16], O4).
		for _, c := range []struct {
			r      int
			orders []int
		}{{8, []int{1, 2}}, {16, []int{2, 4}}, {13, []int{0}}, {12, nil}, {4, []int{1}}} {
			var got []int
			for _, in := range m.EndingAt(start + c.r - 1) {
				if in.End != start+c.r-1 {
					t.Errorf("EndingAt(%d) returned %+v", start+c.r-1, in)
				}
				got = append(got, in.Order)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.orders) {
				t.Errorf("start %d: EndingAt(rel %d) orders %v, want %v", start, c.r, got, c.orders)
			}
		}
		if m.Active(start-1) != nil || m.Active(start+16) != nil || m.EndingAt(start+16) != nil {
			t.Errorf("start %d: Active/EndingAt outside the block not nil", start)
		}
	}
}

// TestSchedulingProbs checks the scheduling probabilities (p_m = 2^{−(4−m)/2} for
// ρ = 1/√t, n = 4) and their value for UCB1.
func TestSchedulingProbs(t *testing.T) {
	for _, c := range []struct {
		n    int
		rho  RhoFunc
		want []float64
		tol  float64
	}{
		{4, mstInvSqrt, []float64{0.25, 0.3536, 0.5, 0.7071, 1}, 5e-5},
		{10, mstRhoUCB1(10, 1000, 1), []float64{0.0042, 0.0081, 0.0153, 0.0283, 0.0512, 0.0902, 0.1545, 0.2568, 0.4145, 0.6515, 1}, 5e-5},
	} {
		p, err := SchedulingProbs(c.n, c.rho)
		if err != nil {
			t.Fatal(err)
		}
		for m := range c.want {
			if math.Abs(p[m]-c.want[m]) > c.tol {
				t.Errorf("n=%d: p_%d = %.5f, want %.4f", c.n, m, p[m], c.want[m])
			}
		}
	}
}

// TestSchedulingProbsMonteCarlo checks the scheduling probabilities by drawing 10⁵
// MALGs with n = 4, ρ = 1/√t: the fraction of order-m slots scheduled is
// within ±0.005 of 2^{−(4−m)/2}.
func TestSchedulingProbsMonteCarlo(t *testing.T) {
	const runs = 100000
	rng := rand.New(rand.NewPCG(7, 8))
	f := mstStubFactory(0, nil)
	var count [5]int
	for range runs {
		m, err := NewMALG(4, 1, mstInvSqrt, f, rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range m.Instances() {
			count[in.Order]++
		}
	}
	for o := 0; o <= 4; o++ {
		got := float64(count[o]) / float64(runs*(int(1)<<(4-o)))
		want := math.Pow(2, -float64(4-o)/2)
		if math.Abs(got-want) > 0.005 {
			t.Errorf("order %d: scheduled fraction %.4f, want %.4f ± 0.005", o, got, want)
		}
	}
	if count[4] != runs {
		t.Errorf("order-4 instances %d, want exactly %d", count[4], runs)
	}
}

// TestMALGOneActivePerRound checks on random schedules that every round has
// exactly one shortest covering instance, Active and EndingAt agree with a
// brute-force search, each instance acts exactly in the rounds where it is
// active, and the active rounds sum to the block length.
func TestMALGOneActivePerRound(t *testing.T) {
	rhos := map[string]RhoFunc{
		"invsqrt": mstInvSqrt,
		"const":   func(int) float64 { return 1 },
		"ucb1":    mstRhoUCB1(10, 1000, 1),
		"inv":     func(t int) float64 { return 1 / float64(t) },
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for name, rho := range rhos {
		for n := 0; n <= 8; n++ {
			start := 1 + rng.IntN(100)
			m, err := NewMALG(n, start, rho, mstStubFactory(0.5, nil), rng)
			if err != nil {
				t.Fatal(err)
			}
			all := m.Instances()
			want := map[*Instance]int{}
			for tt := start; tt < start+1<<n; tt++ {
				var best *Instance
				perOrder := map[int]int{}
				var ending []*Instance
				for _, in := range all {
					if in.Covers(tt) {
						perOrder[in.Order]++
						if best == nil || in.Order < best.Order {
							best = in
						}
					}
					if in.End == tt {
						ending = append(ending, in)
					}
				}
				for o, c := range perOrder {
					if c != 1 {
						t.Fatalf("%s n=%d: %d order-%d instances cover %d", name, n, c, o, tt)
					}
				}
				if best == nil || m.Active(tt) != best {
					t.Fatalf("%s n=%d: Active(%d) = %+v, brute force %+v", name, n, tt, m.Active(tt), best)
				}
				if fmt.Sprint(m.EndingAt(tt)) != fmt.Sprint(ending) {
					t.Fatalf("%s n=%d: EndingAt(%d) = %v, brute force %v", name, n, tt, m.EndingAt(tt), ending)
				}
				want[best]++
				m.Act(tt, nil, rng)
				if err := m.Observe(tt, nil, 1, 0.25); err != nil {
					t.Fatal(err)
				}
			}
			total := 0
			for _, in := range all {
				if in.ActiveRounds != want[in] {
					t.Fatalf("%s n=%d: instance %+v active %d rounds, want %d", name, n, in, in.ActiveRounds, want[in])
				}
				total += in.ActiveRounds
			}
			if total != 1<<n {
				t.Fatalf("%s n=%d: active rounds sum to %d, want %d", name, n, total, 1<<n)
			}
			if name == "const" && len(all) != 1<<(n+1)-1 {
				t.Fatalf("const rho n=%d: %d instances, want all %d slots", n, len(all), 1<<(n+1)-1)
			}
		}
	}
}

// TestMALGReducesToBase checks that MALG with n = 0, and MALG whose
// schedule holds only the order-n instance, play exactly as the base
// learner alone (same arms, same optimistic values, same rng draws).
func TestMALGReducesToBase(t *testing.T) {
	reward := func(tt, arm int) float64 { return float64((tt*7+arm*3)%5) / 4 }
	for _, n := range []int{0, 5} {
		var m *MALG
		var err error
		if n == 0 {
			m, err = NewMALG(0, 1, mstInvSqrt, mstGreedyFactory(3), rand.New(rand.NewPCG(9, 9)))
		} else {
			m, err = NewMALGFromSchedule(n, 1, []Instance{{Order: n, Start: 1}}, mstGreedyFactory(3))
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Instances()) != 1 {
			t.Fatalf("n=%d: %d instances, want 1", n, len(m.Instances()))
		}
		base := newMstGreedy(3)
		r1, r2 := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
		for tt := 1; tt <= 1<<n; tt++ {
			a1, g1 := m.Act(tt, nil, r1)
			a2, g2 := base.Act(tt, nil, r2)
			if a1 != a2 || g1 != g2 {
				t.Fatalf("n=%d round %d: MALG (%d, %v), base (%d, %v)", n, tt, a1, g1, a2, g2)
			}
			if err := m.Observe(tt, nil, a1, reward(tt, a1)); err != nil {
				t.Fatal(err)
			}
			if err := base.Observe(tt, nil, a2, reward(tt, a2)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestMALGReset checks that Reset replays the block from scratch with the
// same schedule.
func TestMALGReset(t *testing.T) {
	m, err := NewMALG(6, 3, mstInvSqrt, mstGreedyFactory(4), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	play := func(rounds int) (trace []string) {
		rng := rand.New(rand.NewPCG(2, 2))
		for tt := 3; tt < 3+rounds; tt++ {
			in := m.Active(tt)
			arm, g := m.Act(tt, nil, rng)
			trace = append(trace, fmt.Sprintf("%d:%d/%d:%d:%.6f", tt, in.Order, in.Start, arm, g))
			if err := m.Observe(tt, nil, arm, float64(arm)/4); err != nil {
				t.Fatal(err)
			}
		}
		return trace
	}
	first := play(64)
	counts := fmt.Sprint(mstActiveRounds(m))
	m.Reset()
	for _, in := range m.Instances() {
		if in.ActiveRounds != 0 {
			t.Fatalf("after Reset: %+v", in)
		}
	}
	play(10) // a partial run, then Reset again
	m.Reset()
	second := play(64)
	if fmt.Sprint(first) != fmt.Sprint(second) {
		t.Errorf("replay after Reset differs:\n%v\n%v", first, second)
	}
	if got := fmt.Sprint(mstActiveRounds(m)); got != counts {
		t.Errorf("active rounds after replay %s, want %s", got, counts)
	}
}

func mstActiveRounds(m *MALG) []int {
	var c []int
	for _, in := range m.Instances() {
		c = append(c, in.ActiveRounds)
	}
	return c
}

// TestMALGErrors checks that constructors and Observe reject bad input
// with an error naming it, leaving the MALG usable.
func TestMALGErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	f := mstStubFactory(0.5, nil)
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"negative n", func() error { _, err := NewMALG(-1, 1, mstInvSqrt, f, rng); return err }, "order n"},
		{"huge n", func() error { _, err := NewMALG(31, 1, mstInvSqrt, f, rng); return err }, "order n"},
		{"blockStart", func() error { _, err := NewMALG(2, 0, mstInvSqrt, f, rng); return err }, "blockStart"},
		{"nil rho", func() error { _, err := NewMALG(2, 1, nil, f, rng); return err }, "rho"},
		{"nil factory", func() error { _, err := NewMALG(2, 1, mstInvSqrt, nil, rng); return err }, "factory"},
		{"nil rng", func() error { _, err := NewMALG(2, 1, mstInvSqrt, f, nil); return err }, "rng"},
		{"zero rho", func() error {
			_, err := NewMALG(2, 1, func(int) float64 { return 0 }, f, rng)
			return err
		}, "rho(1)"},
		{"increasing rho", func() error {
			_, err := NewMALG(2, 1, func(t int) float64 { return float64(t) }, f, rng)
			return err
		}, "non-increasing"},
		{"factory error", func() error {
			_, err := NewMALG(2, 1, mstInvSqrt, func() (bandit.Learner, error) { return nil, errors.New("boom") }, rng)
			return err
		}, "boom"},
		{"factory nil learner", func() error {
			_, err := NewMALG(2, 1, mstInvSqrt, func() (bandit.Learner, error) { return nil, nil }, rng)
			return err
		}, "nil learner"},
		{"schedule order", func() error {
			_, err := NewMALGFromSchedule(2, 1, []Instance{{Order: 3, Start: 1}}, f)
			return err
		}, "Order"},
		{"schedule misaligned", func() error {
			_, err := NewMALGFromSchedule(2, 1, []Instance{{Order: 2, Start: 1}, {Order: 1, Start: 2}}, f)
			return err
		}, "aligned"},
		{"schedule End", func() error {
			_, err := NewMALGFromSchedule(2, 1, []Instance{{Order: 2, Start: 1, End: 3}}, f)
			return err
		}, "End"},
		{"schedule duplicate", func() error {
			_, err := NewMALGFromSchedule(2, 1, []Instance{{Order: 2, Start: 1}, {Order: 0, Start: 2}, {Order: 0, Start: 2}}, f)
			return err
		}, "two order-0"},
		{"schedule uncovered", func() error {
			_, err := NewMALGFromSchedule(2, 1, []Instance{{Order: 1, Start: 1}}, f)
			return err
		}, "uncovered"},
	} {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}

	// Observe errors leave the MALG unchanged.
	calls, fail := 0, true
	flaky := func() (bandit.Learner, error) {
		calls++
		if calls > 1 && fail {
			return nil, errors.New("flaky")
		}
		return &mstStub{k: 2, aux: func(int) float64 { return 1 }}, nil
	}
	m, err := NewMALGFromSchedule(4, 1, mstFixture, flaky)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Observe(1, nil, 0, 0); err == nil {
		t.Error("Observe without Act: no error")
	}
	m.Act(1, nil, rng)
	for _, r := range []float64{math.NaN(), math.Inf(1)} {
		if err := m.Observe(1, nil, 0, r); err == nil {
			t.Errorf("reward %v: no error", r)
		}
	}
	if err := m.Observe(1, nil, 0, 0.5); err == nil || !strings.Contains(err.Error(), "flaky") {
		t.Errorf("factory failure for round 2: error %v", err)
	}
	fail = false
	if err := m.Observe(1, nil, 0, -1); err == nil { // the stub rejects it
		t.Error("base learner's rejection not returned")
	}
	if got := m.Active(1).ActiveRounds; got != 0 {
		t.Errorf("after failed Observe: ActiveRounds %d, want 0", got)
	}
	if err := m.Observe(1, nil, 0, 0.5); err != nil {
		t.Fatal(err)
	}
	if got := m.Active(1).ActiveRounds; got != 1 {
		t.Errorf("ActiveRounds %d, want 1", got)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Act out of sequence did not panic")
			}
		}()
		m.Act(3, nil, rng)
	}()
}
