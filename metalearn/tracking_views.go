package metalearn

import (
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// DenseTransitions returns the S × J × S transition table P(s'|s, j) =
// At(s, j, s'), the product of the local kernels: for the default game
// 253 MB and O(S·J·S) time. The evaluations of package
// markov do not need it (they use Kernel); it is for callers that want
// the table itself, such as markov.NewDenseKernel.
func (t *TrackingGame) DenseTransitions() *tensor.Dense[float64] {
	N, S, J, P := t.Players, t.States, t.Joint, t.Positions
	out, _ := tensor.New[float64](S, J, S) // sizes validated by Tracking
	pos := make([]int, N)
	act := make([]int, N)
	bufA := make([]float64, S)
	bufB := make([]float64, S)
	for s := range S {
		t.StatePositions(s, pos)
		for j := range J {
			t.JointActions(j, act)
			row := out.Row(s, j)
			// Expand the product Π_i Local[a_i][p_i][·] agent by agent,
			// agent 0 most significant: after agent i, cur holds the
			// P^{i+1} joint probabilities of the positions of agents 0..i.
			cur, next := bufA[:1], bufB
			cur[0] = 1
			for i := range N {
				m := t.Local.Row(act[i]+1, pos[i]+t.Radius)
				dst := next[:len(cur)*P]
				if i == N-1 {
					dst = row
				}
				for k, c := range cur {
					d := dst[k*P : (k+1)*P]
					for q, w := range m {
						d[q] = c * w
					}
				}
				cur, next = dst, cur[:cap(cur)]
			}
		}
	}
	return out
}

// StateIndex returns the flat state index of the agents' positions pos
// (each in [−R, R]). It returns an error naming the bad entry if len(pos)
// is not the number of agents or a position is out of range.
func (t *TrackingGame) StateIndex(pos []int) (int, error) {
	if len(pos) != t.Players {
		return 0, fmt.Errorf("%w: tracking state with %d positions, want %d", icrl.ErrInvalid, len(pos), t.Players)
	}
	s := 0
	for i, p := range pos {
		if p < -t.Radius || p > t.Radius {
			return 0, fmt.Errorf("%w: tracking state: position %d of agent %d outside [%d, %d]", icrl.ErrInvalid, p, i, -t.Radius, t.Radius)
		}
		s = s*t.Positions + p + t.Radius
	}
	return s, nil
}

// StatePositions stores the agents' positions (in [−R, R]) of the flat
// state s in dst and returns it; dst is allocated if too short. It panics if
// s is out of range.
func (t *TrackingGame) StatePositions(s int, dst []int) []int {
	if s < 0 || s >= t.States {
		panic(fmt.Sprintf("metalearn: tracking state %d outside [0, %d)", s, t.States))
	}
	if len(dst) < t.Players {
		dst = make([]int, t.Players)
	}
	dst = dst[:t.Players]
	for i := t.Players - 1; i >= 0; i-- {
		dst[i] = s%t.Positions - t.Radius
		s /= t.Positions
	}
	return dst
}

// JointIndex returns the flat joint action (markov.Episodic.Joint order) of
// the agents' actions act (each in {−1, 0, 1}). It returns an error naming
// the bad entry if len(act) is not the number of agents or an action is out
// of range.
func (t *TrackingGame) JointIndex(act []int) (int, error) {
	if len(act) != t.Players {
		return 0, fmt.Errorf("%w: tracking joint action with %d actions, want %d", icrl.ErrInvalid, len(act), t.Players)
	}
	j := 0
	for i, a := range act {
		if a < -1 || a > 1 {
			return 0, fmt.Errorf("%w: tracking joint action: action %d of agent %d outside {−1, 0, 1}", icrl.ErrInvalid, a, i)
		}
		j = j*trackingActions + a + 1
	}
	return j, nil
}

// JointActions stores the agents' actions (in {−1, 0, 1}) of the flat joint
// action j in dst and returns it; dst is allocated if too short. It panics
// if j is out of range.
func (t *TrackingGame) JointActions(j int, dst []int) []int {
	if j < 0 || j >= t.Joint {
		panic(fmt.Sprintf("metalearn: tracking joint action %d outside [0, %d)", j, t.Joint))
	}
	if len(dst) < t.Players {
		dst = make([]int, t.Players)
	}
	dst = dst[:t.Players]
	for i := t.Players - 1; i >= 0; i-- {
		dst[i] = j%trackingActions - 1
		j /= trackingActions
	}
	return dst
}

// CenterState returns the state in which every agent is at position 0, a
// natural start state (the paper does not give one; inferred).
func (t *TrackingGame) CenterState() int {
	s, _ := t.StateIndex(make([]int, t.Players))
	return s
}

// Episodic returns the game as a general-sum markov.Episodic with the given
// horizon and start state: the rewards r_i at every step and the
// time-homogeneous product kernel (markov.NewEpisodic, one reward
// layer). The paper does not give the horizon. It returns an
// error if horizon < 1 or start is not a state. The game copies the
// rewards (1.6 MB for the default game) in O(S·J·N) time and shares the
// kernel.
func (t *TrackingGame) Episodic(horizon, start int) (*markov.Episodic, error) {
	if horizon < 1 {
		return nil, fmt.Errorf("%w: tracking game horizon %d must be ≥ 1", icrl.ErrInvalid, horizon)
	}
	if start < 0 || start >= t.States {
		return nil, fmt.Errorf("%w: tracking game start state %d outside [0, %d)", icrl.ErrInvalid, start, t.States)
	}
	r, err := tensor.Stack(t.Rewards) // one layer for every step
	if err != nil {
		return nil, fmt.Errorf("metalearn: tracking game: %w", err)
	}
	g, err := markov.NewEpisodic(t.actionCounts(), start, horizon, r, []markov.Kernel{t.Kernel})
	if err != nil {
		return nil, fmt.Errorf("metalearn: tracking game: %w", err)
	}
	return g, nil
}

// EpisodicTeam returns the Markov team with shared reward φ (the potential,
// see [TrackingGame]), the same transitions and the given horizon and start
// state (markov.NewEpisodic with a shared reward): an exact Markov potential game whose
// potential is the common value. It returns an error if horizon < 1 or
// start is not a state. Memory and cost are as for [TrackingGame.Episodic].
func (t *TrackingGame) EpisodicTeam(horizon, start int) (*markov.Episodic, error) {
	if horizon < 1 {
		return nil, fmt.Errorf("%w: tracking game horizon %d must be ≥ 1", icrl.ErrInvalid, horizon)
	}
	if start < 0 || start >= t.States {
		return nil, fmt.Errorf("%w: tracking game start state %d outside [0, %d)", icrl.ErrInvalid, start, t.States)
	}
	pot, err := tensor.FromRows(t.Potential)
	if err != nil {
		return nil, fmt.Errorf("metalearn: tracking game: %w", err)
	}
	pot, err = tensor.Stack(pot)
	if err != nil {
		return nil, fmt.Errorf("metalearn: tracking game: %w", err)
	}
	g, err := markov.NewEpisodic(t.actionCounts(), start, horizon, pot, []markov.Kernel{t.Kernel})
	if err != nil {
		return nil, fmt.Errorf("metalearn: tracking game: %w", err)
	}
	return g, nil
}

// DiscountedTeam returns the discounted Markov team with shared reward φ
// (the potential, see [TrackingGame]), the product kernel, discount gamma
// and initial distribution initial (markov.NewDiscountedGeneralSum with an
// S × J shared reward):
// the game on which the softmax policy gradients and MAML of App. F.3
// run. It returns an error if gamma is outside [0, 1) or initial is not a
// distribution over the states. The game copies the potential table
// (S·J·N floats) and shares the kernel.
func (t *TrackingGame) DiscountedTeam(gamma float64, initial []float64) (*markov.DiscountedGeneralSum, error) {
	pot, err := tensor.FromRows(t.Potential)
	if err != nil {
		return nil, fmt.Errorf("metalearn: tracking game: %w", err)
	}
	g, err := markov.NewDiscountedGeneralSum(t.actionCounts(), pot, t.Kernel, gamma, initial)
	if err != nil {
		return nil, fmt.Errorf("metalearn: tracking game: %w", err)
	}
	return g, nil
}

// actionCounts returns the per-agent numbers of actions.
func (t *TrackingGame) actionCounts() []int {
	a := make([]int, t.Players)
	for i := range a {
		a[i] = trackingActions
	}
	return a
}
