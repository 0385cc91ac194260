// Package tables builds the module's games from the nested-slice tables
// that its tests and examples write as literals.
package tables

import (
	"github.com/icrl-go/icrl/internal/nested"
	"github.com/icrl-go/icrl/markov"
	"github.com/icrl-go/icrl/tensor"
)

// Discounted returns markov.NewDiscounted of the S × A × B rewards and the
// S × A × B × S transitions. It panics if a table is empty or ragged.
func Discounted(rewards [][][]float64, transitions [][][][]float64, gamma float64) (*markov.Discounted, error) {
	k, err := markov.NewDenseKernel(nested.Dense4(transitions))
	if err != nil {
		return nil, err
	}
	return markov.NewDiscounted(nested.Dense3(rewards), k, gamma)
}

// GeneralSum returns markov.NewDiscountedGeneralSum of the S × J × N
// rewards and the S × J × S transitions.
func GeneralSum(actions []int, rewards [][][]float64, transitions [][][]float64, gamma float64, initial []float64) (*markov.DiscountedGeneralSum, error) {
	k, err := markov.NewDenseKernel(nested.Dense3(transitions))
	if err != nil {
		return nil, err
	}
	return markov.NewDiscountedGeneralSum(actions, nested.Dense3(rewards), k, gamma, initial)
}

// Cooperative returns markov.NewDiscountedGeneralSum of the shared S × J
// rewards of a team and the S × J × S transitions.
func Cooperative(actions []int, rewards [][]float64, transitions [][][]float64, gamma float64, initial []float64) (*markov.DiscountedGeneralSum, error) {
	k, err := markov.NewDenseKernel(nested.Dense3(transitions))
	if err != nil {
		return nil, err
	}
	return markov.NewDiscountedGeneralSum(actions, nested.Dense2(rewards), k, gamma, initial)
}

// Episodic returns markov.NewEpisodic of the H × S × J × N rewards and the
// transitions, H × S × J × S or one time-homogeneous S × J × S layer.
func Episodic(actions []int, start int, rewards [][][][]float64, transitions [][][][]float64) (*markov.Episodic, error) {
	ks, err := markov.DenseKernels(nested.Dense4(transitions))
	if err != nil {
		return nil, err
	}
	return markov.NewEpisodic(actions, start, len(rewards), nested.Dense4(rewards), ks)
}

// Team returns markov.NewEpisodic of a team's shared H × S × J rewards and
// the transitions, as in Episodic.
func Team(actions []int, start int, rewards [][][]float64, transitions [][][][]float64) (*markov.Episodic, error) {
	ks, err := markov.DenseKernels(nested.Dense4(transitions))
	if err != nil {
		return nil, err
	}
	return markov.NewEpisodic(actions, start, len(rewards), nested.Dense3(rewards), ks)
}

// ZeroSumEpisodic returns markov.NewZeroSumEpisodic of player 0's
// H × S × (rows·cols) rewards, joint action a·cols + b, and the
// transitions, as in Episodic.
func ZeroSumEpisodic(rows, cols, start int, rewards [][][]float64, transitions [][][][]float64) (*markov.Episodic, error) {
	ks, err := markov.DenseKernels(nested.Dense4(transitions))
	if err != nil {
		return nil, err
	}
	r := nested.Dense3(rewards)
	r4, err := tensor.FromData(r.Data(), r.Dim(0), r.Dim(1), rows, cols)
	if err != nil {
		return nil, err
	}
	return markov.NewZeroSumEpisodic(rows, cols, start, len(rewards), r4, ks)
}

// TwoState returns horizon layers of markov.TwoStateKernel as a nested
// H × 2 × 4 × 2 table.
func TwoState(horizon int) [][][][]float64 {
	k := markov.TwoStateKernel()
	out := make([][][][]float64, horizon)
	for h := range out {
		out[h] = make([][][]float64, 2)
		for s := range 2 {
			out[h][s] = make([][]float64, 4)
			for j := range 4 {
				row := make([]float64, 2)
				next, prob := k.Row(s, j, nil, nil)
				for i, s2 := range next {
					row[s2] = prob[i]
				}
				out[h][s][j] = row
			}
		}
	}
	return out
}
