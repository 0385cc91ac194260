package quantize

import (
	"strings"
	"testing"
)

// Test 8: Encode/Decode is a bijection between {1..N}×{0..G−1} and
// {0..NG−1}.
func TestAtomIndexRoundTrip(t *testing.T) {
	for _, ix := range []AtomIndex{{1, 1}, {4, 225}, {3, 7}, {7, 3}} {
		seen := make([]bool, ix.Size())
		for pos := 1; pos <= ix.N; pos++ {
			for j := range ix.G {
				a := ix.Encode(pos, j)
				if seen[a] {
					t.Fatalf("%+v: Encode(%d,%d) = %d twice", ix, pos, j, a)
				}
				seen[a] = true
				if p2, j2 := ix.Decode(a); p2 != pos || j2 != j {
					t.Fatalf("%+v: Decode(Encode(%d,%d)) = (%d,%d)", ix, pos, j, p2, j2)
				}
			}
		}
		for a := range ix.Size() {
			if !seen[a] {
				t.Fatalf("%+v: %d not reached", ix, a)
			}
		}
	}
}

// eq21 is the printed eq. (21): 1-based a ↦ (i, j), 1-based j.
func eq21(a, g int) (int, int) {
	if a%g != 0 {
		return a/g + 1, a%g + 1
	}
	return a / g, g
}

// Test 8: the printed eq. (21) is not a bijection (correction A3 of the package doc): a = G−1 and
// a = G give the same pair (1, G), and no a gives (i, 1).
func TestEq21NotBijective(t *testing.T) {
	const n, g = 3, 5
	i1, j1 := eq21(g-1, g)
	i2, j2 := eq21(g, g)
	if i1 != 1 || j1 != g || i2 != 1 || j2 != g {
		t.Fatalf("eq21(G−1) = (%d,%d), eq21(G) = (%d,%d); want both (1,%d)", i1, j1, i2, j2, g)
	}
	hits := map[[2]int]int{}
	for a := 1; a <= n*g; a++ {
		i, j := eq21(a, g)
		hits[[2]int{i, j}]++
		if j == 1 {
			t.Fatalf("eq21(%d) = (%d, 1)", a, i)
		}
	}
	if len(hits) == n*g {
		t.Fatal("eq21 is injective on 1..NG")
	}
	t.Logf("printed eq. (21) reaches %d of %d pairs", len(hits), n*g)
}

func TestAtomIndexErrors(t *testing.T) {
	for _, c := range []struct {
		n, g int
		want string
	}{{0, 1, "N = 0"}, {1, 0, "G = 0"}, {1 << 20, 1 << 20, "more than"}} {
		if _, err := NewAtomIndex(c.n, c.g); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewAtomIndex(%d, %d): %v", c.n, c.g, err)
		}
	}
	ix := AtomIndex{N: 2, G: 3}
	for _, f := range []func(){
		func() { ix.Encode(0, 0) }, func() { ix.Encode(3, 0) }, func() { ix.Encode(1, 3) },
		func() { ix.Decode(-1) }, func() { ix.Decode(6) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic on an out-of-range atom")
				}
			}()
			f()
		}()
	}
}
