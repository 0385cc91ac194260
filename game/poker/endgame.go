package poker

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
)

// A Hole is a player's two private cards.
type Hole [2]Card

// String returns the two cards, "AsKd".
func (h Hole) String() string { return h[0].String() + h[1].String() }

// EndgameConfig configures [NewEndgame].
type EndgameConfig struct {
	// Board holds the five community cards.
	Board []Card
	// Ranges holds each player's possible hands; a nil range is every hand
	// the board leaves (C(47, 2) = 1081). Hands that share a card with the
	// board are an error.
	Ranges [2][]Hole
	// Stack is the amount s each player puts in when calling, in units of
	// the pot (the normalised stack); positive.
	Stack float64
}

// MaxDeals is the most deals (pairs of disjoint hands) an [Endgame] holds.
const MaxDeals = 1 << 24

// Endgame is a river endgame of hold'em reduced to one simultaneous
// decision, the simplification of multi-agent-meta-rl App. F.3 (actions
// call and fold; each player observes its own hand only). The board is
// fixed; a deal draws the two players' hands uniformly from the pairs of
// disjoint hands of their ranges. The pot is 1, half from each player;
// each then calls (puts in Stack more and goes to showdown) or folds.
// Player 0's net gain u is: both call, ±(½ + Stack) at showdown (0 on a
// tie); one calls, ±½ to the caller; both fold, 0 (the pot is split). The
// game is zero-sum, and its rewards are mapped onto [0, 1] as
// r = ½ + u/(1 + 2·Stack) (player 1 receives 1 − r).
//
// As a game.Multiplayer its state is the deal: Start draws one, and every
// round plays a fresh deal (Play returns a new draw as the next state), so
// that repeated play is a sequence of independent hands. A player's
// observation of deal s is its own hand, [Endgame.Hand]; learners that
// see only it (the paper's "local observation as the state") play through
// [Endgame.Observation]. A deal is one of the ordered pairs of disjoint
// hands: 1081·990 = 1,070,190 with full ranges (the paper reports about
// 1.7 million states for its endgame, whose ranges are not public).
type Endgame struct {
	board  [5]Card
	hands  [2][]Hole
	stack  float64
	deals  [][2]int32 // (hand of player 0, hand of player 1)
	cmp    []int8     // showdown: +1 player 0 wins, −1 loses, 0 tie
	byHand [2][][]int32
}

// The two actions of each player of an Endgame.
const (
	// Call puts in the stack and goes to showdown.
	Call = 0
	// Fold gives up the pot.
	Fold = 1
)

// NewEndgame returns the endgame of cfg. It returns an error wrapping
// icrl.ErrInvalid for a board that is not five distinct cards, a hand that
// shares a card with the board or repeats a card, a non-positive or
// non-finite stack, or ranges with no disjoint pair, and icrl.ErrTooLarge
// past [MaxDeals] deals. It evaluates every hand once (Eval7) and stores
// the deals: O(H0·H1) time and memory.
func NewEndgame(cfg EndgameConfig) (*Endgame, error) {
	if len(cfg.Board) != 5 {
		return nil, fmt.Errorf("%w: endgame board of %d cards, want 5", icrl.ErrInvalid, len(cfg.Board))
	}
	var used uint64
	for _, c := range cfg.Board {
		if c >= Cards || used&(1<<c) != 0 {
			return nil, fmt.Errorf("%w: endgame board %v: card %v out of range or repeated", icrl.ErrInvalid, cfg.Board, c)
		}
		used |= 1 << c
	}
	if !(cfg.Stack > 0) || math.IsInf(cfg.Stack, 0) {
		return nil, fmt.Errorf("%w: endgame stack %v", icrl.ErrInvalid, cfg.Stack)
	}
	e := &Endgame{stack: cfg.Stack}
	copy(e.board[:], cfg.Board)
	ranks := [2][]Rank{}
	for p := range 2 {
		r := cfg.Ranges[p]
		if r == nil {
			for a := Card(0); a < Cards; a++ {
				for b := a + 1; b < Cards; b++ {
					if used&(1<<a|1<<b) == 0 {
						r = append(r, Hole{a, b})
					}
				}
			}
		}
		for i, h := range r {
			if h[0] >= Cards || h[1] >= Cards || h[0] == h[1] || used&(1<<h[0]|1<<h[1]) != 0 {
				return nil, fmt.Errorf("%w: endgame range %d hand %d (%v) repeats a card or shares one with the board", icrl.ErrInvalid, p, i, h)
			}
		}
		e.hands[p] = slices.Clone(r)
		ranks[p] = make([]Rank, len(r))
		for i, h := range r {
			ranks[p][i] = Eval7([7]Card{e.board[0], e.board[1], e.board[2], e.board[3], e.board[4], h[0], h[1]})
		}
	}
	if n := len(e.hands[0]) * len(e.hands[1]); n > MaxDeals {
		return nil, fmt.Errorf("%w: endgame ranges of %d and %d hands, past %d deals", icrl.ErrTooLarge, len(e.hands[0]), len(e.hands[1]), MaxDeals)
	}
	for p := range 2 {
		e.byHand[p] = make([][]int32, len(e.hands[p]))
	}
	for i, a := range e.hands[0] {
		for j, b := range e.hands[1] {
			if a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1] {
				continue
			}
			d := int32(len(e.deals))
			e.deals = append(e.deals, [2]int32{int32(i), int32(j)})
			var c int8
			switch ra, rb := ranks[0][i], ranks[1][j]; {
			case ra > rb:
				c = 1
			case ra < rb:
				c = -1
			}
			e.cmp = append(e.cmp, c)
			e.byHand[0][i] = append(e.byHand[0][i], d)
			e.byHand[1][j] = append(e.byHand[1][j], d)
		}
	}
	if len(e.deals) == 0 {
		return nil, fmt.Errorf("%w: endgame ranges have no pair of disjoint hands", icrl.ErrInvalid)
	}
	return e, nil
}

// Players returns 2.
func (e *Endgame) Players() int { return 2 }

// States returns the number of deals.
func (e *Endgame) States() int { return len(e.deals) }

// Actions returns 2 (Call and Fold) for either player.
func (e *Endgame) Actions(game.Player) int { return 2 }

// Hands returns the number of hands of player p's range.
func (e *Endgame) Hands(p game.Player) int { return len(e.hands[p]) }

// HoleOf returns hand h of player p's range.
func (e *Endgame) HoleOf(p game.Player, h int) Hole { return e.hands[p][h] }

// Stack returns the normalised stack.
func (e *Endgame) Stack() float64 { return e.stack }

// Hand returns player p's hand (an index into its range) in deal s.
func (e *Endgame) Hand(p game.Player, s int) int { return int(e.deals[s][p]) }

// Start draws a deal uniformly.
func (e *Endgame) Start(rng *rand.Rand) int { return rng.IntN(len(e.deals)) }

// Reward returns player 0's reward in [0, 1] for the actions a (player 0)
// and b (player 1) in deal s.
func (e *Endgame) Reward(s, a, b int) float64 {
	var u float64
	switch {
	case a == Call && b == Call:
		u = float64(e.cmp[s]) * (0.5 + e.stack)
	case a == Call:
		u = 0.5
	case b == Call:
		u = -0.5
	}
	return 0.5 + u/(1+2*e.stack)
}

// Play writes both players' rewards for the actions in deal s and returns
// the next deal, drawn uniformly.
func (e *Endgame) Play(s int, actions []int, rewards []float64, rng *rand.Rand) int {
	r := e.Reward(s, actions[0], actions[1])
	rewards[0], rewards[1] = r, 1-r
	return rng.IntN(len(e.deals))
}

// value returns player 0's expected reward when player 0 calls with
// probability x[h] holding hand h and player 1 with probability y[h].
func (e *Endgame) value(x, y []float64) float64 {
	var v float64
	for d, pr := range e.deals {
		p, q := x[pr[0]], y[pr[1]]
		v += p*q*e.Reward(d, Call, Call) + p*(1-q)*e.Reward(d, Call, Fold) + (1-p)*q*e.Reward(d, Fold, Call) + (1-p)*(1-q)*e.Reward(d, Fold, Fold)
	}
	return v / float64(len(e.deals))
}

// bestResponse returns the best value of player p against the other's
// call probabilities z (player 0's reward for p = 0, player 1's for
// p = 1), and the best call probability per hand of p (1 or 0).
func (e *Endgame) bestResponse(p game.Player, z []float64) (float64, []float64) {
	br := make([]float64, len(e.hands[p]))
	var total float64
	for h, ds := range e.byHand[p] {
		var vc, vf float64 // the hand's value when calling and folding
		for _, d := range ds {
			q := z[e.deals[d][1-p]]
			if p == 0 {
				vc += q*e.Reward(int(d), Call, Call) + (1-q)*e.Reward(int(d), Call, Fold)
				vf += q*e.Reward(int(d), Fold, Call) + (1-q)*e.Reward(int(d), Fold, Fold)
			} else {
				vc += 1 - (q*e.Reward(int(d), Call, Call) + (1-q)*e.Reward(int(d), Fold, Call))
				vf += 1 - (q*e.Reward(int(d), Call, Fold) + (1-q)*e.Reward(int(d), Fold, Fold))
			}
		}
		if vc >= vf {
			br[h], total = 1, total+vc
		} else {
			total += vf
		}
	}
	return total / float64(len(e.deals)), br
}

// Gap returns the duality gap (NashConv) of the behaviour strategies x
// (player 0's call probability per hand of its range) and y (player 1's):
// the best responses' values against them, BR₀(y) − (1 − BR₁(x)), in
// reward units; 0 exactly at an equilibrium. It costs O(deals).
func (e *Endgame) Gap(x, y []float64) (float64, error) {
	if len(x) != len(e.hands[0]) || len(y) != len(e.hands[1]) {
		return 0, fmt.Errorf("%w: endgame strategies of %d and %d hands, ranges of %d and %d", icrl.ErrShape, len(x), len(y), len(e.hands[0]), len(e.hands[1]))
	}
	for _, v := range slices.Concat(x, y) {
		if !(v >= 0 && v <= 1) {
			return 0, fmt.Errorf("%w: endgame call probability %v", icrl.ErrInvalid, v)
		}
	}
	b0, _ := e.bestResponse(0, y)
	b1, _ := e.bestResponse(1, x)
	return b0 - (1 - b1), nil
}

// Value returns player 0's expected reward under the behaviour strategies
// x and y (call probabilities per hand).
func (e *Endgame) Value(x, y []float64) float64 { return e.value(x, y) }

// Solve returns an equilibrium in behaviour strategies (each player's call
// probability per hand) and player 0's value, by one linear program over
// the hands per player: player 0 maximises Σ_{h₁} v_{h₁} subject to v_{h₁}
// not above its value against player 1's hand h₁ calling or folding, its
// variables its call probabilities (player 1's maximin strategy by the
// same program; in a zero-sum game the pair of maximin strategies is an
// equilibrium). The LP has H₀ + 2H₁ rows and twice as many columns
// (dense), so Solve suits small ranges; the gap of learners' strategies
// needs only [Endgame.Gap].
func (e *Endgame) Solve() (x, y []float64, value float64, err error) {
	if x, err = e.solveFor(0); err != nil {
		return nil, nil, 0, err
	}
	if y, err = e.solveFor(1); err != nil {
		return nil, nil, 0, err
	}
	return x, y, e.value(x, y), nil
}

// solveFor returns player p's maximin call probabilities.
func (e *Endgame) solveFor(p game.Player) ([]float64, error) {
	H, O := len(e.hands[p]), len(e.hands[1-p])
	// Columns: x (H), t (H: 1 − x), v (O), s (2·O slacks).
	cols := 2*H + 3*O
	rows := H + 2*O
	a := mat.NewDense(rows, cols, nil)
	b := make([]float64, rows)
	c := make([]float64, cols)
	for h := range H {
		a.Set(h, h, 1)
		a.Set(h, H+h, 1)
		b[h] = 1
	}
	n := float64(len(e.deals))
	for o := range O {
		c[2*H+o] = -1
		for k, act := range []int{Call, Fold} { // the opponent's action
			row := H + 2*o + k
			a.Set(row, 2*H+o, 1)
			a.Set(row, 2*H+O+2*o+k, 1)
			var rhs float64
			for _, d := range e.byHand[1-p][o] {
				h := int(e.deals[d][p])
				var rc, rf float64 // p's reward calling and folding
				if p == 0 {
					rc, rf = e.Reward(int(d), Call, act), e.Reward(int(d), Fold, act)
				} else {
					rc, rf = 1-e.Reward(int(d), act, Call), 1-e.Reward(int(d), act, Fold)
				}
				// v_o + s = Σ (x_h rc + (1 − x_h) rf)/n ⇒ v_o − Σ x_h (rc − rf)/n + s = Σ rf/n.
				a.Set(row, h, a.At(row, h)-(rc-rf)/n)
				rhs += rf / n
			}
			b[row] = rhs
		}
	}
	_, sol, err := lp.Simplex(c, a, b, 1e-10, nil)
	if err != nil {
		return nil, fmt.Errorf("poker: endgame LP for player %d: %w", p, err)
	}
	x := sol[:H:H]
	for h := range x {
		x[h] = min(1, max(0, x[h]))
	}
	return slices.Clone(x), nil
}

// Observation returns the learner-facing view of player p: a learner playing
// it sees the player's hand (an index into its range, [Endgame.Hands]
// states) in place of the deal.
func (e *Endgame) Observation(p game.Player) func(s int) int {
	return func(s int) int { return int(e.deals[s][p]) }
}
