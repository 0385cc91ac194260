package nonstationary

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/transformer"
)

// BanditEncoding lays a linear-bandit history out as a sequence of feature
// vectors for a transformer with a feature read-in (transformer.Config
// Features = Width()), following the embedding of spec §1.6 (seed paper
// §2.3, after Lin, Bai and Mei 2024, "LBM"; references §3.3): tokens
// alternate between the action-set token s_t of round t and the
// (action, reward) token (a_t, r_t),
//
//	H = [h(s_1), h(a_1,r_1), h(s_2), h(a_2,r_2), …, h(a_{t−1},r_{t−1}), h(s_t)],
//
// so round t occupies positions 2(t−1) (its action set) and 2(t−1)+1 (its
// action and reward), 0-based, and the policy of round t is read out at
// position 2(t−1), the action-set token, which sees D_{t−1} and s_t but not
// a_t (spec §1.6, "induced algorithm"; LBM net.py reads preds[:, 0::2]).
//
// With d = Dim and A = Arms every token has Width() = d·A + d + A + 2
// coordinates:
//
//	[0, d·A)              vec(a_{t,1}, …, a_{t,A}): arm k's features at k·d … k·d+d−1 (set token; 0 otherwise)
//	[d·A, d·A+d)          the played arm's features x_{t,a_t} (action token; 0 otherwise)
//	[d·A+d, d·A+d+A)      one-hot of the played arm a_t (action token; 0 otherwise)
//	d·A+d+A               RewardScale·r_t (action token; 0 otherwise)
//	d·A+d+A+1             type flag: 1 on the set token, 0 on the action token
//
// The set token is LBM's "vec(A_t)" slot and the one-hot and reward are
// LBM net.py's "(onehot(a_t), r_t)"; the played features x_{t,a_t} are the
// a_t slot of LBM's theory embedding (spec §1.6), kept so that a model need
// not look back to the set token to regress rewards on features. LBM's
// constant 1 is the read-in's bias and its position coordinates (i, i², 1)
// are replaced by the transformer's learned positions; the flag tells the two
// token types apart.
//
// The zero value is not usable: Dim and Arms must be positive.
type BanditEncoding struct {
	// Dim is the feature dimension d ≥ 1 of the linear bandit.
	Dim int
	// Arms is the number A ≥ 1 of actions offered every round.
	Arms int
	// RewardScale multiplies the rewards written into the action tokens; 0
	// means 1. Use it to bring rewards of a different range (e.g. the
	// [3,4] windows of the low non-stationarity scenario, spec §4.2) to the
	// scale of the training data.
	RewardScale float64
}

// Width returns the width W = d·A + d + A + 2 of every token.
func (e BanditEncoding) Width() int { return e.Dim*e.Arms + e.Dim + e.Arms + 2 }

// Positions returns the number of positions 2T − 1 that a history of T
// rounds occupies when the policy of round T is read (the last round's
// action token is never needed).
func (e BanditEncoding) Positions(T int) int { return max(2*T-1, 0) }

func (e BanditEncoding) scale() float64 {
	if e.RewardScale == 0 {
		return 1
	}
	return e.RewardScale
}

// Validate returns an error naming the bad field if Dim or Arms is not
// positive or RewardScale is negative or not finite.
func (e BanditEncoding) Validate() error {
	switch {
	case e.Dim < 1:
		return fmt.Errorf("nonstationary: BanditEncoding Dim = %d must be positive", e.Dim)
	case e.Arms < 1:
		return fmt.Errorf("nonstationary: BanditEncoding Arms = %d must be positive", e.Arms)
	case !(e.RewardScale >= 0) || math.IsInf(e.RewardScale, 0):
		return fmt.Errorf("nonstationary: BanditEncoding RewardScale = %v must be finite and non-negative", e.RewardScale)
	}
	return nil
}

// checkSet returns an error if set is not Arms finite vectors of length
// Dim.
func (e BanditEncoding) checkSet(set [][]float64) error {
	if len(set) != e.Arms {
		return fmt.Errorf("nonstationary: action set has %d actions, want %d", len(set), e.Arms)
	}
	for k, x := range set {
		if len(x) != e.Dim {
			return fmt.Errorf("nonstationary: action %d has dimension %d, want %d", k, len(x), e.Dim)
		}
		for i, v := range x {
			if !finite(v) {
				return fmt.Errorf("nonstationary: action %d coordinate %d = %v is not finite", k, i, v)
			}
		}
	}
	return nil
}

// iclPutSet writes the action-set token of set into dst (Width() values).
func iclPutSet[F float32 | float64](e BanditEncoding, dst []F, set [][]float64) {
	clear(dst)
	d := e.Dim
	for k, x := range set {
		for i, v := range x {
			dst[k*d+i] = F(v)
		}
	}
	dst[e.Width()-1] = 1
}

// iclPutAction writes the (action, reward) token of arm (with features x)
// and reward into dst (Width() values).
func iclPutAction[F float32 | float64](e BanditEncoding, dst []F, x []float64, arm int, reward float64) {
	clear(dst)
	o := e.Dim * e.Arms
	for i, v := range x {
		dst[o+i] = F(v)
	}
	o += e.Dim
	dst[o+arm] = 1
	dst[o+e.Arms] = F(e.scale() * reward)
}

// Encode lays out the history of n rounds — action sets sets[0..n−1]
// (each Arms × Dim), arms played arms[0..n−1] and rewards rewards[0..n−1]
// — followed, if next is non-nil, by the action-set token of round n+1. It
// returns the 2n (or 2n+1) tokens row-major (Width() values each) and the
// positions predict of the action-set tokens, where a model's logits give
// the policy of each round (predict[t] = 2t, 0-based). It returns an error
// naming the bad value if the encoding is invalid, the lengths differ, an
// action set has the wrong shape or a non-finite value, an arm is out of
// range, or a reward is not finite. Cost: O(n·Width()).
func (e BanditEncoding) Encode(sets [][][]float64, arms []int, rewards []float64, next [][]float64) (features []float64, predict []int, err error) {
	return iclEncode[float64](e, sets, arms, rewards, next)
}

func iclEncode[F float32 | float64](e BanditEncoding, sets [][][]float64, arms []int, rewards []float64, next [][]float64) ([]F, []int, error) {
	if err := e.Validate(); err != nil {
		return nil, nil, err
	}
	n := len(sets)
	if len(arms) != n || len(rewards) != n {
		return nil, nil, fmt.Errorf("nonstationary: Encode got %d action sets, %d arms and %d rewards", n, len(arms), len(rewards))
	}
	for t := range n {
		if err := e.checkSet(sets[t]); err != nil {
			return nil, nil, fmt.Errorf("round %d: %w", t+1, err)
		}
		if arms[t] < 0 || arms[t] >= e.Arms {
			return nil, nil, fmt.Errorf("nonstationary: Encode: arm %d of round %d is not in [0,%d)", arms[t], t+1, e.Arms)
		}
		if !finite(rewards[t]) {
			return nil, nil, fmt.Errorf("nonstationary: Encode: reward %v of round %d is not finite", rewards[t], t+1)
		}
	}
	tokens := 2 * n
	if next != nil {
		if err := e.checkSet(next); err != nil {
			return nil, nil, fmt.Errorf("next round: %w", err)
		}
		tokens++
	}
	W := e.Width()
	feat := make([]F, tokens*W)
	predict := make([]int, 0, n+1)
	for t := range n {
		iclPutSet(e, feat[2*t*W:(2*t+1)*W], sets[t])
		iclPutAction(e, feat[(2*t+1)*W:(2*t+2)*W], sets[t][arms[t]], arms[t], rewards[t])
		predict = append(predict, 2*t)
	}
	if next != nil {
		iclPutSet(e, feat[2*n*W:], next)
		predict = append(predict, 2*n)
	}
	return feat, predict, nil
}

// BanditTrajectory is one pretraining trajectory D_T with its expert labels
// ā_t (spec §1.5, §5.4 Trajectory): every slice has one entry per round,
// index t−1.
type BanditTrajectory struct {
	// Sets are the action sets A_t offered; they alias the environment's
	// (immutable) slices and must not be modified.
	Sets [][][]float64
	// Arms are the arms a_t the behaviour algorithm alg_0 played.
	Arms []int
	// Rewards are the realised rewards r_t.
	Rewards []float64
	// Labels are the expert's arms ā_t ~ alg_B(·|D_{t−1}, s_t), the hard
	// imitation targets.
	Labels []int
	// Regret is the behaviour's pseudo dynamic regret Σ_t (f*_t − f_t(a_t))
	// over the trajectory (spec §1.4).
	Regret float64
}

// iclExpertStream is the second PCG stream word of the generator that feeds
// an expert's (or a shadowing learner's) own randomness, so that the
// behaviour's play does not depend on what the expert draws.
const iclExpertStream = 0x9e3779b97f4a7c15

// iclAgentStream is the stream word of a teacher-forced agent's generator
// in [EvaluateImitation].
const iclAgentStream = 0x2545f4914f6cdd1d

// CollectBandit generates n pretraining trajectories (spec §1.5, §5.4
// Collect; LBM collect_data.py). Trajectory k draws its environment with
// envGen(rng), rng = rand.New(rand.NewPCG(seed, k)); a fresh behaviour
// learner (alg_0) plays it for the environment's whole horizon, drawing its
// actions and the rewards from rng (as [Run] does); and a fresh expert
// (alg_B) is fed the same history — the behaviour's arms and rewards — and
// asked at every round for its own arm, with its randomness from
// rand.NewPCG(seed, k ⊕ 0x9e3779b97f4a7c15). That arm is the hard label
// ā_t. The seed paper's experiments imitate "the experts' actions", LinUCB
// (α = 1) or linear Thompson sampling (v² = 0.3) (spec §4.1): with LinUCB
// the label is its deterministic UCB arm; with Thompson sampling it is one
// posterior sample's arm, a draw from alg_B(·|D_{t−1}, s_t), as in LBM (whose
// soft targets would need TS's arm probabilities, which have no closed form).
//
// If behavior is nil the expert itself acts (on-policy data, alg_0 = alg_B,
// LBM's default): its arm is both a_t and ā_t, and it draws from rng.
//
// Trajectories are generated in parallel on runtime.GOMAXPROCS(0)
// goroutines; each owns its generators, so the result is identical for any
// GOMAXPROCS. envGen and the factories are called concurrently and must be
// safe for that. The environments must be linear bandits (Dim() ≥ 1). It
// returns the error of the lowest failing trajectory, or an error if n < 1,
// envGen or expert is nil, or the environments' horizons, dimensions or
// arm counts differ between trajectories (one model reads them all).
func CollectBandit(envGen func(*rand.Rand) (Env, error), behavior, expert learner.BanditFactory, n int, seed uint64) ([]BanditTrajectory, error) {
	if n < 1 {
		return nil, fmt.Errorf("nonstationary: CollectBandit needs n ≥ 1, got %d", n)
	}
	if envGen == nil || expert == nil {
		return nil, errors.New("nonstationary: CollectBandit needs a non-nil environment generator and expert factory")
	}
	out := make([]BanditTrajectory, n)
	type shape struct{ T, A, d int }
	shapes := make([]shape, n)
	err := iclParallel(n, func(k int) error {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		e, err := envGen(rng)
		if err != nil {
			return fmt.Errorf("nonstationary: trajectory %d: environment: %w", k, err)
		}
		if e == nil {
			return fmt.Errorf("nonstationary: trajectory %d: environment generator returned nil", k)
		}
		if e.Dim() < 1 {
			return fmt.Errorf("nonstationary: trajectory %d: CollectBandit needs a linear bandit, got Dim() = %d", k, e.Dim())
		}
		shapes[k] = shape{e.Horizon(), e.Arms(), e.Dim()}
		ex, err := iclNewLearner(expert, "expert")
		if err != nil {
			return fmt.Errorf("nonstationary: trajectory %d: %w", k, err)
		}
		var beh learner.BanditLearner
		xrng := rng
		if behavior != nil {
			if beh, err = iclNewLearner(behavior, "behaviour"); err != nil {
				return fmt.Errorf("nonstationary: trajectory %d: %w", k, err)
			}
			xrng = rand.New(rand.NewPCG(seed, uint64(k)^iclExpertStream))
		}
		T, K := e.Horizon(), e.Arms()
		tr := BanditTrajectory{Sets: make([][][]float64, T), Arms: make([]int, T), Rewards: make([]float64, T), Labels: make([]int, T)}
		for t := 1; t <= T; t++ {
			acts := e.Actions(t)
			label, _ := ex.Act(t, acts, xrng)
			arm := label
			if beh != nil {
				arm, _ = beh.Act(t, acts, rng)
			}
			if arm < 0 || arm >= K || label < 0 || label >= K {
				return fmt.Errorf("nonstationary: trajectory %d round %d: arm %d or label %d not in [0,%d)", k, t, arm, label, K)
			}
			r := e.Sample(t, arm, rng)
			if beh != nil {
				if err := beh.Observe(t, acts, arm, r); err != nil {
					return fmt.Errorf("nonstationary: trajectory %d round %d: behaviour: %w", k, t, err)
				}
			}
			if err := ex.Observe(t, acts, arm, r); err != nil {
				return fmt.Errorf("nonstationary: trajectory %d round %d: expert: %w", k, t, err)
			}
			best, _ := OptimalMean(e, t)
			tr.Sets[t-1], tr.Arms[t-1], tr.Rewards[t-1], tr.Labels[t-1] = acts, arm, r, label
			tr.Regret += best - e.Mean(t, arm)
		}
		out[k] = tr
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k := 1; k < n; k++ {
		if shapes[k] != shapes[0] {
			return nil, fmt.Errorf("nonstationary: trajectory %d has horizon %d, %d arms, dimension %d; trajectory 0 has %d, %d, %d",
				k, shapes[k].T, shapes[k].A, shapes[k].d, shapes[0].T, shapes[0].A, shapes[0].d)
		}
	}
	return out, nil
}

func iclNewLearner(f learner.BanditFactory, role string) (learner.BanditLearner, error) {
	l, err := f()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", role, err)
	}
	if l == nil {
		return nil, fmt.Errorf("%s factory returned nil", role)
	}
	return l, nil
}

// iclParallel runs fn(0..n−1) on runtime.GOMAXPROCS(0) goroutines and
// returns the error of the lowest failing index (stopping new work after a
// failure).
func iclParallel(n int, fn func(k int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= n || failed.Load() {
					return
				}
				if err := fn(k); err != nil {
					errs[k] = err
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// BanditExamples turns trajectories into training examples for
// transformer.Train: trajectory i of T rounds becomes the 2T − 1 tokens of
// [BanditEncoding.Encode] (its last action token dropped), with the expert
// label ā_t at the action-set token of round t and −1 (not scored) at the
// action tokens, so that the loss is the pretraining objective of spec §1.5
// (display (6): Σ_t −log alg_θ(ā_t | D_{t−1}, s_t)), averaged over the
// scored positions. It returns an error naming the bad trajectory if the
// encoding is invalid or a trajectory does not fit it.
func BanditExamples(trajs []BanditTrajectory, enc BanditEncoding) ([]transformer.Example[float32], error) {
	if err := enc.Validate(); err != nil {
		return nil, err
	}
	out := make([]transformer.Example[float32], len(trajs))
	for i, tr := range trajs {
		T := len(tr.Sets)
		if T == 0 || len(tr.Labels) != T || len(tr.Arms) != T || len(tr.Rewards) != T {
			return nil, fmt.Errorf("nonstationary: trajectory %d has %d sets, %d arms, %d rewards and %d labels", i, T, len(tr.Arms), len(tr.Rewards), len(tr.Labels))
		}
		feat, pred, err := iclEncode[float32](enc, tr.Sets[:T-1], tr.Arms[:T-1], tr.Rewards[:T-1], tr.Sets[T-1])
		if err != nil {
			return nil, fmt.Errorf("nonstationary: trajectory %d: %w", i, err)
		}
		labels := make([]int, 2*T-1)
		for j := range labels {
			labels[j] = -1
		}
		for t, p := range pred {
			if l := tr.Labels[t]; l < 0 || l >= enc.Arms {
				return nil, fmt.Errorf("nonstationary: trajectory %d: label %d of round %d is not in [0,%d)", i, l, t+1, enc.Arms)
			}
			labels[p] = tr.Labels[t]
		}
		out[i] = transformer.Example[float32]{Input: transformer.Sequence[float32]{Features: feat}, Target: transformer.Target[float32]{Labels: labels}}
	}
	return out, nil
}

// PretrainBandit builds a transformer for enc and fits it to trajs by
// supervised pretraining on the expert labels (spec §1.5 display (6), §5.4
// Pretrain; LBM train.py's cross-entropy at every action-set token). The
// model configuration is model with Features = enc.Width() and Outputs =
// enc.Arms filled in, and MaxLen raised to at least 2T − 1 for the longest
// trajectory's horizon T (the context a [TransformerLearner] needs at round
// T); every other field (Layers, Heads, Width, FeedForward, attention,
// norm, …) is the caller's. The parameters are initialised from
// rand.New(rand.NewPCG(cfg.Seed, 1)) and trained by transformer.Train with
// cfg (whose Validation, if any, must already be encoded with
// [BanditExamples]). Returned errors come from the encoding, the model
// configuration or training; on cancellation of ctx the partially trained
// model is returned with ctx's error.
func PretrainBandit(ctx context.Context, trajs []BanditTrajectory, enc BanditEncoding, cfg transformer.TrainConfig[float32], model transformer.Config) (*transformer.Model[float32], transformer.TrainResult, error) {
	if len(trajs) == 0 {
		return nil, transformer.TrainResult{}, errors.New("nonstationary: PretrainBandit needs at least one trajectory")
	}
	data, err := BanditExamples(trajs, enc)
	if err != nil {
		return nil, transformer.TrainResult{}, err
	}
	T := 0
	for _, tr := range trajs {
		T = max(T, len(tr.Sets))
	}
	model.Vocab = 0
	model.Features = enc.Width()
	model.Outputs = enc.Arms
	model.MaxLen = max(model.MaxLen, enc.Positions(T))
	m, err := transformer.New[float32](model, rand.New(rand.NewPCG(cfg.Seed, 1)))
	if err != nil {
		return nil, transformer.TrainResult{}, err
	}
	res, err := transformer.Train(ctx, m, data, cfg)
	return m, res, err
}

// TransformerLearnerConfig configures [NewTransformerLearner]; the zero
// value samples from softmax(logits).
type TransformerLearnerConfig struct {
	// Greedy plays the arm of largest logit (lowest index on ties) instead
	// of sampling from the policy. The seed paper does not say which it
	// used at test time (spec §4.1); LBM's eval samples.
	Greedy bool
	// Temperature is τ in softmax(logits/τ) (spec §1.6); 0 means 1.
	Temperature float64
}

// TransformerLearner plays a linear bandit in context with a pretrained
// transformer: the induced algorithm alg_θ(·|D_{t−1}, s_t) =
// softmax(A·h̄_{2t−1}/τ) of spec §1.6 (display (5)), with the history laid
// out by a [BanditEncoding] and held in the model's key–value cache
// (transformer.Session), so round t costs two appends, O(L·(D² + D·D_ff +
// t·D)), instead of a forward pass over the whole history. It implements
// learner.BanditLearner (spec §5.4 TFLearner).
//
// Act appends round t's action-set token, reads the logits there and
// samples an arm from the policy with rng (or takes the argmax, see
// [TransformerLearnerConfig]); Observe appends the (action, reward) token;
// Reset empties the cache. If Act is called again before Observe, the
// pending action-set token is replaced; Observe without a preceding Act
// appends both tokens.
//
// Optimistic value: a transformer estimates no reward, so it has no
// optimistic value f̃_t in the sense of Wei and Luo's Assumption 1. Act
// reports the mean reward observed since the last Reset (0 before the first
// observation) as a surrogate, so that MASTER's tests compare the
// transformer's recent performance with its long-run average; MASTER or
// MALG around a TransformerLearner carries none of MASTER's guarantees, and
// the seed paper's experiments run the transformer on its own (spec §4.1).
//
// Context length: a model with learned positions reads at most MaxLen
// positions (2T − 1 for T rounds). When round t's tokens do not fit, the
// learner keeps only the most recent ⌊R/2⌋ rounds, R = ⌊(MaxLen − 1)/2⌋
// the rounds that fit, and re-appends them to an empty cache (amortised
// O(1) extra appends per round): beyond the training horizon it plays with
// a sliding window of between R/2 and R rounds, an extension, since the
// seed paper evaluates the low non-stationarity scenario (T = 1000) without
// saying how the context is handled. Models without learned positions keep
// the whole history.
//
// Act panics if the action set does not have Arms actions of dimension Dim
// with finite entries, or if it samples and rng is nil; Observe returns an
// error, leaving the learner unchanged, for a bad action set, an arm out of
// range or a non-finite reward. A TransformerLearner is not safe for
// concurrent use; several may share one model (which must not be trained
// meanwhile).
type TransformerLearner struct {
	enc    BanditEncoding
	sess   *transformer.Session[float32]
	greedy bool
	temp   float64
	cap    int // positions available; 0 means unlimited

	hist    []float32 // tokens of the completed rounds kept, 2·Width per round
	pending bool      // the current round's set token is in the cache
	set     []float32 // the pending set token
	tok     []float32
	probs   []float64
	rounds  int
	sum     float64
}

// NewTransformerLearner returns a learner that plays with m. It returns an
// error if m is nil, enc is invalid, m's Features or Outputs do not match
// enc, m's MaxLen is below 3 (one round and the next query) for a model with
// learned positions, or the temperature is negative or not finite.
func NewTransformerLearner(m *transformer.Model[float32], enc BanditEncoding, cfg TransformerLearnerConfig) (*TransformerLearner, error) {
	if m == nil {
		return nil, errors.New("nonstationary: NewTransformerLearner needs a model")
	}
	if err := enc.Validate(); err != nil {
		return nil, err
	}
	mc := m.Config()
	if mc.Features != enc.Width() || mc.Outputs != enc.Arms {
		return nil, fmt.Errorf("nonstationary: model reads %d features and writes %d logits; the encoding needs %d and %d", mc.Features, mc.Outputs, enc.Width(), enc.Arms)
	}
	temp := cfg.Temperature
	if temp == 0 {
		temp = 1
	}
	if !(temp > 0) || math.IsInf(temp, 0) {
		return nil, fmt.Errorf("nonstationary: TransformerLearner Temperature = %v must be positive and finite", cfg.Temperature)
	}
	capacity := 0
	if mc.Positions == transformer.LearnedPositions {
		capacity = mc.MaxLen
		if capacity == 0 {
			capacity = 1024
		}
		if capacity < 3 {
			return nil, fmt.Errorf("nonstationary: model MaxLen = %d holds no round and query (need ≥ 3)", capacity)
		}
	}
	W := enc.Width()
	return &TransformerLearner{
		enc: enc, sess: m.NewSession(), greedy: cfg.Greedy, temp: temp, cap: capacity,
		set: make([]float32, W), tok: make([]float32, W), probs: make([]float64, enc.Arms),
	}, nil
}

// TransformerFactory returns a factory of [TransformerLearner]s sharing m,
// for [MonteCarlo], [Master] and the other wrappers. It validates the
// arguments once and is safe for concurrent use.
func TransformerFactory(m *transformer.Model[float32], enc BanditEncoding, cfg TransformerLearnerConfig) (learner.BanditFactory, error) {
	if _, err := NewTransformerLearner(m, enc, cfg); err != nil {
		return nil, err
	}
	return func() (learner.BanditLearner, error) { return NewTransformerLearner(m, enc, cfg) }, nil
}

// Policy returns the distribution over arms of the last Act (all zeros
// before the first). The slice belongs to the learner and is valid until
// the next Act.
func (l *TransformerLearner) Policy() []float64 { return l.probs }

// Rounds returns the number of rounds observed since the last Reset.
func (l *TransformerLearner) Rounds() int { return l.rounds }

// Context returns the number of positions in the key–value cache.
func (l *TransformerLearner) Context() int { return l.sess.Len() }

// Reset empties the context: the learner plays the next round as its first.
func (l *TransformerLearner) Reset() {
	l.sess.Reset()
	l.hist = l.hist[:0]
	l.pending = false
	l.rounds, l.sum = 0, 0
	clear(l.probs)
}

// drop removes a pending action-set token from the cache.
func (l *TransformerLearner) drop() {
	if l.pending {
		if err := l.sess.Truncate(l.sess.Len() - 1); err != nil {
			panic("nonstationary: TransformerLearner: " + err.Error())
		}
		l.pending = false
	}
}

// room makes space for need more positions after the committed rounds
// (there must be no pending token), sliding the window if the cache is
// full.
func (l *TransformerLearner) room(need int) {
	if l.cap == 0 || l.sess.Len()+need <= l.cap {
		return
	}
	W := l.enc.Width()
	keep := ((l.cap - 1) / 2) / 2
	kept := len(l.hist) / (2 * W)
	if keep > kept {
		keep = kept
	}
	l.hist = append(l.hist[:0], l.hist[len(l.hist)-2*W*keep:]...)
	l.sess.Reset()
	for i := 0; i < len(l.hist); i += W {
		if _, err := l.sess.AppendFeatures(l.hist[i : i+W]); err != nil {
			panic("nonstationary: TransformerLearner: " + err.Error())
		}
	}
}

// Act appends the action-set token of round t and returns an arm drawn
// from the model's policy there (or its argmax) and the surrogate
// optimistic value described on [TransformerLearner]. t is ignored (the
// position in the context is what the model sees).
func (l *TransformerLearner) Act(t int, actions [][]float64, rng *rand.Rand) (arm int, optimistic float64) {
	if err := l.enc.checkSet(actions); err != nil {
		panic("nonstationary: TransformerLearner.Act: " + err.Error())
	}
	if !l.greedy && rng == nil {
		panic("nonstationary: TransformerLearner.Act: nil rng")
	}
	l.drop()
	l.room(1)
	iclPutSet(l.enc, l.set, actions)
	logits, err := l.sess.AppendFeatures(l.set)
	if err != nil {
		panic("nonstationary: TransformerLearner.Act: " + err.Error())
	}
	l.pending = true
	mx := math.Inf(-1)
	arm = 0
	for k, z := range logits {
		if v := float64(z); v > mx {
			mx, arm = v, k
		}
	}
	s := 0.0
	for k, z := range logits {
		l.probs[k] = math.Exp((float64(z) - mx) / l.temp)
		s += l.probs[k]
	}
	for k := range l.probs {
		l.probs[k] /= s
	}
	if !l.greedy {
		u := rng.Float64()
		arm = len(l.probs) - 1
		c := 0.0
		for k, p := range l.probs {
			c += p
			if u < c {
				arm = k
				break
			}
		}
	}
	if l.rounds > 0 {
		optimistic = l.sum / float64(l.rounds)
	}
	return arm, optimistic
}

// Observe appends the (action, reward) token of round t (and, if Act was
// not called for the round, its action-set token first). t is ignored.
func (l *TransformerLearner) Observe(t int, actions [][]float64, arm int, reward float64) error {
	if err := l.enc.checkSet(actions); err != nil {
		return fmt.Errorf("nonstationary: TransformerLearner.Observe: %w", err)
	}
	if arm < 0 || arm >= l.enc.Arms {
		return fmt.Errorf("nonstationary: TransformerLearner.Observe: arm %d not in [0,%d)", arm, l.enc.Arms)
	}
	if !finite(reward) || !finite(l.enc.scale()*reward) || math.Abs(l.enc.scale()*reward) > math.MaxFloat32 {
		return fmt.Errorf("nonstationary: TransformerLearner.Observe: reward %v is not finite", reward)
	}
	if l.pending && l.cap > 0 && l.sess.Len()+1 > l.cap {
		l.drop() // slide the window, then re-append the set token
	} else if !l.pending {
		iclPutSet(l.enc, l.set, actions)
	}
	if !l.pending {
		l.room(2)
		if _, err := l.sess.AppendFeatures(l.set); err != nil {
			return fmt.Errorf("nonstationary: TransformerLearner.Observe: %w", err)
		}
	}
	iclPutAction(l.enc, l.tok, actions[arm], arm, reward)
	if _, err := l.sess.AppendFeatures(l.tok); err != nil {
		// Unreachable after the checks above; undo the set token.
		_ = l.sess.Truncate(l.sess.Len() - 1)
		l.pending = false
		return fmt.Errorf("nonstationary: TransformerLearner.Observe: %w", err)
	}
	l.pending = false
	if l.cap > 0 {
		l.hist = append(l.hist, l.set...)
		l.hist = append(l.hist, l.tok...)
	}
	l.rounds++
	l.sum += reward
	return nil
}

// ImitationStats compares a learner with the expert it imitates on the
// same environments ([EvaluateImitation]; spec §5.6 item 14).
type ImitationStats struct {
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

// EvaluateImitation measures how closely agent imitates expert (spec §5.6
// item 14). For environment k = 0..n−1, drawn as in [MonteCarlo] with
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
func EvaluateImitation(envGen func(*rand.Rand) (Env, error), agent, expert learner.BanditFactory, n int, seed uint64) (ImitationStats, error) {
	if n < 1 {
		return ImitationStats{}, fmt.Errorf("nonstationary: EvaluateImitation needs n ≥ 1, got %d", n)
	}
	if envGen == nil || agent == nil || expert == nil {
		return ImitationStats{}, errors.New("nonstationary: EvaluateImitation needs non-nil arguments")
	}
	agree := make([]int, n)
	forced := make([]int, n)
	rounds := make([]int, n)
	reg := make([]float64, n)
	xreg := make([]float64, n)
	err := iclParallel(n, func(k int) error {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		e, err := envGen(rng)
		if err != nil || e == nil {
			return fmt.Errorf("nonstationary: environment %d: %v", k, err)
		}
		ag, err := iclNewLearner(agent, "agent")
		if err != nil {
			return err
		}
		sh, err := iclNewLearner(expert, "expert")
		if err != nil {
			return err
		}
		xrng := rand.New(rand.NewPCG(seed, uint64(k)^iclExpertStream))
		T, K := e.Horizon(), e.Arms()
		for t := 1; t <= T; t++ {
			acts := e.Actions(t)
			arm, _ := ag.Act(t, acts, rng)
			xa, _ := sh.Act(t, acts, xrng)
			if arm < 0 || arm >= K {
				return fmt.Errorf("nonstationary: environment %d: agent chose arm %d at round %d, not in [0,%d)", k, arm, t, K)
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
			return fmt.Errorf("nonstationary: environment %d (expert run): %v", k, err)
		}
		x, err := iclNewLearner(expert, "expert")
		if err != nil {
			return err
		}
		ag2, err := iclNewLearner(agent, "agent")
		if err != nil {
			return err
		}
		arng := rand.New(rand.NewPCG(seed, uint64(k)^iclAgentStream))
		for t := 1; t <= T; t++ {
			acts := e2.Actions(t)
			xa, _ := x.Act(t, acts, xrng2)
			if xa < 0 || xa >= K {
				return fmt.Errorf("nonstationary: environment %d: expert chose arm %d at round %d, not in [0,%d)", k, xa, t, K)
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
		return ImitationStats{}, err
	}
	st := ImitationStats{Envs: n, Rounds: rounds[0]}
	tot, ag, fo := 0, 0, 0
	for k := range n {
		tot += rounds[k]
		ag += agree[k]
		fo += forced[k]
	}
	st.Agreement = float64(ag) / float64(tot)
	st.ForcedAgreement = float64(fo) / float64(tot)
	st.Regret, st.RegretStd = iclMeanStd(reg)
	st.ExpertRegret, st.ExpertRegretStd = iclMeanStd(xreg)
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

// iclMeanStd returns the mean and sample standard deviation of x (two-pass).
func iclMeanStd(x []float64) (mean, std float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(x)-1))
}
