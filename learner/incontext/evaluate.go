package incontext

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer"
)

// ImitationStats summarises how closely a model imitates the expert along
// held-out trajectories ([Imitation]).
type ImitationStats struct {
	// Trajectories and Rounds count what was evaluated.
	Trajectories, Rounds int
	// TV is the mean total-variation distance between the model's policy
	// and the expert's label over all rounds.
	TV float64
	// TVByRound[t] is the mean over trajectories of that distance at round
	// t+1 (over the trajectories that long).
	TVByRound []float64
	// Agreement is the fraction of rounds at which the model's most likely
	// action is a most likely action of the label.
	Agreement float64
}

// Imitation plays the model along each trajectory, teacher-forced (the
// context is the trajectory's own rounds, not the model's choices), and
// compares its policy at every round with the expert's label: the
// imitation error that the in-context results bound (in-context-games-omd
// Theorems 4.1 and 4.3 bound the distance between the model's and the
// expert's policies). The model keeps its sliding context past its
// capacity. Trajectories are spread over the cores; the result does not
// depend on GOMAXPROCS.
//
// It returns an error if the model is nil, there is no trajectory, a
// trajectory is invalid for the encoder, or the model fails.
func Imitation[F tensor.Float, O any](model transformer.Transformer[F], enc Encoder[O], trajs []Trajectory[O], cfg Config) (ImitationStats, error) {
	var st ImitationStats
	if nilness.Is(model) {
		return st, fmt.Errorf("%w: Imitation needs a model, got nil", icrl.ErrNil)
	}
	if len(trajs) == 0 {
		return st, fmt.Errorf("%w: Imitation needs at least one trajectory", icrl.ErrInvalid)
	}
	if err := validate(enc); err != nil {
		return st, err
	}
	_, _, A := enc.Shape()
	tv := make([][]float64, len(trajs))
	agree := make([]int, len(trajs))
	err := parallel.For(len(trajs), func(i int) error {
		tr := &trajs[i]
		if err := tr.check(A); err != nil {
			return fmt.Errorf("incontext: Imitation trajectory %d: %w", i, err)
		}
		s, err := newSession(model, enc, cfg)
		if err != nil {
			return err
		}
		pol := make([]float64, A)
		tv[i] = make([]float64, len(tr.Rounds))
		for t, r := range tr.Rounds {
			logits, err := s.observe(r.Obs)
			if err != nil {
				return fmt.Errorf("incontext: Imitation trajectory %d round %d: %w", i, t+1, err)
			}
			s.policy(pol, logits)
			tv[i][t] = simplex.TotalVariation(pol, tr.Labels[t])
			if lab := tr.Labels[t]; lab[floats.MaxIdx(pol)] >= floats.Max(lab) {
				agree[i]++
			}
			if err := s.outcome(r); err != nil {
				return fmt.Errorf("incontext: Imitation trajectory %d round %d: %w", i, t+1, err)
			}
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	st.Trajectories = len(trajs)
	var count []int
	var sum float64
	for i, d := range tv {
		for t, v := range d {
			if t == len(st.TVByRound) {
				st.TVByRound = append(st.TVByRound, 0)
				count = append(count, 0)
			}
			st.TVByRound[t] += v
			count[t]++
			sum += v
		}
		st.Rounds += len(d)
		st.Agreement += float64(agree[i])
	}
	for t := range st.TVByRound {
		st.TVByRound[t] /= float64(count[t])
	}
	st.TV = sum / float64(st.Rounds)
	st.Agreement /= float64(st.Rounds)
	return st, nil
}

// Play pits two in-context models against each other in g, the row model
// through rowEnc and the column model through colEnc, with
// play.SelfPlay: the in-context play of in-context-games-omd §5. The
// result's gaps are those of the models' last policies when g is a
// game.Model. ctx stops the play as it stops play.SelfPlay. It returns
// an error if a model or encoder does not fit the game, or self-play fails.
func Play[F tensor.Float](ctx context.Context, g game.Game, row, col transformer.Transformer[F], rowEnc, colEnc GameEncoder, cfg play.SelfPlayConfig, rng *rand.Rand) (*play.SelfPlayResult, error) {
	if nilness.Is(g) {
		return nil, fmt.Errorf("%w: Play needs a game, got nil", icrl.ErrNil)
	}
	var ls [2]learner.Learner
	for i, p := range []struct {
		m   transformer.Transformer[F]
		enc GameEncoder
		pl  game.Player
	}{{row, rowEnc, game.RowPlayer}, {col, colEnc, game.ColumnPlayer}} {
		if p.enc.States != g.States() || p.enc.Actions != g.Actions(p.pl) {
			return nil, fmt.Errorf("%w: Play: the %v's encoder has %d states and %d actions, the game %d and %d", icrl.ErrInvalid, p.pl, p.enc.States, p.enc.Actions, g.States(), g.Actions(p.pl))
		}
		if opp := g.Actions(1 - p.pl); p.enc.Joint() && p.enc.Opponents != opp {
			return nil, fmt.Errorf("%w: Play: the %v's joint-action encoder has Opponents = %d, the game gives the opponent %d actions", icrl.ErrInvalid, p.pl, p.enc.Opponents, opp)
		}
		l, err := NewLearner(p.m, p.enc, Config{})
		if err != nil {
			return nil, fmt.Errorf("incontext: Play %v: %w", p.pl, err)
		}
		ls[i] = l
	}
	return play.SelfPlay(ctx, g, ls[0], ls[1], cfg, rng)
}
