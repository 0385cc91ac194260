package markov

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl/internal/nested"
	"github.com/icrl-go/icrl/tensor"
)

// kernRandomLocal returns random local laws for players with the given
// numbers of local states and actions; sparse rows have about half their
// entries zero (at least one non-zero).
func kernRandomLocal(pos, act []int, sparse bool, rng *rand.Rand) [][][][]float64 {
	local := make([][][][]float64, len(pos))
	for i := range local {
		local[i] = make([][][]float64, act[i])
		for a := range local[i] {
			local[i][a] = make([][]float64, pos[i])
			for p := range local[i][a] {
				local[i][a][p] = kernRandomRow(pos[i], sparse, rng)
			}
		}
	}
	return local
}

// kernRandomRow returns a random distribution over n entries.
func kernRandomRow(n int, sparse bool, rng *rand.Rand) []float64 {
	row := make([]float64, n)
	var sum float64
	for q := range row {
		if sparse && q != n/2 && rng.IntN(2) == 0 {
			continue
		}
		row[q] = rng.ExpFloat64()
		sum += row[q]
	}
	for q := range row {
		row[q] /= sum
	}
	return row
}

// kernExpand returns the dense table of a product kernel, computed from
// the definition P(s'|s, j) = Π_i L_i(p'_i|p_i, a_i).
func kernExpand(local [][][][]float64) [][][]float64 {
	n := len(local)
	S, J := 1, 1
	for _, li := range local {
		S *= len(li[0])
		J *= len(li)
	}
	digits := func(x int, radix func(int) int) []int {
		d := make([]int, n)
		for i := n - 1; i >= 0; i-- {
			d[i] = x % radix(i)
			x /= radix(i)
		}
		return d
	}
	pos := func(i int) int { return len(local[i][0]) }
	act := func(i int) int { return len(local[i]) }
	out := make([][][]float64, S)
	for s := range S {
		p := digits(s, pos)
		out[s] = make([][]float64, J)
		for j := range J {
			a := digits(j, act)
			out[s][j] = make([]float64, S)
			for s2 := range S {
				q := digits(s2, pos)
				x := 1.0
				for i := range n {
					x *= local[i][a[i]][p[i]][q[i]]
				}
				out[s][j][s2] = x
			}
		}
	}
	return out
}

// ownKernel hides a kernel's type, as a caller's own implementation would.
type ownKernel struct{ Kernel }

// kernCSR returns the CSR arrays of a dense table, dropping zeros.
func kernCSR(p [][][]float64) (off, next []int, prob []float64) {
	off = []int{0}
	for _, ps := range p {
		for _, row := range ps {
			for s2, v := range row {
				if v != 0 {
					next = append(next, s2)
					prob = append(prob, v)
				}
			}
			off = append(off, len(next))
		}
	}
	return off, next, prob
}

// TestKernelsAgree checks that the dense, sparse and product forms of the
// same random law (three players with 2, 3 and 4 local states and 3, 2 and
// 2 actions, dense and sparse local rows) give the same expectations to
// 1e-12 for one and three columns, the same rows, and the same samples
// from the same random stream; and that SparseFrom reproduces each.
func TestKernelsAgree(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		rng := epiNewRNG(11)
		pos, act := []int{2, 3, 4}, []int{3, 2, 2}
		local := kernRandomLocal(pos, act, sparse, rng)
		table := kernExpand(local)
		dk, err := NewDenseKernel(nested.Dense3(table))
		if err != nil {
			t.Fatal(err)
		}
		off, next, prob := kernCSR(table)
		sk, err := NewSparseKernel(24, 12, off, next, prob)
		if err != nil {
			t.Fatal(err)
		}
		pk, err := NewProductKernel(nested.Dense3s(local))
		if err != nil {
			t.Fatal(err)
		}
		kernels := map[string]Kernel{"dense": dk, "sparse": sk, "product": pk, "sparse-from-product": SparseFrom(pk), "caller's own": ownKernel{pk}}
		for name, k := range kernels {
			if S, J := k.Shape(); S != 24 || J != 12 {
				t.Fatalf("sparse=%v %s: shape %d×%d, want 24×12", sparse, name, S, J)
			}
			for _, m := range []int{1, 3} {
				v := make([]float64, m*24)
				for x := range v {
					v[x] = rng.NormFloat64()
				}
				got := make([]float64, 24*12*m)
				k.Expect(got, v, m)
				for s := range 24 {
					for j := range 12 {
						for c := range m {
							var want float64
							for s2, q := range table[s][j] {
								want += q * v[c*24+s2]
							}
							if g := got[c*24*12+s*12+j]; math.Abs(g-want) > 1e-12 {
								t.Fatalf("sparse=%v %s: Expect m=%d at (s=%d, j=%d, c=%d) = %v, want %v", sparse, name, m, s, j, c, g, want)
							}
						}
					}
				}
			}
			var nb []int
			var pb []float64
			for s := range 24 {
				for j := range 12 {
					nb, pb = k.Row(s, j, nb, pb)
					row := make([]float64, 24)
					for e, s2 := range nb {
						if e > 0 && s2 <= nb[e-1] {
							t.Fatalf("sparse=%v %s: Row(%d, %d) not increasing: %v", sparse, name, s, j, nb)
						}
						if !(pb[e] > 0) {
							t.Fatalf("sparse=%v %s: Row(%d, %d) has probability %v", sparse, name, s, j, pb[e])
						}
						row[s2] = pb[e]
					}
					added := make([]float64, 24)
					added[0] = 1
					AddRow(added, k, s, j, 2)
					added[0]--
					for s2, q := range table[s][j] {
						if math.Abs(row[s2]-q) > 1e-15 {
							t.Fatalf("sparse=%v %s: Row(%d, %d)[%d] = %v, want %v", sparse, name, s, j, s2, row[s2], q)
						}
						if math.Abs(added[s2]-2*q) > 1e-15 {
							t.Fatalf("sparse=%v %s: AddRow(%d, %d)[%d] = %v, want %v", sparse, name, s, j, s2, added[s2], 2*q)
						}
					}
				}
			}
		}
		// Samples: the same stream gives the same states (inverse CDF in
		// state order) and the empirical law matches the row.
		for _, sj := range [][2]int{{0, 0}, {13, 7}, {23, 11}} {
			s, j := sj[0], sj[1]
			r1, r2, r3 := epiNewRNG(5), epiNewRNG(5), epiNewRNG(5)
			counts := make([]float64, 24)
			const draws = 20000
			for range draws {
				a, b, c := dk.Sample(s, j, r1), sk.Sample(s, j, r2), pk.Sample(s, j, r3)
				if a != b || a != c {
					t.Fatalf("sparse=%v: Sample(%d, %d): dense %d, sparse %d, product %d", sparse, s, j, a, b, c)
				}
				counts[c]++
			}
			for s2, q := range table[s][j] {
				if f := counts[s2] / draws; math.Abs(f-q) > 4*math.Sqrt(q*(1-q)/draws)+1e-12 {
					t.Fatalf("sparse=%v: Sample(%d, %d) frequency of %d = %v, want %v", sparse, s, j, s2, f, q)
				}
			}
		}
	}
}

// TestKernelsOneState checks the degenerate sizes: one state, one joint
// action.
func TestKernelsOneState(t *testing.T) {
	pk, err := NewProductKernel(nested.Dense3s([][][][]float64{{{{1}}}}))
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 2)
	pk.Expect(dst, []float64{3, -1}, 2)
	if dst[0] != 3 || dst[1] != -1 {
		t.Fatalf("one-state product Expect = %v, want [3 -1]", dst)
	}
	if s := pk.Sample(0, 0, epiNewRNG(1)); s != 0 {
		t.Fatalf("one-state Sample = %d", s)
	}
}

// TestKernelErrors checks that the constructors reject malformed laws with
// errors that wrap ErrKernel and name the entry.
func TestKernelErrors(t *testing.T) {
	good := [][]float64{{0.5, 0.5}, {1, 0}}
	for _, c := range []struct {
		name string
		p    [][][]float64
		want string
	}{
		{"negative", [][][]float64{good, {{1.5, -0.5}, {1, 0}}}, "P(s'=1|s=1, joint=0) = -0.5"},
		{"NaN", [][][]float64{good, {{math.NaN(), 1}, {1, 0}}}, "P(s'=0|s=1, joint=0) = NaN"},
		{"Inf", [][][]float64{good, {{math.Inf(1), 1}, {1, 0}}}, "P(s'=0|s=1, joint=0) = +Inf"},
		{"sum", [][][]float64{good, {{0.5, 0.4}, {1, 0}}}, "P(·|s=1, joint=0) sums to 0.9"},
	} {
		_, err := NewDenseKernel(nested.Dense3(c.p))
		if !errors.Is(err, ErrKernel) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("dense %s: error %v, want ErrKernel naming %q", c.name, err, c.want)
		}
	}
	flat, _ := tensor.FromData([]float64{1, 0, 0, 1}, 2, 2)
	wrong, _ := tensor.FromData([]float64{1, 0, 0, 1, 1, 0}, 2, 1, 3)
	for name, p := range map[string]*tensor.Dense[float64]{"nil": nil, "rank 2": flat, "rows over 3 states": wrong} {
		if _, err := NewDenseKernel(p); !errors.Is(err, ErrKernel) {
			t.Errorf("dense %s: error %v, want ErrKernel", name, err)
		}
	}
	for _, c := range []struct {
		name      string
		off, next []int
		prob      []float64
		want      string
	}{
		{"offsets", []int{0, 1}, []int{0}, []float64{1}, "2 offsets, want S·J+1 = 3"},
		{"lengths", []int{0, 1, 2}, []int{0, 1}, []float64{1}, "2 next states but 1 probabilities"},
		{"ends", []int{1, 1, 2}, []int{0, 1}, []float64{1, 1}, "offsets run from 1 to 2"},
		{"past the end", []int{0, 3, 2}, []int{0, 0}, []float64{0.5, 0.5}, "row (s=0, joint=0) has offsets 0 to 3"},
		{"range", []int{0, 1, 2}, []int{0, 2}, []float64{1, 1}, "next state 2 out of range [0, 2)"},
		{"negative state", []int{0, 1, 2}, []int{-1, 1}, []float64{1, 1}, "next state -1 out of range"},
		{"order", []int{0, 2, 3}, []int{1, 0, 1}, []float64{0.5, 0.5, 1}, "lists next state 0 after 1"},
		{"duplicate", []int{0, 2, 3}, []int{1, 1, 1}, []float64{0.5, 0.5, 1}, "lists next state 1 after 1"},
		{"negative", []int{0, 2, 3}, []int{0, 1, 1}, []float64{1.5, -0.5, 1}, "P(s'=1|s=0, joint=0) = -0.5"},
		{"NaN", []int{0, 1, 2}, []int{0, 0}, []float64{1, math.NaN()}, "P(s'=0|s=0, joint=1) = NaN"},
		{"sum", []int{0, 1, 2}, []int{0, 0}, []float64{1, 0.5}, "P(·|s=0, joint=1) sums to 0.5"},
	} {
		_, err := NewSparseKernel(1, 2, c.off, c.next, c.prob)
		if c.name == "range" || c.name == "negative state" || c.name == "order" || c.name == "duplicate" || c.name == "negative" {
			_, err = NewSparseKernel(2, 1, c.off, c.next, c.prob)
		}
		if !errors.Is(err, ErrKernel) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sparse %s: error %v, want ErrKernel naming %q", c.name, err, c.want)
		}
	}
	if _, err := NewSparseKernel(0, 1, []int{0}, nil, nil); !errors.Is(err, ErrKernel) {
		t.Errorf("sparse with no state: error %v", err)
	}
	for _, c := range []struct {
		name  string
		local [][][][]float64
		want  string
	}{
		{"no player", nil, "no player"},
		{"negative", [][][][]float64{{{{1}}}, {{{1.5, -0.5}, {0, 1}}}}, "L_1(p'=1|p=0, a=0) = -0.5"},
		{"sum", [][][][]float64{{{{1, 0}, {0.3, 0.3}}}}, "L_0(·|p=1, a=0) sums to 0.6"},
	} {
		_, err := NewProductKernel(nested.Dense3s(c.local))
		if !errors.Is(err, ErrKernel) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("product %s: error %v, want ErrKernel naming %q", c.name, err, c.want)
		}
	}
	wide, _ := tensor.New[float64](2, 2, 3)
	law2, _ := tensor.New[float64](2, 2)
	for name, l := range map[string]*tensor.Dense[float64]{"nil": nil, "rank 2": law2, "A × 2 × 3": wide} {
		if _, err := NewProductKernel([]*tensor.Dense[float64]{l}); !errors.Is(err, ErrKernel) || !strings.Contains(err.Error(), "want A × P × P") {
			t.Errorf("product law %s: error %v, want ErrKernel naming the shape", name, err)
		}
	}
}
