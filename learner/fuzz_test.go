package learner

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzLearners feeds arbitrary observation sequences — states, actions
// and rewards, in range or not, finite or not — to every game learner.
// Observe must never panic; what it accepts must leave every policy a
// distribution (finite, non-negative, summing to one), and what it
// rejects must leave the policies as they were.
func FuzzLearners(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f})                // action 1, reward 0.5
	f.Add([]byte{1, 2, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f, 0, 0, 0, 0, 0}) // reward +Inf
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0x14, 0x40, 3, 2, 1})       // reward 5
	f.Fuzz(func(t *testing.T, b []byte) {
		makers := []func() (Learner, error){
			func() (Learner, error) { return NewOMD(OMDConfig{States: 2, Actions: 3, Discount: 0.9}) },
			func() (Learner, error) { return NewOMD(OMDConfig{Actions: 3}) },
			func() (Learner, error) { return NewMWU(MWUConfig{Actions: 3}) },
			func() (Learner, error) { return NewOptimisticMWU(MWUConfig{Actions: 3}) },
			func() (Learner, error) { return NewExp3IX(Exp3IXConfig{Actions: 3}) },
			func() (Learner, error) { return NewRegretMatching(RegretMatchingConfig{Actions: 3, Plus: true}) },
		}
		for li, mk := range makers {
			l, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			states := 1
			if n, ok := l.(StateCounter); ok {
				states = n.States()
			}
			for p := b; len(p) >= 11; p = p[11:] {
				s, a := int(int8(p[0])), int(int8(p[1]))
				r := math.Float64frombits(binary.LittleEndian.Uint64(p[2:10]))
				next := int(int8(p[10]))
				before := make([][]float64, states)
				for st := range states {
					before[st] = append([]float64(nil), l.Policy(st)...)
				}
				err := l.Observe(s, a, r, next)
				for st := range states {
					x := l.Policy(st)
					if err != nil {
						for i := range x {
							if math.Float64bits(x[i]) != math.Float64bits(before[st][i]) {
								t.Fatalf("learner %d: rejected Observe(%d, %d, %v, %d) changed the policy of state %d: %v", li, s, a, r, next, st, err)
							}
						}
						continue
					}
					sum := 0.0
					for _, v := range x {
						if !(v >= 0) || math.IsInf(v, 0) {
							t.Fatalf("learner %d: policy %v after Observe(%d, %d, %v, %d)", li, x, s, a, r, next)
						}
						sum += v
					}
					if math.Abs(sum-1) > 1e-9 {
						t.Fatalf("learner %d: policy sums to %v after Observe(%d, %d, %v, %d)", li, sum, s, a, r, next)
					}
				}
			}
		}
	})
}
