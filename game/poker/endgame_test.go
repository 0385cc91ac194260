package poker_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/poker"
)

func holes(t *testing.T, s ...string) []poker.Hole {
	t.Helper()
	var out []poker.Hole
	for _, x := range s {
		c, err := poker.ParseCards(x)
		if err != nil || len(c) != 2 {
			t.Fatalf("hand %q: %v", x, err)
		}
		out = append(out, poker.Hole{c[0], c[1]})
	}
	return out
}

// TestEndgameSolveAgainstNormalForm checks the LP equilibrium of a small
// endgame (three hands a player) against game.Solve on its normal form,
// whose pure strategies are the 2³ call/fold choices per hand: the same
// value, and a duality gap of zero at the LP's strategies.
func TestEndgameSolveAgainstNormalForm(t *testing.T) {
	board, _ := poker.ParseCards("Ks 9h 5d 2c 2s")
	for _, stack := range []float64{0.5, 2} {
		e, err := poker.NewEndgame(poker.EndgameConfig{Board: board, Stack: stack,
			Ranges: [2][]poker.Hole{holes(t, "AcAd", "Kd7c", "8h7h"), holes(t, "KhQh", "9c9d", "6s4s")}})
		if err != nil {
			t.Fatal(err)
		}
		pure := func(bits, n int) []float64 {
			v := make([]float64, n)
			for h := range n {
				if bits&(1<<h) != 0 {
					v[h] = 1
				}
			}
			return v
		}
		rows := make([][]float64, 8)
		for i := range 8 {
			rows[i] = make([]float64, 8)
			for j := range 8 {
				rows[i][j] = e.Value(pure(i, 3), pure(j, 3))
			}
		}
		g, err := game.NewZeroSum(rows)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := game.Solve(g)
		if err != nil {
			t.Fatal(err)
		}
		// Deal (AcAd, KhQh): aces up beats kings up.
		for d := range e.States() {
			if e.Hand(0, d) == 0 && e.Hand(1, d) == 0 {
				want := map[[2]int]float64{{poker.Call, poker.Call}: 1, {poker.Call, poker.Fold}: 0.5 + 0.5/(1+2*stack),
					{poker.Fold, poker.Call}: 0.5 - 0.5/(1+2*stack), {poker.Fold, poker.Fold}: 0.5}
				for ab, w := range want {
					if r := e.Reward(d, ab[0], ab[1]); math.Abs(r-w) > 1e-15 {
						t.Errorf("stack %v: reward of %v in (AcAd, KhQh) = %v, want %v", stack, ab, r, w)
					}
				}
			}
		}
		x, y, v, err := e.Solve()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(v-sol.Value) > 1e-9 {
			t.Errorf("stack %v: LP value %v, normal form %v", stack, v, sol.Value)
		}
		gap, err := e.Gap(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if gap > 1e-9 || gap < -1e-12 {
			t.Errorf("stack %v: gap %v at the LP's strategies x = %v, y = %v", stack, gap, x, y)
		}
	}
}

// TestEndgameFullRanges checks the deal count with full ranges (1081·990),
// the zero-sum rewards in [0, 1], and that the gap is non-negative and
// positive away from equilibrium.
func TestEndgameFullRanges(t *testing.T) {
	board, _ := poker.ParseCards("Ah Kh Qh 7c 7d")
	e, err := poker.NewEndgame(poker.EndgameConfig{Board: board, Stack: 1})
	if err != nil {
		t.Fatal(err)
	}
	if e.Hands(0) != 1081 || e.States() != 1081*990 {
		t.Errorf("%d hands, %d deals, want 1081 and %d", e.Hands(0), e.States(), 1081*990)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	r := make([]float64, 2)
	for range 1000 {
		s := e.Start(rng)
		e.Play(s, []int{rng.IntN(2), rng.IntN(2)}, r, rng)
		if !(r[0] >= 0 && r[0] <= 1) || r[0]+r[1] != 1 {
			t.Fatalf("rewards %v", r)
		}
	}
	always := make([]float64, 1081)
	for i := range always {
		always[i] = 1
	}
	gap, err := e.Gap(always, always)
	if err != nil {
		t.Fatal(err)
	}
	if !(gap > 0.01) {
		t.Errorf("always calling against always calling: gap %v, want > 0.01 (folding the worst hands gains)", gap)
	}
	if _, err := e.Gap(always[:5], always); !errors.Is(err, icrl.ErrShape) {
		t.Errorf("short strategy: %v", err)
	}
}

// TestEndgameBadInput checks the constructor's errors.
func TestEndgameBadInput(t *testing.T) {
	board, _ := poker.ParseCards("Ah Kh Qh 7c 7d")
	for name, cfg := range map[string]poker.EndgameConfig{
		"four cards":    {Board: board[:4], Stack: 1},
		"zero stack":    {Board: board, Stack: 0},
		"board card":    {Board: board, Stack: 1, Ranges: [2][]poker.Hole{holes(t, "AhAs"), nil}},
		"repeated card": {Board: board, Stack: 1, Ranges: [2][]poker.Hole{{{0, 0}}, nil}},
		"no disjoint":   {Board: board, Stack: 1, Ranges: [2][]poker.Hole{holes(t, "AsAd"), holes(t, "AsKs")}},
	} {
		if _, err := poker.NewEndgame(cfg); !errors.Is(err, icrl.ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
