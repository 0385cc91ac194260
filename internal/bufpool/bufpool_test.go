package bufpool

import "testing"

func TestGetLength(t *testing.T) {
	for _, n := range []int{0, 1, 100, 5, 1000} {
		b := Get[float32](n)
		if len(*b) != n {
			t.Fatalf("Get[float32](%d) has length %d", n, len(*b))
		}
		Put(b)
		c := Get[float64](n)
		if len(*c) != n {
			t.Fatalf("Get[float64](%d) has length %d", n, len(*c))
		}
		Put(c)
	}
}

func TestTypesKeptApart(t *testing.T) {
	// A float32 buffer put back must never come out of Get[float64]
	// (the pools are per type; a mix-up would panic on the assertion).
	for range 100 {
		Put(Get[float32](64))
		b := Get[float64](64)
		(*b)[63] = 1
		Put(b)
	}
}
