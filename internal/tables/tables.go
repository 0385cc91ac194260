// Package tables builds the module's games from the nested-slice tables
// that its tests and examples write as literals.
package tables

import (
	"github.com/icrl-go/icrl/internal/nested"
	"github.com/icrl-go/icrl/markov"
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
