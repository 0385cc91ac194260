package nonstationary

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/learner/bandit"
)

// TestBadInputs replays bad inputs to the constructors and runners and
// asserts the sentinel each error wraps.
func TestBadInputs(t *testing.T) {
	env3, err := NewSMPyProblem(1, 10)
	if err != nil {
		t.Fatal(err)
	}
	ucb3, err := bandit.NewUCB1(bandit.UCB1Config{Arms: 3, Horizon: 10})
	if err != nil {
		t.Fatal(err)
	}
	ucb := func() (bandit.Learner, error) {
		return bandit.NewUCB1(bandit.UCB1Config{Arms: 2, Horizon: 10})
	}
	rng := rand.New(rand.NewPCG(1, 1))
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"NaN mean", second(NewPiecewiseBernoulli([][]float64{{math.NaN(), 0.5}}, []int{0}, 10)), icrl.ErrNotFinite},
		{"mean above one", second(NewPiecewiseBernoulli([][]float64{{1.5, 0.5}}, []int{0}, 10)), icrl.ErrInvalid},
		{"zero horizon", second(NewPiecewiseBernoulli([][]float64{{0.5, 0.5}}, []int{0}, 0)), icrl.ErrInvalid},
		{"negative noise", second(NewPiecewiseGaussian([][]float64{{0.5, 0.5}}, []int{0}, -1, 10)), icrl.ErrInvalid},
		{"MASTER nil factory", second(NewMaster(ScaledMasterConfig(10, RhoFunc(bandit.RhoUCB1(2, 10, 1))), nil, rng)), icrl.ErrNil},
		{"MASTER nil rng", second(NewMaster(ScaledMasterConfig(10, RhoFunc(bandit.RhoUCB1(2, 10, 1))), ucb, nil)), icrl.ErrNil},
		{"MALG nil factory", second(NewMALG(2, 0, nil, nil, rng)), icrl.ErrNil},
		{"Run(nil rng)", second(Run(context.Background(), env3, ucb3, nil)), icrl.ErrNil},
		{"Master{}.Observe", new(Master).Observe(1, [][]float64{{1}}, 0, 0.5), icrl.ErrNil},
		{"SW-UCB no arms", second(NewSlidingWindowUCB(SlidingWindowUCBConfig{})), icrl.ErrInvalid},
		{"SW-UCB 2^40 arms", second(NewSlidingWindowUCB(SlidingWindowUCBConfig{Arms: 1 << 40})), icrl.ErrTooLarge},
		{"SW-UCB window 2^40", second(NewSlidingWindowUCB(SlidingWindowUCBConfig{Arms: 2, Window: 1 << 40})), icrl.ErrTooLarge},
		{"D-UCB 2^40 arms", second(NewDiscountedUCB(DiscountedUCBConfig{Arms: 1 << 40})), icrl.ErrTooLarge},
		{"SMPy horizon 2^40", second(NewSMPyProblem(1, 1<<40)), icrl.ErrTooLarge},
		{"random action sets 2^20 × 2^10 × 2^10", second(RandomActions(1<<20, 1<<10, 1<<10, rand.New(rand.NewPCG(1, 0)))), icrl.ErrTooLarge},
		{"Monte Carlo nil generator", second(MonteCarlo(context.Background(), nil, ucb, 1, 1)), icrl.ErrNil},
		{"Monte Carlo zero runs", second(MonteCarlo(context.Background(), func(*rand.Rand) (Env, error) { return nil, nil }, ucb, 0, 1)), icrl.ErrInvalid},
	}
	set, err := FixedActions([][]float64{{1}, {-1}})
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct {
		name string
		err  error
		want error
	}{"infinite frequency", second(NewCosine([]float64{1}, set, 1, math.Inf(1), 10)), icrl.ErrNotFinite})
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want an error wrapping %v", c.name, c.err, c.want)
		}
	}
}

// second returns the error of a two-result call.
func second[T any](_ T, err error) error { return err }
