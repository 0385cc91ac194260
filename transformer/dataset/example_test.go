package dataset_test

import (
	"bytes"
	"fmt"

	"github.com/icrl-go/icrl/transformer"
	"github.com/icrl-go/icrl/transformer/dataset"
)

// Two token sequences with hard labels (−1: not scored) go to a dataset
// file and come back with their metadata.
func ExampleWrite() {
	exs := []transformer.Example[float32]{
		{Input: transformer.Sequence[float32]{Tokens: []int{3, 1, 4}}, Target: transformer.Target[float32]{Labels: []int{-1, 0, 1}}},
		{Input: transformer.Sequence[float32]{Tokens: []int{2, 5}}, Target: transformer.Target[float32]{Labels: []int{1, -1}}},
	}
	meta := dataset.Meta{Vocab: 6, Outputs: 2, Generator: "example", Seed: 1}
	var buf bytes.Buffer
	if err := dataset.Write(&buf, exs, meta); err != nil {
		fmt.Println(err)
		return
	}
	back, m, err := dataset.Read[float32](&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Encoding, m.Targets, m.Examples, "sequences,", m.Positions, "positions")
	fmt.Println(back[1].Input.Tokens, back[1].Target.Labels)
	// Output:
	// tokens labels 2 sequences, 5 positions
	// [2 5] [1 -1]
}
