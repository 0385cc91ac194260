package learner

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"weak"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/markov"
)

// MatrixAsMarkov returns the zero-sum matrix game g as a discounted Markov
// game with one state, a self-loop under every joint action and discount
// γ = 0: the stage game is g itself, so the value of stationary policies is
// xᵀAy and markov's Gap is the matrix duality gap
// max_i (Ay)_i − min_j (xᵀA)_j (in-context-games-omd §1.6). This lets the
// Markov machinery of this package ([Collect], [Pretrain], [PlayModels],
// [MarkovSelfPlay]) run the paper's matrix-game experiments (§4).
//
// It returns an error if g is nil or has a payoff outside [0, 1] (use
// game.Rescale first): bandit learners and Bernoulli rewards need [0, 1].
// The cost is O(A·B).
func MatrixAsMarkov(g *game.ZeroSum) (*markov.Discounted, error) {
	if g == nil {
		return nil, errors.New("learner: MatrixAsMarkov of a nil game")
	}
	if !g.InUnit() {
		lo, hi := g.Bounds()
		return nil, fmt.Errorf("learner: MatrixAsMarkov needs payoffs in [0, 1], the game's span [%v, %v]; use game.Rescale first", lo, hi)
	}
	A, B := g.Dims()
	r := make([][]float64, A)
	p := make([][][]float64, A)
	for a := range A {
		r[a] = make([]float64, B)
		p[a] = make([][]float64, B)
		for b := range B {
			r[a][b] = g.At(a, b)
			p[a][b] = []float64{1}
		}
	}
	return markov.NewDiscounted([][][]float64{r}, [][][][]float64{p}, 0)
}

// An Expert is the algorithm Alg_E whose actions the in-context learner
// imitates (in-context-games-omd §1.5 and the pretraining objective Eq. (1)
// of §3.2): given the game, which player it advises, the player's own
// history D_{t−1} = ((s_1, a_1, r_1), …, (s_{t−1}, a_{t−1}, r_{t−1})) (own
// actions and own rewards in the convention of [Step]) and the current state
// s_t, it gives the distribution over the player's actions at round t.
//
// The paper writes the expert as conditioning on the whole trajectory D_T
// and the last state s_T; spec resolution A10 conditions it on D_{t−1} and
// s_t instead, so that the label of round t uses only what the learner
// knows at round t (and the expert may see the game, as the NE expert
// must). This is the interface's contract.
type Expert interface {
	// Label stores in dst (of length A for the row player, B for the
	// column player) the expert's distribution over the player's actions
	// at the round played in state, after the player's own history. row
	// selects the row (maximising) player; the column player's rewards in
	// history are 1 − r. It returns an error if an argument is invalid.
	Label(dst []float64, g *markov.Discounted, row bool, history []Step, state int) error
}

// NEExpert labels every round with the player's equilibrium stationary
// policy x*(s_t) (row) or y*(s_t) (column), computed by
// markov.ShapleyValueIteration (for a matrix game from [MatrixAsMarkov], the
// LP equilibrium of game.Solve): "expert demonstrations derived from Nash
// equilibrium strategies", the expert of the paper's experiments
// (in-context-games-omd §4, §2.6). It ignores the history. When the game has
// several equilibria, it is the one Shapley iteration returns.
//
// The equilibrium is solved once per game and cached, keyed by the game's
// pointer (a markov.Discounted is immutable). The cache holds the key
// weakly: an entry is dropped once its game is garbage collected, so a
// long-lived NEExpert does not keep every game it has seen alive.
//
// Use a *NEExpert (its zero value is ready); it must not be copied after
// first use. It is safe for concurrent use; concurrent first calls on one
// game solve it once. The first call on a game costs a Shapley iteration,
// later calls O(A).
type NEExpert struct {
	// Tol is the tolerance of markov.ShapleyValueIteration (the resulting
	// policies' Markov gap is at most Tol); 0 means 1e-9.
	Tol float64
	// MaxIter caps its sweeps; 0 means 100000.
	MaxIter int

	cache sync.Map // weak.Pointer[markov.Discounted] → *neEntry
}

// neEntry is one cached equilibrium.
type neEntry struct {
	once sync.Once
	x, y markov.Stationary
	err  error
}

// Equilibrium returns the cached equilibrium stationary policies (x*, y*)
// of g, solving g first if needed. The slices are shared: do not modify
// them. It returns an error if g is nil or the Shapley iteration fails.
func (e *NEExpert) Equilibrium(g *markov.Discounted) (x, y markov.Stationary, err error) {
	if g == nil {
		return nil, nil, errors.New("learner: NEExpert of a nil game")
	}
	key := weak.Make(g)
	v, ok := e.cache.Load(key)
	if !ok {
		var loaded bool
		v, loaded = e.cache.LoadOrStore(key, &neEntry{})
		if !loaded {
			runtime.AddCleanup(g, func(k weak.Pointer[markov.Discounted]) { e.cache.Delete(k) }, key)
		}
	}
	ent := v.(*neEntry)
	ent.once.Do(func() {
		tol, iter := e.Tol, e.MaxIter
		if tol == 0 {
			tol = 1e-9
		}
		if iter == 0 {
			iter = 100000
		}
		sol, err := markov.ShapleyValueIteration(g, tol, iter)
		if err != nil {
			ent.err = fmt.Errorf("learner: NEExpert: %w", err)
			return
		}
		ent.x, ent.y = sol.X, sol.Y
	})
	return ent.x, ent.y, ent.err
}

// Label stores x*(state) (row) or y*(state) (column) in dst. It returns an
// error if g is nil, state is out of range, dst has the wrong length or
// the equilibrium cannot be computed.
func (e *NEExpert) Label(dst []float64, g *markov.Discounted, row bool, history []Step, state int) error {
	x, y, err := e.Equilibrium(g)
	if err != nil {
		return err
	}
	pol := y
	if row {
		pol = x
	}
	if state < 0 || state >= len(pol) {
		return fmt.Errorf("learner: NEExpert state %d out of range [0, %d)", state, len(pol))
	}
	if len(dst) != len(pol[state]) {
		return fmt.Errorf("learner: NEExpert label destination has length %d, want %d actions", len(dst), len(pol[state]))
	}
	copy(dst, pol[state])
	return nil
}

// OMDExpert labels round t with the policy x_t(s_t) that [MarkovOMD]
// (Algorithm 1 of in-context-games-omd §4.3; for a one-state γ = 0 game, the
// matrix-game OMD of §4.1) plays after the player's own history D_{t−1}: the
// expert Alg_OMD of the paper's theory (Thm 4.1, Lemma B.1), conditioned on
// D_{t−1} and s_t as spec resolution A10 prescribes rather than on D_T as
// the paper writes.
//
// Each label builds a MarkovOMD from Config with States, Actions (A for
// the row player, B for the column player) and Gamma taken from the game,
// and Role set to the player's role (it matters only under the RewardAscent
// and Literal conventions), then replays the history with
// [MarkovOMD.Distribution]. Every other field (Horizon, Schedule,
// Convention, LossScale, ProxFactor) is used as given; the zero Config is
// the default MarkovOMD. Replaying costs O(t·A log A) per label, so
// labelling a whole trajectory of T rounds costs O(T²·A log A).
//
// An OMDExpert is safe for concurrent use if its Schedule is.
type OMDExpert struct {
	// Config configures the replayed MarkovOMD; see above for the fields
	// that are overridden.
	Config MarkovOMDConfig
}

// Label stores in dst the MarkovOMD policy at state after history. It
// returns an error if g is nil, the configuration is invalid, state or a
// step of the history is out of range, or dst has the wrong length.
func (e OMDExpert) Label(dst []float64, g *markov.Discounted, row bool, history []Step, state int) error {
	if g == nil {
		return errors.New("learner: OMDExpert of a nil game")
	}
	S, A, B := g.Dims()
	cfg := e.Config
	cfg.States, cfg.Gamma = S, g.Gamma()
	cfg.Actions, cfg.Role = A, RowPlayer
	if !row {
		cfg.Actions, cfg.Role = B, ColumnPlayer
	}
	if state < 0 || state >= S {
		return fmt.Errorf("learner: OMDExpert state %d out of range [0, %d)", state, S)
	}
	if len(dst) != cfg.Actions {
		return fmt.Errorf("learner: OMDExpert label destination has length %d, want %d actions", len(dst), cfg.Actions)
	}
	m, err := NewMarkovOMD(cfg)
	if err != nil {
		return fmt.Errorf("learner: OMDExpert: %w", err)
	}
	h := make([]Step, len(history)+1)
	copy(h, history)
	h[len(history)] = Step{State: state}
	if _, err := m.Distribution(dst, h); err != nil {
		return fmt.Errorf("learner: OMDExpert: %w", err)
	}
	return nil
}
