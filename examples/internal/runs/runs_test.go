package runs

import (
	"slices"
	"testing"
)

func TestCheckpoints(t *testing.T) {
	for T, want := range map[int][]int{
		1:    {1},
		7:    {1, 2, 5, 7},
		1000: {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000},
		1500: {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 1500},
	} {
		if got := Checkpoints(T); !slices.Equal(got, want) {
			t.Errorf("Checkpoints(%d) = %v, want %v", T, got, want)
		}
	}
}
