package nonstationary

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/learner/bandit"
)

// RhoFunc is the function ρ of Wei and Luo (2021, Assumption 1): a base
// learner run alone for t rounds on a stationary stretch has
// (1/t)·Σ_{τ≤t}(f̃_τ − R_τ) ≤ ρ(t) with high probability. It must be
// positive and non-increasing in t ≥ 1, and C(t) = t·ρ(t) should be
// non-decreasing. MALG uses only the ratios ρ(2^n)/ρ(2^m) (its scheduling
// probabilities); MASTER uses ρ itself in its two tests.
type RhoFunc func(t int) float64

// MaxMALGOrder is the largest block order n that [NewMALG] accepts: a block
// of 2^30 rounds.
const MaxMALGOrder = 30

// An Instance is one scheduled instance of the base learner in a MALG
// block (Wei and Luo 2021, Procedure 1): an "order-m instance" that may act
// on the global rounds [Start, End], End = Start + 2^Order − 1. It acts
// only in the rounds where it is the shortest scheduled instance covering
// the round, and is paused (its state frozen) in between.
type Instance struct {
	// Order is m, the instance covers 2^Order rounds.
	Order int
	// Start and End are the first and the last global round the instance
	// covers (alg.s and alg.e of Wei and Luo, shifted to global time).
	Start, End int
	// ActiveRounds counts the rounds in which the instance has acted so
	// far, that is its own (local) round counter.
	ActiveRounds int

	// lrn is the base learner, assigned when the instance first becomes
	// active and returned to the pool once the instance has ended.
	lrn bandit.Learner
}

// Covers reports whether the instance covers global round t.
func (in *Instance) Covers(t int) bool { return in.Start <= t && t <= in.End }

// MALG is the multi-scale wrapper of Wei and Luo (2021): Procedure 1
// schedules, for a block of 2^n rounds starting at global round t_n, base
// learner instances of every order m = 0..n, and Algorithm 2 plays, at
// each round t, the shortest scheduled instance covering t (also
// nonstationary-transformers-master, App. C, Algorithm 1). The instance acts,
// reports the optimistic value g̃_t = its own f̃_t, and receives the
// feedback; every other instance is paused and later resumes from its
// frozen state, "as if the two sides were concatenated".
//
// Procedure 1: for τ = 0..2^n−1 and m = n, n−1, ..., 0, if τ mod 2^m = 0
// an order-m instance covering the block-relative rounds [τ+1, τ+2^m] is
// scheduled with probability ρ(2^n)/ρ(2^m). The order-n instance covers the
// whole block and is scheduled with probability 1, so every round has an
// active instance; same-order windows are disjoint, so it is unique.
//
// Resolutions of points Wei and Luo (2021) leave open:
//   - Random draws: each order-m slot is scheduled independently with
//     probability p_m, as in Procedure 1, but the draws are made order by
//     order (m = n, …, 0) with geometric skips — one uniform draw per
//     scheduled instance rather than per slot — so drawing a schedule
//     costs O(number of instances), not O(2^n). Slots with p_m = 1 take no
//     draw. The schedule's law is exactly Procedure 1's; only the order in
//     which the rng is consumed differs.
//   - Instance time: an instance is called with its own round counter
//     (1, 2, … over the rounds in which it acts), not the global round,
//     which is how the paper's concatenation is realised; a fresh instance
//     therefore always starts at its round 1. The action set and the
//     rng are passed through unchanged.
//   - Fresh instances: learners are obtained from the factory lazily, when
//     an instance first acts, and the learner of an instance that has ended
//     is Reset and reused by a later instance. A reused learner is in its
//     initial state (the [bandit.Learner] Reset contract), so this
//     is equivalent to a new instance; at most n+2 learners exist at once.
//
// MALG implements [bandit.Learner] over its own block: Act(t) and
// Observe(t) must be called for t = t_n, t_n+1, … in order (Act may be
// repeated). Per round the cost is amortised O(1) plus the base learner's
// (a bit mask of the scheduled slots covering the round gives the active
// instance); drawing the schedule costs O(number of instances) once, and
// the schedule is stored in O(number of instances) memory. A MALG is not
// safe for concurrent use.
type MALG struct {
	n          int
	blockStart int
	blockEnd   int
	// byOrder[m] lists the scheduled order-m instances by start time.
	byOrder [][]*Instance
	// Sequential play: cov[m] is the order-m instance covering the round
	// next (nil if that slot is not scheduled), bit m of mask is set iff
	// cov[m] != nil, and nxt[m] indexes the first order-m instance that
	// starts after next. The active instance is cov[TrailingZeros(mask)].
	cov   []*Instance
	mask  uint64
	nxt   []int
	ended []*Instance // instances that ended at the last observed round
	// rhoPow[m] = ρ(2^m), prob[m] = ρ(2^n)/ρ(2^m).
	rhoPow, prob []float64

	next   int       // the round expected next by Act/Observe
	active *Instance // the instance chosen for round next (nil before Act)

	src *malgSource
}

// malgSource hands out base learners: recycled ones first, then new ones
// from the factory. MASTER shares one source across its blocks.
type malgSource struct {
	f    bandit.Factory
	pool []bandit.Learner
}

func (s *malgSource) get() (bandit.Learner, error) {
	if k := len(s.pool); k > 0 {
		l := s.pool[k-1]
		s.pool = s.pool[:k-1]
		return l, nil
	}
	l, err := s.f()
	if err != nil {
		return nil, fmt.Errorf("nonstationary: base learner factory: %w", err)
	}
	if l == nil {
		return nil, fmt.Errorf("%w: base learner factory returned a nil learner", icrl.ErrNil)
	}
	return l, nil
}

func (s *malgSource) put(l bandit.Learner) {
	l.Reset()
	s.pool = append(s.pool, l)
}

// SchedulingProbs returns the probabilities p_m = ρ(2^n)/ρ(2^m), m = 0..n,
// with which Procedure 1 of Wei and Luo (2021) schedules each order-m slot
// of a block of order n. It returns an error if n is out
// of [0, MaxMALGOrder], rho is nil, a ρ(2^m) is not finite and positive, or
// ρ increases (some p_m > 1 beyond rounding, which is clamped to 1).
func SchedulingProbs(n int, rho RhoFunc) ([]float64, error) {
	_, p, err := malgProbs(n, rho)
	return p, err
}

func malgProbs(n int, rho RhoFunc) (rhoPow, prob []float64, err error) {
	if n < 0 || n > MaxMALGOrder {
		return nil, nil, fmt.Errorf("%w: MALG order n = %d out of [0, %d]", icrl.ErrInvalid, n, MaxMALGOrder)
	}
	if rho == nil {
		return nil, nil, fmt.Errorf("%w: MALG rho is nil", icrl.ErrNil)
	}
	rhoPow = make([]float64, n+1)
	for m := 0; m <= n; m++ {
		v := rho(1 << m)
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return nil, nil, fmt.Errorf("%w: rho(%d) = %v must be finite and positive", icrl.ErrInvalid, 1<<m, v)
		}
		rhoPow[m] = v
	}
	prob = make([]float64, n+1)
	for m := 0; m <= n; m++ {
		p := rhoPow[n] / rhoPow[m]
		if p > 1+1e-12 {
			return nil, nil, fmt.Errorf("%w: rho must be non-increasing, but rho(%d) = %v < rho(%d) = %v", icrl.ErrInvalid, 1<<m, rhoPow[m], 1<<n, rhoPow[n])
		}
		prob[m] = math.Min(p, 1)
	}
	return rhoPow, prob, nil
}

// NewMALG draws the schedule of a MALG block of 2^n rounds starting at the
// global round blockStart ≥ 1 by Procedure 1 of Wei and Luo (2021), using
// rng for the draws, and returns the MALG ready to play round blockStart.
// It calls the factory once (for the instance that acts first). It
// returns an error if n is out of [0, MaxMALGOrder], blockStart < 1, rho,
// f or rng is nil, ρ is not positive and non-increasing on 1, 2, …, 2^n,
// or the factory fails.
func NewMALG(n, blockStart int, rho RhoFunc, f bandit.Factory, rng *rand.Rand) (*MALG, error) {
	if f == nil {
		return nil, fmt.Errorf("%w: MALG factory is nil", icrl.ErrNil)
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: MALG rng is nil", icrl.ErrNil)
	}
	return newMALG(n, blockStart, rho, &malgSource{f: f}, rng)
}

func newMALG(n, blockStart int, rho RhoFunc, src *malgSource, rng *rand.Rand) (*MALG, error) {
	if blockStart < 1 {
		return nil, fmt.Errorf("%w: MALG blockStart = %d must be at least 1", icrl.ErrInvalid, blockStart)
	}
	rhoPow, prob, err := malgProbs(n, rho)
	if err != nil {
		return nil, err
	}
	m := &MALG{n: n, blockStart: blockStart, blockEnd: blockStart + 1<<n - 1, rhoPow: rhoPow, prob: prob, src: src}
	m.byOrder = make([][]*Instance, n+1)
	for o := n; o >= 0; o-- {
		slots := 1 << (n - o)
		p := prob[o]
		for j := 0; j < slots; j++ {
			if p < 1 {
				// Skip the slots that fail their Bernoulli(p) draw: the number
				// of failures before a success is geometric,
				// P(skip ≥ k) = P(U ≤ (1−p)^k) = (1−p)^k.
				u := 1 - rng.Float64() // in (0, 1]
				skip := math.Floor(math.Log(u) / math.Log1p(-p))
				if skip >= float64(slots-j) {
					break
				}
				j += int(skip)
			}
			s := blockStart + j<<o
			m.byOrder[o] = append(m.byOrder[o], &Instance{Order: o, Start: s, End: s + 1<<o - 1})
		}
	}
	if err := m.begin(); err != nil {
		return nil, err
	}
	return m, nil
}

// NewMALGFromSchedule returns a MALG of order n starting at blockStart
// that plays the given schedule instead of drawing one, for fixtures such
// as the n = 4 realisation of Wei and Luo's Figure 2. Only
// Order, Start and End of the instances are read (End may be 0, meaning
// Start + 2^Order − 1); the scheduling probabilities are not used. It
// returns an error if an instance's order is out of [0, n], it is not
// aligned (Start − blockStart a multiple of 2^Order) or lies outside the
// block, two instances share a slot, some round of the block is not
// covered, f is nil, or the factory fails.
func NewMALGFromSchedule(n, blockStart int, sched []Instance, f bandit.Factory) (*MALG, error) {
	if n < 0 || n > MaxMALGOrder {
		return nil, fmt.Errorf("%w: MALG order n = %d out of [0, %d]", icrl.ErrInvalid, n, MaxMALGOrder)
	}
	if blockStart < 1 {
		return nil, fmt.Errorf("%w: MALG blockStart = %d must be at least 1", icrl.ErrInvalid, blockStart)
	}
	if f == nil {
		return nil, fmt.Errorf("%w: MALG factory is nil", icrl.ErrNil)
	}
	m := &MALG{n: n, blockStart: blockStart, blockEnd: blockStart + 1<<n - 1, src: &malgSource{f: f}}
	m.byOrder = make([][]*Instance, n+1)
	m.rhoPow = make([]float64, n+1)
	m.prob = make([]float64, n+1)
	for i := range m.prob {
		m.rhoPow[i], m.prob[i] = math.NaN(), math.NaN()
	}
	for i, in := range sched {
		o := in.Order
		if o < 0 || o > n {
			return nil, fmt.Errorf("%w: schedule[%d]: Order = %d out of [0, %d]", icrl.ErrInvalid, i, o, n)
		}
		end := in.Start + 1<<o - 1
		if in.End != 0 && in.End != end {
			return nil, fmt.Errorf("%w: schedule[%d]: End = %d, want Start + 2^Order − 1 = %d", icrl.ErrInvalid, i, in.End, end)
		}
		if in.Start < blockStart || end > m.blockEnd || (in.Start-blockStart)%(1<<o) != 0 {
			return nil, fmt.Errorf("%w: schedule[%d]: order-%d instance at Start = %d is not an aligned slot of the block [%d, %d]", icrl.ErrInvalid, i, o, in.Start, blockStart, m.blockEnd)
		}
		m.byOrder[o] = append(m.byOrder[o], &Instance{Order: o, Start: in.Start, End: end})
	}
	for o, list := range m.byOrder {
		sort.Slice(list, func(i, j int) bool { return list[i].Start < list[j].Start })
		for i := 1; i < len(list); i++ {
			if list[i].Start == list[i-1].Start {
				return nil, fmt.Errorf("%w: schedule has two order-%d instances at Start = %d", icrl.ErrInvalid, o, list[i].Start)
			}
		}
	}
	for t := blockStart; t <= m.blockEnd; t++ {
		if m.Active(t) == nil {
			return nil, fmt.Errorf("%w: schedule leaves round %d of the block [%d, %d] uncovered", icrl.ErrInvalid, t, blockStart, m.blockEnd)
		}
	}
	if err := m.begin(); err != nil {
		return nil, err
	}
	return m, nil
}

// begin prepares sequential play from the block start and gives the first
// active instance a learner.
func (m *MALG) begin() error {
	if m.cov == nil {
		m.cov = make([]*Instance, m.n+1)
		m.nxt = make([]int, m.n+1)
		m.ended = make([]*Instance, 0, m.n+1)
	}
	m.next = m.blockStart
	m.active = nil
	m.mask = 0
	m.ended = m.ended[:0]
	for o, list := range m.byOrder {
		m.cov[o], m.nxt[o] = nil, 0
		if len(list) > 0 && list[0].Start == m.blockStart {
			m.cov[o], m.nxt[o] = list[0], 1
			m.mask |= 1 << o
		}
	}
	in := m.cov[bits.TrailingZeros64(m.mask)]
	if in.lrn == nil {
		l, err := m.src.get()
		if err != nil {
			return err
		}
		in.lrn = l
	}
	return nil
}

// turnover returns the highest order whose slot ends at block-relative
// round k (1-based) and, when k < 2^n, the next slot starts at k+1: the
// orders 0..turnover(k) change between rounds k and k+1.
func (m *MALG) turnover(k int) int {
	return min(m.n, bits.TrailingZeros(uint(k)))
}

// peekNext returns the active instance of round next+1 without changing
// the sequential state; next must be before the block end.
func (m *MALG) peekNext() *Instance {
	t := m.next + 1
	top := m.turnover(t - m.blockStart)
	mask := m.mask &^ (1<<(top+1) - 1)
	for o := 0; o <= top; o++ {
		if list := m.byOrder[o]; m.nxt[o] < len(list) && list[m.nxt[o]].Start == t {
			mask |= 1 << o
		}
	}
	o := bits.TrailingZeros64(mask)
	if o <= top {
		return m.byOrder[o][m.nxt[o]]
	}
	return m.cov[o]
}

// step moves the sequential state from round next to next+1, recording in
// ended the instances whose last round was next.
func (m *MALG) step() {
	k := m.next - m.blockStart + 1
	top := m.turnover(k)
	m.ended = m.ended[:0]
	for o := 0; o <= top; o++ {
		if in := m.cov[o]; in != nil {
			m.ended = append(m.ended, in)
		}
	}
	m.next++
	if m.next > m.blockEnd {
		m.mask = 0
		clear(m.cov)
		return
	}
	m.mask &^= 1<<(top+1) - 1
	for o := 0; o <= top; o++ {
		m.cov[o] = nil
		if list := m.byOrder[o]; m.nxt[o] < len(list) && list[m.nxt[o]].Start == m.next {
			m.cov[o] = list[m.nxt[o]]
			m.nxt[o]++
			m.mask |= 1 << o
		}
	}
}

// Order returns n, the block has 2^n rounds.
func (m *MALG) Order() int { return m.n }

// BlockStart returns t_n, the first global round of the block.
func (m *MALG) BlockStart() int { return m.blockStart }

// BlockEnd returns t_n + 2^n − 1, the last global round of the block.
func (m *MALG) BlockEnd() int { return m.blockEnd }

// Probs returns the scheduling probabilities p_m = ρ(2^n)/ρ(2^m), m = 0..n,
// used to draw the schedule (NaN for a MALG built from a schedule).
func (m *MALG) Probs() []float64 { return append([]float64(nil), m.prob...) }

// Instances returns the scheduled instances, by order and then by start.
// The pointers are the MALG's own: read them, do not modify them.
func (m *MALG) Instances() []*Instance {
	var all []*Instance
	for _, list := range m.byOrder {
		all = append(all, list...)
	}
	return all
}

// find returns the scheduled order-o instance covering t, or nil.
func (m *MALG) find(o, t int) *Instance {
	list := m.byOrder[o]
	i := sort.Search(len(list), func(i int) bool { return list[i].End >= t })
	if i < len(list) && list[i].Start <= t {
		return list[i]
	}
	return nil
}

// Active returns the instance that acts at global round t: the shortest
// scheduled instance covering t (Wei and Luo 2021, Algorithm 2). It returns
// nil if t is outside the block. It costs O(n log 2^n).
func (m *MALG) Active(t int) *Instance {
	if t < m.blockStart || t > m.blockEnd {
		return nil
	}
	for o := 0; o <= m.n; o++ {
		if in := m.find(o, t); in != nil {
			return in
		}
	}
	return nil
}

// EndingAt returns the scheduled instances whose last round is t, by
// increasing order: the instances that MASTER's Test 1 examines at t
// (whether or not they ever acted).
func (m *MALG) EndingAt(t int) []*Instance {
	var out []*Instance
	if t < m.blockStart || t > m.blockEnd {
		return nil
	}
	for o := 0; o <= m.n; o++ {
		if (t-m.blockStart+1)%(1<<o) != 0 {
			break
		}
		if in := m.find(o, t); in != nil && in.End == t {
			out = append(out, in)
		}
	}
	return out
}

// Act plays global round t, which must be the round after the last one
// observed (the block start at first): the active instance picks the arm
// at its own round ActiveRounds+1, and its optimistic value is returned as
// g̃_t. Act panics if t is out of sequence, a programmer error.
func (m *MALG) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	if t != m.next || t > m.blockEnd {
		panic(fmt.Sprintf("nonstationary: MALG.Act(%d) out of sequence: next round is %d, block [%d, %d]", t, m.next, m.blockStart, m.blockEnd))
	}
	in := m.cov[bits.TrailingZeros64(m.mask)]
	m.active = in
	return in.lrn.Act(in.ActiveRounds+1, actions, rng)
}

// Observe feeds back the reward of round t to the instance that acted at
// t (only that instance learns) and prepares the next round. It returns an
// error, leaving the MALG unchanged, if t is not the round last played by
// Act, the reward is not finite, the base learner rejects the feedback, or
// the factory fails to provide a learner for the next round.
func (m *MALG) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if t != m.next || m.active == nil {
		return fmt.Errorf("%w: MALG.Observe(%d) without Act(%d) (next round %d)", icrl.ErrInvalid, t, t, m.next)
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return fmt.Errorf("%w: MALG reward %v at round %d is not finite", icrl.ErrNotFinite, reward, t)
	}
	// Make sure the next round's instance has a learner before changing any
	// state, so that a factory failure leaves the MALG unchanged.
	var nextIn *Instance
	if t < m.blockEnd {
		nextIn = m.peekNext()
		if nextIn.lrn == nil && nextIn != m.active {
			l, err := m.src.get()
			if err != nil {
				return err
			}
			nextIn.lrn = l
		}
	}
	in := m.active
	if err := in.lrn.Observe(in.ActiveRounds+1, actions, arm, reward); err != nil {
		return err
	}
	in.ActiveRounds++
	m.active = nil
	m.step()
	// Recycle the learners of the instances that have ended: they never act
	// again.
	for _, e := range m.ended {
		if e.lrn != nil {
			m.src.put(e.lrn)
			e.lrn = nil
		}
	}
	return nil
}

// release returns every learner of the block to the pool (the block is
// over or abandoned by a restart).
func (m *MALG) release() {
	for _, list := range m.byOrder {
		for _, in := range list {
			if in.lrn != nil {
				m.src.put(in.lrn)
				in.lrn = nil
			}
		}
	}
}

// Reset returns the MALG to the start of its block with the same schedule:
// every instance's learner is Reset (fresh) and its ActiveRounds zeroed.
func (m *MALG) Reset() {
	m.release()
	for _, list := range m.byOrder {
		for _, in := range list {
			in.ActiveRounds = 0
		}
	}
	if err := m.begin(); err != nil {
		// The pool holds at least the learner created by the constructor.
		panic("nonstationary: MALG.Reset: " + err.Error())
	}
}

var _ bandit.Learner = (*MALG)(nil)
