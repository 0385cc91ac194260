package incontext

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"

	"github.com/icrl-go/icrl/internal/randdist"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nilness"
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

// An OnlineExpert is an [Expert] that runs alongside a trajectory: Follow
// returns a learner that, fed the player's rounds one at a time as a
// learner is fed in self-play, plays in every state exactly the
// distribution Label gives for the rounds fed so far (bit for bit). An
// expert that holds its own learner and advances it one round at a time
// labels a T-round trajectory in O(T) updates, where Label replays the
// history at every round (O(T²)); [Collect] uses Follow when an expert has
// it and replays Label otherwise. The experts of this package are online.
type OnlineExpert interface {
	Expert
	// Follow returns a fresh learner that follows player p's rounds of
	// g. rng is the trajectory's stream, for an expert that is itself
	// drawn at random (a [Dirichlet] context policy); the deterministic
	// experts do not draw from it. It returns an error if the expert
	// cannot advise p in g (as Label would).
	Follow(g game.Game, p game.Player, rng *rand.Rand) (learner.Learner, error)
}

// Compile-time check: the package's experts are online.
var (
	_ OnlineExpert = (*NEExpert)(nil)
	_ OnlineExpert = OMDExpert{}
	_ OnlineExpert = Uniform{}
	_ OnlineExpert = Dirichlet{}
)

// NEExpert labels every round with the player's equilibrium stationary
// policy x*(s_t) (row) or y*(s_t) (column) from the game's model
// (game.Model.Nash: the LP equilibrium of a matrix game, Shapley iteration
// in a discounted Markov game): "expert demonstrations derived from Nash
// equilibrium strategies", the expert of in-context-games-omd's experiments
// (§5). It ignores the history, and needs a game.Model.
//
// The equilibrium is solved once per game and cached, keyed by the game
// value, for the 256 games seen last (the oldest is dropped first,
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

// neCacheSize is the number of games an [NEExpert] keeps solved.
const neCacheSize = 256

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
	if nilness.Is(g) {
		return nil, nil, fmt.Errorf("%w: NEExpert of a nil game", icrl.ErrNil)
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
			if len(e.order) == neCacheSize {
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
	if nilness.Is(g) {
		return fmt.Errorf("%w: NEExpert of a nil game", icrl.ErrNil)
	}
	m, ok := g.(game.Model)
	if !ok {
		return fmt.Errorf("%w: NEExpert needs a game.Model to solve, %T is not one", icrl.ErrInvalid, g)
	}
	if !p.Valid() {
		return fmt.Errorf("%w: NEExpert of invalid player %v", icrl.ErrInvalid, p)
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

// Follow returns a learner.Fixed that plays the player's equilibrium
// policy (from the cache). It returns an error if g is not a game.Model, p
// is invalid or the model fails.
func (e *NEExpert) Follow(g game.Game, p game.Player, _ *rand.Rand) (learner.Learner, error) {
	if nilness.Is(g) {
		return nil, fmt.Errorf("%w: NEExpert of a nil game", icrl.ErrNil)
	}
	m, ok := g.(game.Model)
	if !ok {
		return nil, fmt.Errorf("%w: NEExpert needs a game.Model to solve, %T is not one", icrl.ErrInvalid, g)
	}
	if !p.Valid() {
		return nil, fmt.Errorf("%w: NEExpert of invalid player %v", icrl.ErrInvalid, p)
	}
	x, y, err := e.Equilibrium(m)
	if err != nil {
		return nil, err
	}
	pol := x
	if p == game.ColumnPlayer {
		pol = y
	}
	f, err := learner.NewFixed(pol)
	if err != nil {
		return nil, fmt.Errorf("%w: NEExpert: the model's equilibrium: %w", icrl.ErrInvalid, err)
	}
	return f, nil
}

// OMDExpert labels every round with the policy of learner.OMD after the
// player's own history: Alg_OMD of in-context-games-omd §4.1 (matrix games)
// and Algorithm 1 of §4.3 (Markov games), the expert of the paper's theory
// (Theorems 4.1 and 4.3). It works in any game, with or without a model.
//
// Config supplies the OMD options; States, Actions and Role are set from
// the game and the player, and Gamma from the game's discount if it is a
// game.Discounter (markov.Discounted is; a matrix game has γ = 0). Each
// Label replays the history, O(t·A log A) at round t; Follow runs one OMD
// along the trajectory, O(A log A) a round.
type OMDExpert struct {
	// Config holds the OMD options; its States, Actions and Role are
	// overwritten per label, and Gamma when the game has a Gamma method.
	Config learner.OMDConfig
}

// Label stores OMD's policy in state after history. It returns an error if
// the player is invalid, the configuration or the history is invalid, or
// dst has the wrong length.
func (e OMDExpert) Label(dst []float64, g game.Game, p game.Player, history []learner.Step, state int) error {
	if nilness.Is(g) {
		return fmt.Errorf("%w: OMDExpert of a nil game", icrl.ErrNil)
	}
	if !p.Valid() {
		return fmt.Errorf("%w: OMDExpert of invalid player %v", icrl.ErrInvalid, p)
	}
	if len(dst) != g.Actions(p) {
		return fmt.Errorf("%w: OMDExpert label destination has length %d, want %d actions", ErrInput, len(dst), g.Actions(p))
	}
	m, err := e.learner(g, p)
	if err != nil {
		return err
	}
	if _, err := m.Distribution(dst, history, state); err != nil {
		return fmt.Errorf("incontext: OMDExpert: %w", err)
	}
	return nil
}

// Follow returns a fresh learner.OMD for player p of g, configured as Label
// configures it. It returns an error if g is nil, p is invalid or the
// configuration is invalid.
func (e OMDExpert) Follow(g game.Game, p game.Player, _ *rand.Rand) (learner.Learner, error) {
	if nilness.Is(g) {
		return nil, fmt.Errorf("%w: OMDExpert of a nil game", icrl.ErrNil)
	}
	if !p.Valid() {
		return nil, fmt.Errorf("%w: OMDExpert of invalid player %v", icrl.ErrInvalid, p)
	}
	return e.learner(g, p)
}

// learner returns the OMD that advises p in g.
func (e OMDExpert) learner(g game.Game, p game.Player) (*learner.OMD, error) {
	cfg := e.Config
	cfg.States, cfg.Actions, cfg.Role = g.States(), g.Actions(p), p
	if d, ok := g.(game.Discounter); ok {
		cfg.Discount = d.Discount()
	}
	m, err := learner.NewOMD(cfg)
	if err != nil {
		return nil, fmt.Errorf("incontext: OMDExpert: %w", err)
	}
	return m, nil
}

// Uniform labels every round with the uniform distribution: the context
// policy that explores at random.
type Uniform struct{}

// Follow returns a learner.Fixed that plays the uniform distribution over
// player p's actions in every state of g. It returns an error if g is nil,
// p is invalid or g has no state or action.
func (Uniform) Follow(g game.Game, p game.Player, _ *rand.Rand) (learner.Learner, error) {
	S, A, err := policyShape("Uniform", g, p)
	if err != nil {
		return nil, err
	}
	row := make([]float64, A)
	for i := range row {
		row[i] = 1 / float64(A)
	}
	pol := make([][]float64, S)
	for s := range pol {
		pol[s] = row
	}
	f, err := learner.NewFixed(pol)
	if err != nil {
		return nil, fmt.Errorf("incontext: Uniform: %w", err)
	}
	return f, nil
}

// Label fills dst with 1/len(dst).
func (Uniform) Label(dst []float64, _ game.Game, _ game.Player, _ []learner.Step, _ int) error {
	if len(dst) == 0 {
		return fmt.Errorf("%w: Uniform label destination is empty", icrl.ErrInvalid)
	}
	for i := range dst {
		dst[i] = 1 / float64(len(dst))
	}
	return nil
}

// Dirichlet is a context policy drawn at random for every trajectory: in
// each state, an independent draw from the symmetric Dirichlet law of
// parameter Alpha over the player's actions, played for the whole
// trajectory. It is a per-trajectory random context in the manner of
// decision-pretrained transformers (Lee et al. 2023, arXiv 2306.14892,
// whose in-context datasets come from varied behaviour policies, so that
// the model learns to read play rather than to copy an expert), for
// [CollectConfig]'s RowContext and ColContext. Alpha = 1 (the zero value's) draws uniformly from the
// simplex; small Alpha gives nearly pure policies, large Alpha nearly
// uniform ones.
//
// A Dirichlet needs the trajectory's random stream, so it works through
// Follow only: Label returns an error.
type Dirichlet struct {
	// Alpha is the Dirichlet parameter α > 0; 0 means 1.
	Alpha float64
}

// Label returns an error: a Dirichlet context policy is drawn per
// trajectory, from its random stream (Follow).
func (d Dirichlet) Label([]float64, game.Game, game.Player, []learner.Step, int) error {
	return fmt.Errorf("%w: a Dirichlet policy is drawn per trajectory: use it as a context policy of Collect", icrl.ErrInvalid)
}

// Follow draws player p's policy in every state of g from rng and returns
// it as a learner.Fixed. It returns an error if g or rng is nil, p is
// invalid, Alpha is invalid or g has no state or action.
func (d Dirichlet) Follow(g game.Game, p game.Player, rng *rand.Rand) (learner.Learner, error) {
	a, err := positiveOrOne("Dirichlet Alpha", d.Alpha)
	if err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: Dirichlet needs a random source", icrl.ErrNil)
	}
	S, A, err := policyShape("Dirichlet", g, p)
	if err != nil {
		return nil, err
	}
	pol := make([][]float64, S)
	for s := range pol {
		pol[s] = make([]float64, A)
		var sum float64
		for sum == 0 { // all draws can underflow for a tiny Alpha
			for i := range pol[s] {
				pol[s][i] = randdist.Gamma(a, rng)
				sum += pol[s][i]
			}
		}
		for i := range pol[s] {
			pol[s][i] /= sum
		}
	}
	f, err := learner.NewFixed(pol)
	if err != nil {
		return nil, fmt.Errorf("incontext: Dirichlet: %w", err)
	}
	return f, nil
}

// policyShape returns the states and player p's actions of g for a policy
// expert named name, or an error if g is nil, p is invalid or g has no
// state or action.
func policyShape(name string, g game.Game, p game.Player) (S, A int, err error) {
	if nilness.Is(g) {
		return 0, 0, fmt.Errorf("%w: %s of a nil game", icrl.ErrNil, name)
	}
	if !p.Valid() {
		return 0, 0, fmt.Errorf("%w: %s of invalid player %v", icrl.ErrInvalid, name, p)
	}
	S, A = g.States(), g.Actions(p)
	if S < 1 || A < 1 {
		return 0, 0, fmt.Errorf("%w: %s of a game with %d states and %d actions", icrl.ErrInvalid, name, S, A)
	}
	return S, A, nil
}
