package control

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestSection6Smoke runs, at reduced scale, the paper's
// setting with levels 10, …, 40. The quantised value is non-increasing in
// M, the node count is at most 1 + M + M², and errors are of order 10⁻²;
// a from-scratch run gives the same rows.
func TestSection6Smoke(t *testing.T) {
	cfg := Section6Config{MaxActions: 40, Seed: 6}
	if testing.Short() {
		cfg.MaxActions = 20
	}
	rows, err := RunSection6(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Scratch = true
	scratch, err := RunSection6(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("   M  value     train/tok  test/tok   nodes  out-of-grid  time")
	for i, r := range rows {
		t.Logf("%4d  %.5f   %.5f    %.5f  %6d  %.3f        %v", r.M, r.Value, r.TrainPerToken, r.TestPerToken, r.Nodes, r.OutOfGrid, r.Time)
		if i > 0 && r.Value > rows[i-1].Value {
			t.Errorf("M = %d: value %v above %v", r.M, r.Value, rows[i-1].Value)
		}
		if r.Nodes > int64(1+r.M+r.M*r.M) {
			t.Errorf("M = %d: %d nodes", r.M, r.Nodes)
		}
		if !(r.TrainPerToken > 1e-4 && r.TrainPerToken < 0.5 && r.TestPerToken < 0.5) {
			t.Errorf("M = %d: errors %v, %v out of range", r.M, r.TrainPerToken, r.TestPerToken)
		}
		if math.Abs(r.TrainPerSeq-4*r.TrainPerToken) > 1e-12 {
			t.Errorf("per-sequence error %v ≠ N × %v", r.TrainPerSeq, r.TrainPerToken)
		}
		s := scratch[i]
		if s.Value != r.Value || !slices.Equal(s.Actions, r.Actions) || s.TestPerToken != r.TestPerToken {
			t.Errorf("M = %d: scratch %v %v, nested %v %v", r.M, s.Value, s.Actions, r.Value, r.Actions)
		}
	}
}

// TestSection6Determinism checks the experiment: the same
// seed gives bit-identical rows, whatever Workers; another seed differs.
func TestSection6Determinism(t *testing.T) {
	ctx := context.Background()
	run := func(cfg Section6Config) []Section6Row {
		rows, err := RunSection6(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			rows[i].Time, rows[i].Total = 0, 0
		}
		return rows
	}
	cfg := Section6Config{MaxActions: 20, Seed: 42, Workers: 1}
	a := run(cfg)
	cfg.Workers = 8
	b := run(cfg)
	for i := range a {
		if a[i].Value != b[i].Value || !slices.Equal(a[i].Actions, b[i].Actions) || a[i].TestPerToken != b[i].TestPerToken ||
			a[i].OutOfGrid != b[i].OutOfGrid || a[i].Nodes != b[i].Nodes {
			t.Errorf("level %d: Workers=1 %+v, Workers=8 %+v", i, a[i], b[i])
		}
	}
	cfg.Seed = 43
	c := run(cfg)
	if c[0].Value == a[0].Value {
		t.Error("seeds 42 and 43 give the same value")
	}
	// float32 core: same shape of result.
	cfg.Seed, cfg.Float32 = 42, true
	f := run(cfg)
	if math.Abs(f[len(f)-1].Value-a[len(a)-1].Value) > 1e-3 {
		t.Errorf("float32 value %v, float64 %v", f[len(f)-1].Value, a[len(a)-1].Value)
	}
}

// TestSection6Variants runs T = 3 and the non-multiple ℓ = 18 (Reznik,
// general states) at small scale.
func TestSection6Variants(t *testing.T) {
	ctx := context.Background()
	for _, cfg := range []Section6Config{
		{T: 3, Step: 5, MaxActions: 10, Seed: 1},
		{Ell: 18, Step: 10, MaxActions: 20, Seed: 1},
	} {
		cfg = cfg.withDefaults()
		rows, err := RunSection6(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rows {
			if i > 0 && r.Value > rows[i-1].Value {
				t.Errorf("%+v: value rose at M = %d", cfg, r.M)
			}
			t.Logf("T=%d ℓ=%d M=%d: value %.5f train %.5f test %.5f nodes %d time %v",
				cfg.T, cfg.Ell, r.M, r.Value, r.TrainPerToken, r.TestPerToken, r.Nodes, r.Time)
		}
	}
}

func TestSection6ConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Section6Config
		want string
	}{
		{Section6Config{N: -1}, "N = -1"},
		{Section6Config{Beta: math.Inf(1)}, "Beta"},
		{Section6Config{EntryBound: -1}, "EntryBound"},
		{Section6Config{TargetC: math.NaN()}, "TargetC"},
		{Section6Config{Workers: -2}, "Workers"},
	} {
		_, err := RunSection6(context.Background(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if l := (Section6Config{Step: 30, MaxActions: 100}).Levels(); !slices.Equal(l, []int{30, 60, 90, 100}) {
		t.Errorf("levels %v", l)
	}
}
