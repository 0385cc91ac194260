package incontext

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
)

// BanditEncoder lays a linear-bandit history out as a sequence of feature
// vectors for a transformer with a feature read-in (transformer.Config
// Features = Width()), following the embedding of nonstationary-transformers-master
// §2.3, after Lin, Bai and Mei (2024), "LBM": tokens
// alternate between the action-set token s_t of round t and the
// (action, reward) token (a_t, r_t),
//
//	H = [h(s_1), h(a_1,r_1), h(s_2), h(a_2,r_2), …, h(a_{t−1},r_{t−1}), h(s_t)],
//
// so round t occupies positions 2(t−1) (its action set) and 2(t−1)+1 (its
// action and reward), 0-based, and the policy of round t is read out at
// position 2(t−1), the action-set token, which sees D_{t−1} and s_t but not
// a_t (the "induced algorithm"; LBM's net.py reads preds[:, 0::2]).
//
// With d = Dim and A = Arms every token has Width() = d·A + d + A + 2
// coordinates:
//
//	[0, d·A)              vec(a_{t,1}, …, a_{t,A}): arm k's features at k·d … k·d+d−1 (set token; 0 otherwise)
//	[d·A, d·A+d)          the played arm's features x_{t,a_t} (action token; 0 otherwise)
//	[d·A+d, d·A+d+A)      one-hot of the played arm a_t (action token; 0 otherwise)
//	d·A+d+A               RewardScale·r_t (action token; 0 otherwise)
//	d·A+d+A+1             type flag: 1 on the set token, 0 on the action token
//
// The set token is LBM's "vec(A_t)" slot and the one-hot and reward are
// LBM net.py's "(onehot(a_t), r_t)"; the played features x_{t,a_t} are the
// a_t slot of LBM's theory embedding, kept so that a model need
// not look back to the set token to regress rewards on features. LBM's
// constant 1 is the read-in's bias and its position coordinates (i, i², 1)
// are replaced by the transformer's learned positions; the flag tells the two
// token types apart.
//
// The zero value is not usable: Dim and Arms must be positive.
type BanditEncoder struct {
	// Dim is the feature dimension d ≥ 1 of the linear bandit.
	Dim int
	// Arms is the number A ≥ 1 of actions offered every round.
	Arms int
	// RewardScale multiplies the rewards written into the action tokens; 0
	// means 1. Use it to bring rewards of a different range (e.g. the
	// [3,4] windows of the low non-stationarity scenario) to the
	// scale of the training data.
	RewardScale float64
}

// Compile-time check: the bandit encoder is an Encoder of action sets.
var _ ValidatingEncoder[[][]float64] = BanditEncoder{}

// Width returns the width W = d·A + d + A + 2 of every token.
func (e BanditEncoder) Width() int { return e.Dim*e.Arms + e.Dim + e.Arms + 2 }

// Shape returns vocabulary 0, Width and Arms.
func (e BanditEncoder) Shape() (vocab, width, actions int) { return 0, e.Width(), e.Arms }

// Positions returns 2·rounds + 1: two tokens per complete round and the next
// round's action set.
func (e BanditEncoder) Positions(rounds int) int { return 2*rounds + 1 }

// scale returns RewardScale or its default 1.
func (e BanditEncoder) scale() float64 {
	if e.RewardScale == 0 {
		return 1
	}
	return e.RewardScale
}

// Validate returns an error naming the bad field if Dim or Arms is not
// positive or RewardScale is negative or not finite, or wrapping
// [icrl.ErrTooLarge] if the width (Dim+1)·(Arms+1) is past MaxEncoderSize/2.
func (e BanditEncoder) Validate() error {
	switch {
	case e.Dim < 1:
		return fmt.Errorf("%w: BanditEncoder Dim = %d must be positive", icrl.ErrInvalid, e.Dim)
	case e.Arms < 1:
		return fmt.Errorf("%w: BanditEncoder Arms = %d must be positive", icrl.ErrInvalid, e.Arms)
	case !(e.RewardScale >= 0) || math.IsInf(e.RewardScale, 0):
		return fmt.Errorf("%w: BanditEncoder RewardScale = %v must be finite and non-negative", icrl.ErrInvalid, e.RewardScale)
	}
	// The width Dim·Arms + Dim + Arms + 2, without overflow.
	return num.CheckSize(icrl.ErrTooLarge, MaxEncoderSize/2, "BanditEncoder Dim × Arms", e.Dim+1, e.Arms+1)
}

// checkSet returns an error unless set holds Arms finite vectors of Dim
// coordinates.
func (e BanditEncoder) checkSet(set [][]float64) error {
	if len(set) != e.Arms {
		return fmt.Errorf("%w: action set has %d actions, want %d", ErrInput, len(set), e.Arms)
	}
	for k, x := range set {
		if len(x) != e.Dim {
			return fmt.Errorf("%w: action %d has dimension %d, want %d", ErrInput, k, len(x), e.Dim)
		}
		for i, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: action %d coordinate %d = %v is not finite", ErrInput, k, i, v)
			}
		}
	}
	return nil
}

// Prefix writes nothing: a bandit sequence starts with the first action set.
func (e BanditEncoder) Prefix(Writer) {}

// Observe writes the action-set token. It returns an error if set does not
// hold Arms finite vectors of Dim coordinates.
func (e BanditEncoder) Observe(w Writer, set [][]float64) error {
	if err := e.checkSet(set); err != nil {
		return err
	}
	x := w.Scratch(e.Width())
	d := e.Dim
	for k, a := range set {
		copy(x[k*d:(k+1)*d], a)
	}
	x[len(x)-1] = 1
	w.Features(x)
	return nil
}

// Outcome writes the action token of the played arm r.Action and its
// reward, in the action set r.Obs. It returns an error if the set is
// invalid, the arm is out of range or the scaled reward is not a finite
// float32.
func (e BanditEncoder) Outcome(w Writer, r Round[[][]float64]) error {
	set, arm, reward := r.Obs, r.Action, r.Reward
	if err := e.checkSet(set); err != nil {
		return err
	}
	if arm < 0 || arm >= e.Arms {
		return fmt.Errorf("%w: arm %d not in [0, %d)", ErrInput, arm, e.Arms)
	}
	if v := e.scale() * reward; math.IsNaN(v) || math.Abs(v) > math.MaxFloat32 {
		return fmt.Errorf("%w: reward %v is not finite (scaled: %v)", ErrInput, reward, v)
	}
	x := w.Scratch(e.Width())
	o := e.Dim * e.Arms
	copy(x[o:o+e.Dim], set[arm])
	o += e.Dim
	x[o+arm] = 1
	x[o+e.Arms] = e.scale() * reward
	w.Features(x)
	return nil
}
