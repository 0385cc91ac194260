package markov

import (
	"fmt"
	"math/bits"

	"github.com/icrl-go/icrl"
)

// jointSpace is the flat indexing of the joint actions of N players shared
// by [Episodic] and [DiscountedGeneralSum]: mixed radix with player 0 most
// significant, j = ((a_0·A_1 + a_1)·A_2 + a_2)···.
type jointSpace struct {
	n, joint int
	actions  []int
	stride   []int   // stride[i] = Π_{k>i} A_k
	act      []int32 // act[j*n+i] = a_i of joint action j
}

// newJointSpace validates the numbers of actions per player (at least one
// player, at least one action each, at most 2^34 joint actions) and
// computes the strides; [jointSpace.buildAct] builds the action table.
func newJointSpace(actions []int) (jointSpace, error) {
	n := len(actions)
	if n == 0 {
		return jointSpace{}, fmt.Errorf("%w: the game has no player", icrl.ErrEmpty)
	}
	joint := 1
	for i, a := range actions {
		if a < 1 {
			return jointSpace{}, fmt.Errorf("%w: player %d has %d actions", icrl.ErrInvalid, i, a)
		}
		hi, lo := bits.Mul64(uint64(joint), uint64(a))
		if hi != 0 || lo > epiMaxEntries {
			return jointSpace{}, fmt.Errorf("%w: too many joint actions (more than 2^34)", icrl.ErrTooLarge)
		}
		joint = int(lo)
	}
	js := jointSpace{n: n, joint: joint, actions: append([]int(nil), actions...), stride: make([]int, n)}
	st := 1
	for i := n - 1; i >= 0; i-- {
		js.stride[i] = st
		st *= actions[i]
	}
	return js, nil
}

// buildAct fills the table act, O(J·N) time and memory. Constructors call
// it once the game's size checks have passed.
func (js *jointSpace) buildAct() {
	js.act = make([]int32, js.joint*js.n)
	for j := range js.joint {
		for i := range js.n {
			js.act[j*js.n+i] = int32(j / js.stride[i] % js.actions[i])
		}
	}
}

// index returns the flat index of the joint action actions. It panics if
// len(actions) is not N or an action is out of range.
func (js *jointSpace) index(actions []int) int {
	if len(actions) != js.n {
		panic(fmt.Sprintf("markov: joint action of %d players, want %d", len(actions), js.n))
	}
	j := 0
	for i, a := range actions {
		if uint(a) >= uint(js.actions[i]) {
			panic(fmt.Sprintf("markov: action %d of player %d out of range [0, %d)", a, i, js.actions[i]))
		}
		j = j*js.actions[i] + a
	}
	return j
}

// split stores the players' actions of the flat joint action j in dst
// (allocating if dst is too short) and returns it. It panics if j is out of
// range.
func (js *jointSpace) split(j int, dst []int) []int {
	js.checkJoint(j)
	if cap(dst) < js.n {
		dst = make([]int, js.n)
	}
	dst = dst[:js.n]
	for i := range dst {
		dst[i] = int(js.act[j*js.n+i])
	}
	return dst
}

// checkJoint panics if j is not a joint action.
func (js *jointSpace) checkJoint(j int) {
	if uint(j) >= uint(js.joint) {
		panic(fmt.Sprintf("markov: joint action %d out of range [0, %d)", j, js.joint))
	}
}
