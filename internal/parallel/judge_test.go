package parallel

import (
	"testing"
	"time"
)

// TestJudgeBackOff checks the team's back-off rule: three consecutive
// loops without help put it into serial mode for minBackOff, a spell that
// doubles (up to maxBackOff) while loops keep failing, and one loop in
// which the workers kept up resets both the strikes and the spell.
func TestJudgeBackOff(t *testing.T) {
	var tm Team
	fail := func() { tm.judge(false, time.Microsecond, 0) }
	ok := func() { tm.judge(true, time.Millisecond, time.Microsecond) }
	serial := func() bool { return time.Now().Before(tm.serialUntil) }

	fail()
	fail()
	if serial() || tm.strikes != 2 {
		t.Fatalf("after two failures: serial %v, strikes %d; want parallel, 2", serial(), tm.strikes)
	}
	ok()
	if tm.strikes != 0 || tm.backOff != 0 {
		t.Fatalf("a good loop left strikes %d, back-off %v", tm.strikes, tm.backOff)
	}
	fail()
	fail()
	if serial() {
		t.Fatal("two failures after a good loop backed off: the strikes were not reset")
	}
	fail()
	if !serial() || tm.backOff != minBackOff {
		t.Fatalf("three failures: serial %v, back-off %v; want serial for %v", serial(), tm.backOff, minBackOff)
	}
	// Failing again after the spell doubles it, up to the cap.
	want := minBackOff
	for range 10 {
		fail()
		fail()
		fail()
		want = min(2*want, maxBackOff)
		if tm.backOff != want {
			t.Fatalf("back-off %v, want %v", tm.backOff, want)
		}
	}
	// One good loop resets the spell to its minimum.
	ok()
	fail()
	fail()
	fail()
	if tm.backOff != minBackOff {
		t.Errorf("after a good loop the next spell is %v, want %v", tm.backOff, minBackOff)
	}
	// A worker that joined but made the caller wait longer than its own
	// share counts against the team.
	tm = Team{}
	for range 3 {
		tm.judge(true, time.Microsecond, time.Millisecond)
	}
	if !serial() {
		t.Error("three loops with long waits did not back off")
	}
}
