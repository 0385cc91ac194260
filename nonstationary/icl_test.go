package nonstationary

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/icrl-go/icrl/learner/incontext"

	"github.com/icrl-go/icrl/learner/bandit"
	"github.com/icrl-go/icrl/transformer"
)

// smallLinearGen draws stationary linear bandits with the paper's instance
// distribution (SampleLBMInstance) and one fixed action set.
func smallLinearGen(d, A, T int, sigma float64) func(*rand.Rand) (Env, error) {
	return func(rng *rand.Rand) (Env, error) {
		w, acts := SampleLBMInstance(d, A, rng)
		as, err := FixedActions(acts)
		if err != nil {
			return nil, err
		}
		return NewLinear(w, as, sigma, T)
	}
}

func linUCBFactory(d int) bandit.Factory {
	return func() (bandit.Learner, error) { return bandit.NewLinUCB(bandit.LinUCBConfig{Dim: d}) }
}

func linTSFactory(d int) bandit.Factory {
	return func() (bandit.Learner, error) { return bandit.NewLinTS(bandit.LinTSConfig{Dim: d}) }
}

// TestCollectBandits checks the shared pipeline's bandit collection on this
// package's environments: trajectory k is Run of the behaviour on the
// environment of rand.NewPCG(seed, k), labelled by the expert on that
// history.
func TestCollectBandits(t *testing.T) {
	const d, A, T, n = 3, 4, 20, 9
	gen := smallLinearGen(d, A, T, 1.5)
	a, err := incontext.CollectBandits(context.Background(), gen, linTSFactory(d), linUCBFactory(d), n, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := incontext.CollectBandits(context.Background(), gen, linTSFactory(d), linUCBFactory(d), n, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != n {
		t.Fatalf("%d trajectories, want %d", len(a), n)
	}
	differ := 0
	for k := range a {
		tr := a[k]
		if len(tr.Rounds) != T || len(tr.Labels) != T {
			t.Fatalf("trajectory %d has %d rounds and %d labels, want %d", k, len(tr.Rounds), len(tr.Labels), T)
		}
		if !reflect.DeepEqual(tr, b[k]) {
			t.Errorf("trajectory %d differs between identical calls", k)
		}
		// Trajectory k plays the environment of rand.NewPCG(7, k): the
		// behaviour's run equals Run of a fresh LinTS on that generator.
		rng := rand.New(rand.NewPCG(7, uint64(k)))
		e, _ := gen(rng)
		l, _ := bandit.NewLinTS(bandit.LinTSConfig{Dim: d})
		res, err := Run(context.Background(), e, l, rng)
		if err != nil {
			t.Fatal(err)
		}
		for s, r := range tr.Rounds {
			if r.Action != res.Arms[s] || r.Reward != res.Rewards[s] {
				t.Fatalf("trajectory %d round %d is not Run(LinTS) on rand.NewPCG(7, %d)", k, s+1, k)
			}
		}
		// The labels are LinUCB's choices on the behaviour's history.
		x, _ := bandit.NewLinUCB(bandit.LinUCBConfig{Dim: d})
		for s := 1; s <= T; s++ {
			r := tr.Rounds[s-1]
			arm, _ := x.Act(s, r.Obs, nil)
			if tr.Labels[s-1][arm] != 1 {
				t.Fatalf("trajectory %d round %d: label %v, LinUCB on the history says %d", k, s, tr.Labels[s-1], arm)
			}
			if err := x.Observe(s, r.Obs, r.Action, r.Reward); err != nil {
				t.Fatal(err)
			}
			if r.Action != arm {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Error("LinTS behaviour never differs from the LinUCB labels")
	}
	// On-policy: with no behaviour the expert's arms are the labels.
	c, err := incontext.CollectBandits(context.Background(), gen, nil, linUCBFactory(d), 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	for k, tr := range c {
		for s, r := range tr.Rounds {
			if tr.Labels[s][r.Action] != 1 {
				t.Errorf("on-policy trajectory %d round %d: arm %d, label %v", k, s+1, r.Action, tr.Labels[s])
			}
		}
	}
	enc := incontext.BanditEncoder{Dim: d, Arms: A}
	ex, err := incontext.Examples[float32](a[:2], enc, true, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ex[0].Input.Features); got != (2*T-1)*enc.Width() {
		t.Errorf("example has %d features, want %d", got, (2*T-1)*enc.Width())
	}
	for p, l := range ex[1].Target.Labels {
		if p%2 == 1 && l != -1 || p%2 == 0 && a[1].Labels[p/2][l] != 1 {
			t.Errorf("label at position %d = %d", p, l)
		}
	}
	if _, err := incontext.CollectBandits(context.Background(), gen, nil, nil, 3, 7); err == nil {
		t.Error("nil expert: no error")
	}
	if _, err := incontext.CollectBandits(context.Background(), gen, nil, linUCBFactory(d), 0, 7); err == nil {
		t.Error("n = 0: no error")
	}
}

// uniformLearner plays uniformly at random: the no-learning reference.
type uniformLearner struct{ k int }

func (u *uniformLearner) Reset() {}
func (u *uniformLearner) Act(t int, actions [][]float64, rng *rand.Rand) (int, float64) {
	return rng.IntN(u.k), 0
}
func (u *uniformLearner) Observe(t int, actions [][]float64, arm int, reward float64) error {
	return nil
}

// TestTransformerImitatesLinUCB trains and plays a transformer through the
// shared in-context pipeline (learner/incontext) at a CPU-feasible preset: stationary linear bandits d = 5, A = 5, T = 50, σ = 1.5
// (the paper's instance distribution), on-policy LinUCB trajectories
// labelled by LinUCB, a 2-layer width-32 softmax transformer trained for
// 6 epochs (about 15–25 s on 2 cores), evaluated on 200 held-out
// environments. Measured with these seeds: teacher-forced agreement 0.801,
// agreement on the transformer's own history 0.305 (uniform play: 0.196),
// regret 15.3 against LinUCB's 11.3 (ratio 1.36; uniform 3.69); before the
// pipeline was shared (model seeded from the training seed) 0.804, 0.296
// and 1.42. Our
// 70% target (the paper gives no number) holds for the teacher-forced agreement only: on its own
// history the sampled policy drifts from the histories LinUCB generates and
// LinUCB, shadowing it, keeps exploring where the transformer has committed
// (see the report of the package's in-context support).
func TestTransformerImitatesLinUCB(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a transformer")
	}
	const d, A, T = 5, 5, 50
	const n, epochs = 2000, 6
	gen := smallLinearGen(d, A, T, 1.5)
	ucb := linUCBFactory(d)
	start := time.Now()
	trajs, err := incontext.CollectBandits(context.Background(), gen, nil, ucb, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	enc := incontext.BanditEncoder{Dim: d, Arms: A}
	m, res, err := incontext.Pretrain(context.Background(), trajs, enc, incontext.PretrainConfig[float32]{
		Model:              transformer.Config{Layers: 2, Heads: 2, Width: 32, FeedForward: 64},
		Train:              transformer.TrainConfig[float32]{BatchSize: 32, Epochs: epochs, Seed: 2, LR: transformer.ConstantLR(2e-3), TargetLoss: -1},
		Hard:               true,
		ValidationFraction: -1,
		Seed:               2,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("trained %d steps in %v, loss %.3f", res.Steps, time.Since(start), res.Loss)
	f, err := incontext.BanditFactory(m, enc, incontext.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := EvaluateImitation(gen, f, ucb, 200, 99)
	if err != nil {
		t.Fatal(err)
	}
	unif := func() (bandit.Learner, error) { return &uniformLearner{A}, nil }
	us, err := EvaluateImitation(gen, unif, ucb, 200, 99)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("transformer: agreement %.3f (teacher-forced %.3f), regret %.2f ± %.2f vs LinUCB %.2f ± %.2f (ratio %.2f); uniform: agreement %.3f, regret %.2f (ratio %.2f)",
		st.Agreement, st.ForcedAgreement, st.Regret, st.RegretStd, st.ExpertRegret, st.ExpertRegretStd, st.Ratio, us.Agreement, us.Regret, us.Ratio)
	if st.ForcedAgreement < 0.75 {
		t.Errorf("teacher-forced agreement %.3f < 0.75 (target 0.70; measured 0.804)", st.ForcedAgreement)
	}
	if st.Agreement < 0.25 || st.Agreement <= us.Agreement+0.05 {
		t.Errorf("agreement on own history %.3f: want ≥ 0.25 and well above uniform %.3f (measured 0.296)", st.Agreement, us.Agreement)
	}
	if st.Ratio > 1.6 {
		t.Errorf("regret ratio to LinUCB %.2f > 1.6 (target 1.5; measured 1.42)", st.Ratio)
	}
	if st.Regret > 0.5*us.Regret {
		t.Errorf("regret %.2f not below half the uniform policy's %.2f", st.Regret, us.Regret)
	}
}
