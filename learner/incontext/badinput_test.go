package incontext_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/transformer"
)

// TestBadInputSentinels replays bad configurations, observations and nil
// arguments and checks the sentinel each error wraps.
func TestBadInputSentinels(t *testing.T) {
	set := [][]float64{{1, 0}, {0, 1}}
	benc := incontext.BanditEncoder{Dim: 2, Arms: 2}
	genc := incontext.GameEncoder{States: 1, Actions: 2}
	encodeBandit := func(r incontext.Round[[][]float64], next [][]float64) error {
		_, _, _, err := incontext.Encode(benc, []incontext.Round[[][]float64]{r}, next)
		return err
	}
	encodeGame := func(r incontext.Round[int]) error {
		_, _, _, err := incontext.Encode[int](genc, []incontext.Round[int]{r}, 0)
		return err
	}
	prior := func(rng *rand.Rand) (*game.ZeroSum, error) { return game.MatchingPennies(), nil }
	collect := func(cfg incontext.CollectConfig) error {
		_, err := incontext.Collect(context.Background(), prior, cfg)
		return err
	}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"BanditEncoder{Arms: 2}", incontext.BanditEncoder{Arms: 2}.Validate(), icrl.ErrInvalid},
		{"BanditEncoder{RewardScale: NaN}", incontext.BanditEncoder{Dim: 1, Arms: 1, RewardScale: math.NaN()}.Validate(), icrl.ErrInvalid},
		{"GameEncoder{}", incontext.GameEncoder{}.Validate(), icrl.ErrInvalid},
		{"bandit arm 5", encodeBandit(incontext.Round[[][]float64]{Obs: set, Action: 5, Reward: 0.5}, set), incontext.ErrInput},
		{"bandit reward NaN", encodeBandit(incontext.Round[[][]float64]{Obs: set, Action: 0, Reward: math.NaN()}, set), incontext.ErrInput},
		{"bandit 3-wide action", encodeBandit(incontext.Round[[][]float64]{Obs: [][]float64{{1, 0, 0}, {0, 1, 0}}, Action: 0}, set), incontext.ErrInput},
		{"game action 2", encodeGame(incontext.Round[int]{Action: 2, Reward: 0.5}), incontext.ErrInput},
		{"game reward 5", encodeGame(incontext.Round[int]{Action: 0, Reward: 5}), incontext.ErrInput},
		{"Collect(nil prior)", second(incontext.Collect[*game.ZeroSum](context.Background(), nil, incontext.CollectConfig{Rounds: 1, Games: 1})), icrl.ErrNil},
		{"Collect(Rounds 0)", collect(incontext.CollectConfig{Games: 1}), icrl.ErrInvalid},
		{"Collect(Games −1)", collect(incontext.CollectConfig{Rounds: 1, Games: -1}), icrl.ErrInvalid},
		{"NewLearner(nil model)", second(incontext.NewLearner[float32](nil, genc, incontext.Config{})), icrl.ErrNil},
		{"NewBandit(nil model)", second(incontext.NewBandit[float32](nil, benc, incontext.Config{})), icrl.ErrNil},
		{"Bandit{}.Observe", new(incontext.Bandit[float32]).Observe(1, set, 0, 0.5), icrl.ErrNil},
		//lint:ignore SA1012 the nil context is the bad input under test
		{"Pretrain(nil ctx)", third(incontext.Pretrain[float32, [][]float64](nil, nil, benc, incontext.PretrainConfig[float32]{})), icrl.ErrNil},
		{"Pretrain(no trajectory)", third(incontext.Pretrain[float32, [][]float64](context.Background(), nil, benc, incontext.PretrainConfig[float32]{})), icrl.ErrInvalid},
		{"Collect(Observation 7)", collect(incontext.CollectConfig{Rounds: 1, Games: 1, Observation: 7}), icrl.ErrInvalid},
		{"Collect(Games 2^40)", collect(incontext.CollectConfig{Rounds: 1, Games: 1 << 40}), icrl.ErrInvalid},
		{"Pretrain(ValidationGroup 3 of 2)", third(incontext.Pretrain(context.Background(), make([]incontext.Trajectory[int], 2), genc, incontext.PretrainConfig[float32]{ValidationGroup: 3})), icrl.ErrInvalid},
		{"NEExpert.Follow(simulator)", second(new(incontext.NEExpert).Follow(simulator{}, game.RowPlayer, nil)), icrl.ErrInvalid},
		{"OMDExpert.Follow(nil game)", second(incontext.OMDExpert{}.Follow(nil, game.RowPlayer, nil)), icrl.ErrNil},
		{"OMDExpert.Follow(player 2)", second(incontext.OMDExpert{}.Follow(game.MatchingPennies(), 2, nil)), icrl.ErrInvalid},
		{"Uniform.Follow(typed nil)", second(incontext.Uniform{}.Follow((*game.ZeroSum)(nil), game.RowPlayer, nil)), icrl.ErrNil},
		{"Dirichlet.Follow(nil rng)", second(incontext.Dirichlet{}.Follow(game.MatchingPennies(), game.RowPlayer, nil)), icrl.ErrNil},
		{"Dirichlet{Alpha: Inf}", second(incontext.Dirichlet{Alpha: math.Inf(1)}.Follow(game.MatchingPennies(), game.RowPlayer, rand.New(rand.NewPCG(1, 1)))), icrl.ErrInvalid},
		{"Learner{}.ObserveJoint", new(incontext.Learner[float32]).ObserveJoint(0, 0, 0, 0.5, 0), icrl.ErrNil},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v, want one wrapping %v", c.name, c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func third[T, U any](_ T, _ U, err error) error { return err }

// TestTypedNilModel: a typed-nil model is a nil model (it was
// dereferenced).
func TestTypedNilModel(t *testing.T) {
	enc := incontext.GameEncoder{States: 1, Actions: 2}
	if _, err := incontext.NewLearner[float32]((*transformer.Model[float32])(nil), enc, incontext.Config{}); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("NewLearner(typed nil): %v, want ErrNil", err)
	}
	if _, err := incontext.NewBandit[float32]((*transformer.Model[float32])(nil), incontext.BanditEncoder{Dim: 2, Arms: 2}, incontext.Config{}); !errors.Is(err, icrl.ErrNil) {
		t.Errorf("NewBandit(typed nil): %v, want ErrNil", err)
	}
}

// simulator is a one-state game without a model.
type simulator struct{}

func (simulator) States() int                                   { return 1 }
func (simulator) Actions(game.Player) int                       { return 2 }
func (simulator) Start(*rand.Rand) int                          { return 0 }
func (simulator) Step(_, _, _ int, _ *rand.Rand) (float64, int) { return 0.5, 0 }
