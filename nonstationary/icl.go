package nonstationary

// This file adapts the shared in-context pipeline of package
// learner/incontext to non-stationary bandits: the environments are
// bandit.OracleEnv values (so incontext.CollectBandits generates
// pretraining data from them, labelled by any bandit.Learner), and
// EvaluateImitation compares an in-context learner with its expert on the
// regret this package measures.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/num"
	"github.com/icrl-go/icrl/internal/parallel"
	"github.com/icrl-go/icrl/learner/bandit"
)

// Compile-time check: the bandit environments are the bandit protocol's.
var _ bandit.OracleEnv = Env(nil)

// agentStream is the stream word of a teacher-forced agent's generator in
// [EvaluateImitation].
const agentStream = 0x2545f4914f6cdd1d

// newLearner calls a factory and checks its result.
func newLearner(f bandit.Factory, role string) (bandit.Learner, error) {
	l, err := f()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", role, err)
	}
	if l == nil {
		return nil, fmt.Errorf("%w: %s factory returned nil", icrl.ErrNil, role)
	}
	return l, nil
}

// ImitationRegret compares a learner with the expert it imitates on the
// same environments ([EvaluateImitation]).
type ImitationRegret struct {
	// Envs is the number of environments, Rounds the rounds per
	// environment.
	Envs, Rounds int
	// Agreement is the fraction of all rounds at which the learner's arm
	// equals the arm the shadowing expert chooses on the learner's own
	// history.
	Agreement float64
	// ForcedAgreement is the fraction of all rounds at which the learner,
	// fed the expert's own history (teacher forcing: the expert plays, both
	// observe), picks the expert's arm — the held-out accuracy of the
	// imitation objective, free of the compounding of the learner's own
	// deviations that Agreement includes.
	ForcedAgreement float64
	// Regret and ExpertRegret are the mean final pseudo dynamic regrets of
	// the learner and of the expert playing on its own, on the same
	// environments; RegretStd and ExpertRegretStd their sample standard
	// deviations.
	Regret, RegretStd, ExpertRegret, ExpertRegretStd float64
	// Ratio is Regret/ExpertRegret (+Inf if the expert's regret is 0 and the
	// learner's is not; 1 if both are 0).
	Ratio float64
}

// EvaluateImitation measures how closely agent imitates expert on-policy,
// with the regret of both (incontext.Imitation measures it teacher-forced,
// without a regret). For environment k = 0..n−1, drawn as in [MonteCarlo] with
// envGen(rand.New(rand.NewPCG(seed, k))), the agent plays with [Run]'s
// protocol on that generator, while a shadowing expert is fed the agent's
// history and asked for its arm at every round (its randomness from
// rand.NewPCG(seed, k ⊕ 0x9e3779b97f4a7c15)); a second, independent
// expert then plays the same environment (redrawn from the same seed, with
// the generator's continuation) for the regret comparison, while a second
// agent is fed the expert's history and asked for its arm (teacher forcing;
// its randomness from rand.NewPCG(seed, k ⊕ 0x2545f4914f6cdd1d)). Environments are
// run in parallel, deterministically. It returns an error if n < 1, an
// argument is nil, or a run fails.
func EvaluateImitation(envGen func(*rand.Rand) (Env, error), agent, expert bandit.Factory, n int, seed uint64) (ImitationRegret, error) {
	if n < 1 {
		return ImitationRegret{}, fmt.Errorf("%w: EvaluateImitation needs n ≥ 1, got %d", icrl.ErrInvalid, n)
	}
	if envGen == nil || agent == nil || expert == nil {
		return ImitationRegret{}, fmt.Errorf("%w: EvaluateImitation needs non-nil arguments", icrl.ErrNil)
	}
	agree := make([]int, n)
	forced := make([]int, n)
	rounds := make([]int, n)
	reg := make([]float64, n)
	xreg := make([]float64, n)
	err := parallel.For(n, func(k int) error {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		e, err := envGen(rng)
		if err != nil || e == nil {
			return fmt.Errorf("%w: environment %d: %v", icrl.ErrInvalid, k, err)
		}
		ag, err := newLearner(agent, "agent")
		if err != nil {
			return err
		}
		sh, err := newLearner(expert, "expert")
		if err != nil {
			return err
		}
		xrng := rand.New(rand.NewPCG(seed, uint64(k)^num.ExpertStream))
		T, K := e.Horizon(), e.Arms()
		for t := 1; t <= T; t++ {
			acts := e.Actions(t)
			arm, _ := ag.Act(t, acts, rng)
			xa, _ := sh.Act(t, acts, xrng)
			if arm < 0 || arm >= K {
				return fmt.Errorf("%w: environment %d: agent chose arm %d at round %d, not in [0,%d)", icrl.ErrInvalid, k, arm, t, K)
			}
			if arm == xa {
				agree[k]++
			}
			r := e.Sample(t, arm, rng)
			if err := ag.Observe(t, acts, arm, r); err != nil {
				return fmt.Errorf("nonstationary: environment %d round %d: %w", k, t, err)
			}
			if err := sh.Observe(t, acts, arm, r); err != nil {
				return fmt.Errorf("nonstationary: environment %d round %d: expert: %w", k, t, err)
			}
			best, _ := OptimalMean(e, t)
			reg[k] += best - e.Mean(t, arm)
		}
		rounds[k] = T
		xrng2 := rand.New(rand.NewPCG(seed, uint64(k)))
		e2, err := envGen(xrng2)
		if err != nil || e2 == nil {
			return fmt.Errorf("%w: environment %d (expert run): %v", icrl.ErrInvalid, k, err)
		}
		x, err := newLearner(expert, "expert")
		if err != nil {
			return err
		}
		ag2, err := newLearner(agent, "agent")
		if err != nil {
			return err
		}
		arng := rand.New(rand.NewPCG(seed, uint64(k)^agentStream))
		for t := 1; t <= T; t++ {
			acts := e2.Actions(t)
			xa, _ := x.Act(t, acts, xrng2)
			if xa < 0 || xa >= K {
				return fmt.Errorf("%w: environment %d: expert chose arm %d at round %d, not in [0,%d)", icrl.ErrInvalid, k, xa, t, K)
			}
			if a, _ := ag2.Act(t, acts, arng); a == xa {
				forced[k]++
			}
			r := e2.Sample(t, xa, xrng2)
			if err := x.Observe(t, acts, xa, r); err != nil {
				return fmt.Errorf("nonstationary: environment %d round %d: expert run: %w", k, t, err)
			}
			if err := ag2.Observe(t, acts, xa, r); err != nil {
				return fmt.Errorf("nonstationary: environment %d round %d: agent on expert history: %w", k, t, err)
			}
			best, _ := OptimalMean(e2, t)
			xreg[k] += best - e2.Mean(t, xa)
		}
		return nil
	})
	if err != nil {
		return ImitationRegret{}, err
	}
	st := ImitationRegret{Envs: n, Rounds: rounds[0]}
	tot, ag, fo := 0, 0, 0
	for k := range n {
		tot += rounds[k]
		ag += agree[k]
		fo += forced[k]
	}
	st.Agreement = float64(ag) / float64(tot)
	st.ForcedAgreement = float64(fo) / float64(tot)
	st.Regret, st.RegretStd = num.MeanStd(reg)
	st.ExpertRegret, st.ExpertRegretStd = num.MeanStd(xreg)
	switch {
	case st.ExpertRegret > 0:
		st.Ratio = st.Regret / st.ExpertRegret
	case st.Regret == 0:
		st.Ratio = 1
	default:
		st.Ratio = math.Inf(1)
	}
	return st, nil
}
