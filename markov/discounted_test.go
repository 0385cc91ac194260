package markov

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/internal/nested"
	"github.com/icrl-go/icrl/tensor"
)

// validTables returns rewards and transitions of a valid 2-state game with
// 2×2 actions, for tests to corrupt.
func validTables() ([][][]float64, [][][][]float64) {
	r := [][][]float64{{{1, 0}, {0, 1}}, {{1, 0}, {0, 0.5}}}
	p := make([][][][]float64, 2)
	for s := range p {
		p[s] = [][][]float64{{{0.5, 0.5}, {0.5, 0.5}}, {{0.5, 0.5}, {0.5, 0.5}}}
	}
	return r, p
}

func TestNewDiscountedErrors(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(r *[][][]float64, p *[][][][]float64, gamma *float64)
		want   string
	}{
		{"gamma 1", func(_ *[][][]float64, _ *[][][][]float64, g *float64) { *g = 1 }, "γ = 1 is outside [0, 1)"},
		{"gamma negative", func(_ *[][][]float64, _ *[][][][]float64, g *float64) { *g = -0.1 }, "γ = -0.1 is outside"},
		{"gamma NaN", func(_ *[][][]float64, _ *[][][][]float64, g *float64) { *g = math.NaN() }, "γ = NaN is outside"},
		{"gamma Inf", func(_ *[][][]float64, _ *[][][][]float64, g *float64) { *g = math.Inf(1) }, "γ = +Inf"},
		{"row sum", func(_ *[][][]float64, p *[][][][]float64, _ *float64) { (*p)[0][1][0] = []float64{0.5, 0.6} }, "P(·|s=0, joint=2) sums to 1.1"},
		{"row sum low", func(_ *[][][]float64, p *[][][][]float64, _ *float64) { (*p)[1][1][1] = []float64{0.3, 0.3} }, "P(·|s=1, joint=3) sums to 0.6"},
		{"negative probability", func(_ *[][][]float64, p *[][][][]float64, _ *float64) { (*p)[1][0][1] = []float64{1.1, -0.1} }, "P(s'=1|s=1, joint=1) = -0.1 is not a probability"},
		{"NaN probability", func(_ *[][][]float64, p *[][][][]float64, _ *float64) { (*p)[0][0][0] = []float64{math.NaN(), 1} }, "P(s'=0|s=0, joint=0) = NaN"},
		{"Inf probability", func(_ *[][][]float64, p *[][][][]float64, _ *float64) { (*p)[0][0][0] = []float64{math.Inf(1), 1} }, "P(s'=0|s=0, joint=0) = +Inf"},
		{"NaN reward", func(r *[][][]float64, _ *[][][][]float64, _ *float64) { (*r)[1][0][1] = math.NaN() }, "r(1, 0, 1) = NaN is not finite"},
		{"Inf reward", func(r *[][][]float64, _ *[][][][]float64, _ *float64) { (*r)[0][1][1] = math.Inf(-1) }, "r(0, 1, 1) = -Inf"},
		{"kernel of 1 state", func(_ *[][][]float64, p *[][][][]float64, _ *float64) {
			*p = [][][][]float64{{{{1}, {1}}, {{1}, {1}}}}
		}, "the kernel has 1 states × 4 joint actions, want 2 × 4"},
		{"kernel of other actions", func(r *[][][]float64, _ *[][][][]float64, _ *float64) {
			*r = [][][]float64{{{1, 0, 0}, {0, 1, 0}}, {{1, 0, 0}, {0, 0.5, 0}}}
		}, "the kernel has 2 states × 4 joint actions, want 2 × 6"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, p := validTables()
			gamma := 0.9
			c.mutate(&r, &p, &gamma)
			g, err := newDiscounted(r, p, gamma)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("NewDiscounted: game %v, error %v, want %q", g, err, c.want)
			}
		})
	}
}

func TestNewDiscountedCopiesAndAccessors(t *testing.T) {
	r, p := validTables()
	p[1][1][0] = []float64{0.25, 0.75}
	g, err := newDiscounted(r, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	r[0][0][0], p[1][1][0][0] = 7, 7
	if S, A, B := g.Dims(); S != 2 || A != 2 || B != 2 || g.Discount() != 0 {
		t.Fatalf("Dims %d %d %d, γ %v", S, A, B, g.Discount())
	}
	if g.Reward(0, 0, 0) != 1 || g.Reward(1, 1, 1) != 0.5 || g.Transition(1, 1, 0)[1] != 0.75 {
		t.Errorf("NewDiscounted did not copy its input")
	}
	if !g.InUnit() {
		t.Errorf("InUnit = false")
	}
	z := g.Stage(1, []float64{10, 20})
	if z.At(1, 0) != 0+0 || z.At(1, 1) != 0.5 {
		// γ = 0: the stage game is the reward matrix.
		t.Errorf("Stage at γ = 0: %v", z.Payoffs())
	}
	for _, f := range []func(){
		func() { g.Reward(2, 0, 0) },
		func() { g.Transition(0, -1, 0) },
		func() { g.Stage(0, []float64{1}) },
	} {
		func() {
			defer func() {
				if e := recover(); e == nil || !strings.HasPrefix(e.(string), "markov: ") {
					t.Errorf("want a markov panic, got %v", e)
				}
			}()
			f()
		}()
	}
}

func TestStageAndStep(t *testing.T) {
	g := t6Game(t)
	z := g.Stage(1, []float64{2, 4})
	// Q = R_1 + 0.9·(0.5·2 + 0.5·4) = R_1 + 2.7.
	want := [][]float64{{3.7, 2.7}, {2.7, 3.2}}
	for a := range 2 {
		for b := range 2 {
			if !near(z.At(a, b), want[a][b], 1e-12) {
				t.Errorf("Q(1, %d, %d) = %v, want %v", a, b, z.At(a, b), want[a][b])
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	var ones, next1 int
	const n = 10000
	for range n {
		r, next := g.StepNoise(1, 1, 1, nil, rng) // Bernoulli(0.5) reward
		if r == 1 {
			ones++
		}
		next1 += next
	}
	if math.Abs(float64(ones)/n-0.5) > 0.02 || math.Abs(float64(next1)/n-0.5) > 0.02 {
		t.Errorf("Step frequencies: reward 1 %d/%d, next state 1 %d/%d", ones, n, next1, n)
	}
	if r, _ := g.StepNoise(1, 1, 1, game.Exact{}, rng); r != 0.5 {
		t.Errorf("exact reward %v", r)
	}
}

// fuzzReader decodes arbitrary bytes into sizes and floats; it returns zeros
// once the bytes run out.
type fuzzReader struct{ b []byte }

func (f *fuzzReader) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

// float returns a number in [0, 1] most of the time and, for a few byte
// values, an adversarial one (NaN, ±Inf, negative, huge, raw bits).
func (f *fuzzReader) float() float64 {
	c := f.byte()
	switch c {
	case 255:
		return math.NaN()
	case 254:
		return math.Inf(1)
	case 253:
		return -0.25
	case 252:
		return 1e300
	case 251:
		if len(f.b) >= 8 {
			v := math.Float64frombits(binary.LittleEndian.Uint64(f.b))
			f.b = f.b[8:]
			return v
		}
	}
	return float64(c) / 250
}

// FuzzNewDiscounted decodes bytes into a (possibly invalid) game, its
// reward table sometimes of another shape than its kernel. NewDiscounted must never panic, and an accepted game must satisfy
// the invariants, and the solvers must not panic on it.
func FuzzNewDiscounted(f *testing.F) {
	f.Add([]byte{1, 1, 1, 0, 90, 0, 10, 20, 30, 40, 50, 60, 70, 80})
	f.Add([]byte{3, 2, 2, 1, 200, 1, 255, 1, 2, 3})
	f.Add([]byte{0, 0, 0, 3, 230, 0, 251, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f})
	f.Add([]byte{2, 1, 0, 2, 0, 1, 252, 252, 100, 100, 0, 250})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzReader{b: data}
		S, A, B := int(in.byte()%4), int(in.byte()%3)+1, int(in.byte()%3)+1
		mode := in.byte()
		var gamma float64
		switch c := in.byte(); c {
		case 255:
			gamma = math.NaN()
		case 254:
			gamma = 1
		case 253:
			gamma = -0.1
		default:
			gamma = float64(c) / 253
		}
		normalise := mode&1 == 1
		if S == 0 {
			if g, err := NewDiscounted(nil, nil, gamma); err == nil || g != nil {
				t.Fatalf("no state: game %v, error %v", g, err)
			}
			return
		}
		r, _ := tensor.New[float64](S, A, B)
		p, _ := tensor.New[float64](S, A*B, S)
		for s := range S {
			for j := range A * B {
				r.Set(in.float(), s, j/B, j%B)
				row := p.Row(s, j)
				var sum float64
				for s2 := range row {
					row[s2] = in.float()
					sum += row[s2]
				}
				if normalise && sum > 0 && !math.IsInf(sum, 0) {
					for s2 := range row {
						row[s2] /= sum
					}
				}
			}
		}
		k, err := NewDenseKernel(p)
		if err != nil {
			if k != nil {
				t.Fatal("kernel returned with an error")
			}
			return
		}
		if mode&2 == 2 { // a reward table of another shape than the kernel's
			r, _ = tensor.New[float64](S, A, B+1)
		}
		g, err := NewDiscounted(r, k, gamma)
		if err != nil {
			if g != nil {
				t.Fatal("game returned with an error")
			}
			return
		}
		gs, ga, gb := g.Dims()
		if gs != S || ga != A || gb != B || !(g.Discount() >= 0 && g.Discount() < 1) {
			t.Fatalf("accepted game has dims %d×%d×%d, γ %v", gs, ga, gb, g.Discount())
		}
		for s := range S {
			for a := range A {
				for b := range B {
					if v := g.Reward(s, a, b); math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("accepted reward %v", v)
					}
					var sum float64
					for _, q := range g.Transition(s, a, b) {
						if !(q >= 0) || q > 1+1e-9 {
							t.Fatalf("accepted probability %v", q)
						}
						sum += q
					}
					if math.Abs(sum-1) > 1e-9 {
						t.Fatalf("accepted row sums to %v", sum)
					}
				}
			}
		}
		// The solvers may return errors (overflow) but must not panic.
		x, y := UniformStationary(S, A), UniformStationary(S, B)
		if v, err := g.Evaluate(x, y); err == nil {
			if _, mx, err := g.Gap(x, y); err == nil && g.InUnit() {
				hi := 1 / (1 - g.Discount())
				for _, w := range v {
					if w < -1e-9 || w > hi*(1+1e-9) {
						t.Fatalf("value %v outside [0, 1/(1−γ)]", w)
					}
				}
				if mx < 0 || mx > hi*(1+1e-9) {
					t.Fatalf("gap %v", mx)
				}
			}
		}
		if g.InUnit() {
			sol, err := ShapleyValueIteration(g, 1e-6, 500)
			if err == nil {
				if _, mx, err := g.Gap(sol.X, sol.Y); err != nil || mx > 1e-5 {
					t.Fatalf("Shapley solution gap %v, %v", mx, err)
				}
			}
		} else {
			_, _ = ShapleyValueIteration(g, 1e-6, 5)
		}
		if L, err := MaxHittingTime(g); err == nil && (L < 0 || math.IsNaN(L)) {
			t.Fatalf("MaxHittingTime %v", L)
		}
	})
}

// newDiscounted is NewDiscounted of nested tables: rewards S × A × B and
// transitions S × A × B × S (it panics on an empty or ragged table).
func newDiscounted(rewards [][][]float64, transitions [][][][]float64, gamma float64) (*Discounted, error) {
	k, err := NewDenseKernel(nested.Dense4(transitions))
	if err != nil {
		return nil, err
	}
	return NewDiscounted(nested.Dense3(rewards), k, gamma)
}

// newGeneralSum is NewDiscountedGeneralSum of nested S × J × N rewards and
// S × J × S transitions (it panics on an empty or ragged table).
func newGeneralSum(actions []int, rewards [][][]float64, transitions [][][]float64, gamma float64, initial []float64) (*DiscountedGeneralSum, error) {
	k, err := NewDenseKernel(nested.Dense3(transitions))
	if err != nil {
		return nil, err
	}
	return NewDiscountedGeneralSum(actions, nested.Dense3(rewards), k, gamma, initial)
}

// newCooperative is NewDiscountedGeneralSum of a team's nested shared S × J
// rewards and S × J × S transitions.
func newCooperative(actions []int, rewards [][]float64, transitions [][][]float64, gamma float64, initial []float64) (*DiscountedGeneralSum, error) {
	k, err := NewDenseKernel(nested.Dense3(transitions))
	if err != nil {
		return nil, err
	}
	return NewDiscountedGeneralSum(actions, nested.Dense2(rewards), k, gamma, initial)
}

// newEpisodic is NewEpisodic of nested H × S × J × N rewards and
// transitions, H × S × J × S or one time-homogeneous layer.
func newEpisodic(actions []int, start int, rewards [][][][]float64, transitions [][][][]float64) (*Episodic, error) {
	ks, err := DenseKernels(nested.Dense4(transitions))
	if err != nil {
		return nil, err
	}
	return NewEpisodic(actions, start, len(rewards), nested.Dense4(rewards), ks)
}

// newTeam is NewEpisodic of a team's nested shared H × S × J rewards.
func newTeam(actions []int, start int, rewards [][][]float64, transitions [][][][]float64) (*Episodic, error) {
	ks, err := DenseKernels(nested.Dense4(transitions))
	if err != nil {
		return nil, err
	}
	return NewEpisodic(actions, start, len(rewards), nested.Dense3(rewards), ks)
}

// newZeroSum is NewZeroSumEpisodic of player 0's nested H × S ×
// (rows·cols) rewards.
func newZeroSum(rows, cols, start int, rewards [][][]float64, transitions [][][][]float64) (*Episodic, error) {
	ks, err := DenseKernels(nested.Dense4(transitions))
	if err != nil {
		return nil, err
	}
	r := nested.Dense3(rewards)
	r4, err := tensor.FromData(r.Data(), r.Dim(0), r.Dim(1), rows, cols)
	if err != nil {
		return nil, err
	}
	return NewZeroSumEpisodic(rows, cols, start, len(rewards), r4, ks)
}

// TestStageDenseSameBits checks that the dense kernel's stage games, built
// without rowDot's dispatch, are the expectations summed in state order
// from zero, bit for bit, and that rowDot sums the same way.
func TestStageDenseSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g, err := RandomDiscounted(7, 3, 4, 0.95, rng)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.kern.(*DenseKernel); !ok {
		t.Fatalf("RandomDiscounted's kernel is %T, want *DenseKernel", g.kern)
	}
	v := make([]float64, 7)
	for i := range v {
		v[i] = 10 * rng.NormFloat64()
	}
	for s := range 7 {
		z := g.Stage(s, v)
		for a := range 3 {
			for b := range 4 {
				var ev float64
				for s2, p := range g.Transition(s, a, b) {
					ev += p * v[s2]
				}
				if got := rowDot(g.kern, s, a*4+b, v); got != ev {
					t.Errorf("rowDot(%d, %d) = %v, want %v", s, a*4+b, got, ev)
				}
				want := g.Reward(s, a, b) + g.gamma*ev
				if got := z.At(a, b); got != want {
					t.Errorf("Q(%d, %d, %d) = %v, want %v", s, a, b, got, want)
				}
			}
		}
	}
}
