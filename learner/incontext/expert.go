package incontext

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
)

// An Expert is the algorithm Alg_E whose actions an in-context learner
// imitates (in-context-games-omd §1.5 and the pretraining objective Eq. (1)
// of §3.2): given the game, which player it advises, the player's own
// history D_{t−1} (own actions and own rewards, as learner.Step) and the
// current state s_t, it gives the distribution over the player's actions at
// round t. An Expert also serves as the context policy that plays while
// trajectories are collected ([CollectConfig]).
//
// The paper writes the expert as conditioning on the whole trajectory D_T;
// here it conditions on D_{t−1} and s_t, so that the label of round t uses
// only what the learner knows at round t (the expert may see the game, as
// the equilibrium expert must).
type Expert interface {
	// Label stores in dst (of length g.Actions(p)) the expert's
	// distribution over player p's actions in state after the player's
	// own history (the column player's rewards are 1 − r). It returns an
	// error if an argument is invalid or the expert cannot advise in g.
	Label(dst []float64, g game.Game, p game.Player, history []learner.Step, state int) error
}

// NEExpert labels every round with the player's equilibrium stationary
// policy x*(s_t) (row) or y*(s_t) (column) from the game's model
// (game.Model.Nash: the LP equilibrium of a matrix game, Shapley iteration
// in a discounted Markov game): "expert demonstrations derived from Nash
// equilibrium strategies", the expert of in-context-games-omd's experiments
// (§5). It ignores the history, and needs a game.Model.
//
// The equilibrium is solved once per game and cached, keyed by the game
// value, for the NECacheSize games seen last (the oldest is dropped first,
// so a long-lived NEExpert keeps a bounded number of games alive; [Collect]
// labels one game's trajectories before the next, so the cache only needs
// to hold the games in flight). Games of non-comparable types are solved
// at every call. Use a *NEExpert (its zero value is ready); it must not be
// copied after first use. It is safe for concurrent use; concurrent first
// calls on one game solve it once.
type NEExpert struct {
	cache sync.Map     // game.Model → *neEntry; lock-free lookups
	mu    sync.Mutex   // guards order and insertions
	order []game.Model // insertion order, for eviction
}

// NECacheSize is the number of games an [NEExpert] keeps solved.
const NECacheSize = 256

// neEntry is one cached equilibrium.
type neEntry struct {
	once sync.Once
	x, y [][]float64
	err  error
}

// Equilibrium returns the cached equilibrium stationary policies (x*, y*)
// of g, solving g first if needed. The slices are shared: do not modify
// them. It returns an error if g is nil or the model fails.
func (e *NEExpert) Equilibrium(g game.Model) (x, y [][]float64, err error) {
	if isNil(g) {
		return nil, nil, fmt.Errorf("%w: NEExpert of a nil game", ErrNil)
	}
	if !reflect.TypeOf(g).Comparable() {
		return g.Nash()
	}
	v, ok := e.cache.Load(g)
	if !ok {
		e.mu.Lock()
		var loaded bool
		v, loaded = e.cache.LoadOrStore(g, &neEntry{})
		if !loaded {
			if len(e.order) == NECacheSize {
				e.cache.Delete(e.order[0])
				e.order = append(e.order[:0], e.order[1:]...)
			}
			e.order = append(e.order, g)
		}
		e.mu.Unlock()
	}
	ent := v.(*neEntry)
	ent.once.Do(func() { ent.x, ent.y, ent.err = g.Nash() })
	if ent.err != nil {
		return nil, nil, fmt.Errorf("incontext: NEExpert: %w", ent.err)
	}
	return ent.x, ent.y, nil
}

// cached returns the number of games in the cache.
func (e *NEExpert) cached() int {
	n := 0
	e.cache.Range(func(any, any) bool { n++; return true })
	return n
}

// Label copies x*(state) or y*(state). It returns an error if g is not a
// game.Model, p is invalid, the state is out of range or dst has the wrong
// length.
func (e *NEExpert) Label(dst []float64, g game.Game, p game.Player, history []learner.Step, state int) error {
	m, ok := g.(game.Model)
	if !ok {
		return fmt.Errorf("%w: NEExpert needs a game.Model to solve, %T is not one", ErrInvalid, g)
	}
	if !p.Valid() {
		return fmt.Errorf("%w: NEExpert of invalid player %v", ErrInvalid, p)
	}
	x, y, err := e.Equilibrium(m)
	if err != nil {
		return err
	}
	pol := x
	if p == game.ColumnPlayer {
		pol = y
	}
	if state < 0 || state >= len(pol) {
		return fmt.Errorf("%w: NEExpert state %d out of range [0, %d)", ErrInput, state, len(pol))
	}
	if len(dst) != len(pol[state]) {
		return fmt.Errorf("%w: NEExpert label destination has length %d, want %d actions", ErrInput, len(dst), len(pol[state]))
	}
	copy(dst, pol[state])
	return nil
}

// OMDExpert labels every round with the policy of learner.OMD after the
// player's own history: Alg_OMD of in-context-games-omd §4.1 (matrix games)
// and Algorithm 1 of §4.3 (Markov games), the expert of the paper's theory
// (Theorems 4.1 and 4.3). It works in any game, with or without a model.
//
// Config supplies the OMD options; States, Actions and Role are set from
// the game and the player, and Gamma from the game's Gamma method if it has
// one (markov.Discounted does; a matrix game has γ = 0). Each label replays
// the history, O(t·A log A) at round t.
type OMDExpert struct {
	// Config holds the OMD options; its States, Actions and Role are
	// overwritten per label, and Gamma when the game has a Gamma method.
	Config learner.OMDConfig
}

// Label stores OMD's policy in state after history. It returns an error if
// the player is invalid, the configuration or the history is invalid, or
// dst has the wrong length.
func (e OMDExpert) Label(dst []float64, g game.Game, p game.Player, history []learner.Step, state int) error {
	if g == nil {
		return fmt.Errorf("%w: OMDExpert of a nil game", ErrNil)
	}
	if !p.Valid() {
		return fmt.Errorf("%w: OMDExpert of invalid player %v", ErrInvalid, p)
	}
	cfg := e.Config
	cfg.States, cfg.Actions, cfg.Role = g.States(), g.Actions(p), p
	if d, ok := g.(interface{ Gamma() float64 }); ok {
		cfg.Gamma = d.Gamma()
	}
	if len(dst) != cfg.Actions {
		return fmt.Errorf("%w: OMDExpert label destination has length %d, want %d actions", ErrInput, len(dst), cfg.Actions)
	}
	m, err := learner.NewOMD(cfg)
	if err != nil {
		return fmt.Errorf("incontext: OMDExpert: %w", err)
	}
	if _, err := m.Distribution(dst, history, state); err != nil {
		return fmt.Errorf("incontext: OMDExpert: %w", err)
	}
	return nil
}

// Uniform labels every round with the uniform distribution: the context
// policy that explores at random.
type Uniform struct{}

// Label fills dst with 1/len(dst).
func (Uniform) Label(dst []float64, _ game.Game, _ game.Player, _ []learner.Step, _ int) error {
	if len(dst) == 0 {
		return fmt.Errorf("%w: Uniform label destination is empty", ErrInvalid)
	}
	for i := range dst {
		dst[i] = 1 / float64(len(dst))
	}
	return nil
}
