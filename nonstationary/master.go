package nonstationary

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/learner/bandit"
)

// Default coefficients of MASTER's stationarity tests (Wei and Luo 2021,
// Algorithm 3): Test 1 compares an ended instance's average reward with
// U_t + 9ρ̂(2^m), Test 2 the block's average optimism gap with 3ρ̂(·).
const (
	DefaultTest1Coef = 9
	DefaultTest2Coef = 3
)

// DefaultRhoHatMult returns the factor 6·n̂·log(T/δ), n̂ = log₂T + 1, that
// turns ρ into ρ̂ = 6 n̂ log(T/δ) ρ in Wei and Luo (2021, Lemma 3 and
// Algorithm 3); log is natural and log₂T is not rounded (454.5 at
// T = 1000, δ = 1). With δ = 1 it is the seed paper's literal
// 6(log₂T + 1)log T (App. C), whose gloss of T as the block length is a
// slip: in Wei and Luo, T is the horizon.
func DefaultRhoHatMult(horizon int, delta float64) float64 {
	T := float64(horizon)
	return 6 * (math.Log2(T) + 1) * math.Log(T/delta)
}

// MasterConfig configures [NewMaster]. The zero values of the constants
// select the paper's literal ones, so a MasterConfig with only Horizon,
// Delta and Rho set is Wei and Luo's (2021) Algorithm 3. With those
// constants neither test can fire for rewards and optimistic values in
// [0, 1] at horizons up to about 10⁴ (the thresholds exceed 1; see
// Gerogiannis et al. 2024), and MASTER behaves as MALG on doubling blocks;
// scale RhoHatMult (and the coefficients) down to make the tests active.
type MasterConfig struct {
	// Horizon is T ≥ 1. It enters only the constants (through ρ̂); the
	// block schedule continues if more rounds are played.
	Horizon int
	// Delta is the confidence δ in (0, 1], required (no zero default). The
	// seed paper's literal constant is δ = 1; Wei and Luo's theory takes δ
	// small (e.g. 1/T).
	Delta float64
	// Rho is the base learner's ρ of Assumption 1 (positive,
	// non-increasing). It sets MALG's scheduling probabilities and the
	// tests' thresholds.
	Rho RhoFunc
	// RhoHatMult is the multiplier in ρ̂ = RhoHatMult·ρ. Zero means
	// DefaultRhoHatMult(Horizon, Delta) = 6(log₂T + 1)log(T/δ) (which is 0,
	// so that every test fails whenever its statistic is ≥ 0, in the
	// degenerate case T = 1, δ = 1).
	RhoHatMult float64
	// Test1Coef is the coefficient of ρ̂ in Test 1; zero means 9.
	Test1Coef float64
	// Test2Coef is the coefficient of ρ̂ in Test 2; zero means 3.
	Test2Coef float64
	// DisableTest1 and DisableTest2 switch the tests off; with both off
	// MASTER is MALG on the doubling blocks [2^n, 2^{n+1} − 1].
	DisableTest1, DisableTest2 bool
	// FirstBlockOrder is the order of the first block, and of the first
	// block after each restart (an extension: Wei and Luo start from 0,
	// the default).
	FirstBlockOrder int
}

// Restart records a failed stationarity test.
type Restart struct {
	// Time is the round t at which the test failed; the next block starts
	// at t+1.
	Time int
	// Test1 and Test2 tell which tests failed (both may).
	Test1, Test2 bool
	// Test1Order is the lowest order of an instance that failed Test 1, or
	// −1 if Test 1 did not fail.
	Test1Order int
}

// BlockReason says how a MASTER block ended.
type BlockReason int

const (
	// BlockOngoing is the current block.
	BlockOngoing BlockReason = iota
	// BlockCompleted ran all its 2^n rounds; the next block has order n+1.
	BlockCompleted
	// BlockRestarted ended early by a failed test; MASTER restarted from
	// scratch (the next block has order FirstBlockOrder).
	BlockRestarted
)

// String returns "ongoing", "completed" or "restarted".
func (r BlockReason) String() string {
	switch r {
	case BlockOngoing:
		return "ongoing"
	case BlockCompleted:
		return "completed"
	case BlockRestarted:
		return "restarted"
	}
	return fmt.Sprintf("BlockReason(%d)", int(r))
}

// BlockInfo describes one MASTER block.
type BlockInfo struct {
	// Start is t_n, the first round of the block; Order is n.
	Start, Order int
	// End is the last round the block played: Start + 2^n − 1 for a
	// completed block, the failure time for a restarted one, the last
	// observed round (Start − 1 if none) for the ongoing one.
	End int
	// Reason says how the block ended.
	Reason BlockReason
}

// Master is MASTER, "MALG with Stationarity TEsts and Restarts" (Wei and
// Luo 2021, Algorithm 3; nonstationary-transformers-master App. C,
// Algorithm 2), a wrapper that makes any base learner satisfying their
// Assumption 1 adapt to unknown non-stationarity. It runs blocks of
// doubling length: block n starts at t_n with a fresh [MALG] of order n
// (n = 0, 1, 2, …). With g̃_τ the MALG's optimistic value and R_τ the
// reward, U_t = min_{τ∈[t_n,t]} g̃_τ and ρ̂ = RhoHatMult·ρ, after round t:
//
//	Test 1: for an order-m instance of the block with alg.e = t,
//	        (1/2^m) Σ_{τ=alg.s}^{alg.e} R_τ ≥ U_t + Test1Coef·ρ̂(2^m);
//	Test 2: (1/(t−t_n+1)) Σ_{τ=t_n}^{t} (g̃_τ − R_τ) ≥ Test2Coef·ρ̂(t−t_n+1).
//
// If either holds, MASTER restarts from scratch: the next block, at t+1,
// has order 0 again ("restart from Line 2" of the seed paper's copy is the
// `for n` loop). Otherwise the block runs to its end and
// the next has order n+1.
//
// Resolutions of what Wei and Luo leave open: Test 1 examines every scheduled instance
// ending at t, including instances that never acted and the order-n
// instance at the block's end, and sums the realised rewards of all rounds
// of its span whichever instance acted; U_t includes g̃_t. MALG schedules
// are drawn from the rng given to [NewMaster]; the rng given to Act is
// passed to the base learner.
//
// Master implements [bandit.Learner]; its optimistic value is g̃_t,
// so Masters nest. Act(t) and Observe(t) must be called for t = 1, 2, … in
// order. Per round the cost is amortised O(1) plus one call of ρ and the
// base learner's; a block also draws its MALG schedule once, in time
// proportional to its number of instances, and keeps the prefix sums of
// its rewards (memory O(2^n)). A Master is not safe for concurrent use.
type Master struct {
	cfg  MasterConfig
	mult float64
	rng  *rand.Rand
	src  *malgSource
	malg *MALG

	blocks   []BlockInfo
	restarts []Restart

	next  int
	acted bool
	g     float64 // g̃ of the round being played

	// Statistics of the current block.
	blockMin float64   // U_t
	gapSum   float64   // Σ (g̃_τ − R_τ)
	prefix   []float64 // prefix[k] = Σ of the first k rewards of the block
	u        float64   // U of the last observed round
}

// NewMaster returns MASTER for the configuration, wrapping instances of the
// base learner made by f; rng draws the MALG schedules. It returns an error
// naming the field if Horizon < 1, Delta is not in (0, 1], Rho is nil or
// not finite, positive and non-increasing on the powers of two up to
// 2·Horizon, a constant is negative or not finite, FirstBlockOrder is out
// of [0, MaxMALGOrder], f or rng is nil, or the factory fails.
func NewMaster(cfg MasterConfig, f bandit.Factory, rng *rand.Rand) (*Master, error) {
	if cfg.Horizon < 1 {
		return nil, fmt.Errorf("%w: MASTER Horizon = %d must be at least 1", icrl.ErrInvalid, cfg.Horizon)
	}
	if !(cfg.Delta > 0 && cfg.Delta <= 1) {
		return nil, fmt.Errorf("%w: MASTER Delta = %v must be in (0, 1]", icrl.ErrInvalid, cfg.Delta)
	}
	if cfg.Rho == nil {
		return nil, fmt.Errorf("%w: MASTER Rho is nil", icrl.ErrNil)
	}
	for _, c := range []struct {
		name string
		v    *float64
		def  float64
	}{
		{"RhoHatMult", &cfg.RhoHatMult, DefaultRhoHatMult(cfg.Horizon, cfg.Delta)},
		{"Test1Coef", &cfg.Test1Coef, DefaultTest1Coef},
		{"Test2Coef", &cfg.Test2Coef, DefaultTest2Coef},
	} {
		if math.IsNaN(*c.v) || math.IsInf(*c.v, 0) || *c.v < 0 {
			return nil, fmt.Errorf("%w: MASTER %s = %v must be finite and non-negative (0 for the default)", icrl.ErrInvalid, c.name, *c.v)
		}
		if *c.v == 0 {
			*c.v = c.def
		}
	}
	if cfg.FirstBlockOrder < 0 || cfg.FirstBlockOrder > MaxMALGOrder {
		return nil, fmt.Errorf("%w: MASTER FirstBlockOrder = %d out of [0, %d]", icrl.ErrInvalid, cfg.FirstBlockOrder, MaxMALGOrder)
	}
	if f == nil {
		return nil, fmt.Errorf("%w: MASTER base learner factory is nil", icrl.ErrNil)
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: MASTER rng is nil", icrl.ErrNil)
	}
	nmax := max(cfg.FirstBlockOrder, min(MaxMALGOrder, masterBitsLen(cfg.Horizon)))
	if _, _, err := malgProbs(nmax, cfg.Rho); err != nil {
		return nil, fmt.Errorf("nonstationary: MASTER Rho: %w", err)
	}
	m := &Master{cfg: cfg, mult: cfg.RhoHatMult, rng: rng, src: &malgSource{f: f}}
	if err := m.start(); err != nil {
		return nil, err
	}
	return m, nil
}

// masterBitsLen returns the number of bits of x > 0: 2^masterBitsLen(x) > x.
func masterBitsLen(x int) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}

// start puts MASTER at round 1 with a fresh first block.
func (m *Master) start() error {
	m.blocks = m.blocks[:0]
	m.restarts = m.restarts[:0]
	m.next = 1
	m.acted = false
	m.u = math.Inf(1)
	return m.newBlock(1, m.cfg.FirstBlockOrder)
}

// newBlock abandons the current MALG (if any) and starts a block of order n
// at round s.
func (m *Master) newBlock(s, n int) error {
	if m.malg != nil {
		m.malg.release()
		m.malg = nil
	}
	g, err := newMALG(n, s, m.cfg.Rho, m.src, m.rng)
	if err != nil {
		return err
	}
	m.malg = g
	m.blocks = append(m.blocks, BlockInfo{Start: s, Order: n, End: s - 1, Reason: BlockOngoing})
	m.blockMin = math.Inf(1)
	m.gapSum = 0
	m.prefix = append(m.prefix[:0], 0)
	return nil
}

// Config returns the configuration with the defaults filled in.
func (m *Master) Config() MasterConfig { return m.cfg }

// RhoHat returns ρ̂(t) = RhoHatMult·ρ(t).
func (m *Master) RhoHat(t int) float64 { return m.mult * m.cfg.Rho(t) }

// Act plays round t, which must follow the last observed round (1 at
// first), with the current block's MALG and returns its arm and g̃_t. It
// panics if t is out of sequence, a programmer error. On a zero Master (not
// built by [NewMaster]) it returns arm 0 and the next Observe returns an
// error wrapping [icrl.ErrNil].
func (m *Master) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	if m.malg == nil {
		return 0, 0
	}
	if t != m.next {
		panic(fmt.Sprintf("nonstationary: Master.Act(%d) out of sequence: next round is %d", t, m.next))
	}
	arm, g := m.malg.Act(t, actions, rng)
	m.g = g
	m.acted = true
	return arm, g
}

// Observe feeds back the reward of round t to the MALG, updates U_t, runs
// the two tests and, if one fails or the block is over, starts the next
// block. It returns an error, leaving the Master unchanged, if t is not the
// round last played by Act, the reward is not finite, or the base learner
// or its factory fails; beyond the horizon it may also fail if ρ is not
// valid for the next block's order (the round is then recorded).
func (m *Master) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if m.malg == nil {
		return fmt.Errorf("%w: a zero Master (build one with NewMaster)", icrl.ErrNil)
	}
	if t != m.next || !m.acted {
		return fmt.Errorf("%w: Master.Observe(%d) without Act(%d) (next round %d)", icrl.ErrInvalid, t, t, m.next)
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return fmt.Errorf("%w: Master reward %v at round %d is not finite", icrl.ErrNotFinite, reward, t)
	}
	if err := m.malg.Observe(t, actions, arm, reward); err != nil {
		return err
	}
	m.acted = false
	m.next = t + 1

	g := m.malg
	k := t - g.blockStart + 1 // rounds played in the block
	m.blockMin = math.Min(m.blockMin, m.g)
	m.u = m.blockMin
	m.prefix = append(m.prefix, m.prefix[k-1]+reward)
	m.gapSum += m.g - reward

	fail1, order1 := false, -1
	if !m.cfg.DisableTest1 {
		for _, in := range g.ended { // by increasing order
			s := in.Start - g.blockStart // rounds of the block before the instance
			avg := (m.prefix[k] - m.prefix[s]) / float64(in.End-in.Start+1)
			if avg >= m.u+m.cfg.Test1Coef*m.mult*g.rhoPow[in.Order] {
				fail1, order1 = true, in.Order
				break
			}
		}
	}
	fail2 := false
	if !m.cfg.DisableTest2 {
		fail2 = m.gapSum/float64(k) >= m.cfg.Test2Coef*m.mult*m.cfg.Rho(k)
	}

	b := &m.blocks[len(m.blocks)-1]
	b.End = t
	switch {
	case fail1 || fail2:
		m.restarts = append(m.restarts, Restart{Time: t, Test1: fail1, Test2: fail2, Test1Order: order1})
		b.Reason = BlockRestarted
		return m.newBlock(t+1, m.cfg.FirstBlockOrder)
	case t == g.blockEnd:
		b.Reason = BlockCompleted
		if g.n+1 > MaxMALGOrder {
			return fmt.Errorf("%w: Master block order %d exceeds %d", icrl.ErrInvalid, g.n+1, MaxMALGOrder)
		}
		return m.newBlock(t+1, g.n+1)
	}
	return nil
}

// Reset restarts MASTER from round 1 with a new first block (its schedule
// is a new draw from the Master's rng) and clears the block and restart
// records.
func (m *Master) Reset() {
	if err := m.start(); err != nil {
		// Unreachable: ρ was validated for this order and the pool holds the
		// learners of the abandoned block.
		panic("nonstationary: Master.Reset: " + err.Error())
	}
}

// Restarts returns the failed tests so far, in time order.
func (m *Master) Restarts() []Restart { return append([]Restart(nil), m.restarts...) }

// Blocks returns the blocks so far, the ongoing one last.
func (m *Master) Blocks() []BlockInfo { return append([]BlockInfo(nil), m.blocks...) }

// U returns U_t = min_{τ∈[t_n,t]} g̃_τ for the last observed round t and
// its block (+Inf before the first round).
func (m *Master) U() float64 { return m.u }

// CurrentMALG returns the MALG of the ongoing block, for inspection.
func (m *Master) CurrentMALG() *MALG { return m.malg }

var _ bandit.Learner = (*Master)(nil)
