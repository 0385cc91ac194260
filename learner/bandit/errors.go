package bandit

import (
	"fmt"
	"math"

	"github.com/icrl-go/icrl"
)

// checkFeedback validates one bandit observation: the arm played among n
// and a finite reward.
func checkFeedback(arm, n int, reward float64) error {
	if arm < 0 || arm >= n {
		return fmt.Errorf("%w: action %d is not in [0, %d)", icrl.ErrOutOfRange, arm, n)
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return fmt.Errorf("%w: reward %v for action %d", icrl.ErrNotFinite, reward, arm)
	}
	return nil
}
