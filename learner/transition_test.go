package learner_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
)

func TestTransitionViews(t *testing.T) {
	tr := play.Transition{State: 2, Row: 1, Col: 3, Reward: 0.25, Next: 4}
	if got, want := tr.Step(game.RowPlayer), (learner.Step{State: 2, Action: 1, Reward: 0.25}); got != want {
		t.Errorf("row step %+v, want %+v", got, want)
	}
	if got, want := tr.Step(game.ColumnPlayer), (learner.Step{State: 2, Action: 3, Reward: 0.75}); got != want {
		t.Errorf("column step %+v, want %+v", got, want)
	}
	if tr.Opponent(game.RowPlayer) != 3 || tr.Opponent(game.ColumnPlayer) != 1 {
		t.Errorf("opponents %d, %d, want 3, 1", tr.Opponent(game.RowPlayer), tr.Opponent(game.ColumnPlayer))
	}
	defer func() {
		if recover() == nil {
			t.Error("Transition.Action of an invalid player did not panic")
		}
	}()
	tr.Action(game.Player(2))
}

// jointRecorder is a learner that can take the joint action and records
// which method fed it.
type jointRecorder struct {
	policy         []float64
	own, opp       []int
	rewards        []float64
	joint, plain   int
	failJoint      error
	nextStatesSeen []int
}

func (j *jointRecorder) Policy(int) []float64 { return j.policy }
func (j *jointRecorder) Reset()               {}
func (j *jointRecorder) Observe(s, a int, r float64, next int) error {
	j.plain++
	j.own, j.rewards = append(j.own, a), append(j.rewards, r)
	return nil
}
func (j *jointRecorder) Opponents() int { return 0 }
func (j *jointRecorder) ObserveJoint(s, a, b int, r float64, next int) error {
	if j.failJoint != nil {
		return j.failJoint
	}
	j.joint++
	j.own, j.opp, j.rewards = append(j.own, a), append(j.opp, b), append(j.rewards, r)
	j.nextStatesSeen = append(j.nextStatesSeen, next)
	return nil
}

// roundLog is a Recorder that keeps every transition.
type roundLog struct {
	rounds []play.Transition
	fail   int
}

func (l *roundLog) Record(t int, tr play.Transition) error {
	if t != len(l.rounds)+1 {
		return errors.New("rounds out of order")
	}
	if t == l.fail {
		return errors.New("recorder full")
	}
	l.rounds = append(l.rounds, tr)
	return nil
}

// TestSelfPlayObservation checks what the learners are fed: under
// JointActions a JointLearner gets the opponent's action (the other
// learner's own action of the same round) and its own reward, a plain
// learner only its own; under Decentralized everyone gets Observe. The
// recorder sees each round once, in order, as the learners do.
func TestSelfPlayObservation(t *testing.T) {
	g, err := game.NewZeroSum([][]float64{{0.9, 0.1, 0.4}, {0.2, 0.8, 0.6}})
	if err != nil {
		t.Fatal(err)
	}
	const T = 50
	for _, obs := range []learner.Observation{learner.Decentralized, learner.JointActions} {
		row := &jointRecorder{policy: []float64{0.5, 0.5}}
		col := &fixedPolicy{p: []float64{0.2, 0.3, 0.5}}
		log := &roundLog{}
		_, err := play.SelfPlay(context.Background(), g, row, col, play.SelfPlayConfig{Rounds: T, Noise: game.Exact{}, Observation: obs, Recorder: log}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if len(log.rounds) != T {
			t.Fatalf("%v: recorder saw %d rounds, want %d", obs, len(log.rounds), T)
		}
		wantJoint, wantPlain := 0, T
		if obs == learner.JointActions {
			wantJoint, wantPlain = T, 0
		}
		if row.joint != wantJoint || row.plain != wantPlain {
			t.Errorf("%v: joint learner fed %d joint and %d plain rounds, want %d and %d", obs, row.joint, row.plain, wantJoint, wantPlain)
		}
		for i, tr := range log.rounds {
			if row.own[i] != tr.Row || row.rewards[i] != tr.Reward || col.actions[i] != tr.Col || col.rewards[i] != 1-tr.Reward {
				t.Fatalf("%v round %d: learners saw (%d, %v) and (%d, %v), the round was %+v", obs, i+1, row.own[i], row.rewards[i], col.actions[i], col.rewards[i], tr)
			}
			if want := g.At(tr.Row, tr.Col); tr.Reward != want {
				t.Fatalf("%v round %d: exact reward %v, want A[%d][%d] = %v", obs, i+1, tr.Reward, tr.Row, tr.Col, want)
			}
			if obs == learner.JointActions && row.opp[i] != tr.Col {
				t.Fatalf("round %d: the row learner saw opponent %d, the column player played %d", i+1, row.opp[i], tr.Col)
			}
		}
	}
	// Errors: an unknown setting, joint actions under full information, a
	// failing recorder and a failing joint observation.
	col := &fixedPolicy{p: []float64{0.2, 0.3, 0.5}}
	for _, c := range []struct {
		name string
		row  learner.Learner
		cfg  play.SelfPlayConfig
		want string
	}{
		{"unknown observation", &jointRecorder{policy: []float64{0.5, 0.5}}, play.SelfPlayConfig{Rounds: 3, Observation: 7}, "Observation(7)"},
		{"joint full information", &jointRecorder{policy: []float64{0.5, 0.5}}, play.SelfPlayConfig{Rounds: 3, Observation: learner.JointActions, Feedback: play.FullInformation}, "needs bandit feedback"},
		{"recorder error", &jointRecorder{policy: []float64{0.5, 0.5}}, play.SelfPlayConfig{Rounds: 5, Recorder: &roundLog{fail: 3}}, "round 3, recorder: recorder full"},
		{"joint observe error", &jointRecorder{policy: []float64{0.5, 0.5}, failJoint: errors.New("no")}, play.SelfPlayConfig{Rounds: 5, Observation: learner.JointActions}, "round 1, row player: no"},
	} {
		_, err := play.SelfPlay(context.Background(), g, c.row, col, c.cfg, rand.New(rand.NewPCG(1, 2)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

func TestFixed(t *testing.T) {
	f, err := learner.NewFixed([][]float64{{0.25, 0.75}, {1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if f.States() != 2 || f.Actions() != 2 || f.Policy(1)[0] != 1 || f.Policy(0)[1] != 0.75 {
		t.Errorf("Fixed holds %v and %v", f.Policy(0), f.Policy(1))
	}
	if err := f.Observe(0, 1, 0.5, 1); err != nil {
		t.Errorf("a valid round: %v", err)
	}
	for _, c := range []struct {
		s, a, next int
		r          float64
		want       error
	}{{2, 0, 0, 0.5, icrl.ErrOutOfRange}, {0, 2, 0, 0.5, icrl.ErrOutOfRange}, {0, 0, -1, 0.5, icrl.ErrOutOfRange}, {0, 0, 0, 1.5, icrl.ErrOutOfRange}} {
		if err := f.Observe(c.s, c.a, c.r, c.next); !errors.Is(err, c.want) {
			t.Errorf("Observe(%d, %d, %v, %d) = %v, want %v", c.s, c.a, c.r, c.next, err, c.want)
		}
	}
	for _, bad := range [][][]float64{nil, {{0.5, 0.5}, {1}}, {{0.5, 0.6}}, {{-0.5, 1.5}}} {
		if _, err := learner.NewFixed(bad); !errors.Is(err, icrl.ErrInvalid) {
			t.Errorf("NewFixed(%v) = %v, want ErrInvalid", bad, err)
		}
	}
	// The policy is copied.
	p := [][]float64{{0.5, 0.5}}
	f, _ = learner.NewFixed(p)
	p[0][0] = 2
	if f.Policy(0)[0] != 0.5 {
		t.Error("NewFixed kept the caller's slice")
	}
}
