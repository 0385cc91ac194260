package tables

import (
	"testing"

	"github.com/icrl-go/icrl/game"
)

// TestTables checks that the nested tables land where the public
// constructors put them: rewards by (state, action) and transitions by
// (state, joint action).
func TestTables(t *testing.T) {
	half := []float64{0.5, 0.5}
	g, err := Discounted([][][]float64{{{1, 0}, {0, 1}}, {{1, 0}, {0, 0.5}}}, [][][][]float64{{{half, {1, 0}}, {half, half}}, {{half, half}, {half, half}}}, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if g.Reward(1, 1, 1) != 0.5 || g.Transition(0, 0, 1)[0] != 1 || g.Actions(game.ColumnPlayer) != 2 {
		t.Errorf("Discounted: r(1,1,1) = %v, P(·|0,0,1) = %v", g.Reward(1, 1, 1), g.Transition(0, 0, 1))
	}
	tr := TwoState(3)
	z, err := ZeroSumEpisodic(2, 2, 0, [][][]float64{{{1, 0, 0, 1}, {0, 1, 1, 0}}, {{1, 0, 0, 1}, {0, 1, 1, 0}}, {{1, 0, 0, 1}, {0, 1, 1, 0}}}, tr)
	if err != nil {
		t.Fatal(err)
	}
	if z.Horizon() != 3 || z.StepReward(2, 1, 1, 0) != 1 || z.StepReward(2, 1, 1, 1) != -1 {
		t.Errorf("ZeroSumEpisodic: horizon %d, r(2,1,j=1) = %v, %v", z.Horizon(), z.StepReward(2, 1, 1, 0), z.StepReward(2, 1, 1, 1))
	}
	if tr[2][1][3][1] != 0.9 || tr[0][0][1][1] != 0.9 {
		t.Errorf("TwoState rows %v, %v", tr[2][1][3], tr[0][0][1])
	}
	team, err := Team([]int{2, 2}, 1, [][][]float64{{{0, 1, 2, 3}, {4, 5, 6, 7}}}, tr[:1])
	if err != nil {
		t.Fatal(err)
	}
	if !team.Cooperative() || team.StepReward(0, 1, 2, 1) != 6 || team.Start() != 1 {
		t.Errorf("Team: cooperative %v, r(0,1,2) = %v", team.Cooperative(), team.StepReward(0, 1, 2, 1))
	}
}
