package incontext

import (
	"fmt"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game/simplex"
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer"
)

// Examples turns trajectories into training examples for
// transformer.Train: trajectory i of T rounds becomes the sequence of its
// first T−1 rounds and the observation of round T ([Encode]), with the
// expert's label of round t as the target at the position that predicts
// round t's action, for every t ≤ T. This is the pretraining objective of
// in-context-games-omd Eq. (1) (and nonstationary-transformers-master
// §2.2): the model imitates the expert's action at every round from the
// player's own history.
//
// With hard false the targets are the label distributions (soft targets,
// per-position weights 1 at the predicted positions, 0 elsewhere); with
// hard true each target is one action drawn from its label with rng (the
// label itself for one-hot labels), as a sampled expert action. It returns
// an error naming the trajectory if one is empty, its labels do not match
// its rounds or are not distributions over the encoder's actions, a round
// does not fit the encoder, or hard is set without rng. Memory: one
// sequence per trajectory, O(T·(width or 1) + T·A).
func Examples[F tensor.Float, O any](trajs []Trajectory[O], enc Encoder[O], hard bool, rng *rand.Rand) ([]transformer.Example[F], error) {
	if hard && rng == nil {
		return nil, fmt.Errorf("%w: Examples with hard labels needs a random source", icrl.ErrNil)
	}
	if err := validate(enc); err != nil {
		return nil, err
	}
	_, width, A := enc.Shape()
	out := make([]transformer.Example[F], len(trajs))
	for i := range trajs {
		tr := &trajs[i]
		if err := tr.check(A); err != nil {
			return nil, fmt.Errorf("incontext: Examples trajectory %d: %w", i, err)
		}
		T := len(tr.Rounds)
		seq, predict, err := encode(enc, tr.Rounds[:T-1], tr.Rounds[T-1].Obs)
		if err != nil {
			return nil, fmt.Errorf("incontext: Examples trajectory %d: %w", i, err)
		}
		var ex transformer.Example[F]
		n := seq.n
		if width > 0 {
			ex.Input.Features = make([]F, len(seq.feats))
			for j, v := range seq.feats {
				ex.Input.Features[j] = F(v)
			}
		} else {
			ex.Input.Tokens = seq.tokens
		}
		if hard {
			ex.Target.Labels = make([]int, n)
			for j := range ex.Target.Labels {
				ex.Target.Labels[j] = -1
			}
		} else {
			ex.Target.Dist = make([]F, n*A)
			ex.Target.Weights = make([]F, n)
		}
		for k, lab := range tr.Labels {
			p := predict[k]
			if hard {
				ex.Target.Labels[p] = sampleLabel(lab, rng)
				continue
			}
			d := ex.Target.Dist[p*A : (p+1)*A]
			for c, v := range lab {
				d[c] = F(v)
			}
			ex.Target.Weights[p] = 1
		}
		out[i] = ex
	}
	return out, nil
}

// sampleLabel returns the action of a one-hot label without drawing, and a
// draw from rng otherwise.
func sampleLabel(lab []float64, rng *rand.Rand) int {
	for a, v := range lab {
		if v == 1 {
			return a
		}
	}
	return simplex.SampleCategorical(lab, rng)
}
