package poker_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/icrl-go/icrl/game/poker"
)

// eval5 ranks five cards independently of Eval7: ranks sorted by
// (multiplicity, rank), then the category from the multiplicities, the
// suits and the run of ranks; packed as poker.Rank packs them.
func eval5(c []poker.Card) poker.Rank {
	var cnt [13]int
	flush := true
	for _, x := range c {
		cnt[x.Rank()]++
		if x.Suit() != c[0].Suit() {
			flush = false
		}
	}
	type g struct{ n, r int }
	var gs []g
	for r := 12; r >= 0; r-- {
		if cnt[r] > 0 {
			gs = append(gs, g{cnt[r], r})
		}
	}
	slices.SortStableFunc(gs, func(a, b g) int { return b.n - a.n })
	straight, hi := false, -1
	if len(gs) == 5 {
		if gs[0].r-gs[4].r == 4 {
			straight, hi = true, gs[0].r
		} else if gs[0].r == 12 && gs[1].r == 3 {
			straight, hi = true, 3
		}
	}
	pack := func(cat poker.Category, ks ...int) poker.Rank {
		r := poker.Rank(cat) << 20
		for i, k := range ks {
			r |= poker.Rank(k) << (16 - 4*i)
		}
		return r
	}
	ranks := func() []int {
		var out []int
		for _, x := range gs {
			out = append(out, x.r)
		}
		return out
	}
	switch {
	case straight && flush:
		return pack(poker.StraightFlush, hi)
	case gs[0].n == 4:
		return pack(poker.FourOfAKind, ranks()...)
	case gs[0].n == 3 && gs[1].n == 2:
		return pack(poker.FullHouse, ranks()...)
	case flush:
		return pack(poker.Flush, ranks()...)
	case straight:
		return pack(poker.Straight, hi)
	case gs[0].n == 3:
		return pack(poker.ThreeOfAKind, ranks()...)
	case gs[0].n == 2 && gs[1].n == 2:
		return pack(poker.TwoPair, ranks()...)
	case gs[0].n == 2:
		return pack(poker.OnePair, ranks()...)
	}
	return pack(poker.HighCard, ranks()...)
}

// best5 is the rank of the best five of seven cards by brute force.
func best5(c [7]poker.Card) poker.Rank {
	var best poker.Rank
	for i := range 7 {
		for j := i + 1; j < 7; j++ {
			var five []poker.Card
			for k := range 7 {
				if k != i && k != j {
					five = append(five, c[k])
				}
			}
			best = max(best, eval5(five))
		}
	}
	return best
}

// TestEval7AgainstBruteForce checks Eval7 against the best of the 21
// five-card hands, ranked by an independent evaluator, on every hand that
// completes one board and on random hands.
func TestEval7AgainstBruteForce(t *testing.T) {
	board, err := poker.ParseCards("Ah Kh Qh 7c 7d")
	if err != nil {
		t.Fatal(err)
	}
	check := func(c [7]poker.Card) {
		if got, want := Eval7(c), best5(c); got != want {
			t.Fatalf("%v: Eval7 %x (%v), brute force %x (%v)", c, got, got.Category(), want, want.Category())
		}
	}
	n := 0
	for a := poker.Card(0); a < poker.Cards; a++ {
		for b := a + 1; b < poker.Cards; b++ {
			if slices.Contains(board, a) || slices.Contains(board, b) {
				continue
			}
			check([7]poker.Card{board[0], board[1], board[2], board[3], board[4], a, b})
			n++
		}
	}
	if n != 1081 {
		t.Errorf("%d hands complete the board, want C(47,2) = 1081", n)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		p := rng.Perm(poker.Cards)
		var c [7]poker.Card
		for i := range c {
			c[i] = poker.Card(p[i])
		}
		check(c)
	}
}

// Eval7 is poker.Eval7 (a shorter name for the tests).
var Eval7 = poker.Eval7

// TestEval7Categories counts the categories of all 133,784,560 seven-card
// hands against the known frequencies, in parallel over the first card
// (skipped with -short, as the race suite runs).
func TestEval7Categories(t *testing.T) {
	if testing.Short() {
		t.Skip("133,784,560 hands: run without -short")
	}
	want := [9]int{23294460, 58627800, 31433400, 6461620, 6180020, 4047644, 3473184, 224848, 41584}
	counts := make([][9]int, poker.Cards)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for first := range poker.Cards {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			counts[first] = countFrom(poker.Card(first))
		}()
	}
	wg.Wait()
	var got [9]int
	for _, c := range counts {
		for k, v := range c {
			got[k] += v
		}
	}
	if got != want {
		t.Errorf("category counts %v, want %v", got, want)
	}
}

// countFrom counts the categories of the seven-card hands whose lowest
// card is first.
func countFrom(first poker.Card) (got [9]int) {
	var c [7]poker.Card
	c[0] = first
	{
		for c[1] = c[0] + 1; c[1] < poker.Cards; c[1]++ {
			for c[2] = c[1] + 1; c[2] < poker.Cards; c[2]++ {
				for c[3] = c[2] + 1; c[3] < poker.Cards; c[3]++ {
					for c[4] = c[3] + 1; c[4] < poker.Cards; c[4]++ {
						for c[5] = c[4] + 1; c[5] < poker.Cards; c[5]++ {
							for c[6] = c[5] + 1; c[6] < poker.Cards; c[6]++ {
								got[poker.Eval7(c).Category()]++
							}
						}
					}
				}
			}
		}
	}
	return got
}

func BenchmarkEval7(b *testing.B) {
	c := [7]poker.Card{0, 5, 10, 15, 20, 25, 30}
	var sink poker.Rank
	for b.Loop() {
		sink ^= poker.Eval7(c)
	}
	_ = sink
}
