package metalearn

import (
	"math"
	"testing"

	"github.com/icrl-go/icrl/internal/tables"
)

// FuzzQAscent builds a two-player Markov team from arbitrary bytes —
// actions, states, horizon, rewards (some non-finite), transition weights
// (some negative) — and runs projected Q-ascent on it with a step size from
// the bytes. Nothing may panic; what the constructors accept must run and
// give product policies and a finite, non-negative NE-gap.
func FuzzQAscent(f *testing.F) {
	f.Add([]byte{1, 1, 1, 1, 5, 2, 10, 200, 100, 50, 25, 1, 2, 3, 4})
	f.Add([]byte{2, 2, 2, 2, 50, 3, 255, 0, 255, 0, 9, 9, 9, 9, 9, 9, 9})
	f.Fuzz(func(t *testing.T, b []byte) {
		next := func() int {
			if len(b) == 0 {
				return 0
			}
			v := int(b[0])
			b = b[1:]
			return v
		}
		actions := []int{1 + next()%3, 1 + next()%3}
		S, H := 1+next()%3, 1+next()%3
		alpha := float64(next()) / 50
		T := next() % 4
		J := actions[0] * actions[1]
		rewards := make([][][]float64, H)
		for h := range rewards {
			rewards[h] = make([][]float64, S)
			for s := range S {
				rewards[h][s] = make([]float64, J)
				for j := range J {
					v := next()
					switch v {
					case 254:
						rewards[h][s][j] = math.NaN()
					case 253:
						rewards[h][s][j] = math.Inf(1)
					default:
						rewards[h][s][j] = float64(v) / 250
					}
				}
			}
		}
		transitions := [][][][]float64{make([][][]float64, S)}
		for s := range S {
			transitions[0][s] = make([][]float64, J)
			for j := range J {
				row := make([]float64, S)
				sum := 0.0
				for k := range S {
					row[k] = float64(next()%5) - 0.5 // some negative weights
					sum += row[k]
				}
				if sum > 0 {
					for k := range row {
						row[k] /= sum
					}
				}
				transitions[0][s][j] = row
			}
		}
		g, err := tables.Team(actions, 0, rewards, transitions)
		if err != nil {
			return
		}
		res, err := QAscent(g, g.UniformProduct(), QAscentConfig{Alpha: alpha, T: T, Checkpoints: []int{T}})
		if err != nil {
			return
		}
		for i, pol := range res.Last {
			for h := range pol.Dim(0) {
				for s := range pol.Dim(1) {
					sum := 0.0
					for _, p := range pol.Row(h, s) {
						if !(p >= -1e-12) || math.IsInf(p, 0) {
							t.Fatalf("player %d policy at (%d, %d) is %v", i, h, s, pol.Row(h, s))
						}
						sum += p
					}
					if math.Abs(sum-1) > 1e-9 {
						t.Fatalf("player %d policy at (%d, %d) sums to %v", i, h, s, sum)
					}
				}
			}
		}
		if gap := res.Checkpoints[0].Gap; math.IsNaN(gap) || math.IsInf(gap, 0) || gap < -1e-9 {
			t.Fatalf("NE-gap %v", gap)
		}
	})
}
